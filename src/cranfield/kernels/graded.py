"""Kernels of graded measures built on trec_eval's per-topic gain table.

The gain table of a topic (trec_eval ``setup_gains``) has one entry per ``level=gain``
parameter, in the order given, then one entry ``gain = level`` for every level from 0 to
the topic's highest judged level that no parameter named. Each entry knows how many of the
topic's judged documents have its level. The table is sorted by gain with glibc's stable
merge sort and a comparator that *truncates the gain difference to an integer*, so gains
less than 1 apart compare equal and keep their order; this is reproduced exactly.

The ideal ranking walks the sorted table from the top, emitting each entry's documents,
skipping entries without documents, and stops at the first entry whose gain is ``<= 0``
(or at once if the top entry's gain is ``<= 0``). A document's gain is the gain of the
first table entry with its level (unjudged documents: level -1 "not in pool" or -2 "pooled,
unjudged", only if a parameter names them), else 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple, cast

import numpy as np

from cranfield.errors import EvaluationError
from cranfield.kernels.context import EvalContext, safe_divide, segment_cumsum, segment_sum
from cranfield.kernels.incomplete import powers

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numpy.typing import NDArray

Gains = tuple[tuple[int, float], ...]


class _Entry(NamedTuple):
    level: int
    gain: float
    owns_documents: bool  # the first entry naming a level gets that level's documents


def _truncating_merge_sort(
    items: list[_Entry], cmp: Callable[[_Entry, _Entry], int]
) -> list[_Entry]:
    """glibc ``msort``: top-down, left half n/2, take from the left while cmp <= 0."""
    n = len(items)
    if n <= 1:
        return list(items)
    n1 = n // 2
    left = _truncating_merge_sort(items[:n1], cmp)
    right = _truncating_merge_sort(items[n1:], cmp)
    out: list[_Entry] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    out.extend(left[i:])
    out.extend(right[j:])
    return out


def _c_int_diff(a: _Entry, b: _Entry) -> int:
    return int(a.gain - b.gain)  # C: (int)(double) truncates toward zero


def sorted_table(gains: Gains, num_levels: int) -> list[_Entry]:
    """The sorted gain table for a topic whose highest judged level is ``num_levels - 1``."""
    entries: list[_Entry] = []
    named: set[int] = set()
    for level, gain in gains:
        entries.append(_Entry(level, gain, level not in named))
        named.add(level)
    entries += [_Entry(lv, float(lv), True) for lv in range(num_levels) if lv not in named]
    return _truncating_merge_sort(entries, _c_int_diff)


@dataclass(frozen=True, eq=False)
class GainView:
    """The gains of the ranked rows and the flat ideal gain sequences of every topic.

    Almost every row of a run has gain 0 and adds nothing to any sum, so the kernels read
    only the rows with a non-zero gain: ``rows`` (in ranking order) with their ``topic``,
    0-based ``position`` and ``gain``; ``offsets`` delimit each topic's share of them.
    Adding an exact zero never changes a running sum, so the sums are the ones a loop over
    every row gives. The per-row arrays of the whole run are built only when asked for.
    """

    rows: NDArray[np.int64]
    topic: NDArray[np.int64]
    position: NDArray[np.int64]
    gain: NDArray[np.float64]
    offsets: NDArray[np.int64]
    ideal: NDArray[np.float64]
    ideal_offsets: NDArray[np.int64]
    table_min: NDArray[np.float64]
    table_max: NDArray[np.float64]
    # Builds (row_gain, row_has_entry) for every row of the run.
    dense: Callable[[], tuple[NDArray[np.float64], NDArray[np.bool_]]] = field(repr=False)

    @property
    def ideal_lengths(self) -> NDArray[np.int64]:
        return np.diff(self.ideal_offsets)

    @cached_property
    def _dense(self) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        return self.dense()

    @property
    def row_gain(self) -> NDArray[np.float64]:
        """The gain of every row of the run."""
        return self._dense[0]

    @property
    def row_has_entry(self) -> NDArray[np.bool_]:
        """Whether every row's level has a gain-table entry."""
        return self._dense[1]

    def prefix(
        self,
        cum: NDArray[np.float64],
        ctx: EvalContext,
        topic: NDArray[np.int64],
        k: NDArray[np.int64],
    ) -> NDArray[np.float64]:
        """Per-row running sums ``cum`` (over :attr:`rows`) taken after the first ``k`` rows
        of ``topic``: the running sum at its last non-zero row above ``k``, else 0."""
        end = np.searchsorted(self.rows, ctx.offsets[topic] + k, side="left")
        some = end > self.offsets[topic]
        return np.where(some, cum[np.where(some, end - 1, 0)] if cum.size else 0.0, 0.0)


def _sparse_view(
    ctx: EvalContext,
    rows: NDArray[np.int64],
    gain: NDArray[np.float64],
    dense: Callable[[], tuple[NDArray[np.float64], NDArray[np.bool_]]],
    **ideal: NDArray[np.float64] | NDArray[np.int64],
) -> GainView:
    topic = np.searchsorted(ctx.offsets, rows, side="right") - 1
    counts = np.bincount(topic, minlength=ctx.n_topics)
    return GainView(
        rows=rows,
        topic=topic,
        position=rows - ctx.offsets[topic],
        gain=gain,
        offsets=np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        dense=dense,
        **ideal,  # type: ignore[arg-type]
    )


def gain_view(ctx: EvalContext, gains: Gains | None) -> GainView:
    """Gains for ``ctx`` (``gains=None``: each level is its own gain), built once per context.

    nDCG, DCG, IDCG, nDCG_rel, RnDCG, G and RBP all start from the same view; trec_eval's
    all_trec asks for most of them, so it is cached on the context.
    """
    key = ("gain_view", gains or ())
    if key not in ctx._memo:
        ctx._memo[key] = _build_gain_view(ctx, gains)
    return cast("GainView", ctx._memo[key])


def _build_gain_view(ctx: EvalContext, gains: Gains | None) -> GainView:
    j = ctx.judgments
    n = ctx.n_topics
    labels = ctx.ranking.gains
    if labels is not None and j.gains is not None:
        return _label_view(ctx, labels, j.gains, explicit=bool(gains))
    if not gains:
        positive = j.levels > 0
        counts = np.bincount(j.topic_of[positive], minlength=n)
        ideal_off = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        top = np.maximum(j.max_level, 0).astype(np.float64)
        rel = ctx.rel
        rows = ctx.rel_rows(1)[0]  # each level is its own gain: the rows judged >= 1
        return _sparse_view(
            ctx,
            rows,
            rel[rows].astype(np.float64),
            lambda: (np.maximum(rel, 0).astype(np.float64), rel >= 0),
            ideal=j.levels[positive].astype(np.float64),
            ideal_offsets=ideal_off,
            table_min=np.zeros(n),
            table_max=top,
        )
    num_levels = j.max_level + 1
    min_code = min(-2, *(lv for lv, _ in gains))
    max_code = max(int(num_levels.max(initial=0)), *(lv + 1 for lv, _ in gains), 1)
    lookup_width = max_code - min_code + 1
    groups = np.unique(num_levels)
    group_index = np.searchsorted(groups, num_levels)
    lookup = np.zeros((groups.size, lookup_width))
    present = np.zeros((groups.size, lookup_width), dtype=bool)
    tables: list[list[_Entry]] = []
    tmin = np.empty(groups.size)
    tmax = np.empty(groups.size)
    for g, nl in enumerate(groups):
        table = sorted_table(gains, int(nl))
        tables.append(table)
        for entry in reversed(table):  # first entry in sorted order wins
            lookup[g, entry.level - min_code] = entry.gain
            present[g, entry.level - min_code] = True
        tmin[g] = min((e.gain for e in table), default=0.0)
        tmax[g] = max((e.gain for e in table), default=0.0)
    row_gain = lookup[group_index[ctx.topic_of], ctx.rel - min_code]
    row_has_entry = present[group_index[ctx.topic_of], ctx.rel - min_code]

    level_counts = _level_counts(ctx, int(max(num_levels.max(initial=0), 1)))
    ideal_parts: list[NDArray[np.float64]] = []
    lengths = np.zeros(n, dtype=np.int64)
    for t in range(n):
        seq = _walk(tables[group_index[t]], level_counts[t])
        lengths[t] = seq.size
        ideal_parts.append(seq)
    ideal = np.concatenate(ideal_parts) if ideal_parts else np.zeros(0)
    rows = np.flatnonzero(row_gain)
    return _sparse_view(
        ctx,
        rows,
        row_gain[rows],
        lambda: (row_gain, row_has_entry),
        ideal=ideal,
        ideal_offsets=np.concatenate(([0], np.cumsum(lengths))).astype(np.int64),
        table_min=tmin[group_index],
        table_max=tmax[group_index],
    )


def _label_view(
    ctx: EvalContext,
    labels: NDArray[np.float64],
    judged: NDArray[np.float64],
    *,
    explicit: bool,
) -> GainView:
    """The gains of qrels with decimal labels: each label is its own gain (0 if negative),
    the ideal is every topic's positive labels, highest first."""
    if explicit:
        raise EvaluationError(
            "gains given as level=gain need integer relevance levels; these qrels have "
            "decimal labels, which are their own gains"
        )
    j = ctx.judgments
    n = ctx.n_topics
    positive = judged > 0
    counts = np.bincount(j.topic_of[positive], minlength=n)
    top = np.zeros(n)
    nonempty = np.diff(j.offsets) > 0
    top[nonempty] = np.maximum(judged[j.offsets[:-1][nonempty]], 0.0)
    gain = np.maximum(labels, 0.0)
    rows = np.flatnonzero(gain)
    rel = ctx.rel
    return _sparse_view(
        ctx,
        rows,
        gain[rows],
        lambda: (gain, rel >= 0),
        ideal=judged[positive],
        ideal_offsets=np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        table_min=np.zeros(n),
        table_max=top,
    )


def _level_counts(ctx: EvalContext, width: int) -> NDArray[np.int64]:
    j = ctx.judgments
    counts = np.zeros((ctx.n_topics, width), dtype=np.int64)
    np.add.at(counts, (j.topic_of, j.levels), 1)
    return counts


def _walk(table: Sequence[_Entry], counts: NDArray[np.int64]) -> NDArray[np.float64]:
    if not table or table[-1].gain <= 0:
        return np.zeros(0)
    parts: list[NDArray[np.float64]] = []
    for entry in reversed(table):
        owns = entry.owns_documents and 0 <= entry.level < counts.size
        count = int(counts[entry.level]) if owns else 0
        if count == 0:
            continue
        if entry.gain <= 0:
            break
        parts.append(np.full(count, entry.gain))
    return np.concatenate(parts) if parts else np.zeros(0)


def _discounted(values: NDArray[np.float64], positions: NDArray[np.int64]) -> NDArray[np.float64]:
    out: NDArray[np.float64] = values / np.log2(positions + 2.0)
    return out


def _ideal_positions(view: GainView) -> NDArray[np.int64]:
    lengths = view.ideal_lengths
    return np.arange(view.ideal.size, dtype=np.int64) - np.repeat(view.ideal_offsets[:-1], lengths)


def _ideal_topic(view: GainView) -> NDArray[np.int64]:
    return np.repeat(np.arange(view.ideal_lengths.size), view.ideal_lengths)


def dcg(ctx: EvalContext, *, gains: Gains | None, cutoff: int | None = None) -> NDArray[np.float64]:
    return _dcg(ctx, gain_view(ctx, gains), cutoff)


def _dcg(ctx: EvalContext, view: GainView, cutoff: int | None = None) -> NDArray[np.float64]:
    if cutoff is None:
        return segment_sum(view.topic, _discounted(view.gain, view.position), ctx.n_topics)
    keep = view.position < cutoff
    contrib = _discounted(view.gain[keep], view.position[keep])
    return segment_sum(view.topic[keep], contrib, ctx.n_topics)


def _idcg(ctx: EvalContext, view: GainView, cutoff: int | None = None) -> NDArray[np.float64]:
    pos = _ideal_positions(view)
    contrib = _discounted(view.ideal, pos)
    if cutoff is not None:
        contrib = np.where(pos < cutoff, contrib, 0.0)
    return np.bincount(_ideal_topic(view), weights=contrib, minlength=ctx.n_topics).astype(
        np.float64
    )


def ideal_dcg(
    ctx: EvalContext, *, gains: Gains | None, cutoff: int | None = None
) -> NDArray[np.float64]:
    return _idcg(ctx, gain_view(ctx, gains), cutoff)


def ndcg(
    ctx: EvalContext, *, gains: Gains | None, cutoff: int | None = None
) -> NDArray[np.float64]:
    view = gain_view(ctx, gains)
    return safe_divide(_dcg(ctx, view, cutoff), _idcg(ctx, view, cutoff))


def _prefix(
    cum: NDArray[np.float64],
    offsets: NDArray[np.int64],
    topic: NDArray[np.int64],
    k: NDArray[np.int64],
) -> NDArray[np.float64]:
    """Sum of the first ``k`` entries of each topic, from an inclusive cumulative array."""
    idx = offsets[topic] + k - 1
    safe = np.where(k > 0, idx, 0)
    return np.where(k > 0, cum[safe] if cum.size else 0.0, 0.0)


def ndcg_rel(ctx: EvalContext, *, gains: Gains | None) -> NDArray[np.float64]:
    view = gain_view(ctx, gains)
    rcum = segment_cumsum(_discounted(view.gain, view.position), view.offsets)
    icum = segment_cumsum(_discounted(view.ideal, _ideal_positions(view)), view.ideal_offsets)
    big_p = view.ideal_lengths
    topics = np.arange(ctx.n_topics)
    positive = view.gain > 0
    t = view.topic[positive]
    ideal_at_row = _prefix(
        icum, view.ideal_offsets, t, np.minimum(view.position[positive] + 1, big_p[t])
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        s = segment_sum(t, rcum[positive] / ideal_at_row, ctx.n_topics)
        full_r = view.prefix(rcum, ctx, topics, ctx.lengths)
        full_i = _prefix(icum, view.ideal_offsets, topics, big_p)
        count = np.bincount(t, minlength=ctx.n_topics)
        s = s + (big_p - count) * full_r / full_i
        return np.where(s > 0, s / big_p, 0.0)


def rndcg(ctx: EvalContext, *, gains: Gains | None, rel: int) -> NDArray[np.float64]:
    view = gain_view(ctx, gains)
    rcum = segment_cumsum(_discounted(view.gain, view.position), view.offsets)
    ipos = _ideal_positions(view)
    itopic = _ideal_topic(view)
    icum = segment_cumsum(_discounted(view.ideal, ipos), view.ideal_offsets)
    big_p = view.ideal_lengths
    n = ctx.lengths
    topics = np.arange(ctx.n_topics)

    prev = np.concatenate(([np.nan], view.ideal[:-1]))
    change = (ipos >= 1) & (view.ideal != prev)
    with np.errstate(divide="ignore", invalid="ignore"):
        ct = itopic[change]
        cpos = ipos[change]
        vals = (
            view.prefix(rcum, ctx, ct, np.minimum(cpos, n[ct])) / icum[np.flatnonzero(change) - 1]
        )
        s = np.bincount(ct, weights=vals, minlength=ctx.n_topics)
        cnt = np.bincount(ct, minlength=ctx.n_topics).astype(np.float64)
        has = big_p >= 1
        full_i = _prefix(icum, view.ideal_offsets, topics, big_p)
        end_val = view.prefix(rcum, ctx, topics, np.minimum(big_p, n)) / full_i
        s = s + np.where(has, end_val, 0.0)
        cnt = cnt + has
        extra = has & (n > big_p + 1)
        full_r = view.prefix(rcum, ctx, topics, n)
        s = s + np.where(extra, full_r / full_i, 0.0)
        cnt = cnt + extra
        return np.where(ctx.num_rel(rel) == 0, 0.0, s / cnt)


def g_measure(ctx: EvalContext, *, gains: Gains | None) -> NDArray[np.float64]:
    view = gain_view(ctx, gains)
    total_ideal = np.bincount(_ideal_topic(view), weights=view.ideal, minlength=ctx.n_topics)
    if _whole_numbers(view, ctx):
        return safe_divide(_g_sums(ctx, view), total_ideal)
    # Fractional gains: the running costs and gains are summed row by row, as trec_eval does.
    length = view.ideal_lengths[ctx.topic_of]
    idx = view.ideal_offsets[ctx.topic_of] + ctx.position
    inside = ctx.position < length
    ideal_here = np.where(
        inside, view.ideal[np.where(inside, idx, 0)] if view.ideal.size else 0.0, 0.0
    )
    cost = segment_cumsum(np.maximum(ideal_here, 1.0), ctx.offsets)
    got = segment_cumsum(view.row_gain, ctx.offsets)
    with np.errstate(divide="ignore", invalid="ignore"):
        contrib = np.where(view.row_gain != 0, view.row_gain / np.log2(2.0 + cost - got), 0.0)
    return safe_divide(ctx.per_topic_sum(contrib), total_ideal)


def _whole_numbers(view: GainView, ctx: EvalContext) -> bool:
    """Whether every gain is a whole number and every running sum of G stays exact."""
    whole = bool(
        (np.trunc(view.gain) == view.gain).all() and (np.trunc(view.ideal) == view.ideal).all()
    )
    bound = float(np.abs(view.gain).sum() + view.ideal.sum() + ctx.lengths.max(initial=0))
    return whole and bound < 2.0**52


def _g_sums(ctx: EvalContext, view: GainView) -> NDArray[np.float64]:
    """G's per-topic sums over the rows with a gain, for whole-number gains.

    At a row at position ``p`` of a topic with ``L`` ideal gains the running ideal cost is
    the sum of the first ``min(p + 1, L)`` ideal gains (each at least 1) plus 1 for every
    position past ``L``. Whole numbers add up exactly in any order, so this is the value
    the row-by-row loop reaches.
    """
    t, p = view.topic, view.position
    length = view.ideal_lengths[t]
    icum = segment_cumsum(view.ideal, view.ideal_offsets)
    within = length > 0
    last = view.ideal_offsets[t] + np.clip(p, 0, np.maximum(length - 1, 0))
    cost = np.where(
        within,
        (icum[np.where(within, last, 0)] if icum.size else 0.0) + np.maximum(p - length + 1, 0),
        p + 1.0,
    )
    got = segment_cumsum(view.gain, view.offsets)
    with np.errstate(divide="ignore", invalid="ignore"):
        contrib = view.gain / np.log2(2.0 + cost - got)
    return segment_sum(t, contrib, ctx.n_topics)


def rbp(ctx: EvalContext, *, p: float, gains: Gains | None) -> NDArray[np.float64]:
    """Rank-biased precision with trec_eval's per-topic gain normalisation."""
    view = gain_view(ctx, gains)
    lo = view.table_min
    hi = view.table_max
    rescale = (lo < 0) | (hi > 1)
    if not (rescale & (lo != 0)).any():
        # Rescaling keeps a zero gain at zero: only the rows with a gain contribute.
        t = view.topic
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(rescale[t], (view.gain - lo[t]) / (hi[t] - lo[t]), view.gain)
        pw = powers(p, int(ctx.lengths.max(initial=0)))
        return (1.0 - p) * segment_sum(t, g * pw[view.position], ctx.n_topics)
    g = view.row_gain
    t = ctx.topic_of
    with np.errstate(divide="ignore", invalid="ignore"):
        # Only table entries are rescaled; a document whose level has none keeps gain 0.
        g = np.where(rescale[t] & view.row_has_entry, (g - lo[t]) / (hi[t] - lo[t]), g)
    pw = powers(p, int(ctx.lengths.max(initial=0)))
    contrib = np.where(g != 0, g * pw[ctx.position], 0.0)
    return (1.0 - p) * ctx.per_topic_sum(contrib)
