"""``judges assess``: a judge's qrels against the humans' (issue 33, part 4), against
scikit-learn's κ and hand-computed rankings."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from cranfield.cli.main import main
from cranfield.judges.assessment import assess, kappa_word

rng = np.random.default_rng(3)
DOCS = [f"d{i}" for i in range(60)]
HUMAN = {"q1": {d: int(g) for d, g in zip(DOCS, rng.integers(0, 4, 60), strict=True)}}
NOISY = {
    "q1": {
        d: (g if rng.random() < 0.6 else int(rng.integers(0, 4))) for d, g in HUMAN["q1"].items()
    }
}


def test_kappas_equal_scikit_learn() -> None:
    (j,) = assess(HUMAN, [NOISY], names=["noisy"], human_name="people").judges
    h = np.array(list(HUMAN["q1"].values()))
    m = np.array([NOISY["q1"][d] for d in HUMAN["q1"]])
    assert j.shared == 60
    assert j.kappa == pytest.approx(cohen_kappa_score(h, m))
    assert j.kappa_linear == pytest.approx(cohen_kappa_score(h, m, weights="linear"))
    assert j.kappa_binary == pytest.approx(cohen_kappa_score(h >= 2, m >= 2))
    for g in range(4):
        assert j.kappa_per_grade[g] == pytest.approx(cohen_kappa_score(h == g, m == g))
    assert np.array(j.confusion).sum() == 60
    assert j.ranking is None
    assert "not a substitute" in j.verdict or "worth checking" in j.verdict


def test_landis_koch_words() -> None:
    assert [kappa_word(k) for k in (-0.1, 0.1, 0.3, 0.5, 0.7, 0.9)] == [
        "poor",
        "slight",
        "fair",
        "moderate",
        "substantial",
        "almost perfect",
    ]


def _runs(tmp_path: Path) -> list[str]:
    """Six runs, each putting one different relevant document first among irrelevant ones."""
    paths = []
    for i in range(6):
        lines = [f"q1 Q0 r{i} 1 10 s{i}"] + [f"q1 Q0 n{k} {k + 2} {9 - k} s{i}" for k in range(5)]
        path = tmp_path / f"s{i}.txt"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return paths


def test_rankings_overall_and_among_the_top(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the humans grade r0 > r1 > ... > r5; the judge agrees on the bottom three but reverses
    # the top three: overall tau is fine-ish, among the top 3 it is -1
    humans = tmp_path / "humans.txt"
    humans.write_text("".join(f"q1 0 r{i} {g}\n" for i, g in enumerate([3, 3, 3, 2, 1, 1])))
    judge = tmp_path / "judge.txt"
    judge.write_text("".join(f"q1 0 r{i} {g}\n" for i, g in enumerate([1, 2, 3, 2, 1, 1])))
    runs = _runs(tmp_path)
    result = assess(
        humans, [judge], names=["judge"], human_name="humans", runs=runs, measure="P@1", top=3
    )
    (j,) = result.judges
    assert j.top is not None
    assert j.ranking is not None
    # P@1 at level 1: every run has a relevant first document under both: no ranking at all
    assert np.isnan(j.ranking.coefficients["kendall_tau_b"].value)
    result = assess(humans, [judge], names=["judge"], runs=runs, measure="nDCG@1", top=3)
    (j,) = result.judges
    assert j.ranking is not None
    assert j.top is not None
    assert j.top.runs == ("s0", "s1", "s2")  # ties under the humans by name
    assert j.top.same_best is False  # s2 is the judge's best
    assert "but not among the humans' top 3" in j.verdict
    code = main(
        [
            "judges",
            "assess",
            str(humans),
            str(judge),
            "--runs",
            *runs,
            "-m",
            "nDCG@1",
            "--top-systems",
            "3",
            "-f",
            "json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["judges"][0]["top"]["runs"] == ["s0", "s1", "s2"]
    assert data["measure"] == "nDCG@1"


def test_a_judge_sharing_no_pair_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    humans = tmp_path / "humans.txt"
    humans.write_text("q1 0 d1 1\n")
    judge = tmp_path / "judge.txt"
    judge.write_text("q2 0 d1 1\n")
    assert main(["judges", "assess", str(humans), str(judge)]) == 2
    err = capsys.readouterr().err
    assert "share no judged (query, document) pair" in err
    assert len(err.strip().splitlines()) == 1
