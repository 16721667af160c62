"""Strategies replayed with complete qrels: hand-computed curves, and Robust03's order."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.errors import EvaluationError, OptionError
from cranfield.judging.simulation import simulate
from tests.unit.conftest import ROBUST03, robust03_runs

RUNS = {
    "A": {"q": {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}},
    "B": {"q": {"d5": 3.0, "d2": 2.0, "d6": 1.0}},
    "C": {"q": {"d1": 2.0, "d7": 1.0}},
}
QRELS = {"q": {"d2": 1, "d7": 2, "d6": 1, "d9": 1, "d1": 0}}


def test_curves_count_relevant_found_per_judgment() -> None:
    sim = simulate(RUNS, QRELS, ["depth", "mtf"], budget=8, checkpoints=[])
    # depth: d1 d5 d2 d7 d3 d6 d4 -> 0 0 1 2 2 3 3, then the pool (7) is exhausted
    assert sim.found["depth"].tolist() == [0, 0, 1, 2, 2, 3, 3, 3]
    # mtf: d1 d5 d7 d2 d3 d6 d4
    assert sim.found["mtf"].tolist() == [0, 0, 1, 2, 2, 3, 3, 3]
    assert sim.spent["mtf"].tolist() == [1, 2, 3, 4, 5, 6, 7, 7]
    assert sim.found_at(3) == {"depth": 1, "mtf": 1}
    assert (sim.relevant, sim.pooled_relevant) == (4, 3)  # d9 is relevant but never pooled
    assert sim.topics == ("q",)


def test_rankings_are_compared_at_the_checkpoints() -> None:
    runs = {
        "good": {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 2.0, "y": 1.0}},
        "bad": {"q1": {"c": 3.0, "d": 2.0, "a": 1.0}, "q2": {"z": 2.0, "x": 1.0}},
        "mid": {"q1": {"b": 3.0, "a": 2.0, "d": 1.0}, "q2": {"y": 2.0, "x": 1.0}},
    }
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"x": 1}}
    sim = simulate(runs, qrels, ["depth"], budget=4, checkpoints=[1, 4])
    # with every pooled document judged the ranking is the full qrels' one
    assert sim.tau["depth"][-1] == pytest.approx(1.0)
    assert sim.tau_ap["depth"][-1] == pytest.approx(1.0)
    assert sim.checkpoints == (1, 4)
    # with every pooled document judged the scores are the full qrels' scores
    assert sim.scores["depth"][-1] == pytest.approx(sim.reference)
    assert sim.runs == ("good", "bad", "mid")
    assert sim.reference[0] == pytest.approx(1.0)
    assert len(sim.tau["depth"]) == 2
    data = sim.to_dict()
    assert data["strategies"]["depth"]["found"] == sim.found["depth"].tolist()
    frame = sim.to_frame()
    assert frame.height == 4
    assert frame.columns == ["strategy", "judgments", "spent", "found"]


def test_bad_settings() -> None:
    with pytest.raises(EvaluationError, match="budget of 0"):
        simulate(RUNS, QRELS, ["depth"], budget=0)
    with pytest.raises(OptionError, match="'checkpoints'"):
        simulate(RUNS, QRELS, ["depth"], budget=3, checkpoints=[4])
    with pytest.raises(OptionError, match="'strategies'"):
        simulate(RUNS, QRELS, ["best"], budget=3)


@pytest.mark.slow
def test_robust03_bandits_and_mtf_find_more_than_depth_k() -> None:
    """Losada, Parapar & Barreiro's order on Robust03's 17 runs, depth-100 pools: at the same
    budget per topic MTF and the bandits find more relevant documents than depth-k order, and
    the adaptive methods more than the fixed fusion orders (numbers in the docs page)."""
    runs = robust03_runs()
    qrels = ROBUST03 / "qrels.robust03.txt.gz"
    sim = simulate(
        runs,
        qrels,
        ["depth", "rrf", "mtf", "hedge", "maxmean", "thompson"],
        budget=300,
        checkpoints=[],
    )
    for budget in (50, 100, 200):
        found = sim.found_at(budget)
        for adaptive in ("mtf", "hedge", "maxmean", "thompson"):
            assert found[adaptive] > found["depth"], (budget, found)
        assert min(found["maxmean"], found["hedge"]) > found["rrf"], (budget, found)
    assert sim.found_at(100) == {
        "depth": 1647,
        "rrf": 1815,
        "mtf": 1874,
        "hedge": 2179,
        "maxmean": 2137,
        "thompson": 2025,
    }
    assert np.all(np.diff(sim.found["depth"]) >= 0)


# --------------------------------------------------------------------------- a total budget

TWO_TOPICS = {
    "a": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"e1": 2.0, "e2": 1.0}},
    "b": {"q1": {"d4": 3.0, "d2": 2.0}},
}
TWO_QRELS = {"q1": {"d2": 1, "d4": 1}, "q2": {"e2": 1}}


def test_a_total_budget_is_spent_round_robin_over_the_topics() -> None:
    # pools in depth order: q1 d1 d4 d2 d3 (4), q2 e1 e2 (2); 5 in all: q1 3, q2 2, spent
    # q1 d1 (0), q2 e1 (0), q1 d4 (1), q2 e2 (1), q1 d2 (1)
    sim = simulate(TWO_TOPICS, TWO_QRELS, ["depth"], budget_total=5, checkpoints=[2, 5])
    assert sim.total
    assert sim.budget == 5
    assert sim.unit == "judgments in all"
    assert sim.found["depth"].tolist() == [0, 0, 1, 2, 3]
    assert sim.spent["depth"].tolist() == [1, 2, 3, 4, 5]
    # after 2: d1 and e1 judged, both not relevant: every AP 0; after 5: a finds d2 (rank
    # 2 of 2 relevant, 1/2 / 2 = 0.25) and e2 (rank 2: 0.5) -> 0.375; b: d4, d2 -> 1, q2 0
    assert sim.scores["depth"][0] == (0.0, 0.0)
    assert sim.scores["depth"][1] == pytest.approx((0.375, 0.5))
    assert sim.to_dict()["budget_per"] == "all topics"


def test_a_total_beyond_the_pools_stops_when_they_are_judged() -> None:
    sim = simulate(TWO_TOPICS, TWO_QRELS, ["depth"], budget_total=9, checkpoints=[])
    assert sim.found["depth"].tolist() == [0, 0, 1, 2, 3, 3, 3, 3, 3]
    assert sim.spent["depth"].tolist() == [1, 2, 3, 4, 5, 6, 6, 6, 6]


def test_a_total_budget_of_zero_judges_nothing() -> None:
    with pytest.raises(EvaluationError, match="total budget of 0 judgments"):
        simulate(TWO_TOPICS, TWO_QRELS, ["depth"], budget_total=0)


@pytest.mark.slow
def test_robust03_a_total_budget_split_evenly_meets_the_budget_per_topic() -> None:
    """Robust03's 17 runs, depth-100 pools (every one above 100 documents): a total of
    100 × topics judged round-robin has, after each full round j, judged j documents of every
    topic, so its curve at j × topics is the per-topic curve at j, whatever the strategy."""
    runs = robust03_runs()
    qrels = ROBUST03 / "qrels.robust03.txt.gz"
    names = ["depth", "mtf", "maxmean"]
    per_topic = simulate(runs, qrels, names, budget=100, checkpoints=[])
    n = len(per_topic.topics)
    assert n == 100
    total = simulate(runs, qrels, names, budget_total=100 * n, checkpoints=[])
    for name in names:
        assert total.found[name][n - 1 :: n].tolist() == per_topic.found[name].tolist()
    assert (
        total.found_at(100 * n)
        == per_topic.found_at(100)
        == {
            "depth": 1647,
            "mtf": 1874,
            "maxmean": 2137,
        }
    )
    # 150 in all: each topic's first judgment, then one more for the first 50 topics
    partial = simulate(runs, qrels, ["depth"], budget_total=150, checkpoints=[])
    first = simulate(runs, qrels, ["depth"], budget=1, checkpoints=[])
    assert partial.found["depth"][99] == first.found["depth"][0]
