"""Parameters per (query, document) pair: the attractiveness and satisfaction of click models.

A :class:`PairTable` holds one value per pair seen in training, sorted by the pair's 64-bit key
``query << 32 | document``, and a prior for every pair it does not hold (a pair first seen in
held-out sessions). :class:`PairIndex` numbers the pairs of a log once, so an EM iteration
gathers and sums per pair with numpy alone (``bincount``), never a loop over sessions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np

from cranfield.errors import InputError
from cranfield.logs.click_models.model import estimate

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

    from cranfield.logs.click_models.click_arrays import ClickArrays

__all__ = ["PairIndex", "PairTable", "pair_keys", "rankings"]


def pair_keys(query: NDArray[np.int64], doc: NDArray[np.int64]) -> NDArray[np.int64]:
    """The 64-bit key of each (query, document) pair (broadcasting)."""
    return (query << 32) | doc


@dataclass(frozen=True, eq=False)
class PairTable:
    """A value per (query, document) pair, and a prior for the pairs it does not hold.

    Attributes
    ----------
    query, doc:
        The codes of the pairs held, sorted by ``(query, doc)``.
    value:
        The value of each pair.
    prior:
        The value of every pair not held.
    """

    query: NDArray[np.int64]
    doc: NDArray[np.int64]
    value: NDArray[np.float64]
    prior: float

    @classmethod
    def from_pairs(
        cls, query: ArrayLike, doc: ArrayLike, value: ArrayLike, prior: float
    ) -> PairTable:
        """A table from parallel arrays of pairs and values (in any order, pairs unique).

        Examples
        --------
        >>> t = PairTable.from_pairs([1, 0], [5, 7], [0.2, 0.9], prior=0.5)
        >>> t.lookup([0, 1, 2], [[7, 5], [5, -1], [5, 5]]).tolist()
        [[0.9, 0.5], [0.2, 0.5], [0.5, 0.5]]
        """
        q = np.asarray(query, dtype=np.int64).ravel()
        d = np.asarray(doc, dtype=np.int64).ravel()
        v = np.asarray(value, dtype=np.float64).ravel()
        if not q.shape == d.shape == v.shape:
            raise InputError("pairs", None, "query, doc and value must have the same length")
        keys = pair_keys(q, d)
        order = np.argsort(keys, kind="stable")
        if np.any(np.diff(keys[order]) == 0):
            raise InputError("pairs", None, "a (query, doc) pair is given twice")
        return cls(q[order], d[order], v[order], float(prior))

    @classmethod
    def from_matrix(cls, matrix: ArrayLike, prior: float) -> PairTable:
        """A table from a dense ``(queries, documents)`` matrix: every pair held."""
        m = np.asarray(matrix, dtype=np.float64)
        if m.ndim != 2:
            raise InputError("matrix", None, f"expected a 2-d array, got shape {m.shape}")
        q, d = np.indices(m.shape, dtype=np.int64)
        return cls(q.ravel(), d.ravel(), m.ravel(), float(prior))

    def lookup(self, query: ArrayLike, shown: ArrayLike) -> NDArray[np.float64]:
        """The value of each shown document for its session's query; the prior where the pair
        is not held or no result is shown (``-1``).

        ``query`` ``(n,)`` and ``shown`` ``(n, depth)`` give an ``(n, depth)`` array.
        """
        q = np.asarray(query, dtype=np.int64)
        s = np.asarray(shown, dtype=np.int64)
        keys = pair_keys(q[:, None], s)
        table = pair_keys(self.query, self.doc)
        if table.size == 0:
            return np.full(s.shape, self.prior)
        at = np.minimum(np.searchsorted(table, keys), table.size - 1)
        found = (table[at] == keys) & (s >= 0)
        return np.where(found, self.value[at], self.prior)

    def as_dict(self) -> dict[tuple[int, int], float]:
        """``{(query, doc): value}`` for the pairs held."""
        return {
            (int(q), int(d)): float(v)
            for q, d, v in zip(self.query, self.doc, self.value, strict=True)
        }


_ROW_HASH: Final = np.random.default_rng(20).integers(1, 2**63, size=4096, dtype=np.int64) | 1
"""Fixed odd multipliers of the row hash that groups equal rankings (collisions are checked)."""


def rankings(
    query: NDArray[np.int64], shown: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Number the distinct rankings ``(query, shown row)`` of a log.

    Returns the ranking number of each session and the first session of each ranking. Rows
    are grouped by a 64-bit hash; the grouping is then checked row by row and redone exactly
    (``numpy.unique`` over rows) in the unlikely case of a collision.
    """
    depth = shown.shape[1]
    rows = np.column_stack([query, shown])
    if depth + 1 > _ROW_HASH.size:
        _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
        return inverse.reshape(-1).astype(np.int64), first.astype(np.int64)
    with np.errstate(over="ignore"):
        h = ((rows + 2) * _ROW_HASH[: depth + 1]).sum(axis=1)
        h ^= h >> 29
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    if not np.array_equal(rows[first][inverse], rows):
        _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
    return inverse.astype(np.int64), first.astype(np.int64)


DENSE_PAIRS: Final = 1 << 26
"""Largest ``queries × documents`` code space numbered with a dense table instead of a sort."""


def _number_pairs(
    query: NDArray[np.int64], doc: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """The distinct pairs, sorted by ``(query, doc)``, and the number of each given pair.

    A code space of at most ``DENSE_PAIRS`` (or four times the pairs given) is numbered with a
    table over it in linear time; a larger one with a sort (``numpy.unique``).
    """
    if query.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    width = int(doc.max()) + 1
    span = (int(query.max()) + 1) * width
    if span <= max(DENSE_PAIRS, 4 * query.size):
        key = query * width + doc
        seen = np.zeros(span, dtype=np.bool_)
        seen[key] = True
        present = np.flatnonzero(seen)
        number = np.cumsum(seen, dtype=np.int64) - 1
        pair_query, pair_doc = np.divmod(present, width)
        return pair_query, pair_doc, number[key]
    unique, inverse = np.unique(pair_keys(query, doc), return_inverse=True)
    return unique >> 32, unique & 0xFFFFFFFF, inverse.reshape(-1).astype(np.int64)


@dataclass(frozen=True, eq=False)
class PairIndex:
    """The pairs of one log numbered ``0 .. pairs - 1``, and its distinct rankings, for fitting.

    Sessions that show the same results for the same query share a *ranking*; a real log has
    far fewer rankings than sessions, and the EM fits work per ranking (weighted by its
    sessions) where they can.

    Attributes
    ----------
    query, doc:
        The code of each pair, sorted by ``(query, doc)``.
    cell:
        ``(n, depth)``: the pair number of each cell; ``pairs`` (one past the last) where no
        result is shown, so that gathering from an array with one extra value (0) and summing
        with ``bincount`` need no mask.
    ranking:
        ``(n,)``: the ranking number of each session.
    ranking_cell:
        ``(rankings, depth)``: the pair number of each cell of each ranking (as ``cell``).
    ranking_sessions:
        ``(rankings,)``: the number of sessions of each ranking.
    """

    query: NDArray[np.int64]
    doc: NDArray[np.int64]
    cell: NDArray[np.int64]
    ranking: NDArray[np.int64]
    ranking_cell: NDArray[np.int64]
    ranking_sessions: NDArray[np.int64]

    @classmethod
    def of(cls, log: ClickArrays) -> PairIndex:
        """Number the (query, document) pairs and the rankings shown in ``log``."""
        ranking, first = rankings(log.query, log.shown)
        query, shown = log.query[first], log.shown[first]
        valid = shown >= 0
        pair_query, pair_doc, number = _number_pairs(
            np.broadcast_to(query[:, None], shown.shape)[valid], shown[valid]
        )
        ranking_cell = np.full(shown.shape, pair_query.size, dtype=np.int64)
        ranking_cell[valid] = number
        sessions = np.bincount(ranking, minlength=first.size).astype(np.int64)
        return cls(
            pair_query,
            pair_doc,
            ranking_cell[ranking],
            ranking,
            ranking_cell,
            sessions,
        )

    @property
    def pairs(self) -> int:
        """Number of distinct pairs."""
        return int(self.query.size)

    def gather(self, value: NDArray[np.float64]) -> NDArray[np.float64]:
        """``(n, depth)``: each cell's pair value, 0 where no result is shown."""
        return np.append(value, 0.0)[self.cell]

    def impressions(self) -> NDArray[np.float64]:
        """The number of sessions that showed each pair (counted per ranking)."""
        weights = np.broadcast_to(self.ranking_sessions[:, None], self.ranking_cell.shape)
        return self.ranking_total(weights)

    def ranking_total(
        self, weights: NDArray[np.float64] | NDArray[np.int64]
    ) -> NDArray[np.float64]:
        """Sum of ``weights`` (``(rankings, depth)``) over the ranking cells of each pair."""
        w = np.asarray(weights, dtype=np.float64).ravel()
        sums = np.bincount(self.ranking_cell.ravel(), weights=w, minlength=self.pairs + 1)
        return sums[: self.pairs].astype(np.float64)

    def total(self, weights: NDArray[np.float64] | NDArray[np.bool_]) -> NDArray[np.float64]:
        """Sum of ``weights`` (``(n, depth)``) over the cells of each pair."""
        w = np.asarray(weights, dtype=np.float64).ravel()
        sums = np.bincount(self.cell.ravel(), weights=w, minlength=self.pairs + 1)
        return sums[: self.pairs].astype(np.float64)

    def table(
        self,
        numerator: NDArray[np.float64],
        denominator: NDArray[np.float64],
        prior: float,
        pseudo_counts: tuple[float, float] = (0.0, 0.0),
    ) -> PairTable:
        """The table of ``(numerator + a) / (denominator + a + b)`` per pair with the
        pseudo-counts ``(a, b)`` (:func:`~cranfield.logs.click_models.model.estimate`), the
        prior where that denominator is 0; the prior for the pairs it does not hold."""
        value = estimate(numerator, denominator, pseudo_counts, prior)
        return PairTable(self.query, self.doc, value, float(prior))
