"""Seed 000 (Webis lecture IR:VIII), "Precision@k and Recall@k" and the rankings A–D.

Rankings A and B are system 1 and 2 on topic 1 (six relevant documents), C and D on
topic 2 (three relevant documents). The slides print P@k and R@k for k = 1..10.
"""

from __future__ import annotations

import pytest

import cranfield
from tests.golden._helpers import assert_printed, binary_topic

RANKINGS = {
    # name: (relevant ranks, R, printed precision row, printed recall row)
    "A": (
        (1, 3, 4, 5, 6, 10),
        6,
        "1.00 0.50 0.67 0.75 0.80 0.83 0.71 0.63 0.56 0.60",
        "0.17 0.17 0.33 0.50 0.67 0.83 0.83 0.83 0.83 1.00",
    ),
    "B": (
        (2, 5, 6, 7, 9, 10),
        6,
        "0.00 0.50 0.33 0.25 0.40 0.50 0.57 0.50 0.56 0.60",
        "0.00 0.17 0.17 0.17 0.33 0.50 0.67 0.67 0.83 1.00",
    ),
    "C": (
        (1, 6, 10),
        3,
        "1.00 0.50 0.33 0.25 0.20 0.33 0.29 0.25 0.22 0.30",
        # the slides print 2/3 as 0.66 here (truncated); the correct rounding is 0.67
        "0.33 0.33 0.33 0.33 0.33 0.67 0.67 0.67 0.67 1.00",
    ),
    "D": (
        (2, 5, 7),
        3,
        "0.00 0.50 0.33 0.25 0.40 0.33 0.43 0.38 0.33 0.30",
        "0.00 0.33 0.33 0.33 0.67 0.67 1.00 1.00 1.00 1.00",
    ),
}


@pytest.mark.parametrize("name", sorted(RANKINGS))
def test_precision_and_recall_at_every_rank(name: str) -> None:
    ranks, big_r, p_row, r_row = RANKINGS[name]
    qrels, run = binary_topic(ranks, 10, big_r)
    measures = [f"P@{k}" for k in range(1, 11)] + [f"R@{k}" for k in range(1, 11)]
    res = cranfield.evaluate({"t": qrels}, {"t": run}, measures)
    assert_printed([res[f"P@{k}"] for k in range(1, 11)], p_row.split())
    assert_printed([res[f"R@{k}"] for k in range(1, 11)], r_row.split())


def test_ranking_c_recall_slip() -> None:
    """Slip: ranking C's recall row prints 2/3 as 0.66; it rounds to 0.67."""
    qrels, run = binary_topic((1, 6, 10), 10, 3)
    res = cranfield.evaluate({"t": qrels}, {"t": run}, ["R@6"])
    assert res["R@6"] == pytest.approx(2 / 3)
    assert round(res["R@6"], 2) == 0.67


def test_both_topic_1_rankings_have_precision_06_and_recall_1() -> None:
    """'Which ranking on Topic 1 is better? Both have precision = 0.6 and recall = 1.0.'"""
    for name in ("A", "B"):
        ranks, big_r, _, _ = RANKINGS[name]
        qrels, run = binary_topic(ranks, 10, big_r)
        res = cranfield.evaluate({"t": qrels}, {"t": run}, ["SetP", "SetR"])
        assert res["SetP"] == pytest.approx(0.6)
        assert res["SetR"] == 1.0
