"""Seed 004, "面向用户的评价指标": coverage C = |Ru|/|U| and novelty N = |Rk|/(|Ru| + |Rk|).

Seed 004 swaps seed 002's letters (here Ru = retrieved ∩ known, Rk = new relevant); the
measures are the same. Example: the user knows {d1, d2, d3}; the run returns d1, d2 (known)
and the unknown relevant d7: coverage 2/3, novelty 1/3.
"""

from __future__ import annotations

import pytest

import cranfield
from tests.golden._helpers import ranked_run


def test_coverage_and_novelty() -> None:
    qrels = {"q": {"d1": 1, "d2": 1, "d3": 1, "d7": 1, "d8": 0}}
    known = {"q": {"d1": 1, "d2": 1, "d3": 1}}
    run = {"q": ranked_run(["d1", "d8", "d2", "d7"])}
    res = cranfield.evaluate(qrels, run, ["Coverage", "Novelty"], known=known)
    assert res["Coverage"] == pytest.approx(2 / 3)
    assert res["Novelty"] == pytest.approx(1 / 3)
