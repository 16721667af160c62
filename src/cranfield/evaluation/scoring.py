"""Scoring a ranked run: the per-query values of the measures, as one :class:`Part`.

A run is scored whole (:meth:`Evaluator.evaluate
<cranfield.evaluation.evaluator.Evaluator.evaluate>`), in blocks of whole queries (streamed),
in query-complete partitions (a Parquet dataset, on Dask workers) or read back from a result
store; each way gives one or more :class:`Part` and :func:`cranfield.evaluation.assemble.
assemble` makes the run's :class:`~cranfield.evaluation.results.Results` of them. A part holds
only per-query values and the set measures' contingency counts (whole numbers, so that counts
pooled apart sum exactly), which is all that a worker sends back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from cranfield.errors import EvaluationError
from cranfield.kernels.contingency import Contingency, SetMicro

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import NDArray

    from cranfield.data.ranking import Ranking
    from cranfield.kernels.context import EvalContext
    from cranfield.kernels.extras import ExtendedContext
    from cranfield.measures import Measure

__all__ = ["Part", "Prepared", "compute", "measure_kwargs", "score"]


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
    """One run loaded and ranked against the bound qrels: what :meth:`Evaluator.evaluate
    <cranfield.evaluation.evaluator.Evaluator.evaluate>` scores and :mod:`cranfield.curves`
    reads rank by rank."""

    run_name: str
    ranking: Ranking
    ctx: ExtendedContext
    missing_topics: list[str]
    notes: tuple[str, ...] = ()  # how the run was read (a format other than TREC, say)
    dropped: int = 0  # run documents whose id is their query's, left out (ignore_self)


@dataclass(frozen=True, eq=False)  # arrays: no field-wise equality (as Results)
class Part:
    """The scores of some of a run's queries: what scoring a ranking gives.

    Attributes
    ----------
    topics:
        The judged queries scored, bytewise order.
    values:
        ``{measure: per-query values}`` aligned with ``topics``.
    counts:
        ``{set measure: its contingency counts pooled over topics}``, for the micro average.
    missing:
        The queries of ``topics`` the run had no line for (scored as empty rankings).
    held:
        Every query id the part had rows of, judged or not, when that is known (a
        partition's, to check that no other partition had rows of them); ``None`` otherwise.
    notes:
        What reading the part said (a format other than TREC, say).
    dropped:
        How many rows were left out because their document id is their query id
        (``ignore_self``).
    """

    topics: tuple[str, ...]
    values: dict[Measure, NDArray[np.float64]]
    counts: dict[Measure, Contingency]
    missing: tuple[str, ...] = ()
    held: tuple[str, ...] | None = None
    notes: tuple[str, ...] = ()
    dropped: int = 0


def score(
    prep: Prepared,
    measures: Sequence[Measure],
    *,
    relevance_level: int,
    held: tuple[str, ...] | None = None,
    notes: tuple[str, ...] = (),
    dropped: int = 0,
) -> Part:
    """The per-query values of ``prep``'s queries and the set measures' pooled counts."""
    ctx = prep.ctx
    values = {m: compute(ctx, m, relevance_level=relevance_level) for m in measures}
    counts: dict[Measure, Contingency] = {}
    for m in measures:
        micro = m.spec.micro
        if micro is None:
            continue
        if not isinstance(micro, SetMicro):
            raise EvaluationError(f"{m}'s micro average cannot be pooled across parts.")
        counts[m] = micro.counts(ctx, **measure_kwargs(m, relevance_level=relevance_level))
    missing = tuple(t for t, m in zip(prep.ranking.topics, prep.ranking.missing, strict=True) if m)
    return Part(
        topics=tuple(prep.ranking.topics),
        values=values,
        counts=counts,
        missing=missing,
        held=held,
        notes=notes,
        dropped=dropped,
    )
