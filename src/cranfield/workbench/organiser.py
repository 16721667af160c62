"""What the organiser sees: progress, judging rate, disagreements with Cohen's κ, and the runs'
scores under the judgments so far.

Data only (dataclasses); the web pages render them. κ comes from cranfield's own
:func:`cranfield.stats.judge_agreement.agree` (``cranfield agree``), the scores from
:func:`cranfield.evaluate_many` with t intervals of the mean over the judged topics
(:func:`cranfield.stats.effects.t_intervals`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from cranfield.workbench.export import _names, consensus, per_assessor

if TYPE_CHECKING:
    from cranfield.workbench.project import Project

__all__ = [
    "Disagreement",
    "Kappa",
    "Progress",
    "Score",
    "agreement",
    "disagreements",
    "live_scores",
    "progress",
]

LIVE_MEASURES: Final = ("nDCG@10", "AP")


@dataclass(frozen=True)
class Progress:
    """One assessor on one topic: documents labelled, skipped, in the pool; their rate in
    judgments per hour between their first and latest judgment of the topic (``None`` before the
    second)."""

    query_id: str
    assessor: str
    labelled: int
    skipped: int
    pooled: int
    per_hour: float | None


@dataclass(frozen=True)
class Disagreement:
    """A document assessors labelled differently: each one's label, the adjudication if any."""

    query_id: str
    doc_id: str
    labels: dict[str, int]
    adjudicated: int | None


@dataclass(frozen=True)
class Kappa:
    """Two assessors compared on the documents both labelled: overall and per topic."""

    assessor_a: str
    assessor_b: str
    shared: int
    observed: float
    kappa: float
    per_query: dict[str, float]


@dataclass(frozen=True)
class Score:
    """A run's mean score under the judgments so far, its t interval, and its rank."""

    run: str
    measure: str
    mean: float
    low: float
    high: float
    rank: int
    topics: int


def progress(project: Project, *, reveal: bool = True) -> list[Progress]:
    """One row per assignment, by topic then assessor."""
    names = _names(project, reveal=reveal)
    order = project.order()
    judgments = project.judgments()
    rows: list[Progress] = []
    for a in project.assessors():
        for q in project.assigned(a.id):
            mine = [j for j in judgments if j.assessor_id == a.id and j.query_id == q]
            times = sorted(j.judged_at for j in mine)
            span = times[-1] - times[0] if len(times) > 1 else 0.0
            rows.append(
                Progress(
                    q,
                    names[a.id],
                    sum(j.label is not None for j in mine),
                    sum(j.label is None for j in mine),
                    len(order.get(q, ())),
                    (len(times) - 1) / span * 3600.0 if span > 0 else None,
                )
            )
    return sorted(rows, key=lambda r: (r.query_id, r.assessor))


def disagreements(project: Project, *, reveal: bool = True) -> list[Disagreement]:
    """The documents two or more assessors labelled differently (skips are not labels), by
    topic and document."""
    names = _names(project, reveal=reveal)
    settled = project.adjudications()
    found: dict[tuple[str, str], dict[str, int]] = {}
    for j in project.judgments():
        if j.label is not None:
            found.setdefault((j.query_id, j.doc_id), {})[names[j.assessor_id]] = j.label
    return [
        Disagreement(q, d, labels, settled.get((q, d)))
        for (q, d), labels in sorted(found.items())
        if len(set(labels.values())) > 1
    ]


def agreement(project: Project, *, reveal: bool = True) -> list[Kappa]:
    """Cohen's κ of every two assessors who labelled a document in common."""
    from cranfield.stats.judge_agreement import agree

    labels = per_assessor(project, reveal=reveal)
    out: list[Kappa] = []
    for a, b in itertools.combinations(labels, 2):
        shared = sum(len(set(docs) & set(labels[b].get(q, {}))) for q, docs in labels[a].items())
        if not shared:
            continue
        pair = agree([labels[a], labels[b]], names=[a, b]).pairs[0]
        out.append(
            Kappa(
                a,
                b,
                pair.shared,
                pair.observed,
                pair.kappa,
                {q: v.kappa for q, v in pair.per_query.items()},
            )
        )
    return out


def live_scores(project: Project, measures: Sequence[str] = LIVE_MEASURES) -> list[Score]:
    """The runs' scores under the judgments so far (disagreements: the latest label; only the
    topics with a judgment count), ranked by each measure, with 95% t intervals (none, NaN,
    below two topics)."""
    from cranfield.evaluation.evaluator import evaluate_many
    from cranfield.stats.effects import t_intervals

    qrels, _ = consensus(project, on_conflict="latest")
    runs = project.runs()
    if not qrels or not runs:
        return []
    table = evaluate_many(qrels, {n: str(p) for n, p in runs.items()}, list(measures))
    scores: list[Score] = []
    for measure in measures:
        matrix = table.matrix(measure)
        n = matrix.shape[0]
        means = matrix.mean(axis=0)
        bounds = t_intervals(matrix, 0.05) if n > 1 else None
        ranked = sorted(range(len(table.names)), key=lambda i: (-means[i], table.names[i]))
        for rank, i in enumerate(ranked, start=1):
            low, high = (math.nan, math.nan) if bounds is None else bounds[i]
            scores.append(
                Score(table.names[i], measure, float(means[i]), float(low), float(high), rank, n)
            )
    return scores
