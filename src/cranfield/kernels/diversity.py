"""Intent-aware (diversity) measures on subtopic judgments: α-nDCG.

The gain of the document at rank i is ``Σ_s J(d_i, s) · (1 − α)^{c_s(i)}`` where ``J`` is 1
if the document is relevant to subtopic ``s`` and ``c_s(i)`` counts the documents above
rank i already relevant to ``s`` (Clarke et al., SIGIR 2008). The ideal ranking is built
greedily, as ndeval does: at each rank the candidate with the largest gain given the
subtopics covered so far, ties going to the larger doc id (bytewise). The greedy loop runs
over ranks, each step vectorised over all topics at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cranfield.errors import MeasureError
from cranfield.kernels.context import EvalContext, safe_divide
from cranfield.kernels.extras import IntentPairs, extended
from cranfield.kernels.incomplete import powers

if TYPE_CHECKING:
    from numpy.typing import NDArray


def _group_rank(keys: NDArray[np.int64]) -> NDArray[np.int64]:
    """0-based index of each element within its run of equal ``keys`` (``keys`` sorted)."""
    if keys.size == 0:
        return keys
    start = np.ones(keys.size, dtype=bool)
    start[1:] = keys[1:] != keys[:-1]
    first = np.maximum.accumulate(np.where(start, np.arange(keys.size), 0))
    out: NDArray[np.int64] = np.arange(keys.size, dtype=np.int64) - first
    return out


def row_gains(ctx: EvalContext, pairs: IntentPairs, alpha: float) -> NDArray[np.float64]:
    """The novelty-discounted gain of every ranked row."""
    order = np.lexsort((pairs.row, pairs.row_subtopic))
    seen_before = np.empty(order.size, dtype=np.int64)
    seen_before[order] = _group_rank(pairs.row_subtopic[order])
    pw = powers(1.0 - alpha, int(seen_before.max(initial=0)))
    return np.bincount(pairs.row, weights=pw[seen_before], minlength=ctx.rel.size).astype(
        np.float64
    )


def ideal_gains(
    ctx: EvalContext, pairs: IntentPairs, alpha: float, depth: int
) -> NDArray[np.float64]:
    """Greedy ideal gains, shape (ranks, topics), for ranks ``0 .. depth-1``."""
    n_cand = pairs.cand_topic.size
    counts = np.bincount(pairs.cand_topic, minlength=ctx.n_topics)
    steps = int(min(depth, counts.max(initial=0)))
    out = np.zeros((steps, ctx.n_topics))
    if steps == 0:
        return out
    has = np.flatnonzero(counts > 0)
    starts = np.concatenate(([0], np.cumsum(counts)))[:-1][has]
    cand_index = np.arange(n_cand)
    weight = np.ones(pairs.num_subtopics)
    alive = np.ones(n_cand, dtype=bool)
    for step in range(steps):
        score = np.bincount(pairs.pair_cand, weights=weight[pairs.pair_subtopic], minlength=n_cand)
        score = np.where(alive, score, -1.0)
        best = np.maximum.reduceat(score, starts)
        is_best = score == np.repeat(best, counts[has])
        first = np.minimum.reduceat(np.where(is_best, cand_index, n_cand), starts)
        ok = best >= 0.0
        out[step, has[ok]] = best[ok]
        chosen = np.zeros(n_cand, dtype=bool)
        chosen[first[ok]] = True
        alive &= ~chosen
        covered = pairs.pair_subtopic[chosen[pairs.pair_cand]]
        weight[covered] *= 1.0 - alpha
    return out


def alpha_ndcg(
    ctx: EvalContext, *, alpha: float, rel: int, cutoff: int | None = None
) -> NDArray[np.float64]:
    """α-nDCG@k per topic: α-DCG@k of the run over α-DCG@k of the greedy ideal ranking.

    Raises
    ------
    MeasureError
        If ``alpha`` is greater than 1.
    """
    if alpha > 1.0:
        raise MeasureError(f"The 'alpha' parameter of alpha_nDCG must be <= 1, got {alpha!r}.")
    pairs = extended(ctx).intents_at(rel)
    gain = row_gains(ctx, pairs, alpha)
    contrib = np.where(gain != 0, gain / np.log2(ctx.position + 2.0), 0.0)
    if cutoff is not None:
        contrib = np.where(ctx.position < cutoff, contrib, 0.0)
    dcg = ctx.per_topic_sum(contrib)
    if cutoff is None:
        depth = int(np.bincount(pairs.cand_topic, minlength=ctx.n_topics).max(initial=0))
    else:
        depth = cutoff
    ideal = ideal_gains(ctx, pairs, alpha, depth)
    discounts = np.log2(np.arange(ideal.shape[0]) + 2.0)
    idcg = np.zeros(ctx.n_topics)
    for step in range(ideal.shape[0]):  # rank order, as a sequential sum would add them
        idcg = idcg + ideal[step] / discounts[step]
    return safe_divide(dcg, idcg)
