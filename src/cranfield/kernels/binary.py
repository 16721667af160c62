"""Kernels of measures over binary relevance (relevant = judged level >= ``rel``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from cranfield.kernels.context import EvalContext, safe_divide, segment_sum

if TYPE_CHECKING:
    from numpy.typing import NDArray

MIN_GEO_MEAN = 0.00001


def num_q(ctx: EvalContext) -> NDArray[np.float64]:
    return np.ones(ctx.n_topics)


def num_ret(ctx: EvalContext) -> NDArray[np.float64]:
    return ctx.lengths.astype(np.float64)


def num_rel(ctx: EvalContext, *, rel: int) -> NDArray[np.float64]:
    return ctx.num_rel(rel).astype(np.float64)


def num_rel_ret(ctx: EvalContext, *, rel: int) -> NDArray[np.float64]:
    return ctx.num_rel_ret(rel).astype(np.float64)


def num_nonrel_judged_ret(ctx: EvalContext, *, rel: int) -> NDArray[np.float64]:
    judged, relevant = ctx.num_rel_ret(0), ctx.num_rel_ret(rel)
    return (judged - relevant if rel >= 0 else np.zeros_like(judged)).astype(np.float64)


def average_precision(
    ctx: EvalContext, *, rel: int, cutoff: int | None = None
) -> NDArray[np.float64]:
    k, rank, topic = _relevant_hits(ctx, rel)
    if cutoff is not None:
        inside = rank <= cutoff
        k, rank, topic = k[inside], rank[inside], topic[inside]
    total = np.bincount(topic, weights=k / rank, minlength=ctx.n_topics).astype(np.float64)
    return safe_divide(total, ctx.num_rel(rel))


def _relevant_hits(
    ctx: EvalContext, rel: int
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """For every relevant retrieved row, in ranking order: its count among the relevant rows
    of its topic so far (rr(i)), its 1-based rank i, and its topic.

    Measures that only look at relevant documents (AP, RR) touch these few rows instead of
    the whole run."""
    rows, roff = ctx.rel_rows(rel)
    per_topic = np.diff(roff)
    topic = np.repeat(np.arange(ctx.n_topics, dtype=np.int64), per_topic)
    k = (np.arange(rows.size, dtype=np.int64) - np.repeat(roff[:-1], per_topic) + 1).astype(
        np.float64
    )
    rank = (rows - ctx.offsets[topic] + 1).astype(np.float64)
    return k, rank, topic


def log_clamped(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """ln(max(x, 0.00001)): the per-topic value behind trec_eval's geometric means."""
    return np.log(np.maximum(values, MIN_GEO_MEAN))


def r_precision(ctx: EvalContext, *, rel: int, mult: float) -> NDArray[np.float64]:
    big_r = ctx.num_rel(rel)
    if mult == 1.0:
        cut = np.minimum(big_r, ctx.lengths)
        hits = _rel_within_per_topic(ctx, rel, cut)
        return safe_divide(hits.astype(np.float64), big_r)
    # Rprec_mult: cutoff trunc(m*R + 0.9) in every trec_eval version.
    cut = np.trunc(mult * big_r + 0.9).astype(np.int64)
    hits = _rel_within_per_topic(ctx, rel, np.minimum(cut, ctx.lengths))
    return safe_divide(hits.astype(np.float64), cut)


def _rel_within_per_topic(ctx: EvalContext, rel: int, cut: NDArray[np.int64]) -> NDArray[np.int64]:
    _, rank, topic = _relevant_hits(ctx, rel)
    inside = rank <= cut[topic]
    return np.bincount(topic[inside], minlength=ctx.n_topics).astype(np.int64)


def reciprocal_rank(
    ctx: EvalContext, *, rel: int, cutoff: int | None = None
) -> NDArray[np.float64]:
    k, rank, topic = _relevant_hits(ctx, rel)
    first = (k == 1) if cutoff is None else (k == 1) & (rank <= cutoff)
    rr = np.bincount(topic[first], weights=1.0 / rank[first], minlength=ctx.n_topics)
    return rr.astype(np.float64)


def precision(ctx: EvalContext, *, rel: int, cutoff: int) -> NDArray[np.float64]:
    return ctx.rel_within(rel, cutoff) / float(cutoff)


def recall(ctx: EvalContext, *, rel: int, cutoff: int | None = None) -> NDArray[np.float64]:
    hits = ctx.num_rel_ret(rel) if cutoff is None else ctx.rel_within(rel, cutoff)
    return safe_divide(hits.astype(np.float64), ctx.num_rel(rel))


def relative_precision(ctx: EvalContext, *, rel: int, cutoff: int) -> NDArray[np.float64]:
    big_r = ctx.num_rel(rel)
    return safe_divide(ctx.rel_within(rel, cutoff).astype(np.float64), np.minimum(cutoff, big_r))


def hits(ctx: EvalContext, *, rel: int, cutoff: int | None = None) -> NDArray[np.float64]:
    found = ctx.num_rel_ret(rel) if cutoff is None else ctx.rel_within(rel, cutoff)
    return found.astype(np.float64)


def success(ctx: EvalContext, *, rel: int, cutoff: int) -> NDArray[np.float64]:
    return (ctx.rel_within(rel, cutoff) > 0).astype(np.float64)


def _recall_cut(p: float, big_r: NDArray[np.int64], compat: int) -> NDArray[np.int64]:
    prod = p * big_r.astype(np.float64)
    if compat == 9:
        return np.trunc(prod + 0.9).astype(np.int64)
    # C lround: half away from zero (numpy's round is half-to-even). floor(|x| + 0.5) would
    # round 0.49999999999999994 up, because the addition itself rounds.
    whole = np.trunc(prod)
    cut: NDArray[np.int64] = (whole + np.sign(prod) * (np.abs(prod - whole) >= 0.5)).astype(
        np.int64
    )
    return cut


def interpolated_precision(
    ctx: EvalContext, *, rel: int, levels: tuple[float, ...]
) -> NDArray[np.float64]:
    """Interpolated precision at each recall level: shape (len(levels), topics).

    For a level p the cutoff c is ``lround(p*R)`` (trec_eval 10) or ``trunc(p*R + 0.9)``
    (9.x); the value is the highest precision at or after the c-th relevant document,
    0 if fewer than c relevant documents were retrieved, and for c = 0 the highest
    precision anywhere (NaN for an empty ranking, as trec_eval).
    """
    rows, roff = ctx.rel_rows(rel)
    k, rank, _ = _relevant_hits(ctx, rel)
    prec = k / rank  # at each relevant row: relevant so far / rank
    suffix_max = _segment_suffix_max(prec, roff)
    rr = np.diff(roff)
    big_r = ctx.num_rel(rel)
    # 0/0 in C: the x86 default NaN has its sign bit set and prints as -nan.
    empty_value = np.where(ctx.lengths == 0, -math.nan, 0.0)
    out = np.empty((len(levels), ctx.n_topics))
    for i, p in enumerate(levels):
        c = _recall_cut(p, big_r, ctx.compat)
        pick = roff[:-1] + np.maximum(c, 1) - 1
        ok = (c <= rr) & (rr > 0)
        val = np.where(ok, suffix_max[np.where(ok, pick, 0)] if rows.size else 0.0, 0.0)
        out[i] = np.where(rr > 0, val, np.where(c <= rr, empty_value, 0.0))
    return out


def _segment_suffix_max(
    values: NDArray[np.float64], offsets: NDArray[np.int64]
) -> NDArray[np.float64]:
    """Maximum of ``values[j:end_of_segment]`` for every j, exactly (no float offsets)."""
    if values.size == 0:
        return values
    uniq, code = np.unique(values, return_inverse=True)
    seg = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    span = np.int64(uniq.size + 1)
    # Reverse, lift each segment above all later ones, running max, undo.
    lift = (offsets.size - 2 - seg).astype(np.int64) * span
    running = np.maximum.accumulate((lift + code)[::-1])[::-1]
    out: NDArray[np.float64] = uniq[running - lift]
    return out


def interpolated_precision_avg(
    ctx: EvalContext, *, rel: int, levels: tuple[float, ...]
) -> NDArray[np.float64]:
    table = interpolated_precision(ctx, rel=rel, levels=levels)
    total = np.zeros(ctx.n_topics)
    for row in table:
        total = total + row
    return total / len(levels)


def binary_g(ctx: EvalContext, *, rel: int) -> NDArray[np.float64]:
    # Only relevant rows contribute: the j-th relevant row (from 0) of a topic, at rank
    # position p, has p - j non-relevant documents above it.
    rows, offsets = ctx.rel_rows(rel)
    topic = np.repeat(np.arange(ctx.n_topics), np.diff(offsets))
    nonrel_above = (rows - ctx.offsets[topic]) - (np.arange(rows.size) - offsets[topic])
    contrib = 1.0 / np.log2(2.0 + nonrel_above)
    return safe_divide(segment_sum(topic, contrib, ctx.n_topics), ctx.num_rel(rel))


def yaap(ctx: EvalContext, *, rel: int) -> NDArray[np.float64]:
    k, rank, topic = _relevant_hits(ctx, rel)
    s = segment_sum(topic, k / rank, ctx.n_topics)
    big_r = ctx.num_rel(rel).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log((1.0 + s) / (1.0 + big_r - s))
    return np.where((s == 0) & (big_r == 0), 0.0, out)
