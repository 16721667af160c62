"""``evaluate(qrels, run, measures) -> Results``: the library's front door."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

import numpy as np

from cranfield.data.ranking import MissingPolicy, rank
from cranfield.io.load import QrelsLike, RunLike, load_qrels, load_run
from cranfield.kernels.context import EvalContext
from cranfield.measures._parse import parse_measures
from cranfield.measures._spec import Measure
from cranfield.results import Results

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.data.qrels import Qrels

MeasureLike = str | Measure


def resolve_measures(measures: MeasureLike | Iterable[MeasureLike]) -> list[Measure]:
    """Parse names (expanding trec_eval names and nicknames), keep order, drop repeats."""
    items = [measures] if isinstance(measures, (str, Measure)) else list(measures)
    out: list[Measure] = []
    for item in items:
        for m in [item] if isinstance(item, Measure) else parse_measures(item):
            if m not in out:
                out.append(m)
    return out


def compute(ctx: EvalContext, measure: Measure, *, relevance_level: int = 1) -> NDArray[np.float64]:
    """Per-topic values of ``measure`` on an evaluation context."""
    spec = measure.spec
    kwargs = measure.kwargs()
    if "rel" in kwargs and not any(k == "rel" for k, _ in measure.params):
        kwargs["rel"] = relevance_level
    values = np.asarray(spec.kernel(ctx, **kwargs), dtype=np.float64)
    if spec.zero_when_missing and ctx.ranking.missing.any():
        values = np.where(ctx.ranking.missing, 0.0, values)
    return values


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
        Drop unjudged documents before ranking-based measures (trec_eval ``-J``).
    depth:
        Keep only the first ``depth`` documents of each topic after sorting (trec_eval ``-M``).
    float32:
        Round scores to float32 before ranking (trec_eval 9.x, pytrec_eval, NIST's TREC-COVID).
    compat:
        10 (default) or 9: rounding of recall levels in interpolated precision.
    num_docs:
        Collection size for utility's true-negative cell (trec_eval ``-N``).

    Returns
    -------
    Results
        Per-topic values and aggregates for every measure.

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
    """
    judgments: Qrels = load_qrels(qrels)
    ranked_run = load_run(run, name=run_name)
    wanted = resolve_measures(measures)
    ranking = rank(
        ranked_run,
        judgments,
        depth=depth,
        judged_only=judged_only,
        float32=float32,
        missing=missing,
    )
    evaluated = set(ranking.topics)
    absent = [t for t in judgments.topics if t not in evaluated] if missing == "skip" else []
    missing_topics = [t for t, m in zip(ranking.topics, ranking.missing, strict=True) if m] + absent
    ctx = EvalContext(ranking, compat=compat, num_docs=num_docs)
    values = {m: compute(ctx, m, relevance_level=relevance_level) for m in wanted}
    return Results(
        run_name=ranked_run.name,
        topics=list(ranking.topics),
        values=values,
        missing_policy=missing,
        missing_topics=sorted(missing_topics),
    )
