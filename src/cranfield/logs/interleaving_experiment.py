"""A simulated interleaving experiment: two runs, a click function, N impressions per query.

:func:`interleaving_experiment` takes two rankings per query (``{query: [doc, ...]}``, as a
run's top documents), interleaves them ``impressions`` times per query with one of the
methods of :mod:`cranfield.logs.interleaving`, asks a click function for the clicks on the
shown lists, and returns the outcome of every impression with the preference of
:func:`cranfield.logs.preference.preference` (bootstrap over queries).

A click function is how a click model plugs in::

    clicks(query_id, doc_ids, shown, gen) -> clicked

``doc_ids`` are the documents of the query's two rankings; ``shown`` the
``(impressions, depth)`` codes into them (``-1`` past the end); ``gen`` the
:class:`numpy.random.Generator` to draw from; ``clicked`` a boolean array of ``shown``'s shape.
:func:`independent_clicks` makes one from click probabilities per (query, document) and an
optional examination probability per rank (a position-based model, PBM); a fitted click model
(cascade, DBN, ...) provides its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal, Protocol, get_args

import numpy as np

from cranfield._validate import check_bool, check_choice, check_float, check_int
from cranfield.errors import OptionError
from cranfield.logs.interleaving import TAU, balanced, multileave, probabilistic
from cranfield.logs.preference import Preference, pairwise_preferences, preference
from cranfield.stats.resampling import RngLike, resolve_seed

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from numpy.typing import NDArray

__all__ = [
    "METHODS",
    "ClickFunction",
    "InterleavingExperiment",
    "Method",
    "MultileavingExperiment",
    "independent_clicks",
    "interleaving_experiment",
    "multileaving_experiment",
]

Method = Literal["team-draft", "balanced", "probabilistic"]
METHODS: Final[tuple[str, ...]] = get_args(Method)
_STREAM: Final = 21
"""The spawn key of the clicks' streams: ``SeedSequence(seed, spawn_key=(21, query))``."""


class ClickFunction(Protocol):
    """Clicks on shown lists of one query (see the module notes)."""

    def __call__(
        self,
        query_id: str,
        doc_ids: tuple[str, ...],
        shown: NDArray[np.int64],
        gen: np.random.Generator,
        /,
    ) -> NDArray[np.bool_]: ...


def independent_clicks(
    probability: Mapping[tuple[str, str], float],
    *,
    examination: Sequence[float] | None = None,
) -> ClickFunction:
    """A click function clicking each shown result independently with probability
    ``examination[rank] * probability[(query, doc)]``.

    A (query, document) pair not in ``probability`` is never clicked; without
    ``examination`` every rank is examined (probability 1).

    Examples
    --------
    >>> clicks = independent_clicks({("q", "a"): 1.0, ("q", "b"): 0.0})
    >>> clicks("q", ("a", "b"), np.array([[1, 0]]), np.random.default_rng(0)).tolist()
    [[False, True]]
    """
    table = dict(probability)
    for key, p in table.items():
        check_float(f"probability of {key}", p, minimum=0.0, maximum=1.0)
    exam = None if examination is None else np.asarray(examination, dtype=np.float64)
    if exam is not None and (exam.ndim != 1 or not ((exam >= 0) & (exam <= 1)).all()):
        raise OptionError("examination", "probabilities in [0, 1], one per rank", examination)

    def clicks(
        query_id: str, doc_ids: tuple[str, ...], shown: NDArray[np.int64], gen: np.random.Generator
    ) -> NDArray[np.bool_]:
        p = np.array([table.get((query_id, d), 0.0) for d in doc_ids] + [0.0])
        chance = p[np.where(shown < 0, len(doc_ids), shown)]
        if exam is not None:
            seen = np.zeros(shown.shape[1])
            seen[: min(exam.size, seen.size)] = exam[: seen.size]
            chance = chance * seen
        out: NDArray[np.bool_] = gen.random(shown.shape) < chance
        return out

    return clicks


@dataclass(frozen=True)
class InterleavingExperiment:
    """The impressions of a simulated interleaving experiment and their preference.

    Attributes
    ----------
    query_ids:
        The queries interleaved (in both runs), sorted.
    query:
        ``(impressions,)`` code into ``query_ids`` of each impression.
    outcomes:
        ``(impressions,)`` outcome of each impression (1 A won, -1 B won, 0 tie, or an
        expected outcome with marginalised probabilistic credit).
    preference:
        Δ_AB, the sign test and the bootstrap interval over queries.
    left_out:
        Queries of only one of the two runs (not interleaved).
    method, seed:
        The interleaving method and the seed that reproduces the experiment.
    """

    query_ids: tuple[str, ...]
    query: NDArray[np.int64]
    outcomes: NDArray[np.float64]
    preference: Preference
    left_out: tuple[str, ...]
    method: str
    seed: int

    def per_query(self) -> dict[str, tuple[int, int, int]]:
        """``{query: (wins, losses, ties)}`` of A over B."""
        m = len(self.query_ids)
        wins = np.bincount(self.query, weights=self.outcomes > 0, minlength=m)
        losses = np.bincount(self.query, weights=self.outcomes < 0, minlength=m)
        ties = np.bincount(self.query, weights=self.outcomes == 0, minlength=m)
        return {
            q: (int(wins[i]), int(losses[i]), int(ties[i])) for i, q in enumerate(self.query_ids)
        }

    def agreement(
        self, sign: int, sizes: Sequence[int], *, repetitions: int = 1000, seed: RngLike = None
    ) -> NDArray[np.float64]:
        """How often ``N`` impressions of this experiment prefer the side ``sign`` names.

        For each ``N`` of ``sizes``, ``repetitions`` sets of ``N`` impressions are drawn with
        replacement from the experiment's; the share whose mean outcome has the sign ``sign``
        (``1``: A, as an offline measure says A is better; ``-1``: B) is returned, a tie
        counting one half. This is Chapelle et al.'s (2012, §5) agreement of interleaving with
        the offline difference as a function of the experiment's size.

        Examples
        --------
        >>> clicks = independent_clicks({("q", "r"): 0.6, ("q", "n"): 0.4})
        >>> e = interleaving_experiment({"q": ["r", "n"]}, {"q": ["n", "r"]}, clicks,
        ...     impressions=2000, seed=3)
        >>> e.agreement(1, [1, 10, 100, 1000], seed=0).round(2).tolist()
        [0.59, 0.81, 1.0, 1.0]
        """
        if sign not in (1, -1):
            raise OptionError("sign", "1 (A is better) or -1 (B is better)", sign)
        r = check_int("repetitions", repetitions, minimum=1)
        gen = np.random.default_rng(np.random.SeedSequence(resolve_seed(seed), spawn_key=(22,)))
        o = self.outcomes
        out = np.empty(len(sizes))
        for k, size in enumerate(sizes):
            n = check_int("size", size, minimum=1)
            means = np.zeros(r)
            block = max(1, (1 << 22) // n)
            for start in range(0, r, block):
                stop = min(r, start + block)
                means[start:stop] = o[gen.integers(0, o.size, size=(stop - start, n))].mean(axis=1)
            agree = np.sign(means) == sign
            out[k] = (agree.sum() + 0.5 * (means == 0).sum()) / r
        return out


def interleaving_experiment(  # noqa: PLR0913 -- rankings, clicks, then keyword-only settings
    a: Mapping[str, Sequence[str]],
    b: Mapping[str, Sequence[str]],
    clicks: ClickFunction,
    *,
    method: Method = "team-draft",
    impressions: int = 100,
    depth: int | None = 10,
    tau: float = TAU,
    marginalise: bool = True,
    alpha: float = 0.05,
    n_resamples: int = 1000,
    seed: RngLike = None,
) -> InterleavingExperiment:
    """``impressions`` interleavings per query of runs ``a`` and ``b`` under ``clicks``.

    Parameters
    ----------
    a, b:
        ``{query_id: [doc_id, ...]}``, best first, per run.
    clicks:
        The click function (module notes; :func:`independent_clicks`).
    method:
        ``"team-draft"``, ``"balanced"`` or ``"probabilistic"``.
    impressions:
        Impressions per query.
    depth:
        Length of the shown lists (``None``: every document of both rankings).
    tau, marginalise:
        Probabilistic interleaving's exponent and credit.
    alpha, n_resamples:
        The bootstrap interval of the preference (over queries).
    seed:
        An integer, a :class:`numpy.random.Generator` or ``None``. Query ``i`` (in sorted
        order) draws its lists from ``SeedSequence(seed, spawn_key=(21, i, 0))`` and its clicks
        from ``(21, i, 1)``, so adding a query does not change another's impressions.

    Examples
    --------
    >>> a = {"q1": ["r", "n"], "q2": ["r2", "n2"]}
    >>> b = {"q1": ["n", "r"], "q2": ["n2", "r2"]}
    >>> clicks = independent_clicks({("q1", "r"): 1.0, ("q2", "r2"): 1.0})
    >>> e = interleaving_experiment(a, b, clicks, impressions=50, seed=1)
    >>> e.preference.losses, e.preference.delta > 0.2
    (0, True)
    """
    chosen = check_choice("method", method, METHODS)
    n = check_int("impressions", impressions, minimum=1)
    marg = check_bool("marginalise", marginalise)
    used = resolve_seed(seed)
    queries = sorted(set(a) & set(b))
    if not queries:
        raise OptionError("a", "a run sharing at least one query with b", sorted(a)[:5])
    left_out = tuple(sorted(set(a) ^ set(b)))
    outcomes: list[NDArray[np.float64]] = []
    for i, q in enumerate(queries):
        lists_gen = np.random.default_rng(np.random.SeedSequence(used, spawn_key=(_STREAM, i, 0)))
        click_gen = np.random.default_rng(np.random.SeedSequence(used, spawn_key=(_STREAM, i, 1)))
        if chosen == "probabilistic":
            p = probabilistic(a[q], b[q], impressions=n, depth=depth, tau=tau, seed=lists_gen)
            outcomes.append(
                p.outcomes(_clicks(clicks, q, p.doc_ids, p.shown, click_gen), marginalise=marg)
            )
        elif chosen == "balanced":
            bl = balanced(a[q], b[q], impressions=n, depth=depth, seed=lists_gen)
            outcomes.append(bl.outcomes(_clicks(clicks, q, bl.doc_ids, bl.shown, click_gen)))
        else:
            t = multileave([a[q], b[q]], impressions=n, depth=depth, seed=lists_gen)
            outcomes.append(t.outcomes(_clicks(clicks, q, t.doc_ids, t.shown, click_gen)))
    query = np.repeat(np.arange(len(queries), dtype=np.int64), n)
    o = np.concatenate(outcomes)
    pref = preference(o, groups=query, alpha=alpha, n_resamples=n_resamples, seed=used)
    return InterleavingExperiment(tuple(queries), query, o, pref, left_out, chosen, used)


@dataclass(frozen=True)
class MultileavingExperiment:
    """The impressions of a simulated team-draft multileaving of several runs.

    Attributes
    ----------
    names:
        The runs, in the order given.
    query_ids:
        The queries every run answers, sorted.
    query:
        ``(impressions,)`` code into ``query_ids`` of each impression.
    credit:
        ``(impressions, runs)`` clicks credited to each run's team.
    preferences:
        ``{(a, b): Preference}`` for every pair of runs ``a`` before ``b`` in :attr:`names`:
        the outcome of an impression is the sign of ``a``'s credit minus ``b``'s, Δ its mean
        over two, with the sign test and the bootstrap interval over queries.
    left_out:
        Queries some run lacks (not multileaved).
    seed:
        The seed that reproduces the experiment.
    """

    names: tuple[str, ...]
    query_ids: tuple[str, ...]
    query: NDArray[np.int64]
    credit: NDArray[np.int64]
    preferences: dict[tuple[str, str], Preference]
    left_out: tuple[str, ...]
    seed: int

    def matrix(self) -> NDArray[np.float64]:
        """``(runs, runs)`` Δ of each run over each other (antisymmetric)."""
        return pairwise_preferences(self.credit)


def multileaving_experiment(
    runs: Mapping[str, Mapping[str, Sequence[str]]],
    clicks: ClickFunction,
    *,
    impressions: int = 100,
    depth: int | None = 10,
    alpha: float = 0.05,
    n_resamples: int = 1000,
    seed: RngLike = None,
) -> MultileavingExperiment:
    """``impressions`` team-draft multileavings (Schuth et al. 2014) per query of the runs
    ``{name: {query_id: [doc_id, ...]}}`` (two or more) under ``clicks``; the lists and clicks
    of query ``i`` come from the streams of :func:`interleaving_experiment`, so two runs give
    its team-draft impressions.

    Examples
    --------
    >>> a = {"q": ["r", "n"]}
    >>> clicks = independent_clicks({("q", "r"): 1.0})
    >>> e = multileaving_experiment({"a": a, "b": {"q": ["n", "r"]}, "c": a}, clicks,
    ...     impressions=40, seed=1)
    >>> sorted(e.preferences), e.preferences["a", "b"].delta > 0
    ([('a', 'b'), ('a', 'c'), ('b', 'c')], True)
    """
    names = tuple(runs)
    if len(names) < 2:
        raise OptionError("runs", "two runs or more", names)
    n = check_int("impressions", impressions, minimum=1)
    used = resolve_seed(seed)
    queries = sorted(set.intersection(*(set(r) for r in runs.values())))
    if not queries:
        raise OptionError("runs", "runs sharing at least one query", names)
    left_out = tuple(sorted(set.union(*(set(r) for r in runs.values())) - set(queries)))
    credits = []
    for i, q in enumerate(queries):
        lists_gen = np.random.default_rng(np.random.SeedSequence(used, spawn_key=(_STREAM, i, 0)))
        click_gen = np.random.default_rng(np.random.SeedSequence(used, spawn_key=(_STREAM, i, 1)))
        t = multileave([runs[r][q] for r in names], impressions=n, depth=depth, seed=lists_gen)
        credits.append(t.credit(_clicks(clicks, q, t.doc_ids, t.shown, click_gen)))
    query = np.repeat(np.arange(len(queries), dtype=np.int64), n)
    credit = np.concatenate(credits)
    prefs = {
        (names[i], names[j]): preference(
            np.sign(credit[:, i] - credit[:, j]).astype(np.float64),
            groups=query,
            alpha=alpha,
            n_resamples=n_resamples,
            seed=used,
        )
        for i in range(len(names))
        for j in range(i + 1, len(names))
    }
    return MultileavingExperiment(names, tuple(queries), query, credit, prefs, left_out, used)


def _clicks(
    clicks: ClickFunction,
    query_id: str,
    doc_ids: tuple[str, ...],
    shown: NDArray[np.int64],
    gen: np.random.Generator,
) -> NDArray[np.bool_]:
    """The click function's answer, checked, with no click past the end of a list."""
    out = np.asarray(clicks(query_id, doc_ids, shown, gen))
    if out.shape != shown.shape or out.dtype != np.bool_:
        raise OptionError(
            "clicks",
            f"a function returning a boolean array of shape {shown.shape}",
            f"one returning {out.dtype} of shape {out.shape} for query {query_id!r}",
        )
    return out & (shown >= 0)
