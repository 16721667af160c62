"""Effect sizes and intervals for paired per-query differences.

Everything is vectorised over the columns of a ``(queries, pairs)`` matrix of differences
``d = treatment - control``; the public functions wrap one pair.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal, get_args

import numpy as np

from cranfield._deprecation import renamed_parameters
from cranfield._validate import check_choice, check_float, check_int
from cranfield.stats.paired import as_pair, flat_differences
from cranfield.stats.resampling import (
    RngLike,
    bootstrap_analysis,
    bootstrap_sums,
    check_rng,
    resolve_seed,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["INTERVALS", "Effects", "Interval", "confidence_interval", "effect_sizes", "georisk"]

Interval = Literal["t", "percentile", "bca"]
INTERVALS: Final[tuple[str, ...]] = get_args(Interval)


def t_intervals(d: NDArray[np.float64], alpha: float) -> NDArray[np.float64]:
    """``(pairs, 2)`` t-based ``1 - alpha`` intervals of the mean of each column of ``d``."""
    from scipy import special

    n = d.shape[0]
    mean = d.mean(axis=0)
    half = special.stdtrit(n - 1, 1.0 - alpha / 2.0) * d.std(axis=0, ddof=1) / math.sqrt(n)
    return np.column_stack((mean - half, mean + half))


def cohens_dz(d: NDArray[np.float64], scale: NDArray[np.float64]) -> NDArray[np.float64]:
    """Cohen's d for paired data, ``mean(d) / sd(d)``; 0 for no change, ±inf for a constant shift.

    ``scale`` is each pair's largest absolute score (see ``flat_differences``).
    """
    mean = d.mean(axis=0)
    sd = d.std(axis=0, ddof=1)
    constant, zero = flat_differences(d, scale)
    safe = np.where(constant, 1.0, sd)
    return np.where(constant, np.where(zero, 0.0, np.copysign(np.inf, mean)), mean / safe)


def win_tie_loss(d: NDArray[np.float64]) -> tuple[NDArray[np.int64], ...]:
    """Per column: queries improved (``d > 0``), tied (``d == 0``), hurt (``d < 0``)."""
    return (
        (d > 0).sum(axis=0).astype(np.int64),
        (d == 0).sum(axis=0).astype(np.int64),
        (d < 0).sum(axis=0).astype(np.int64),
    )


def risk(
    d: NDArray[np.float64], risk_aversion: float, scale: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """URisk and TRisk of each column (treatment relative to control)."""
    r = np.where(d < 0, (1.0 + risk_aversion) * d, d)
    urisk = r.mean(axis=0)
    n = d.shape[0]
    se = r.std(axis=0, ddof=1) / math.sqrt(n)
    constant, zero = flat_differences(r, scale * (1.0 + risk_aversion))
    trisk = np.where(
        constant,
        np.where(zero, 0.0, np.copysign(np.inf, urisk)),
        urisk / np.where(constant, 1.0, se),
    )
    return urisk, trisk


def georisk(scores: ArrayLike, *, risk_aversion: float = 1.0) -> NDArray[np.float64]:
    """GeoRisk of each of a set of systems, each judged against all the others (Dinçer,
    Macdonald & Ounis, SIGIR 2016).

    ``scores`` is ``(systems, queries)``, every system's score on the same ``c`` queries
    (scores >= 0: a measure such as AP or nDCG). With ``x_iq`` the score of system ``i`` on
    query ``q``, ``S_i = Σ_q x_iq``, ``T_q = Σ_i x_iq`` and ``N = Σ_iq x_iq``, the score a
    system would have on the query if it did as it does on average and the query were as hard
    for it as for all is ``e_iq = S_i T_q / N``, and ``z_iq = (x_iq - e_iq) / sqrt(e_iq)``;

    * ``ZRisk_i = Σ_{z_iq >= 0} z_iq + (1 + α) Σ_{z_iq < 0} z_iq`` (``α = risk_aversion``:
      losses against the expectation weigh ``1 + α`` times, as in URisk);
    * ``GeoRisk_i = sqrt(S_i / c · Φ(ZRisk_i / c))``, the geometric mean of the system's mean
      score and the standard normal probability of its normalised ZRisk: higher is better.

    Where ``e_iq = 0`` (a query on which no system scores, or a system that scores 0
    everywhere) ``x_iq = 0`` too and ``z_iq`` is taken as 0.

    Raises
    ------
    OptionError
        For a matrix that is not 2-d with at least two systems and one query, a score that is
        negative or not finite, or a negative ``risk_aversion``.

    References
    ----------
    B. T. Dinçer, C. Macdonald and I. Ounis, "Risk-sensitive evaluation and learning to rank
    using multiple baselines", SIGIR 2016.

    Examples
    --------
    >>> georisk([[0.5, 0.5], [0.5, 0.5]]).tolist()  # alike: sqrt(0.5 * Φ(0))
    [0.5, 0.5]
    """
    from scipy.special import ndtr

    from cranfield.errors import OptionError

    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 1:
        raise OptionError("scores", "a (systems, queries) matrix of two systems or more", x.shape)
    if not np.isfinite(x).all() or (x < 0).any():
        raise OptionError("scores", "finite scores >= 0", "a negative or non-finite score")
    a = check_float("risk_aversion", risk_aversion, minimum=0)
    c = x.shape[1]
    total = x.sum()
    per_system = x.sum(axis=1)
    if total == 0:
        return np.zeros(x.shape[0])
    expected = np.outer(per_system, x.sum(axis=0)) / total
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(expected > 0, (x - expected) / np.sqrt(expected), 0.0)
    zrisk = np.where(z < 0, (1.0 + a) * z, z).sum(axis=1)
    out: NDArray[np.float64] = np.sqrt(per_system / c * ndtr(zrisk / c))
    return out


@dataclass(frozen=True)
class Effects:
    """How large and how consistent the difference ``x - y`` is.

    Attributes
    ----------
    mean_difference:
        ``mean(x - y)``.
    ci_low, ci_high:
        t-based ``1 - alpha`` confidence interval of the mean difference.
    cohens_dz:
        ``mean(d) / sd(d)`` (Cohen's d for paired samples, "d_z"); 0 when nothing changes,
        ``±inf`` when every query changes by the same amount.
    wins, ties, losses:
        Queries with ``x > y``, ``x == y``, ``x < y``.
    improved, hurt:
        ``wins / n`` and ``losses / n``: the robustness of the change.
    urisk, trisk:
        Risk-reward trade-off: ``URisk = mean(r)`` with ``r_i = d_i`` for gains and
        ``(1 + risk_aversion) d_i`` for losses, and ``TRisk = URisk / (sd(r) / sqrt(n))``; a
        TRisk below -2 signals a significant risk of harm.
    """

    mean_difference: float
    ci_low: float
    ci_high: float
    cohens_dz: float
    wins: int
    ties: int
    losses: int
    improved: float
    hurt: float
    urisk: float
    trisk: float


def effect_sizes(
    x: ArrayLike, y: ArrayLike, *, alpha: float = 0.05, risk_aversion: float = 1.0
) -> Effects:
    """Effect size, interval and robustness of the per-query differences ``x - y``.

    Parameters
    ----------
    x, y:
        Per-query scores of two systems on the same queries, in the same order.
    alpha:
        The interval has confidence ``1 - alpha``.
    risk_aversion:
        URisk's weight on losses (``alpha`` in [1]_; 0 makes URisk the mean difference).

    Returns
    -------
    Effects

    Notes
    -----
    A query counts as a tie only when both scores are exactly equal. URisk and TRisk follow
    [1]_ and [2]_ with ``x`` as the new system and ``y`` as the baseline.

    References
    ----------
    .. [1] L. Wang, P. N. Bennett and K. Collins-Thompson, "Robust ranking models via
       risk-sensitive optimization", SIGIR 2012.
    .. [2] B. T. Dinçer, C. Macdonald and I. Ounis, "Hypothesis testing for the risk-sensitive
       evaluation of retrieval systems", SIGIR 2014.

    Examples
    --------
    >>> from cranfield.stats import effect_sizes
    >>> e = effect_sizes([0.5, 0.7, 0.2, 0.9, 0.3], [0.4, 0.5, 0.3, 0.6, 0.3])
    >>> e.wins, e.ties, e.losses, round(e.mean_difference, 3), round(e.cohens_dz, 3)
    (3, 1, 1, 0.1, 0.632)
    >>> round(e.urisk, 3)
    0.08
    """
    al = check_float("alpha", alpha, minimum=0, maximum=1, above=True, below=True)
    ra = check_float("risk_aversion", risk_aversion, minimum=0)
    a, b = as_pair(x, y)
    d = (a - b)[:, None]
    scale = np.array([max(np.abs(a).max(), np.abs(b).max())])
    ci = t_intervals(d, al)[0]
    w, t, lo = (int(v[0]) for v in win_tie_loss(d))
    u, tr = risk(d, ra, scale)
    n = a.size
    return Effects(
        mean_difference=float(d.mean()),
        ci_low=float(ci[0]),
        ci_high=float(ci[1]),
        cohens_dz=float(cohens_dz(d, scale)[0]),
        wins=w,
        ties=t,
        losses=lo,
        improved=w / n,
        hurt=lo / n,
        urisk=float(u[0]),
        trisk=float(tr[0]),
    )


@renamed_parameters(rng="seed")
def confidence_interval(
    x: ArrayLike,
    y: ArrayLike,
    *,
    method: Interval = "t",
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: RngLike = None,
) -> tuple[float, float]:
    """Confidence interval of the mean per-query difference ``mean(x - y)``.

    Parameters
    ----------
    x, y:
        Per-query scores of two systems on the same queries, in the same order.
    method:
        ``"t"`` (Student's t, deterministic), ``"percentile"`` or ``"bca"`` (bootstrap
        percentile and bias-corrected and accelerated intervals from ``n_resamples``
        resamples of the queries).
    confidence:
        Coverage, strictly between 0 and 1.
    n_resamples, seed:
        Bootstrap resamples and their seed or generator (ignored by ``"t"``).

    Returns
    -------
    tuple of float
        ``(low, high)``. A BCa interval is ``(nan, nan)`` when every resample lies on one side
        of the observed mean (the bias correction is then infinite).

    Notes
    -----
    Quantiles interpolate linearly between order statistics. BCa's bias correction is
    ``z0 = Phi^-1((#{theta* < theta} + #{theta* = theta} / 2) / B)`` and its acceleration the
    jackknife value for a mean, ``sum(d_i - mean)^3 / (6 (sum(d_i - mean)^2)^1.5)`` [1]_.
    The resamples are those of :func:`bootstrap_test` for the same ``seed``.

    References
    ----------
    .. [1] B. Efron, "Better bootstrap confidence intervals", JASA 82(397), 1987.

    Examples
    --------
    >>> from cranfield.stats import confidence_interval
    >>> x = [0.50, 0.70, 0.20, 0.90, 0.40, 0.30, 0.80, 0.60]
    >>> y = [0.40, 0.50, 0.30, 0.60, 0.10, 0.30, 0.50, 0.50]
    >>> [round(v, 4) for v in confidence_interval(x, y)]
    [0.0236, 0.2764]
    >>> lo, hi = confidence_interval(x, y, method="bca", seed=0)
    >>> bool(lo < 0.15 < hi)
    True
    """
    check_choice("method", method, INTERVALS)
    alpha = 1.0 - check_float(
        "confidence", confidence, minimum=0, maximum=1, above=True, below=True
    )
    resamples = check_int("n_resamples", n_resamples, minimum=1)
    check_rng(seed)
    a, b = as_pair(x, y)
    if method == "t":
        lo, hi = t_intervals((a - b)[:, None], alpha)[0]
        return float(lo), float(hi)
    X = np.column_stack((a, b))
    sums = bootstrap_sums(X, n_resamples=resamples, seed=resolve_seed(seed))
    _, cis = bootstrap_analysis(
        X, sums, np.array([0]), np.array([1]), alpha=alpha, intervals=(method,)
    )
    lo, hi = cis[method][0]
    return float(lo), float(hi)
