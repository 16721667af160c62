"""Seed 002, "Single Value Summaries": AP at seen relevant documents / MAP, R-precision,
precision histograms and the summary table statistics."""

from __future__ import annotations

import pytest

import cranfield
from cranfield import curves
from tests.seeds._collection import RANKING, binary
from tests.seeds._helpers import binary_topic, ranked_run


def test_seed_002_map_example() -> None:
    """Relevant documents at ranks 1, 5, 10: (1/1 + 2/5 + 3/10)/3."""
    qrels, run = binary_topic((1, 5, 10), 10, 3)
    res = cranfield.evaluate({"q": qrels}, {"q": run}, ["AP", "AP_ret"])
    assert res["AP"] == pytest.approx((1 + 2 / 5 + 3 / 10) / 3)
    assert res["AP_ret"] == res["AP"]  # every relevant document was seen


def test_seed_002_r_precision() -> None:
    """Precision at rank R: example 3.2 (R = 10) 4/10, example 3.3 (R = 3) 1/3."""
    res = cranfield.evaluate(*binary(), ["Rprec", "BEP"])
    assert res.per_query("Rprec") == pytest.approx({"q1": 0.4, "q2": 1 / 3})


def test_seed_002_precision_histogram() -> None:
    """RP_A/B(i) = RP_A(i) − RP_B(i): positive where A is better, 0 where they tie."""
    qrels, run_a = binary()
    reverse = {q: ranked_run(tuple(reversed(RANKING))) for q in run_a}
    same = {"q1": run_a["q1"], "q2": reverse["q2"]}
    a = cranfield.evaluate(qrels, run_a, ["Rprec"], run_name="A")
    b = cranfield.evaluate(qrels, same, ["Rprec"], run_name="B")
    hist = curves.precision_histogram(a, b)
    assert hist.columns == ["query_id", "a", "b", "difference"]
    assert hist["query_id"].to_list() == ["q1", "q2"]
    assert hist["difference"].to_list() == pytest.approx([0.0, 1 / 3 - 1 / 3])
    c = cranfield.evaluate(qrels, reverse, ["Rprec", "AP"], run_name="C")
    hist = curves.precision_histogram(a, c)
    assert hist["difference"].to_list() == pytest.approx([0.4 - 0.3, 1 / 3 - 1 / 3])
    assert curves.precision_histogram(a, c, "Rprec")["a"].to_list() == pytest.approx([0.4, 1 / 3])


def test_seed_002_summary_table() -> None:
    """Queries, documents retrieved, relevant documents retrieved and relevant documents."""
    table = curves.summary_table(*binary(), run_name="ex")
    assert table.row(0, named=True) == {
        "run": "ex",
        "queries": 2,
        "retrieved": 30,
        "relevant": 13,
        "relevant_retrieved": 8,
    }
