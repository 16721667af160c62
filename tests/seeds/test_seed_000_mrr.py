"""Seed 000, "Mean Reciprocal Rank (MRR)": the reciprocal-rank table and the two systems."""

from __future__ import annotations

import pytest

import cranfield
from tests.seeds._helpers import assert_printed, binary_topic


def test_seed_000_reciprocal_rank_table() -> None:
    """Rank 1..10 -> 1, 0.50, 0.33, 0.25, 0.20, 0.17, 0.14, 0.13, 0.11, 0.10."""
    qrels, run = {}, {}
    for r in range(1, 11):
        q, s = binary_topic((r,), 10, 1)
        qrels[f"r{r:02d}"], run[f"r{r:02d}"] = q, s
    res = cranfield.evaluate(qrels, run, ["RR"])
    assert_printed(
        list(res.per_query("RR").values()), "1 0.50 0.33 0.25 0.20 0.17 0.14 0.13 0.11 0.10"
    )


def _system(ranks: tuple[int, ...]) -> cranfield.Results:
    qrels, run = {}, {}
    for i, r in enumerate(ranks):
        qrels[f"t{i}"], run[f"t{i}"] = binary_topic((r,), 10, 1)
    return cranfield.evaluate(qrels, run, ["RR", "MRR"])


def test_seed_000_mrr_is_ordinal() -> None:
    """System 1 (ranks 1, 2, 4): MRR 0.58; system 2 (2, 2, 2): 0.5, although the mean rank of
    system 1 is worse (2.3 vs 2). The median, the summary for an ordinal scale, ties them."""
    one, two = _system((1, 2, 4)), _system((2, 2, 2))
    assert one["MRR"] == pytest.approx((1 + 1 / 2 + 1 / 4) / 3)
    assert round(one["MRR"], 2) == 0.58
    assert two["MRR"] == 0.5
    assert round((1 + 2 + 4) / 3, 1) == 2.3
    assert one.aggregate("RR", "median") == two.aggregate("RR", "median") == 0.5


def test_seed_000_median_rr_through_evaluate() -> None:
    qrels, run = {}, {}
    for i, r in enumerate((1, 2, 4)):
        qrels[f"t{i}"], run[f"t{i}"] = binary_topic((r,), 10, 1)
    res = cranfield.evaluate(qrels, run, ["RR"], aggregate="median")
    assert res["RR"] == 0.5
    assert res.how("RR") == "median"
