"""How many topics a test collection needs: Sakai's topic-set-size design (Sakai 2016).

From the variance of a measure's per-query scores, :func:`topic_set_size` returns the smallest
number of topics ``n`` with which

* a two-sided **paired t-test** at level α detects a difference of at least ``min_d`` between
  two systems with probability (power) at least 1 − β;
* a **one-way ANOVA** over ``m`` systems at level α detects, with power 1 − β, that the best
  and the worst system differ by at least ``min_d`` (the least favourable configuration: the
  other systems at their middle);
* a 100(1 − α)% **confidence interval** of the difference between two systems is expected to be
  at most ``delta`` wide.

The variance is estimated as Sakai does (:func:`residual_variance`): the residual variance
``V_E`` of a two-way ANOVA without replication on the queries × systems scores, the variation
left once the system and the topic effects are taken out. The difference between two systems
on one query then has variance ``σ_t² = 2 V_E``.

Powers are computed exactly with scipy's noncentral t and F distributions (``scipy.stats.nct``,
``scipy.stats.ncf``), not with the normal approximations of Sakai's Excel sheets, so an ``n``
may differ from the sheets' by one where those approximations round the other way.

References
----------
T. Sakai, "Topic set size design", Information Retrieval Journal 19(3), 2016, pp. 256-283.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from cranfield._validate import check_float, check_int
from cranfield.errors import EvaluationError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "DESIGNS",
    "TopicSetSize",
    "anova_power",
    "interval_width",
    "paired_t_power",
    "residual_variance",
    "topic_set_size",
]

DESIGNS: Final = ("paired_t", "anova", "interval")
"""The designs of :class:`TopicSetSize`, in the order they are reported."""

MAX_TOPICS: Final = 1_000_000
"""Largest ``n`` searched; a design needing more reports ``None``."""


def residual_variance(scores: ArrayLike) -> float:
    """Residual variance ``V_E`` of a two-way ANOVA without replication (systems × topics).

    Parameters
    ----------
    scores:
        ``(queries, systems)`` matrix, at least 2 × 2.

    Returns
    -------
    float
        ``Σ (x_ij - x̄_i. - x̄_.j + x̄..)² / ((n - 1)(m - 1))``.

    Examples
    --------
    >>> round(residual_variance([[0.1, 0.3], [0.5, 0.7]]), 12)  # additive: no residual
    0.0
    >>> round(residual_variance([[0.1, 0.3], [0.5, 0.5]]), 4)
    0.01
    """
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise EvaluationError(
            f"a residual variance needs at least 2 queries and 2 systems, got {x.shape}."
        )
    r = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    return float((r * r).sum() / ((x.shape[0] - 1) * (x.shape[1] - 1)))


def paired_t_power(n: int, *, min_d: float, variance: float, alpha: float) -> float:
    """Power of the two-sided paired t-test on ``n`` topics for a true difference ``min_d``
    when one query's difference has variance ``2 * variance`` (noncentral t, exact)."""
    from scipy import stats

    df = n - 1
    lam = math.sqrt(n) * min_d / math.sqrt(2.0 * variance)
    crit = float(stats.t.isf(alpha / 2.0, df))
    return float(stats.nct.sf(crit, df, lam) + stats.nct.cdf(-crit, df, lam))


def anova_power(n: int, *, systems: int, min_d: float, variance: float, alpha: float) -> float:
    """Power of the one-way ANOVA of ``systems`` groups of ``n`` topics when the best and the
    worst system differ by ``min_d``: noncentrality ``n min_d² / (2 variance)`` (exact ncf)."""
    from scipy import stats

    df1, df2 = systems - 1, systems * (n - 1)
    lam = n * min_d * min_d / (2.0 * variance)
    crit = float(stats.f.isf(alpha, df1, df2))
    return float(stats.ncf.sf(crit, df1, df2, lam))


def interval_width(n: int, *, variance: float, alpha: float) -> float:
    """Expected width of the 100(1-α)% t interval of a paired difference on ``n`` topics:
    ``2 t(n-1; α) E[s] / √n`` with ``E[s] = σ_t √(2/(n-1)) Γ(n/2) / Γ((n-1)/2)``."""
    from scipy import special, stats

    df = n - 1
    c = math.sqrt(2.0 / df) * math.exp(special.gammaln(n / 2.0) - special.gammaln(df / 2.0))
    return float(2.0 * stats.t.isf(alpha / 2.0, df) * c * math.sqrt(2.0 * variance / n))


@dataclass(frozen=True)
class TopicSetSize:
    """Topics needed for each design, from one variance.

    Attributes
    ----------
    variance:
        The per-query variance ``σ̂²`` used (``V_E``; a difference has ``2 σ̂²``).
    alpha, beta:
        Level and 1 − power.
    min_d:
        Minimum detectable difference (paired t-test and ANOVA).
    delta:
        Largest expected width of the confidence interval.
    systems:
        Systems ``m`` of the ANOVA.
    topics:
        ``{design: n}`` for :data:`DESIGNS`; ``None`` when more than :data:`MAX_TOPICS`.
    """

    variance: float
    alpha: float
    beta: float
    min_d: float
    delta: float
    systems: int
    topics: dict[str, int | None]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values."""
        return {
            "variance": self.variance,
            "alpha": self.alpha,
            "beta": self.beta,
            "min_d": self.min_d,
            "delta": self.delta,
            "systems": self.systems,
            "topics": dict(self.topics),
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text, ending in a newline (same inputs and seed, same
        bytes)."""
        check_int("indent", indent, minimum=0, none=True)
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False) + "\n"


def _smallest(ok: Any) -> int | None:
    """Smallest ``n >= 2`` with ``ok(n)`` for a monotone ``ok``: doubling, then bisection."""
    if ok(2):
        return 2
    lo, hi = 2, 4
    while not ok(hi):
        if hi >= MAX_TOPICS:
            return None
        lo, hi = hi, min(2 * hi, MAX_TOPICS)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def topic_set_size(
    variance: float,
    *,
    min_d: float = 0.05,
    alpha: float = 0.05,
    beta: float = 0.2,
    systems: int = 2,
    delta: float | None = None,
) -> TopicSetSize:
    """Topics needed by the paired t-test, the one-way ANOVA and the confidence interval.

    Parameters
    ----------
    variance:
        Per-query variance ``σ̂²`` of the measure, > 0 (:func:`residual_variance` of a pilot
        table).
    min_d:
        Minimum detectable difference in the measure's units, > 0.
    alpha:
        Significance level (and 1 − confidence of the interval), in (0, 1).
    beta:
        Type II error rate; the power asked is ``1 - beta``, in (0, 1).
    systems:
        Systems compared by the ANOVA, >= 2.
    delta:
        Largest expected interval width; default ``min_d``.

    Returns
    -------
    TopicSetSize

    Notes
    -----
    Each ``n`` is the smallest ``n >= 2`` whose exact power (or expected width) meets the
    target; power grows and the width shrinks with ``n``, so a bisection finds it.

    Examples
    --------
    >>> r = topic_set_size(0.02, min_d=0.05, alpha=0.05, beta=0.2, systems=10)
    >>> r.topics["paired_t"], r.topics["anova"] > r.topics["paired_t"]
    (128, True)
    """
    v = check_float("variance", variance, minimum=0.0, above=True)
    d = check_float("min_d", min_d, minimum=0.0, above=True)
    a = check_float("alpha", alpha, minimum=0.0, maximum=1.0, above=True, below=True)
    b = check_float("beta", beta, minimum=0.0, maximum=1.0, above=True, below=True)
    m = check_int("systems", systems, minimum=2)
    w = d if delta is None else check_float("delta", delta, minimum=0.0, above=True)
    power = 1.0 - b
    topics = {
        "paired_t": _smallest(lambda n: paired_t_power(n, min_d=d, variance=v, alpha=a) >= power),
        "anova": _smallest(
            lambda n: anova_power(n, systems=m, min_d=d, variance=v, alpha=a) >= power
        ),
        "interval": _smallest(lambda n: interval_width(n, variance=v, alpha=a) <= w),
    }
    return TopicSetSize(v, a, b, d, w, m, topics)
