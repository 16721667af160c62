"""Randomization, bootstrap and randomized Tukey tests: exactness, Monte Carlo error, coverage."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from cranfield.errors import OptionError
from cranfield.stats import (
    bootstrap_test,
    compare_scores,
    confidence_interval,
    randomization_test,
    randomized_tukey_hsd,
    resolve_seed,
    tukey_hsd,
)
from cranfield.stats.resampling import bootstrap_analysis, bootstrap_sums


def _brute_force_p(d: list[Fraction]) -> Fraction:
    """Exact two-sided randomization p-value by enumerating every sign vector in rationals."""
    observed = abs(sum(d))
    hits = sum(
        abs(sum(s * v for s, v in zip(signs, d, strict=True))) >= observed
        for signs in itertools.product((1, -1), repeat=len(d))
    )
    return Fraction(hits, 2 ** len(d))


@pytest.mark.parametrize("seed", range(6))
def test_exact_enumeration_equals_brute_force_with_ties(seed: int) -> None:
    # P@10-like scores: tenths, so many differences tie or cancel exactly (in decimal).
    rng = np.random.default_rng(seed)
    xk = rng.integers(0, 11, 10)
    yk = np.clip(xk + rng.integers(-3, 4, 10), 0, 10)
    r = randomization_test(xk / 10, yk / 10)
    assert r.seed is None  # 2**10 <= 10,000: enumerated
    expected = _brute_force_p([Fraction(int(a) - int(b), 10) for a, b in zip(xk, yk, strict=True)])
    assert r.p_value == float(expected)


@pytest.mark.parametrize("seed", range(4))
def test_exact_enumeration_equals_brute_force_continuous(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    x = rng.random(11)
    y = np.clip(x + rng.normal(0.05, 0.1, 11), 0, 1)
    x[3] = y[3]  # one exact zero difference
    r = randomization_test(x, y)
    expected = _brute_force_p([Fraction(a) - Fraction(b) for a, b in zip(x, y, strict=True)])
    assert r.p_value == float(expected)


def _integer_exact_p(k: np.ndarray) -> float:
    """Exact p for differences k/10 with integer arithmetic (no rounding at all)."""
    n = k.size
    ids = np.arange(2**n, dtype=np.int64)[:, None]
    signs = 1 - 2 * ((ids >> np.arange(n)) & 1)
    sums = signs @ k.astype(np.int64)
    return float((np.abs(sums) >= abs(k.sum())).mean())


def test_monte_carlo_within_error_of_exact() -> None:
    rng = np.random.default_rng(7)
    n = 18
    xk = rng.integers(0, 11, n)
    yk = np.clip(xk + rng.integers(-4, 5, n) + (rng.random(n) < 0.3), 0, 10)
    x, y = xk / 10, yk / 10
    exact = _integer_exact_p(xk - yk)
    assert randomization_test(x, y, exact=True).p_value == exact
    assert 0.02 < exact < 0.5  # a p-value where Monte Carlo error matters
    B = 10_000
    for seed in (1, 2, 3):
        mc = randomization_test(x, y, n_resamples=B, seed=seed)
        assert mc.seed == seed
        assert abs(mc.p_value - exact) <= 4 * math.sqrt(exact * (1 - exact) / B) + 1 / B


def test_plus_one_correction_never_zero() -> None:
    x = np.linspace(0.5, 0.9, 30)
    y = x - 0.2
    r = randomization_test(x, y, n_resamples=999, seed=0)
    assert r.p_value == 1 / 1000


def test_exact_is_automatic_only_when_cheaper() -> None:
    rng = np.random.default_rng(0)
    x13, y13 = rng.random(13), rng.random(13)
    assert randomization_test(x13, y13, n_resamples=10_000).seed is None  # 8192 <= 10000
    assert randomization_test(x13, y13, n_resamples=8_000, seed=1).seed == 1  # Monte Carlo
    x14, y14 = rng.random(14), rng.random(14)
    assert randomization_test(x14, y14, seed=4).seed == 4
    with pytest.raises(
        OptionError, match=r"The 'exact' option must be None or False for 25 queries .* up to 24\)"
    ):
        randomization_test(rng.random(25), rng.random(25), exact=True)


def test_same_seed_same_p_and_generators() -> None:
    rng = np.random.default_rng(3)
    x, y = rng.random(40), rng.random(40)
    a = randomization_test(x, y, seed=123)
    b = randomization_test(x, y, seed=123)
    assert a == b
    g1 = randomization_test(x, y, seed=np.random.default_rng(9))
    g2 = randomization_test(x, y, seed=np.random.default_rng(9))
    assert g1 == g2
    # The seed drawn from the generator reproduces the result as a plain integer.
    assert g1.seed is not None
    assert randomization_test(x, y, seed=g1.seed) == g1
    fresh = randomization_test(x, y)
    assert fresh.seed is not None
    assert randomization_test(x, y, seed=fresh.seed) == fresh


def test_seed_validation() -> None:
    with pytest.raises(ValueError, match="The 'seed' option must be an integer >= 0, a numpy"):
        resolve_seed(-1)
    with pytest.raises(ValueError, match="a numpy Generator or None, got '42'"):
        resolve_seed("42")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="The 'seed' option must be"):
        resolve_seed(True)
    with pytest.raises(ValueError, match="The 'n_resamples' option must be an integer >= 1, got 0"):
        randomization_test([0.1, 0.2, 0.3], [0.2, 0.1, 0.0], n_resamples=0, exact=False)


def test_bootstrap_test_detects_and_accepts() -> None:
    rng = np.random.default_rng(1)
    x = rng.random(60)
    strong = bootstrap_test(x + 0.05 + rng.normal(0, 0.02, 60), x, seed=2)
    assert strong.p_value == 1 / 10_001
    null = bootstrap_test(x + rng.normal(0, 0.05, 60), x, seed=2)
    assert null.p_value > 0.05
    assert bootstrap_test(x + 0.01, x, seed=5) == bootstrap_test(x + 0.01, x, seed=5)


def test_bootstrap_intervals_cover_true_mean_at_nominal_rate() -> None:
    # 400 simulated query sets of n = 40 skewed differences with known mean 0.05.
    rng = np.random.default_rng(2024)
    n, sets, true_mean = 40, 400, 0.05
    D = rng.exponential(0.1, (n, sets)) - 0.1 + true_mean + rng.normal(0, 0.05, (n, sets))
    X = np.column_stack((D, np.zeros(n)))
    ia, ib = np.arange(sets), np.full(sets, sets)
    sums = bootstrap_sums(X, n_resamples=2_000, seed=11)
    _, cis = bootstrap_analysis(X, sums, ia, ib, alpha=0.05, intervals=("percentile", "bca"))
    for kind in ("percentile", "bca"):
        lo, hi = cis[kind][:, 0], cis[kind][:, 1]
        coverage = float(((lo <= true_mean) & (true_mean <= hi)).mean())
        # Nominal 0.95; the binomial sd of the estimate is about 0.011.
        assert 0.915 <= coverage <= 0.98, (kind, coverage)


def test_bca_agrees_with_scipy() -> None:
    rng = np.random.default_rng(8)
    x = rng.random(50)
    y = np.clip(x + rng.exponential(0.05, 50) - 0.02, 0, 1)
    ours = confidence_interval(y, x, method="bca", n_resamples=40_000, seed=1)
    ref = stats.bootstrap(
        (y - x,), np.mean, method="BCa", n_resamples=40_000, rng=np.random.default_rng(2)
    ).confidence_interval
    width = ref.high - ref.low
    assert ours[0] == pytest.approx(ref.low, abs=0.03 * width)
    assert ours[1] == pytest.approx(ref.high, abs=0.03 * width)
    pct = confidence_interval(y, x, method="percentile", n_resamples=40_000, seed=1)
    ref_pct = stats.bootstrap(
        (y - x,), np.mean, method="percentile", n_resamples=40_000, rng=np.random.default_rng(2)
    ).confidence_interval
    assert pct[0] == pytest.approx(ref_pct.low, abs=0.03 * width)
    assert pct[1] == pytest.approx(ref_pct.high, abs=0.03 * width)


def test_t_interval_matches_scipy() -> None:
    rng = np.random.default_rng(4)
    x, y = rng.random(30), rng.random(30)
    lo, hi = confidence_interval(x, y, confidence=0.9)
    ref = stats.ttest_rel(x, y).confidence_interval(confidence_level=0.9)
    assert lo == pytest.approx(ref.low, rel=1e-12)
    assert hi == pytest.approx(ref.high, rel=1e-12)


def test_randomized_tukey_two_systems_is_a_randomization_test() -> None:
    # With k = 2, shuffling a query's two scores is flipping the sign of its difference.
    rng = np.random.default_rng(12)
    n = 16
    xk = rng.integers(0, 11, n)
    yk = np.clip(xk + rng.integers(-3, 5, n), 0, 10)
    exact = _integer_exact_p(xk - yk)
    r = randomized_tukey_hsd(np.column_stack((xk / 10, yk / 10)), n_resamples=10_000, seed=3)
    assert abs(r.p_value[0, 1] - exact) <= 4 * math.sqrt(exact * (1 - exact) / 10_000) + 1e-4


def test_randomized_tukey_close_to_tukey_hsd_under_the_null() -> None:
    # Under the global null the permutation and normal-theory distributions of the range agree.
    # (With real system effects the randomized version is more conservative: shuffling within a
    # query mixes those effects into its null distribution.)
    rng = np.random.default_rng(21)
    n, k = 50, 5
    X = rng.normal(0, 1, (n, 1)) + rng.normal(0, 0.4, (n, k))
    r = randomized_tukey_hsd(X, n_resamples=5_000, seed=1)
    t = tukey_hsd(X)
    np.testing.assert_allclose(r.p_value, t.p_value, atol=0.025)
    np.testing.assert_array_equal(r.p_value, r.p_value.T)
    assert (np.diag(r.p_value) == 1).all()


def test_randomized_tukey_matches_a_plain_loop() -> None:
    rng = np.random.default_rng(5)
    n, k, B = 20, 4, 3_000
    X = rng.random((n, 1)) + np.array([0.0, 0.05, 0.1, 0.3]) + rng.normal(0, 0.2, (n, k))
    ours = randomized_tukey_hsd(X, n_resamples=B, seed=2).p_value
    g = np.random.default_rng(99)
    sums = X.sum(axis=0)
    observed = np.abs(sums[:, None] - sums[None, :])
    hits = np.zeros((k, k))
    for _ in range(B):
        s = np.array([g.permutation(row) for row in X]).sum(axis=0)
        hits += s.max() - s.min() >= observed - 1e-12
    ref = (hits + 1) / (B + 1)
    iu = np.triu_indices(k, 1)
    for a, b in zip(ours[iu], ref[iu], strict=True):
        assert abs(a - b) <= 4 * math.sqrt(2 * b * (1 - b) / B) + 2 / B


def test_random_procedures_do_not_disturb_each_other() -> None:
    rng = np.random.default_rng(6)
    runs = {f"r{i}": {"AP": rng.random(40), "P@10": rng.integers(0, 11, 40) / 10} for i in range(4)}
    only = compare_scores(runs, tests="randomization", seed=77)
    many = compare_scores(
        {**runs, "extra": {"AP": rng.random(40), "P@10": rng.random(40)}},
        tests=["bootstrap", "randomization", "randomized-tukey-hsd"],
        intervals=["t", "bca"],
        seed=77,
    )
    for p in only.pairs:
        q = many.pair(p.control, p.treatment, p.measure)
        assert q.tests["randomization"].p_value == p.tests["randomization"].p_value
    # ... and equal the stand-alone function on the pair's vectors (treatment vs control).
    p = only.pair("r0", "r2", "P@10")
    x = runs[p.treatment]["P@10"]
    y = runs[p.control]["P@10"]
    assert randomization_test(x, y, seed=77).p_value == p.tests["randomization"].p_value
