"""Judge agreement: κ equal to scikit-learn, α equal to the krippendorff package, agree()."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from cranfield.errors import EvaluationError, InputError, OptionError, QrelsNoteWarning
from cranfield.evaluation.options import EvalOptions
from cranfield.stats.judge_agreement import (
    agree,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
)

labels = st.integers(2, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
    )
)


@settings(max_examples=80, deadline=None)
@given(labels, st.sampled_from([None, "linear", "quadratic"]))
def test_cohen_kappa_equals_scikit_learn(
    pair: tuple[list[int], list[int]], weights: str | None
) -> None:
    a, b = pair
    ours = cohen_kappa(a, b, weights=weights)  # type: ignore[arg-type]
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one label only: scikit-learn warns, κ is NaN
        theirs = cohen_kappa_score(a, b, weights=weights)
    if math.isnan(theirs):
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(theirs, abs=1e-12)


def test_weighted_kappa_by_label_value_worked_example() -> None:
    """Labels {0, 1, 3}: a = (0, 3, 1), b = (3, 0, 1); observed cells (0, 3), (3, 0), (1, 1),
    each margin 1/3, so every chance cell is 1/9. Quadratic by position (0, 1, 2): Σ w O =
    (4 + 4 + 0)/3 = 8/3, Σ w E = 2 (1 + 4 + 1)/9 = 4/3, κ = 1 - 2 = -1 (scikit-learn's). By
    value: Σ w O = (9 + 9 + 0)/3 = 6, Σ w E = 2 (1 + 9 + 4)/9 = 28/9, κ = 1 - 54/28 = -13/14.
    Unweighted κ does not depend on it."""
    a, b = [0, 3, 1], [3, 0, 1]
    assert cohen_kappa(a, b, weights="quadratic") == pytest.approx(-1.0)
    assert cohen_kappa_score(a, b, weights="quadratic") == pytest.approx(-1.0)
    assert cohen_kappa(a, b, weights="quadratic", distance="value") == pytest.approx(-13 / 14)
    assert cohen_kappa(a, b, distance="value") == cohen_kappa(a, b)
    # consecutive labels: the two are one
    x, y = [2, 0, 1, 1, 1, 0], [2, 1, 1, 0, 1, 0]
    for w in ("linear", "quadratic"):
        assert cohen_kappa(x, y, weights=w, distance="value") == cohen_kappa(x, y, weights=w)
    with pytest.raises(OptionError, match="'distance' option"):
        cohen_kappa(a, b, distance="rank")  # type: ignore[arg-type]


def test_cohen_kappa_refuses_unknown_weights() -> None:
    with pytest.raises(OptionError, match="'weights' option"):
        cohen_kappa([0, 1], [0, 1], weights="cubic")  # type: ignore[arg-type]


matrices = st.tuples(st.integers(2, 4), st.integers(3, 25)).flatmap(
    lambda shape: st.lists(
        st.one_of(st.integers(0, 3).map(float), st.just(math.nan)),
        min_size=shape[0] * shape[1],
        max_size=shape[0] * shape[1],
    ).map(lambda v: np.array(v).reshape(shape))
)


@settings(max_examples=80, deadline=None)
@given(matrices, st.sampled_from(["nominal", "ordinal"]))
def test_krippendorff_alpha_equals_the_krippendorff_package(m: np.ndarray, level: str) -> None:
    present = np.isfinite(m)
    pairable = present.sum(axis=0) >= 2
    values = np.unique(m[:, pairable][present[:, pairable]])
    ours = krippendorff_alpha(m, level=level)  # type: ignore[arg-type]
    if values.size < 2:  # the package refuses one value; α is undefined
        assert math.isnan(ours)
        return
    theirs = krippendorff.alpha(reliability_data=m, level_of_measurement=level)
    assert ours == pytest.approx(theirs, abs=1e-10)


def test_fleiss_kappa_worked_example() -> None:
    # Fleiss (1971) by hand: P = (1 + 1 + 1/3 + 1)/4, p = (7/12, 5/12)
    expected = ((10 / 3) / 4 - (49 + 25) / 144) / (1 - (49 + 25) / 144)
    assert fleiss_kappa([[1, 1, 1], [0, 0, 0], [1, 0, 1], [0, 0, 0]]) == pytest.approx(expected)
    # with two judges Fleiss' κ is Scott's π, which krippendorff's nominal α approaches
    assert math.isnan(fleiss_kappa([[1, 1], [1, 1]]))


def test_fleiss_kappa_refuses_one_judge() -> None:
    with pytest.raises(OptionError, match="2 or more judges"):
        fleiss_kappa([[1], [0]])


NIST = """\
q1 0 d1 2
q1 0 d2 0
q1 0 d3 1
q1 0 d4 1
q2 0 d5 1
q2 0 d6 0
q2 0 d7 -1
q3 0 d9 1
"""
LLM = """\
q1 0 d1 2
q1 0 d2 1
q1 0 d3 1
q1 0 d4 0
q2 0 d5 1
q2 0 d6 0
q2 0 d7 1
q2 0 d8 0
"""
THIRD = """\
q1 0 d1 1
q1 0 d2 0
q1 0 d3 1
q1 0 d4 1
q2 0 d5 1
q2 0 d6 1
"""


@pytest.fixture
def qrels(tmp_path: Path) -> list[Path]:
    out = []
    for name, text in (("nist.txt", NIST), ("llm.txt", LLM), ("third.txt", THIRD)):
        path = tmp_path / name
        path.write_text(text)
        out.append(path)
    return out


def test_two_judges_on_the_pairs_both_judged(qrels: list[Path]) -> None:
    a = agree(qrels[:2])
    assert a.judges == ("nist.txt", "llm.txt")
    assert a.unjudged == {"nist.txt": 1, "llm.txt": 0}  # q2 d7 -1: not a judgment
    p = a.pairs[0]
    assert (p.shared, p.only_a, p.only_b) == (6, 1, 2)  # q3 d9 | q2 d7, q2 d8
    x = [2, 0, 1, 1, 1, 0]
    y = [2, 1, 1, 0, 1, 0]
    assert p.labels == (0, 1, 2)
    assert p.confusion == ((1, 1, 0), (1, 2, 0), (0, 0, 1))
    assert p.kappa == pytest.approx(cohen_kappa_score(x, y))
    assert p.kappa_linear == pytest.approx(cohen_kappa_score(x, y, weights="linear"))
    assert p.kappa_quadratic == pytest.approx(cohen_kappa_score(x, y, weights="quadratic"))
    assert p.kappa_quadratic_by_value == p.kappa_quadratic  # labels 0, 1, 2: consecutive
    assert p.observed == pytest.approx(4 / 6)
    assert list(p.per_query) == ["q1", "q2"]
    assert p.per_query["q2"].pairs == 2
    assert p.per_query["q2"].observed == 1.0
    assert p.per_query["q2"].kappa == 1.0
    # pairs judged by one side only are not pairable: α is α on the shared pairs
    alpha = krippendorff.alpha(reliability_data=[x, y], level_of_measurement="nominal")
    assert a.alpha_nominal == pytest.approx(alpha, abs=1e-12)
    data = json.loads(a.to_json())
    assert data["pairs"][0]["confusion"] == [[1, 1, 0], [1, 2, 0], [0, 0, 1]]
    assert "not judgments" in data["notes"][0]


def test_three_judges_fleiss_on_the_pairs_all_judged_and_alpha_on_every_pairable_one(
    qrels: list[Path],
) -> None:
    a = agree(qrels)
    assert len(a.pairs) == 3
    assert a.shared_by_all == 6  # q1 d1-d4, q2 d5, d6
    nist = [2, 0, 1, 1, 1, 0]
    llm = [2, 1, 1, 0, 1, 0]
    third = [1, 0, 1, 1, 1, 1]
    assert a.fleiss_kappa == pytest.approx(fleiss_kappa(np.array([nist, llm, third]).T))
    # α over every pair judged by two or more: add q2 d7 (llm only), d8 (llm), q3 d9 (nist)
    nan = math.nan
    data = [[*nist, nan, nan, 1], [*llm, 1, 0, nan], [*third, nan, nan, nan]]
    for level, ours in (("nominal", a.alpha_nominal), ("ordinal", a.alpha_ordinal)):
        theirs = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert ours == pytest.approx(theirs, abs=1e-12)


def test_qrels_that_share_no_judged_pair_are_an_error(tmp_path: Path, qrels: list[Path]) -> None:
    other = tmp_path / "other.txt"
    other.write_text("q1 0 d7 1\nq2 0 d7 -1\n")
    with pytest.raises(EvaluationError, match=r"nist\.txt and other\.txt share no judged"):
        agree([qrels[0], other])


def test_one_qrels_is_not_enough(qrels: list[Path]) -> None:
    with pytest.raises(OptionError, match="two or more qrels"):
        agree(qrels[:1])
    with pytest.raises(OptionError, match="'names' option"):
        agree(qrels[:2], names=["a", "a"])


def test_runs_are_ranked_under_each_qrels(qrels: list[Path], tmp_path: Path) -> None:
    runs = []
    for name, order in (("r1", "d1 d2 d3 d4"), ("r2", "d4 d3 d2 d1"), ("r3", "d2 d4 d1 d3")):
        path = tmp_path / f"{name}.txt"
        lines = [f"q1 Q0 {d} {i + 1} {10 - i} {name}" for i, d in enumerate(order.split())]
        lines += ["q2 Q0 d5 1 2 x", "q2 Q0 d6 2 1 x"]
        path.write_text("\n".join(lines) + "\n")
        runs.append(path)
    a = agree(qrels[:2], runs=runs, measure="AP", n_resamples=50, seed=1)
    assert a.measure == "AP"
    (r,) = a.rankings
    assert r.systems == ("r1", "r2", "r3")
    assert (r.setting_a, r.setting_b) == ("nist.txt", "llm.txt")
    assert r.seed == 1
    assert any("q3" in n for n in r.notes)  # judged by nist only


def test_the_duplicates_policy_reads_the_qrels_compared(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("1 0 d1 1\n1 0 d1 2\n1 0 d2 0\n")
    b.write_text("1 0 d1 2\n1 0 d2 0\n")
    with pytest.raises(InputError, match=r"a\.txt"):
        agree([a, b])  # the default, merge, refuses different grades
    with pytest.warns(QrelsNoteWarning, match="keeping the max relevance"):
        result = agree([a, b], options=EvalOptions(duplicates="max"))
    assert result.pairs[0].confusion == ((1, 0), (0, 1))
