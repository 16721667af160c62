"""Derived arrays shared by kernels, computed once per evaluation and cached."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Literal

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.data.ranking import Ranking

Compat = Literal[9, 10]


def segment_sum(
    topic_of: NDArray[np.int64], values: NDArray[np.generic], n: int
) -> NDArray[np.float64]:
    """Per-topic sums of ``values`` (summed in row order, as a sequential C loop would)."""
    return np.bincount(topic_of, weights=values, minlength=n).astype(np.float64)


def segment_cumsum(values: NDArray[np.generic], offsets: NDArray[np.int64]) -> NDArray[np.float64]:
    """Inclusive cumulative sum restarting at every topic, summed sequentially per topic.

    A global cumsum minus each topic's starting total would be faster but rounds
    differently from the sequential loop trec_eval runs; topics are instead grouped by
    length (powers of two), laid out as padded rows and summed along the rows, which
    gives exactly the sequential per-topic sums.
    """
    vals = np.asarray(values, dtype=np.float64)
    out = np.empty_like(vals)
    lengths = np.diff(offsets)
    if vals.size == 0:
        return out
    bucket = np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64)
    for b in np.unique(bucket[lengths > 0]):
        topics = np.flatnonzero((bucket == b) & (lengths > 0))
        width = int(lengths[topics].max())
        cols = np.arange(width)
        idx = offsets[topics][:, None] + cols[None, :]
        valid = cols[None, :] < lengths[topics][:, None]
        block = np.where(valid, vals[np.where(valid, idx, 0)], 0.0)
        sums = np.cumsum(block, axis=1)
        out[idx[valid]] = sums[valid]
    return out


def segment_count_cumsum(flags: NDArray[np.bool_], offsets: NDArray[np.int64]) -> NDArray[np.int64]:
    """Inclusive running count of true flags, restarting at every topic (exact integers)."""
    total = np.cumsum(flags, dtype=np.int64)
    lengths = np.diff(offsets)
    start = np.concatenate(([0], total))[offsets[:-1]]
    out: NDArray[np.int64] = total - np.repeat(start, lengths)
    return out


def safe_divide(
    num: NDArray[np.float64], den: NDArray[np.float64] | NDArray[np.int64]
) -> NDArray[np.float64]:
    """``num / den`` where ``den > 0``, else 0 (trec_eval leaves such values at 0)."""
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=np.asarray(den) > 0)
    return out


class EvalContext:
    """A :class:`Ranking` plus evaluation options, with cached per-level arrays.

    Parameters
    ----------
    ranking:
        The ranked judgment codes of every evaluated topic.
    compat:
        10 (default) or 9: trec_eval version whose recall-level rounding is used by
        interpolated precision (``lround(p*R)`` in 10, ``trunc(p*R + 0.9)`` in 9).
    num_docs:
        Collection size ``N`` used by utility's fourth cell (trec_eval ``-N``, default 0).
    """

    def __init__(self, ranking: Ranking, *, compat: Compat = 10, num_docs: int = 0):
        self.ranking = ranking
        self.compat = compat
        self.num_docs = num_docs
        self.n_topics = ranking.num_topics
        self.offsets = ranking.offsets
        self.rel = ranking.rel
        self.topic_of = ranking.topic_of
        self.position = ranking.position
        self.lengths = ranking.lengths
        self.judgments = ranking.judgments

    def per_topic_sum(self, values: NDArray[np.generic]) -> NDArray[np.float64]:
        return segment_sum(self.topic_of, values, self.n_topics)

    @cache  # noqa: B019 - the context lives for one evaluation
    def is_rel(self, level: int) -> NDArray[np.bool_]:
        """Row is judged at ``>= level`` (relevant)."""
        return self.rel >= level

    @cache  # noqa: B019
    def rel_cum(self, level: int) -> NDArray[np.int64]:
        """Relevant documents at or above each row (rr(i) with i = position + 1)."""
        return segment_count_cumsum(self.is_rel(level), self.offsets)

    @cache  # noqa: B019
    def num_rel(self, level: int) -> NDArray[np.int64]:
        """R per topic: judged documents with relevance ``>= level``."""
        return self.judgments.count_at_least(level)

    @cache  # noqa: B019
    def num_rel_ret(self, level: int) -> NDArray[np.int64]:
        """Relevant retrieved per topic."""
        return self.per_topic_sum(self.is_rel(level)).astype(np.int64)

    def rel_within(self, level: int, k: int) -> NDArray[np.int64]:
        """rr(k): relevant documents among the first ``k`` of each topic."""
        mask = self.is_rel(level) & (self.position < k)
        return self.per_topic_sum(mask).astype(np.int64)

    @cache  # noqa: B019
    def rel_rows(self, level: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Indices of relevant rows, and per-topic offsets into that index array."""
        rows = np.flatnonzero(self.is_rel(level))
        counts = np.bincount(self.topic_of[rows], minlength=self.n_topics)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        return rows, offsets
