"""The preference between two rankings from interleaving outcomes: Δ_AB, a sign test and a
bootstrap interval; and the pairwise preferences of a multileaving.

An outcome is one number per impression in ``[-1, 1]``: ``1`` A won, ``-1`` B won, ``0`` a tie
(or an expected outcome, with probabilistic interleaving's marginalised credit;
:mod:`cranfield.logs.interleaving`). The preference is Chapelle et al.'s (2012)

    Δ_AB = (wins_A + ties / 2) / n - 1/2 = mean(outcome) / 2,

the two sides equal for outcomes in ``{-1, 0, 1}``; it lies in ``[-1/2, 1/2]``, positive when A
is preferred, ``0`` when neither is.

The test is the two-sided sign (binomial) test of wins against losses with ties left out
(:func:`cranfield.stats.paired.sign_pairs`, equal to :func:`scipy.stats.binomtest`); an
expected outcome counts as a win for the side it leans to. It counts the unit the interval
resamples: impressions, or with ``groups`` each group (query) won or lost by its mean
outcome, as Chapelle et al. aggregate per query, since the impressions of one query are not
independent (thousands of impressions of a few queries would otherwise make any preference
"significant").

The interval is a bootstrap percentile interval of Δ_AB. Over impressions (no ``groups``):
``n`` impressions resampled with replacement; with few distinct outcomes (team draft and
balanced interleaving have three) that is drawing the counts of each outcome from a
multinomial, which is what is drawn (``B`` draws of three counts, not ``B x n`` indices).
Over groups (``groups``: the query of each impression, the usual unit when the impressions of
one query are not independent): the groups are resampled with replacement and Δ* is the
resampled outcome sum over the resampled impression count, halved. Draws come from the
bootstrap stream of :mod:`cranfield.stats.resampling` (``seed``, spawn key 2), in blocks of
bounded size, so a million impressions or a hundred thousand queries cost seconds and bounded
memory (:func:`cranfield.stats.resampling.bootstrap_sums` draws ``1024 x n`` indices at once).

References
----------
O. Chapelle, T. Joachims, F. Radlinski and Y. Yue, "Large-scale validation and analysis of
interleaved search evaluation", ACM TOIS 30(1), 2012, §4.
B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall, 1993.
A. Schuth, F. Sietsma, S. Whiteson, D. Lefortier and M. de Rijke, "Multileaved comparisons
for fast online evaluation", CIKM 2014.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from cranfield._validate import check_float, check_int
from cranfield.errors import OptionError
from cranfield.stats.paired import sign_pairs
from cranfield.stats.resampling import RngLike, resolve_seed, stream

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["Preference", "pairwise_preferences", "preference"]

_BLOCK: Final = 1 << 22
"""Most indices (or counts) drawn at once by the bootstrap (memory; part of the stream)."""
_FEW_VALUES: Final = 64
"""Up to this many distinct outcomes, impressions are resampled as multinomial counts."""


@dataclass(frozen=True)
class Preference:
    """The preference of A over B from per-impression outcomes (:func:`preference`).

    Attributes
    ----------
    impressions, wins, losses, ties:
        Impressions; those A won (outcome > 0), lost (< 0) and tied.
    delta:
        Δ_AB = mean(outcome) / 2, in ``[-1/2, 1/2]``.
    p_value:
        Two-sided sign test of wins against losses (1 with neither).
    interval:
        Bootstrap percentile interval of Δ_AB at ``1 - alpha``.
    alpha, n_resamples, seed:
        The interval's level, resamples and the seed that reproduces it.
    unit:
        What the sign test counted and the bootstrap resampled: ``"impression"`` or
        ``"group"``.
    unit_wins, unit_losses:
        The units (impressions, or groups by their mean outcome) A won and lost: the sign
        test's counts.
    """

    impressions: int
    wins: int
    losses: int
    ties: int
    delta: float
    p_value: float
    interval: tuple[float, float]
    alpha: float
    n_resamples: int
    seed: int
    unit: str
    unit_wins: int
    unit_losses: int

    def to_dict(self) -> dict[str, Any]:
        """The preference as plain JSON-ready values."""
        return {
            "impressions": self.impressions,
            "wins": self.wins,
            "losses": self.losses,
            "ties": self.ties,
            "delta": self.delta,
            "p_value": self.p_value,
            "interval": list(self.interval),
            "confidence": 1.0 - self.alpha,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "unit": self.unit,
            "unit_wins": self.unit_wins,
            "unit_losses": self.unit_losses,
        }


def _outcomes(outcomes: ArrayLike) -> NDArray[np.float64]:
    o = np.asarray(outcomes, dtype=np.float64)
    if o.ndim != 1 or o.size == 0 or not np.isfinite(o).all() or (np.abs(o) > 1).any():
        raise OptionError(
            "outcomes", "a non-empty 1-d array of numbers in [-1, 1]", f"shape {o.shape}"
        )
    return o


def preference(
    outcomes: ArrayLike,
    *,
    groups: ArrayLike | None = None,
    alpha: float = 0.05,
    n_resamples: int = 1000,
    seed: RngLike = None,
) -> Preference:
    """Δ_AB, the sign test and a bootstrap interval from per-impression outcomes.

    Parameters
    ----------
    outcomes:
        One outcome per impression in ``[-1, 1]`` (``outcomes(clicked)`` of an interleaving).
    groups:
        Optional group of each impression (its query, as codes or ids): the bootstrap then
        resamples groups, not impressions.
    alpha:
        The interval covers ``1 - alpha``.
    n_resamples:
        Bootstrap resamples.
    seed:
        An integer, a :class:`numpy.random.Generator` or ``None``.

    Examples
    --------
    >>> p = preference([1, 1, 0, -1, 1, 1, 0, 1], seed=0)
    >>> p.wins, p.losses, p.ties, p.delta
    (5, 1, 2, 0.25)
    >>> round(p.p_value, 4)      # binomtest(5, 6): 2 * 7/64
    0.2188
    >>> lo, hi = p.interval
    >>> bool(lo < 0.25 < hi)
    True
    """
    o = _outcomes(outcomes)
    a = check_float("alpha", alpha, minimum=0.0, maximum=1.0, above=True, below=True)
    b = check_int("n_resamples", n_resamples, minimum=1)
    used = resolve_seed(seed)
    if groups is None:
        tested = o
        deltas = _impression_bootstrap(o, b, used)
    else:
        sums = _group_sums(o, np.asarray(groups))
        tested = sums[:, 0] / sums[:, 1]
        drawn = _resampled_sums(sums, b, stream(used, "bootstrap"))
        deltas = drawn[:, 0] / drawn[:, 1] / 2.0
    _, p = sign_pairs(
        np.column_stack((tested, np.zeros_like(tested))), np.array([0]), np.array([1])
    )
    lo, hi = np.quantile(deltas, [a / 2.0, 1.0 - a / 2.0])
    return Preference(
        impressions=o.size,
        wins=int((o > 0).sum()),
        losses=int((o < 0).sum()),
        ties=int((o == 0).sum()),
        delta=float(o.mean() / 2.0),
        p_value=float(p[0]),
        interval=(float(lo), float(hi)),
        alpha=a,
        n_resamples=b,
        seed=used,
        unit="impression" if groups is None else "group",
        unit_wins=int((tested > 0).sum()),
        unit_losses=int((tested < 0).sum()),
    )


def _impression_bootstrap(o: NDArray[np.float64], b: int, seed: int) -> NDArray[np.float64]:
    """``b`` bootstrap values of Δ over impressions."""
    gen = stream(seed, "bootstrap")
    values, counts = np.unique(o, return_counts=True)
    if values.size > _FEW_VALUES:
        sums = _resampled_sums(o[:, None], b, gen)[:, 0]
        out: NDArray[np.float64] = sums / (2.0 * o.size)
        return out
    share = counts / o.size
    drawn = np.empty(b)
    block = max(1, _BLOCK // values.size)
    for start in range(0, b, block):
        size = min(block, b - start)
        taken = gen.multinomial(o.size, share, size=size).astype(np.float64)
        drawn[start : start + size] = taken @ values / (2.0 * o.size)
    return drawn


def _group_sums(o: NDArray[np.float64], groups: NDArray[Any]) -> NDArray[np.float64]:
    """``(groups, 2)`` outcome sums and impression counts per group, in sorted group order."""
    if groups.shape != o.shape:
        raise OptionError("groups", f"one group per impression ({o.size})", f"shape {groups.shape}")
    _, code = np.unique(groups, return_inverse=True)
    code = code.ravel()
    out: NDArray[np.float64] = np.column_stack(
        (np.bincount(code, weights=o), np.bincount(code))
    ).astype(np.float64)
    return out


def _resampled_sums(
    rows: NDArray[np.float64], b: int, gen: np.random.Generator
) -> NDArray[np.float64]:
    """``(b, columns)`` column sums of ``b`` resamples of the rows with replacement, drawn in
    blocks of about ``_BLOCK`` indices (memory stays bounded however many rows)."""
    m = rows.shape[0]
    columns = [np.ascontiguousarray(rows[:, j]) for j in range(rows.shape[1])]
    out = np.empty((b, rows.shape[1]))
    block = max(1, _BLOCK // m)
    for start in range(0, b, block):
        size = min(block, b - start)
        index = gen.integers(0, m, size=(size, m), dtype=np.int32 if m < 2**31 else np.int64)
        for j in range(rows.shape[1]):
            out[start : start + size, j] = columns[j][index].sum(axis=1)
    return out


def pairwise_preferences(credit: ArrayLike) -> NDArray[np.float64]:
    """``(m, m)`` preferences of a multileaving: entry ``[i, j]`` is Δ of ranking ``i`` over
    ``j``, ``mean(sign(c_i - c_j)) / 2`` over impressions (antisymmetric, 0 on the diagonal).

    ``credit`` is ``(impressions, m)`` clicks credited to each ranking
    (:meth:`cranfield.logs.interleaving.TeamDraft.credit`).

    Examples
    --------
    >>> pairwise_preferences([[1, 0, 0], [1, 1, 0]]).tolist()
    [[0.0, 0.25, 0.5], [-0.25, 0.0, 0.25], [-0.5, -0.25, 0.0]]
    """
    c = np.asarray(credit, dtype=np.float64)
    if c.ndim != 2 or c.shape[0] == 0:
        raise OptionError("credit", "a non-empty (impressions, rankings) array", f"shape {c.shape}")
    signs = np.sign(c[:, :, None] - c[:, None, :])
    out: NDArray[np.float64] = signs.mean(axis=0) / 2.0
    return out
