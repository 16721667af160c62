"""Iterative judging: pool the new runs, propose only what nobody judged."""

from __future__ import annotations

import pytest

from cranfield.errors import EvaluationError
from cranfield.judging.iterative import next_round, relevant_found


def test_only_unjudged_documents_in_the_strategy_order() -> None:
    judged = {"q": {"d1": 1, "d2": 0, "d9": -1}, "r": {"x": 1}}
    expanded = {
        "e1": {"q": {"d1": 3.0, "d3": 2.0, "d2": 1.0}},
        "e2": {"q": {"d4": 3.0, "d9": 2.0, "d5": 1.0}},
    }
    # depth order of the new pool: d1 d4 d3 d9 d2 d5; judged: d1 d2 d9 (a -1 counts too)
    r = next_round(judged, expanded)
    assert r.proposals == {"q": ["d4", "d3", "d5"]}
    assert r.already == {"q": 3}
    assert r.pooled == {"q": 6}
    assert next_round(judged, expanded, budget=2).proposals == {"q": ["d4", "d3"]}
    assert relevant_found(judged) == {"q": ["d1"], "r": ["x"]}
    with pytest.raises(EvaluationError):
        next_round(judged, expanded, budget=0)
