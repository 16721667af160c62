"""What every click model does once fitted: click probabilities, scores, simulated clicks.

A click model is a frozen dataclass of its parameters (fitted by the model's ``fit`` class
method or given by hand), a subclass of :class:`ClickModel`. Every model gives

* :meth:`ClickModel.click_probabilities`: ``P(C_r = 1)`` per rank of given sessions, either
  *marginal* (no clicks given) or *conditional* on the clicks observed above rank ``r``
  (``P(C_r = 1 | C_1 .. C_{r-1})``, the factor of the session's likelihood);
* :meth:`ClickModel.score`: log-likelihood and perplexity on (held-out) sessions
  (:class:`ModelScore`, definitions below);
* :meth:`ClickModel.simulate` (and :func:`simulate`): clicks drawn from the model.

Definitions (Chuklin, Markov & de Rijke 2015, §5; perplexity after Dupret & Piwowarski 2008)
-------------------------------------------------------------------------------------------
For sessions ``s`` with clicks ``c_r^s`` and a model ``M``:

* log-likelihood ``LL = Σ_s log P_M(C_1 = c_1^s, …, C_n = c_n^s)
  = Σ_s Σ_r log P_M(C_r = c_r^s | C_1 .. C_{r-1})`` (natural logarithm);
  ``mean_log_likelihood`` divides it by the number of (session, rank) cells, the
  normalisation of PyClick and of the ``clickmodels`` package;
* perplexity at rank ``r``: ``p_r = 2 ** (-(1/|S_r|) Σ_s log2 P_M(C_r = c_r^s))`` with the
  model's *marginal* click probability (not conditioned on the session's other clicks), over
  the ``|S_r|`` sessions that show a result at rank ``r``; the perplexity is the mean of the
  ``p_r``. 1 is a perfect prediction, 2 a coin flip; lower is better. The *conditional*
  perplexity uses the conditional probabilities instead.

A probability is clipped to ``[PROBABILITY_FLOOR, 1 - PROBABILITY_FLOOR]`` before its logarithm
is taken, so a session a model calls impossible (a second click under the cascade model)
costs ``log(1e-6)`` instead of ``-inf``. Cells where no result is shown (``-1``) are left out.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from cranfield._validate import check_float, check_int
from cranfield.errors import OptionError
from cranfield.logs.click_models.click_arrays import ClickArrays, click_arrays, shown_arrays

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "DEFAULT_PRIOR",
    "DEFAULT_PSEUDO_COUNTS",
    "PROBABILITY_FLOOR",
    "ClickModel",
    "IndependentClicks",
    "ModelScore",
    "check_em",
    "check_prior",
    "check_pseudo_counts",
    "estimate",
    "estimation_sentence",
    "factored_em",
    "largest_move",
    "per_rank",
    "simulate",
]

PROBABILITY_FLOOR: Final = 1e-6
"""Smallest probability (and distance from 1) a score takes the logarithm of."""


@dataclass(frozen=True, eq=False)
class ModelScore:
    """How well a click model predicts the clicks of some sessions (definitions: module doc).

    Attributes
    ----------
    sessions:
        Number of sessions scored.
    log_likelihood:
        ``Σ_s log P(clicks of s)``, natural logarithm.
    mean_log_likelihood:
        ``log_likelihood`` per (session, rank) cell with a result.
    perplexity, perplexity_at_rank:
        Mean over ranks and per rank (``(depth,)``; NaN at a rank no session reaches), from
        the marginal click probabilities.
    conditional_perplexity, conditional_perplexity_at_rank:
        The same from the probabilities conditional on the clicks above.
    """

    sessions: int
    log_likelihood: float
    mean_log_likelihood: float
    perplexity: float
    perplexity_at_rank: NDArray[np.float64]
    conditional_perplexity: float
    conditional_perplexity_at_rank: NDArray[np.float64]


def _log_probability(
    probability: NDArray[np.float64], clicked: NDArray[np.bool_]
) -> NDArray[np.float64]:
    """``log P(C = c)`` per cell from ``P(C = 1)``, clipped (natural logarithm)."""
    p = np.clip(probability, PROBABILITY_FLOOR, 1.0 - PROBABILITY_FLOOR)
    return np.log(np.where(clicked, p, 1.0 - p))


def _perplexity_at_rank(
    log_p: NDArray[np.float64], valid: NDArray[np.bool_]
) -> NDArray[np.float64]:
    counts = valid.sum(axis=0)
    bits = np.where(valid, log_p, 0.0).sum(axis=0) / np.log(2.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, 2.0 ** (-bits / np.maximum(counts, 1)), np.nan)


class ClickModel(ABC):
    """Base of the click models: a model is its parameters (see the module's docstring)."""

    @abstractmethod
    def _marginal(self, query: NDArray[np.int64], shown: NDArray[np.int64]) -> NDArray[np.float64]:
        """``P(C_r = 1)`` per cell (0 where no result is shown)."""

    @abstractmethod
    def _conditional(self, log: ClickArrays) -> NDArray[np.float64]:
        """``P(C_r = 1 | clicks above r)`` per cell (0 where no result is shown)."""

    @abstractmethod
    def _simulate(
        self, query: NDArray[np.int64], shown: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.bool_]:
        """Clicks drawn from the model, ``(n, depth)``."""

    def click_probabilities(
        self, query: ArrayLike, shown: ArrayLike, clicked: ArrayLike | None = None
    ) -> NDArray[np.float64]:
        """``P(C_r = 1)`` for each rank of the given sessions.

        Parameters
        ----------
        query, shown:
            The sessions (codes as in training; see :mod:`.click_arrays`).
        clicked:
            The observed clicks: the probabilities are then conditional on the clicks above
            each rank (what the log-likelihood multiplies). ``None``: marginal probabilities.

        Returns
        -------
        numpy.ndarray
            ``(n, depth)`` floats, 0 where no result is shown.
        """
        if clicked is None:
            q, s = shown_arrays(query, shown)
            return self._marginal(q, s)
        return self._conditional(click_arrays(query, shown, clicked))

    def score(self, query: ArrayLike, shown: ArrayLike, clicked: ArrayLike) -> ModelScore:
        """Log-likelihood and perplexity of the model on the given sessions (module doc).

        Held-out sessions must be coded with the vocabularies of the training sessions (the
        same query and document codes); a pair the model has not seen gets its prior.
        """
        log = click_arrays(query, shown, clicked)
        conditional = _log_probability(self._conditional(log), log.clicked)
        marginal = _log_probability(self._marginal(log.query, log.shown), log.clicked)
        total = float(np.where(log.valid, conditional, 0.0).sum())
        cells = int(log.valid.sum())
        at_rank = _perplexity_at_rank(marginal, log.valid)
        conditional_at_rank = _perplexity_at_rank(conditional, log.valid)
        return ModelScore(
            sessions=int(log.query.size),
            log_likelihood=total,
            mean_log_likelihood=total / cells if cells else float("nan"),
            perplexity=float(np.nanmean(at_rank)) if cells else float("nan"),
            perplexity_at_rank=at_rank,
            conditional_perplexity=float(np.nanmean(conditional_at_rank))
            if cells
            else float("nan"),
            conditional_perplexity_at_rank=conditional_at_rank,
        )

    def simulate(
        self, query: ArrayLike, shown: ArrayLike, *, seed: int | np.random.Generator | None = None
    ) -> NDArray[np.bool_]:
        """Clicks of simulated users on the given sessions, drawn from the model.

        The same ``seed`` gives the same clicks. Returns ``(n, depth)`` bool, False where no
        result is shown.
        """
        q, s = shown_arrays(query, shown)
        return self._simulate(q, s, np.random.default_rng(seed)) & (s >= 0)


class IndependentClicks(ClickModel):
    """A click model whose clicks are independent given its parameters (the CTR baselines,
    PBM): the probability conditional on the clicks above is the marginal one, and clicks are
    drawn cell by cell."""

    def _conditional(self, log: ClickArrays) -> NDArray[np.float64]:
        return self._marginal(log.query, log.shown)

    def _simulate(
        self, query: NDArray[np.int64], shown: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.bool_]:
        return rng.random(shown.shape) < self._marginal(query, shown)


def simulate(
    model: ClickModel,
    query: ArrayLike,
    shown: ArrayLike,
    *,
    seed: int | np.random.Generator | None = None,
) -> NDArray[np.bool_]:
    """Clicks drawn from ``model`` (fitted or built from known parameters) on given sessions.

    Examples
    --------
    >>> from cranfield.logs.click_models import PBM, PairTable
    >>> model = PBM(PairTable.from_matrix([[1.0, 0.0]], prior=0.5), np.array([1.0, 1.0]))
    >>> simulate(model, [0, 0], [[0, 1], [1, 0]], seed=1).tolist()
    [[True, False], [False, True]]
    """
    return model.simulate(query, shown, seed=seed)


DEFAULT_PRIOR: Final = 0.5
"""The default value of a parameter with no data (and the starting point of EM)."""


def check_prior(prior: object, option: str = "prior") -> float:
    """A prior probability, strictly between 0 and 1."""
    return check_float(option, prior, minimum=0.0, maximum=1.0, above=True, below=True)


DEFAULT_PSEUDO_COUNTS: Final = (1.0, 1.0)
"""The pseudo-counts every ratio of a fit starts with: one success and one failure, the
posterior mean under a uniform Beta(1, 1) prior, as PyClick (and the ``clickmodels`` package)
estimate; ``(0.0, 0.0)`` is the unsmoothed maximum likelihood."""


def check_pseudo_counts(pseudo_counts: object) -> tuple[float, float]:
    """Two pseudo-counts ``(a, b)``, each a number >= 0: the successes and failures every
    estimated ratio starts with (:func:`estimate`).

    Examples
    --------
    >>> check_pseudo_counts([1, 1])
    (1.0, 1.0)
    """
    expected = "two numbers >= 0 (successes, failures), such as (1, 1) or (0, 0)"
    if isinstance(pseudo_counts, str) or not isinstance(pseudo_counts, tuple | list):
        raise OptionError("pseudo_counts", expected, pseudo_counts)
    if len(pseudo_counts) != 2:
        raise OptionError("pseudo_counts", expected, pseudo_counts)
    a, b = (check_float("pseudo_counts", v, minimum=0.0) for v in pseudo_counts)
    return a, b


def estimate(
    successes: NDArray[np.number[Any]] | float,
    trials: NDArray[np.number[Any]] | float,
    pseudo_counts: tuple[float, float],
    empty: float,
) -> NDArray[np.float64]:
    """The estimate of a probability from its counts: ``(successes + a) / (trials + a + b)``
    with the pseudo-counts ``(a, b)`` (``(1, 1)``: the posterior mean under a Beta(1, 1) prior;
    ``(0, 0)``: the maximum likelihood ``successes / trials``); ``empty`` where the
    denominator is 0 (no trials and no pseudo-counts).

    Examples
    --------
    >>> estimate(np.array([0.0, 3.0, 0.0]), np.array([5.0, 4.0, 0.0]), (1.0, 1.0), 0.5).tolist()
    [0.14285714285714285, 0.6666666666666666, 0.5]
    >>> estimate(np.array([0.0, 3.0, 0.0]), np.array([5.0, 4.0, 0.0]), (0.0, 0.0), 0.5).tolist()
    [0.0, 0.75, 0.5]
    """
    a, b = pseudo_counts
    numerator = np.asarray(successes, dtype=np.float64) + a
    denominator = np.asarray(trials, dtype=np.float64) + (a + b)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: NDArray[np.float64] = np.where(denominator > 0, numerator / denominator, empty)
    return out


def estimation_sentence(pseudo_counts: tuple[float, float]) -> str:
    """How the parameters were estimated, one sentence for the definitions of an output.

    Examples
    --------
    >>> estimation_sentence((0.0, 0.0))[:60]
    'parameters: the unsmoothed maximum likelihood (successes / t'
    """
    a, b = pseudo_counts
    if a == b == 0:
        return (
            "parameters: the unsmoothed maximum likelihood (successes / trials, expected "
            "counts for EM), so a pair never clicked in training is estimated at 0 "
            "(--pseudo-counts 0,0)"
        )
    beta = " (the posterior mean under a Beta(1, 1) prior, as PyClick)" if a == b == 1 else ""
    return (
        f"parameters: every ratio smoothed with pseudo-counts {a:g}, {b:g}: (successes + "
        f"{a:g}) / (trials + {a + b:g}){beta}, expected counts for EM"
    )


def check_em(max_iterations: object, tolerance: object) -> tuple[int, float]:
    """EM's stopping rule: at most ``max_iterations``, or once no parameter moves more than
    ``tolerance``."""
    return (
        check_int("max_iterations", max_iterations, minimum=1),
        check_float("tolerance", tolerance, minimum=0.0),
    )


def per_rank(values: NDArray[np.float64], depth: int, prior: float) -> NDArray[np.float64]:
    """``values`` (one per rank) cut or extended with ``prior`` to ``depth`` ranks."""
    out = np.full(depth, prior)
    k = min(depth, values.size)
    out[:k] = values[:k]
    return out


def largest_move(old: NDArray[np.float64], new: NDArray[np.float64]) -> float:
    """The largest change of a parameter in one EM iteration (the stopping rule)."""
    return float(np.max(np.abs(new - old), initial=0.0))


def factored_em(  # noqa: PLR0913 -- five arrays of statistics, then keyword-only settings
    pair: NDArray[np.int64],
    entry: NDArray[np.int64],
    clicks: NDArray[np.number[Any]],
    skips: NDArray[np.number[Any]],
    gamma: NDArray[np.float64],
    *,
    pairs: int,
    prior: float,
    stop: tuple[int, float],
    pseudo_counts: tuple[float, float] = (0.0, 0.0),
) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
    """EM for ``P(C = 1) = α[pair] γ[entry]`` on sufficient statistics: the clicks and skips
    of each observed (pair, examination entry), one row each (PBM: the entry is the rank;
    UBM: the rank and the previous click).

    ``α`` starts at ``prior``, ``γ`` at ``gamma`` (NaN for entries no session can reach,
    left as they are, as is any entry never observed). ``stop``: at most so many iterations,
    and no more once no parameter moves more than so much (:func:`check_em`); every M-step
    ratio is smoothed with ``pseudo_counts`` (:func:`estimate`); returns ``α``, ``γ`` and the
    iterations run.
    """
    iterations, tolerance = stop
    views = clicks + skips
    impressions = np.bincount(pair, weights=views, minlength=pairs)
    counts = np.bincount(entry, weights=views, minlength=gamma.size)
    alpha = np.full(pairs, prior)
    done = 0
    for done in range(1, iterations + 1):  # noqa: B007 (the count is the result)
        a, g = alpha[pair], gamma[entry]
        skip = np.maximum(1.0 - a * g, 1e-300)
        post_a = clicks + skips * (a * (1.0 - g) / skip)
        post_e = clicks + skips * (g * (1.0 - a) / skip)
        new_alpha = estimate(
            np.bincount(pair, weights=post_a, minlength=pairs), impressions, pseudo_counts, prior
        )
        total_e = np.bincount(entry, weights=post_e, minlength=gamma.size)
        new_gamma = np.where(counts > 0, estimate(total_e, counts, pseudo_counts, prior), gamma)
        moved_e = np.abs(new_gamma - gamma)
        moved = max(
            largest_move(alpha, new_alpha), float(np.max(moved_e[~np.isnan(moved_e)], initial=0.0))
        )
        alpha, gamma = new_alpha, new_gamma
        if moved <= tolerance:
            break
    return alpha, gamma, done
