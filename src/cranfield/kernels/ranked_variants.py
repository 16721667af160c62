"""Ranked measures beyond trec_eval: textbook AP variants, exact-recall interpolation, ERR,
the original and bpref-10 forms of bpref, and RBP's residual with the tail always added.

Notation: ``rr(i)`` relevant documents among the first ``i``, ``R`` relevant documents of
the topic, ``n`` documents retrieved; rows are ranked documents as in :mod:`binary`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cranfield.kernels.binary import _segment_suffix_max
from cranfield.kernels.context import EvalContext, safe_divide, segment_count_cumsum
from cranfield.kernels.incomplete import powers, rbp_residual

if TYPE_CHECKING:
    from numpy.typing import NDArray


def _precision_sums(ctx: EvalContext, rel: int, cutoff: int | None) -> NDArray[np.float64]:
    """Σ over relevant rows within the cutoff of rr(i)/i (the numerator of every AP)."""
    mask = ctx.is_rel(rel)
    if cutoff is not None:
        mask = mask & (ctx.position < cutoff)
    contrib = np.where(mask, ctx.rel_cum(rel) / (ctx.position + 1.0), 0.0)
    return ctx.per_topic_sum(contrib)


def ap_min(ctx: EvalContext, *, rel: int, cutoff: int | None = None) -> NDArray[np.float64]:
    """AP@k normalised by min(k, R): (1/min(k, R)) Σ_{i<=k, d_i relevant} rr(i)/i."""
    big_r = ctx.num_rel(rel)
    den = big_r if cutoff is None else np.minimum(big_r, cutoff)
    return safe_divide(_precision_sums(ctx, rel, cutoff), den)


def ap_retrieved(ctx: EvalContext, *, rel: int, cutoff: int | None = None) -> NDArray[np.float64]:
    """AP over the retrieved relevant documents only: Σ rr(i)/i over them, divided by rr(k)."""
    found = ctx.num_rel_ret(rel) if cutoff is None else ctx.rel_within(rel, cutoff)
    return safe_divide(_precision_sums(ctx, rel, cutoff), found)


def recall_count(p: float, big_r: NDArray[np.int64]) -> NDArray[np.int64]:
    """Smallest j >= 0 with j / R >= p per topic (compared as the division, not p·R)."""
    r = big_r.astype(np.float64)
    c = np.ceil(p * r).astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.where((c > 0) & ((c - 1) / r >= p), c - 1, c)
        c = np.where(c / r < p, c + 1, c)
    return np.where(big_r > 0, c, 0)


def interpolated_precision_exact(
    ctx: EvalContext, *, rel: int, levels: tuple[float, ...]
) -> NDArray[np.float64]:
    """max{P@j : recall@j >= p} per level and topic, shape (len(levels), topics); 0 if none.

    Unlike trec_eval's ``iprec_at_recall`` (which rounds p·R to a count of relevant
    documents), the recall of each rank is compared with p exactly; p = 0 gives the best
    precision anywhere in the list, and 0 for a list without relevant documents.
    """
    rows, roff = ctx.rel_rows(rel)
    prec = ctx.rel_cum(rel)[rows] / (ctx.position[rows] + 1.0)
    suffix_max = _segment_suffix_max(prec, roff)
    found = np.diff(roff)
    big_r = ctx.num_rel(rel)
    out = np.zeros((len(levels), ctx.n_topics))
    for i, p in enumerate(levels):
        c = recall_count(p, big_r)
        ok = (found > 0) & (c <= found) & (big_r > 0)
        pick = roff[:-1] + np.maximum(c, 1) - 1
        if rows.size:
            out[i] = np.where(ok, suffix_max[np.where(ok, pick, 0)], 0.0)
    return out


def interpolated_precision_at(
    ctx: EvalContext, *, rel: int, levels: tuple[float, ...]
) -> NDArray[np.float64]:
    """Exact-recall interpolated precision at the single level in ``levels``."""
    out: NDArray[np.float64] = interpolated_precision_exact(ctx, rel=rel, levels=levels)[0]
    return out


def interpolated_ap(
    ctx: EvalContext, *, rel: int, levels: tuple[float, ...]
) -> NDArray[np.float64]:
    """Mean exact-recall interpolated precision over ``levels`` (11-point AP by default)."""
    table = interpolated_precision_exact(ctx, rel=rel, levels=levels)
    total = np.zeros(ctx.n_topics)
    for row in table:
        total = total + row
    return total / len(levels)


def segment_cumprod(values: NDArray[np.float64], offsets: NDArray[np.int64]) -> NDArray[np.float64]:
    """Inclusive running product restarting at every topic, multiplied in rank order."""
    out = np.empty_like(values)
    lengths = np.diff(offsets)
    if values.size == 0:
        return out
    bucket = np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64)
    for b in np.unique(bucket[lengths > 0]):
        topics = np.flatnonzero((bucket == b) & (lengths > 0))
        width = int(lengths[topics].max())
        cols = np.arange(width)
        idx = offsets[topics][:, None] + cols[None, :]
        valid = cols[None, :] < lengths[topics][:, None]
        block = np.where(valid, values[np.where(valid, idx, 0)], 1.0)
        prods = np.cumprod(block, axis=1)
        out[idx[valid]] = prods[valid]
    return out


def err(ctx: EvalContext, *, max_level: int, cutoff: int | None = None) -> NDArray[np.float64]:
    """Expected reciprocal rank: Σ_i (1/i) · R_i · Π_{j<i} (1 − R_j), R = (2^g − 1)/2^g_max.

    ``g`` is the judged level clipped to [0, max_level]; unjudged documents have g = 0.
    Qrels with decimal labels give ``g`` the label (clipped the same way).
    """
    labels = ctx.ranking.gains
    g = np.clip(ctx.rel if labels is None else labels, 0, max_level).astype(np.float64)
    stop = (np.exp2(g) - 1.0) / 2.0**max_level
    through = segment_cumprod(1.0 - stop, ctx.offsets)
    before = np.where(ctx.position == 0, 1.0, np.concatenate(([1.0], through[:-1])))
    contrib = np.where(stop > 0, stop * before / (ctx.position + 1.0), 0.0)
    if cutoff is not None:
        contrib = np.where(ctx.position < cutoff, contrib, 0.0)
    return ctx.per_topic_sum(contrib)


def _nonrel_above(ctx: EvalContext, rel: int) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
    is_rel = ctx.is_rel(rel)
    nonrel = (ctx.rel >= 0) & ~is_rel
    return is_rel, segment_count_cumsum(nonrel, ctx.offsets) - nonrel


def bpref_original(ctx: EvalContext, *, rel: int) -> NDArray[np.float64]:
    """Buckley & Voorhees (2004): (1/R) Σ_r (1 − min(|n above r|, R) / R)."""
    is_rel, above = _nonrel_above(ctx, rel)
    big_r = ctx.num_rel(rel)
    r_row = big_r[ctx.topic_of].astype(np.float64)
    penalty = safe_divide(np.minimum(above, r_row), r_row)
    contrib = np.where(is_rel, 1.0 - penalty, 0.0)
    return safe_divide(ctx.per_topic_sum(contrib), big_r)


def bpref_10(ctx: EvalContext, *, rel: int) -> NDArray[np.float64]:
    """bpref-10: (1/R) Σ_r (1 − min(|n above r|, 10 + R) / (10 + R))."""
    is_rel, above = _nonrel_above(ctx, rel)
    big_r = ctx.num_rel(rel)
    cap = (10 + big_r[ctx.topic_of]).astype(np.float64)
    contrib = np.where(is_rel, 1.0 - np.minimum(above, cap) / cap, 0.0)
    return safe_divide(ctx.per_topic_sum(contrib), big_r)


def rbp_residual_tail(ctx: EvalContext, *, p: float, tail: bool) -> NDArray[np.float64]:
    """RBP residual; ``tail=True`` always adds the unseen tail p^n (Moffat & Zobel)."""
    if not tail:
        return rbp_residual(ctx, p=p)
    pw = powers(p, int(ctx.lengths.max(initial=0)))
    unj = ctx.rel < 0
    s = ctx.per_topic_sum(np.where(unj, pw[ctx.position], 0.0))
    out: NDArray[np.float64] = pw[ctx.lengths] + (1 - p) * s
    return out
