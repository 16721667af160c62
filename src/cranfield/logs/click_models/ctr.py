"""Click-through-rate baselines: one click probability for all, per rank, per (query, document).

The simplest click models (Chuklin, Markov & de Rijke 2015, §3.1), the yardsticks every other
model must beat on held-out sessions. Clicks are independent of each other, so the marginal and
the conditional click probabilities are the same. Each is a closed form (maximum likelihood):

* :class:`GlobalCTR` (GCTR): ``P(C_r = 1) = ρ``, the share of shown results clicked;
* :class:`RankCTR` (RCTR): ``P(C_r = 1) = ρ_r``, the share of results at rank ``r`` clicked
  (the position-bias curve); a rank no training session reaches gets the prior;
* :class:`DocumentCTR` (DCTR): ``P(C_r = 1) = ρ_{qd}``, the share of the impressions of
  document ``d`` for query ``q`` that were clicked; its estimated relevance is ``ρ_{qd}``,
  and a pair not seen in training gets the prior.
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
    check_prior,
    check_pseudo_counts,
    estimate,
    per_rank,
)
from cranfield.logs.click_models.pair_table import PairIndex, PairTable

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["DocumentCTR", "GlobalCTR", "RankCTR"]


@dataclass(frozen=True, eq=False)
class GlobalCTR(IndependentClicks):
    """One click probability ``ρ`` for every shown result.

    Examples
    --------
    >>> GlobalCTR.fit([0, 0], [[1, 2], [2, -1]], [[1, 0], [0, 0]], pseudo_counts=(0, 0)).ctr
    0.3333333333333333
    >>> GlobalCTR.fit([0, 0], [[1, 2], [2, -1]], [[1, 0], [0, 0]]).ctr
    0.4
    """

    ctr: float

    @classmethod
    def fit(
        cls,
        query: ArrayLike,
        shown: ArrayLike,
        clicked: ArrayLike,
        *,
        prior: float = DEFAULT_PRIOR,
        pseudo_counts: tuple[float, float] = DEFAULT_PSEUDO_COUNTS,
    ) -> GlobalCTR:
        """Clicks over shown results, smoothed (module doc); ``prior`` if nothing is shown
        and there are no pseudo-counts."""
        p = check_prior(prior)
        counts = check_pseudo_counts(pseudo_counts)
        log = click_arrays(query, shown, clicked)
        return cls(float(estimate(float(log.clicked.sum()), float(log.valid.sum()), counts, p)))

    def _marginal(self, query: NDArray[np.int64], shown: NDArray[np.int64]) -> NDArray[np.float64]:
        return np.where(shown >= 0, self.ctr, 0.0)


@dataclass(frozen=True, eq=False)
class RankCTR(IndependentClicks):
    """A click probability ``ρ_r`` per rank; ranks beyond ``ctr`` get ``prior``.

    Examples
    --------
    >>> RankCTR.fit([0, 0], [[1, 2], [2, -1]], [[1, 0], [0, 0]], pseudo_counts=(0, 0)).ctr.tolist()
    [0.5, 0.0]
    """

    ctr: NDArray[np.float64]
    prior: float = DEFAULT_PRIOR

    @classmethod
    def fit(
        cls,
        query: ArrayLike,
        shown: ArrayLike,
        clicked: ArrayLike,
        *,
        prior: float = DEFAULT_PRIOR,
        pseudo_counts: tuple[float, float] = DEFAULT_PSEUDO_COUNTS,
    ) -> RankCTR:
        """Clicks over shown results at each rank, smoothed (module doc); ``prior`` at a rank
        never shown."""
        p = check_prior(prior)
        pseudo = check_pseudo_counts(pseudo_counts)
        log = click_arrays(query, shown, clicked)
        counts = log.valid.sum(axis=0)
        ctr = np.where(counts > 0, estimate(log.clicked.sum(axis=0), counts, pseudo, p), p)
        return cls(ctr, p)

    def _marginal(self, query: NDArray[np.int64], shown: NDArray[np.int64]) -> NDArray[np.float64]:
        ctr = per_rank(np.asarray(self.ctr, dtype=np.float64), shown.shape[1], self.prior)
        return np.where(shown >= 0, ctr[None, :], 0.0)


@dataclass(frozen=True, eq=False)
class DocumentCTR(IndependentClicks):
    """A click probability ``ρ_{qd}`` per (query, document) pair.

    Examples
    --------
    >>> DocumentCTR.fit([0, 0], [[1, 2], [2, 1]], [[1, 0], [1, 1]]).ctr.as_dict()
    {(0, 1): 0.75, (0, 2): 0.5}
    """

    ctr: PairTable

    @classmethod
    def fit(
        cls,
        query: ArrayLike,
        shown: ArrayLike,
        clicked: ArrayLike,
        *,
        prior: float = DEFAULT_PRIOR,
        pseudo_counts: tuple[float, float] = DEFAULT_PSEUDO_COUNTS,
    ) -> DocumentCTR:
        """Clicks over impressions of each pair, smoothed (module doc); ``prior`` for pairs
        not in the log."""
        p = check_prior(prior)
        pseudo = check_pseudo_counts(pseudo_counts)
        log = click_arrays(query, shown, clicked)
        index = PairIndex.of(log)
        return cls(index.table(index.total(log.clicked), index.total(log.valid), p, pseudo))

    def relevance(self) -> PairTable:
        """The estimated relevance per (query, document): the pair's CTR ``ρ_{qd}``."""
        return self.ctr

    def _marginal(self, query: NDArray[np.int64], shown: NDArray[np.int64]) -> NDArray[np.float64]:
        return np.where(shown >= 0, self.ctr.lookup(query, shown), 0.0)
