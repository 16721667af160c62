"""Condorcet fusion on cases worked by hand: a clear majority, weighted votes, a cycle
(where the entry order, doc id descending, decides), and independence from line order."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cranfield import load_run
from cranfield.data.run import Run
from cranfield.errors import OptionError
from cranfield.fusion import fuse
from cranfield.fusion.condorcet import condorcet_order
from tests.conftest import one_sentence

# d1 beats d2 (a, b), d1 beats d3 (a, b, c), d2 beats d3 (a, c)
MAJORITY = [
    {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}},
    {"q1": {"d1": 3.0, "d3": 2.0, "d2": 1.0}},
    {"q1": {"d2": 3.0, "d1": 2.0, "d3": 1.0}},
]


def runs(dicts: list[dict[str, dict[str, float]]]) -> list[Run]:
    return [load_run(d, name=f"r{i}") for i, d in enumerate(dicts)]


def test_a_clear_majority_orders_the_documents_scored_c_minus_position() -> None:
    fused = fuse(runs(MAJORITY), "condorcet").to_dict()["q1"]
    assert fused == {"d1": 3.0, "d2": 2.0, "d3": 1.0}


def test_weights_let_one_run_outvote_the_others() -> None:
    # c alone weighs 0.8 against 0.2: its order d2 > d1 > d3 wins every pair
    fused = fuse(runs(MAJORITY), "w_condorcet", weights=[0.1, 0.1, 0.8]).to_dict()["q1"]
    assert fused == {"d2": 3.0, "d1": 2.0, "d3": 1.0}
    # equal weights: condorcet's order
    equal = fuse(runs(MAJORITY), "w_condorcet", weights=[1.0, 1.0, 1.0]).to_dict()["q1"]
    assert equal == {"d1": 3.0, "d2": 2.0, "d3": 1.0}


def test_a_cycle_is_broken_by_the_sort_from_doc_id_descending() -> None:
    # a: d1 > d2 > d3; b: d3 > d1 (d2 not retrieved: below both); c: d2 > d3 > d1.
    # d1 beats d2 (a, b), d2 beats d3 (a, c), d3 beats d1 (b, c): a cycle. The documents
    # enter the sort as d3, d2, d1; the sort finds d2 before d3 and d1 before d2 (a
    # descending run, which it reverses): d1, d2, d3.
    cycle = [
        {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}},
        {"q1": {"d3": 0.9, "d1": 0.5}},
        {"q1": {"d2": 0.9, "d3": 0.5, "d1": 0.1}},
    ]
    assert fuse(runs(cycle), "condorcet").to_dict()["q1"] == {"d1": 3.0, "d2": 2.0, "d3": 1.0}
    # the same votes entering as d2, d3, d1: the sort finds d3 not before d2 and d1 not
    # before d3, and keeps that path
    entered = [(1, 2**62, 0), (2, 0, 1), (0, 1, 2)]  # d2, d3, d1: positions in a, b, c
    assert condorcet_order(entered, [1.0, 1.0, 1.0]) == [0, 1, 2]


def test_the_order_of_the_lines_does_not_matter() -> None:
    shuffled = [{"q1": dict(reversed(list(d["q1"].items())))} for d in MAJORITY]
    assert (
        fuse(runs(shuffled), "condorcet").to_dict() == fuse(runs(MAJORITY), "condorcet").to_dict()
    )


def test_every_query_of_any_run_is_fused() -> None:
    extra = [
        {**MAJORITY[0], "q2": {"d8": 1.0}},
        MAJORITY[1],
        {**MAJORITY[2], "q2": {"d9": 1.0}},
    ]
    fused = fuse(runs(extra), "condorcet")
    # q2: d8 (run 0) and d9 (run 2) enter as d9, d8; does d8 go before d9? run 0 says yes,
    # run 2 no, and run 1, which retrieved neither, votes against the one compared first
    # (d8): no, so d9 stays first
    assert fused.to_dict()["q2"] == {"d9": 2.0, "d8": 1.0}


def test_condorcet_takes_no_training_and_weights_only_when_weighted() -> None:
    with pytest.raises(OptionError) as exc:
        fuse(runs(MAJORITY), "condorcet", weights=[1.0, 1.0, 1.0])
    one_sentence(exc)
    with pytest.raises(OptionError):
        fuse(runs(MAJORITY), "w_condorcet", weights=[1.0, 1.0])


@given(
    st.integers(min_value=2, max_value=7).flatmap(
        lambda n: st.lists(st.permutations(list(range(n))), min_size=1, max_size=5)
    )
)
def test_without_a_cycle_the_order_is_the_majority_order_whatever_the_entry(
    rankings: list[list[int]],
) -> None:
    """With an odd number of runs that each rank every document, no pair ties; when the
    majority relation has no cycle, each document beats exactly the ones below it, and every
    entry order gives that order (number of pairwise wins, descending)."""
    if len(rankings) % 2 == 0:
        rankings = rankings[:-1]
    n = len(rankings[0])
    positions = [tuple(r.index(d) for r in rankings) for d in range(n)]

    def beats(x: int, y: int) -> bool:
        return 2 * sum(p < q for p, q in zip(positions[x], positions[y], strict=True)) > len(
            rankings
        )

    wins = [sum(beats(x, y) for y in range(n) if y != x) for x in range(n)]
    if sorted(wins) != list(range(n)):  # a cycle: no order satisfies every vote
        return
    expected = sorted(range(n), key=lambda d: -wins[d])
    weights = [1.0] * len(rankings)
    assert condorcet_order(positions, weights) == expected
    entered = positions[::-1]
    assert [n - 1 - i for i in condorcet_order(entered, weights)] == expected
