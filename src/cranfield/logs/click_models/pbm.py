"""The position-based model (PBM), fitted by expectation-maximisation.

A result is clicked when it is examined and attractive, independently:
``P(C_r = 1) = α_{qd} γ_r``, with ``α_{qd}`` the attractiveness of document ``d`` for query
``q`` and ``γ_r`` the examination probability of rank ``r`` (Craswell, Zoeter, Taylor & Ramsey
2008; Richardson, Dominowska & Ragno 2007; Chuklin, Markov & de Rijke 2015, §3.3 and §4.2).

EM (Chuklin et al. 2015, eqs. 4.13 and 4.14): given the current ``α``, ``γ``, a click means
``A = E = 1``; a skip gives ``P(A = 1 | C = 0) = α (1 - γ) / (1 - α γ)`` and
``P(E = 1 | C = 0) = γ (1 - α) / (1 - α γ)``. The new ``α_{qd}`` is the mean of
``P(A = 1 | C)`` over the impressions of the pair, the new ``γ_r`` the mean of
``P(E = 1 | C)`` over the sessions showing a result at rank ``r``; each mean is smoothed with
the pseudo-counts ``(a, b)``: ``(Σ P + a) / (count + a + b)``, by default ``(1, 1)`` as PyClick
(``(0, 0)``: the plain EM of the maximum likelihood).

Every parameter starts at ``prior`` (0.5); the iterations stop after ``max_iterations`` or once
no parameter moves by more than ``tolerance``. Sessions are not sampled or shuffled, so a fit is
deterministic. A pair not seen in training has attractiveness ``prior``; a rank no training
session reaches has examination ``prior``. The estimated relevance is the attractiveness.
``α`` and ``γ`` are identified only up to a common factor when each document is shown at one
rank only; data with documents at several ranks (as in a real log) fix it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cranfield.logs.click_models.click_arrays import click_arrays
from cranfield.logs.click_models.model import (
    DEFAULT_PRIOR,
    DEFAULT_PSEUDO_COUNTS,
    IndependentClicks,
    check_em,
    check_prior,
    check_pseudo_counts,
    factored_em,
    per_rank,
)
from cranfield.logs.click_models.pair_table import PairIndex, PairTable

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["PBM"]


@dataclass(frozen=True, eq=False)
class PBM(IndependentClicks):
    """The position-based model: ``P(C_r = 1) = α_{qd} γ_r`` (module doc).

    Attributes
    ----------
    attractiveness:
        ``α_{qd}`` per (query, document), its prior for unseen pairs.
    examination:
        ``γ_r`` per rank (``(depth,)``); a deeper rank gets ``prior``.
    prior:
        The examination of a rank beyond ``examination``.
    iterations:
        EM iterations run (0 for a model built from given parameters).

    Examples
    --------
    >>> query, shown = [0, 0, 0, 0], [[1, 2], [2, 1], [1, 2], [2, 1]]
    >>> model = PBM.fit(query, shown, [[1, 0], [1, 1], [0, 0], [1, 0]], pseudo_counts=(0, 0))
    >>> model.attractiveness.lookup([0], [[1, 2]]).round(3).tolist()
    [[0.64, 1.0]]
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
    ) -> PBM:
        """Fit by EM (module doc): parameters start at ``prior``; every M-step ratio smoothed
        with ``pseudo_counts``; stop after ``max_iterations`` or when no parameter moves more
        than ``tolerance``."""
        p = check_prior(prior)
        pseudo = check_pseudo_counts(pseudo_counts)
        stop = check_em(max_iterations, tolerance)
        log = click_arrays(query, shown, clicked)
        index = PairIndex.of(log)
        depth = log.depth
        ranks = np.arange(depth)
        # sufficient statistics: clicks and skips per (pair, rank)
        bins = (index.pairs + 1) * depth
        shown_at = np.broadcast_to(index.ranking_sessions[:, None], index.ranking_cell.shape)
        views = np.bincount(
            (index.ranking_cell * depth + ranks).ravel(), weights=shown_at.ravel(), minlength=bins
        )[: index.pairs * depth]
        clicks = np.bincount(
            (index.cell * depth + ranks).ravel(), weights=log.clicked.ravel(), minlength=bins
        )[: index.pairs * depth]
        seen = np.flatnonzero(views)
        pair, rank = np.divmod(seen, depth)
        alpha, gamma, done = factored_em(
            pair,
            rank,
            clicks[seen],
            views[seen] - clicks[seen],
            np.full(depth, p),
            pairs=index.pairs,
            prior=p,
            stop=stop,
            pseudo_counts=pseudo,
        )
        return cls(PairTable(index.query, index.doc, alpha, p), gamma, p, done)

    def relevance(self) -> PairTable:
        """The estimated relevance per (query, document): the attractiveness ``α_{qd}``."""
        return self.attractiveness

    def _marginal(self, query: NDArray[np.int64], shown: NDArray[np.int64]) -> NDArray[np.float64]:
        gamma = per_rank(np.asarray(self.examination, np.float64), shown.shape[1], self.prior)
        return np.where(shown >= 0, self.attractiveness.lookup(query, shown) * gamma, 0.0)
