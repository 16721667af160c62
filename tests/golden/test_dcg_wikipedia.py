"""Seed 001 (Wikipedia, "Discounted cumulative gain"), the worked example.

Six ranked documents with grades 3, 2, 3, 0, 1, 2 (linear gain, log2(i + 1) discount); two
more judged documents (grades 3 and 2) were not retrieved and enter the ideal ranking.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import cranfield
from cranfield.kernels.dcg_variants import discount
from tests.golden._helpers import assert_printed, from_grades, printed

GRADES = (3, 2, 3, 0, 1, 2)


def test_cumulative_gain_is_11_and_order_free() -> None:
    qrels, run = from_grades(GRADES)
    swapped = dict(run["q"])
    swapped["r003"], swapped["r004"] = run["q"]["r004"], run["q"]["r003"]
    res = cranfield.evaluate(qrels, run, ["CG@6", "DCGx@6"])
    res_swapped = cranfield.evaluate(qrels, {"q": swapped}, ["CG@6", "DCGx@6"])
    assert res["CG@6"] == 11
    assert res_swapped["CG@6"] == 11
    assert res_swapped["DCGx@6"] < res["DCGx@6"]  # the more relevant D3 is discounted more


def test_discount_and_discounted_gain_table() -> None:
    logs = discount(np.arange(1, 7), base=2.0, jk=False)
    assert_printed(list(logs), "1 1.585 2 2.322 2.585 2.807")
    assert_printed([g / d for g, d in zip(GRADES, logs, strict=True)], "3 1.262 1.5 0 0.387 0.712")


def test_dcg_idcg_ndcg_at_6() -> None:
    """DCG6 = 6.861, IDCG6 = 8.740 (ideal 3, 3, 3, 2, 2, 2 from all judged documents),
    nDCG6 = 0.785."""
    qrels, run = from_grades(GRADES, extra=(3, 2))
    res = cranfield.evaluate(qrels, run, ["DCG@6", "IDCG@6", "nDCG@6", "nDCGx@6"])
    assert printed(res["DCG@6"], "6.861")
    assert printed(res["IDCG@6"], "8.740")
    assert printed(res["nDCG@6"], "0.785")
    assert res["nDCGx@6"] == res["nDCG@6"]


def test_binary_relevance_makes_both_gains_equal() -> None:
    qrels, run = from_grades((1, 0, 1, 1, 0, 0, 1), extra=(1,))
    res = cranfield.evaluate(qrels, run, ["nDCGx@5", "nDCGx(exp=True)@5"])
    assert res["nDCGx@5"] == res["nDCGx(exp=True)@5"]


def test_log_base_slip() -> None:
    """Slip: the article says the log base does not matter for nDCG with linear gain but does
    with exponential gain. With the log_b(i + 1) discount the base cancels in the ratio for
    any gain (log_b x = ln x / ln b scales DCG and IDCG alike); it changes DCG itself."""
    qrels, run = from_grades(GRADES, extra=(3, 2))
    names = [
        "nDCGx(exp=True)@6",
        f"nDCGx(base={math.e},exp=True)@6",
        "nDCGx@6",
        "nDCGx(base=10)@6",
        "DCGx@6",
        "DCGx(base=10)@6",
    ]
    res = cranfield.evaluate(qrels, run, names)
    assert res[names[1]] == pytest.approx(res[names[0]], rel=1e-14)
    assert res[names[3]] == pytest.approx(res[names[2]], rel=1e-14)
    assert res["DCGx(base=10)@6"] == pytest.approx(res["DCGx@6"] / math.log10(2), rel=1e-14)
