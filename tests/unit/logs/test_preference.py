"""The preference from interleaving outcomes (cranfield.logs.preference): Δ_AB as Chapelle et
al. (2012) define it, the sign test against scipy's binomtest, the bootstrap over impressions
and over queries, and multileaving's pairwise preferences."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from cranfield.errors import OptionError
from cranfield.logs.preference import pairwise_preferences, preference


def test_delta_is_wins_plus_half_ties_over_n_minus_a_half() -> None:
    o = np.array([1] * 30 + [-1] * 10 + [0] * 20, dtype=float)
    p = preference(o, seed=0, n_resamples=200)
    assert (p.wins, p.losses, p.ties, p.impressions) == (30, 10, 20, 60)
    assert p.delta == pytest.approx((30 + 20 / 2) / 60 - 0.5)
    assert p.p_value == pytest.approx(binomtest(30, 40, 0.5).pvalue)


def test_no_wins_nor_losses_is_p_one() -> None:
    p = preference([0.0, 0.0, 0.0], seed=0, n_resamples=50)
    assert (p.delta, p.p_value, p.interval) == (0.0, 1.0, (0.0, 0.0))


def test_expected_outcomes_count_for_the_side_they_lean_to() -> None:
    p = preference([0.4, -0.2, 0.0, 0.8], seed=0, n_resamples=50)
    assert (p.wins, p.losses, p.ties) == (2, 1, 1)
    assert p.delta == pytest.approx(1.0 / 8)


def test_the_impression_bootstrap_covers_the_true_preference() -> None:
    """Outcomes drawn with P(win) = 0.5, P(loss) = 0.3, P(tie) = 0.2: Δ = 0.1. Over 200 seeded
    experiments of 300 impressions the 95% interval holds 0.1 in at least 90% of them."""
    rng = np.random.default_rng(0)
    hits = 0
    for k in range(200):
        o = rng.choice([1.0, -1.0, 0.0], p=[0.5, 0.3, 0.2], size=300)
        lo, hi = preference(o, n_resamples=400, seed=k).interval
        hits += lo <= 0.1 <= hi
    assert hits >= 180


def test_the_group_bootstrap_is_wider_when_queries_differ() -> None:
    """Queries where A always wins and queries where B always wins: over impressions the
    interval is narrow, over queries (5 of each) it is wide, as it must be."""
    o = np.array(([1.0] * 100 + [-1.0] * 100) * 5)
    groups = np.repeat(np.arange(10), 100)
    by_impression = preference(o, seed=1, n_resamples=500)
    by_query = preference(o, groups=groups, seed=1, n_resamples=500)
    assert by_query.unit == "group"
    width = by_query.interval[1] - by_query.interval[0]
    assert width > 4 * (by_impression.interval[1] - by_impression.interval[0])
    assert by_query.interval[0] < 0 < by_query.interval[1]


def test_with_groups_the_sign_test_counts_groups_by_their_mean_outcome() -> None:
    """Three queries: A wins 90 of 100 impressions of each of two, B wins all 100 of the third.
    Over impressions 180 against 100 is 'significant'; over queries 2 against 1 is not."""
    o = np.array([1.0] * 90 + [-1.0] * 10 + [1.0] * 90 + [-1.0] * 10 + [-1.0] * 100)
    groups = np.repeat(["q1", "q2", "q3"], 100)
    by_impression = preference(o, seed=0, n_resamples=100)
    by_query = preference(o, groups=groups, seed=0, n_resamples=100)
    assert (by_impression.unit_wins, by_impression.unit_losses) == (180, 120)
    assert by_impression.p_value < 0.001
    assert (by_query.unit_wins, by_query.unit_losses) == (2, 1)
    assert by_query.p_value == pytest.approx(binomtest(2, 3, 0.5).pvalue)
    assert (by_query.wins, by_query.delta) == (by_impression.wins, by_impression.delta)


def test_same_seed_same_interval_and_the_seed_is_kept() -> None:
    o = np.random.default_rng(3).choice([1.0, -1.0, 0.0], size=500)
    one, two = preference(o, seed=9), preference(o, seed=9)
    assert one.interval == two.interval
    assert one.seed == 9
    assert one.to_dict()["interval"] == list(one.interval)


@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        ({"outcomes": []}, "outcomes"),
        ({"outcomes": [2.0]}, "outcomes"),
        ({"outcomes": [[1.0]]}, "outcomes"),
        ({"outcomes": [1.0], "alpha": 1.0}, "alpha"),
        ({"outcomes": [1.0], "n_resamples": 0}, "n_resamples"),
        ({"outcomes": [1.0, 0.0], "groups": [1]}, "groups"),
    ],
)
def test_bad_options(kwargs: dict[str, object], option: str) -> None:
    with pytest.raises(OptionError) as info:
        preference(**kwargs)  # type: ignore[arg-type]
    assert info.value.option == option


def test_pairwise_preferences_by_hand() -> None:
    credit = [[2, 0, 1], [0, 1, 1], [1, 1, 0]]
    # 0 vs 1: win, loss, tie -> 0; 0 vs 2: win, loss, win -> 1/3 / 2; 1 vs 2: loss, tie, win -> 0
    expected = np.array([[0.0, 0.0, 1 / 6], [0.0, 0.0, 0.0], [-1 / 6, 0.0, 0.0]])
    assert np.allclose(pairwise_preferences(credit), expected)
    with pytest.raises(OptionError):
        pairwise_preferences([1, 2])


def test_many_distinct_outcomes_resample_impressions_with_the_normal_width() -> None:
    """Marginalised outcomes take many values: impressions are resampled one by one; the
    interval's width is about the normal one, 2 * 1.96 * sd / sqrt(n) / 2."""
    o = np.random.default_rng(5).uniform(-1.0, 1.0, size=4000)
    p = preference(o, seed=2, n_resamples=2000)
    width = p.interval[1] - p.interval[0]
    assert width == pytest.approx(1.96 * o.std() / np.sqrt(o.size), rel=0.1)
    assert p.interval[0] < p.delta < p.interval[1]
