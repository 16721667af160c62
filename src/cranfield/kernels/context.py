"""Derived arrays shared by kernels, computed once per evaluation and cached."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from cranfield._types import Compat

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.data.ranking import Ranking

T = TypeVar("T")


def memo(method: Callable[..., T]) -> Callable[..., T]:
    """Cache a method's results on the instance (``functools.cache`` would keep every
    context, and its arrays, alive for the life of the process)."""
    name = method.__name__

    @functools.wraps(method)
    def wrapper(self: EvalContext, *args: object) -> T:
        key = (name, *args)
        store = self._memo
        if key not in store:
            store[key] = method(self, *args)
        return store[key]  # type: ignore[return-value]

    return wrapper


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
    if lengths[0] > 0 and (lengths == lengths[0]).all():
        # Every topic has the same length (a run cut at a fixed depth): rows in place.
        width = int(lengths[0])
        np.cumsum(vals.reshape(-1, width), axis=1, out=out.reshape(-1, width))
        return out
    bucket = np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64)
    for b in np.unique(bucket[lengths > 0]):
        topics = np.flatnonzero((bucket == b) & (lengths > 0))
        width = int(lengths[topics].max())
        cols = np.arange(width)
        idx = offsets[topics][:, None] + cols[None, :]
        if (lengths[topics] == width).all():
            out[idx] = np.cumsum(vals[idx], axis=1)
            continue
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
        self.lengths = ranking.lengths
        self.judgments = ranking.judgments
        self._memo: dict[tuple[object, ...], object] = {}

    @property
    def topic_of(self) -> NDArray[np.int64]:
        """Topic index of each row (built on first use: many kernels never need it)."""
        return self.ranking.topic_of

    @property
    def position(self) -> NDArray[np.int64]:
        """0-based rank of each row within its topic (built on first use)."""
        return self.ranking.position

    def per_topic_sum(self, values: NDArray[np.generic]) -> NDArray[np.float64]:
        """Per-topic sums of ``values``, one per row, added in row order.

        Most per-row contributions are zero (they come from relevant or judged rows only),
        and adding an exact zero never changes a running sum, so only the non-zero rows are
        summed: the same numbers, without a pass over the whole run per measure.
        """
        rows = np.flatnonzero(values)
        if 2 * rows.size > values.size:
            return segment_sum(self.topic_of, values, self.n_topics)
        topic = np.searchsorted(self.offsets, rows, side="right") - 1
        return segment_sum(topic, values[rows], self.n_topics)

    @memo
    def is_rel(self, level: int) -> NDArray[np.bool_]:
        """Row is judged at ``>= level`` (relevant)."""
        return self.rel >= level

    @memo
    def rel_cum(self, level: int) -> NDArray[np.int64]:
        """Relevant documents at or above each row (rr(i) with i = position + 1)."""
        return segment_count_cumsum(self.is_rel(level), self.offsets)

    @memo
    def num_rel(self, level: int) -> NDArray[np.int64]:
        """R per topic: judged documents with relevance ``>= level``."""
        return self.judgments.count_at_least(level)

    @memo
    def num_rel_ret(self, level: int) -> NDArray[np.int64]:
        """Relevant retrieved per topic."""
        return np.diff(self.rel_rows(level)[1])

    def rel_within(self, level: int, k: int) -> NDArray[np.int64]:
        """rr(k): relevant documents among the first ``k`` of each topic."""
        rows, offsets = self.rel_rows(level)
        topic = np.repeat(np.arange(self.n_topics), np.diff(offsets))
        inside = rows - self.offsets[topic] < k
        return np.bincount(topic[inside], minlength=self.n_topics).astype(np.int64)

    @memo
    def pooled_rows(self) -> NDArray[np.int64]:
        """Indices of the rows with a qrels entry (judged, or pooled and unjudged)."""
        from cranfield.data.ranking import NOT_IN_POOL  # the ranking defines the codes

        return np.flatnonzero(self.rel != NOT_IN_POOL)

    @memo
    def rel_rows(self, level: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Indices of relevant rows, and per-topic offsets into that index array."""
        rows = np.flatnonzero(self.is_rel(level))
        # Topic of each relevant row without materialising topic_of for the whole run.
        topic = np.searchsorted(self.offsets, rows, side="right") - 1
        counts = np.bincount(topic, minlength=self.n_topics)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        return rows, offsets
