"""Seed 004: P-R curve and interpolation, break-even point, AP variants, P@N, MRR."""

from __future__ import annotations

from fractions import Fraction

import polars as pl
import pytest

import cranfield
from cranfield import curves
from tests.seeds._collection import binary
from tests.seeds._helpers import assert_printed, binary_topic, ranked_run


def test_seed_004_pr_curve_example() -> None:
    """Ten relevant documents: 1. d123 R=0.1,P=1; 3. d56 R=0.2,P=0.67; 6. d9 R=0.3,P=0.5;
    10. d25 R=0.4,P=0.4; 15. d3 R=0.5,P=0.33."""
    pts = curves.pr_points(*binary()).filter(pl.col("query_id") == "q1")
    assert pts["rank"].to_list() == [1, 3, 6, 10, 15]
    assert_printed(pts["recall"].to_list(), "0.1 0.2 0.3 0.4 0.5")
    assert_printed(pts["precision"].to_list(), "1 0.67 0.5 0.4 0.33")


def test_seed_004_interpolation_example() -> None:
    """R_q = {d3, d56, d129}: 0%–30% -> 0.33, 40%–60% -> 0.25, 70% and above -> 0.2. (The
    figure annotates d129 with R=0.66 where the table says 0.67: 2/3 truncated, a slip.)"""
    res = cranfield.evaluate(*binary(), [f"IntPrec@{p / 10}" for p in range(11)])
    got = [res.per_query(f"IntPrec@{p / 10}")["q2"] for p in range(11)]
    assert_printed(got, ("0.33 " * 4 + "0.25 " * 3 + "0.2 " * 4))


def test_seed_004_break_even_point() -> None:
    """The P-R curve's P = R point: at rank R both are rr(R)/R, so BEP = R-precision."""
    res = cranfield.evaluate(*binary(), ["BEP", "P@10", "R@10", "P@3", "R@3"])
    assert (
        res.per_query("BEP")["q1"]
        == res.per_query("P@10")["q1"]
        == res.per_query("R@10")["q1"]
        == 0.4
    )
    assert res.per_query("BEP")["q2"] == res.per_query("P@3")["q2"] == res.per_query("R@3")["q2"]


def test_seed_004_eleven_point_average_is_interpolated_ap() -> None:
    res = cranfield.evaluate(*binary(), ["AP11"] + [f"IntPrec@{p / 10}" for p in range(11)])
    for q in ("q1", "q2"):
        mean = sum(res.per_query(f"IntPrec@{p / 10}")[q] for p in range(11)) / 11
        assert res.per_query("AP11")[q] == pytest.approx(mean)


def test_seed_004_average_precision_variants() -> None:
    """Six relevant documents, five returned at ranks 1, 2, 5, 10, 20:
    AP = (1/1 + 2/2 + 3/5 + 4/10 + 5/20 + 0)/6; over the returned relevant only: .../5."""
    qrels, run = binary_topic((1, 2, 5, 10, 20), 20, 6)
    res = cranfield.evaluate({"q": qrels}, {"q": run}, ["AP", "AP_ret", "AP11"])
    assert res["AP"] == pytest.approx((1 + 1 + 3 / 5 + 4 / 10 + 5 / 20) / 6)
    assert res["AP_ret"] == pytest.approx((1 + 1 + 3 / 5 + 4 / 10 + 5 / 20) / 5)
    # interpolated: 1 at 0–30%, 0.6 at 40–50%, 0.4 at 60%, 0.25 at 70–80%, 0 at 90–100%
    assert res["AP11"] == pytest.approx((4 * 1 + 2 * 0.6 + 0.4 + 2 * 0.25) / 11)


SYSTEMS = {
    # (system, query): ranked documents; query 1 answers {d3, d4, d6, d9}, query 2 {d1, d2, d13}
    ("1", "1"): ["d3", "d6", "d8", "d10", "d11"],
    ("1", "2"): ["d1", "d4", "d7", "d11", "d13"],
    ("2", "1"): ["d6", "d7", "d2", "d9"],
    ("2", "2"): ["d1", "d2", "d4", "d13", "d14"],
}
QRELS = {
    "1": dict.fromkeys(["d3", "d4", "d6", "d9"], 1),
    "2": dict.fromkeys(["d1", "d2", "d13"], 1),
}


def _system(s: str) -> dict[str, dict[str, float]]:
    return {q: ranked_run(SYSTEMS[(s, q)]) for q in ("1", "2")}


def test_seed_004_precision_at_n() -> None:
    """S1q1: P@2 = 1, P@5 = 2/5; S1q2: 1/2, 2/5; S2q1: 1/2, 2/5 (four documents: P@5 counts
    the missing fifth as non-relevant); S2q2: 1, 3/5."""
    expected = {
        ("1", "1"): (1, 2 / 5),
        ("1", "2"): (1 / 2, 2 / 5),
        ("2", "1"): (1 / 2, 2 / 5),
        ("2", "2"): (1, 3 / 5),
    }
    for s in ("1", "2"):
        res = cranfield.evaluate(QRELS, _system(s), ["P@2", "P@5"])
        for q in ("1", "2"):
            assert (res.per_query("P@2")[q], res.per_query("P@5")[q]) == pytest.approx(
                expected[(s, q)]
            )


def test_seed_004_mrr() -> None:
    """First answers at ranks 2 and 4: MRR = (1/2 + 1/4)/2 = 3/8."""
    qrels, run = {}, {}
    for i, r in enumerate((2, 4)):
        qrels[str(i)], run[str(i)] = binary_topic((r,), 5, 1)
    assert Fraction(cranfield.evaluate(qrels, run, "MRR")["MRR"]) == Fraction(3, 8)
