"""Has an experiment been reproduced? The measures of Breuer et al. (2020) and repro_eval.

An *original* experiment (a baseline run and, usually, an advanced run that improves on it)
is run again: *reproduced* on the same collection (the same queries and qrels) or
*replicated* on another one (other queries, other qrels). :func:`reproduce` compares the
two in one call from the qrels and the run files (it scores them and ranks their documents),
:func:`reproducibility` from tables already scored; both at three levels, as Breuer et al. do:

* **the rankings** (reproduction only): for each query, Kendall's τ Union (:func:`ktu`) of the
  top ``k`` documents at several cutoffs ``k``, and the rank-biased overlap of the two
  rankings (:func:`~cranfield.stats.rank_correlation.rbo`);
* **the scores** (reproduction only): the root mean square error of the per-query scores of
  each measure (:func:`rmse`) and its normalised form (:func:`nrmse`);
* **the effect** of the advanced run over the baseline: the Effect Ratio
  (:func:`effect_ratio`) and the Delta Relative Improvement (:func:`delta_ri`), for both
  kinds;

and gives, for each run and measure, the p-value of a t-test between the original and
the reproduced per-query scores: paired for a reproduction (the same queries), unpaired
(Student's, equal variances) for a replication.

The definitions are those of repro_eval 0.5 (the ``repro_eval`` package of the paper's
authors): the numbers agree with it (see each function's notes for the few inputs where
repro_eval fails and cranfield gives a number, and for RBO's variant).

References
----------
T. Breuer, N. Ferro, N. Fuhr, M. Maistro, T. Sakai, P. Schaer and I. Soboroff, "How to
measure the reproducibility of system-oriented IR experiments", SIGIR 2020.
T. Breuer, N. Ferro, M. Maistro and P. Schaer, "repro_eval: A Python interface to
reproducibility measures of system-oriented IR experiments", ECIR 2021.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Unpack

import numpy as np

from cranfield._validate import check_bool, check_float, check_int
from cranfield.errors import EvaluationError, OptionError
from cranfield.stats.paired import paired_t_test
from cranfield.stats.plain_data import finite_or_none as _finite
from cranfield.stats.rank_correlation import rbo, table_measure

if TYPE_CHECKING:
    from collections.abc import Hashable, Iterable, Mapping

    from numpy.typing import ArrayLike, NDArray

    from cranfield._types import RunNaming
    from cranfield.evaluation.evaluator import MeasureLike
    from cranfield.evaluation.execution import EvalExecutionKwargs, Execution
    from cranfield.evaluation.options import EvalOptions
    from cranfield.evaluation.results import ScoreTable
    from cranfield.io.load import QrelsLike, RunLike
    from cranfield.io.runset import RunSet

__all__ = [
    "DEFAULT_CUTOFFS",
    "DEFAULT_MEASURES",
    "ReproducedRun",
    "Reproducibility",
    "check_settings",
    "delta_ri",
    "effect_ratio",
    "ktu",
    "nrmse",
    "reproduce",
    "reproducibility",
    "rmse",
    "student_t_p_value",
]

DEFAULT_CUTOFFS: Final = (10, 100, 1000)
"""The cutoffs of KTU when none are given (1000 is repro_eval's default trimming)."""

DEFAULT_MEASURES: Final = ("AP", "nDCG@10", "P@10")
"""The measures :func:`reproduce` compares when none are given (those of ``cranfield repro``)."""

ROLES: Final = ("baseline", "advanced")


# --------------------------------------------------------------------------- the measures


def ktu(original: Sequence[Hashable], reproduced: Sequence[Hashable]) -> float:
    """Kendall's τ Union of two document rankings, as repro_eval computes it.

    Parameters
    ----------
    original, reproduced:
        Document ids, best first, each at most once per ranking (already cut at the cutoff).

    Returns
    -------
    float
        In [-1, 1]; NaN with fewer than 2 documents to compare.

    Notes
    -----
    Let ``U`` be the documents of both rankings sorted by id (Python's order: code points
    for strings, as repro_eval), ``n`` the length of the
    shorter ranking, and for rank ``i = 1..n`` let ``o_i`` and ``r_i`` be the positions in
    ``U`` of the original's and the reproduction's ``i``-th document. KTU is Kendall's τ of
    the ``n`` pairs ``(o_i, r_i)`` (:func:`scipy.stats.kendalltau`; neither sequence has ties,
    so τ-b is τ-a)::

        KTU = (C - D) / (n (n - 1) / 2)

    with ``C`` (``D``) the pairs of ranks ``i < j`` that the two sequences order alike
    (oppositely), rounded to 14 decimals as repro_eval does (scipy's arithmetic leaves
    0.9999999999999999 for identical rankings). Identical rankings give 1, one the reverse of
    the other -1. The numbering by
    id makes the value depend on the ids when the two rankings hold different documents.

    repro_eval raises an error when one ranking is shorter than the other (a run that
    retrieved fewer than ``k`` documents for the query); here both are cut to the shorter
    length ``n``.

    Examples
    --------
    >>> ktu(["a", "b", "c"], ["a", "b", "c"]), ktu(["a", "b", "c"], ["c", "b", "a"])
    (1.0, -1.0)
    >>> round(ktu(["a", "b", "c"], ["b", "a", "c"]), 4)
    0.3333
    """
    from scipy import stats

    first, second = list(original), list(reproduced)
    for name, ranking in (("original", first), ("reproduced", second)):
        if len(set(ranking)) != len(ranking):
            raise OptionError(name, "a ranking with each document at most once", "repeated ids")
    n = min(len(first), len(second))
    if n < 2:
        return math.nan
    first, second = first[:n], second[:n]
    union = {doc: i for i, doc in enumerate(sorted(set(first) | set(second)))}  # type: ignore[type-var]
    o = np.fromiter((union[d] for d in first), dtype=np.int64, count=n)
    r = np.fromiter((union[d] for d in second), dtype=np.int64, count=n)
    return round(float(stats.kendalltau(o, r).statistic), 14)


def rmse(original: ArrayLike, reproduced: ArrayLike) -> float:
    """Root mean square error of reproduced per-query scores against the original ones.

    Parameters
    ----------
    original, reproduced:
        The scores of one measure on the same queries, in the same order.

    Notes
    -----
    With ``n`` queries and scores ``o_j`` and ``r_j``::

        RMSE = sqrt( 1/n Σ_j (o_j - r_j)^2 )

    0 for a perfect reproduction of every query's score.

    Examples
    --------
    >>> rmse([0.5, 0.2], [0.5, 0.6])
    0.282842712474619
    """
    o, r = _pair(original, reproduced)
    return float(math.sqrt(np.mean(np.square(o - r))))


def nrmse(original: ArrayLike, reproduced: ArrayLike) -> float:
    """RMSE normalised by the largest RMSE the original scores allow (scores in [0, 1]).

    Notes
    -----
    A score ``o_j`` in [0, 1] can be missed by at most ``max(o_j, 1 - o_j)``, so::

        nRMSE = RMSE / sqrt( 1/n Σ_j max(o_j, 1 - o_j)^2 )

    in [0, 1] for measures bounded by [0, 1] (repro_eval's ``nRMSE``; the denominator is
    never 0, as ``max(o, 1 - o) >= 1/2``). For measures outside [0, 1] (counts, DCG) the
    normalisation has no meaning.

    Examples
    --------
    >>> round(nrmse([0.5, 0.2], [0.5, 0.6]), 4)
    0.424
    """
    o, r = _pair(original, reproduced)
    worst = math.sqrt(float(np.mean(np.square(np.maximum(o, 1.0 - o)))))
    return rmse(o, r) / worst


def _pair(x: ArrayLike, y: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise OptionError("reproduced", f"scores of the same {a.size} queries", b.shape)
    if a.size == 0:
        raise EvaluationError("no query to compare: the score lists are empty.")
    return a, b


def effect_ratio(
    original_baseline: ArrayLike,
    original_advanced: ArrayLike,
    reproduced_baseline: ArrayLike,
    reproduced_advanced: ArrayLike,
) -> float:
    """Effect Ratio: the improvement of the advanced run over the baseline, reproduced over
    original.

    Parameters
    ----------
    original_baseline, original_advanced:
        Per-query scores of one measure in the original experiment (the same queries).
    reproduced_baseline, reproduced_advanced:
        The same in the reproduced or replicated experiment (its own queries).

    Notes
    -----
    With the per-query improvement ``Δ_j = advanced_j - baseline_j`` and its mean over each
    experiment's own queries::

        ER = mean(Δ_reproduced) / mean(Δ_original)

    1: the effect is reproduced; between 0 and 1: smaller; above 1: larger; below 0: the
    reproduced advanced run is worse than its baseline. NaN when the original shows no
    effect (``mean(Δ_original) = 0``; repro_eval divides by zero).

    Examples
    --------
    >>> round(effect_ratio([0.2, 0.4], [0.4, 0.6], [0.2, 0.3], [0.3, 0.4]), 4)
    0.5
    """
    original = _improvement(original_baseline, original_advanced, "original_advanced")
    reproduced = _improvement(reproduced_baseline, reproduced_advanced, "reproduced_advanced")
    return reproduced / original if original != 0 else math.nan


def _improvement(baseline: ArrayLike, advanced: ArrayLike, name: str) -> float:
    b = np.asarray(baseline, dtype=np.float64)
    a = np.asarray(advanced, dtype=np.float64)
    if b.ndim != 1 or a.shape != b.shape:
        raise OptionError(name, f"scores of the same {b.size} queries as its baseline", a.shape)
    if b.size == 0:
        raise EvaluationError("no query to compare: the score lists are empty.")
    return float(np.mean(a - b))


def delta_ri(
    original_baseline: ArrayLike,
    original_advanced: ArrayLike,
    reproduced_baseline: ArrayLike,
    reproduced_advanced: ArrayLike,
) -> float:
    """Delta Relative Improvement: the relative improvement of the advanced run over the
    baseline, original minus reproduced.

    Parameters
    ----------
    original_baseline, original_advanced, reproduced_baseline, reproduced_advanced:
        As :func:`effect_ratio`.

    Notes
    -----
    With each experiment's mean scores ``B`` (baseline) and ``A`` (advanced)::

        RI = (A - B) / B
        ΔRI = RI_original - RI_reproduced

    0: the relative improvement is reproduced; above 0: smaller than the original one;
    below 0: larger. NaN when a baseline's mean is 0 (repro_eval divides by zero).

    Examples
    --------
    >>> round(delta_ri([0.2, 0.4], [0.4, 0.6], [0.2, 0.3], [0.3, 0.4]), 4)
    0.2667
    """
    ri_original = _relative(original_baseline, original_advanced, "original_advanced")
    ri_reproduced = _relative(reproduced_baseline, reproduced_advanced, "reproduced_advanced")
    return ri_original - ri_reproduced


def _relative(baseline: ArrayLike, advanced: ArrayLike, name: str) -> float:
    _improvement(baseline, advanced, name)  # the same checks
    b = float(np.mean(np.asarray(baseline, dtype=np.float64)))
    a = float(np.mean(np.asarray(advanced, dtype=np.float64)))
    return (a - b) / b if b != 0 else math.nan


def student_t_p_value(x: ArrayLike, y: ArrayLike) -> float:
    """Two-sided p-value of Student's unpaired t-test (equal variances) of two samples.

    Parameters
    ----------
    x, y:
        Per-query scores of one measure on two different sets of queries (at least 2 in all
        and 1 in each).

    Notes
    -----
    The p-value of :func:`scipy.stats.ttest_ind` with ``equal_var=True`` (the test
    repro_eval runs for a replication), pooled variance over ``n_x + n_y - 2`` degrees of
    freedom. When neither sample varies scipy has no number: here equal means give 1 and
    different means give 0, as :func:`~cranfield.stats.paired_t_test` does for constant
    differences.

    Examples
    --------
    >>> round(student_t_p_value([0.5, 0.7, 0.2, 0.9], [0.4, 0.5, 0.3]), 4)
    0.3832
    """
    from scipy import stats

    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.ndim != 1 or b.ndim != 1 or a.size < 1 or b.size < 1 or a.size + b.size < 3:
        raise EvaluationError(
            f"{a.size} and {b.size} queries: the unpaired t-test needs one in each and 3 in all."
        )
    if np.ptp(a) == 0 and np.ptp(b) == 0:
        return 1.0 if a[0] == b[0] else 0.0
    return float(stats.ttest_ind(a, b, equal_var=True).pvalue)


# --------------------------------------------------------------------------- the result


@dataclass(frozen=True)
class ReproducedRun:
    """One original run and its reproduction (or replication), compared.

    Attributes
    ----------
    role:
        ``"baseline"`` or ``"advanced"``.
    original, reproduced:
        The two runs' names.
    means_original, means_reproduced:
        ``{measure: mean over the queries}`` (repro_eval's ARP).
    p_values:
        ``{measure: p-value}`` of the t-test between the per-query scores (paired for a
        reproduction, Student's unpaired for a replication).
    rmse, nrmse:
        ``{measure: value}`` (:func:`rmse`, :func:`nrmse`); empty for a replication.
    ktu:
        ``{cutoff: mean KTU over the queries}`` (:func:`ktu`, undefined queries left out);
        empty without the rankings or for a replication.
    ktu_per_query:
        ``{cutoff: {query: KTU}}``.
    rbo:
        The mean RBO over the queries (NaN without the rankings).
    rbo_per_query:
        ``{query: RBO}``.
    """

    role: str
    original: str
    reproduced: str
    means_original: dict[str, float]
    means_reproduced: dict[str, float]
    p_values: dict[str, float]
    rmse: dict[str, float] = field(default_factory=dict)
    nrmse: dict[str, float] = field(default_factory=dict)
    ktu: dict[int, float] = field(default_factory=dict)
    ktu_per_query: dict[int, dict[str, float]] = field(default_factory=dict)
    rbo: float = math.nan
    rbo_per_query: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready, non-finite numbers as ``None``)."""
        measures: dict[str, Any] = {}
        for m in self.means_original:
            row = {
                "original": _finite(self.means_original[m]),
                "reproduced": _finite(self.means_reproduced[m]),
                "p_value": _finite(self.p_values[m]),
            }
            if self.rmse:
                row["rmse"] = _finite(self.rmse[m])
                row["nrmse"] = _finite(self.nrmse[m])
            measures[m] = row
        return {
            "original": self.original,
            "reproduced": self.reproduced,
            "measures": measures,
            "ktu": {str(k): _finite(v) for k, v in self.ktu.items()},
            "rbo": _finite(self.rbo),
            "per_query": {
                "ktu": {
                    str(k): {q: _finite(v) for q, v in values.items()}
                    for k, values in self.ktu_per_query.items()
                },
                "rbo": {q: _finite(v) for q, v in self.rbo_per_query.items()},
            },
        }


@dataclass(frozen=True, eq=False)
class Reproducibility:
    """What :func:`reproducibility` returns.

    Attributes
    ----------
    kind:
        ``"reproducibility"`` (the same queries and qrels: paired comparisons) or
        ``"replicability"`` (another collection: unpaired).
    measures:
        The measures, in order.
    runs:
        The baseline's comparison, then the advanced run's (when given).
    queries_original, queries_reproduced:
        How many queries each experiment's scores are taken over.
    effect_ratio, delta_ri:
        ``{measure: value}`` between the baseline and the advanced run (:func:`effect_ratio`,
        :func:`delta_ri`); empty with one run per experiment.
    cutoffs:
        KTU's cutoffs.
    rbo_p, rbo_depth:
        RBO's persistence and the depth the rankings are cut at.
    ranked_queries:
        The queries the rankings are compared on (both runs of a pair answer them).
    notes:
        What aligning the inputs did, one sentence each.
    """

    kind: str
    measures: tuple[str, ...]
    runs: tuple[ReproducedRun, ...]
    queries_original: int
    queries_reproduced: int
    effect_ratio: dict[str, float]
    delta_ri: dict[str, float]
    cutoffs: tuple[int, ...]
    rbo_p: float
    rbo_depth: int
    ranked_queries: int = 0
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        pairs = ", ".join(f"{r.original}->{r.reproduced}" for r in self.runs)
        return (
            f"Reproducibility({self.kind}, runs=[{pairs}], measures={list(self.measures)}, "
            f"queries={self.queries_original}/{self.queries_reproduced})"
        )

    @property
    def test(self) -> str:
        """The test behind the p-values, in words."""
        return "paired t-test" if self.kind == "reproducibility" else "Student's unpaired t-test"

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready, non-finite numbers as ``None``)."""
        return {
            "kind": self.kind,
            "test": self.test,
            "measures": list(self.measures),
            "queries": {"original": self.queries_original, "reproduced": self.queries_reproduced},
            "runs": {r.role: r.to_dict() for r in self.runs},
            "effect_ratio": {m: _finite(v) for m, v in self.effect_ratio.items()},
            "delta_ri": {m: _finite(v) for m, v in self.delta_ri.items()},
            "cutoffs": list(self.cutoffs),
            "rbo_p": self.rbo_p,
            "rbo_depth": self.rbo_depth,
            "ranked_queries": self.ranked_queries,
            "notes": list(self.notes),
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text."""
        check_int("indent", indent, minimum=0, none=True)
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False) + "\n"


# --------------------------------------------------------------------------- computing it


def check_settings(*, cutoffs: Sequence[int], p: float, rbo_depth: int) -> tuple[int, ...]:
    """Refuse bad ranking settings of :func:`reproducibility` before anything is evaluated;
    return the cutoffs as a tuple.

    Raises
    ------
    OptionError
        A cutoff below 1 (or none), ``p`` outside (0, 1), ``rbo_depth`` below 1.
    """
    cuts = tuple(check_int("cutoffs", k, minimum=1) for k in cutoffs)
    if not cuts:
        raise OptionError("cutoffs", "at least one cutoff", "none")
    check_float("p", p, minimum=0.0, maximum=1.0, above=True, below=True)
    check_int("rbo_depth", rbo_depth, minimum=1)
    return cuts


def reproducibility(
    original: ScoreTable,
    reproduced: ScoreTable,
    *,
    rankings: Sequence[tuple[Mapping[str, Sequence[Hashable]], Mapping[str, Sequence[Hashable]]]]
    | None = None,
    replicated: bool = False,
    cutoffs: Sequence[int] = DEFAULT_CUTOFFS,
    p: float = 0.95,
    rbo_depth: int = 1000,
) -> Reproducibility:
    """Compare an original experiment with its reproduction or replication.

    Parameters
    ----------
    original:
        The original runs scored on the original qrels: the baseline, then (optionally) the
        advanced run.
    reproduced:
        Their reproductions in the same order, scored on the same qrels, or (``replicated``)
        their replications scored on another collection's qrels; the same measures.
    rankings:
        For each run pair, ``(original, reproduced)`` rankings ``{query: doc ids best
        first}`` (e.g. from :func:`cranfield.data.ranking.ranked_doc_ids`), for KTU and RBO;
        ``None``: no ranking-level measures. Ignored for a replication (other queries).
    replicated:
        ``False``: a reproduction (paired t-test, RMSE, KTU and RBO on the common queries);
        ``True``: a replication (Student's unpaired t-test; ER and ΔRI).
    cutoffs:
        KTU is computed on the top ``k`` documents for each ``k``.
    p:
        RBO's persistence (repro_eval's default 0.95).
    rbo_depth:
        RBO compares the rankings cut at this depth ``D`` (repro_eval's default 1000).

    Returns
    -------
    Reproducibility

    Raises
    ------
    OptionError
        A bad setting; tables with different numbers of runs, more than two runs, or
        different measures.
    EvaluationError
        No query in common (reproduction) or too few queries for a test.

    Notes
    -----
    RBO is the lower bound ``RBO_min`` of Webber et al. (2010) of the rankings cut at
    ``rbo_depth`` (:func:`~cranfield.stats.rank_correlation.rbo`): the overlap seen down to the
    depth and none below. repro_eval 0.5 reports the truncated sum normalised by its
    weights, ``(1-p)/(1-p^D) Σ_{d=1..D} p^(d-1) X_d/d``, with ``X_d`` the documents the two
    prefixes of depth ``d`` share; the two differ by at most ``p^D`` (about 5e-23 at
    ``p = 0.95``, ``D = 1000``).

    The rankings are best first as given; :func:`~cranfield.data.ranking.ranked_doc_ids` orders
    a run as trec_eval does (score descending, ties by doc id descending). repro_eval keeps
    the order of the file and reverses the doc ids within each stretch of equal scores: the
    same rankings for a file sorted by score.

    The paired p-values are :func:`~cranfield.stats.paired_t_test`'s, which are scipy's
    ``ttest_rel`` (repro_eval's) except where every difference is the same: identical scores
    (a reproduction that gives the original's numbers exactly) give 1 here, where scipy, and so
    repro_eval, gives NaN (0/0); a constant non-zero shift gives 0, as scipy does when the
    differences are exactly equal (a shift with rounding noise in its last bits is not
    constant: both then give scipy's tiny p-value).

    A reproduction is compared on the queries both tables score (they are the same with the
    default ``missing="zero"``). Means, ER and ΔRI are over each experiment's own queries.

    Examples
    --------
    >>> from cranfield.evaluation.evaluator import Evaluator
    >>> qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}}
    >>> ev = Evaluator(qrels, ["AP"])
    >>> orig = ev.many({"bm25": {"q1": {"d1": 2.0, "d9": 1.0}, "q2": {"d3": 1.0}}})
    >>> rep = ev.many({"bm25-r": {"q1": {"d9": 2.0, "d1": 1.0}, "q2": {"d3": 1.0}}})
    >>> r = reproducibility(orig, rep)
    >>> round(r.runs[0].rmse["AP"], 4), r.runs[0].p_values["AP"] > 0.05
    (0.1768, True)
    """
    check_bool("replicated", replicated)
    cuts = check_settings(cutoffs=cutoffs, p=p, rbo_depth=rbo_depth)
    if len(original) != len(reproduced) or not 1 <= len(original) <= len(ROLES):
        raise OptionError(
            "reproduced",
            f"as many runs as the original, 1 or 2 (baseline, advanced), got {len(original)}",
            len(reproduced),
        )
    measures = [table_measure(original, m) for m in original.measures]
    names = [str(m) for m in measures]
    others = [table_measure(reproduced, name) for name in names]
    if rankings is not None and len(rankings) != len(original):
        raise OptionError(
            "rankings", f"one pair of rankings per run ({len(original)})", len(rankings)
        )
    notes: list[str] = list(dict.fromkeys((*original.notes, *reproduced.notes)))
    if replicated:
        topics_o, topics_r = list(original.topics), list(reproduced.topics)
    else:
        topics_o = topics_r = _common_topics(original, reproduced, notes)
    scores_o = {m: _select(original, m, topics_o) for m in measures}
    scores_r = {m: _select(reproduced, o, topics_r) for m, o in zip(measures, others, strict=True)}
    ranked = 0
    runs = []
    for i in range(len(original)):
        levels = _ranking_levels(
            None if rankings is None or replicated else rankings[i], cuts, p, rbo_depth, notes
        )
        ranked = max(ranked, len(levels[2]))
        runs.append(
            _run_pair(
                ROLES[i],
                (original.names[i], reproduced.names[i]),
                {n: scores_o[m][:, i] for n, m in zip(names, measures, strict=True)},
                {n: scores_r[m][:, i] for n, m in zip(names, measures, strict=True)},
                replicated,
                levels,
            )
        )
    er: dict[str, float] = {}
    dri: dict[str, float] = {}
    if len(original) == len(ROLES):
        for n, m in zip(names, measures, strict=True):
            o, r = scores_o[m], scores_r[m]
            er[n] = effect_ratio(o[:, 0], o[:, 1], r[:, 0], r[:, 1])
            dri[n] = delta_ri(o[:, 0], o[:, 1], r[:, 0], r[:, 1])
    return Reproducibility(
        kind="replicability" if replicated else "reproducibility",
        measures=tuple(names),
        runs=tuple(runs),
        queries_original=len(topics_o),
        queries_reproduced=len(topics_r),
        effect_ratio=er,
        delta_ri=dri,
        cutoffs=cuts,
        rbo_p=float(p),
        rbo_depth=rbo_depth,
        ranked_queries=ranked,
        notes=tuple(dict.fromkeys(notes)),
    )


def reproduce(  # noqa: PLR0913 -- entry point: inputs, naming, the ranking settings, options, where
    qrels: QrelsLike,
    original: Sequence[RunLike],
    reproduced: Sequence[RunLike],
    measures: MeasureLike | Iterable[MeasureLike] = DEFAULT_MEASURES,
    *,
    reproduced_qrels: QrelsLike | None = None,
    names: RunNaming | Sequence[str] = "file",
    cutoffs: Sequence[int] = DEFAULT_CUTOFFS,
    p: float = 0.95,
    rbo_depth: int = 1000,
    options: EvalOptions | None = None,
    execution: Execution | None = None,
    **kwargs: Unpack[EvalExecutionKwargs],
) -> Reproducibility:
    """Score an original experiment and its reproduction (or replication), rank their
    documents, and compare the two: :func:`reproducibility` in one call.

    Parameters
    ----------
    qrels:
        The original experiment's judgments (anything :func:`cranfield.evaluate` accepts).
    original:
        The original runs: the baseline, then optionally the advanced run (paths, ``Run``
        objects, DataFrames or dicts).
    reproduced:
        Their reproductions (or replications), in the same order; a run may be its own
        reproduction.
    measures:
        Measure names or ``Measure`` objects (default ``AP``, ``nDCG@10``, ``P@10``).
    reproduced_qrels:
        ``None``: a reproduction, every run scored on ``qrels`` and the rankings compared
        (KTU, RBO). Another collection's judgments: a replication, the reproduced runs
        scored on them (no rankings, RMSE or nRMSE; Student's unpaired t-test).
    names:
        How the runs are named, every distinct run once over both experiments (so that
        ``dl19/bm25`` and ``dl20/bm25`` are told apart): ``"file"`` (default), ``"tag"``, or
        one name per distinct run, the original runs first (:mod:`cranfield.io.run_names`).
    cutoffs, p, rbo_depth:
        KTU's cutoffs, RBO's persistence and the depth RBO cuts the rankings at, as
        :func:`reproducibility` takes them.
    options, **kwargs:
        The evaluation options of :func:`cranfield.evaluate`
        (:class:`~cranfield.evaluation.options.EvalOptions`, whole or as keywords); its
        ``run_format`` also reads the runs ranked.
    execution, **kwargs:
        Where and how the runs are scored (:class:`~cranfield.evaluation.execution.
        Execution`, whole or as keywords: ``jobs``, ``scheduler``, ``store``, ``progress``);
        the numbers are the same.

    Returns
    -------
    Reproducibility

    Raises
    ------
    cranfield.errors.OptionError
        A bad setting (checked before anything is read); not one or two runs on each side,
        or not as many reproduced runs as original ones; one run twice on one side.
    cranfield.errors.EvaluationError
        As :func:`reproducibility` (no query in common, too few queries for a test).

    Notes
    -----
    Each run is ranked by :func:`~cranfield.data.ranking.ranked_doc_ids` (score descending,
    ties by document id descending: trec_eval's order), read once however many times it
    is given. The numbers are those of :func:`reproducibility` on the tables
    :meth:`Evaluator.many <cranfield.evaluation.evaluator.Evaluator.many>` scores and those
    rankings.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}}
    >>> bm25 = {"q1": {"d1": 2.0, "d9": 1.0, "d2": 0.5}, "q2": {"d3": 1.0, "d8": 0.5}}
    >>> again = {"q1": {"d9": 2.0, "d1": 1.0, "d2": 0.5}, "q2": {"d3": 1.0, "d8": 0.5}}
    >>> r = reproduce(qrels, [bm25], [again], "AP", names=["bm25", "bm25-r"], cutoffs=[2, 3])
    >>> run = r.runs[0]
    >>> run.original, run.reproduced, run.ktu_per_query[2]
    ('bm25', 'bm25-r', {'q1': -1.0, 'q2': 1.0})
    >>> round(run.rmse["AP"], 4), run.p_values["AP"] > 0.05
    (0.1768, True)
    """
    from cranfield.data.ranking import ranked_doc_ids
    from cranfield.evaluation.evaluator import Evaluator
    from cranfield.evaluation.execution import execution_from

    cuts = check_settings(cutoffs=cutoffs, p=p, rbo_depth=rbo_depth)
    everything, sides = _experiments(original, reproduced, names)
    first, second = (_part(everything, side) for side in sides)
    rest: dict[str, Any] = dict(kwargs)
    run_on = execution_from(execution, rest, caller="reproduce")
    evaluator = Evaluator(qrels, measures, options, **rest)
    table = evaluator.many(first, execution=run_on)
    replicated = reproduced_qrels is not None
    other = Evaluator(reproduced_qrels, measures, evaluator.options) if replicated else evaluator
    rankings = None
    if not replicated:
        fmt = evaluator.options.run_format
        ranked = [ranked_doc_ids(everything.load(i, format=fmt)) for i in range(len(everything))]
        rankings = [(ranked[a], ranked[b]) for a, b in zip(*sides, strict=True)]
    return reproducibility(
        table,
        other.many(second, execution=run_on),
        rankings=rankings,
        replicated=replicated,
        cutoffs=cuts,
        p=p,
        rbo_depth=rbo_depth,
    )


def _same(a: object, b: object) -> bool:
    """One run given twice: the same object, or the same path."""
    paths = isinstance(a, (str, Path)) and isinstance(b, (str, Path))
    return a is b or (paths and str(a) == str(b))


def _experiments(
    original: Sequence[RunLike], reproduced: Sequence[RunLike], names: RunNaming | Sequence[str]
) -> tuple[RunSet, tuple[list[int], list[int]]]:
    """Every distinct run of both experiments named once, and where each side's runs are."""
    from cranfield.io.runset import RunSet

    for label, runs in (("original", original), ("reproduced", reproduced)):
        if isinstance(runs, (str, Path)) or not isinstance(runs, Sequence):
            what = "a list of runs: the baseline, then optionally the advanced run"
            raise OptionError(label, what, type(runs).__name__)
        if not 1 <= len(runs) <= len(ROLES):
            raise OptionError(label, "a baseline run and at most one advanced run", len(runs))
    if len(reproduced) != len(original):
        raise OptionError(
            "reproduced", f"as many runs as the original ({len(original)})", len(reproduced)
        )
    distinct: list[RunLike] = []
    for run in (*original, *reproduced):
        if not any(_same(run, seen) for seen in distinct):
            distinct.append(run)
    everything = RunSet.of(distinct, names)
    sides = tuple(
        [next(i for i, seen in enumerate(distinct) if _same(run, seen)) for run in runs]
        for runs in (original, reproduced)
    )
    for label, side in zip(("original", "reproduced"), sides, strict=True):
        if len(set(side)) != len(side):
            raise OptionError(label, "two different runs", "one run twice")
    return everything, (sides[0], sides[1])


def _part(runs: RunSet, positions: Sequence[int]) -> RunSet:
    """The runs at ``positions``, with the names given to the whole set."""
    from cranfield.io.runset import RunSet

    return RunSet.of({runs.names[i]: runs.sources[i] for i in positions})


def _common_topics(original: ScoreTable, reproduced: ScoreTable, notes: list[str]) -> list[str]:
    mine = set(reproduced.topics)
    topics = [t for t in original.topics if t in mine]
    if not topics:
        raise EvaluationError(
            "the original and the reproduced runs are scored on no query in common: "
            "nothing to compare (a replication on other queries? give its qrels)."
        )
    for label, table in (("original", original), ("reproduced", reproduced)):
        extra = [t for t in table.topics if t not in set(topics)]
        if extra:
            notes.append(f"{len(extra)} query(ies) scored only for the {label} runs left out.")
    return topics


def _select(table: ScoreTable, measure: Any, topics: Sequence[str]) -> NDArray[np.float64]:
    matrix = table.matrix(measure)
    rows = {t: i for i, t in enumerate(table.topics)}
    return matrix[[rows[t] for t in topics], :]


def _run_pair(
    role: str,
    names: tuple[str, str],
    original: dict[str, NDArray[np.float64]],
    reproduced: dict[str, NDArray[np.float64]],
    replicated: bool,
    levels: tuple[dict[int, dict[str, float]], dict[str, float], list[str]],
) -> ReproducedRun:
    p_values = {}
    for m, o in original.items():
        r = reproduced[m]
        if replicated:
            p_values[m] = student_t_p_value(o, r)
        else:
            if o.size < 2:
                raise EvaluationError(f"{o.size} query(ies): the paired t-test needs at least 2.")
            p_values[m] = paired_t_test(o, r).p_value
    ktu_per_query, rbo_per_query, _ = levels
    return ReproducedRun(
        role=role,
        original=names[0],
        reproduced=names[1],
        means_original={m: float(np.mean(v)) for m, v in original.items()},
        means_reproduced={m: float(np.mean(v)) for m, v in reproduced.items()},
        p_values=p_values,
        rmse={} if replicated else {m: rmse(o, reproduced[m]) for m, o in original.items()},
        nrmse={} if replicated else {m: nrmse(o, reproduced[m]) for m, o in original.items()},
        ktu={k: _mean(v.values()) for k, v in ktu_per_query.items()},
        ktu_per_query=ktu_per_query,
        rbo=_mean(rbo_per_query.values()) if rbo_per_query else math.nan,
        rbo_per_query=rbo_per_query,
    )


def _mean(values: Any) -> float:
    x = np.fromiter(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    return float(np.mean(x)) if x.size else math.nan


def _ranking_levels(
    rankings: tuple[Mapping[str, Sequence[Hashable]], Mapping[str, Sequence[Hashable]]] | None,
    cutoffs: tuple[int, ...],
    p: float,
    depth: int,
    notes: list[str],
) -> tuple[dict[int, dict[str, float]], dict[str, float], list[str]]:
    """KTU per cutoff and RBO, per query both rankings answer."""
    if rankings is None:
        return {}, {}, []
    original, reproduced = rankings
    queries = sorted((q for q in original if q in reproduced), key=lambda q: q.encode())
    for label, mine in (("original", original), ("reproduced", reproduced)):
        extra = [q for q in mine if q not in reproduced or q not in original]
        if extra:
            notes.append(
                f"{len(extra)} query(ies) answered only by the {label} run left out of KTU and RBO."
            )
    ktus: dict[int, dict[str, float]] = {k: {} for k in cutoffs}
    rbos: dict[str, float] = {}
    for q in queries:
        a, b = list(original[q]), list(reproduced[q])
        for k in cutoffs:
            ktus[k][q] = ktu(a[:k], b[:k])
        rbos[q] = rbo(a[:depth], b[:depth], p=p).min
    return ktus, rbos, queries
