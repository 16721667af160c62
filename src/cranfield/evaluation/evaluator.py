"""``evaluate(qrels, run, measures) -> Results``: the library's front door."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from cranfield.data.columns import names
from cranfield.data.ranking import MissingPolicy, Ranking, rank, rank_columns
from cranfield.errors import MeasureError
from cranfield.evaluation.aggregate import AGGREGATIONS, How
from cranfield.evaluation.results import Results
from cranfield.kernels.binary import MIN_GEO_MEAN
from cranfield.kernels.context import EvalContext
from cranfield.kernels.extras import ExtendedContext
from cranfield.measures._parse import parse_measures
from cranfield.measures._spec import Measure

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.data.columns import QrelsColumns
    from cranfield.io.load import QrelsLike, RunLike

# cranfield.io.load (and with it polars) is imported only when the inputs are not two small
# clean TREC files (see cranfield.io.trec_numpy): a command on such files never needs it.

MeasureLike = str | Measure
AggregateOption = How | Mapping[MeasureLike, How] | None


def resolve_measures(measures: MeasureLike | Iterable[MeasureLike]) -> list[Measure]:
    """Parse names (expanding trec_eval names and nicknames), keep order, drop repeats."""
    items = [measures] if isinstance(measures, (str, Measure)) else list(measures)
    out: list[Measure] = []
    for item in items:
        for m in [item] if isinstance(item, Measure) else parse_measures(item):
            if m not in out:
                out.append(m)
    return out


def measure_kwargs(measure: Measure, *, relevance_level: int = 1) -> dict[str, Any]:
    """The keyword arguments of ``measure``'s kernel (``rel`` defaults to ``relevance_level``)."""
    kwargs = measure.kwargs()
    if "rel" in kwargs and not any(k == "rel" for k, _ in measure.params):
        kwargs["rel"] = relevance_level
    return kwargs


def compute(ctx: EvalContext, measure: Measure, *, relevance_level: int = 1) -> NDArray[np.float64]:
    """Per-topic values of ``measure`` on an evaluation context."""
    spec = measure.spec
    kwargs = measure_kwargs(measure, relevance_level=relevance_level)
    values = np.asarray(spec.kernel(ctx, **kwargs), dtype=np.float64)
    if spec.zero_when_missing and ctx.ranking.missing.any():
        values = np.where(ctx.ranking.missing, 0.0, values)
    return values


@dataclass(frozen=True)
class Prepared:
    """Inputs loaded and ranked once: what :func:`evaluate` and :mod:`cranfield.curves` share."""

    run_name: str
    ranking: Ranking
    ctx: ExtendedContext
    missing_topics: list[str]


def prepare(
    qrels: QrelsLike,
    run: RunLike,
    *,
    missing: MissingPolicy = "zero",
    judged_only: bool = False,
    depth: int | None = None,
    float32: bool = False,
    compat: Literal[9, 10] = 10,
    num_docs: int = 0,
    run_name: str | None = None,
    known: QrelsLike | None = None,
    intents: Any = None,
) -> Prepared:
    """Load ``qrels``/``run`` (and the optional extra inputs), rank, and build the context.

    The options mean what they mean for :func:`evaluate`. Two small clean TREC files
    (:mod:`cranfield.io.trec_numpy`) are read and ranked without polars, to the same
    ranking; anything else is loaded as :class:`~cranfield.data.qrels.Qrels` and
    :class:`~cranfield.data.run.Run`.
    """
    small = None
    if known is None and intents is None:
        small = rank_small_files(
            qrels, run, depth=depth, judged_only=judged_only, float32=float32, missing=missing
        )
    if small is not None:
        ranking, judged = small
        qrels_topics = names(judged.query_id)
        name = run_name or Path(str(run)).name
    else:
        from cranfield.io.load import load_qrels, load_run

        judgments = load_qrels(qrels)
        ranked_run = load_run(run, name=run_name)
        ranking = rank(
            ranked_run,
            judgments,
            depth=depth,
            judged_only=judged_only,
            float32=float32,
            missing=missing,
        )
        qrels_topics, name = judgments.topics, ranked_run.name
    evaluated = set(ranking.topics)
    absent = [t for t in qrels_topics if t not in evaluated] if missing == "skip" else []
    missing_topics = [t for t, m in zip(ranking.topics, ranking.missing, strict=True) if m] + absent
    known_frame = None
    if known is not None:
        from cranfield.io.load import load_qrels

        known_frame = load_qrels(known, name="known").frame
    intents_frame = None
    if intents is not None:
        from cranfield.io.intents import load_intents

        intents_frame = load_intents(intents).frame
    ctx = ExtendedContext(
        ranking, compat=compat, num_docs=num_docs, known=known_frame, intents=intents_frame
    )
    return Prepared(name, ranking, ctx, sorted(missing_topics))


def rank_small_files(
    qrels: QrelsLike,
    run: RunLike,
    *,
    depth: int | None = None,
    judged_only: bool = False,
    float32: bool = False,
    missing: MissingPolicy = "zero",
) -> tuple[Ranking, QrelsColumns] | None:
    """The ranking of two small clean TREC files (:mod:`cranfield.io.trec_numpy`), read and
    ranked with numpy alone, and the qrels' columns; ``None`` when either is not such a
    file (or a pair repeats): load them as ``Qrels`` and ``Run`` then."""
    if not (isinstance(qrels, (str, Path)) and isinstance(run, (str, Path))):
        return None
    if any(str(p).endswith((".parquet", ".pq")) for p in (qrels, run)):
        return None
    from cranfield.io.trec_numpy import fits, read_qrels_columns, read_run_columns

    if not fits(run):  # a large run: not even the qrels are read here
        return None
    judged = read_qrels_columns(qrels)
    ranked = None if judged is None else read_run_columns(run)
    if judged is None or ranked is None:
        return None
    ranking = rank_columns(
        ranked, judged, depth=depth, judged_only=judged_only, float32=float32, missing=missing
    )
    return None if ranking is None else (ranking, judged)


def _aggregation(option: AggregateOption, wanted: list[Measure]) -> dict[Measure, How]:
    """``{measure: how}`` for the measures whose summary ``option`` overrides."""
    if option is None:
        return {}
    if isinstance(option, str):
        chosen: dict[Measure, How] = dict.fromkeys(wanted, option)
    else:
        chosen = {}
        for key, how in option.items():
            for m in resolve_measures(key):
                if m not in wanted:
                    raise MeasureError(
                        f"aggregate names {m}, which is not among the measures evaluated."
                    )
                chosen[m] = how
    for m, how in chosen.items():
        if how not in AGGREGATIONS:
            raise MeasureError(
                f"Unknown aggregation {how!r}; choose one of {', '.join(AGGREGATIONS)}."
            )
        if how == "micro" and m.spec.micro is None:
            raise MeasureError(
                f"{m} cannot be micro-averaged: only set measures pool their counts; "
                "give aggregate a mapping such as {'SetP': 'micro'} to mix."
            )
    return chosen


def evaluate(
    qrels: QrelsLike,
    run: RunLike,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    missing: MissingPolicy = "zero",
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    float32: bool = False,
    compat: Literal[9, 10] = 10,
    num_docs: int = 0,
    run_name: str | None = None,
    aggregate: AggregateOption = None,
    epsilon: float = MIN_GEO_MEAN,
    known: QrelsLike | None = None,
    intents: Any = None,
) -> Results:
    """Evaluate one run against judgments.

    Parameters
    ----------
    qrels, run:
        Paths (TREC text, compressed or not, or Parquet), ``Qrels``/``Run`` objects, polars or
        pandas DataFrames, Arrow tables, or dicts ``{query_id: {doc_id: value}}``. Never mutated.
    measures:
        Names such as ``"nDCG@10"``, ``"P(rel=2)@5"``, ``"AP"``, trec_eval names (``"map"``,
        ``"P.5,10"``, ``"official"``), ranx names (``"ndcg@10"``, ``"mrr"``), or ``Measure``s.
    missing:
        Judged topics absent from the run: ``"zero"`` (default) scores them as an empty ranking
        (0 for almost every measure) and counts them, so skipping hard topics cannot help;
        ``"skip"`` leaves them out of the averages; ``"error"`` raises
        :class:`~cranfield.errors.MissingTopicError`. Run topics without judgments are
        always ignored.
    relevance_level:
        Minimum judged level counted as relevant by binary measures (trec_eval ``-l``),
        unless a measure sets its own ``rel=``.
    judged_only:
        Drop unjudged documents before ranking-based measures (trec_eval ``-J``): the
        condensed-list evaluation of Sakai (2007), for any measure.
    depth:
        Keep only the first ``depth`` documents of each topic after sorting (trec_eval ``-M``).
    float32:
        Round scores to float32 before ranking (trec_eval 9.x, pytrec_eval, NIST's TREC-COVID).
    compat:
        10 (default) or 9: rounding of recall levels in interpolated precision.
    num_docs:
        Collection size N: utility's true-negative cell (trec_eval ``-N``) and the cell d of
        the set measures that need it (SetFallout, SetAccuracy; without it their collection
        is each topic's judged and retrieved documents).
    aggregate:
        How ``res[m]`` summarises each measure over topics; ``None`` (default) uses each
        measure's declared aggregate (mean; sum for counts; geometric mean for GMAP).
        ``"mean"`` (macro-averaging), ``"sum"``, ``"gmean"``, ``"median"``, ``"micro"``
        (set measures only: pool the contingency counts of all topics, then compute), or a
        mapping ``{measure: how}`` for some measures. Per-topic values are unaffected, and
        :meth:`Results.aggregate` gives any summary afterwards.
    epsilon:
        Floor applied before the logarithm of a geometric mean (GMAP; trec_eval's 1e-5).
    known:
        Qrels-like input (path, ``Qrels``, DataFrame, dict) of the relevant documents the user
        already knows, for the user-oriented measures (Coverage, Novelty, RelRecall,
        RecallEffect).
    intents:
        Subtopic judgments for α-nDCG: a path to intent qrels (``qid subtopic docno rel``),
        an :class:`~cranfield.io.intents.IntentQrels`, a DataFrame or a nested dict
        ``{qid: {subtopic: {docno: rel}}}``.

    Returns
    -------
    Results
        Per-topic values and aggregates for every measure.

    Raises
    ------
    MeasureError
        For an unknown measure or aggregation, or ``"micro"`` for a measure that is not a
        set measure.
    EvaluationError
        When a measure needs ``known`` or ``intents`` and none was given.

    Examples
    --------
    >>> from cranfield import evaluate
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}}
    >>> res = evaluate(qrels, run, ["P@2", "AP", "RR"])
    >>> res["AP"]
    0.8333333333333333
    >>> res["P@2"], res["RR"]
    (0.5, 1.0)

    Macro and micro averages of a set measure:

    >>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    >>> run = {"q1": {"a": 2.0, "x": 1.0}, "q2": {"c": 1.0, "y": 0.5, "z": 0.2}}
    >>> res = evaluate(qrels, run, ["SetP"], aggregate={"SetP": "micro"})
    >>> res["SetP"], res.aggregate("SetP", "mean")
    (0.4, 0.41666666666666663)
    """
    wanted = resolve_measures(measures)
    chosen = _aggregation(aggregate, wanted)
    if not epsilon > 0:
        raise ValueError(f"The epsilon of a geometric mean must be > 0, got {epsilon!r}.")
    prep = prepare(
        qrels,
        run,
        missing=missing,
        judged_only=judged_only,
        depth=depth,
        float32=float32,
        compat=compat,
        num_docs=num_docs,
        run_name=run_name,
        known=known,
        intents=intents,
    )
    ctx = prep.ctx
    values = {m: compute(ctx, m, relevance_level=relevance_level) for m in wanted}
    micro = {
        m: m.spec.micro(ctx, **measure_kwargs(m, relevance_level=relevance_level))
        for m in wanted
        if m.spec.micro is not None
    }
    return Results(
        run_name=prep.run_name,
        topics=list(prep.ranking.topics),
        values=values,
        missing_policy=missing,
        missing_topics=prep.missing_topics,
        aggregation=chosen,
        micro=micro,
        epsilon=epsilon,
    )
