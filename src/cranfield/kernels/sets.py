"""Kernels of set (unranked) measures over the whole retrieved list."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cranfield.kernels.context import EvalContext, safe_divide

if TYPE_CHECKING:
    from numpy.typing import NDArray


def set_precision(ctx: EvalContext, *, rel: int, relative: bool) -> NDArray[np.float64]:
    hits = ctx.num_rel_ret(rel).astype(np.float64)
    if relative:
        return safe_divide(hits, np.minimum(ctx.lengths, ctx.num_rel(rel)))
    return safe_divide(hits, ctx.lengths)


def set_average_precision(ctx: EvalContext, *, rel: int) -> NDArray[np.float64]:
    hits = ctx.num_rel_ret(rel).astype(np.float64)
    return safe_divide(hits * hits, ctx.lengths * ctx.num_rel(rel))


def set_f(ctx: EvalContext, *, rel: int, beta: float) -> NDArray[np.float64]:
    """F_beta of set precision and recall: (1+b²)PR / (b²P + R); 0 if nothing relevant retrieved."""
    hits = ctx.num_rel_ret(rel).astype(np.float64)
    p = safe_divide(hits, ctx.lengths)
    r = safe_divide(hits, ctx.num_rel(rel))
    b2 = beta * beta
    return safe_divide((b2 + 1.0) * p * r, b2 * p + r) * (hits > 0)


def set_f_trec(ctx: EvalContext, *, rel: int, x: float) -> NDArray[np.float64]:
    """trec_eval's set_F with its parameter ``x`` playing the role of beta squared."""
    hits = ctx.num_rel_ret(rel).astype(np.float64)
    p = safe_divide(hits, ctx.lengths)
    r = safe_divide(hits, ctx.num_rel(rel))
    return safe_divide((x + 1.0) * p * r, x * p + r) * (hits > 0)


def utility(
    ctx: EvalContext, *, rel: int, a: float, b: float, c: float, d: float
) -> NDArray[np.float64]:
    """Linear utility a·TP + b·FP + c·FN + d·TN with TN from the collection size ``num_docs``."""
    tp = ctx.num_rel_ret(rel).astype(np.float64)
    n = ctx.lengths.astype(np.float64)
    big_r = ctx.num_rel(rel).astype(np.float64)
    fp = n - tp
    fn = big_r - tp
    tn = ctx.num_docs + tp - n - big_r
    return a * tp + b * fp + c * fn + d * tn
