"""Seed 004, "Adaptive & Batch filtering": linear utility, T11U, T11F (and the normalised
T11SU that the slide's "归一化平均" refers to).

The slide gives the formulas without numbers; the in-class contingency table of the same
lecture (R⁺ = 18, N⁺ = 2, R⁻ = 82, N⁻ = 10⁹) serves as the example:
T11U = 2·18 − 2 = 34, P = 0.9, R = 0.18, T11F = 1.25/(0.25/0.18 + 1/0.9) = 0.5,
T11SU = (max(34/200, −0.5) + 0.5)/1.5 = 0.67/1.5.
"""

from __future__ import annotations

import pytest

import cranfield
from tests.seeds.test_seed_004_set_measures import _exercise

N = 1_000_000_000 + 102


def _q(res: cranfield.Results, m: str) -> float:
    return res.per_query(m)["q"]


def test_seed_004_t11_measures() -> None:
    res = cranfield.evaluate(
        *_exercise(18), ["T11U", "T11F", "T11SU", "SetF(beta=0.5)", "Utility(a=2,b=-1)"]
    )
    assert _q(res, "T11U") == 34
    assert _q(res, "Utility(a=2,b=-1)") == 34
    assert _q(res, "T11F") == pytest.approx(1.25 / (0.25 / 0.18 + 1 / 0.9))
    assert _q(res, "T11F") == pytest.approx(0.5)
    assert _q(res, "T11F") == _q(res, "SetF(beta=0.5)")
    assert _q(res, "T11SU") == pytest.approx((34 / 200 + 0.5) / 1.5)


def test_seed_004_linear_utility_with_four_coefficients() -> None:
    """Utility = A·R⁺ + B·N⁺ + C·R⁻ + D·N⁻ (N⁻ from the collection size)."""
    m = "Utility(a=3,b=-2,c=-1,d=0.000001)"
    res = cranfield.evaluate(*_exercise(18), [m], num_docs=N)
    assert _q(res, m) == pytest.approx(3 * 18 - 2 * 2 - 1 * 82 + 1e-6 * (N - 102))


def test_seed_004_t11su_bounds() -> None:
    """Retrieving nothing scores (0 + 0.5)/1.5 = 1/3; the scale floors at MinNU = −0.5."""
    res = cranfield.evaluate(*_exercise(0), ["T11SU", "T11F", "T11U"])
    assert _q(res, "T11SU") == pytest.approx(1 / 3)
    assert _q(res, "T11F") == 0.0
    qrels = {"q": {"r": 1} | {f"n{i}": 0 for i in range(10)}}
    run = {"q": {f"n{i}": 10.0 - i for i in range(10)}}
    res = cranfield.evaluate(qrels, run, ["T11SU", "T11U"])
    assert res["T11U"] == -10
    assert res["T11SU"] == 0.0


def test_seed_004_micro_t11f_pools_counts() -> None:
    res = cranfield.evaluate(*_exercise(18), ["T11F"], aggregate="micro")
    # q: R+ = 18, N+ = 2, R- = 82; other: R+ = 1
    p, r = 19 / 21, 19 / 101
    assert res["T11F"] == pytest.approx(1.25 * p * r / (0.25 * p + r))
