"""Kernels of measures designed for incomplete judgments: bpref, infAP, unjudged counts."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cranfield.kernels.context import EvalContext, safe_divide, segment_count_cumsum

if TYPE_CHECKING:
    from numpy.typing import NDArray

INFAP_EPSILON = 0.00001


def _pooled_hits(
    ctx: EvalContext, rel: int
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """For every relevant row: its topic, 0-based rank, and how many pooled and how many
    judged documents are ranked above it.

    Only pooled rows (judged, or negative in the qrels) matter to bpref and infAP, and runs
    hold few of them, so the work is one pass to find them and then proportional to them.
    """
    rows = ctx.pooled_rows()
    topic = np.searchsorted(ctx.offsets, rows, side="right") - 1
    counts = np.bincount(topic, minlength=ctx.n_topics)
    starts = np.concatenate(([0], np.cumsum(counts)))[:-1]
    pooled_above = np.arange(rows.size, dtype=np.int64) - np.repeat(starts, counts)
    codes = ctx.rel[rows]
    judged = codes >= 0
    judged_above = segment_count_cumsum(judged, np.concatenate((starts, [rows.size]))) - judged
    relevant = codes >= rel
    position = rows[relevant] - ctx.offsets[topic[relevant]]
    return topic[relevant], position, pooled_above[relevant], judged_above[relevant]


def bpref(ctx: EvalContext, *, rel: int) -> NDArray[np.float64]:
    topic, _, _, judged_above = _pooled_hits(ctx, rel)
    relevant_above = _relevant_above(topic)
    nonrel_above = judged_above - relevant_above
    big_r = ctx.num_rel(rel)
    denom = np.minimum(ctx.judgments.count_below(rel), big_r)[topic]
    penalty = safe_divide(np.minimum(nonrel_above, big_r[topic]).astype(np.float64), denom)
    contrib = np.where(nonrel_above > 0, 1.0 - penalty, 1.0)
    total = np.bincount(topic, weights=contrib, minlength=ctx.n_topics).astype(np.float64)
    return safe_divide(total, big_r)


def _relevant_above(topic: NDArray[np.int64]) -> NDArray[np.int64]:
    """Relevant rows before each relevant row of the same topic (rows in ranking order)."""
    counts = np.bincount(topic, minlength=int(topic.max(initial=-1)) + 1)
    starts = np.concatenate(([0], np.cumsum(counts)))[:-1]
    above: NDArray[np.int64] = np.arange(topic.size, dtype=np.int64) - np.repeat(starts, counts)
    return above


def inferred_ap(ctx: EvalContext, *, rel: int) -> NDArray[np.float64]:
    topic, position, pooled_above, judged_above = _pooled_hits(ctx, rel)
    r_before = _relevant_above(topic)
    j = position.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (pooled_above / j) * (
            (r_before + INFAP_EPSILON) / (judged_above + 2 * INFAP_EPSILON)
        )
    contrib = np.where(position == 0, 1.0, value)
    total = np.bincount(topic, weights=contrib, minlength=ctx.n_topics).astype(np.float64)
    return safe_divide(total, ctx.num_rel(rel))


def unjudged_at(ctx: EvalContext, *, cutoff: int) -> NDArray[np.float64]:
    """Fraction of the first ``cutoff`` ranks holding unjudged documents (k > n pads)."""
    judged = ctx.rel_within(0, cutoff)  # the rows judged >= 0 among the first ``cutoff``
    return (np.minimum(ctx.lengths, cutoff) - judged).astype(np.float64) / float(cutoff)


def judged_at(ctx: EvalContext, *, cutoff: int | None = None) -> NDArray[np.float64]:
    """Fraction of the first ``cutoff`` retrieved documents that are judged.

    Unlike trec_eval's ``unj``, the denominator is ``min(cutoff, n)`` (ir_measures'
    ``Judged@k``): a short list is not penalised; an empty list scores 0.
    """
    if cutoff is None:
        return safe_divide(ctx.num_rel_ret(0).astype(np.float64), ctx.lengths)
    judged = ctx.rel_within(0, cutoff).astype(np.float64)
    return safe_divide(judged, np.minimum(ctx.lengths, cutoff))


def powers(p: float, n: int) -> NDArray[np.float64]:
    """``[1, p, p*p, ...]`` by repeated multiplication, as the C loops compute them."""
    out = np.empty(n + 1)
    out[0] = 1.0
    if n:
        out[1:] = np.cumprod(np.full(n, p))
    return out


def rbp_residual(ctx: EvalContext, *, p: float) -> NDArray[np.float64]:
    pw = powers(p, int(ctx.lengths.max(initial=0)))
    judged, offsets = ctx.rel_rows(0)
    has_unj = ctx.lengths > np.diff(offsets)
    s = _unjudged_weight(ctx, pw, judged, offsets)
    return np.where(has_unj, pw[ctx.lengths] + (1 - p) * s, 0.0)


# The position-by-position sum pads every topic to the longest; it pays while the padding
# stays within a few times the run's size (plus this many cells).
_PADDED_SLACK = 1_000_000


def _unjudged_weight(
    ctx: EvalContext,
    pw: NDArray[np.float64],
    judged: NDArray[np.int64],
    offsets: NDArray[np.int64],
) -> NDArray[np.float64]:
    """Per topic, ``pw[position]`` summed over the unjudged rows in ranking order.

    Summed position by position across all topics at once (a topic without a row at a
    position, or with a judged one, adds an exact zero), which is the row-by-row sum of
    each topic without touching every row of the run; very long, uneven rankings take the
    row-by-row way.
    """
    depth = int(ctx.lengths.max(initial=0))
    if depth > 100_000 or depth * ctx.n_topics > 4 * ctx.rel.size + _PADDED_SLACK:
        unj = ctx.rel < 0
        return ctx.per_topic_sum(np.where(unj, pw[ctx.position], 0.0))
    counted = np.arange(depth)[:, None] < ctx.lengths[None, :]
    topic = np.repeat(np.arange(ctx.n_topics), np.diff(offsets))
    counted[judged - ctx.offsets[topic], topic] = False
    total = np.zeros(ctx.n_topics)
    for position in range(depth):
        total += np.where(counted[position], pw[position], 0.0)
    return total
