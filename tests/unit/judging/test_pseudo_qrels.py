"""Pseudo-qrels from the runs, by hand; and their ranking of Robust03's runs."""

from __future__ import annotations

import pytest

from cranfield.judging.pools import run_lists
from cranfield.judging.pseudo_qrels import pseudo_qrels, pseudo_study
from tests.unit.conftest import ROBUST03, robust03_runs

# A: d1 d2 d3; B: d2 d1 d4; C: d2 d5
RUNS = {
    "A": {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}},
    "B": {"q": {"d2": 3.0, "d1": 2.0, "d4": 1.0}},
    "C": {"q": {"d2": 2.0, "d5": 1.0}},
}


def relevant(qrels_dict: dict[str, dict[str, int]]) -> set[str]:
    return {d for d, g in qrels_dict["q"].items() if g > 0}


def test_reference_counting() -> None:
    # retrieved by: d1 2, d2 3, d3 1, d4 1, d5 1; a majority of 3 is 2
    assert relevant(pseudo_qrels(RUNS, "count").to_dict()) == {"d1", "d2"}
    assert relevant(pseudo_qrels(RUNS, "count", min_runs=3).to_dict()) == {"d2"}


def test_borda_and_condorcet() -> None:
    # pool of 5: d2 4+5+5 = 14, d1 5+4 = 9, d3 3, d4 3, d5 4
    assert relevant(pseudo_qrels(RUNS, "borda", relevant=3).to_dict()) == {"d2", "d1", "d5"}
    # pairwise majorities: d2 beats all four (4 - 0), d1 beats d3, d4, d5 (3 - 1); d3, d4 and
    # d5 tie with each other (one run each way) and lose to d1 and d2 (0 - 2)
    assert relevant(pseudo_qrels(RUNS, "condorcet", relevant=2).to_dict()) == {"d2", "d1"}


def test_soboroff_draws_from_the_pool_with_duplicates() -> None:
    lists = run_lists(RUNS)
    drawn = [
        relevant(pseudo_qrels(lists, "soboroff", relevant=1, seed=s).to_dict()) for s in range(200)
    ]
    assert all(len(x) == 1 for x in drawn)
    share_d2 = sum("d2" in x for x in drawn) / len(drawn)
    # d2 is 3 of the urn's 8 copies
    assert share_d2 == pytest.approx(3 / 8, abs=0.1)
    assert (
        pseudo_qrels(RUNS, "soboroff", seed=3).to_dict()
        == pseudo_qrels(RUNS, "soboroff", seed=3).to_dict()
    )


@pytest.mark.slow
def test_robust03_rankings_without_judgments() -> None:
    """Every method ranks Robust03's 17 runs positively correlated with the real ranking, well
    short of agreeing (Soboroff et al.: the best systems are underrated)."""
    study = pseudo_study(robust03_runs(), ROBUST03 / "qrels.robust03.txt.gz")
    for method in study.methods:
        assert 0.2 < study.tau[method] < 0.7, (method, study.tau)
    assert study.tau["soboroff"] == pytest.approx(0.412, abs=0.001)
