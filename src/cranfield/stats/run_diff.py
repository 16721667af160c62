"""How two runs differ, query by query: ``diff_runs(qrels, run_a, run_b) -> RunDiff``.

``compare`` says whether run B beats run A; :func:`diff_runs` says where. For every query it
gives the score of each run under each measure and their difference ``B - A``, the rank-biased
overlap of the two rankings (:func:`~cranfield.stats.rank_correlation.rbo`) and the unjudged
documents that entered B's top ``k`` (candidates for judging: B's score there rests on them
counting as non-relevant). Over the queries it gives the paired tests of
:func:`~cranfield.stats.comparison.compare` (A the baseline), the largest wins and losses of B
under each measure, and, for those queries (or the queries asked for), where each judged
relevant document stands in both runs.

Ranks follow the one ranking rule of :mod:`cranfield.data.ranking` (score descending, ties by
document id descending, ``depth`` and ``judged_only`` applied), through
:meth:`Evaluator.ranking <cranfield.evaluation.evaluator.Evaluator.ranking>`: the ranks shown
are those every measure scored.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Unpack

import numpy as np

from cranfield._validate import check_float, check_int
from cranfield.errors import OptionError
from cranfield.stats.plain_data import finite_or_none as _finite
from cranfield.stats.rank_correlation import rbo

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from cranfield._types import RunNaming
    from cranfield.data.qrels import Qrels
    from cranfield.data.ranking import Ranking
    from cranfield.evaluation.evaluator import MeasureLike
    from cranfield.evaluation.options import EvalOptions
    from cranfield.io.load import QrelsLike, RunLike
    from cranfield.stats.comparison import CompareKwargs, Comparison, PairComparison
    from cranfield.stats.plan import TestPlan

__all__ = ["MovedDocument", "QueryDiff", "RunDiff", "diff_runs"]

DEFAULT_MEASURES: Final = ("AP", "nDCG@10")


# --------------------------------------------------------------------------- the result


@dataclass(frozen=True)
class MovedDocument:
    """Where one judged relevant document stands in the two runs.

    Attributes
    ----------
    doc_id:
        The document.
    grade:
        Its judged level in the qrels (at least the relevance level).
    rank_a, rank_b:
        Its rank (1 = first) in run A and run B by the ranking rule, ``None`` when the run
        did not retrieve it within the evaluation depth.
    """

    doc_id: str
    grade: int
    rank_a: int | None
    rank_b: int | None

    def to_dict(self) -> dict[str, Any]:
        """Plain data."""
        return {
            "doc_id": self.doc_id,
            "grade": self.grade,
            "rank_a": self.rank_a,
            "rank_b": self.rank_b,
        }


@dataclass(frozen=True)
class QueryDiff:
    """One query of a :class:`RunDiff`.

    Attributes
    ----------
    query_id:
        The query.
    scores_a, scores_b:
        ``{measure: score}`` of run A and run B on this query.
    rbo:
        Rank-biased overlap (``ext``) of the two rankings; NaN when neither run ranks a
        document for the query.
    entered:
        The unjudged documents in B's top ``k`` that are not in A's top ``k``, in B's order.
    relevant:
        Every judged relevant document with its rank in each run, for the queries detailed
        (``None`` for the others).
    """

    query_id: str
    scores_a: dict[str, float]
    scores_b: dict[str, float]
    rbo: float
    entered: tuple[str, ...]
    relevant: tuple[MovedDocument, ...] | None = None

    def delta(self, measure: str) -> float:
        """``B - A`` on ``measure``."""
        return self.scores_b[measure] - self.scores_a[measure]

    def to_dict(self) -> dict[str, Any]:
        """Plain data (non-finite numbers as ``None``)."""
        out: dict[str, Any] = {
            "query_id": self.query_id,
            "scores": {
                m: {
                    "a": _finite(a),
                    "b": _finite(self.scores_b[m]),
                    "delta": _finite(self.delta(m)),
                }
                for m, a in self.scores_a.items()
            },
            "rbo": _finite(self.rbo),
            "entered": list(self.entered),
        }
        if self.relevant is not None:
            out["relevant"] = [d.to_dict() for d in self.relevant]
        return out


@dataclass(frozen=True, eq=False)
class RunDiff:
    """What :func:`diff_runs` returns: two runs compared query by query.

    Attributes
    ----------
    run_a, run_b:
        The two run names; differences are ``B - A`` and A is the baseline of the tests.
    measures:
        Canonical measure names.
    queries:
        One :class:`QueryDiff` per compared query, bytewise order of the ids.
    comparison:
        The paired tests of :func:`~cranfield.stats.comparison.compare` on the same scores
        (its means, tests, correction, seed and notes).
    wins, losses:
        ``{measure: query ids}``: the ``top`` queries where B gains most over A (largest
        positive difference first) and where it loses most (most negative first); equal
        differences by query id, bytewise.
    detailed:
        The queries whose relevant documents are listed (:attr:`QueryDiff.relevant`).
    top:
        How many wins and losses are kept per measure.
    k:
        The depth of "top k" for the documents that entered B's top.
    p:
        RBO's persistence.
    """

    run_a: str
    run_b: str
    measures: tuple[str, ...]
    queries: tuple[QueryDiff, ...]
    comparison: Comparison = field(repr=False)
    wins: dict[str, tuple[str, ...]]
    losses: dict[str, tuple[str, ...]]
    detailed: tuple[str, ...]
    top: int
    k: int
    p: float

    def __repr__(self) -> str:
        return (
            f"RunDiff({self.run_a!r} -> {self.run_b!r}, queries={len(self.queries)}, "
            f"measures={list(self.measures)}, rbo_mean={self.rbo_mean:.4f}, "
            f"entered={self.entered_total})"
        )

    @property
    def rbo_mean(self) -> float:
        """The mean RBO over the queries where it is defined (NaN if none)."""
        values = [q.rbo for q in self.queries if math.isfinite(q.rbo)]
        return float(np.mean(values)) if values else math.nan

    @property
    def entered_total(self) -> int:
        """How many unjudged documents entered B's top ``k``, over all queries."""
        return sum(len(q.entered) for q in self.queries)

    @property
    def entered_queries(self) -> int:
        """How many queries have an unjudged document that entered B's top ``k``."""
        return sum(1 for q in self.queries if q.entered)

    def query(self, query_id: str) -> QueryDiff:
        """The :class:`QueryDiff` of ``query_id``."""
        for q in self.queries:
            if q.query_id == query_id:
                return q
        raise OptionError("query", "a compared query", query_id)

    def pair(self, measure: str) -> PairComparison:
        """The tests of B against A on ``measure``."""
        return self.comparison.pair(self.run_a, self.run_b, measure)

    def notes(self) -> list[str]:
        """The method in sentences: the comparison's, then RBO's."""
        return [
            *self.comparison.describe(),
            f"RBO with persistence p = {self.p:g} on the rankings as evaluated (ties by the "
            "ranking rule), mean over the queries either run ranks.",
        ]

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready, non-finite numbers as ``None``)."""
        c = self.comparison
        by_query = {q.query_id: q for q in self.queries}
        summary: dict[str, Any] = {}
        for m in self.measures:
            pc = self.pair(m)
            summary[m] = {
                "mean_a": _finite(c.means[m][self.run_a]),
                "mean_b": _finite(c.means[m][self.run_b]),
                "mean_difference": _finite(pc.mean_difference),
                "intervals": {
                    kind: [_finite(lo), _finite(hi)] for kind, (lo, hi) in pc.intervals.items()
                },
                "wins": pc.wins,
                "ties": pc.ties,
                "losses": pc.losses,
                "tests": {t: o.to_dict() for t, o in pc.tests.items()},
                "largest_wins": [
                    {"query_id": t, "delta": _finite(by_query[t].delta(m))} for t in self.wins[m]
                ],
                "largest_losses": [
                    {"query_id": t, "delta": _finite(by_query[t].delta(m))} for t in self.losses[m]
                ],
            }
        return {
            "run_a": self.run_a,
            "run_b": self.run_b,
            "measures": list(self.measures),
            "queries": len(self.queries),
            "method": {
                "tests": list(c.tests),
                "correction": c.correction,
                "alpha": c.alpha,
                "n_resamples": c.n_resamples,
                "seed": c.seed,
                "missing_policy": c.missing_policy,
                "top": self.top,
                "k": self.k,
                "rbo_p": self.p,
                "notes": self.notes(),
            },
            "summary": summary,
            "rbo_mean": _finite(self.rbo_mean),
            "entered": {
                "k": self.k,
                "documents": self.entered_total,
                "queries": self.entered_queries,
            },
            "detailed": list(self.detailed),
            "per_query": [q.to_dict() for q in self.queries],
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text (same inputs and seed, same bytes)."""
        check_int("indent", indent, minimum=0, none=True)
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False) + "\n"


# --------------------------------------------------------------------------- computing it


def diff_runs(  # noqa: PLR0913 -- entry point: inputs, naming, plan, options, the diff's own
    qrels: QrelsLike,
    run_a: RunLike,
    run_b: RunLike,
    measures: MeasureLike | Iterable[MeasureLike] = DEFAULT_MEASURES,
    *,
    names: RunNaming | Sequence[str] = "file",
    plan: TestPlan | None = None,
    options: EvalOptions | None = None,
    known: QrelsLike | None = None,
    intents: Any = None,
    top: int = 5,
    k: int = 10,
    queries: str | Sequence[str] | None = None,
    every_query: bool = False,
    p: float = 0.9,
    **kwargs: Unpack[CompareKwargs],
) -> RunDiff:
    """Explain how ``run_b`` differs from ``run_a``, query by query.

    Parameters
    ----------
    qrels, measures, names, plan, options, known, intents, **kwargs:
        As in :func:`~cranfield.stats.comparison.compare` (the evaluation and test options,
        whole or as keywords, and the extra judgments); ``run_a`` is the baseline of the
        tests.
    run_a, run_b:
        The two runs (paths, ``Run`` objects, DataFrames or dicts).
    top:
        How many of the largest wins and losses to keep per measure.
    k:
        The top ``k`` in which to look for unjudged documents that entered with ``run_b``.
    queries:
        The query (or queries) whose relevant documents are listed; default: the largest
        wins and losses of every measure.
    every_query:
        List the relevant documents of every query instead (not with ``queries``).
    p:
        RBO's persistence in (0, 1).

    Returns
    -------
    RunDiff
        Per-query scores, differences, RBO and entered documents; the tests; the largest
        wins and losses; the relevant documents' ranks for the detailed queries.
        :mod:`cranfield.report.run_diff` prints it; ``to_dict`` and ``to_json`` export it.

    Raises
    ------
    cranfield.errors.OptionError
        A bad ``top``, ``k`` or ``p``, a query in ``queries`` that is not compared,
        ``queries`` with ``every_query``, or an option
        :func:`~cranfield.stats.comparison.compare` refuses.
    cranfield.errors.CranfieldError
        As :func:`~cranfield.stats.comparison.compare` (unreadable input, fewer than two
        common queries).

    Notes
    -----
    A document's rank is its position in the ranking every measure scored (score
    descending, ties by document id descending, cut at ``depth``, unjudged documents
    removed first with ``judged_only``). A query a run has no ranking for has no ranked
    document (under ``missing="zero"`` it scores 0). RBO is computed on the whole two
    rankings as evaluated. "Unjudged" means without a qrels entry, or with a negative one
    (pooled but not judged).

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d4": 1}, "q3": {"d5": 1}}
    >>> bm25 = {"q1": {"d3": 3.0, "d1": 2.0, "d2": 1.0}, "q2": {"d4": 2.0, "x": 1.0},
    ...         "q3": {"y": 2.0, "d5": 1.0}}
    >>> dense = {"q1": {"d1": 3.0, "d2": 2.0, "new": 1.0}, "q2": {"x": 2.0, "d4": 1.0},
    ...          "q3": {"d5": 2.0, "y": 1.0}}
    >>> d = diff_runs(qrels, bm25, dense, ["AP"], names=["bm25", "dense"], top=2)
    >>> d.wins["AP"], d.losses["AP"]
    (('q3', 'q1'), ('q2',))
    >>> [(m.doc_id, m.grade, m.rank_a, m.rank_b) for m in d.query("q1").relevant]
    [('d1', 2, 2, 1), ('d2', 1, 3, 2)]
    >>> d.query("q1").entered, d.entered_total
    (('new',), 1)
    """
    from cranfield.evaluation.evaluator import Evaluator
    from cranfield.evaluation.options import options_from
    from cranfield.io.runset import RunSet
    from cranfield.stats.comparison import compare_table, split_options

    top = check_int("top", top, minimum=1)
    k = check_int("k", k, minimum=1)
    p = check_float("p", p, minimum=0.0, maximum=1.0, above=True, below=True)
    test_plan, eval_kwargs = split_options(plan, kwargs, caller="diff_runs")
    opts = options_from(options, eval_kwargs, caller="diff_runs")
    run_set = RunSet.of([run_a, run_b], names)
    # one evaluator: the qrels read once and named as given (their file, in every message)
    evaluator = Evaluator(qrels, measures, opts, known=known, intents=intents)
    if not evaluator.measures:
        raise OptionError("measures", "at least one measure", measures)
    loaded = {name: run_set.load(i, format=opts.run_format) for i, name in enumerate(run_set.names)}
    name_a, name_b = run_set.names
    c = compare_table(evaluator.many(loaded), baseline=name_a, plan=test_plan)
    ranked_a, ranked_b = (
        _ranked_lists(evaluator.ranking(run, name=name).ranking) for name, run in loaded.items()
    )
    wins, losses = _largest(c, name_a, name_b, top)
    if every_query and queries is not None:
        raise OptionError("every_query", "False when queries are given", every_query)
    if every_query:
        detailed = tuple(c.topics)
    elif queries is None:
        detailed = tuple(dict.fromkeys(t for m in c.measures for t in (*wins[m], *losses[m])))
    else:
        compared = set(c.topics)
        queries = [queries] if isinstance(queries, str) else queries
        for q in queries:
            if str(q) not in compared:
                raise OptionError("query", "a query both runs are compared on", q)
        detailed = tuple(dict.fromkeys(str(q) for q in queries))
    relevant = _relevant(evaluator.qrels, detailed, opts.relevance_level)
    per_query = []
    empty: tuple[list[str], list[int]] = ([], [])
    for i, topic in enumerate(c.topics):
        docs_a, _ = ranked_a.get(topic, empty)
        docs_b, codes_b = ranked_b.get(topic, empty)
        moves = None
        if topic in relevant:
            moves = _moves(relevant[topic], docs_a, docs_b)
        per_query.append(
            QueryDiff(
                query_id=topic,
                scores_a={m: float(c.scores[m][i, 0]) for m in c.measures},
                scores_b={m: float(c.scores[m][i, 1]) for m in c.measures},
                rbo=rbo(docs_a, docs_b, p=p).ext if docs_a or docs_b else math.nan,
                entered=_entered(docs_a, docs_b, codes_b, k),
                relevant=moves,
            )
        )
    return RunDiff(
        run_a=name_a,
        run_b=name_b,
        measures=tuple(c.measures),
        queries=tuple(per_query),
        comparison=c,
        wins=wins,
        losses=losses,
        detailed=detailed,
        top=top,
        k=k,
        p=p,
    )


def _ranked_lists(ranking: Ranking) -> dict[str, tuple[list[str], list[int]]]:
    """``{query: (doc ids best first, their judgment codes)}``; a query the run has no
    ranking for (the placeholder of ``missing="zero"``) has none."""
    docs = ranking.doc_id.to_list()
    codes = ranking.rel.tolist()
    bounds = ranking.offsets.tolist()
    out: dict[str, tuple[list[str], list[int]]] = {}
    for i, topic in enumerate(ranking.topics):
        if ranking.missing[i]:
            out[topic] = ([], [])
        else:
            lo, hi = bounds[i], bounds[i + 1]
            out[topic] = (docs[lo:hi], codes[lo:hi])
    return out


def _largest(
    c: Comparison, a: str, b: str, top: int
) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """The ``top`` largest wins and losses of ``b`` over ``a`` per measure."""
    wins: dict[str, tuple[str, ...]] = {}
    losses: dict[str, tuple[str, ...]] = {}
    ia, ib = c.runs.index(a), c.runs.index(b)
    for m in c.measures:
        delta = c.scores[m][:, ib] - c.scores[m][:, ia]
        pairs = [(float(d), t) for d, t in zip(delta, c.topics, strict=True)]
        up = sorted((x for x in pairs if x[0] > 0), key=lambda x: (-x[0], x[1].encode()))
        down = sorted((x for x in pairs if x[0] < 0), key=lambda x: (x[0], x[1].encode()))
        wins[m] = tuple(t for _, t in up[:top])
        losses[m] = tuple(t for _, t in down[:top])
    return wins, losses


def _relevant(
    judgments: Qrels, topics: Sequence[str], level: int
) -> dict[str, list[tuple[str, int]]]:
    """``{query: [(doc id, grade), ...]}`` of the documents judged at ``level`` or above."""
    import polars as pl

    out: dict[str, list[tuple[str, int]]] = {t: [] for t in topics}
    if not topics:
        return out
    rows = (
        judgments.frame.filter(
            pl.col("query_id").is_in(list(topics)) & (pl.col("relevance") >= level)
        )
        .select("query_id", "doc_id", "relevance")
        .iter_rows()
    )
    for query, doc, grade in rows:
        out[query].append((doc, int(grade)))
    return out


def _moves(
    judged: list[tuple[str, int]], docs_a: list[str], docs_b: list[str]
) -> tuple[MovedDocument, ...]:
    """Each relevant document's rank in both runs; best placed first (the better of its two
    ranks, then the higher grade, then the id)."""
    where_a = {d: r for r, d in enumerate(docs_a, start=1)}
    where_b = {d: r for r, d in enumerate(docs_b, start=1)}
    moves = [MovedDocument(doc, grade, where_a.get(doc), where_b.get(doc)) for doc, grade in judged]

    def order(m: MovedDocument) -> tuple[float, int, bytes]:
        best = min(x if x is not None else math.inf for x in (m.rank_a, m.rank_b))
        return (best, -m.grade, m.doc_id.encode())

    return tuple(sorted(moves, key=order))


def _entered(docs_a: list[str], docs_b: list[str], codes_b: list[int], k: int) -> tuple[str, ...]:
    """The unjudged documents (judgment code < 0) of B's top ``k`` not in A's top ``k``."""
    top_a = set(docs_a[:k])
    return tuple(
        d for d, code in zip(docs_b[:k], codes_b[:k], strict=True) if code < 0 and d not in top_a
    )
