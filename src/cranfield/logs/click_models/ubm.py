"""The user browsing model (UBM), fitted by expectation-maximisation.

A result is clicked when examined and attractive, and its examination depends on its rank and
on the rank of the previous click: ``P(C_r = 1 | clicks above) = α_{qd} γ_{r r'}``, with
``r'`` the rank of the last click above ``r`` (0 if none) (Dupret & Piwowarski, *A user
browsing model to predict search engine click data from past observations*, SIGIR 2008;
Chuklin, Markov & de Rijke 2015, §3.5 and §4.2).

EM (Chuklin et al. 2015, eqs. 4.17 and 4.18): as for PBM with ``γ_{r r'}`` in place of
``γ_r``: a click means ``A = E = 1``; a skip gives ``P(A = 1 | C = 0) = α (1 - γ) / (1 - α γ)``
and ``P(E = 1 | C = 0) = γ (1 - α) / (1 - α γ)``; the new ``α_{qd}`` is the mean of
``P(A = 1 | C)`` over the pair's impressions, the new ``γ_{r r'}`` the mean of ``P(E = 1 | C)``
over the cells at rank ``r`` whose previous click is at ``r'``; each mean smoothed with the
pseudo-counts ``(a, b)`` as PBM's (default ``(1, 1)``, PyClick's; ``(0, 0)``: unsmoothed).

``examination[r, j]`` holds ``γ`` for 0-based rank ``r`` and ``j = r' `` (``0``: no click above,
``j``: last click above at 1-based rank ``j``), so only ``j <= r`` is used; the other entries
are NaN. Every parameter starts at ``prior`` (0.5); stopping as for PBM (``max_iterations``,
``tolerance``), deterministic. An unseen pair has attractiveness ``prior``, an unseen
``(r, r')`` examination ``prior``. The estimated relevance is the attractiveness.

The marginal click probability sums over where the previous click was:
``P(C_r = 1) = Σ_j P(last click above r at j) α γ_{r j}``, carried rank by rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cranfield.logs.click_models.click_arrays import ClickArrays, click_arrays
from cranfield.logs.click_models.model import (
    DEFAULT_PRIOR,
    DEFAULT_PSEUDO_COUNTS,
    ClickModel,
    check_em,
    check_prior,
    check_pseudo_counts,
    factored_em,
)
from cranfield.logs.click_models.pair_table import PairIndex, PairTable

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["UBM"]


@dataclass(frozen=True, eq=False)
class UBM(ClickModel):
    """The user browsing model: ``P(C_r = 1 | clicks above) = α_{qd} γ_{r r'}`` (module doc).

    Attributes
    ----------
    attractiveness:
        ``α_{qd}`` per (query, document), its prior for unseen pairs.
    examination:
        ``(depth, depth)``: ``γ`` at 0-based rank ``r`` (row) with the previous click at
        1-based rank ``j`` (column; 0 for none); NaN for ``j > r``.
    prior:
        The examination where the table has no value (deeper ranks).
    iterations:
        EM iterations run (0 for a model built from given parameters).
    """

    attractiveness: PairTable
    examination: NDArray[np.float64]
    prior: float = DEFAULT_PRIOR
    iterations: int = 0

    @classmethod
    def fit(
        cls,
        query: ArrayLike,
        shown: ArrayLike,
        clicked: ArrayLike,
        *,
        prior: float = DEFAULT_PRIOR,
        pseudo_counts: tuple[float, float] = DEFAULT_PSEUDO_COUNTS,
        max_iterations: int = 100,
        tolerance: float = 1e-6,
    ) -> UBM:
        """Fit by EM (module doc): parameters start at ``prior``; every M-step ratio smoothed
        with ``pseudo_counts``; stop after ``max_iterations`` or when no parameter moves more
        than ``tolerance``."""
        p = check_prior(prior)
        pseudo = check_pseudo_counts(pseudo_counts)
        stop = check_em(max_iterations, tolerance)
        log = click_arrays(query, shown, clicked)
        depth = log.depth
        index = PairIndex.of(log)
        # sufficient statistics: clicks and skips per (pair, examination entry)
        entries = depth * depth
        key = (index.cell * entries + _cell(log)) * 2 + log.clicked
        found, count = np.unique(key[log.valid], return_counts=True)
        click = (found & 1).astype(np.bool_)
        pair, entry = np.divmod(found >> 1, entries)
        alpha, gamma, done = factored_em(
            pair,
            entry,
            np.where(click, count, 0).astype(np.float64),
            np.where(click, 0, count).astype(np.float64),
            np.where(_used(depth), p, np.nan).ravel(),
            pairs=index.pairs,
            prior=p,
            stop=stop,
            pseudo_counts=pseudo,
        )
        table = PairTable(index.query, index.doc, alpha, p)
        return cls(table, gamma.reshape(depth, depth), p, done)

    def relevance(self) -> PairTable:
        """The estimated relevance per (query, document): the attractiveness ``α_{qd}``."""
        return self.attractiveness

    def _gamma(self, depth: int) -> NDArray[np.float64]:
        """``(depth, depth)`` examination, ``prior`` beyond the table and where it is NaN."""
        out = np.full((depth, depth), self.prior)
        table = np.asarray(self.examination, dtype=np.float64)
        k = min(depth, table.shape[0])
        out[:k, :k] = np.where(np.isnan(table[:k, :k]), self.prior, table[:k, :k])
        return out

    def _marginal(self, query: NDArray[np.int64], shown: NDArray[np.int64]) -> NDArray[np.float64]:
        n, depth = shown.shape
        alpha = np.where(shown >= 0, self.attractiveness.lookup(query, shown), 0.0)
        gamma = self._gamma(depth)
        # where[:, j]: P(the last click above the current rank is at 1-based rank j; 0: none)
        where = np.zeros((n, depth + 1))
        where[:, 0] = 1.0
        out = np.empty((n, depth))
        for r in range(depth):
            click = alpha[:, r : r + 1] * gamma[r, : r + 1][None, :]
            by_previous = where[:, : r + 1] * click
            out[:, r] = by_previous.sum(axis=1)
            where[:, : r + 1] -= by_previous
            where[:, r + 1] = out[:, r]
        return out

    def _conditional(self, log: ClickArrays) -> NDArray[np.float64]:
        alpha = np.where(log.valid, self.attractiveness.lookup(log.query, log.shown), 0.0)
        gamma: NDArray[np.float64] = np.append(self._gamma(log.depth).ravel(), 0.0)
        return alpha * gamma[_cell(log)]

    def _simulate(
        self, query: NDArray[np.int64], shown: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.bool_]:
        n, depth = shown.shape
        alpha = np.where(shown >= 0, self.attractiveness.lookup(query, shown), 0.0)
        gamma = self._gamma(depth)
        previous = np.zeros(n, dtype=np.int64)
        out = np.empty((n, depth), dtype=np.bool_)
        for r in range(depth):
            click = rng.random(n) < alpha[:, r] * gamma[r, previous]
            out[:, r] = click
            previous = np.where(click, r + 1, previous)
        return out


def _used(depth: int) -> NDArray[np.bool_]:
    """The entries ``(r, j)`` of the examination table a session can reach: ``j <= r``."""
    return np.tril(np.ones((depth, depth), dtype=np.bool_))


def _cell(log: ClickArrays) -> NDArray[np.int64]:
    """Each cell's index ``r * depth + j`` into the flat examination table; ``depth ** 2``
    (one past the end) where no result is shown."""
    depth = log.depth
    flat = np.arange(depth, dtype=np.int64)[None, :] * depth + (log.previous_click + 1)
    return np.where(log.valid, flat, depth * depth)
