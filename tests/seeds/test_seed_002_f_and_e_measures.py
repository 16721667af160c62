"""Seed 002, "Alternative Measures": the harmonic mean F(j) and van Rijsbergen's E(j) at
the j-th document of a ranking."""

from __future__ import annotations

import pytest

import cranfield
from tests.seeds._collection import binary


def test_seed_002_f_at_each_rank() -> None:
    """F(j) = 2 / (1/r(j) + 1/P(j)); 0 when nothing relevant is retrieved yet, 1 only when
    every relevant document is ranked first."""
    qrels, run = binary()
    ks = range(1, 16)
    res = cranfield.evaluate(
        qrels,
        run,
        [f"SetF@{k}" for k in ks] + [f"SetP@{k}" for k in ks] + [f"SetR@{k}" for k in ks],
    )
    for k in ks:
        p, r = res.per_query(f"SetP@{k}")["q1"], res.per_query(f"SetR@{k}")["q1"]
        expected = 0.0 if p == 0 else 2 / (1 / r + 1 / p)
        assert res.per_query(f"SetF@{k}")["q1"] == pytest.approx(expected)
    assert res.per_query("SetF@2")["q2"] == 0.0
    best = max(range(1, 16), key=lambda k: res.per_query(f"SetF@{k}")["q1"])
    assert best == 10  # r = P = 0.4: the best compromise for q1


def test_seed_002_e_measure() -> None:
    """E(j) = 1 − (1 + b²)/(b²/r(j) + 1/P(j)); b = 1 is the complement of F; b > 1 weighs
    recall more. At j = 6 recall (0.3) is below precision (0.5), so a larger b gives a
    larger (worse) E."""
    qrels, run = binary()
    res = cranfield.evaluate(qrels, run, ["SetE@6", "SetF@6", "SetE(b=2)@6", "SetE(b=0.5)@6"])
    e1 = res.per_query("SetE@6")["q1"]
    assert e1 == pytest.approx(1 - res.per_query("SetF@6")["q1"])
    p, r = 3 / 6, 3 / 10
    for b in (2.0, 0.5):
        assert res.per_query(f"SetE(b={b})@6")["q1"] == pytest.approx(
            1 - (1 + b * b) / (b * b / r + 1 / p)
        )
    assert res.per_query("SetE(b=2)@6")["q1"] > e1 > res.per_query("SetE(b=0.5)@6")["q1"]
