"""How alike two rankings of systems are: Kendall's τ-b, Spearman's ρ, Pearson's r, τ_AP, RBO.

The question "would another measure, or another set of judgments, rank the systems the same
way?" is answered by :func:`correlate_scores` (two ``queries × systems`` score matrices) and its
two front doors on :class:`~cranfield.evaluation.results.ScoreTable`: :func:`correlate_measures`
(one table, two measures) and :func:`correlate_tables` (two tables of the same runs scored on
different qrels, one measure); :func:`correlate` scores the runs and calls the one that fits,
in one call from the qrels and the runs. Each returns a :class:`RankCorrelation`: the coefficients on the
system means, the pairs of systems the two settings order differently, a bootstrap interval of
each coefficient over queries, and how alike the per-query scores themselves are
(:class:`ScoreAgreement`: τ-b and r over every (query, system) score, and per system).

The building blocks are usable alone: :func:`tau_ap` (Yilmaz, Aslam & Robertson 2008) and
:func:`rbo` (Webber, Moffat & Zobel 2010) on any two rankings, of systems or of documents.
Kendall's τ-b, Spearman's ρ and Pearson's r are scipy's.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Unpack

import numpy as np

from cranfield._validate import check_int
from cranfield.errors import EvaluationError, OptionError
from cranfield.stats.plain_data import finite_or_none as _finite
from cranfield.stats.resampling import bootstrap_sums, check_rng, resolve_seed

if TYPE_CHECKING:
    from collections.abc import Hashable

    from numpy.typing import ArrayLike, NDArray

    from cranfield._types import RunNaming
    from cranfield.evaluation.evaluator import MeasureLike
    from cranfield.evaluation.execution import EvalExecutionKwargs, Execution
    from cranfield.evaluation.options import EvalOptions
    from cranfield.evaluation.results import ScoreTable
    from cranfield.io.load import QrelsLike, RunLike
    from cranfield.io.runset import RunSet
    from cranfield.stats.resampling import RngLike

__all__ = [
    "COEFFICIENTS",
    "RBO",
    "Coefficient",
    "RankCorrelation",
    "ScoreAgreement",
    "correlate",
    "correlate_measures",
    "correlate_scores",
    "correlate_tables",
    "rbo",
    "score_agreement",
    "swapped_pairs",
    "tau_ap",
]

COEFFICIENTS: Final = ("kendall_tau_b", "tau_ap", "spearman_rho", "pearson_r", "rbo")
"""The coefficients of a :class:`RankCorrelation`, in the order they are reported."""


# --------------------------------------------------------------------------- building blocks


@dataclass(frozen=True)
class RBO:
    """Rank-biased overlap of two rankings at persistence ``p`` (Webber et al. 2010).

    Attributes
    ----------
    ext:
        The extrapolated value RBO_ext (the paper's eq. 32): the agreement seen at the depth of
        the shorter ranking is assumed to continue below it.
    min, max:
        The bounds: nothing more in common below the evaluated depth, or everything.
    residual:
        ``max - min``: how much the unseen tail could still change the value (0 only for
        infinite rankings).
    p:
        The persistence: the probability of going on to the next rank.
    """

    ext: float
    min: float
    max: float
    residual: float
    p: float


def rbo(a: Sequence[Hashable], b: Sequence[Hashable], *, p: float = 0.9) -> RBO:
    """Rank-biased overlap of two rankings (best first), possibly of different lengths and items.

    Parameters
    ----------
    a, b:
        Item ids, best first, each at most once per ranking (system names, document ids).
    p:
        Persistence in (0, 1); the first ``1 / (1 - p)`` ranks carry most of the weight
        (``p = 0.9``: about the top 10, 86% of the weight).

    Returns
    -------
    RBO
        ``ext``, ``min``, ``max`` and ``residual``.

    Raises
    ------
    OptionError
        ``p`` outside (0, 1), or an item repeated within a ranking.

    Notes
    -----
    With ``s`` and ``l`` the lengths of the shorter and the longer ranking and ``X_d`` the
    number of items the two prefixes of depth ``d`` share (for ``d > s`` the whole shorter
    ranking against the prefix of the longer)::

        RBO_ext = (1-p)/p [ Σ_{d=1..l} X_d/d p^d + Σ_{d=s+1..l} X_s (d-s)/(s d) p^d ]
                  + [ (X_l - X_s)/l + X_s/s ] p^l

    ``min`` assumes no further overlap beyond what was seen, ``max`` that every item of the
    shorter ranking's unseen tail matches as early as it can. Rankings are taken as given:
    items with equal scores must be put in some order before (:class:`RankCorrelation` orders
    tied systems by name); the tie-aware variants of Corsi & Urbano (2024) are not computed.

    Examples
    --------
    >>> r = rbo("abcdefg", "abcdefg", p=0.9)
    >>> round(r.ext, 12), round(r.min, 4), round(r.residual, 4)
    (1.0, 0.7671, 0.2329)
    >>> rbo(["d1", "d2"], ["d3", "d4"]).ext
    0.0
    """
    if not (isinstance(p, (int, float)) and 0.0 < p < 1.0):
        raise OptionError("p", "a number in (0, 1)", p)
    first, second = list(a), list(b)
    for name, ranking in (("a", first), ("b", second)):
        if len(set(ranking)) != len(ranking):
            raise OptionError(name, "a ranking with each item at most once", "repeated items")
    short, long_ = (first, second) if len(first) <= len(second) else (second, first)
    s, ell = len(short), len(long_)
    if ell == 0:
        return RBO(0.0, 0.0, 0.0, 0.0, float(p))
    overlap = _overlaps(short, long_)  # X_1 .. X_l
    depths = np.arange(1, ell + 1, dtype=np.float64)
    weights = p**depths
    seen = float(np.sum(overlap / depths * weights))
    x_s = float(overlap[s - 1]) if s else 0.0
    x_l = float(overlap[-1])
    tail = depths > s
    ext_extra = (
        float(np.sum(x_s * (depths[tail] - s) / (s * depths[tail]) * weights[tail])) if s else 0.0
    )
    ext_tail = ((x_l - x_s) / ell + (x_s / s if s else 0.0)) * p**ell
    ext = (1 - p) / p * (seen + ext_extra) + ext_tail
    # min: X_d = X_l for every d > l.
    beyond = math.log(1.0 / (1.0 - p)) - float(np.sum(weights / depths))
    low = (1 - p) / p * (seen + x_l * beyond)
    high = (1 - p) / p * (_max_seen(short, long_, overlap, p) + _max_beyond(s, ell, x_l, p))
    return RBO(float(ext), float(low), float(high), float(high - low), float(p))


def _overlaps(short: list[Hashable], long_: list[Hashable]) -> NDArray[np.float64]:
    """``X_d`` for ``d = 1..len(long_)``: items shared by the two prefixes of depth ``d``."""
    seen_s: set[Hashable] = set()
    seen_l: set[Hashable] = set()
    x = 0
    out = np.empty(len(long_))
    for d in range(len(long_)):
        item_l = long_[d]
        if d < len(short):
            item_s = short[d]
            if item_s == item_l:
                x += 1
            else:
                x += (item_s in seen_l) + (item_l in seen_s)
            seen_s.add(item_s)
        else:
            x += item_l in seen_s
        seen_l.add(item_l)
        out[d] = x
    return out


def _max_seen(
    short: list[Hashable], long_: list[Hashable], overlap: NDArray[np.float64], p: float
) -> float:
    """Σ_{d=1..l} A_d p^d with the unseen items of the shorter ranking matching as soon as they
    can at depths ``s+1..l`` (each one an item of the longer ranking not in the shorter)."""
    s, ell = len(short), len(long_)
    in_short = set(short)
    total = 0.0
    fresh = 0  # items of long_[:d] not in the shorter ranking
    for d in range(1, ell + 1):
        fresh += long_[d - 1] not in in_short
        x = overlap[d - 1] + (min(d - s, fresh) if d > s else 0)
        total += x / d * p**d
    return total


def _max_beyond(s: int, ell: int, x_l: float, p: float) -> float:
    """Σ_{d>l} A_d p^d at best: both rankings go on with the other's missing items first, so
    the overlap reaches the whole depth at ``f = l + s - X_l``."""
    f = round(ell + s - x_l)
    d = np.arange(ell + 1, f + 1, dtype=np.float64)
    return float(np.sum((2 * d - ell - s + x_l) / d * p**d)) + p ** (f + 1) / (1 - p)


def tau_ap(truth: ArrayLike, estimate: ArrayLike) -> float:
    """AP correlation τ_AP of ``estimate`` against ``truth`` (Yilmaz, Aslam & Robertson 2008).

    Both are scores of the same items (higher is better). Going down the ranking of
    ``estimate``, each item at rank ``i >= 2`` counts the share of the items above it that
    ``truth`` also puts above it::

        τ_AP = 2/(N-1) Σ_{i=2..N} C(i)/(i-1) - 1

    so a disagreement at the top costs more than one at the bottom.

    Notes
    -----
    τ_AP is not symmetric: ``tau_ap(x, y) != tau_ap(y, x)`` in general. ``truth`` is the
    reference ranking (NIST's judgments, the established measure); ``estimate`` is the one
    being judged. Ties: ``estimate``'s ties are broken by the order the items are given; an
    item tied with one above it in ``truth`` counts 1/2 (neither agreement nor disagreement).
    With no ties and two items τ_AP equals Kendall's τ.

    Examples
    --------
    >>> tau_ap([3, 2, 1], [3, 2, 1])
    1.0
    >>> tau_ap([3, 2, 1], [1, 2, 3])
    -1.0
    >>> round(tau_ap([4, 3, 2, 1], [3, 4, 2, 1]), 4), round(tau_ap([4, 3, 2, 1], [4, 3, 1, 2]), 4)
    (0.3333, 0.7778)
    """
    t = np.asarray(truth, dtype=np.float64)
    e = np.asarray(estimate, dtype=np.float64)
    if t.shape != e.shape or t.ndim != 1:
        raise OptionError("estimate", f"scores of the same {t.size} items as truth", e.shape)
    n = t.size
    if n < 2:
        return math.nan
    order = np.argsort(-e, kind="stable")
    ranked = t[order]
    total = 0.0
    for i in range(1, n):
        above = ranked[:i]
        correct = float(np.sum(above > ranked[i]) + 0.5 * np.sum(above == ranked[i]))
        total += correct / i
    return 2.0 / (n - 1) * total - 1.0


def swapped_pairs(names: Sequence[str], a: ArrayLike, b: ArrayLike) -> list[tuple[str, str]]:
    """The pairs of items ``a`` and ``b`` order oppositely: ``(x, y)`` with ``x`` ahead under
    ``a`` and ``y`` ahead under ``b``. A pair tied under either is not a swap.

    Examples
    --------
    >>> swapped_pairs(["bm25", "dense", "splade"], [0.2, 0.3, 0.4], [0.2, 0.5, 0.4])
    [('splade', 'dense')]
    """
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    order = sorted(range(len(names)), key=lambda i: (-x[i], names[i].encode()))
    out: list[tuple[str, str]] = []
    for pos, i in enumerate(order):
        for j in order[pos + 1 :]:
            if x[i] > x[j] and y[i] < y[j]:
                out.append((names[i], names[j]))
    return out


# --------------------------------------------------------------------------- the result


@dataclass(frozen=True)
class Coefficient:
    """One coefficient between the two system rankings, with its bootstrap interval.

    Attributes
    ----------
    value:
        On the system means over all the queries (NaN when undefined: fewer than 2 systems, or
        constant means).
    low, high:
        The percentile bootstrap interval over queries at ``1 - alpha`` (NaN without
        resampling, or when fewer than half the resamples define the coefficient).
    """

    value: float
    low: float
    high: float


@dataclass(frozen=True)
class ScoreAgreement:
    """How alike the per-query scores themselves are under the two settings (not only the
    systems' means): Kendall's τ-b and Pearson's r over ``pairs`` (query, score) pairs.

    Attributes
    ----------
    kendall_tau_b, pearson_r:
        scipy's coefficients (NaN when undefined: fewer than 2 pairs, or constant scores).
    pairs:
        How many scores each coefficient is taken over.
    """

    kendall_tau_b: float
    pearson_r: float
    pairs: int

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values (NaN as ``None``)."""
        return {
            "kendall_tau_b": _finite(self.kendall_tau_b),
            "pearson_r": _finite(self.pearson_r),
            "pairs": self.pairs,
        }


def score_agreement(a: ArrayLike, b: ArrayLike) -> ScoreAgreement:
    """Kendall's τ-b and Pearson's r of two aligned vectors of per-query scores.

    Examples
    --------
    >>> r = score_agreement([0.1, 0.4, 0.3, 0.9], [0.2, 0.5, 0.1, 0.8])
    >>> round(r.kendall_tau_b, 4), round(r.pearson_r, 4), r.pairs
    (0.6667, 0.8982, 4)
    """
    from scipy import stats

    x = np.asarray(a, dtype=np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return ScoreAgreement(math.nan, math.nan, int(x.size))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.NearConstantInputWarning)
        return ScoreAgreement(
            float(stats.kendalltau(x, y, variant="b").statistic),
            float(stats.pearsonr(x, y).statistic),
            int(x.size),
        )


@dataclass(frozen=True, eq=False)
class RankCorrelation:
    """What :func:`correlate_scores` returns: two rankings of the same systems compared.

    Attributes
    ----------
    systems:
        The system (run) names, in the order given.
    setting_a, setting_b:
        What produced each ranking (``"AP"``, ``"nDCG@10"``, or a qrels name); ``a`` is the
        reference (the truth of τ_AP; the order of the swaps).
    topics:
        The queries the means are taken over, in order.
    means_a, means_b:
        Each system's arithmetic mean over :attr:`topics` under each setting.
    coefficients:
        ``{name: Coefficient}`` for every name of :data:`COEFFICIENTS`.
    rbo_residual:
        RBO's residual (``max - min``) for the system ranking (RBO's value is ``ext``).
    swaps:
        ``(x, y)`` for every pair with ``x`` ahead under ``a`` and ``y`` ahead under ``b``.
    p:
        RBO's persistence.
    alpha:
        The intervals have confidence ``1 - alpha``.
    n_resamples:
        Bootstrap resamples of the queries (0: no intervals).
    seed:
        The integer seed that reproduces the intervals (``None`` when ``n_resamples`` is 0).
    notes:
        What aligning the inputs did (queries or runs dropped), one sentence each.
    query_scores:
        The per-query scores of every system under ``a`` against ``b``, all systems pooled.
    system_query_scores:
        The same for each system alone, in the order of :attr:`systems`.
    """

    systems: tuple[str, ...]
    setting_a: str
    setting_b: str
    topics: tuple[str, ...]
    means_a: tuple[float, ...]
    means_b: tuple[float, ...]
    coefficients: dict[str, Coefficient]
    rbo_residual: float
    swaps: tuple[tuple[str, str], ...]
    p: float
    alpha: float
    n_resamples: int
    seed: int | None
    notes: tuple[str, ...] = field(default=())
    query_scores: ScoreAgreement = field(default=ScoreAgreement(math.nan, math.nan, 0))
    system_query_scores: tuple[ScoreAgreement, ...] = field(default=())

    def __repr__(self) -> str:
        tau = self.coefficients["kendall_tau_b"].value
        return (
            f"RankCorrelation({self.setting_a!r} vs {self.setting_b!r}, "
            f"systems={len(self.systems)}, queries={len(self.topics)}, "
            f"kendall_tau_b={tau:.4f}, swaps={len(self.swaps)})"
        )

    @property
    def n_pairs(self) -> int:
        """The number of system pairs."""
        k = len(self.systems)
        return k * (k - 1) // 2

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready, non-finite numbers as ``None``)."""
        return {
            "setting_a": self.setting_a,
            "setting_b": self.setting_b,
            "reference": self.setting_a,
            "systems": list(self.systems),
            "queries": len(self.topics),
            "means": {
                s: {self.setting_a: _finite(x), self.setting_b: _finite(y)}
                for s, x, y in zip(self.systems, self.means_a, self.means_b, strict=True)
            },
            "coefficients": {
                name: {"value": _finite(c.value), "low": _finite(c.low), "high": _finite(c.high)}
                for name, c in self.coefficients.items()
            },
            "rbo_p": self.p,
            "rbo_residual": _finite(self.rbo_residual),
            "pairs": self.n_pairs,
            "swaps": [list(pair) for pair in self.swaps],
            "alpha": self.alpha,
            "confidence": 1.0 - self.alpha,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "notes": list(self.notes),
            "query_scores": {
                "all": self.query_scores.to_dict(),
                "systems": {
                    name: agreement.to_dict()
                    for name, agreement in zip(self.systems, self.system_query_scores, strict=True)
                },
            },
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text (same inputs and seed, same bytes)."""
        check_int("indent", indent, minimum=0, none=True)
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False) + "\n"


# --------------------------------------------------------------------------- computing it


def _ranking(names: Sequence[str], means: NDArray[np.float64]) -> list[str]:
    """Systems best first; equal means ordered by name (bytewise), so the ranking is one."""
    return [
        names[i] for i in sorted(range(len(names)), key=lambda i: (-means[i], names[i].encode()))
    ]


def _coefficients(
    names: Sequence[str], a: NDArray[np.float64], b: NDArray[np.float64], p: float
) -> dict[str, float]:
    from scipy import stats

    if len(names) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        undefined = dict.fromkeys(COEFFICIENTS, math.nan)
        undefined["rbo"] = rbo(_ranking(names, a), _ranking(names, b), p=p).ext
        return undefined
    with warnings.catch_warnings():
        # constant means are handled above; nearly constant ones are what they are
        warnings.simplefilter("ignore", stats.NearConstantInputWarning)
        return {
            "kendall_tau_b": float(stats.kendalltau(a, b, variant="b").statistic),
            "tau_ap": tau_ap(a, _tiebreak(names, b)),
            "spearman_rho": float(stats.spearmanr(a, b).statistic),
            "pearson_r": float(stats.pearsonr(a, b).statistic),
            "rbo": rbo(_ranking(names, a), _ranking(names, b), p=p).ext,
        }


def _tiebreak(names: Sequence[str], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """``b``'s ranking as scores, ties ordered by name as :func:`_ranking` does."""
    order = _ranking(names, b)
    where = {n: i for i, n in enumerate(order)}
    return np.array([-float(where[n]) for n in names])


def correlate_scores(  # noqa: PLR0913 -- data, labels, and the three resampling settings
    a: ArrayLike,
    b: ArrayLike,
    *,
    systems: Sequence[str],
    topics: Sequence[str] | None = None,
    settings: tuple[str, str] = ("a", "b"),
    p: float = 0.9,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: RngLike = None,
    notes: Sequence[str] = (),
) -> RankCorrelation:
    """Compare the system rankings of two ``queries × systems`` score matrices.

    Parameters
    ----------
    a, b:
        Per-query scores, one row per query and one column per system, aligned (the same
        queries and systems in the same order). ``a`` is the reference.
    systems:
        One name per column.
    topics:
        One id per row (default ``"1"``, ``"2"``, ...).
    settings:
        What produced ``a`` and ``b`` (measure names, qrels names), for the output.
    p:
        RBO's persistence.
    n_resamples:
        Bootstrap resamples of the queries for the intervals (0: none).
    alpha:
        The intervals have confidence ``1 - alpha``.
    seed:
        An integer, a ``numpy.random.Generator`` or ``None`` (fresh); the seed used is kept on
        the result.

    Notes
    -----
    Each system's score under a setting is its arithmetic mean over the queries. A bootstrap
    resample draws the queries with replacement (the same draw for ``a`` and ``b``, through
    :func:`cranfield.stats.resampling.bootstrap_sums`), recomputes every system's two means and
    the coefficients; the interval is the ``alpha/2`` and ``1 - alpha/2`` quantiles of the
    resamples where the coefficient is defined.

    Examples
    --------
    >>> a = [[0.1, 0.5, 0.3], [0.2, 0.6, 0.4]]
    >>> b = [[0.2, 0.4, 0.5], [0.1, 0.5, 0.6]]
    >>> r = correlate_scores(a, b, systems=["x", "y", "z"], n_resamples=0)
    >>> round(r.coefficients["kendall_tau_b"].value, 4), r.swaps
    (0.3333, (('y', 'z'),))
    """
    A = np.asarray(a, dtype=np.float64)
    B = np.asarray(b, dtype=np.float64)
    names = tuple(systems)
    if A.ndim != 2 or A.shape != B.shape or A.shape[1] != len(names):
        raise OptionError(
            "b", f"a queries × systems matrix the shape of a, {len(names)} systems", B.shape
        )
    if topics is not None and len(topics) != A.shape[0]:
        raise OptionError("topics", f"{A.shape[0]} query ids, one per row", len(topics))
    if A.shape[0] == 0:
        raise EvaluationError("no query is scored under both settings: nothing to correlate.")
    if len(names) < 2:
        raise EvaluationError(f"{len(names)} system(s): a ranking needs at least 2 to compare.")
    _check_resampling(p=p, alpha=alpha, n_resamples=n_resamples, seed=seed)
    means_a, means_b = A.mean(axis=0), B.mean(axis=0)
    point = _coefficients(names, means_a, means_b, p)
    seed_used = resolve_seed(seed) if n_resamples else None
    intervals = (
        _intervals(names, A, B, p, n_resamples, alpha, seed_used) if seed_used is not None else {}
    )
    nan = (math.nan, math.nan)
    coefficients = {
        name: Coefficient(point[name], *intervals.get(name, nan)) for name in COEFFICIENTS
    }
    ranked_a, ranked_b = _ranking(names, means_a), _ranking(names, means_b)
    return RankCorrelation(
        systems=names,
        setting_a=settings[0],
        setting_b=settings[1],
        topics=tuple(topics)
        if topics is not None
        else tuple(str(i + 1) for i in range(A.shape[0])),
        means_a=tuple(float(v) for v in means_a),
        means_b=tuple(float(v) for v in means_b),
        coefficients=coefficients,
        rbo_residual=rbo(ranked_a, ranked_b, p=p).residual,
        swaps=tuple(swapped_pairs(names, means_a, means_b)),
        p=float(p),
        alpha=float(alpha),
        n_resamples=n_resamples,
        seed=seed_used,
        notes=tuple(notes),
        query_scores=score_agreement(A, B),
        system_query_scores=tuple(score_agreement(A[:, j], B[:, j]) for j in range(len(names))),
    )


def _check_resampling(*, p: float, alpha: float, n_resamples: int, seed: RngLike) -> None:
    """Refuse a bad RBO persistence or bootstrap setting of :func:`correlate_scores` (and of
    the functions that call it), in its one sentence."""
    if not (isinstance(p, (int, float)) and 0.0 < p < 1.0):
        raise OptionError("p", "a number in (0, 1)", p)
    if not (isinstance(alpha, (int, float)) and 0.0 < alpha < 1.0):
        raise OptionError("alpha", "a number in (0, 1)", alpha)
    check_int("n_resamples", n_resamples, minimum=0)
    check_rng(seed)


def _intervals(
    names: Sequence[str],
    A: NDArray[np.float64],
    B: NDArray[np.float64],
    p: float,
    n_resamples: int,
    alpha: float,
    seed: int,
) -> dict[str, tuple[float, float]]:
    n, k = A.shape
    sums = bootstrap_sums(np.hstack((A, B)), n_resamples=n_resamples, seed=seed) / n
    draws = np.array([list(_coefficients(names, row[:k], row[k:], p).values()) for row in sums])
    out: dict[str, tuple[float, float]] = {}
    for j, name in enumerate(COEFFICIENTS):
        col = draws[:, j]
        col = col[np.isfinite(col)]
        if col.size * 2 < n_resamples:
            out[name] = (math.nan, math.nan)
            continue
        lo, hi = np.quantile(col, [alpha / 2.0, 1.0 - alpha / 2.0])
        out[name] = (float(lo), float(hi))
    return out


def correlate_measures(
    table: ScoreTable, measure_a: object, measure_b: object, **kwargs: Any
) -> RankCorrelation:
    """The system rankings of one :class:`~cranfield.evaluation.results.ScoreTable` under two of
    its measures (``measure_a`` the reference); ``kwargs`` as :func:`correlate_scores`.

    Examples
    --------
    >>> from cranfield.evaluation.evaluator import Evaluator
    >>> qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}}
    >>> runs = {"x": {"q1": {"d1": 2.0, "d9": 1.0}, "q2": {"d3": 1.0}},
    ...         "y": {"q1": {"d9": 2.0, "d2": 1.0}, "q2": {"d9": 2.0, "d3": 1.0}},
    ...         "z": {"q1": {"d9": 1.0}, "q2": {"d3": 1.0}}}
    >>> table = Evaluator(qrels, ["AP", "P@1"]).many(runs)
    >>> r = correlate_measures(table, "AP", "P@1", n_resamples=0)
    >>> r.setting_a, r.setting_b, r.coefficients["spearman_rho"].value
    ('AP', 'P@1', 1.0)
    """
    ma, mb = table_measure(table, measure_a), table_measure(table, measure_b)
    return correlate_scores(
        table.matrix(ma),
        table.matrix(mb),
        systems=table.names,
        topics=table.topics,
        settings=(str(ma), str(mb)),
        notes=_dropped_note(table),
        **kwargs,
    )


def correlate_tables(
    table_a: ScoreTable,
    table_b: ScoreTable,
    measure: object,
    *,
    settings: tuple[str, str] = ("qrels A", "qrels B"),
    **kwargs: Any,
) -> RankCorrelation:
    """The system rankings of the same runs under two qrels: ``table_a`` (the reference) and
    ``table_b`` scored with different judgments, one measure.

    Runs are matched by name and queries by id: only the runs in both tables and the queries
    both tables score are compared; what was left out is said in the result's ``notes``.
    ``kwargs`` as :func:`correlate_scores`.
    """
    ma, mb = table_measure(table_a, measure), table_measure(table_b, measure)
    runs = [r for r in table_a.names if r in set(table_b.names)]
    topics = [t for t in table_a.topics if t in set(table_b.topics)]
    notes = list(dict.fromkeys((*_dropped_note(table_a), *_dropped_note(table_b))))
    for label, names in ((settings[0], table_a.names), (settings[1], table_b.names)):
        extra = [r for r in names if r not in runs]
        if extra:
            notes.append(f"{len(extra)} run(s) scored only under {label} left out: {_few(extra)}.")
    for label, mine in ((settings[0], table_a.topics), (settings[1], table_b.topics)):
        extra = [t for t in mine if t not in set(topics)]
        if extra:
            notes.append(f"{len(extra)} query(ies) judged only in {label} left out: {_few(extra)}.")
    if not topics:
        raise EvaluationError(
            f"{settings[0]} and {settings[1]} judge no query in common: nothing to correlate."
        )
    return correlate_scores(
        _select(table_a, ma, runs, topics),
        _select(table_b, mb, runs, topics),
        systems=runs,
        topics=topics,
        settings=settings,
        notes=notes,
        **kwargs,
    )


def correlate(  # noqa: PLR0913 -- entry point: inputs, the two settings, naming, resampling, options
    qrels: QrelsLike,
    runs: RunSet | Sequence[RunLike] | Mapping[str, RunLike],
    measure_a: MeasureLike,
    measure_b: MeasureLike | None = None,
    *,
    qrels_b: QrelsLike | None = None,
    names: RunNaming | Sequence[str] = "file",
    p: float = 0.9,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: RngLike = None,
    options: EvalOptions | None = None,
    execution: Execution | None = None,
    **kwargs: Unpack[EvalExecutionKwargs],
) -> RankCorrelation:
    """Do two measures, or two qrels, rank the runs alike? Score the runs and compare.

    Parameters
    ----------
    qrels:
        Judgments (anything :func:`cranfield.evaluate` accepts); the reference qrels.
    runs:
        Two or more runs: paths, ``Run`` objects, DataFrames or dicts, as a list, or a
        ``{name: run}`` mapping that names them.
    measure_a:
        The measure the runs are ranked by (the reference with ``measure_b``).
    measure_b:
        A second measure: the runs ranked on ``qrels`` under ``measure_a`` and ``measure_b``
        (:func:`correlate_measures`). Give it or ``qrels_b``, not both.
    qrels_b:
        Second judgments: the runs ranked under ``measure_a`` on ``qrels`` and on ``qrels_b``
        (:func:`correlate_tables`; the settings are named by the naming rule of
        :mod:`cranfield.io.run_names`, ``qrels A`` and ``qrels B`` for judgments in memory).
    names:
        How to name runs given as a list: ``"file"`` (default), ``"tag"``, or a list of names.
    p, n_resamples, alpha, seed:
        RBO's persistence and the bootstrap over queries, as :func:`correlate_scores` takes
        them (checked before anything is read).
    options, **kwargs:
        The evaluation options of :func:`cranfield.evaluate`
        (:class:`~cranfield.evaluation.options.EvalOptions`, whole or as keywords), the same
        for both qrels.
    execution, **kwargs:
        Where and how the runs are scored (:class:`~cranfield.evaluation.execution.
        Execution`, whole or as keywords: ``jobs``, ``scheduler``, ``store``, ``progress``);
        the numbers are the same.

    Returns
    -------
    RankCorrelation

    Raises
    ------
    OptionError
        Both ``measure_b`` and ``qrels_b`` or neither, a bad setting, fewer than 2 runs, or
        one qrels file given twice.
    EvaluationError
        As :func:`correlate_tables` (two qrels that judge no query in common).

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}}
    >>> second = {"q1": {"d9": 1}, "q2": {"d3": 1}}
    >>> runs = {"x": {"q1": {"d1": 2.0, "d9": 1.0}, "q2": {"d3": 1.0}},
    ...         "y": {"q1": {"d9": 2.0, "d2": 1.0}, "q2": {"d9": 2.0, "d3": 1.0}},
    ...         "z": {"q1": {"d9": 1.0}, "q2": {"d3": 1.0}}}
    >>> r = correlate(qrels, runs, "AP", "P@1", n_resamples=0)
    >>> r.setting_a, r.setting_b, r.coefficients["spearman_rho"].value
    ('AP', 'P@1', 1.0)
    >>> r = correlate(qrels, runs, "AP", qrels_b=second, n_resamples=0)
    >>> r.setting_a, r.setting_b, r.swaps
    ('qrels A', 'qrels B', (('x', 'z'),))
    """
    from cranfield.evaluation.evaluator import Evaluator
    from cranfield.evaluation.execution import execution_from
    from cranfield.io.runset import several_runs

    _check_resampling(p=p, alpha=alpha, n_resamples=n_resamples, seed=seed)
    if measure_b is not None and qrels_b is not None:
        raise OptionError(
            "qrels_b", "None with measure_b (two measures, or one measure under two qrels)", qrels_b
        )
    if measure_b is None and qrels_b is None:
        raise OptionError("measure_b", "a second measure, or qrels_b a second qrels", None)
    settings = None if qrels_b is None else _qrels_settings(qrels, qrels_b)
    measures = [measure_a] if measure_b is None else [measure_a, measure_b]
    rest: dict[str, Any] = dict(kwargs)
    run_on = execution_from(execution, rest, caller="correlate")
    evaluator = Evaluator(qrels, measures, options, **rest)
    run_set = several_runs(runs, names)
    resampling = {"p": p, "n_resamples": n_resamples, "alpha": alpha, "seed": seed}
    table = evaluator.many(run_set, execution=run_on)
    if settings is None:
        return correlate_measures(table, measure_a, measure_b, **resampling)
    other = Evaluator(qrels_b, measures, evaluator.options).many(run_set, execution=run_on)
    return correlate_tables(table, other, measure_a, settings=settings, **resampling)


def _qrels_settings(qrels: QrelsLike, qrels_b: QrelsLike) -> tuple[str, str]:
    """The two qrels' names: files by the naming rule (one file twice is refused), judgments
    in memory ``qrels A`` and ``qrels B``."""
    from cranfield.io.run_names import file_names

    both = [qrels, qrels_b]
    named = file_names(both, option="qrels_b", kind="qrels files")
    a, b = (
        n if isinstance(q, (str, Path)) else f"qrels {'AB'[i]}"
        for i, (q, n) in enumerate(zip(both, named, strict=True))
    )
    return a, b


def _few(items: Sequence[str], shown: int = 5) -> str:
    more = f" and {len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more


def _select(
    table: ScoreTable, measure: Any, runs: Sequence[str], topics: Sequence[str]
) -> NDArray[np.float64]:
    matrix = table.matrix(measure)
    rows = {t: i for i, t in enumerate(table.topics)}
    cols = {r: j for j, r in enumerate(table.names)}
    return matrix[np.ix_([rows[t] for t in topics], [cols[r] for r in runs])]


def _dropped_note(table: ScoreTable) -> tuple[str, ...]:
    dropped = table.dropped_topics
    if not dropped:
        return ()
    return (
        f"{len(dropped)} judged query(ies) not retrieved by every run left out (missing=skip).",
    )


def table_measure(table: ScoreTable, measure: object) -> Any:
    """The table's measure named ``measure`` (any name the grammar reads: ``map`` is AP)."""
    from cranfield.measures import Measure, parse_measures

    for m in table.measures:
        if m == measure or str(m) == str(measure):
            return m
    if isinstance(measure, str) and not isinstance(measure, Measure):
        parsed = parse_measures(measure)
        if len(parsed) == 1 and parsed[0] in table.measures:
            return parsed[0]
    shown = ", ".join(map(str, table.measures))
    raise OptionError("measure", f"one of the table's measures ({shown})", str(measure))
