"""THE one way a run's :class:`~cranfield.evaluation.results.Results` are made of its parts.

Whether a run was scored whole, streamed in blocks of whole queries, scored in a Parquet
dataset's partitions on Dask workers, or read back from a result store, its results are
assembled here, by one set of rules:

* **the missing-query policy** (``missing``): judged queries that no part scored are scored as
  empty rankings (``"zero"``), left out (``"skip"``) or an error naming them (``"error"``);
* **the overlap check** (:func:`~cranfield.evaluation.overlap.check_overlap`): a run that
  shares no query with the qrels is an error, one that answers fewer than half of them a
  warning (under ``"skip"`` a partial overlap is what was asked for);
* **bytewise query order**, whatever order the parts came in;
* **micro averages** of the set measures from their contingency counts summed over the parts
  (whole numbers: the sum is exact in any order);
* **notes**: the qrels' first, then how the run was read, then the documents dropped by
  ``ignore_self``, then how it was scored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np

from cranfield.errors import EvaluationError, MissingTopicError
from cranfield.evaluation.overlap import check_overlap
from cranfield.evaluation.results import Results
from cranfield.evaluation.scoring import measure_kwargs
from cranfield.kernels.contingency import Contingency, SetMicro

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from cranfield.evaluation.aggregate import How
    from cranfield.evaluation.judgments import Judgments
    from cranfield.evaluation.options import EvalOptions
    from cranfield.evaluation.scoring import Part
    from cranfield.evaluation.store import ResultStore, Stored
    from cranfield.measures import Measure

__all__ = ["absent_topics", "assemble", "assemble_run", "from_stored", "run_label", "self_note"]


def self_note(dropped: int) -> str:
    """The note saying how many run documents ``ignore_self`` dropped."""
    return f"{dropped} run document(s) whose id is the query id dropped (ignore_self)."


def absent_topics(parts: Sequence[Part], judged: Sequence[str]) -> list[str]:
    """The judged queries no part scored, in the qrels' order."""
    scored = {t for p in parts for t in p.topics}
    return [t for t in judged if t not in scored]


def assemble(  # noqa: PLR0913 -- the parts, what they were scored against, how they are named
    parts: Sequence[Part],
    *,
    measures: Sequence[Measure],
    options: EvalOptions,
    aggregation: dict[Measure, How],
    judged: Sequence[str],
    name: str,
    run_label: str,
    qrels_label: str,
    run_ids: Callable[[], Sequence[str] | None],
    score_absent: Callable[[list[str]], Part],
    sources: dict[str, str | None],
    notes: tuple[str, ...] = (),
    scored_by: tuple[str, ...] = (),
) -> Results:
    """One run's results from the :class:`~cranfield.evaluation.scoring.Part` its queries
    were scored in, by the rules of the module notes.

    Parameters
    ----------
    parts:
        The run's parts, in any order; no query in two of them.
    measures, options, aggregation:
        What the run was scored with (the evaluator's).
    judged:
        Every query of the qrels, bytewise order.
    name:
        The run's name in the results.
    run_label, qrels_label, run_ids:
        How the overlap check names the two inputs, and the run's query ids (asked for only
        when the two share none).
    score_absent:
        The part of the judged queries ``missing="zero"`` scores as empty rankings.
    sources:
        ``{role: path or None}`` of the inputs, for provenance.
    notes:
        What reading the qrels said; the parts' own notes follow, then ``ignore_self``'s.
    scored_by:
        The notes that end the results (how the run was scored).

    Raises
    ------
    MissingTopicError
        Under ``missing="error"``, when judged queries have no line in the run.
    EvaluationError
        When the run shares no query with the qrels.
    """
    absent = absent_topics(parts, judged)
    # A run scored whole under "zero" has its absent queries in its ranking, flagged missing.
    unanswered = {t for p in parts for t in p.missing}.union(absent)
    answered = len(judged) - len(unanswered)
    if not (answered and options.missing == "skip"):
        check_overlap(judged, answered, run=run_label, qrels=qrels_label, run_ids=run_ids)
    if absent and options.missing == "error":
        raise MissingTopicError(absent)
    if absent and options.missing == "zero":
        parts = [*parts, score_absent(absent)]
    missing = sorted(unanswered)
    topics = [t for p in parts for t in p.topics]
    order = sorted(range(len(topics)), key=topics.__getitem__)
    values = {
        m: np.concatenate([p.values[m] for p in parts])[order] if parts else np.zeros(0)
        for m in measures
    }
    level = options.relevance_level
    micro: dict[Measure, float] = {}
    for m in measures:
        if m.spec.micro is None or not parts:
            continue
        pooled = Contingency(
            *(np.array([sum(float(getattr(p.counts[m], c)[0]) for p in parts)]) for c in "abcd")
        )
        micro[m] = cast("SetMicro", m.spec.micro).of(
            pooled, **measure_kwargs(m, relevance_level=level)
        )
    read = tuple(note for p in parts for note in p.notes)
    if options.ignore_self:
        read += (self_note(sum(p.dropped for p in parts)),)
    return Results(
        run_name=name,
        topics=[topics[i] for i in order],
        values=values,
        missing_policy=options.missing,
        missing_topics=missing,
        aggregation=aggregation,
        micro=micro,
        epsilon=options.epsilon,
        options=options,
        sources=sources,
        notes=notes + read + scored_by,
    )


def run_label(run: object, name: str | None) -> str:
    """How the overlap check names ``run``: its path, or its name."""
    from pathlib import Path

    from cranfield.io.run_names import default_name
    from cranfield.io.source import source_name

    if isinstance(run, (str, Path)):
        return source_name(run)
    return f"run {name or default_name(run)!r}"


def assemble_run(  # noqa: PLR0913 -- an evaluator's bound inputs, then the run's parts and names
    parts: Sequence[Part],
    judgments: Judgments,
    measures: Sequence[Measure],
    options: EvalOptions,
    aggregation: dict[Measure, How],
    run: object,
    name: str,
    *,
    run_ids: Callable[[], Sequence[str] | None],
    label: str | None = None,
    scored_by: tuple[str, ...] = (),
) -> Results:
    """:func:`assemble` of the parts of ``run`` scored against ``judgments``: the judged
    queries, the names of both inputs, their sources and the qrels' notes taken from them,
    the queries no part held ranked as empty rankings when ``missing="zero"`` asks."""
    from cranfield.evaluation.ranked import absent_ranking
    from cranfield.evaluation.scoring import score

    def absent(topics: list[str]) -> Part:
        prep = absent_ranking(judgments, options, topics, name=name)
        return score(prep, measures, relevance_level=options.relevance_level)

    return assemble(
        parts,
        measures=measures,
        options=options,
        aggregation=aggregation,
        judged=judgments.judged_topics(),
        name=name,
        run_label=label or run_label(run, name),
        qrels_label=judgments.label,
        run_ids=run_ids,
        score_absent=absent,
        sources=judgments.sources(run),
        notes=judgments.notes,
        scored_by=scored_by,
    )


def from_stored(  # noqa: PLR0913 -- the entries, what they were scored with, how they are named
    entries: Mapping[Measure, Stored],
    *,
    measures: Sequence[Measure],
    options: EvalOptions,
    aggregation: dict[Measure, How],
    name: str,
    store: ResultStore,
    reused: int,
    sources: dict[str, str | None],
    scored_by: tuple[str, ...] = (),
) -> Results:
    """One run's results from its entries in a result store, one per measure (read back, or
    computed and stored now): results assembled by :func:`assemble` when they were
    computed, so the missing-query policy and the overlap check are not applied again; the
    warnings they raised then are raised again.

    Raises
    ------
    EvaluationError
        When the entries disagree on the run's queries (a damaged store).
    """
    from cranfield.evaluation.store import replay

    first = entries[measures[0]]
    if any(e.topics != first.topics for e in entries.values()):
        raise EvaluationError(
            f"the results stored in {store.folder} for run {name!r} disagree on "
            f"its queries; remove the folder and evaluate again."
        )
    notes = first.notes
    if reused:
        notes += (f"{reused} of {len(measures)} measures read from {store.folder}.",)
    for said in dict.fromkeys(e.warnings for e in entries.values()):
        replay(said)
    micro = {m: entries[m].micro for m in measures if entries[m].micro is not None}
    return Results(
        run_name=name,
        topics=list(first.topics),
        values={m: np.array(entries[m].values, dtype=np.float64) for m in measures},
        missing_policy=options.missing,
        missing_topics=list(first.missing_topics),
        aggregation=aggregation,
        micro=cast("dict[Measure, float]", micro),
        epsilon=options.epsilon,
        options=options,
        sources=sources,
        notes=notes + scored_by,
    )
