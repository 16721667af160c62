"""Seed 000, "Mean Average Precision (MAP)": system 1 (rankings A, C), system 2 (B, D)."""

from __future__ import annotations

import pytest

import cranfield
from tests.seeds._helpers import binary_topic, printed


def _system(t1: tuple[int, ...], t2: tuple[int, ...]) -> cranfield.Results:
    q1, r1 = binary_topic(t1, 10, 6)
    q2, r2 = binary_topic(t2, 10, 3)
    return cranfield.evaluate({"1": q1, "2": q2}, {"1": r1, "2": r2}, ["AP", "MAP"])


def test_seed_000_map_system_1_rankings_a_and_c() -> None:
    """Slip: the slide writes MAP = (0.78 + 0.44)/2 = 0.66, but C's AP is (1.0 + 0.33 + 0.3)/3
    = 0.54, as the slide itself computes next to it; (0.78 + 0.54)/2 = 0.66 is right."""
    res = _system((1, 3, 4, 5, 6, 10), (1, 6, 10))
    ap = res.per_query("AP")
    assert printed(ap["1"], "0.78")
    assert ap["2"] == pytest.approx((1 + 2 / 6 + 3 / 10) / 3)
    assert printed(ap["2"], "0.54")
    assert not printed(ap["2"], "0.44")
    assert printed(res["MAP"], "0.66")


def test_seed_000_map_system_2_rankings_b_and_d() -> None:
    """B: 0.52, D: (0.5 + 0.4 + 0.43)/3 = 0.44, MAP (0.52 + 0.44)/2 = 0.48."""
    res = _system((2, 5, 6, 7, 9, 10), (2, 5, 7))
    ap = res.per_query("AP")
    assert printed(ap["1"], "0.52")
    assert ap["2"] == pytest.approx((1 / 2 + 2 / 5 + 3 / 7) / 3)
    assert printed(ap["2"], "0.44")
    assert printed(res["MAP"], "0.48")
