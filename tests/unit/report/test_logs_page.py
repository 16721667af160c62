"""The HTML page of a click log (``cranfield logs report``): its sections and charts, hostile
ids as text, the same bytes for the same inputs, and the command's errors."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from cranfield import Evaluator
from cranfield.cli.main import main
from cranfield.data.sessions import Sessions
from cranfield.io.click_logs import write_sessions
from cranfield.logs.simulation import simulate_interleaving
from cranfield.report.logs_page import fit_models, logs_html, rank_ctr_series

HOSTILE = "<script>alert(1)</script>"


def _log(seed: int = 0, n: int = 400, query_ids: tuple[str, ...] = ("q1", "q2")) -> Sessions:
    rng = np.random.default_rng(seed)
    docs = (*(f"d{i}" for i in range(6)), '"&<b>')
    shown = np.array([rng.permutation(len(docs))[:5] for _ in range(n)])
    exam = 1.0 / np.arange(1, 6)
    attract = np.where(shown % 2 == 0, 0.7, 0.2)
    clicked = rng.random(shown.shape) < exam * attract
    return Sessions.from_clicked(
        query_ids=query_ids,
        doc_ids=docs,
        query=rng.integers(0, len(query_ids), n),
        shown=shown,
        clicked=clicked,
        source="log.jsonl",
    )


def _simulation(names: tuple[str, str] = ("a", "b")):  # type: ignore[no-untyped-def]
    qrels = {HOSTILE: {"x": 2, "y": 0}, "q": {"x": 1}}
    a = {HOSTILE: {"x": 2.0, "y": 1.0}, "q": {"x": 2.0, "z": 1.0}}
    b = {HOSTILE: {"y": 2.0, "x": 1.0}, "q": {"z": 2.0, "x": 1.0}}
    result, _ = simulate_interleaving(
        Evaluator(qrels, ["nDCG@10"]), a, b, names=names, sizes=(10, 100), seed=1
    )
    return result


def test_the_page_has_metrics_ctr_models_and_interleaving_and_no_script() -> None:
    page = logs_html(_log(), test=_log(1), simulation=_simulation(), users="DBN, navigational user")
    for key in ("metrics", "ctr", "models", "interleaving", "parameters"):
        assert f'<section id="{key}">' in page
    for key in ("ctr-by-rank", "perplexity-by-rank", "agreement-by-n"):
        assert f'<figure id="{key}">' in page
    assert "<script" not in page
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert csp is not None
    assert "script-src" not in csp.group(1)
    assert "default-src &#x27;none&#x27;" in csp.group(1)
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "scored on the test log log.jsonl (400 sessions)" in page
    assert "Parameters: every ratio smoothed with pseudo-counts 1, 1" in page
    assert "Beta(1, 1) prior, as PyClick" in page
    assert page.count('<tr><td class="name">') >= 9 + 9  # a row per model, twice
    assert '<td class="name">UBM</td>' in page


def test_the_models_are_scored_on_the_log_itself_without_a_test_log() -> None:
    page = logs_html(_log(), models=("PBM", "RankCTR"))
    assert "scored on the log itself (no test log)" in page
    assert '<td class="name">PBM</td>' in page
    assert '<td class="name">DBN</td>' not in page
    assert 'id="interleaving"' not in page
    assert 'id="models"' not in logs_html(_log(), models=())


def test_a_model_fits_the_log_it_was_simulated_like_better_than_a_global_ctr() -> None:
    fits = fit_models(_log(), _log(1), ("GlobalCTR", "pbm"))
    assert fits["PBM"][0].perplexity < fits["GlobalCTR"][0].perplexity
    assert fits["PBM"][1].shape == (5,)
    assert np.all(np.diff(fits["PBM"][1]) < 0.05)  # position bias: clicks fall with rank


def test_test_sessions_with_ids_the_log_lacks_get_the_prior() -> None:
    other = _log(2, query_ids=("q1", "new query"))
    fits = fit_models(_log(), other, ("DocumentCTR",))
    assert fits["DocumentCTR"][0].sessions == len(other)
    assert np.isfinite(fits["DocumentCTR"][0].perplexity)


def test_hostile_ids_are_text() -> None:
    log = _log(query_ids=(HOSTILE, "q2"))
    page = logs_html(log, simulation=_simulation((HOSTILE, "b")), title=HOSTILE, models=("pbm",))
    assert HOSTILE not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert '"&<b>' not in page


def test_the_same_inputs_give_the_same_bytes() -> None:
    one = logs_html(_log(), test=_log(1), simulation=_simulation())
    two = logs_html(_log(), test=_log(1), simulation=_simulation())
    assert one == two


def test_the_command_writes_the_page_and_never_over_an_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, test = tmp_path / "log.jsonl", tmp_path / "test.jsonl"
    write_sessions(_log(), log)
    write_sessions(_log(1), test)
    out = tmp_path / "logs.html"
    code = main(
        ["logs", "report", str(log), "--held-out", str(test), "--model", "pbm,dbn", "-o", str(out)]
    )
    assert code == 0
    assert capsys.readouterr().out.startswith(f"wrote {out} (")
    page = out.read_text(encoding="utf-8")
    assert '<td class="name">DBN</td>' in page
    assert "log sha256" in page
    assert main(["logs", "report", str(log), "-o", str(log)]) == 1
    assert "output" in capsys.readouterr().err
    assert main(["logs", "report", str(log), "--held-out", str(test), "-o", str(test)]) == 1
    capsys.readouterr()
    assert main(["logs", "report", str(log), "--model", "nope", "-o", str(out)]) == 1
    assert "nope" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query_id": "q", "shown": 3}\n', encoding="utf-8")
    assert main(["logs", "report", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl" in err
    assert "Traceback" not in err


def test_the_command_adds_a_simulation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    examples = Path(__file__).resolve().parents[3] / "examples"
    log = tmp_path / "log.jsonl"
    write_sessions(_log(), log)
    argv = ["logs", "report", str(log), "--no-models", "-o", "-", "--simulate"]
    argv += [str(examples / n) for n in ("qrels.txt", "bm25.run", "neural.run")]
    assert main(argv) == 0
    page = capsys.readouterr().out
    assert 'id="interleaving"' in page
    assert "A = bm25, B = neural" in page
    assert main([*argv, "--seed", "0"]) == 0
    assert capsys.readouterr().out == page


def test_observed_and_predicted_ctr_come_from_the_scored_log() -> None:
    """With a test log whose users click rank 1 far more than the training log's, the chart's
    observed CTR is the test log's (the log the models' predictions are averaged over), not
    the training log's; without one, the log's own."""
    train = _log(0)
    clicked = train.clicked.copy()
    clicked[:, 0] = False  # the training users never click rank 1
    train = Sessions.from_clicked(
        query_ids=train.query_ids,
        doc_ids=train.doc_ids,
        query=train.query,
        shown=train.shown,
        clicked=clicked,
        source="train.jsonl",
    )
    test = _log(1)
    fits = fit_models(train, test, ("RankCTR",))
    lines = rank_ctr_series(test, fits)
    observed = lines["observed CTR"]
    assert observed.tolist() == pytest.approx(test.clicked.mean(axis=0).tolist())
    assert observed[0] > 0.3  # test users click rank 1 ...
    # ... the training log's RankCTR predicts the smoothed training CTR (no click in 400: 1/402)
    assert lines["RankCTR (predicted)"][0] == pytest.approx(1 / 402)
    page = logs_html(train, test=test, models=("RankCTR",))
    assert "both on the test log log.jsonl (400 sessions)" in page
    assert "both on the log itself (no test log)" in logs_html(train, models=("RankCTR",))


def test_the_position_bias_has_its_bootstrap_interval() -> None:
    """The log's users examine rank r with 1/r (``_log``): PBM's propensities are close to
    1, 1/2, 1/3, 1/4, 1/5, each inside its interval, and the page shows them."""
    from cranfield.logs.fitted_click_model import examination_curve

    curve = examination_curve(_log(n=2000), resamples=20, seed=3)
    assert curve.propensity.tolist() == pytest.approx([1, 1 / 2, 1 / 3, 1 / 4, 1 / 5], abs=0.08)
    assert (curve.low <= curve.propensity).all()
    assert (curve.propensity <= curve.high).all()
    page = logs_html(_log(), models=("PBM",))
    assert '<figure id="examination-by-rank">' in page
    assert '<section id="examination">' in page
    assert 'id="examination"' not in logs_html(_log(), models=())
