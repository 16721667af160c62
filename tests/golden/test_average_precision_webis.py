"""Seed 000, "Average Precision (Alternative 1)" and "(Alternative 2)" on rankings A and B.

Alternative 1 (AP₁@k) sums P@i at the relevant ranks and divides by min(k, R); alternative
2 (AP₂) is the 11-point interpolated AP with max{P@j : recall@j >= level}.
"""

from __future__ import annotations

import pytest

import cranfield
from tests.golden._helpers import binary_topic, printed

A = ((1, 3, 4, 5, 6, 10), 6)
B = ((2, 5, 6, 7, 9, 10), 6)


def _topic(
    spec: tuple[tuple[int, ...], int],
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    qrels, run = binary_topic(spec[0], 10, spec[1])
    return {"t": qrels}, {"t": run}


def test_ap_alternative_1_ranking_a() -> None:
    """(1.0 + 0.67 + 0.75 + 0.8 + 0.83 + 0.6) / 6 = 0.78 (exactly 0.775)."""
    res = cranfield.evaluate(*_topic(A), ["AP_min@10", "AP", "AP_min"])
    assert res["AP_min@10"] == pytest.approx((1 + 2 / 3 + 3 / 4 + 4 / 5 + 5 / 6 + 6 / 10) / 6)
    assert printed(res["AP_min@10"], "0.78")
    assert res["AP"] == pytest.approx(res["AP_min@10"], rel=1e-15)


def test_ap_alternative_1_ranking_b() -> None:
    """(0.5 + 0.4 + 0.5 + 0.57 + 0.56 + 0.6) / 6 = 0.52."""
    res = cranfield.evaluate(*_topic(B), ["AP_min@10"])
    assert res["AP_min@10"] == pytest.approx((1 / 2 + 2 / 5 + 3 / 6 + 4 / 7 + 5 / 9 + 6 / 10) / 6)
    assert printed(res["AP_min@10"], "0.52")


def test_ap_1_at_k_divides_by_min_k_r() -> None:
    """AP₁@k = 1/min(k, R) · Σ_{i<=k} r(d_i)·P@i; at k = 5 ranking A has 4 relevant in 5."""
    res = cranfield.evaluate(*_topic(A), ["AP_min@5", "AP@5"])
    assert res["AP_min@5"] == pytest.approx((1 + 2 / 3 + 3 / 4 + 4 / 5) / 5)
    assert res["AP@5"] == pytest.approx((1 + 2 / 3 + 3 / 4 + 4 / 5) / 6)  # trec_eval map_cut


def test_missing_relevant_document_gets_zero_precision() -> None:
    """'If a relevant document is not found, it gets 0.0 precision.'"""
    qrels, run = binary_topic((1, 3), 5, 4)
    res = cranfield.evaluate({"t": qrels}, {"t": run}, ["AP"])
    assert res["AP"] == pytest.approx((1 + 2 / 3 + 0 + 0) / 4)


def test_ap_alternative_2_ranking_a() -> None:
    """(2·1.0 + 7·0.83 + 2·0.6) / 11 = 0.82."""
    res = cranfield.evaluate(
        *_topic(A), ["AP11"] + [f"IntPrec@{p}" for p in (0.0, 0.1, 0.2, 0.8, 0.9, 1.0)]
    )
    assert res["AP11"] == pytest.approx((2 * 1.0 + 7 * 5 / 6 + 2 * 0.6) / 11)
    assert printed(res["AP11"], "0.82")
    assert [res[f"IntPrec@{p}"] for p in (0.0, 0.1, 0.2, 0.8, 0.9, 1.0)] == pytest.approx(
        [1.0, 1.0, 5 / 6, 5 / 6, 0.6, 0.6]
    )


def test_ap_alternative_2_ranking_b() -> None:
    """(11·0.6) / 11 = 0.6."""
    res = cranfield.evaluate(*_topic(B), ["AP11"])
    assert res["AP11"] == pytest.approx(0.6)


def test_ap_2_is_not_trec_eval_11pt_avg() -> None:
    """trec_eval's 11pt_avg rounds p·R to a relevant-document count: it gives 0.86 on A."""
    res = cranfield.evaluate(*_topic(A), ["IPrecAvg", "AP11"])
    assert res["IPrecAvg"] == pytest.approx((3 * 1.0 + 7 * 5 / 6 + 0.6) / 11)
    assert res["IPrecAvg"] != pytest.approx(res["AP11"])
