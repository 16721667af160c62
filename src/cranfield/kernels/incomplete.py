"""Kernels of measures designed for incomplete judgments: bpref, infAP, unjudged counts."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cranfield.data.ranking import UNJUDGED
from cranfield.kernels.context import EvalContext, safe_divide, segment_count_cumsum

if TYPE_CHECKING:
    from numpy.typing import NDArray

INFAP_EPSILON = 0.00001


def bpref(ctx: EvalContext, *, rel: int) -> NDArray[np.float64]:
    is_rel = ctx.is_rel(rel)
    nonrel = (ctx.rel >= 0) & ~is_rel
    nonrel_above = segment_count_cumsum(nonrel, ctx.offsets) - nonrel  # exclusive count
    big_r = ctx.num_rel(rel)
    n0 = ctx.judgments.count_below(rel)
    r_row = big_r[ctx.topic_of]
    denom = np.minimum(n0, big_r)[ctx.topic_of]
    penalty = safe_divide(np.minimum(nonrel_above, r_row).astype(np.float64), denom)
    contrib = np.where(is_rel, np.where(nonrel_above > 0, 1.0 - penalty, 1.0), 0.0)
    return safe_divide(ctx.per_topic_sum(contrib), big_r)


def inferred_ap(ctx: EvalContext, *, rel: int) -> NDArray[np.float64]:
    is_rel = ctx.is_rel(rel)
    nonrel = (ctx.rel >= 0) & ~is_rel
    pooled_unjudged = ctx.rel == UNJUDGED
    nonrel_above = segment_count_cumsum(nonrel, ctx.offsets) - nonrel
    unj_above = segment_count_cumsum(pooled_unjudged, ctx.offsets) - pooled_unjudged
    r_before = ctx.rel_cum(rel) - 1
    j = ctx.position.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r_before + nonrel_above + unj_above) / j) * (
            (r_before + INFAP_EPSILON) / (r_before + nonrel_above + 2 * INFAP_EPSILON)
        )
    contrib = np.where(is_rel, np.where(ctx.position == 0, 1.0, value), 0.0)
    return safe_divide(ctx.per_topic_sum(contrib), ctx.num_rel(rel))


def unjudged_at(ctx: EvalContext, *, cutoff: int) -> NDArray[np.float64]:
    """Fraction of the first ``cutoff`` ranks holding unjudged documents (k > n pads)."""
    ctx = ctx.truncated(cutoff)
    return ctx.per_topic_sum(ctx.rel < 0) / float(cutoff)


def judged_at(ctx: EvalContext, *, cutoff: int | None = None) -> NDArray[np.float64]:
    """Fraction of the first ``cutoff`` retrieved documents that are judged.

    Unlike trec_eval's ``unj``, the denominator is ``min(cutoff, n)`` (ir_measures'
    ``Judged@k``): a short list is not penalised; an empty list scores 0.
    """
    ctx = ctx.truncated(cutoff)
    return safe_divide(ctx.per_topic_sum(ctx.rel >= 0), ctx.lengths)


def powers(p: float, n: int) -> NDArray[np.float64]:
    """``[1, p, p*p, ...]`` by repeated multiplication, as the C loops compute them."""
    out = np.empty(n + 1)
    out[0] = 1.0
    if n:
        out[1:] = np.cumprod(np.full(n, p))
    return out


def rbp_residual(ctx: EvalContext, *, p: float) -> NDArray[np.float64]:
    pw = powers(p, int(ctx.lengths.max(initial=0)))
    unj = ctx.rel < 0
    s = ctx.per_topic_sum(np.where(unj, pw[ctx.position], 0.0))
    has_unj = ctx.per_topic_sum(unj) > 0
    return np.where(has_unj, pw[ctx.lengths] + (1 - p) * s, 0.0)
