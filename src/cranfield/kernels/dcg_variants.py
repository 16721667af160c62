"""Every DCG variant: gain, discount and ideal ranking chosen independently.

* **Gain** ``g``: the judged level, or its image under a ``gains`` map (trec_eval's gain
  table, see :mod:`graded`); with ``exp`` the gain becomes ``2^g − 1`` (Burges et al.).
* **Discount** of the 1-based rank ``i``: ``log_b(i + 1)`` (the common form, ``b = 2``), or
  with ``jk`` the Järvelin–Kekäläinen form: no discount for ``i < b``, ``log_b(i)`` from
  rank ``b`` on; ``cg`` (no discount) gives cumulated gain.
* **Ideal**: the positive gains of all judged documents of the topic sorted descending
  (correct, trec_eval), or with ``retrieved_ideal`` only those of the retrieved documents
  (what scikit-learn's ``ndcg_score`` and TorchMetrics compute, since they only see the
  labels they are given; it scores 1.0 when a relevant document is never retrieved).

The defaults (linear gain, ``log2(i + 1)``, ideal from judgments) are trec_eval's
``ndcg``/``ndcg_cut`` and are computed by :mod:`graded`'s kernels, bit for bit.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from cranfield.kernels import graded
from cranfield.kernels.context import EvalContext, safe_divide

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.kernels.graded import Gains


def discount(ranks: NDArray[np.int64], *, base: float, jk: bool) -> NDArray[np.float64]:
    """Discount of 1-based ``ranks``: ``log_b(i+1)``, or with ``jk`` ``max(1, log_b(i))`` for i >= b."""
    r = ranks.astype(np.float64)
    if jk:
        logs = np.log2(r) if base == 2.0 else np.log(r) / math.log(base)
        out: NDArray[np.float64] = np.where(r < base, 1.0, logs)
        return out
    if base == 2.0:
        return np.log2(r + 1.0)
    return np.log(r + 1.0) / math.log(base)


def variant_gains(
    ctx: EvalContext, gains: Gains | None, exp: bool, retrieved_ideal: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """Row gains, the flat ideal gains of every topic (descending) and their offsets."""
    view = graded.gain_view(ctx, gains)
    row = view.row_gain
    if retrieved_ideal:
        present = ~ctx.ranking.missing[ctx.topic_of]
        positive = (row > 0) & present
        order = np.lexsort((-row[positive], ctx.topic_of[positive]))
        ideal = row[positive][order]
        counts = np.bincount(ctx.topic_of[positive], minlength=ctx.n_topics)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    else:
        ideal, offsets = view.ideal, view.ideal_offsets
    if exp:
        row = np.exp2(row) - 1.0
        ideal = np.exp2(ideal) - 1.0
    return row, ideal, offsets


def _cumulated(
    values: NDArray[np.float64],
    positions: NDArray[np.int64],
    topic_of: NDArray[np.int64],
    n_topics: int,
    *,
    base: float,
    jk: bool,
    cg: bool,
    cutoff: int | None,
) -> NDArray[np.float64]:
    contrib = values if cg else values / discount(positions + 1, base=base, jk=jk)
    contrib = np.where(values != 0, contrib, 0.0)
    if cutoff is not None:
        contrib = np.where(positions < cutoff, contrib, 0.0)
    return np.bincount(topic_of, weights=contrib, minlength=n_topics).astype(np.float64)


def _is_trec(exp: bool, base: float, jk: bool, retrieved_ideal: bool) -> bool:
    return not exp and base == 2.0 and not jk and not retrieved_ideal


def dcg(
    ctx: EvalContext,
    *,
    gains: Gains | None,
    exp: bool = False,
    base: float = 2.0,
    jk: bool = False,
    retrieved_ideal: bool = False,
    cutoff: int | None = None,
) -> NDArray[np.float64]:
    """DCG@k of the run under the chosen gain and discount."""
    if _is_trec(exp, base, jk, False):
        return graded.dcg(ctx, gains=gains, cutoff=cutoff)
    row, _, _ = variant_gains(ctx, gains, exp, False)
    return _cumulated(
        row, ctx.position, ctx.topic_of, ctx.n_topics, base=base, jk=jk, cg=False, cutoff=cutoff
    )


def _ideal_value(
    ctx: EvalContext,
    ideal: NDArray[np.float64],
    offsets: NDArray[np.int64],
    *,
    base: float,
    jk: bool,
    cg: bool,
    cutoff: int | None,
) -> NDArray[np.float64]:
    lengths = np.diff(offsets)
    topic = np.repeat(np.arange(ctx.n_topics), lengths)
    pos = np.arange(ideal.size, dtype=np.int64) - np.repeat(offsets[:-1], lengths)
    return _cumulated(ideal, pos, topic, ctx.n_topics, base=base, jk=jk, cg=cg, cutoff=cutoff)


def ideal_dcg(
    ctx: EvalContext,
    *,
    gains: Gains | None,
    exp: bool = False,
    base: float = 2.0,
    jk: bool = False,
    retrieved_ideal: bool = False,
    cutoff: int | None = None,
) -> NDArray[np.float64]:
    """DCG@k of the ideal ranking (from all judged documents, or the retrieved ones)."""
    if _is_trec(exp, base, jk, retrieved_ideal):
        return graded.ideal_dcg(ctx, gains=gains, cutoff=cutoff)
    _, ideal, offsets = variant_gains(ctx, gains, exp, retrieved_ideal)
    return _ideal_value(ctx, ideal, offsets, base=base, jk=jk, cg=False, cutoff=cutoff)


def ndcg(
    ctx: EvalContext,
    *,
    gains: Gains | None,
    exp: bool = False,
    base: float = 2.0,
    jk: bool = False,
    retrieved_ideal: bool = False,
    cutoff: int | None = None,
) -> NDArray[np.float64]:
    """nDCG@k = DCG@k / IDCG@k; 0 when the ideal DCG is 0."""
    if _is_trec(exp, base, jk, retrieved_ideal):
        return graded.ndcg(ctx, gains=gains, cutoff=cutoff)
    row, ideal, offsets = variant_gains(ctx, gains, exp, retrieved_ideal)
    num = _cumulated(
        row, ctx.position, ctx.topic_of, ctx.n_topics, base=base, jk=jk, cg=False, cutoff=cutoff
    )
    den = _ideal_value(ctx, ideal, offsets, base=base, jk=jk, cg=False, cutoff=cutoff)
    return safe_divide(num, den)


def cg(
    ctx: EvalContext, *, gains: Gains | None, exp: bool = False, cutoff: int | None = None
) -> NDArray[np.float64]:
    """Cumulated gain CG@k: the undiscounted sum of the first k gains."""
    row, _, _ = variant_gains(ctx, gains, exp, False)
    return _cumulated(
        row, ctx.position, ctx.topic_of, ctx.n_topics, base=2.0, jk=False, cg=True, cutoff=cutoff
    )


def ncg(
    ctx: EvalContext,
    *,
    gains: Gains | None,
    exp: bool = False,
    retrieved_ideal: bool = False,
    cutoff: int | None = None,
) -> NDArray[np.float64]:
    """nCG@k = CG@k / ideal CG@k; 0 when the ideal CG is 0."""
    row, ideal, offsets = variant_gains(ctx, gains, exp, retrieved_ideal)
    num = _cumulated(
        row, ctx.position, ctx.topic_of, ctx.n_topics, base=2.0, jk=False, cg=True, cutoff=cutoff
    )
    den = _ideal_value(ctx, ideal, offsets, base=2.0, jk=False, cg=True, cutoff=cutoff)
    return safe_divide(num, den)
