"""Linear utility over the whole retrieved list (the other set measures live in contingency.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cranfield.kernels.context import EvalContext

if TYPE_CHECKING:
    from numpy.typing import NDArray


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
