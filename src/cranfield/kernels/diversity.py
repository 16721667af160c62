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


# --------------------------------------------------------------------------- ndeval's family
#
# ndeval (TREC Web 2009-2014) computes these from binary subtopic judgments. S is the number
# of the topic's subtopics with at least one relevant document ("actual subtopics"); a topic
# with S = 0 scores 0 on every measure.


def _subtopics_per_topic(ctx: EvalContext, pairs: IntentPairs) -> NDArray[np.int64]:
    """The topic of each subtopic code (codes are numbered topic by topic)."""
    topic = np.zeros(pairs.num_subtopics, dtype=np.int64)
    topic[pairs.pair_subtopic] = pairs.cand_topic[pairs.pair_cand]
    return topic


def _actual_subtopics(ctx: EvalContext, pairs: IntentPairs) -> NDArray[np.float64]:
    """S per topic: the subtopics with at least one relevant document."""
    sub_topic = _subtopics_per_topic(ctx, pairs)
    return np.bincount(sub_topic, minlength=ctx.n_topics).astype(np.float64)


def _check_alpha(name: str, alpha: float) -> None:
    if alpha > 1.0:
        raise MeasureError(f"The 'alpha' parameter of {name} must be <= 1, got {alpha!r}.")


def _inside(ctx: EvalContext, cutoff: int | None) -> NDArray[np.bool_]:
    if cutoff is None:
        return np.ones(ctx.position.size, dtype=bool)
    out: NDArray[np.bool_] = ctx.position < cutoff
    return out


def _err_ia_sum(
    ctx: EvalContext, alpha: float, rel: int, cutoff: int
) -> tuple[IntentPairs, NDArray[np.float64]]:
    """The relevant (document, subtopic) pairs and, per topic, Σ_{i<=k} g(i)/i (ERR-IA@k and
    nERR-IA@k before their normalisations)."""
    pairs = extended(ctx).intents_at(rel)
    gain = row_gains(ctx, pairs, alpha)
    inside = _inside(ctx, cutoff)
    return pairs, ctx.per_topic_sum(np.where(inside, gain / (ctx.position + 1.0), 0.0))


def err_ia(ctx: EvalContext, *, alpha: float, rel: int, cutoff: int) -> NDArray[np.float64]:
    """ERR-IA@k per topic, ndeval's collection-independent ("ideal ideal") normalisation.

    Raises
    ------
    MeasureError
        If ``alpha`` is greater than 1.
    """
    _check_alpha("ERR_IA", alpha)
    pairs, err = _err_ia_sum(ctx, alpha, rel, cutoff)
    if cutoff == 1:  # ndeval leaves rank 1 unnormalised
        return err
    decay = powers(1.0 - alpha, cutoff - 1)
    ideal_ideal = 0.0
    for i in range(cutoff):
        ideal_ideal += decay[i] / (i + 1.0)
    return safe_divide(err, _actual_subtopics(ctx, pairs) * ideal_ideal)


def nerr_ia(ctx: EvalContext, *, alpha: float, rel: int, cutoff: int) -> NDArray[np.float64]:
    """nERR-IA@k per topic: ERR-IA@k over ERR-IA@k of ndeval's greedy ideal ranking.

    Raises
    ------
    MeasureError
        If ``alpha`` is greater than 1.
    """
    _check_alpha("nERR_IA", alpha)
    pairs, err = _err_ia_sum(ctx, alpha, rel, cutoff)
    ideal = ideal_gains(ctx, pairs, alpha, cutoff)
    ideal_err = np.zeros(ctx.n_topics)
    for step in range(ideal.shape[0]):
        ideal_err = ideal_err + ideal[step] / (step + 1.0)
    return safe_divide(err, ideal_err)


def _nrbp_sum(
    ctx: EvalContext, alpha: float, beta: float, rel: int
) -> tuple[IntentPairs, NDArray[np.float64]]:
    """The relevant (document, subtopic) pairs and, per topic, Σ_i β^(i−1)·g(i) (NRBP and
    nNRBP before their normalisations)."""
    pairs = extended(ctx).intents_at(rel)
    gain = row_gains(ctx, pairs, alpha)
    decay = powers(beta, int(ctx.position.max(initial=0)))
    return pairs, ctx.per_topic_sum(gain * decay[ctx.position])


def nrbp(ctx: EvalContext, *, alpha: float, beta: float, rel: int) -> NDArray[np.float64]:
    """NRBP per topic over the whole ranking, ndeval's collection-independent normalisation.

    Raises
    ------
    MeasureError
        If ``alpha`` is greater than 1.
    """
    _check_alpha("NRBP", alpha)
    pairs, total = _nrbp_sum(ctx, alpha, beta, rel)
    return safe_divide(total * (1.0 - (1.0 - alpha) * beta), _actual_subtopics(ctx, pairs))


def nnrbp(ctx: EvalContext, *, alpha: float, beta: float, rel: int) -> NDArray[np.float64]:
    """nNRBP per topic: NRBP over NRBP of ndeval's greedy ideal ranking.

    Raises
    ------
    MeasureError
        If ``alpha`` is greater than 1.
    """
    _check_alpha("nNRBP", alpha)
    pairs, total = _nrbp_sum(ctx, alpha, beta, rel)
    depth = int(np.bincount(pairs.cand_topic, minlength=ctx.n_topics).max(initial=0))
    ideal = ideal_gains(ctx, pairs, alpha, depth)
    decay = powers(beta, max(depth - 1, 0))
    ideal_total = np.zeros(ctx.n_topics)
    for step in range(ideal.shape[0]):
        ideal_total = ideal_total + ideal[step] * decay[step]
    return safe_divide(total, ideal_total)


def precision_ia(ctx: EvalContext, *, rel: int, cutoff: int) -> NDArray[np.float64]:
    """P-IA@k per topic: relevant (document, subtopic) pairs in the first k over k·S."""
    pairs = extended(ctx).intents_at(rel)
    inside = ctx.position[pairs.row] < cutoff
    count = np.bincount(ctx.topic_of[pairs.row[inside]], minlength=ctx.n_topics)
    return safe_divide(count.astype(np.float64), cutoff * _actual_subtopics(ctx, pairs))


def ap_ia(ctx: EvalContext, *, rel: int) -> NDArray[np.float64]:
    """AP-IA per topic: the mean over the topic's subtopics of AP against each subtopic."""
    pairs = extended(ctx).intents_at(rel)
    sub_topic = _subtopics_per_topic(ctx, pairs)
    nrel_sub = np.bincount(pairs.pair_subtopic, minlength=pairs.num_subtopics)
    order = np.lexsort((pairs.row, pairs.row_subtopic))
    found = np.empty(order.size, dtype=np.float64)
    found[order] = _group_rank(pairs.row_subtopic[order]) + 1.0
    precision = found / (ctx.position[pairs.row] + 1.0)
    per_sub = np.bincount(
        pairs.row_subtopic, weights=precision, minlength=pairs.num_subtopics
    ).astype(np.float64)
    ap = safe_divide(per_sub, nrel_sub)
    total = np.bincount(sub_topic, weights=ap, minlength=ctx.n_topics).astype(np.float64)
    return safe_divide(total, _actual_subtopics(ctx, pairs))


def subtopic_recall(
    ctx: EvalContext, *, rel: int, cutoff: int | None = None
) -> NDArray[np.float64]:
    """Subtopic recall@k per topic: the share of the topic's S subtopics covered in the first k."""
    pairs = extended(ctx).intents_at(rel)
    inside = _inside(ctx, cutoff)[pairs.row]
    covered = np.unique(pairs.row_subtopic[inside])
    sub_topic = _subtopics_per_topic(ctx, pairs)
    count = np.bincount(sub_topic[covered], minlength=ctx.n_topics).astype(np.float64)
    return safe_divide(count, _actual_subtopics(ctx, pairs))
