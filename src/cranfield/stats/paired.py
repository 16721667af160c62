"""Classical paired tests on per-query scores: t-test, Wilcoxon, sign test, Tukey HSD.

Every function here is deterministic (no randomness). The public functions take two aligned
vectors ``x`` and ``y`` (one value per query, same query order) and test whether their mean
(or median) difference ``x - y`` is zero; the ``_pairs`` helpers do the same for many pairs of
columns of one ``(queries, systems)`` matrix at once and are what :func:`cranfield.compare` uses.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal, get_args

import numpy as np

from cranfield._validate import check_choice, check_float, check_int

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "MatrixTestResult",
    "TestResult",
    "paired_t_test",
    "sign_test",
    "studentized_range_sf",
    "tukey_hsd",
    "wilcoxon_test",
]

WilcoxonZeros = Literal["wilcox", "pratt", "zsplit"]
ZERO_METHODS: Final[tuple[str, ...]] = get_args(WilcoxonZeros)


@dataclass(frozen=True)
class TestResult:
    """Outcome of one two-sided paired test.

    Attributes
    ----------
    statistic:
        The test's statistic (see each test for its definition).
    p_value:
        Two-sided p-value, never NaN.
    seed:
        The integer seed that reproduces a randomized test (``None`` for deterministic tests).
    """

    __test__ = False  # not a pytest test class

    statistic: float
    p_value: float
    seed: int | None = None


@dataclass(frozen=True)
class MatrixTestResult:
    """Outcome of an all-pairs test over ``k`` systems.

    Attributes
    ----------
    statistic:
        ``(k, k)`` matrix of statistics (``statistic[i, j]`` compares system ``i`` with ``j``).
    p_value:
        ``(k, k)`` matrix of p-values adjusted for all ``k (k - 1) / 2`` pairs; 1 on the diagonal.
    seed:
        The integer seed that reproduces a randomized test (``None`` for deterministic tests).
    """

    statistic: NDArray[np.float64]
    p_value: NDArray[np.float64]
    seed: int | None = None


def as_pair(x: ArrayLike, y: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Check two aligned per-query vectors; raise ``ValueError`` naming the problem."""
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(
            f"x and y must be 1-d vectors of per-query scores, got shapes {a.shape} and {b.shape}."
        )
    if a.size != b.size:
        raise ValueError(f"x and y must score the same queries, got {a.size} and {b.size} values.")
    if a.size < 2:
        raise ValueError(f"a paired test needs at least 2 queries, got {a.size}.")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("x and y must be finite; a NaN or infinite score cannot be tested.")
    return a, b


def as_matrix(scores: ArrayLike) -> NDArray[np.float64]:
    """Check a ``(queries, systems)`` matrix; raise ``ValueError`` naming the problem."""
    m = np.asarray(scores, dtype=np.float64)
    if m.ndim != 2:
        raise ValueError(f"scores must be a (queries, systems) matrix, got shape {m.shape}.")
    if m.shape[0] < 2 or m.shape[1] < 2:
        raise ValueError(f"scores must have at least 2 queries and 2 systems, got shape {m.shape}.")
    if not np.isfinite(m).all():
        raise ValueError("scores must be finite; a NaN or infinite score cannot be tested.")
    return m


_EPS: Final = float(np.finfo(np.float64).eps)


def flat_differences(
    d: NDArray[np.float64], scale: NDArray[np.float64]
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Per column of ``d`` (queries x pairs): are all differences equal up to rounding, and is
    that common difference zero up to rounding?

    ``scale`` is the largest absolute score of each pair; differences of scores that large are
    exact to about ``eps * scale``, so a spread below ``16 eps scale`` is rounding noise (e.g.
    ``(x + 0.25) - x`` on every query), where a t statistic would be noise over noise.
    """
    tol = 16.0 * _EPS * scale
    constant = (d.max(axis=0) - d.min(axis=0)) <= tol
    zero = np.abs(d.mean(axis=0)) <= tol
    return constant, zero


def pair_scale(
    X: NDArray[np.float64], ia: NDArray[np.intp], ib: NDArray[np.intp]
) -> NDArray[np.float64]:
    """Largest absolute score of each pair of columns."""
    top = np.abs(X).max(axis=0)
    out: NDArray[np.float64] = np.maximum(top[ia], top[ib])
    return out


# --------------------------------------------------------------------------- t-test


def t_test_pairs(
    X: NDArray[np.float64], ia: NDArray[np.intp], ib: NDArray[np.intp]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Paired t statistics and p-values of ``X[:, ia] - X[:, ib]`` for every pair at once.

    Non-degenerate pairs go to :func:`scipy.stats.ttest_rel` (one row per pair, so the numbers
    are bit-identical to calling it on the two vectors); pairs whose differences are all equal
    get ``t = 0, p = 1`` when the difference is 0 and ``t = ±inf, p = 0`` otherwise.
    """
    from scipy import stats

    a = np.ascontiguousarray(X[:, ia].T)
    b = np.ascontiguousarray(X[:, ib].T)
    constant, zero = flat_differences(X[:, ia] - X[:, ib], pair_scale(X, ia, ib))
    t = np.empty(ia.size)
    p = np.empty(ia.size)
    ok = ~constant
    if ok.any():
        res = stats.ttest_rel(a[ok], b[ok], axis=-1)
        t[ok] = res.statistic
        p[ok] = res.pvalue
    if constant.any():
        shift = (a[constant] - b[constant]).mean(axis=1)
        t[constant] = np.where(zero[constant], 0.0, np.copysign(np.inf, shift))
        p[constant] = np.where(zero[constant], 1.0, 0.0)
    return t, p


def paired_t_test(x: ArrayLike, y: ArrayLike) -> TestResult:
    """Student's paired t-test (two-sided) on per-query scores.

    Parameters
    ----------
    x, y:
        Per-query scores of two systems on the same queries, in the same order.

    Returns
    -------
    TestResult
        ``statistic`` is ``t = mean(d) / (sd(d) / sqrt(n))`` with ``d = x - y``; the p-value
        comes from Student's t distribution with ``n - 1`` degrees of freedom.

    Notes
    -----
    The numbers are those of :func:`scipy.stats.ttest_rel` (and so of ranx and PyTerrier), with
    one difference: when every difference is the same (up to rounding), scipy returns NaN or a
    number made of rounding noise with a warning; here identical systems get ``t = 0, p = 1``
    and a constant non-zero shift gets ``t = ±inf, p = 0``, so that a correction never meets a
    NaN. Queries where both systems score the same stay in the test.

    Examples
    --------
    >>> from cranfield.stats import paired_t_test
    >>> r = paired_t_test([0.5, 0.7, 0.2, 0.9], [0.4, 0.5, 0.3, 0.6])
    >>> round(r.statistic, 4), round(r.p_value, 4)
    (1.4639, 0.2394)
    """
    a, b = as_pair(x, y)
    t, p = t_test_pairs(np.column_stack((a, b)), np.array([0]), np.array([1]))
    return TestResult(float(t[0]), float(p[0]))


# --------------------------------------------------------------------------- Wilcoxon


def wilcoxon_pairs(
    X: NDArray[np.float64],
    ia: NDArray[np.intp],
    ib: NDArray[np.intp],
    zero_method: WilcoxonZeros = "wilcox",
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Wilcoxon signed-rank statistics and p-values for every pair (one scipy call per pair)."""
    from scipy import stats

    w = np.empty(ia.size)
    p = np.empty(ia.size)
    for j, (i_a, i_b) in enumerate(zip(ia.tolist(), ib.tolist(), strict=True)):
        d = X[:, i_a] - X[:, i_b]
        if not d.any():
            w[j], p[j] = 0.0, 1.0
            continue
        res = stats.wilcoxon(d, zero_method=zero_method)
        w[j], p[j] = float(res.statistic), float(res.pvalue)
    return w, p


def wilcoxon_test(
    x: ArrayLike, y: ArrayLike, *, zero_method: WilcoxonZeros = "wilcox"
) -> TestResult:
    """Wilcoxon signed-rank test (two-sided) on per-query scores.

    Parameters
    ----------
    x, y:
        Per-query scores of two systems on the same queries, in the same order.
    zero_method:
        Queries where ``x == y``: ``"wilcox"`` (default, as scipy) drops them, ``"pratt"``
        ranks them and then drops their ranks, ``"zsplit"`` splits their ranks between signs.

    Returns
    -------
    TestResult
        ``statistic`` and ``p_value`` exactly as :func:`scipy.stats.wilcoxon` computes them
        (exact distribution for small samples without ties, normal approximation otherwise;
        tied absolute differences get average ranks).

    Notes
    -----
    When every difference is zero, scipy cannot rank anything; the result is then
    ``statistic = 0, p = 1``.

    Examples
    --------
    >>> from cranfield.stats import wilcoxon_test
    >>> r = wilcoxon_test([0.5, 0.7, 0.2, 0.9, 0.4], [0.4, 0.5, 0.3, 0.6, 0.1])
    >>> r.statistic, r.p_value
    (1.5, 0.1875)
    """
    check_choice("zero_method", zero_method, ZERO_METHODS)
    a, b = as_pair(x, y)
    w, p = wilcoxon_pairs(np.column_stack((a, b)), np.array([0]), np.array([1]), zero_method)
    return TestResult(float(w[0]), float(p[0]))


# --------------------------------------------------------------------------- sign test


def sign_pairs(
    X: NDArray[np.float64], ia: NDArray[np.intp], ib: NDArray[np.intp]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Sign-test statistics (number of queries with ``x > y``) and p-values for every pair."""
    from scipy import special

    d = X[:, ia] - X[:, ib]
    wins = (d > 0).sum(axis=0)
    losses = (d < 0).sum(axis=0)
    n = wins + losses
    low = np.minimum(wins, losses)
    with np.errstate(invalid="ignore"):
        p = np.where(n > 0, np.minimum(1.0, 2.0 * special.bdtr(low, n, 0.5)), 1.0)
    return wins.astype(np.float64), p


def sign_test(x: ArrayLike, y: ArrayLike) -> TestResult:
    """Sign test (two-sided): are improvements and losses equally likely?

    Parameters
    ----------
    x, y:
        Per-query scores of two systems on the same queries, in the same order.

    Returns
    -------
    TestResult
        ``statistic`` is the number of queries with ``x > y``; the p-value is the exact
        two-sided binomial probability ``min(1, 2 P(B <= min(wins, losses)))`` with
        ``B ~ Binomial(wins + losses, 1/2)`` (equal to :func:`scipy.stats.binomtest`).

    Notes
    -----
    Ties (``x == y`` exactly) carry no sign and are left out; with no untied query the
    p-value is 1.

    Examples
    --------
    >>> from cranfield.stats import sign_test
    >>> r = sign_test([0.5, 0.7, 0.2, 0.9, 0.4, 0.3], [0.4, 0.5, 0.3, 0.6, 0.1, 0.3])
    >>> r.statistic, r.p_value
    (4.0, 0.375)
    """
    a, b = as_pair(x, y)
    s, p = sign_pairs(np.column_stack((a, b)), np.array([0]), np.array([1]))
    return TestResult(float(s[0]), float(p[0]))


# --------------------------------------------------------------------------- Tukey HSD

_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(24)
_PANELS: Final = 12
_Z_LIMIT: Final = 9.0
_DF_INFINITE: Final = 1e7
_TABLE_POINTS: Final = 6001


def _composite_nodes(lo: float, hi: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Nodes and weights of a 12-panel, 24-point composite Gauss–Legendre rule on [lo, hi]."""
    edges = np.linspace(lo, hi, _PANELS + 1)
    half = np.diff(edges)[:, None] / 2.0
    mid = (edges[:-1, None] + edges[1:, None]) / 2.0
    return (mid + half * _GL_NODES).ravel(), (half * _GL_WEIGHTS).ravel()


def _phi(x: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


@functools.lru_cache(maxsize=32)
def _range_table(k: int) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    """``P(R_k > w)`` and its derivative on a uniform grid of ``w`` in ``[0, w_max]``.

    ``R_k`` is the range of ``k`` standard normals; with the minimum at ``z - w`` and the
    others within ``[z - w, z]``, ``P(R_k <= w) = k ∫ phi(z) (Phi(z) - Phi(z - w))^(k-1) dz``
    (integrated over the position ``z`` of the maximum), and the derivative has
    ``-k (k - 1) ∫ phi(z) phi(z - w) (Phi(z) - Phi(z - w))^(k-2) dz``. Beyond ``w_max``
    the probability is below 1e-17.
    """
    from scipy import special

    z, zw = _composite_nodes(-_Z_LIMIT, _Z_LIMIT)
    zphi = zw * _phi(z)
    zcdf = special.ndtr(z)
    w_max = 2.0 * (math.sqrt(2.0 * math.log(k)) + 9.0)
    grid = np.linspace(0.0, w_max, _TABLE_POINTS)
    values = np.empty(grid.size)
    slopes = np.empty(grid.size)
    for part in np.array_split(np.arange(grid.size), 16):
        shifted = z - grid[part, None]
        inner = np.clip(zcdf - special.ndtr(shifted), 0.0, 1.0)
        power = inner ** (k - 2) if k > 2 else np.ones_like(inner)
        values[part] = 1.0 - k * ((power * inner) @ zphi)
        slopes[part] = -k * (k - 1) * ((power * _phi(shifted)) @ zphi)
    return w_max, np.clip(values, 0.0, 1.0), slopes


def _range_sf(w: NDArray[np.float64], k: int) -> NDArray[np.float64]:
    """``P(R_k > w)`` by cubic Hermite interpolation of :func:`_range_table` (error < 1e-12)."""
    w_max, values, slopes = _range_table(k)
    h = w_max / (values.size - 1)
    x = np.clip(w, 0.0, w_max) / h
    j = np.minimum(np.floor(x).astype(np.intp), values.size - 2)
    t = x - j
    t2 = t * t
    t3 = t2 * t
    out = (
        (2 * t3 - 3 * t2 + 1) * values[j]
        + (t3 - 2 * t2 + t) * h * slopes[j]
        + (-2 * t3 + 3 * t2) * values[j + 1]
        + (t3 - t2) * h * slopes[j + 1]
    )
    return np.where(w >= w_max, 0.0, np.clip(out, 0.0, 1.0))


def studentized_range_sf(q: ArrayLike, k: int, df: float) -> NDArray[np.float64]:
    """Survival function of the studentized range distribution, vectorised over ``q``.

    Parameters
    ----------
    q:
        Values of the studentized range statistic (any shape).
    k:
        Number of groups (systems), at least 2.
    df:
        Degrees of freedom of the variance estimate (``math.inf`` for a known variance).

    Returns
    -------
    numpy.ndarray
        ``P(Q > q)``, same shape as ``q``.

    Notes
    -----
    ``P(Q > q) = E_s[P(R_k > q s)]`` where ``R_k`` is the range of ``k`` standard normals and
    ``s = sqrt(chi2_df / df)``. ``P(R_k > w)`` and its derivative are integrated once per ``k``
    on a fine grid with a fixed composite Gauss–Legendre rule and interpolated by cubic
    Hermite polynomials; the expectation over ``s`` uses the same rule. Nothing is adaptive,
    so the result is deterministic and fast for thousands of pairs (scipy's
    :func:`scipy.stats.studentized_range` integrates adaptively per value and takes seconds
    for a hundred). The absolute error against scipy is below ``1e-12``; with ``k = 2``,
    ``P(Q > q)`` equals the two-sided t-test p-value of ``q / sqrt(2)``.

    Examples
    --------
    >>> from cranfield.stats import studentized_range_sf
    >>> float(studentized_range_sf(3.5, 3, 20).round(4))
    0.0559
    """
    k = check_int("k", k, minimum=2)
    if df != math.inf:
        check_float("df", df, minimum=0, above=True)
    qs = np.asarray(q, dtype=np.float64)
    flat = qs.ravel()
    out = np.ones(flat.size)
    pos = flat > 0
    vals = flat[pos]
    if vals.size:
        if df >= _DF_INFINITE:
            res = _range_sf(vals, int(k))
        else:
            from scipy import special

            lo = math.sqrt(float(special.chdtri(df, 1.0 - 1e-15)) / df)
            hi = math.sqrt(float(special.chdtri(df, 1e-15)) / df)
            s, sw = _composite_nodes(lo, hi)
            log_f = (
                math.log(2.0)
                + (df / 2.0) * math.log(df / 2.0)
                - special.gammaln(df / 2.0)
                + (df - 1.0) * np.log(s)
                - df * s * s / 2.0
            )
            weights = sw * np.exp(log_f)
            weights /= weights.sum()
            res = _range_sf(vals[:, None] * s[None, :], int(k)) @ weights
        out[pos] = np.clip(res, 0.0, 1.0)
    return out.reshape(qs.shape)


def tukey_pairs(
    X: NDArray[np.float64], ia: NDArray[np.intp], ib: NDArray[np.intp]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two-way (systems x queries) Tukey HSD q statistics and p-values for some pairs of columns.

    All columns of ``X`` form the family (``k = X.shape[1]``) even when only some pairs are
    reported.
    """
    n, k = X.shape
    row = X.mean(axis=1, keepdims=True)
    col = X.mean(axis=0, keepdims=True)
    resid = X - row - col + X.mean()
    df = (n - 1) * (k - 1)
    mse = float((resid * resid).sum()) / df
    diff = X[:, ia].mean(axis=0) - X[:, ib].mean(axis=0)
    scale = math.sqrt(mse / n)
    level = 1e-13 * max(1.0, float(np.abs(X).max()))
    if scale <= level:
        # Scores are additive (system effect + query effect) up to rounding: every difference
        # between systems is the same on every query, so it is either 0 or certain.
        zero = np.abs(diff) <= level
        return np.where(zero, 0.0, np.inf), np.where(zero, 1.0, 0.0)
    q = np.abs(diff) / scale
    return q, studentized_range_sf(q, k, df)


def tukey_hsd(scores: ArrayLike) -> MatrixTestResult:
    """Tukey's honestly significant difference test for all pairs of systems, blocked by query.

    Parameters
    ----------
    scores:
        ``(queries, systems)`` matrix of per-query scores.

    Returns
    -------
    MatrixTestResult
        ``statistic[i, j] = |mean_i - mean_j| / sqrt(MSE / n)`` and its p-value from the
        studentized range distribution with ``k`` groups and ``(n - 1)(k - 1)`` degrees of
        freedom, already adjusted for all pairs.

    Notes
    -----
    ``MSE`` is the residual mean square of the two-way ANOVA without interaction
    (systems x queries), the design of IR test collections [1]_. This differs from
    :func:`scipy.stats.tukey_hsd` (and ranx), which ignore the pairing by query. With two
    systems the p-value equals the paired t-test's.

    References
    ----------
    .. [1] B. Carterette, "Multiple testing in statistical analysis of systems-based
       information retrieval experiments", ACM TOIS 30(1), 2012.

    Examples
    --------
    >>> from cranfield.stats import tukey_hsd
    >>> r = tukey_hsd([[0.5, 0.4, 0.1], [0.7, 0.5, 0.2], [0.2, 0.3, 0.1], [0.9, 0.6, 0.3]])
    >>> r.p_value.round(3).tolist()
    [[1.0, 0.336, 0.006], [0.336, 1.0, 0.033], [0.006, 0.033, 1.0]]
    """
    m = as_matrix(scores)
    k = m.shape[1]
    ia, ib = np.triu_indices(k, 1)
    q, p = tukey_pairs(m, ia, ib)
    stat = np.zeros((k, k))
    pm = np.ones((k, k))
    stat[ia, ib] = stat[ib, ia] = q
    pm[ia, ib] = pm[ib, ia] = p
    return MatrixTestResult(stat, pm)
