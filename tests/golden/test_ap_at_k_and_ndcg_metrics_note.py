"""Seed 003 ("Information Retrieval Evaluation Metrics"): MAP@K's AP and the NDCG example.

Set-A = [2, 3, 3, 1, 2] is a ranking of five graded documents; Set-B = [3, 3, 2, 2, 1] is
the same documents in the ideal order, so NDCG = DCG_A / DCG_B (linear gain, log2(i + 1)).

Slip: the note prints DCG_A ≈ 6.64 and NDCG ≈ 0.93. The terms it writes out,
2/1 + 3/1.585 + 3/2 + 1/2.322 + 2/2.585, sum to 6.597 (6.60), and 6.597/7.141 = 0.924
(0.92). DCG_B ≈ 7.14 is right.
"""

from __future__ import annotations

import pytest

import cranfield
from tests.golden._helpers import binary_topic, from_grades, printed

SET_A = (2, 3, 3, 1, 2)
SET_B = (3, 3, 2, 2, 1)


def test_dcg_and_ndcg() -> None:
    qrels, run = from_grades(SET_A)
    res = cranfield.evaluate(qrels, run, ["DCGx@5", "IDCGx@5", "nDCGx@5", "nDCG@5"])
    assert printed(res["DCGx@5"], "6.60")  # slip: printed 6.64
    assert not printed(res["DCGx@5"], "6.64")
    assert printed(res["IDCGx@5"], "7.14")
    b_qrels, b_run = from_grades(SET_B)
    assert cranfield.evaluate(b_qrels, b_run, ["DCGx@5"])["DCGx@5"] == res["IDCGx@5"]
    assert printed(res["nDCGx@5"], "0.92")  # slip: printed 0.93
    assert res["nDCG@5"] == res["nDCGx@5"]


def test_exponential_gain_penalises_misplaced_high_grades_more() -> None:
    qrels, run = from_grades(SET_A)
    res = cranfield.evaluate(qrels, run, ["nDCGx@5", "nDCGx(exp=True)@5"])
    assert res["nDCGx(exp=True)@5"] < res["nDCGx@5"]


def test_both_gains_agree_on_binary_relevance() -> None:
    qrels, run = from_grades((1, 0, 1, 1, 0))
    res = cranfield.evaluate(qrels, run, ["nDCGx@5", "nDCGx(exp=True)@5"])
    assert res["nDCGx@5"] == res["nDCGx(exp=True)@5"]


def test_ap_at_k_over_ground_truth_positives() -> None:
    """AP@K = (1/GTP) Σ_k P@k · rel@k; all relevant documents first gives AP = 1."""
    qrels, run = binary_topic((1, 2, 4), 5, 4)
    res = cranfield.evaluate({"q": qrels}, {"q": run}, ["AP@5"])
    assert res["AP@5"] == pytest.approx((1 + 1 + 3 / 4) / 4)
    qrels, run = binary_topic((1, 2, 3), 5, 3)
    assert cranfield.evaluate({"q": qrels}, {"q": run}, ["AP@5", "MAP"])["MAP"] == 1.0
