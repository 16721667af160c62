"""``cranfield logs fit``: the table and JSON of click models fitted and scored, the test log
on the training codes, qrels from clicks fed to ``cranfield evaluate``, and its errors."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

import numpy as np
import polars as pl
import pytest

from cranfield.cli.main import main
from cranfield.data.sessions import Sessions
from cranfield.io.click_logs import read_sessions, write_sessions
from cranfield.logs import fit_click_model
from cranfield.logs.simulation import GradedRankings, RecordedClicks, graded_model

if TYPE_CHECKING:
    from pathlib import Path

# q: a clicked in 1 of 4 sessions, b in 3 (twice in one), c in 2; x is not shown
TRAIN = b"q\ta,b,c : a , b , c;q\ta,b,c : b , c , b;q\ta,b,c : b , x;q\ta,b,c :;\n"
# codes in another order, a new query r and a new document d
TEST = b"r\td,a : d;q\tc,b,a : b;q\tb,a,c :;\n"
RUN = b"q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 c 3 1 t\n"
LOG2_3 = math.log2(3)


def write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_table_best_first_on_the_training_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    train = write(tmp_path, "train.txt", TRAIN)
    assert main(["logs", "fit", train]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("train.txt: 4 sessions, 1 queries, depth 3, 8 clicks")
    assert out[1].startswith("scored on the training sessions (no test log)")
    assert out[2] == (
        "clicks of the scored log not seen by the models: 1 on documents not shown, "
        "1 repeated (a result clicked again counts once)"
    )
    header = out[4].split()
    assert header[:4] == ["model", "log-likelihood", "perplexity", "conditional"]
    assert header[4:] == ["@1", "@2", "@3"]
    rows = [line.split() for line in out[5:14]]
    assert sorted(r[0] for r in rows) == sorted(
        ["GlobalCTR", "RankCTR", "DocumentCTR", "PBM", "Cascade", "DCM", "UBM", "DBN", "SDBN"]
    )
    perplexities = [float(r[2]) for r in rows]
    assert perplexities == sorted(perplexities)
    assert "Definitions:" in out


def test_json_has_every_figure_of_the_library(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The test log codes its ids in its own order and has a query and a document the training
    log lacks: the figures are those of the model scored on the test sessions put on the
    training codes."""
    train, test = write(tmp_path, "train.txt", TRAIN), write(tmp_path, "test.txt", TEST)
    assert (
        main(["logs", "fit", train, "--held-out", test, "--model", "pbm,DocumentCTR", "-f", "json"])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["scored_on"] == "test"
    assert data["test"]["sessions"] == 3
    assert data["ignored_clicks"] == {"unshown": 0, "repeated": 0}
    # (r, d) and (r, a) are new: 2 of 5 pairs, 2 of 8 results shown
    assert data["unseen"] == {"pairs": 2, "of_pairs": 5, "results": 2, "of_results": 8}
    assert {m["model"] for m in data["models"]} == {"PBM", "DocumentCTR"}
    for row in data["models"]:
        score = fit_click_model(row["model"], read_sessions(train)).score(read_sessions(test))
        assert row["log_likelihood"] == score.log_likelihood
        assert row["perplexity"] == score.perplexity
        assert row["conditional_perplexity"] == score.conditional_perplexity
        assert row["perplexity_at_rank"] == score.perplexity_at_rank.tolist()
        assert len(row["conditional_perplexity_at_rank"]) == 3
    assert data["models"][0]["perplexity"] <= data["models"][1]["perplexity"]
    parameters = {m["model"]: m["parameters"] for m in data["models"]}
    assert parameters["DocumentCTR"] == {}
    assert set(parameters["PBM"]) == {"iterations"}


def test_options_reach_the_models_that_take_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    train = write(tmp_path, "train.txt", TRAIN)
    argv = [
        "logs",
        "fit",
        train,
        "--model",
        "dbn,pbm,sdbn",
        "--gamma",
        "0.5",
        "--max-iterations",
        "2",
    ]
    assert main([*argv, "-f", "json"]) == 0
    parameters = {
        m["model"]: m["parameters"] for m in json.loads(capsys.readouterr().out)["models"]
    }
    assert parameters == {
        "DBN": {"continuation": 0.5, "iterations": 2},
        "PBM": {"iterations": 2},
        "SDBN": {"continuation": 1.0},
    }


def test_text_with_a_test_log_says_what_gets_the_prior(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    train, test = write(tmp_path, "train.txt", TRAIN), write(tmp_path, "test.txt", TEST)
    assert main(["logs", "fit", train, "--held-out", test, "--model", "ubm"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].endswith("test.txt: 3 sessions, 2 queries, depth 3, 2 clicks")
    assert out[2] == (
        "not in the training log, so given the prior: 2 of its 5 (query, document) pairs, "
        "2 of its 8 results shown"
    )
    assert out[3] == ""


def test_gains_qrels_feed_ndcg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Clicks → judgments → nDCG: DocumentCTR's relevance of a, b, c is 1/4, 3/4, 1/2 (the
    repeated click on b counts once, the click on x not at all; unsmoothed); as gains, the nDCG of a run
    ranking a, b, c is DCG / ideal DCG with those gains."""
    train = write(tmp_path, "train.txt", TRAIN)
    qrels = str(tmp_path / "clicks.qrels")
    argv = ["logs", "fit", train, "--model", "DocumentCTR", "--write-qrels", qrels]
    assert main([*argv, "--pseudo-counts", "0,0"]) == 0
    capsys.readouterr()
    assert (tmp_path / "clicks.qrels").read_text() == "q 0 a 0.25\nq 0 b 0.75\nq 0 c 0.5\n"
    run = write(tmp_path, "a.run", RUN)
    assert main(["evaluate", qrels, run, "-m", "nDCG", "-f", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["results"]
    dcg = 0.25 + 0.75 / LOG2_3 + 0.5 / 2
    ideal = 0.75 + 0.5 / LOG2_3 + 0.25 / 2
    assert row["nDCG"] == pytest.approx(dcg / ideal, abs=1e-4)


def test_graded_qrels_feed_every_measure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--thresholds 0.3,0.6 grades a (1/4) 0, c (1/2) 1 and b (3/4) 2."""
    train = write(tmp_path, "train.txt", TRAIN)
    qrels = str(tmp_path / "clicks.qrels")
    argv = [
        "logs",
        "fit",
        train,
        "--model",
        "documentctr",
        "--write-qrels",
        qrels,
        "--thresholds",
        "0.3,0.6",
        "--pseudo-counts",
        "0,0",
    ]
    assert main(argv) == 0
    capsys.readouterr()
    assert (tmp_path / "clicks.qrels").read_text() == "q 0 a 0\nq 0 b 2\nq 0 c 1\n"
    run = write(tmp_path, "a.run", RUN)
    assert main(["evaluate", qrels, run, "-m", "nDCG", "P@1", "-f", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["results"]
    assert row["nDCG"] == pytest.approx((2 / LOG2_3 + 1 / 2) / (2 + 1 / LOG2_3), abs=1e-4)
    assert row["P@1"] == 0.0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--model", "ctr"], "The --model option must be one of GlobalCTR, RankCTR"),
        (
            ["--write-qrels", "out.qrels"],
            "The --write-qrels option must be given with one model (--model)",
        ),
        (
            ["--model", "pbm,dbn", "--write-qrels", "out.qrels"],
            "--write-qrels option must be given with one",
        ),
        (["--thresholds", "0.5"], "The --thresholds option must be given with --write-qrels"),
        (
            ["--model", "pbm", "--write-qrels", "o.qrels", "--thresholds", "0.5,0.2"],
            "--thresholds option must be",
        ),
        (
            ["--model", "pbm", "--gamma", "0.5"],
            "The --gamma option must be given with a model that",
        ),
        (["--model", "rankctr", "--write-qrels", "o.qrels"], "a model with a relevance per"),
        (["--prior", "2"], "The --prior option must be"),
        (["--max-iterations", "0"], "The --max-iterations option must be an integer >= 1"),
        (["--model", "dcm", "--max-iterations", "5"], "takes it (PBM, UBM, DBN), got 5"),
    ],
)
def test_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    train = write(tmp_path, "train.txt", TRAIN)
    assert main(["logs", "fit", train, *extra]) == 1
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_bad_log_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    train = write(tmp_path, "train.txt", TRAIN)
    test = write(tmp_path, "test.txt", b"q\ta,a : a;\n")
    assert main(["logs", "fit", train, "--held-out", test]) == 2
    assert "test.txt" in capsys.readouterr().err


def test_pseudo_counts_are_chosen_and_stated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """By default every ratio is smoothed with one pseudo-click and one pseudo-skip (PyClick's
    estimate); --pseudo-counts 0,0 gives the unsmoothed maximum likelihood; the definitions say
    which, and the figures are the library's with the same choice."""
    train = write(tmp_path, "train.txt", TRAIN)
    sessions = read_sessions(train)
    for given, counts, words in (
        ([], (1.0, 1.0), "Beta(1, 1)"),
        (["--pseudo-counts", "0,0"], (0.0, 0.0), "unsmoothed maximum likelihood"),
        (["--pseudo-counts", "2,3"], (2.0, 3.0), "(successes + 2) / (trials + 5)"),
    ):
        assert main(["logs", "fit", train, "--model", "DocumentCTR", *given, "-f", "json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert any(words in d for d in data["definitions"]), data["definitions"]
        score = fit_click_model("DocumentCTR", sessions, pseudo_counts=counts).score(sessions)
        assert data["models"][0]["log_likelihood"] == score.log_likelihood
    assert main(["logs", "fit", train, "--pseudo-counts", "1"]) == 1
    assert "--pseudo-counts option must be two numbers >= 0" in capsys.readouterr().err


EXAMINATION = (1.0, 0.72, 0.55, 0.44, 0.36, 0.3, 0.26, 0.22, 0.19, 0.17)
"""The examination curve the users of the recovery test follow (rank 1 to 10)."""


def _pbm_users_log(sessions_per_query: int, queries: int, seed: int) -> Sessions:
    """Sessions of PBM users (:func:`cranfield.logs.simulation.graded_model`, informational
    users' click probability by grade, examination :data:`EXAMINATION`) on a random
    permutation of each query's ten documents per session, recorded as a log by the
    simulation module's :class:`~cranfield.logs.simulation.RecordedClicks`."""
    rng = np.random.default_rng(seed)
    docs = {f"q{i}": tuple(f"d{i}-{j}" for j in range(10)) for i in range(queries)}
    grades = {(q, d): int(rng.integers(0, 5)) for q, ds in docs.items() for d in ds}
    graded = GradedRankings({q: {"run": ds} for q, ds in docs.items()}, grades, 4)
    users = RecordedClicks(
        graded_model(graded, model="pbm", user="informational", examination=EXAMINATION)
    )
    for q, ds in docs.items():
        shown = np.argsort(rng.random((sessions_per_query, len(ds))), axis=1)
        users(q, ds, shown, rng)
    return users.sessions()


@pytest.mark.slow  # 150,000 sessions simulated, written, read and fitted: ~15 s
def test_pbm_propensities_recover_the_examination_curve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PBM fitted on 150,000 sessions simulated from a known examination curve gives it back
    in `logs fit -f json`'s propensities (the examination at each rank over that at rank 1,
    the part the clicks identify) within 0.03, and the same in --params' table."""
    log = tmp_path / "pbm-users.parquet"
    write_sessions(_pbm_users_log(5_000, 30, seed=7), log)
    params = tmp_path / "params.csv"
    argv = ["logs", "fit", str(log), "--model", "pbm", "--params", str(params), "-f", "json"]
    assert main(argv) == 0
    (model,) = json.loads(capsys.readouterr().out)["models"]
    propensities = model["propensities"]
    assert list(propensities) == [str(r) for r in range(1, 11)]
    truth = [g / EXAMINATION[0] for g in EXAMINATION]
    assert list(propensities.values()) == pytest.approx(truth, abs=0.03)
    examination = [row["examination"] for row in model["per_rank"]]
    assert [p * examination[0] for p in propensities.values()] == pytest.approx(examination)
    assert len(model["per_pair"]) == 300
    assert set(model["per_pair"][0]) == {"query_id", "doc_id", "attractiveness"}
    table = pl.read_csv(params)
    rows = table.filter(pl.col("parameter") == "propensity").sort("rank")
    assert rows.get_column("value").to_list() == pytest.approx(list(propensities.values()))
    assert table.filter(pl.col("parameter") == "attractiveness").height == 300


def test_params_table_by_its_suffix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--params writes Parquet or CSV by the suffix, the same rows; another suffix is a usage
    error before anything is read."""
    train = write(tmp_path, "train.txt", TRAIN)
    for name in ("p.parquet", "p.csv"):
        argv = ["logs", "fit", train, "--model", "DBN,RankCTR", "--params", str(tmp_path / name)]
        assert main(argv) == 0
    capsys.readouterr()
    a = pl.read_parquet(tmp_path / "p.parquet")
    b = pl.read_csv(tmp_path / "p.csv", schema=a.schema)
    assert a.equals(b)
    assert set(a.get_column("model")) == {"DBN", "RankCTR"}
    dbn = a.filter(pl.col("model") == "DBN")
    assert set(dbn.get_column("parameter")) == {"attractiveness", "satisfaction", "continuation"}
    assert main(["logs", "fit", train, "--params", str(tmp_path / "p.txt")]) == 1
    assert "--params option must be a file name ending in .parquet or .csv" in (
        capsys.readouterr().err
    )
