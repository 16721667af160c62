"""The dynamic Bayesian network model (DBN, fitted by EM) and the simplified DBN (closed form).

**DBN** (Chapelle & Zhang, *A dynamic Bayesian network click model for web search ranking*,
WWW 2009; Chuklin, Markov & de Rijke 2015, §3.7 and §4.2): the user examines rank 1; an
examined result is clicked with its attractiveness ``α_{qd}``; after a click the user is
satisfied with ``σ_{qd}`` and stops; otherwise (a skip, or a click without satisfaction) the
user goes on to the next rank with the continuation (perseverance) ``γ``.

EM, exact for this network (the E-step is a forward-backward pass over the ranks of each
session, vectorised over sessions). With ``l`` the last clicked rank: every rank down to ``l``
was examined, the clicked ones above ``l`` did not satisfy; at ``l``, with
``Z_{r} = P(no click at r and below | E_r = 1)``
(``Z_r = (1 - α_r)(1 - γ + γ Z_{r+1})``, ``Z`` past the last result = 1),

* ``P(S_l = 1 | C) = σ_l / (σ_l + (1 - σ_l)(1 - γ + γ Z_{l+1}))``;
* below ``l``: ``P(E_{l+1} = 1 | C) = (1 - σ_l) γ Z_{l+1} / (σ_l + (1 - σ_l)(1 - γ + γ Z_{l+1}))``
  (1 at rank 1 of a session without clicks), then
  ``P(E_{r+1} = 1 | C) = P(E_r = 1 | C) γ Z_{r+1} / (1 - γ + γ Z_{r+1})`` and
  ``P(A_r = 1 | C) = (1 - P(E_r = 1 | C)) α_r`` (an examined result below ``l`` was not
  attractive).

The M-step: ``α_{qd}`` is the mean of ``P(A = 1 | C)`` over the pair's impressions, ``σ_{qd}``
the mean of ``P(S = 1 | C)`` over its clicks, ``γ`` the expected transitions
``P(E_{r+1} = 1 | C)`` over the expected occasions ``P(E_r = 1, S_r = 0 | C)`` (ranks with a
next result). Give ``gamma`` to fix ``γ`` instead (Chapelle & Zhang tune it on held-out data).
Every parameter starts at ``prior`` (0.5), ``γ`` at ``gamma`` or ``prior``; the iterations stop
after ``max_iterations`` or once no parameter moves by more than ``tolerance``; deterministic.
PyClick's DBN uses approximate updates (the examination of a rank below the last click is
not conditioned on the session's clicks); this is the exact EM, so its figures differ slightly.

**SDBN** (Chapelle & Zhang 2009, §5; Chuklin et al. 2015, §4.1): the DBN with ``γ = 1``, so
every rank down to the last click was examined and the user was satisfied at the last click and
at no other (all ranks examined without a click). The maximum-likelihood closed form:
``α_{qd}`` is the clicks on the pair over its impressions at or above the last click,
``σ_{qd}`` the times it was the last click over its clicks.

For both, every ratio (and every M-step mean, ``γ``'s included) is smoothed with the
pseudo-counts ``(a, b)``: ``(successes + a) / (trials + a + b)``, by default ``(1, 1)`` as
PyClick; ``(0, 0)`` is the maximum likelihood above. An unseen pair gets ``prior``
(attractiveness and satisfaction); without pseudo-counts, so does the satisfaction of a pair
never clicked. The estimated relevance of a pair is ``α_{qd} σ_{qd}``, the
probability that the document satisfies a user who examines it (Chapelle & Zhang's relevance).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cranfield._validate import check_float
from cranfield.logs.click_models.cascade import examined_until
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
    check_em,
    check_prior,
    check_pseudo_counts,
    estimate,
    largest_move,
)
from cranfield.logs.click_models.pair_table import PairIndex, PairTable

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["DBN", "SDBN"]


def _product(attractiveness: PairTable, satisfaction: PairTable) -> PairTable:
    """``α σ`` per pair, over the pairs of ``attractiveness`` (the two tables share them)."""
    sigma = satisfaction.lookup(attractiveness.query, attractiveness.doc[:, None])[:, 0]
    return PairTable(
        attractiveness.query,
        attractiveness.doc,
        attractiveness.value * sigma,
        attractiveness.prior * satisfaction.prior,
    )


@dataclass(frozen=True, eq=False)
class _DBNFamily(ClickModel):
    """Parameters and predictions shared by DBN and SDBN (SDBN: ``continuation`` 1)."""

    attractiveness: PairTable
    satisfaction: PairTable
    continuation: float = 1.0

    def relevance(self) -> PairTable:
        """The estimated relevance per (query, document): ``α_{qd} σ_{qd}``."""
        return _product(self.attractiveness, self.satisfaction)

    def _chain(
        self, query: NDArray[np.int64], shown: NDArray[np.int64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
        valid = shown >= 0
        alpha = np.where(valid, self.attractiveness.lookup(query, shown), 0.0)
        sigma = np.where(valid, self.satisfaction.lookup(query, shown), 0.0)
        gamma = self.continuation
        return alpha, gamma * (1.0 - sigma), gamma

    def _marginal(self, query: NDArray[np.int64], shown: NDArray[np.int64]) -> NDArray[np.float64]:
        return chain_marginal(*self._chain(query, shown))

    def _conditional(self, log: ClickArrays) -> NDArray[np.float64]:
        return chain_conditional(*self._chain(log.query, log.shown), log.clicked)

    def _simulate(
        self, query: NDArray[np.int64], shown: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.bool_]:
        return chain_simulate(*self._chain(query, shown), rng)


@dataclass(frozen=True, eq=False)
class DBN(_DBNFamily):
    """The dynamic Bayesian network model (module doc).

    Attributes
    ----------
    attractiveness, satisfaction:
        ``α_{qd}``, ``σ_{qd}`` per (query, document), their prior for unseen pairs.
    continuation:
        ``γ``, the probability of going on after a skip or an unsatisfying click.
    iterations:
        EM iterations run (0 for a model built from given parameters).
    """

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
        gamma: float | None = None,
        max_iterations: int = 100,
        tolerance: float = 1e-6,
    ) -> DBN:
        """Fit by EM (module doc); ``gamma`` fixes the continuation instead of fitting it."""
        p = check_prior(prior)
        pseudo = check_pseudo_counts(pseudo_counts)
        fixed = None if gamma is None else check_float("gamma", gamma, minimum=0.0, maximum=1.0)
        iterations, tol = check_em(max_iterations, tolerance)
        log = click_arrays(query, shown, clicked)
        index = PairIndex.of(log)
        groups = _Groups.of(log, index)
        impressions = index.impressions()
        clicks = index.total(log.clicked)
        # what the clicks fix: every click is attractive; above the last click every rank led on
        above_last = float(np.maximum(log.last_click, 0).sum())
        alpha = np.full(index.pairs, p)
        sigma = np.full(index.pairs, p)
        cont = p if fixed is None else fixed
        done = 0
        for done in range(1, iterations + 1):  # noqa: B007 (the count is the result)
            post_a, post_s, moves, stays = groups.expectation(alpha, sigma, cont)
            new_alpha = estimate(clicks + post_a, impressions, pseudo, p)
            new_sigma = estimate(post_s, clicks, pseudo, p)
            occasions = above_last + stays  # none in a log of one-result sessions
            learn = fixed is None and occasions > 0
            new_cont = float(estimate(above_last + moves, occasions, pseudo, p)) if learn else cont
            moved = max(
                largest_move(alpha, new_alpha), largest_move(sigma, new_sigma), abs(new_cont - cont)
            )
            alpha, sigma, cont = new_alpha, new_sigma, new_cont
            if moved <= tol:
                break
        return cls(
            PairTable(index.query, index.doc, alpha, p),
            PairTable(index.query, index.doc, sigma, p),
            float(cont),
            done,
        )


@dataclass(frozen=True, eq=False)
class _Groups:
    """The sessions of a log grouped by (ranking, last clicked rank), rank-major.

    What the E-step does not know from the clicks alone depends only on the ranks from the last
    click down, so sessions with the same ranking and the same last click share it. The masks
    are floats (0 or 1) so that the E-step multiplies instead of selecting.

    Attributes
    ----------
    cell:
        ``(depth, groups)``: the pair number of each cell (``pairs`` where no result).
    weight:
        ``(groups,)``: the number of sessions.
    at, below:
        ``(depth, groups)``: the rank is the last clicked one; below it (every rank of a
        group without clicks).
    has_next:
        ``(depth, groups)``: a result is shown at the next rank.
    pairs:
        Number of pairs.
    """

    cell: NDArray[np.int64]
    weight: NDArray[np.float64]
    at: NDArray[np.float64]
    below: NDArray[np.float64]
    has_next: NDArray[np.float64]
    pairs: int

    @classmethod
    def of(cls, log: ClickArrays, index: PairIndex) -> _Groups:
        key = index.ranking * (log.depth + 1) + (log.last_click + 1)
        found, count = np.unique(key, return_counts=True)
        ranking, last = np.divmod(found, log.depth + 1)
        cell = np.ascontiguousarray(index.ranking_cell[ranking].T)
        ranks = np.arange(log.depth)[:, None]
        has_next = np.zeros(cell.shape)
        has_next[:-1] = cell[1:] < index.pairs
        at = (ranks == last[None, :] - 1).astype(np.float64)
        below = (ranks > last[None, :] - 1).astype(np.float64)
        return cls(cell, count.astype(np.float64), at, below, has_next, index.pairs)

    def expectation(
        self, alpha: NDArray[np.float64], sigma: NDArray[np.float64], gamma: float
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], float, float]:
        """The E-step (module doc) from the last click down, summed over sessions.

        Returns ``Σ P(A = 1 | C)`` per pair over the cells below the last click,
        ``Σ P(S = 1 | C)`` per pair (at the last click), and the expected transitions and
        occasions to go on from the last click down.
        """
        depth, groups = self.cell.shape
        a = np.append(alpha, 0.0)[self.cell]
        s = np.append(sigma, 0.0)[self.cell]
        # backward: go_on[r] = γ Z_{r+1}, stay_or_go[r] = 1 - γ + γ Z_{r+1}; 0 and 1 at the end
        go_on = np.empty((depth, groups))
        stay_or_go = np.empty((depth, groups))
        z_next = np.ones(groups)
        for r in range(depth - 1, -1, -1):
            np.multiply(gamma * z_next, self.has_next[r], out=go_on[r])
            stay_or_go[r] = 1.0 - gamma * self.has_next[r] + go_on[r]
            z_next = (1.0 - a[r]) * stay_or_go[r]
        tiny = np.finfo(np.float64).tiny
        post_a = np.empty((depth, groups))
        post_s = np.empty((depth, groups))
        moves = np.zeros(groups)
        stays = np.zeros(groups)
        exam = self.below[0].copy()  # P(E_r = 1 | C) below the last click: 1 at rank 1 if none
        for r in range(depth):
            at, below, s_r = self.at[r], self.below[r], s[r]
            denominator = np.maximum(s_r + (1.0 - s_r) * stay_or_go[r], tiny)
            post_s[r] = at * s_r / denominator
            onward = go_on[r] * (
                at * (1.0 - s_r) / denominator + below * exam / np.maximum(stay_or_go[r], tiny)
            )
            post_a[r] = below * (1.0 - exam) * a[r]
            moves += self.has_next[r] * onward
            stays += self.has_next[r] * (at * (1.0 - post_s[r]) + below * exam)
            exam = onward
        w = self.weight
        bins = self.pairs + 1
        total_a = np.bincount(self.cell.ravel(), (post_a * w).ravel(), minlength=bins)
        total_s = np.bincount(self.cell.ravel(), (post_s * w).ravel(), minlength=bins)
        return (
            total_a[: self.pairs].astype(np.float64),
            total_s[: self.pairs].astype(np.float64),
            float(moves @ w),
            float(stays @ w),
        )


@dataclass(frozen=True, eq=False)
class SDBN(_DBNFamily):
    """The simplified DBN: the DBN with ``γ = 1``, fitted in closed form (module doc).

    Examples
    --------
    >>> model = SDBN.fit([0, 0], [[1, 2], [2, 1]], [[1, 1], [1, 0]], pseudo_counts=(0, 0))
    >>> model.attractiveness.as_dict(), model.satisfaction.as_dict()
    ({(0, 1): 1.0, (0, 2): 1.0}, {(0, 1): 0.0, (0, 2): 1.0})
    """

    @classmethod
    def fit(
        cls,
        query: ArrayLike,
        shown: ArrayLike,
        clicked: ArrayLike,
        *,
        prior: float = DEFAULT_PRIOR,
        pseudo_counts: tuple[float, float] = DEFAULT_PSEUDO_COUNTS,
    ) -> SDBN:
        """The closed form, smoothed with ``pseudo_counts`` (module doc); ``prior`` where a
        ratio has no data and no pseudo-counts."""
        p = check_prior(prior)
        pseudo = check_pseudo_counts(pseudo_counts)
        log = click_arrays(query, shown, clicked)
        index = PairIndex.of(log)
        examined = examined_until(log, log.last_click)
        clicks, trials = index.total(log.clicked & examined), index.total(examined)
        alpha = index.table(clicks, trials, p, pseudo)
        ranks = np.arange(log.depth)[None, :]
        last = log.clicked & (ranks == log.last_click[:, None])
        sigma = index.table(index.total(last), index.total(log.clicked), p, pseudo)
        return cls(alpha, sigma, 1.0)
