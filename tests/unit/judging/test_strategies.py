"""The adjudication strategies, on hand-computed sequences."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.errors import EvaluationError, OptionError
from cranfield.judging import STRATEGIES, Strategy, run_lists, strategy

# A: d1 d2 d3 d4; B: d5 d2 d6; C: d1 d7 (scores descending = rank order)
RUNS = {
    "A": {"q": {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}},
    "B": {"q": {"d5": 3.0, "d2": 2.0, "d6": 1.0}},
    "C": {"q": {"d1": 2.0, "d7": 1.0}},
}
RELEVANT = {"d2", "d7", "d6"}


def judge_all(s: Strategy, query: str = "q", truth: Mapping[str, int] | None = None) -> list[str]:
    """Replay ``s`` on ``query`` until it stops, judging by ``truth`` (default RELEVANT)."""
    judged: dict[str, float] = {}
    while (doc := s.propose(query, judged)) is not None:
        judged[doc] = truth.get(doc, 0) if truth is not None else int(doc in RELEVANT)
    return list(judged)


def test_the_pool_in_depth_order() -> None:
    lists = run_lists(RUNS)
    assert lists.topics["q"].docs == ("d1", "d5", "d2", "d7", "d3", "d6", "d4")
    assert strategy("depth", RUNS).name == "depth"
    assert judge_all(strategy("depth", RUNS)) == ["d1", "d5", "d2", "d7", "d3", "d6", "d4"]


def test_borda_points_are_pool_size_minus_rank_plus_one() -> None:
    # pool of 7: d1 7+7=14, d2 6+6=12, d5 7, d7 6, d3 5, d6 5 (tie: depth order), d4 4
    assert judge_all(strategy("borda", RUNS)) == ["d1", "d2", "d5", "d7", "d3", "d6", "d4"]


def test_rrf_with_k_zero_ties_by_depth_order() -> None:
    # 1/(0+r): d1 2, d5 1 and d2 1/2+1/2 = 1 (tie: d5 first in depth order), d7 1/2, d3 = d6 1/3
    assert judge_all(strategy("rrf", RUNS, k=0)) == ["d1", "d5", "d2", "d7", "d3", "d6", "d4"]
    # k=60: d1 2/61 > d2 2/62 > d5 1/61
    assert judge_all(strategy("rrf", RUNS))[:3] == ["d1", "d2", "d5"]


def test_combmnz_min_max_normalised_times_runs() -> None:
    # A: 1, 2/3, 1/3, 0; B: 1, 1/2, 0; C: 1, 0
    # d1 (1+1)*2=4, d2 (2/3+1/2)*2=7/3, d5 1, d3 1/3, then d7, d6, d4 at 0 in depth order
    assert judge_all(strategy("combmnz", RUNS)) == ["d1", "d2", "d5", "d3", "d7", "d6", "d4"]


def test_move_to_front() -> None:
    # A d1 non-rel (A -1) -> B d5 non-rel (B -1) -> C: d1 judged, d7 rel, C exhausted
    # -> A (first of -1): d2 rel, d3 non-rel (A -2) -> B: d5, d2 judged, d6 rel, exhausted -> A d4
    assert judge_all(strategy("mtf", RUNS)) == ["d1", "d5", "d7", "d2", "d3", "d6", "d4"]


def test_hedge_learns_which_run_to_follow() -> None:
    runs = {"A": {"q": {"d1": 2.0, "d2": 1.0}}, "B": {"q": {"d3": 2.0, "d4": 1.0}}}
    # values (H_Z - H_{r-1})/H_Z with Z=2: 1 and 1/3. d1 relevant: loss A 0, B 1/2, so the
    # weights become .760/.240 and A's second (0.253) beats B's first (0.240).
    assert judge_all(strategy("hedge", runs), truth={"d1": 1}) == ["d1", "d2", "d3", "d4"]
    # d1 not relevant: loss A 1, B 1/2: B's first comes next
    assert judge_all(strategy("hedge", runs), truth={})[:2] == ["d1", "d3"]


def test_maxmean_follows_the_run_with_the_best_mean() -> None:
    runs = {
        "A": {"q": {"a1": 3.0, "a2": 2.0, "a3": 1.0}},
        "B": {"q": {"b1": 3.0, "b2": 2.0, "b3": 1.0}},
    }
    truth = {"a1": 1, "a2": 1, "b3": 1}
    # the first pull is a tie (1/2, 1/2) broken at random; from then on:
    # A first: a1 a2 rel (3/4), a3 not (3/5 > 1/2), A exhausted, then B
    # B first: b1 not (1/3 < 1/2), then A to its end, then B
    expected = {("a1", "a2", "a3", "b1", "b2", "b3"), ("b1", "a1", "a2", "a3", "b2", "b3")}
    seen = {tuple(judge_all(strategy("maxmean", runs, seed=s), truth=truth)) for s in range(12)}
    assert seen == expected


def test_thompson_is_reproducible_and_favours_the_good_run() -> None:
    good = {f"g{i}": float(100 - i) for i in range(30)}
    bad = {f"b{i}": float(100 - i) for i in range(30)}
    runs = {"good": {"q": good}, "bad": {"q": bad}}
    truth = dict.fromkeys(good, 1)
    first = judge_all(strategy("thompson", runs, seed=3, budget=20), truth=truth)
    assert first == judge_all(strategy("thompson", runs, seed=3, budget=20), truth=truth)
    assert len(first) == 20
    assert sum(d.startswith("g") for d in first) >= 15
    # with no discount the non-stationary variant draws the same numbers
    same = judge_all(strategy("thompson-ns", runs, seed=3, budget=20, gamma=1.0), truth=truth)
    assert same == first


@pytest.mark.parametrize("name", STRATEGIES)
def test_every_strategy_judges_each_pooled_document_once(name: str) -> None:
    order = judge_all(strategy(name, RUNS, seed=1))
    assert sorted(order) == sorted(run_lists(RUNS).topics["q"].docs)
    assert judge_all(strategy(name, RUNS, seed=1, budget=3)) == order[:3]


def test_propose_is_repeatable_and_takes_judgments_from_anywhere() -> None:
    s = strategy("thompson", RUNS, seed=5)
    assert s.propose("q", {}) == s.propose("q", {})
    # judgments given out of order, and one outside the pool, are taken in
    judged = {"d9": 1.0, "d2": 1.0}
    doc = s.propose("q", judged)
    assert doc is not None
    assert doc not in judged
    # a judgment withdrawn: the topic's state is built again from what is left
    assert strategy("depth", RUNS).propose("q", {}) == "d1"
    d = strategy("depth", RUNS)
    assert d.propose("q", {"d1": 0, "d5": 0}) == "d2"
    assert d.propose("q", {"d1": 0}) == "d5"
    assert d.propose("unknown topic", {}) is None
    assert isinstance(s, Strategy)


@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        ({"seed": -1}, "seed"),
        ({"k": 1.0}, "k"),
    ],
)
def test_bad_options_are_one_sentence(kwargs: dict[str, int], option: str) -> None:
    with pytest.raises(OptionError, match=f"'{option}'"):
        strategy("depth", RUNS, **kwargs)


def test_a_budget_of_zero_is_input_that_cannot_be_judged() -> None:
    with pytest.raises(EvaluationError, match=r"^A budget of 0 judgments per topic judges nothing"):
        strategy("depth", RUNS, budget=0)


def test_bad_parameters() -> None:
    with pytest.raises(OptionError, match="'beta'"):
        strategy("hedge", RUNS, beta=1.0)
    with pytest.raises(OptionError, match="'gamma'"):
        strategy("thompson-ns", RUNS, gamma=0.0)
    with pytest.raises(OptionError, match="'strategy'"):
        strategy("nope", RUNS)


# --------------------------------------------------------------------------- a total budget


def test_allocate_budget_splits_evenly_and_hands_on_what_a_pool_cannot_use() -> None:
    from cranfield.judging.strategies import allocate_budget

    caps = {"q2": 100, "q1": 100, "q3": 100}
    assert allocate_budget(10, caps) == {"q1": 4, "q2": 3, "q3": 3}  # remainder: string order
    assert allocate_budget(3, caps) == {"q1": 1, "q2": 1, "q3": 1}
    assert allocate_budget(2, caps) == {"q1": 1, "q2": 1, "q3": 0}
    # q2's pool holds 1, q3's 2: the rest goes to q1
    assert allocate_budget(10, {"q1": 100, "q2": 1, "q3": 2}) == {"q1": 7, "q2": 1, "q3": 2}
    # more than the pools hold (10): every pool, the excess unspent
    assert allocate_budget(11, {"a": 5, "b": 3, "c": 2}) == {"a": 5, "b": 3, "c": 2}
    # 7: two rounds of 3, then the 7th to "a" (c is full)
    assert allocate_budget(7, {"a": 5, "b": 3, "c": 2}) == {"a": 3, "b": 2, "c": 2}
    assert allocate_budget(5, {}) == {}
    with pytest.raises(EvaluationError, match="total budget of 0 judgments judges nothing"):
        allocate_budget(0, caps)


def test_a_total_budget_stops_each_topic_at_its_share() -> None:
    runs = {
        "a": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"e1": 2.0, "e2": 1.0}},
        "b": {"q1": {"d4": 3.0, "d2": 2.0}},
    }
    s = strategy("depth", runs, budget_total=3)
    assert getattr(s, "shares", None) == {"q1": 2, "q2": 1}
    judged: dict[str, dict[str, float]] = {"q1": {}, "q2": {}}
    for q, made in judged.items():
        while (doc := s.propose(q, made)) is not None:
            made[doc] = 0
    assert judged == {"q1": {"d1": 0, "d4": 0}, "q2": {"e1": 0}}
    # with a budget per topic too, each topic's share is capped by it
    s = strategy("depth", runs, budget=1, budget_total=4)
    assert getattr(s, "shares", None) == {"q1": 1, "q2": 1}
    with pytest.raises(EvaluationError, match="total budget of 0"):
        strategy("depth", runs, budget_total=0)


@settings(max_examples=200, deadline=None)
@given(
    caps=st.dictionaries(st.text("abcq0123", min_size=1, max_size=3), st.integers(0, 30)),
    total=st.integers(1, 400),
)
def test_allocate_budget_is_the_round_robin_of_one_judgment_per_topic(
    caps: dict[str, int], total: int
) -> None:
    from cranfield.judging.strategies import allocate_budget

    share = allocate_budget(total, caps)
    # the round-robin itself, one judgment at a time
    made = dict.fromkeys(caps, 0)
    left = total
    while left and any(made[q] < caps[q] for q in caps):
        for q in sorted(caps):
            if left and made[q] < caps[q]:
                made[q] += 1
                left -= 1
    assert share == made
    assert sum(share.values()) == min(total, sum(caps.values()))
    open_ = [share[q] for q in caps if share[q] < caps[q]]
    assert not open_ or max(open_) - min(open_) <= 1
