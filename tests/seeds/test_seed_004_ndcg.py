"""Seed 004, "Normalized Discounted Cumulative Gain": Järvelin & Kekäläinen's vectors and the
log2(i + 1) example.

Example 1 (JK, b = 2): G' = ⟨3, 2, 3, 0, 0, 1, 2, 2, 3, 0⟩ and a best vector with three 3s,
three 2s and four 1s (so three grade-1 documents were judged but not retrieved).

The best vector's DCG_I' prints 10.52 and 11.21 at ranks 6 and 8, truncating 10.528 and
11.217 (10.53, 11.22 rounded; a slip copied from the JK paper's table).

Example 2: grades 3, 2, 3, 0, 1, 2 and two more retrieved documents graded 3 and 0; ideal
3, 3, 3, 2, 2, 1, 0, 0. Slips: the DCG table prints 1/2.58 = 0.3876 as 0.38, and the IDCG sum
prints 1/2.807 = 0.3562 as 0.35, so IDCG@6 is 8.38 (printed 8.37) and nDCG@6 = 6.861/8.384
= 81.84% (printed 81.96%).
"""

from __future__ import annotations

import itertools

import polars as pl
import pytest

import cranfield
from cranfield import curves
from tests.seeds._helpers import assert_printed, from_grades, printed

G = (3, 2, 3, 0, 0, 1, 2, 2, 3, 0)


@pytest.fixture(scope="module")
def jk() -> pl.DataFrame:
    qrels, run = from_grades(G, extra=(1, 1, 1))
    return curves.gain_curves(qrels, run, max_rank=13, jk=True, base=2.0)


def test_seed_004_cumulated_gain(jk: pl.DataFrame) -> None:
    assert jk["cg"].to_list()[:10] == [3, 5, 8, 8, 8, 9, 11, 13, 16, 16]


def test_seed_004_discounted_cumulated_gain(jk: pl.DataFrame) -> None:
    assert_printed(jk["dcg"].to_list()[:10], "3 5 6.89 6.89 6.89 7.28 7.99 8.66 9.61 9.61")


def test_seed_004_best_vector_and_its_cumulated_gains(jk: pl.DataFrame) -> None:
    assert jk["ideal_gain"].to_list() == [3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0]
    assert jk["icg"].to_list() == [3, 6, 9, 11, 13, 15, 16, 17, 18, 19, 19, 19, 19]
    # slips: DCG_I' prints 10.52 and 11.21 (truncated); 10.528 and 11.217 round to 10.53, 11.22
    assert_printed(
        jk["idcg"].to_list()[:12], "3 6 7.89 8.89 9.75 10.53 10.88 11.22 11.53 11.83 11.83 11.83"
    )


def test_seed_004_normalised_cumulated_gain(jk: pl.DataFrame) -> None:
    assert_printed(jk["ncg"].to_list()[:10], "1 0.83 0.89 0.73 0.62 0.6 0.69 0.76 0.89 0.84")


def test_seed_004_jk_ndcg_measure_matches_the_vectors(jk: pl.DataFrame) -> None:
    qrels, run = from_grades(G, extra=(1, 1, 1))
    res = cranfield.evaluate(
        qrels, run, ["nDCGx(jk=True)@10", "nCG@10", "CG@10", "DCGx(jk=True)@10"]
    )
    assert res["DCGx(jk=True)@10"] == pytest.approx(jk["dcg"][9], rel=1e-15)
    assert res["CG@10"] == 16
    assert res["nCG@10"] == pytest.approx(16 / 19)
    assert res["nDCGx(jk=True)@10"] == pytest.approx(jk["ndcg"][9], rel=1e-15)


def test_seed_004_second_example() -> None:
    qrels, run = from_grades((3, 2, 3, 0, 1, 2, 3, 0))
    res = cranfield.evaluate(qrels, run, ["CG@6", "DCG@6", "IDCG@6", "nDCG@6"])
    assert res["CG@6"] == 11
    assert printed(res["DCG@6"], "6.86")
    per_rank = curves.gain_curves(qrels, run, max_rank=6)
    gains = per_rank["gain"].to_list()
    dcg = per_rank["dcg"].to_list()
    contributions = [dcg[0]] + [b - a for a, b in itertools.pairwise(dcg)]
    assert gains == [3, 2, 3, 0, 1, 2]
    assert_printed(contributions, "3 1.26 1.5 0 0.39 0.71")  # slip: 0.38 printed
    assert per_rank["ideal_gain"].to_list() == [3, 3, 3, 2, 2, 1]
    assert printed(res["IDCG@6"], "8.38")  # slip: 8.37 printed
    assert not printed(res["IDCG@6"], "8.37")
    assert res["nDCG@6"] == pytest.approx(0.8184, abs=5e-5)  # slip: 81.96% printed


def test_seed_004_exponential_gain_formula_averages_over_queries() -> None:
    """NDCG(Q, k) = (1/|Q|) Σ_j Z_{j,k} Σ_m (2^R(j,m) − 1)/log(1 + m)."""
    q1, r1 = from_grades((3, 2, 3, 0, 1, 2), query="a")
    q2, r2 = from_grades((0, 1, 2), extra=(3,), query="b")
    res = cranfield.evaluate(q1 | q2, r1 | r2, ["nDCGx(exp=True)@3"])
    per = res.per_query("nDCGx(exp=True)@3")
    assert res["nDCGx(exp=True)@3"] == pytest.approx((per["a"] + per["b"]) / 2)
    assert per["b"] == pytest.approx(
        (1 / 1.5849625007211562 + 3 / 2) / (7 + 3 / 1.5849625007211562 + 1 / 2)
    )
