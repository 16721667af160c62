"""Deterministic paired tests against scipy, hand computations and identities."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from cranfield.errors import OptionError
from cranfield.stats import (
    paired_t_test,
    sign_test,
    studentized_range_sf,
    tukey_hsd,
    wilcoxon_test,
)


def _vectors(seed: int, n: int, *, discrete: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.random(n)
    y = np.clip(x + rng.normal(0.03, 0.15, n), 0, 1)
    if discrete:  # P@10-like values: many ties and zero differences
        x, y = np.round(x, 1), np.round(y, 1)
    return x, y


@pytest.mark.parametrize("n", [5, 20, 50, 51, 249])
@pytest.mark.parametrize("discrete", [False, True])
def test_t_test_equals_scipy_bit_for_bit(n: int, discrete: bool) -> None:
    x, y = _vectors(n, n, discrete=discrete)
    ours = paired_t_test(x, y)
    ref = stats.ttest_rel(x, y)
    assert ours.statistic == ref.statistic
    assert ours.p_value == ref.pvalue


@pytest.mark.parametrize("n", [6, 20, 50, 51, 249])
@pytest.mark.parametrize("discrete", [False, True])
def test_wilcoxon_equals_scipy_bit_for_bit(n: int, discrete: bool) -> None:
    x, y = _vectors(100 + n, n, discrete=discrete)
    for zero_method in ("wilcox", "pratt", "zsplit"):
        ours = wilcoxon_test(x, y, zero_method=zero_method)  # type: ignore[arg-type]
        ref = stats.wilcoxon(x, y, zero_method=zero_method)
        assert ours.statistic == ref.statistic
        assert ours.p_value == ref.pvalue


@pytest.mark.parametrize("seed", range(8))
def test_sign_test_equals_binomtest(seed: int) -> None:
    x, y = _vectors(seed, 10 + 7 * seed, discrete=True)
    ours = sign_test(x, y)
    wins, losses = int((x > y).sum()), int((x < y).sum())
    assert ours.statistic == wins
    ref = stats.binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else 1.0
    assert ours.p_value == pytest.approx(ref, rel=1e-12, abs=1e-15)


def test_sign_test_by_hand() -> None:
    # 5 wins, 1 loss, 2 ties: p = 2 * P(B <= 1), B ~ Bin(6, 1/2) = 2 * 7/64.
    r = sign_test([1, 1, 1, 1, 1, 0, 0.5, 0.5], [0, 0, 0, 0, 0, 1, 0.5, 0.5])
    assert r.statistic == 5
    assert r.p_value == pytest.approx(14 / 64)


def test_degenerate_pairs_never_nan() -> None:
    x = np.array([0.1, 0.4, 0.3, 0.9])
    same = paired_t_test(x, x)
    assert (same.statistic, same.p_value) == (0.0, 1.0)
    shifted = paired_t_test(x + 0.25, x)
    assert shifted.statistic == math.inf
    assert shifted.p_value == 0.0
    assert wilcoxon_test(x, x).p_value == 1.0
    assert sign_test(x, x).p_value == 1.0


def test_input_validation_messages() -> None:
    with pytest.raises(ValueError, match="same queries, got 3 and 2 values"):
        paired_t_test([0.1, 0.2, 0.3], [0.1, 0.2])
    with pytest.raises(ValueError, match="at least 2 queries, got 1"):
        paired_t_test([0.1], [0.2])
    with pytest.raises(ValueError, match="must be finite"):
        paired_t_test([0.1, float("nan")], [0.2, 0.3])
    with pytest.raises(ValueError, match="1-d vectors"):
        paired_t_test([[0.1, 0.2]], [[0.2, 0.3]])
    with pytest.raises(OptionError, match="The 'zero_method' option must be one of 'wilcox'"):
        wilcoxon_test([0.1, 0.2], [0.2, 0.3], zero_method="drop")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("k", "df"), [(3, 5), (3, 20), (5, 3), (10, 45), (17, 1584), (12, 462), (4, 1)]
)
def test_studentized_range_matches_scipy(k: int, df: float) -> None:
    q = np.array([0.2, 1.0, 2.5, 3.5, 4.5, 6.0, 9.0])
    np.testing.assert_allclose(
        studentized_range_sf(q, k, df), stats.studentized_range.sf(q, k, df), rtol=0, atol=1e-9
    )


@pytest.mark.parametrize("df", [1, 4, 30, 1000, math.inf])
def test_studentized_range_k2_is_t_distribution(df: float) -> None:
    q = np.linspace(0.01, 12, 200)
    ref = 2 * (stats.t.sf(q / math.sqrt(2), df) if math.isfinite(df) else stats.norm.sf(q / 2**0.5))
    np.testing.assert_allclose(studentized_range_sf(q, 2, df), ref, rtol=0, atol=1e-12)


def test_studentized_range_validation() -> None:
    assert studentized_range_sf(0.0, 3, 10) == 1.0
    with pytest.raises(OptionError, match="The 'k' option must be an integer >= 2, got 1"):
        studentized_range_sf(1.0, 1, 10)
    with pytest.raises(OptionError, match="The 'df' option must be a number > 0, got 0"):
        studentized_range_sf(1.0, 3, 0)


def test_tukey_two_systems_equals_paired_t() -> None:
    x, y = _vectors(3, 40)
    r = tukey_hsd(np.column_stack((x, y)))
    assert r.p_value[0, 1] == pytest.approx(paired_t_test(x, y).p_value, abs=1e-11)
    assert r.statistic[0, 1] == pytest.approx(abs(paired_t_test(x, y).statistic) * math.sqrt(2))


def test_tukey_by_hand_two_way_anova() -> None:
    rng = np.random.default_rng(11)
    n, k = 25, 4
    X = rng.random((n, 1)) + np.array([0.0, 0.05, 0.1, 0.3]) + rng.normal(0, 0.1, (n, k))
    # Two-way ANOVA without replication, computed from the textbook sums of squares.
    grand = X.mean()
    ss_total = ((X - grand) ** 2).sum()
    ss_sys = n * ((X.mean(axis=0) - grand) ** 2).sum()
    ss_query = k * ((X.mean(axis=1) - grand) ** 2).sum()
    mse = (ss_total - ss_sys - ss_query) / ((n - 1) * (k - 1))
    r = tukey_hsd(X)
    for i in range(k):
        for j in range(i + 1, k):
            q = abs(X[:, i].mean() - X[:, j].mean()) / math.sqrt(mse / n)
            assert r.statistic[i, j] == pytest.approx(q, rel=1e-12)
            assert r.p_value[i, j] == pytest.approx(
                stats.studentized_range.sf(q, k, (n - 1) * (k - 1)), abs=1e-9
            )
    assert (np.diag(r.p_value) == 1).all()
    np.testing.assert_array_equal(r.p_value, r.p_value.T)


def test_tukey_additive_scores() -> None:
    # Exactly additive scores: no residual variance; differences are certain.
    X = np.add.outer(np.linspace(0, 0.5, 6), [0.0, 0.0, 0.25])
    r = tukey_hsd(X)
    assert r.p_value[0, 1] == 1.0
    assert r.p_value[0, 2] == 0.0
