"""Topic-set-size design (Sakai 2016): each n is the smallest that reaches the asked power."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from cranfield.errors import EvaluationError, OptionError
from cranfield.stats.topic_set_size import anova_power, residual_variance, topic_set_size


def _t_power(n: int, d: float, var: float, alpha: float) -> float:
    lam = math.sqrt(n) * d / math.sqrt(2 * var)
    crit = stats.t.ppf(1 - alpha / 2, n - 1)
    return float(1 - stats.nct.cdf(crit, n - 1, lam) + stats.nct.cdf(-crit, n - 1, lam))


def _f_power(n: int, m: int, d: float, var: float, alpha: float) -> float:
    crit = stats.f.ppf(1 - alpha, m - 1, m * (n - 1))
    return float(1 - stats.ncf.cdf(crit, m - 1, m * (n - 1), n * d * d / (2 * var)))


@pytest.mark.parametrize(
    ("var", "d", "alpha", "beta", "m"),
    [(0.02, 0.05, 0.05, 0.2, 10), (0.0099, 0.05, 0.05, 0.2, 17), (0.05, 0.1, 0.01, 0.1, 3)],
)
def test_each_n_is_the_smallest_reaching_the_power(
    var: float, d: float, alpha: float, beta: float, m: int
) -> None:
    r = topic_set_size(var, min_d=d, alpha=alpha, beta=beta, systems=m)
    n_t, n_f = r.topics["paired_t"], r.topics["anova"]
    assert n_t is not None
    assert n_f is not None
    assert _t_power(n_t, d, var, alpha) >= 1 - beta > _t_power(n_t - 1, d, var, alpha)
    assert _f_power(n_f, m, d, var, alpha) >= 1 - beta > _f_power(n_f - 1, m, d, var, alpha)


def test_the_paired_t_size_is_the_textbook_one_for_a_0_2_effect() -> None:
    # Cohen's d = 0.2 at α = 0.05, power 0.8: 199 pairs (the classic tables' 198.15, rounded up)
    assert topic_set_size(0.125, min_d=0.1, systems=2).topics["paired_t"] == 199


def test_the_interval_size_is_the_smallest_with_the_expected_width() -> None:
    var, delta, alpha = 0.02, 0.05, 0.05
    n = topic_set_size(var, min_d=delta, alpha=alpha).topics["interval"]
    assert n is not None

    def width(k: int) -> float:
        c = math.sqrt(2 / (k - 1)) * math.gamma(k / 2) / math.gamma((k - 1) / 2)
        return 2 * stats.t.ppf(1 - alpha / 2, k - 1) * c * math.sqrt(2 * var / k)

    assert width(n) <= delta < width(n - 1)


def test_residual_variance_is_the_two_way_anova_error_mean_square() -> None:
    x = np.random.default_rng(3).uniform(size=(9, 4))
    n, m = x.shape
    ss_total = ((x - x.mean()) ** 2).sum()
    ss_rows = m * ((x.mean(axis=1) - x.mean()) ** 2).sum()
    ss_cols = n * ((x.mean(axis=0) - x.mean()) ** 2).sum()
    expected = (ss_total - ss_rows - ss_cols) / ((n - 1) * (m - 1))
    assert residual_variance(x) == pytest.approx(expected, rel=1e-12)


def test_one_query_has_no_residual_variance() -> None:
    with pytest.raises(EvaluationError, match="at least 2 queries and 2 systems"):
        residual_variance([[0.1, 0.2, 0.3]])


@pytest.mark.parametrize(
    ("option", "kwargs"),
    [
        ("alpha", {"alpha": 1.0}),
        ("beta", {"beta": 0.0}),
        ("min_d", {"min_d": -0.1}),
        ("systems", {"systems": 1}),
        ("delta", {"delta": 0}),
    ],
)
def test_bad_options_are_one_sentence(option: str, kwargs: dict[str, float]) -> None:
    with pytest.raises(OptionError, match=f"^The '{option}' option must be "):
        topic_set_size(0.02, **kwargs)  # type: ignore[arg-type]


def test_the_anova_power_is_the_published_one_of_the_pwr_package() -> None:
    # pwr's documented example: pwr.anova.test(k=2, n=100, f=0.2) has power 0.8036475.
    # Sakai's least favourable configuration (two systems min_d apart, the rest in the middle)
    # is Cohen's f = (min_d / σ) / √(2k): k = 2, f = 0.2 is min_d = 0.4 with σ² = 1.
    power = anova_power(100, systems=2, min_d=0.4, variance=1.0, alpha=0.05)
    assert power == pytest.approx(0.8036475, abs=5e-7)
