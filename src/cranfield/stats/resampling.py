"""Resampling tests with explicit, reproducible randomness.

Paired randomization (permutation) test, paired bootstrap test, bootstrap confidence
intervals (percentile and BCa) and the randomized Tukey HSD, all vectorised over many pairs of
systems and many measures at once.

Reproducibility contract
------------------------
* Every procedure takes ``seed``: an ``int``, a :class:`numpy.random.Generator` (one
  63-bit seed is drawn from it) or ``None`` (a fresh seed is drawn from the operating system).
  The seed actually used is returned, so any result can be repeated.
* Each procedure draws from its own stream, ``PCG64(SeedSequence(seed, spawn_key=(k,)))``
  with ``k`` = 1 randomization, 2 bootstrap, 3 randomized Tukey HSD, 4 swap-rate splits
  (:mod:`cranfield.stats.discriminative_power`), so asking for one more test or measure
  never changes another test's numbers. Draws happen in order, in blocks whose size depends
  only on the data's shape (:data:`BLOCK` resamples; for the randomized Tukey HSD, about a
  million scores), never on threads or memory.
* Sign flips are whole 64-bit words unpacked little-endian; bootstrap resamples are bounded
  integers; permutations are ``Generator.permuted``. One set of draws serves every pair of
  systems and every measure: the sums are taken per system and differenced afterwards.
* Statistics are accumulated with elementwise IEEE operations in a fixed query order (no BLAS,
  no threads, no pairwise-summation kernels), so they are bit-identical for any thread count
  and on any IEEE-754 platform with the same numpy version (numpy promises the same stream
  for a seed within a version, not across versions).
* A resampled statistic counts as "at least as extreme" as the observed one when it is within a
  tolerance of ``max(1e-10, 16 n eps)`` times the pair's total absolute score mass, so
  differences that are mathematically equal (very common with measures like P@10) are counted
  as ties whatever the rounding of the two sums.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Final

import numpy as np

from cranfield._deprecation import renamed_parameters
from cranfield._validate import check_int
from cranfield.errors import OptionError
from cranfield.stats.paired import MatrixTestResult, TestResult, as_matrix, as_pair

if TYPE_CHECKING:
    from collections.abc import Iterator

    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "BLOCK",
    "RngLike",
    "bootstrap_test",
    "randomization_test",
    "randomized_tukey_hsd",
    "resolve_seed",
]

RngLike = int | np.integer | np.random.Generator | None

BLOCK: Final = 1024
"""Resamples drawn and accumulated together; part of the algorithm (it fixes the stream)."""

MAX_EXACT_QUERIES: Final = 24
"""Largest number of queries for which all ``2**n`` sign assignments may be enumerated."""

_STREAMS: Final = {
    "randomization": 1,
    "bootstrap": 2,
    "randomized-tukey-hsd": 3,
    "swap-rate": 4,
}
_EPS: Final = float(np.finfo(np.float64).eps)


# --------------------------------------------------------------------------- randomness


@renamed_parameters(rng="seed")
def resolve_seed(seed: RngLike) -> int:
    """The integer seed a procedure will use for ``seed``.

    Examples
    --------
    >>> from cranfield.stats import resolve_seed
    >>> resolve_seed(42)
    42
    >>> import numpy as np
    >>> resolve_seed(np.random.default_rng(0)) == resolve_seed(np.random.default_rng(0))
    True
    """
    check_rng(seed)
    if seed is None:
        return secrets.randbits(32)
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63))
    return int(seed)


def check_rng(seed: RngLike) -> None:
    """Raise :class:`~cranfield.errors.OptionError` unless ``seed`` is None, a Generator or a
    non-negative integer."""
    if seed is None or isinstance(seed, np.random.Generator):
        return
    try:
        check_int("seed", seed, minimum=0)
    except OptionError:
        raise OptionError("seed", "an integer >= 0, a numpy Generator or None", seed) from None


def stream(seed: int, procedure: str) -> np.random.Generator:
    """The generator of one procedure (``"randomization"``, ``"bootstrap"``, ...)."""
    seq = np.random.SeedSequence(seed, spawn_key=(_STREAMS[procedure],))
    return np.random.Generator(np.random.PCG64(seq))


def _random_bits(gen: np.random.Generator, rows: int, n: int) -> NDArray[np.uint8]:
    """``rows x n`` independent fair bits from whole 64-bit words, little-endian bit order."""
    words = gen.integers(
        0, np.iinfo(np.uint64).max, size=-(-rows * n // 64), dtype=np.uint64, endpoint=True
    )
    raw = words.astype("<u8").view(np.uint8)
    return np.unpackbits(raw, bitorder="little")[: rows * n].reshape(rows, n)


def _enumerated_bits(start: int, stop: int, n: int) -> NDArray[np.uint8]:
    """Rows ``start..stop-1`` of the table of all ``2**n`` bit vectors (bit i of the row id)."""
    ids = np.arange(start, stop, dtype=np.uint64)[:, None]
    return ((ids >> np.arange(n, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)


def fixed_order_sums(weights: NDArray[np.float64], X: NDArray[np.float64]) -> NDArray[np.float64]:
    """``weights @ X`` summed one query at a time in query order (bit-reproducible)."""
    b = weights.shape[0]
    out = np.zeros((b, X.shape[1]))
    tmp = np.empty_like(out)
    for i in range(X.shape[0]):
        np.multiply(weights[:, i : i + 1], X[i], out=tmp)
        out += tmp
    return out


def sequential_sums(X: NDArray[np.float64]) -> NDArray[np.float64]:
    """Column sums of ``X`` in query order, the same rounding as unit weights above."""
    out: NDArray[np.float64] = fixed_order_sums(np.ones((1, X.shape[0])), X)[0]
    return out


def tolerance(
    X: NDArray[np.float64], ia: NDArray[np.intp], ib: NDArray[np.intp]
) -> NDArray[np.float64]:
    """Absolute tie tolerance for resampled sums of ``X[:, ia] - X[:, ib]``."""
    n = X.shape[0]
    mass = np.abs(X).sum(axis=0)
    out: NDArray[np.float64] = (mass[ia] + mass[ib]) * max(1e-10, 16.0 * n * _EPS)
    return out


# --------------------------------------------------------------------------- randomization


def _sign_blocks(n: int, n_resamples: int, seed: int, exact: bool) -> Iterator[NDArray[np.float64]]:
    """Blocks of sign weights (+1 keep, -1 swap the two systems on that query)."""
    if exact:
        total = 1 << n
        for start in range(0, total, BLOCK):
            bits = _enumerated_bits(start, min(total, start + BLOCK), n)
            yield 1.0 - 2.0 * bits.astype(np.float64)
        return
    gen = stream(seed, "randomization")
    for start in range(0, n_resamples, BLOCK):
        bits = _random_bits(gen, min(BLOCK, n_resamples - start), n)
        yield 1.0 - 2.0 * bits.astype(np.float64)


def randomization_counts(
    X: NDArray[np.float64],
    ia: NDArray[np.intp],
    ib: NDArray[np.intp],
    *,
    n_resamples: int,
    seed: int,
    exact: bool,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Mean differences and two-sided randomization p-values of ``X[:, ia] - X[:, ib]``.

    One set of sign assignments is shared by every pair and every column of ``X``, and the
    sums are taken per system (``sum_i s_i x_i``) and then differenced, so the cost is
    ``O(B n k + B pairs)`` instead of ``O(B n pairs)``. Exact mode enumerates all ``2**n``
    assignments (identity included) and returns ``count / 2**n``; Monte Carlo mode returns
    ``(count + 1) / (B + 1)``.
    """
    n = X.shape[0]
    total = sequential_sums(X)
    observed = total[ia] - total[ib]
    threshold = np.abs(observed) - tolerance(X, ia, ib)
    counts = np.zeros(ia.size, dtype=np.int64)
    for signs in _sign_blocks(n, n_resamples, seed, exact):
        sums = fixed_order_sums(signs, X)
        counts += (np.abs(sums[:, ia] - sums[:, ib]) >= threshold).sum(axis=0)
    denominator = float(1 << n) if exact else n_resamples + 1.0
    p = (counts + (0.0 if exact else 1.0)).astype(np.float64) / denominator
    return observed / n, p


def use_exact(n: int, n_resamples: int, exact: bool | None) -> bool:
    """Whether to enumerate all sign assignments: when asked, or when ``2**n <= n_resamples``."""
    if exact is None:
        return n <= MAX_EXACT_QUERIES and (1 << n) <= n_resamples
    if exact and n > MAX_EXACT_QUERIES:
        raise OptionError(
            "exact",
            f"None or False for {n} queries (enumerating 2**n sign assignments is allowed "
            f"up to {MAX_EXACT_QUERIES})",
            exact,
        )
    return bool(exact)


@renamed_parameters(rng="seed")
def randomization_test(
    x: ArrayLike,
    y: ArrayLike,
    *,
    n_resamples: int = 10_000,
    exact: bool | None = None,
    seed: RngLike = None,
) -> TestResult:
    """Fisher's paired randomization (permutation) test, two-sided, on the mean difference.

    Parameters
    ----------
    x, y:
        Per-query scores of two systems on the same queries, in the same order.
    n_resamples:
        Random sign assignments for the Monte Carlo version.
    exact:
        ``None`` (default): enumerate all ``2**n`` assignments when that is no more than
        ``n_resamples``, else Monte Carlo. ``True`` forces enumeration (``n <= 24``),
        ``False`` forces Monte Carlo.
    seed:
        Seed or generator (see :func:`resolve_seed`); ignored by exact enumeration.

    Returns
    -------
    TestResult
        ``statistic`` is the mean difference ``mean(x - y)``; ``seed`` the seed used.

    Notes
    -----
    Under the null hypothesis the two systems' labels are exchangeable within each query, so
    each difference ``d_i`` is equally likely to have either sign [1]_. The p-value is the
    fraction of sign assignments ``s`` with ``|sum s_i d_i| >= |sum d_i|``. Exact enumeration
    gives it exactly; Monte Carlo counts the observed assignment too,
    ``p = (1 + #{b: |T_b| >= |T|}) / (B + 1)``, so that it is never 0 and the test keeps its
    level [2]_. Queries with ``d_i = 0`` (ties) contribute nothing to any assignment. Because
    the same sign assignments are reused for every pair of systems, a pair's p-value depends
    only on its two score vectors and the seed: it is the same inside
    :func:`cranfield.compare` as here.

    References
    ----------
    .. [1] M. D. Smucker, J. Allan and B. Carterette, "A comparison of statistical significance
       tests for information retrieval evaluation", CIKM 2007.
    .. [2] B. Phipson and G. K. Smyth, "Permutation p-values should never be zero",
       Statistical Applications in Genetics and Molecular Biology 9(1), 2010.

    Examples
    --------
    >>> from cranfield.stats import randomization_test
    >>> x = [0.50, 0.70, 0.20, 0.90, 0.40, 0.30]
    >>> y = [0.40, 0.50, 0.30, 0.60, 0.10, 0.30]
    >>> r = randomization_test(x, y)        # 2**6 = 64 assignments: exact
    >>> round(r.statistic, 4), r.p_value
    (0.1333, 0.1875)
    >>> randomization_test(x, y, exact=False, seed=1).p_value == randomization_test(
    ...     x, y, exact=False, seed=1).p_value
    True
    """
    resamples = check_int("n_resamples", n_resamples, minimum=1)
    seed_used = resolve_seed(seed)
    a, b = as_pair(x, y)
    ex = use_exact(a.size, resamples, exact)
    stat, p = randomization_counts(
        np.column_stack((a, b)),
        np.array([0]),
        np.array([1]),
        n_resamples=resamples,
        seed=seed_used,
        exact=ex,
    )
    return TestResult(float(stat[0]), float(p[0]), None if ex else seed_used)


# --------------------------------------------------------------------------- bootstrap


def bootstrap_sums(X: NDArray[np.float64], *, n_resamples: int, seed: int) -> NDArray[np.float64]:
    """``(B, columns)`` sums of every column over ``B`` resamples of the queries with replacement.

    Resample ``b`` is the multiset of query indices drawn by ``n`` uniform integers; the same
    resamples serve every column (system and measure), so a pair's bootstrap distribution is
    the difference of two columns.
    """
    n = X.shape[0]
    gen = stream(seed, "bootstrap")
    out = np.empty((n_resamples, X.shape[1]))
    for start in range(0, n_resamples, BLOCK):
        b = min(BLOCK, n_resamples - start)
        idx = gen.integers(0, n, size=(b, n))
        flat = (idx + (np.arange(b) * n)[:, None]).ravel()
        counts = np.bincount(flat, minlength=b * n).reshape(b, n).astype(np.float64)
        out[start : start + b] = fixed_order_sums(counts, X)
    return out


def bootstrap_analysis(
    X: NDArray[np.float64],
    sums: NDArray[np.float64],
    ia: NDArray[np.intp],
    ib: NDArray[np.intp],
    *,
    alpha: float,
    intervals: tuple[str, ...],
) -> tuple[NDArray[np.float64], dict[str, NDArray[np.float64]]]:
    """Bootstrap p-values and ``(pairs, 2)`` intervals of the mean of ``X[:, ia] - X[:, ib]``.

    Processes pairs in column blocks so memory stays ``O(B x block)``.
    """
    from scipy import special

    n = X.shape[0]
    B = sums.shape[0]
    total = sequential_sums(X)
    observed = total[ia] - total[ib]
    tol = tolerance(X, ia, ib)
    p = np.empty(ia.size)
    out = {name: np.empty((ia.size, 2)) for name in intervals}
    z_lo, z_hi = special.ndtri(alpha / 2.0), special.ndtri(1.0 - alpha / 2.0)
    block = max(1, (1 << 22) // max(B, 1))
    for start in range(0, ia.size, block):
        sl = slice(start, min(ia.size, start + block))
        theta = sums[:, ia[sl]] - sums[:, ib[sl]]  # resampled sums of differences
        obs = observed[sl]
        t = tol[sl]
        extreme = np.abs(theta - obs) >= np.abs(obs) - t
        p[sl] = (extreme.sum(axis=0) + 1.0) / (B + 1.0)
        if not intervals:
            continue
        ordered = np.sort(theta, axis=0)
        if "percentile" in intervals:
            lo = _quantile_sorted(ordered, np.full(obs.size, alpha / 2.0))
            hi = _quantile_sorted(ordered, np.full(obs.size, 1.0 - alpha / 2.0))
            out["percentile"][sl] = np.column_stack((lo, hi)) / n
        if "bca" in intervals:
            below = (theta < obs - t).sum(axis=0)
            equal = (np.abs(theta - obs) <= t).sum(axis=0)
            share = (below + 0.5 * equal) / B
            d = X[:, ia[sl]] - X[:, ib[sl]]
            dc = d - d.mean(axis=0)
            ss = (dc * dc).sum(axis=0)
            with np.errstate(divide="ignore", invalid="ignore"):
                accel = np.where(ss > 0, (dc**3).sum(axis=0) / (6.0 * ss**1.5), 0.0)
                z0 = special.ndtri(share)
                a1 = special.ndtr(z0 + (z0 + z_lo) / (1.0 - accel * (z0 + z_lo)))
                a2 = special.ndtr(z0 + (z0 + z_hi) / (1.0 - accel * (z0 + z_hi)))
            ok = np.isfinite(a1) & np.isfinite(a2) & (share > 0) & (share < 1)
            lo = np.full(obs.size, np.nan)
            hi = np.full(obs.size, np.nan)
            if ok.any():
                lo[ok] = _quantile_sorted(ordered[:, ok], a1[ok])
                hi[ok] = _quantile_sorted(ordered[:, ok], a2[ok])
            out["bca"][sl] = np.column_stack((lo, hi)) / n
    return p, out


def _quantile_sorted(
    ordered: NDArray[np.float64], probs: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Per-column quantile (linear interpolation, numpy's default) of column-sorted data."""
    B = ordered.shape[0]
    h = (B - 1) * np.clip(probs, 0.0, 1.0)
    lo = np.floor(h).astype(np.intp)
    hi = np.minimum(lo + 1, B - 1)
    cols = np.arange(ordered.shape[1])
    a = ordered[lo, cols]
    out: NDArray[np.float64] = a + (h - lo) * (ordered[hi, cols] - a)
    return out


@renamed_parameters(rng="seed")
def bootstrap_test(
    x: ArrayLike, y: ArrayLike, *, n_resamples: int = 10_000, seed: RngLike = None
) -> TestResult:
    """Paired bootstrap test (two-sided) of a zero mean difference.

    Parameters
    ----------
    x, y:
        Per-query scores of two systems on the same queries, in the same order.
    n_resamples:
        Bootstrap resamples of the queries.
    seed:
        Seed or generator (see :func:`resolve_seed`).

    Returns
    -------
    TestResult
        ``statistic`` is the mean difference ``mean(x - y)``; ``seed`` the seed used.

    Notes
    -----
    The shift method [1]_: the differences are centred on zero to impose the null hypothesis,
    ``B`` resamples of the queries (with replacement) are drawn, and
    ``p = (1 + #{b: |mean(d*_b) - mean(d)| >= |mean(d)|}) / (B + 1)``. The statistic is the
    plain mean (not studentized), which keeps it linear in the scores so that all pairs of many
    systems share one set of resamples. Ties (zero differences) are ordinary values.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall,
       1993, chapter 16.

    Examples
    --------
    >>> from cranfield.stats import bootstrap_test
    >>> x = [0.50, 0.70, 0.20, 0.90, 0.40, 0.30, 0.80, 0.60]
    >>> y = [0.40, 0.50, 0.30, 0.60, 0.10, 0.30, 0.50, 0.50]
    >>> r = bootstrap_test(x, y, seed=7)
    >>> round(r.statistic, 4), r.p_value < 0.05
    (0.15, True)
    """
    resamples = check_int("n_resamples", n_resamples, minimum=1)
    seed_used = resolve_seed(seed)
    a, b = as_pair(x, y)
    X = np.column_stack((a, b))
    sums = bootstrap_sums(X, n_resamples=resamples, seed=seed_used)
    ia, ib = np.array([0]), np.array([1])
    p, _ = bootstrap_analysis(X, sums, ia, ib, alpha=0.05, intervals=())
    total = sequential_sums(X)
    return TestResult(float((total[0] - total[1]) / a.size), float(p[0]), seed_used)


# --------------------------------------------------------------------------- randomized Tukey


def randomized_tukey_ranges(
    cubes: list[NDArray[np.float64]], *, n_resamples: int, seed: int
) -> NDArray[np.float64]:
    """``(measures, B)`` ranges ``max_j S*_j - min_j S*_j`` of permuted per-system sums.

    In each resample every query's ``k`` scores are shuffled among the ``k`` systems
    (one uniform permutation per query, shared by all measures).
    """
    n, k = cubes[0].shape
    gen = stream(seed, "randomized-tukey-hsd")
    out = np.empty((len(cubes), n_resamples))
    # Resamples are drawn in sub-blocks whose size depends only on (n, k), in order.
    sub = max(1, (1 << 20) // (n * k))
    labels = np.broadcast_to(np.arange(k, dtype=np.int16 if k < 2**15 else np.int64), (sub, n, k))
    for start in range(0, n_resamples, sub):
        b = min(sub, n_resamples - start)
        perm = gen.permuted(labels[:b], axis=2).astype(np.intp)
        for m, X in enumerate(cubes):
            vals = np.take_along_axis(np.broadcast_to(X, (b, n, k)), perm, axis=2)
            acc = np.zeros((b, k))
            for i in range(n):
                acc += vals[:, i, :]
            out[m, start : start + b] = acc.max(axis=1) - acc.min(axis=1)
    return out


def randomized_tukey_pvalues(
    X: NDArray[np.float64],
    ranges: NDArray[np.float64],
    ia: NDArray[np.intp],
    ib: NDArray[np.intp],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Mean differences and single-step randomized-Tukey p-values for pairs of columns."""
    n = X.shape[0]
    total = sequential_sums(X)
    observed = total[ia] - total[ib]
    mass = np.abs(X).sum(axis=0).max()
    threshold = np.abs(observed) - 2.0 * mass * max(1e-10, 16.0 * n * _EPS)
    ordered = np.sort(ranges)
    count = ordered.size - np.searchsorted(ordered, threshold, side="left")
    return observed / n, (count + 1.0) / (ordered.size + 1.0)


@renamed_parameters(rng="seed")
def randomized_tukey_hsd(
    scores: ArrayLike, *, n_resamples: int = 10_000, seed: RngLike = None
) -> MatrixTestResult:
    """Randomized Tukey HSD: all pairs of systems, family-wise error controlled by permutation.

    Parameters
    ----------
    scores:
        ``(queries, systems)`` matrix of per-query scores.
    n_resamples:
        Random permutations.
    seed:
        Seed or generator (see :func:`resolve_seed`).

    Returns
    -------
    MatrixTestResult
        ``statistic[i, j]`` is the mean difference ``mean_i - mean_j``; ``p_value[i, j]`` is
        ``(1 + #{b: max_s mean*_s - min_s mean*_s >= |mean_i - mean_j|}) / (B + 1)``.

    Notes
    -----
    Each resample shuffles every query's scores among all ``k`` systems and records the range
    of the system means; comparing every pair with the distribution of that maximum controls
    the family-wise error rate over all pairs without assuming normality [1]_ [2]_.

    References
    ----------
    .. [1] B. Carterette, "Multiple testing in statistical analysis of systems-based
       information retrieval experiments", ACM TOIS 30(1), 2012.
    .. [2] T. Sakai, *Laboratory Experiments in Information Retrieval*, Springer, 2018, §4.

    Examples
    --------
    >>> from cranfield.stats import randomized_tukey_hsd
    >>> s = [[0.5, 0.4, 0.1], [0.7, 0.5, 0.2], [0.2, 0.3, 0.1], [0.9, 0.6, 0.3], [0.6, 0.6, 0.2]]
    >>> r = randomized_tukey_hsd(s, n_resamples=2000, seed=3)
    >>> bool(r.p_value[0, 2] < 0.05), bool(r.p_value[0, 1] > 0.05)
    (True, True)
    """
    resamples = check_int("n_resamples", n_resamples, minimum=1)
    seed_used = resolve_seed(seed)
    m = as_matrix(scores)
    k = m.shape[1]
    ia, ib = np.triu_indices(k, 1)
    ranges = randomized_tukey_ranges([m], n_resamples=resamples, seed=seed_used)[0]
    stat, p = randomized_tukey_pvalues(m, ranges, ia, ib)
    sm = np.zeros((k, k))
    pm = np.ones((k, k))
    sm[ia, ib], sm[ib, ia] = stat, -stat
    pm[ia, ib] = pm[ib, ia] = p
    return MatrixTestResult(sm, pm, seed_used)
