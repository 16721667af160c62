"""Which measure tells systems apart, and how stably: discriminative power and swap rates.

:func:`discriminative_power` answers "on my runs and my queries, which measure should I
trust?" for each measure of a :class:`~cranfield.evaluation.results.ScoreTable`:

* Sakai's **discriminative power** (Sakai 2006): the share of the ``k (k-1) / 2`` pairs of runs
  whose difference is significant at α, with the paired bootstrap test (each pair alone) and
  with the randomised Tukey HSD (all pairs at once, family-wise; Carterette 2012); and the
  **ASL curve**, the achieved significance levels of all pairs sorted ascending.
* The **swap rate** of Voorhees & Buckley (2002): the queries are split at random into two
  disjoint halves of ``c`` queries each, many times, for several ``c`` up to half the queries;
  a pair of runs whose means differ by ``d`` on the first half *swaps* when the second half
  orders the two the other way. The share of swaps in bins of ``|d|`` shows how large a
  difference must be, at a given topic-set size, before it can be trusted.

The tests are the project's own (:func:`~cranfield.stats.resampling.bootstrap_test`,
:func:`~cranfield.stats.resampling.randomized_tukey_hsd`), run on all pairs with one set of
resamples, so a pair's p-value here is the one those functions give with the same seed.
That bootstrap test shifts the differences to mean 0 and compares their means, without
studentising them as Sakai (2006) did; the shares are those of the project's test, close to
but not exactly his procedure.

References
----------
T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006.
E. M. Voorhees and C. Buckley, "The effect of topic set size on retrieval experiment error",
SIGIR 2002.
B. Carterette, "Multiple testing in statistical analysis of systems-based information
retrieval experiments", ACM TOIS 30(1), 2012.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from cranfield._validate import check_float, check_int
from cranfield.errors import EvaluationError, OptionError
from cranfield.stats.resampling import (
    bootstrap_analysis,
    bootstrap_sums,
    check_rng,
    randomized_tukey_pvalues,
    randomized_tukey_ranges,
    resolve_seed,
    stream,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike, NDArray

    from cranfield.evaluation.results import ScoreTable
    from cranfield.stats.resampling import RngLike

__all__ = [
    "DiscriminativePower",
    "MeasurePower",
    "SwapRates",
    "discriminative_power",
    "power_of_scores",
    "split_permutations",
    "swap_rates",
]

BIN_WIDTH: Final = 0.01
"""Default width of the bins of ``|d|`` for the swap rates (Voorhees & Buckley's 0.01)."""

BINS: Final = 10
"""Default number of bins; the last one is open (``|d| >= (BINS - 1) * width``)."""


@dataclass(frozen=True)
class SwapRates:
    """Swaps between two disjoint random halves of the queries, per topic-set size and bin.

    Attributes
    ----------
    sizes:
        Queries per half ``c``.
    edges:
        Lower edges of the bins of ``|d|`` on the first half; the last bin is open above.
    pairs:
        ``pairs[s][b]``: pairs of runs (over all trials) with ``|d|`` in bin ``b`` at size
        ``sizes[s]``.
    swaps:
        Of those, the pairs whose difference has the other sign on the second half.
    trials:
        Random splits per size.
    """

    sizes: tuple[int, ...]
    edges: tuple[float, ...]
    pairs: tuple[tuple[int, ...], ...]
    swaps: tuple[tuple[int, ...], ...]
    trials: int

    @property
    def rates(self) -> tuple[tuple[float | None, ...], ...]:
        """``swaps / pairs`` per size and bin; ``None`` for an empty bin."""
        return tuple(
            tuple(s / p if p else None for s, p in zip(srow, prow, strict=True))
            for srow, prow in zip(self.swaps, self.pairs, strict=True)
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values."""
        return {
            "trials": self.trials,
            "sizes": list(self.sizes),
            "edges": list(self.edges),
            "pairs": [list(r) for r in self.pairs],
            "swaps": [list(r) for r in self.swaps],
            "rates": [list(r) for r in self.rates],
        }


@dataclass(frozen=True)
class MeasurePower:
    """Discriminative power of one measure.

    Attributes
    ----------
    measure:
        The measure's name.
    bootstrap, tukey:
        Share of the pairs of runs significant at α with the paired bootstrap test and with
        the randomised Tukey HSD.
    bootstrap_asl, tukey_asl:
        The achieved significance levels (p-values) of all pairs, ascending: the ASL curve.
    swaps:
        The swap rates, or ``None`` when not asked for (``trials=0``).
    """

    measure: str
    bootstrap: float
    tukey: float
    bootstrap_asl: tuple[float, ...]
    tukey_asl: tuple[float, ...]
    swaps: SwapRates | None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values."""
        return {
            "measure": self.measure,
            "bootstrap": self.bootstrap,
            "tukey": self.tukey,
            "bootstrap_asl": list(self.bootstrap_asl),
            "tukey_asl": list(self.tukey_asl),
            "swaps": None if self.swaps is None else self.swaps.to_dict(),
        }


@dataclass(frozen=True)
class DiscriminativePower:
    """Discriminative power and swap rates of each measure on one set of runs and queries.

    Attributes
    ----------
    runs:
        The runs' names.
    queries:
        Queries scored.
    alpha:
        Significance level.
    n_resamples:
        Resamples of the bootstrap test and of the randomised Tukey HSD.
    seed:
        The seed used (repeat a result by passing it back).
    measures:
        ``{measure: MeasurePower}`` in the order asked.
    """

    runs: tuple[str, ...]
    queries: int
    alpha: float
    n_resamples: int
    seed: int
    measures: dict[str, MeasurePower]

    @property
    def pairs(self) -> int:
        """Pairs of runs compared."""
        k = len(self.runs)
        return k * (k - 1) // 2

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values."""
        return {
            "runs": list(self.runs),
            "queries": self.queries,
            "pairs": self.pairs,
            "alpha": self.alpha,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "measures": {name: m.to_dict() for name, m in self.measures.items()},
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text, ending in a newline (same inputs and seed, same
        bytes)."""
        check_int("indent", indent, minimum=0, none=True)
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False) + "\n"


# --------------------------------------------------------------------------- swap rates


def split_permutations(n: int, trials: int, seed: int) -> NDArray[np.intp]:
    """``(trials, n)`` random orders of the queries from the seed's swap-rate stream; trial
    ``t`` with size ``c`` compares queries ``order[:c]`` with ``order[c:2c]``."""
    gen = stream(seed, "swap-rate")
    base = np.broadcast_to(np.arange(n, dtype=np.intp), (trials, n))
    out: NDArray[np.intp] = gen.permuted(base, axis=1)
    return out


def default_sizes(n: int, count: int = 10) -> tuple[int, ...]:
    """Up to ``count`` topic-set sizes spread evenly over ``1 .. n // 2``."""
    half = n // 2
    return tuple(sorted({max(1, round(half * (i + 1) / count)) for i in range(count)}))


def swap_rates(
    scores: ArrayLike,
    *,
    trials: int = 100,
    sizes: Sequence[int] | None = None,
    bin_width: float = BIN_WIDTH,
    bins: int = BINS,
    seed: RngLike = None,
) -> SwapRates:
    """Voorhees & Buckley's swap rates of a ``(queries, runs)`` score matrix.

    Parameters
    ----------
    scores:
        Per-query scores, one column per run; at least 2 queries and 2 runs.
    trials:
        Random splits of the queries, >= 1 (the same splits serve every size).
    sizes:
        Queries per half, each in ``1 .. n // 2``; default :func:`default_sizes`.
    bin_width, bins:
        Bins of ``|d|``: ``[b w, (b + 1) w)``, the last one open above.
    seed:
        Seed or generator (see :func:`~cranfield.stats.resampling.resolve_seed`).

    Returns
    -------
    SwapRates

    Notes
    -----
    A pair swaps when its differences on the two halves have strictly opposite signs; a zero
    difference on either half is not a swap.

    Examples
    --------
    >>> s = swap_rates([[0.1, 0.2], [0.3, 0.5], [0.2, 0.2], [0.6, 0.9]], trials=5, seed=1)
    >>> s.sizes, sum(map(sum, s.swaps))
    ((1, 2), 0)
    """
    x = _matrix(scores)
    n, k = x.shape
    t = check_int("trials", trials, minimum=1)
    width = check_float("bin_width", bin_width, minimum=0.0, above=True)
    nbins = check_int("bins", bins, minimum=1)
    chosen = default_sizes(n) if sizes is None else tuple(sizes)
    for c in chosen:
        check_int("sizes", c, minimum=1, maximum=n // 2)
    check_rng(seed)
    order = split_permutations(n, t, resolve_seed(seed))
    ia, ib = np.triu_indices(k, 1)
    pairs = np.zeros((len(chosen), nbins), dtype=np.int64)
    swaps = np.zeros((len(chosen), nbins), dtype=np.int64)
    for perm in order:
        cum = np.cumsum(x[perm], axis=0)
        for s, c in enumerate(chosen):
            first = cum[c - 1] / c
            second = (cum[2 * c - 1] - cum[c - 1]) / c
            d1 = first[ia] - first[ib]
            d2 = second[ia] - second[ib]
            b = np.minimum((np.abs(d1) / width).astype(np.int64), nbins - 1)
            pairs[s] += np.bincount(b, minlength=nbins)
            swaps[s] += np.bincount(b, weights=(d1 * d2 < 0), minlength=nbins).astype(np.int64)
    return SwapRates(
        sizes=chosen,
        edges=tuple(float(i * width) for i in range(nbins)),
        pairs=tuple(tuple(int(v) for v in row) for row in pairs),
        swaps=tuple(tuple(int(v) for v in row) for row in swaps),
        trials=t,
    )


# --------------------------------------------------------------------------- power


def _matrix(scores: ArrayLike) -> NDArray[np.float64]:
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2:
        raise OptionError("scores", "a queries × runs matrix", x.shape)
    if x.shape[0] < 2:
        raise EvaluationError(f"{x.shape[0]} query(ies): discriminative power needs at least 2.")
    if x.shape[1] < 2:
        raise EvaluationError(f"{x.shape[1]} run(s): discriminative power needs at least 2.")
    if not np.isfinite(x).all():
        raise EvaluationError("a score is not a finite number: discriminative power needs all.")
    return np.ascontiguousarray(x)


def power_of_scores(
    scores: dict[str, ArrayLike],
    *,
    runs: Sequence[str],
    alpha: float = 0.05,
    n_resamples: int = 1000,
    trials: int = 100,
    seed: RngLike = None,
) -> DiscriminativePower:
    """Discriminative power and swap rates of ``(queries, runs)`` matrices, one per measure.

    Parameters
    ----------
    scores:
        ``{measure: matrix}``, every matrix one row per query and one column per run.
    runs:
        The runs' names, one per column.
    alpha:
        Significance level, in (0, 1).
    n_resamples:
        Resamples of the bootstrap test and of the randomised Tukey HSD, >= 1.
    trials:
        Random splits for the swap rates; 0 for none.
    seed:
        Seed or generator (see :func:`~cranfield.stats.resampling.resolve_seed`).

    Returns
    -------
    DiscriminativePower

    Examples
    --------
    >>> s = [[0.5, 0.4, 0.1], [0.7, 0.5, 0.2], [0.2, 0.3, 0.1], [0.9, 0.6, 0.3], [0.6, 0.6, 0.2]]
    >>> r = power_of_scores({"AP": s}, runs=["a", "b", "c"], n_resamples=500, trials=0, seed=3)
    >>> round(r.measures["AP"].bootstrap, 4), r.pairs
    (0.6667, 3)
    """
    a = check_float("alpha", alpha, minimum=0.0, maximum=1.0, above=True, below=True)
    resamples = check_int("n_resamples", n_resamples, minimum=1)
    t = check_int("trials", trials, minimum=0)
    check_rng(seed)
    names = tuple(runs)
    if not scores:
        raise OptionError("scores", "at least one measure", "none")
    mats = {m: _matrix(v) for m, v in scores.items()}
    for m, x in mats.items():
        if x.shape[1] != len(names):
            raise OptionError("runs", f"{x.shape[1]} names, one per column of {m}", len(names))
    n = next(iter(mats.values())).shape[0]
    if any(x.shape[0] != n for x in mats.values()):
        raise OptionError("scores", f"matrices of the same {n} queries", "different counts")
    seed_used = resolve_seed(seed)
    ia, ib = np.triu_indices(len(names), 1)
    ranges = randomized_tukey_ranges(list(mats.values()), n_resamples=resamples, seed=seed_used)
    out: dict[str, MeasurePower] = {}
    for row, (m, x) in enumerate(mats.items()):
        sums = bootstrap_sums(x, n_resamples=resamples, seed=seed_used)
        p_boot, _ = bootstrap_analysis(x, sums, ia, ib, alpha=a, intervals=())
        _, p_hsd = randomized_tukey_pvalues(x, ranges[row], ia, ib)
        out[m] = MeasurePower(
            measure=m,
            bootstrap=float(np.mean(p_boot < a)),
            tukey=float(np.mean(p_hsd < a)),
            bootstrap_asl=tuple(float(v) for v in np.sort(p_boot)),
            tukey_asl=tuple(float(v) for v in np.sort(p_hsd)),
            swaps=swap_rates(x, trials=t, seed=seed_used) if t and n >= 2 else None,
        )
    return DiscriminativePower(names, n, a, resamples, seed_used, out)


def discriminative_power(
    table: ScoreTable,
    measures: Sequence[object] | None = None,
    *,
    alpha: float = 0.05,
    n_resamples: int = 1000,
    trials: int = 100,
    seed: RngLike = None,
) -> DiscriminativePower:
    """Discriminative power and swap rates of the measures of a
    :class:`~cranfield.evaluation.results.ScoreTable` (default: all of them).

    Parameters are those of :func:`power_of_scores`; the queries are the table's
    :attr:`~cranfield.evaluation.results.ScoreTable.topics`.
    """
    from cranfield.stats.rank_correlation import table_measure

    chosen = (
        list(table.measures) if measures is None else [table_measure(table, m) for m in measures]
    )
    return power_of_scores(
        {str(m): table.matrix(m) for m in chosen},
        runs=table.names,
        alpha=alpha,
        n_resamples=n_resamples,
        trials=trials,
        seed=seed,
    )
