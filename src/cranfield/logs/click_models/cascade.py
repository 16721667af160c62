"""The cascade model and the dependent click model (DCM): closed forms.

**Cascade** (Craswell, Zoeter, Taylor & Ramsey, *An experimental comparison of click
position-bias models*, WSDM 2008; Chuklin, Markov & de Rijke 2015, §3.4): the user scans the
results top-down, clicks a result with its attractiveness ``α_{qd}`` and stops at the first
click. Every rank down to the first click (all ranks without a click) is examined, none below,
so the maximum-likelihood ``α_{qd}`` is the clicks on the pair over its impressions at or above
the first click (Chuklin et al. 2015, eq. 4.1). The model cannot explain a second click: its
conditional probability is 0 and scores clip it (:data:`.model.PROBABILITY_FLOOR`).

**DCM** (Guo, Liu & Wang, *Efficient multiple-click models in web search*, WSDM 2009;
Chuklin et al. 2015, §3.6 and §4.1): after a click at rank ``r`` the user goes on with
probability ``λ_r``, after a skip always. The closed form of the simplified estimation assumes
the user examined every rank down to the last click and stopped there (all ranks without a
click): ``α_{qd}`` is the clicks on the pair over its impressions at or above the last click,
``λ_r = 1 - (sessions whose last click is at r) / (clicks at r)``.

Every ratio is smoothed with the pseudo-counts ``(a, b)``: ``(successes + a) / (trials + a +
b)`` (DCM's ``λ_r``: the clicks at ``r`` that were not the last, over the clicks at ``r``); by
default ``(1, 1)``, PyClick's estimate; ``(0, 0)`` gives the maximum likelihood above. An
unseen pair has attractiveness ``prior``; without pseudo-counts, so has a pair never examined
and a rank never clicked its ``λ_r = prior``. The estimated relevance is the attractiveness.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cranfield.logs.click_models.click_arrays import ClickArrays, click_arrays
from cranfield.logs.click_models.examination_chain import (
    chain_conditional,
    chain_marginal,
    chain_simulate,
)
from cranfield.logs.click_models.model import (
    DEFAULT_PRIOR,
    DEFAULT_PSEUDO_COUNTS,
    ClickModel,
    check_prior,
    check_pseudo_counts,
    estimate,
    per_rank,
)
from cranfield.logs.click_models.pair_table import PairIndex, PairTable

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["DCM", "Cascade", "examined_until"]


def examined_until(log: ClickArrays, stop: NDArray[np.int64]) -> NDArray[np.bool_]:
    """``(n, depth)``: the cells at or above rank ``stop`` of each session (every shown cell
    where ``stop`` is -1, a session without clicks)."""
    ranks = np.arange(log.depth)[None, :]
    return log.valid & ((ranks <= stop[:, None]) | (stop[:, None] < 0))


def _attractiveness(
    log: ClickArrays,
    index: PairIndex,
    examined: NDArray[np.bool_],
    prior: float,
    pseudo_counts: tuple[float, float],
) -> PairTable:
    clicks, shown = index.total(log.clicked & examined), index.total(examined)
    return index.table(clicks, shown, prior, pseudo_counts)


@dataclass(frozen=True, eq=False)
class Cascade(ClickModel):
    """The cascade model: stop at the first click (module doc).

    Examples
    --------
    >>> model = Cascade.fit([0, 0], [[1, 2], [2, 1]], [[0, 1], [1, 0]], pseudo_counts=(0, 0))
    >>> model.attractiveness.as_dict()
    {(0, 1): 0.0, (0, 2): 1.0}
    """

    attractiveness: PairTable

    @classmethod
    def fit(
        cls,
        query: ArrayLike,
        shown: ArrayLike,
        clicked: ArrayLike,
        *,
        prior: float = DEFAULT_PRIOR,
        pseudo_counts: tuple[float, float] = DEFAULT_PSEUDO_COUNTS,
    ) -> Cascade:
        """The closed form, smoothed with ``pseudo_counts`` (module doc)."""
        p = check_prior(prior)
        pseudo = check_pseudo_counts(pseudo_counts)
        log = click_arrays(query, shown, clicked)
        index = PairIndex.of(log)
        return cls(_attractiveness(log, index, examined_until(log, log.first_click), p, pseudo))

    def relevance(self) -> PairTable:
        """The estimated relevance per (query, document): the attractiveness ``α_{qd}``."""
        return self.attractiveness

    def _alpha(self, query: NDArray[np.int64], shown: NDArray[np.int64]) -> NDArray[np.float64]:
        return np.where(shown >= 0, self.attractiveness.lookup(query, shown), 0.0)

    def _marginal(self, query: NDArray[np.int64], shown: NDArray[np.int64]) -> NDArray[np.float64]:
        return chain_marginal(self._alpha(query, shown), np.zeros(shown.shape), 1.0)

    def _conditional(self, log: ClickArrays) -> NDArray[np.float64]:
        alpha = self._alpha(log.query, log.shown)
        return chain_conditional(alpha, np.zeros(alpha.shape), 1.0, log.clicked)

    def _simulate(
        self, query: NDArray[np.int64], shown: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.bool_]:
        return chain_simulate(self._alpha(query, shown), np.zeros(shown.shape), 1.0, rng)


@dataclass(frozen=True, eq=False)
class DCM(ClickModel):
    """The dependent click model: go on after a click at rank ``r`` with ``λ_r`` (module doc).

    Attributes
    ----------
    attractiveness:
        ``α_{qd}`` per (query, document), its prior for unseen pairs.
    continuation:
        ``λ_r`` per rank (``(depth,)``); a deeper rank gets ``prior``.
    prior:
        ``λ`` of a rank beyond ``continuation``.
    """

    attractiveness: PairTable
    continuation: NDArray[np.float64]
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
    ) -> DCM:
        """The closed form, smoothed with ``pseudo_counts`` (module doc); ``prior`` where a
        ratio has no data and no pseudo-counts."""
        p = check_prior(prior)
        pseudo = check_pseudo_counts(pseudo_counts)
        log = click_arrays(query, shown, clicked)
        index = PairIndex.of(log)
        alpha = _attractiveness(log, index, examined_until(log, log.last_click), p, pseudo)
        clicks = log.clicked.sum(axis=0)
        last = np.bincount(log.last_click[log.last_click >= 0], minlength=log.depth)
        lam = estimate(clicks - last, clicks, pseudo, p)
        return cls(alpha, lam, p)

    def relevance(self) -> PairTable:
        """The estimated relevance per (query, document): the attractiveness ``α_{qd}``."""
        return self.attractiveness

    def _chain(
        self, query: NDArray[np.int64], shown: NDArray[np.int64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        alpha = np.where(shown >= 0, self.attractiveness.lookup(query, shown), 0.0)
        lam = per_rank(np.asarray(self.continuation, np.float64), shown.shape[1], self.prior)
        return alpha, np.broadcast_to(lam, shown.shape)

    def _marginal(self, query: NDArray[np.int64], shown: NDArray[np.int64]) -> NDArray[np.float64]:
        return chain_marginal(*self._chain(query, shown), 1.0)

    def _conditional(self, log: ClickArrays) -> NDArray[np.float64]:
        return chain_conditional(*self._chain(log.query, log.shown), 1.0, log.clicked)

    def _simulate(
        self, query: NDArray[np.int64], shown: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.bool_]:
        return chain_simulate(*self._chain(query, shown), 1.0, rng)
