"""Seed 000, "Normalized Discounted Cumulative Gain (NDCG)": exponential gain 2^r − 1,
discount log2(1 + i), ideal ranking sorted by grade (the ranked documents are all the
judged ones here)."""

from __future__ import annotations

import cranfield
from tests.golden._helpers import assert_printed, from_grades

GRADES = (3, 2, 3, 0, 0, 1, 2, 2, 3, 0)
DCG = "7.00 8.89 12.39 12.39 12.39 12.75 13.75 14.70 16.80 16.80"
IDEAL = "7.00 11.42 14.92 16.21 17.37 18.44 18.77 18.77 18.77 18.77"
NDCG = "1.00 0.78 0.83 0.76 0.71 0.69 0.73 0.78 0.90 0.90"


def test_dcg_ideal_dcg_and_ndcg_at_every_rank() -> None:
    qrels, run = from_grades(GRADES)
    ks = range(1, 11)
    names = [f"{m}(exp=True)@{k}" for m in ("DCGx", "IDCGx", "nDCGx") for k in ks]
    res = cranfield.evaluate(qrels, run, names)
    assert_printed([res[f"DCGx(exp=True)@{k}"] for k in ks], DCG.split())
    assert_printed([res[f"IDCGx(exp=True)@{k}"] for k in ks], IDEAL.split())
    assert_printed([res[f"nDCGx(exp=True)@{k}"] for k in ks], NDCG.split())


def test_exponential_gain_equals_a_trec_eval_gain_map() -> None:
    """2^r − 1 is trec_eval's ndcg with gains 1=1, 2=3, 3=7."""
    qrels, run = from_grades(GRADES)
    res = cranfield.evaluate(qrels, run, ["nDCGx(exp=True)@5", "nDCG(gains={1:1,2:3,3:7})@5"])
    assert res["nDCGx(exp=True)@5"] == res["nDCG(gains={1:1,2:3,3:7})@5"]


def test_ideal_from_joint_judgments() -> None:
    """'the ideal ranking is usually formed by the joint relevance assessments for all
    systems': a grade-3 document judged but not retrieved lowers nDCG@4."""
    qrels, run = from_grades(GRADES, extra=(3,))
    res = cranfield.evaluate(
        qrels, run, ["nDCGx(exp=True)@4", "nDCGx(exp=True,retrieved_ideal=True)@4"]
    )
    assert res["nDCGx(exp=True)@4"] < res["nDCGx(exp=True,retrieved_ideal=True)@4"]
