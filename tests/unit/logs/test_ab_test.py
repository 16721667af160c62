"""A/B tests (cranfield.logs.ab_test): the interval's coverage by simulation, clustering by
user against the naive per-session interval, the ratio metric, the sample size by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from cranfield.errors import InputError, OptionError
from cranfield.logs.ab_test import ab_test, sample_size

SIMULATIONS = 400
USERS = 60  # per bucket
EFFECT = 0.3


def _experiments(
    seed: int, user_sd: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """All simulations at once: sessions of users, a user effect shared by a user's sessions
    (so they are correlated), the treatment adding EFFECT. Returns the simulation of each
    session, its value, its bucket and its user."""
    rng = np.random.default_rng(seed)
    users = SIMULATIONS * 2 * USERS
    sessions = 1 + rng.poisson(4, size=users)
    user_effect = rng.normal(0.0, user_sd, size=users)
    user_bucket = np.tile(np.repeat([0, 1], USERS), SIMULATIONS)
    user = np.repeat(np.arange(users), sessions)
    value = 1.0 + EFFECT * user_bucket[user] + user_effect[user] + rng.normal(size=user.size)
    return user // (2 * USERS), value, np.where(user_bucket[user] == 1, "B", "A"), user


def test_the_95_interval_covers_the_effect_in_at_least_93_percent_of_400_simulations() -> None:
    sim, value, bucket, user = _experiments(0)
    bounds = np.searchsorted(sim, np.arange(SIMULATIONS + 1))
    covered = naive_covered = 0
    for k in range(SIMULATIONS):
        rows = slice(bounds[k], bounds[k + 1])
        lo, hi = ab_test(value[rows], bucket[rows], units=user[rows], control="A").interval
        covered += lo <= EFFECT <= hi
        lo, hi = ab_test(value[rows], bucket[rows], control="A").interval
        naive_covered += lo <= EFFECT <= hi
    assert covered / SIMULATIONS >= 0.93
    # sessions treated as independent: the same data, an interval far too narrow
    assert naive_covered / SIMULATIONS < 0.85


def test_clustering_by_user_widens_the_interval_when_sessions_are_correlated() -> None:
    sim, value, bucket, user = _experiments(1)
    rows = sim == 0
    by_user = ab_test(value[rows], bucket[rows], units=user[rows])
    by_session = ab_test(value[rows], bucket[rows])
    assert by_user.difference == by_session.difference
    assert by_user.standard_error > 1.5 * by_session.standard_error
    assert (by_user.control.units, by_session.control.units) == (USERS, by_session.control.rows)
    assert by_user.unit == "unit"
    assert by_session.unit == "row"
    # independent sessions (no user effect): clustering changes little
    sim, value, bucket, user = _experiments(2, user_sd=0.0)
    rows = sim == 0
    ratio = (
        ab_test(value[rows], bucket[rows], units=user[rows]).standard_error
        / ab_test(value[rows], bucket[rows]).standard_error
    )
    assert 0.8 < ratio < 1.2


def test_one_row_per_unit_is_welchs_t_test() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=40), rng.normal(0.5, 2.0, size=25)
    t = ab_test(np.concatenate([a, b]), ["A"] * 40 + ["B"] * 25)
    welch = stats.ttest_ind(b, a, equal_var=False)
    assert t.p_value == pytest.approx(welch.pvalue, rel=1e-9)
    assert t.difference / t.standard_error == pytest.approx(welch.statistic, rel=1e-9)
    assert t.df == pytest.approx(welch.df, rel=1e-9)
    ci = welch.confidence_interval(0.95)
    assert t.interval == pytest.approx((ci.low, ci.high), rel=1e-9)


def test_a_ratio_metric_by_hand() -> None:
    """CTR per bucket = clicks / impressions over its users; the delta-method variance by hand:
    bucket A users (clicks, impressions) (1, 4), (3, 4), (2, 2): R = 6/10, N̄ = 10/3,
    residuals 1 - 2.4, 3 - 2.4, 2 - 1.2 = -1.4, 0.6, 0.8; Var = (1.96 + 0.36 + 0.64) / (3 * 2 *
    N̄^2) = 2.96 / 66.67."""
    clicks = [1, 3, 2, 2, 2, 4]
    shown = [4, 4, 2, 4, 4, 4]
    bucket = ["A", "A", "A", "B", "B", "B"]
    t = ab_test(clicks, bucket, denominators=shown, units=["u1", "u2", "u3", "u4", "u5", "u6"])
    assert t.control.mean == pytest.approx(0.6)
    assert t.control.variance == pytest.approx(2.96 / (6 * (10 / 3) ** 2))
    assert t.treatment.mean == pytest.approx(8 / 12)
    # sessions of one user add up: the same user split over rows changes nothing
    split = ab_test(
        [1, 0, 3, 2, 2, 2, 4],
        ["A", "A", "A", "A", "B", "B", "B"],
        denominators=[2, 2, 4, 2, 4, 4, 4],
        units=["u1", "u1", "u2", "u3", "u4", "u5", "u6"],
    )
    assert split.control.variance == pytest.approx(t.control.variance)
    assert split.control.rows == 4


def test_control_names_the_baseline() -> None:
    t = ab_test([1.0, 2.0, 3.0, 5.0], ["new", "new", "old", "old"], control="old")
    assert (t.control.name, t.treatment.name, t.difference) == ("old", "new", -2.5)


def test_sample_size_by_hand() -> None:
    """σ = 1 per unit in each bucket, δ = 0.5, α = 0.05, power 0.8: 2 (1.96 + 0.8416)^2 / 0.25
    = 62.8, so 63 users per bucket (the textbook normal-approximation figure)."""
    assert sample_size(2.0, 0.5) == 63
    z = stats.norm.ppf(0.995) + stats.norm.ppf(0.9)
    assert sample_size(1.0, 0.1, alpha=0.01, power=0.9) == math.ceil(z * z / 0.01)
    t = ab_test([0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0], ["A"] * 4 + ["B"] * 4)
    variance = t.control.unit_variance + t.treatment.unit_variance
    assert t.units_needed(0.1) == sample_size(variance, 0.1)


@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        ({"values": [], "buckets": []}, "values"),
        ({"values": [1.0, float("nan")], "buckets": ["A", "B"]}, "values"),
        ({"values": [1.0, 2.0], "buckets": ["A"]}, "buckets"),
        ({"values": [1.0, 2.0, 3.0], "buckets": ["A", "B", "C"]}, "buckets"),
        ({"values": [1.0, 2.0], "buckets": ["A", "B"], "control": "C"}, "control"),
        ({"values": [1.0, 2.0], "buckets": ["A", "B"], "alpha": 0.0}, "alpha"),
        ({"values": [1.0, 2.0], "buckets": ["A", "B"]}, "units"),  # one unit per bucket
        ({"values": [1.0, 2.0], "buckets": ["A", "B"], "units": ["u"]}, "units"),
        (
            {"values": [1.0, 2.0], "buckets": ["A", "B"], "denominators": [1.0, -1.0]},
            "denominators",
        ),
    ],
)
def test_bad_options(kwargs: dict[str, object], option: str) -> None:
    with pytest.raises(OptionError) as info:
        ab_test(**kwargs)  # type: ignore[arg-type]
    assert info.value.option == option


def test_a_unit_in_two_buckets_is_an_input_error_naming_the_row() -> None:
    with pytest.raises(InputError, match=r"row 3: unit 'u1' is in two buckets"):
        ab_test([1.0, 2.0, 3.0, 4.0], ["A", "B", "B", "A"], units=["u1", "u2", "u1", "u3"])


@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        ({"variance": -1.0, "mde": 0.1}, "variance"),
        ({"variance": 1.0, "mde": 0.0}, "mde"),
        ({"variance": 1.0, "mde": 0.1, "power": 1.0}, "power"),
    ],
)
def test_sample_size_bad_options(kwargs: dict[str, float], option: str) -> None:
    with pytest.raises(OptionError) as info:
        sample_size(**kwargs)
    assert info.value.option == option
