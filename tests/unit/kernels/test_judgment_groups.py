"""Judgment-group measures of trec_eval (``-R qrels_jg``): map_avgjg, P_avgjg, Rprec_mult_avgjg."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from cranfield.data.qrels import QRELS_SCHEMA
from cranfield.errors import EvaluationError, MeasureError
from cranfield.io.prefs import read_qrels_jg
from cranfield.io.trec import read_run
from cranfield.kernels.judgment_groups import (
    JUDGMENT_GROUP_SUMMARY,
    evaluate_judgment_groups,
    judgment_group_measure_names,
)
from cranfield.measures._spec import TREC_CUTOFFS, TREC_MULTIPLIERS
from tests.conftest import CONFORMANCE, require

DATA = require(CONFORMANCE)


def rank(run_path: Path) -> dict[str, list[str]]:
    """trec_eval's ranking: score descending, equal scores by doc id descending (bytewise)."""
    frame = read_run(run_path).frame
    ranked: dict[str, list[str]] = {}
    for (qid,), group in frame.group_by(["query_id"]):
        rows = group.select("doc_id", "score").rows()
        rows.sort(key=lambda r: r[0].encode(), reverse=True)
        rows.sort(key=lambda r: -r[1])
        ranked[str(qid)] = [doc for doc, _ in rows]
    return ranked


def evaluate(
    rows: list[tuple[str, str, str, int]],
    ranked: dict[str, list[str]],
    *,
    level: int = 1,
    cutoffs: tuple[int, ...] = (1, 2, 5),
    multipliers: tuple[float, ...] = (0.5, 1.0, 2.0),
) -> tuple[list[str], dict[str, np.ndarray]]:
    qrels = pl.DataFrame(rows, schema=QRELS_SCHEMA, orient="row")
    return evaluate_judgment_groups(
        qrels, ranked, relevance_level=level, cutoffs=list(cutoffs), multipliers=list(multipliers)
    )


@pytest.mark.parametrize("qrels_file", ["qrels.123", "qrels.comments.123"])
def test_out_test_qrels_jg(qrels_file: str) -> None:
    # trec_eval -m qrels_jg -q -R qrels_jg <qrels_file> results.test
    topics, values = evaluate_judgment_groups(
        read_qrels_jg(DATA / qrels_file),
        rank(DATA / "results.test"),
        relevance_level=1,
        cutoffs=list(TREC_CUTOFFS),
        multipliers=list(TREC_MULTIPLIERS),
    )
    got = [
        f"{name:<22}\t{qid}\t{v[i]:6.4f}"  # C: "%-22s\t%s\t%6.4f"
        for i, qid in enumerate(topics)
        for name, v in values.items()
    ]
    for name, v in values.items():
        total = 0.0
        for x in v:
            total += float(x)
        got.append(f"{name:<22}\tall\t{total / len(topics):6.4f}")
    text = (DATA / "out.test.qrels_jg").read_text()
    expected = [ln for ln in text.splitlines() if not ln.startswith(("runid ", "num_q "))]
    assert got == expected


def test_names_and_order() -> None:
    assert judgment_group_measure_names([5, 10], [0.125, 2]) == [
        "map_avgjg",
        "P_avgjg_5",
        "P_avgjg_10",
        "Rprec_mult_avgjg_0.12",
        "Rprec_mult_avgjg_2.00",
    ]
    _, values = evaluate([("q", "g", "a", 1)], {"q": ["a"]})
    assert list(values) == judgment_group_measure_names([1, 2, 5], [0.5, 1.0, 2.0])
    assert set(JUDGMENT_GROUP_SUMMARY.values()) == {"mean"}


def test_measures_are_averaged_over_groups() -> None:
    rows = [
        ("q", "g1", "a", 1),
        ("q", "g1", "b", 0),
        ("q", "g1", "c", 1),
        ("q", "g2", "a", 0),
        ("q", "g2", "b", 2),
        ("q", "g3", "z", 1),
    ]  # g3's relevant document is never retrieved: scores 0
    _, v = evaluate(rows, {"q": ["a", "b", "c"]})
    ap = [(1 + 2 / 3) / 2, (1 / 2) / 1, 0.0]
    assert v["map_avgjg"][0] == pytest.approx(sum(ap) / 3)
    assert v["P_avgjg_1"][0] == pytest.approx((1 + 0 + 0) / 3)
    assert v["P_avgjg_2"][0] == pytest.approx((1 / 2 + 1 / 2 + 0) / 3)
    assert v["P_avgjg_5"][0] == pytest.approx((2 / 5 + 1 / 5 + 0) / 3)  # padded to 5
    # Rprec_mult: cutoff = int(m R + 0.9); R = 2, 1, 1
    # m = 0.5 -> 1, 1, 1 ; m = 1 -> 2, 1, 1 ; m = 2 -> 4, 2, 2
    assert v["Rprec_mult_avgjg_0.50"][0] == pytest.approx((1 + 0 + 0) / 3)
    assert v["Rprec_mult_avgjg_1.00"][0] == pytest.approx((1 / 2 + 0 + 0) / 3)
    assert v["Rprec_mult_avgjg_2.00"][0] == pytest.approx((2 / 4 + 1 / 2 + 0) / 3)


def test_relevance_level() -> None:
    rows = [("q", "g", "a", 1), ("q", "g", "b", 2)]
    _, v = evaluate(rows, {"q": ["a", "b"]}, level=2)
    assert v["map_avgjg"][0] == pytest.approx(1 / 2)
    assert v["P_avgjg_1"][0] == 0.0


def test_unjudged_and_unpooled_documents_are_not_relevant() -> None:
    rows = [("q", "g", "a", -1), ("q", "g", "b", 1)]
    _, v = evaluate(rows, {"q": ["a", "x", "b"]})
    assert v["map_avgjg"][0] == pytest.approx(1 / 3)
    assert v["Rprec_mult_avgjg_1.00"][0] == 0.0  # cutoff int(1 + 0.9) = 1: "a" is not relevant


def test_group_without_relevant_documents() -> None:
    _, v = evaluate([("q", "g", "a", 0)], {"q": ["a"]})
    assert all(float(x[0]) == 0.0 for x in v.values())


def test_topics_are_the_judged_topics_present_in_ranked() -> None:
    rows = [("9", "g", "a", 1), ("10", "g", "a", 1), ("2", "g", "a", 1)]
    topics, v = evaluate(rows, {"9": ["a"], "10": [], "77": ["a"]})
    assert topics == ["10", "9"]
    np.testing.assert_array_equal(v["P_avgjg_1"], [0.0, 1.0])


def test_document_judged_twice_in_a_group_is_an_error() -> None:
    with pytest.raises(EvaluationError, match="'a' is judged twice in judgment group 'g'"):
        evaluate([("q", "g", "a", 1), ("q", "g", "a", 0)], {"q": []})


def test_document_ranked_twice_is_an_error() -> None:
    with pytest.raises(EvaluationError, match="'a' is ranked twice"):
        evaluate([("q", "g", "a", 1)], {"q": ["a", "b", "a"]})


@pytest.mark.parametrize(
    ("cutoffs", "multipliers", "message"),
    [
        ((0,), (1.0,), "integers >= 1, got 0"),
        ((5, 5), (1.0,), "must be distinct"),
        ((5,), (0.125, 0.12), "distinct at two decimals"),
    ],
)
def test_invalid_parameters(
    cutoffs: tuple[int, ...], multipliers: tuple[float, ...], message: str
) -> None:
    with pytest.raises(MeasureError, match=message):
        evaluate([("q", "g", "a", 1)], {"q": []}, cutoffs=cutoffs, multipliers=multipliers)
