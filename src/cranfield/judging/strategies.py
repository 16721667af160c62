"""Adjudication strategies: which document of a topic to judge next, given the judgments so far.

Every strategy is an online policy (:class:`Strategy`): ``propose(query_id, judged)`` returns
the next document of the topic's pool to judge, or ``None`` when the pool is exhausted or the
topic's budget is spent. The judging workbench calls it live; :mod:`cranfield.judging.simulation`
replays it with complete qrels as the assessor. Build one with :func:`strategy`.

=============== ==============================================================================
name            the order (citation)
=============== ==============================================================================
``depth``       depth-k order: every run's rank 1 (runs in the order given), then rank 2, ...
                (Spärck Jones & van Rijsbergen 1975; TREC's pooling)
``borda``       take-N by Borda count: a document at rank r of a run gets ``n - r + 1``
                points, n the topic's pool size (Aslam & Montague 2001)
``rrf``         take-N by reciprocal rank fusion, ``Σ 1/(k + r)``, ``k=60`` (Cormack, Clarke &
                Büttcher 2009)
``combmnz``     take-N by CombMNZ: min-max normalised scores summed over the runs, times the
                number of runs that retrieved the document (Fox & Shaw 1994; Lee 1997)
``mtf``         Move-to-Front: judge down the run of highest priority while it yields relevant
                documents; a non-relevant one lowers its priority by 1 (Cormack, Palmer &
                Clarke 1998)
``hedge``       Hedge: runs weighted by an online learner whose loss is a rank-weighted AP
                prior, the next document the one of highest weighted value (Aslam, Pavlu &
                Savell 2003)
``maxmean``     bandit MaxMean: the run with the highest ``(rel + 1)/(judged + 2)`` (Losada,
                Parapar & Barreiro 2016, 2017)
``thompson``    bandit Thompson sampling: a draw of ``Beta(1 + rel, 1 + nonrel)`` per run
                (Losada et al. 2016, 2017)
``thompson-ns`` non-stationary Thompson sampling: the same with every run's evidence
                discounted by ``gamma`` per document it judged since (Losada et al. 2017)
``random``      the pool in a random order (the baseline of Losada et al.)
=============== ==============================================================================

Policies (stated here and in ``docs/judging-on-a-budget.md``)
-------------------------------------------------------------
* A grade ``> 0`` is relevant; ``<= 0`` (including trec_eval's -1 "not judged") is not.
* The fused orders break ties by depth order. MTF breaks ties between runs of equal
  priority by the order the runs are given; MaxMean and Thompson draws break them at random
  with the strategy's seed (each topic its own stream, so the order topics are judged in
  does not matter).
* A run's bandit evidence is the judged documents of its list above its next unjudged one,
  whoever judged them (a document judged through another run counts for every run that
  retrieved it, when that run reaches it).
* Judgments of documents outside the pool are accepted and never proposed; only Hedge
  learns from them (a run that does not retrieve a document gets the loss 1/2).
* ``budget`` is per topic: ``propose`` returns ``None`` once ``len(judged) >= budget``.
* ``budget_total`` is over every topic, split evenly before judging starts
  (:func:`allocate_budget`): each topic gets the same share, never more than its pool (nor
  than ``budget`` when both are given), what a small pool cannot use goes to the others, and
  the remainder one judgment each to the topics first in string order among those with
  documents left. A topic's share counts every judgment of it, as ``budget`` does. This is
  the order of judging topics round-robin, one judgment each per round; strategies choose
  within a topic, not which topic next (Losada et al.'s "global" bandits, whose arms are the
  (topic, run) pairs, are not implemented).
* ``propose`` is repeatable: called again with the same judgments it returns the same
  document (a Thompson draw is made once per new judgment).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

import numpy as np

from cranfield._validate import check_choice, check_float, check_int
from cranfield.errors import EvaluationError, OptionError
from cranfield.judging.pools import RunLists, TopicLists, run_lists

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.io.runset import RunSet

__all__ = [
    "STRATEGIES",
    "Strategy",
    "allocate_budget",
    "check_budget",
    "check_budget_total",
    "strategy",
]


@runtime_checkable
class Strategy(Protocol):
    """An online adjudication policy (the interface the judging workbench shares)."""

    name: str

    def propose(self, query_id: str, judged: Mapping[str, float]) -> str | None:
        """The next document of `query_id` to judge, given its judgments so far (doc id → grade),
        or None when the topic's pool is exhausted or its budget spent."""
        ...


class _Topic:
    """One topic's state: the judgments seen, and the strategy's choice from them."""

    def __init__(self, lists: TopicLists, rng: np.random.Generator) -> None:
        self.lists = lists
        self.rng = rng
        self.seen: dict[str, float] = {}
        self.judged = np.zeros(len(lists), dtype=np.bool_)
        self.pending: int | None = None

    def sync(self, judged: Mapping[str, float]) -> bool:
        """Take in the judgments not seen yet; ``False`` when one seen before is gone."""
        pending = self.pending
        if pending is not None and len(judged) == len(self.seen) + 1:
            doc = self.lists.docs[pending]
            if doc in judged:
                self.record(doc, float(judged[doc]))
                return True
        if len(judged) == len(self.seen):
            return True  # nothing new (a grade changed in place is not seen: reset the topic)
        if len(judged) < len(self.seen):
            return False
        if any(doc not in judged for doc in self.seen):
            return False
        for doc, grade in judged.items():
            if doc not in self.seen:
                self.record(doc, float(grade))
        return True

    def record(self, doc: str, grade: float) -> None:
        self.seen[doc] = grade
        self.pending = None
        i = self.lists.index.get(doc)
        if i is not None:
            self.judged[i] = True
        self.observe(i, grade)

    def proposal(self) -> int | None:
        if self.pending is None:
            self.pending = self.choose()
        return self.pending

    # what each strategy defines
    def observe(self, i: int | None, grade: float) -> None:
        """A new judgment (``i``: its position in the pool, ``None`` outside it)."""

    def choose(self) -> int | None:
        raise NotImplementedError


class _Ordered(_Topic):
    """A fixed order of the pool, judged top down (depth, fused, random)."""

    def __init__(self, lists: TopicLists, rng: np.random.Generator, order: NDArray[np.int64]):
        super().__init__(lists, rng)
        self.order = order
        self.at = 0

    def choose(self) -> int | None:
        order, judged = self.order, self.judged
        while self.at < order.size and judged[order[self.at]]:
            self.at += 1
        return int(order[self.at]) if self.at < order.size else None


class _RunPointers(_Topic):
    """Strategies that judge down one run at a time: each run's next unjudged document.

    Plain Python over the runs (a few dozen at most): numpy's call overhead would dominate.
    """

    def __init__(self, lists: TopicLists, rng: np.random.Generator) -> None:
        super().__init__(lists, rng)
        self.docs_of: list[list[int]] = [x.tolist() for x in lists.lists]
        self.at = [0] * len(self.docs_of)
        self.heads = [x[0] if x else -1 for x in self.docs_of]
        self.live = [h >= 0 for h in self.heads]
        self.stale = {r for r, h in enumerate(self.heads) if h >= 0}  # heads maybe judged
        self.head_of: dict[int, set[int]] = {}
        for r, h in enumerate(self.heads):
            if h >= 0:
                self.head_of.setdefault(h, set()).add(r)

    def record(self, doc: str, grade: float) -> None:
        i = self.lists.index.get(doc)
        if i is not None and i in self.head_of:
            self.stale |= self.head_of[i]
        super().record(doc, grade)

    def refresh(self) -> None:
        """Move every stale run's pointer past its judged documents (:meth:`passed` sees each)."""
        judged, docs_at, seen, names = self.judged, self.docs_of, self.seen, self.lists.docs
        for run in sorted(self.stale):
            docs, at = docs_at[run], self.at[run]
            old = self.heads[run]
            while at < len(docs) and judged[docs[at]]:
                self.passed(run, seen[names[docs[at]]])
                at += 1
            self.at[run] = at
            new = docs[at] if at < len(docs) else -1
            if new != old:
                self.head_of[old].discard(run)
                if new >= 0:
                    self.head_of.setdefault(new, set()).add(run)
            self.heads[run] = new
            self.live[run] = new >= 0
        self.stale.clear()

    def passed(self, run: int, grade: float) -> None:
        """``run``'s pointer went past a document judged ``grade``."""


class _MoveToFront(_RunPointers):
    def __init__(self, lists: TopicLists, rng: np.random.Generator) -> None:
        super().__init__(lists, rng)
        self.priority = [0] * len(self.docs_of)
        self.current: int | None = None
        self.asked: tuple[int, int] | None = None  # (run, document) last proposed

    def observe(self, i: int | None, grade: float) -> None:
        if self.asked is not None and i == self.asked[1]:
            if grade <= 0:
                self.priority[self.asked[0]] -= 1
                self.current = None
            self.asked = None

    def choose(self) -> int | None:
        self.refresh()
        if self.current is not None and not self.live[self.current]:
            self.current = None
        if self.current is None:
            live = [r for r, ok in enumerate(self.live) if ok]
            if not live:
                return None
            top = max(self.priority[r] for r in live)
            self.current = next(r for r in live if self.priority[r] == top)
        doc = self.heads[self.current]
        self.asked = (self.current, doc)
        return doc


class _Bandit(_RunPointers):
    """Losada et al.'s bandits: each run an arm, its evidence its judged prefix."""

    def __init__(self, lists: TopicLists, rng: np.random.Generator, rule: str, gamma: float):
        super().__init__(lists, rng)
        self.rel = [0.0] * len(self.docs_of)
        self.non = [0.0] * len(self.docs_of)
        self.rule = rule
        self.gamma = gamma

    def passed(self, run: int, grade: float) -> None:
        if self.rule == "thompson-ns":
            self.rel[run] *= self.gamma
            self.non[run] *= self.gamma
        if grade > 0:
            self.rel[run] += 1.0
        else:
            self.non[run] += 1.0

    def choose(self) -> int | None:
        self.refresh()
        live = [r for r, ok in enumerate(self.live) if ok]
        if not live:
            return None
        a = [self.rel[r] + 1.0 for r in live]
        b = [self.non[r] + 1.0 for r in live]
        if self.rule == "maxmean":
            value = [x / (x + y) for x, y in zip(a, b, strict=True)]
        else:
            value = self.rng.beta(a, b).tolist()
        top = max(value)
        best = [r for r, v in zip(live, value, strict=True) if v == top]
        run = best[0] if len(best) == 1 else best[int(self.rng.integers(len(best)))]
        return self.heads[run]


class _Hedge(_Topic):
    def __init__(self, lists: TopicLists, rng: np.random.Generator, beta: float) -> None:
        super().__init__(lists, rng)
        n_docs, n_runs = len(lists), len(lists.lists)
        self.value = np.zeros((n_docs, n_runs))
        for run, docs in enumerate(lists.lists):
            z = docs.size
            if z:
                harmonic = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, z + 1))))
                # value of rank r: (H_Z - H_{r-1}) / H_Z, 1 at the top
                self.value[docs, run] = (harmonic[z] - harmonic[:z]) / harmonic[z]
        self.weight = np.full(n_runs, 1.0 / max(n_runs, 1))
        self.log_beta = float(np.log(beta))
        self.penalty = np.zeros(n_docs)  # -inf once judged: added, not indexed, every choice
        self.left = n_docs

    def observe(self, i: int | None, grade: float) -> None:
        if i is not None:
            self.penalty[i] = -np.inf
            self.left -= 1
        v = self.value[i] if i is not None else np.zeros(self.weight.size)
        sign = -1.0 if grade > 0 else 1.0
        loss = 0.5 * (1.0 + sign * v)
        w = self.weight * np.exp(self.log_beta * loss)
        self.weight = w / w.sum()

    def choose(self) -> int | None:
        if self.left <= 0:
            return None
        score = self.value @ self.weight
        score += self.penalty
        return int(np.argmax(score))


# ------------------------------------------------------------------------ fused orders


def _depth_order(lists: TopicLists) -> NDArray[np.int64]:
    return np.arange(len(lists), dtype=np.int64)


def _fused(
    lists: TopicLists,
    points: Callable[[NDArray[np.int64], NDArray[np.float64]], NDArray[np.float64]],
    mnz: bool = False,
) -> NDArray[np.int64]:
    total = np.zeros(len(lists))
    count = np.zeros(len(lists))
    for docs, scores in zip(lists.lists, lists.scores, strict=True):
        if docs.size:
            total[docs] += points(np.arange(1, docs.size + 1), scores)
            count[docs] += 1
    if mnz:
        total *= count
    return np.argsort(-total, kind="stable").astype(np.int64)


def _borda(lists: TopicLists) -> NDArray[np.int64]:
    n = len(lists)
    return _fused(lists, lambda rank, _s: (n - rank + 1).astype(np.float64))


def _rrf(lists: TopicLists, k: float) -> NDArray[np.int64]:
    return _fused(lists, lambda rank, _s: np.asarray(1.0 / (k + rank), dtype=np.float64))


def _min_max(_rank: NDArray[np.int64], scores: NDArray[np.float64]) -> NDArray[np.float64]:
    low, high = scores.min(), scores.max()
    if high == low:
        return np.ones(scores.size, dtype=np.float64)
    return np.asarray((scores - low) / (high - low), dtype=np.float64)


def _combmnz(lists: TopicLists) -> NDArray[np.int64]:
    return _fused(lists, _min_max, mnz=True)


STRATEGIES: Final[tuple[str, ...]] = (
    "depth",
    "borda",
    "rrf",
    "combmnz",
    "mtf",
    "hedge",
    "maxmean",
    "thompson",
    "thompson-ns",
    "random",
)
_PARAMS: Final[dict[str, tuple[str, ...]]] = {
    "rrf": ("k",),
    "hedge": ("beta",),
    "thompson-ns": ("gamma",),
}


class _Policy:
    """A :class:`Strategy` over :class:`RunLists`: one :class:`_Topic` state per topic."""

    def __init__(
        self,
        name: str,
        lists: RunLists,
        make: Callable[[TopicLists, np.random.Generator], _Topic],
        budget: int | None,
        seed: int,
        budget_total: int | None = None,
    ) -> None:
        self.name = name
        self.lists = lists
        self.budget = budget
        self.budget_total = budget_total
        self.seed = seed
        self._make = make
        self._states: dict[str, _Topic] = {}
        self.shares: dict[str, int] | None = None
        """Each topic's share of ``budget_total`` (``None`` without one)."""
        if budget_total is not None:
            caps = {
                q: len(t) if budget is None else min(len(t), budget)
                for q, t in lists.topics.items()
            }
            self.shares = allocate_budget(budget_total, caps)

    def __repr__(self) -> str:
        total = "" if self.budget_total is None else f", budget_total={self.budget_total}"
        return (
            f"Strategy(name={self.name!r}, runs={len(self.lists.runs)}, "
            f"topics={len(self.lists.topics)}, budget={self.budget}{total}, seed={self.seed})"
        )

    def _fresh(self, query_id: str, topic: TopicLists) -> _Topic:
        stream = np.random.SeedSequence([self.seed, zlib.crc32(query_id.encode())])
        return self._make(topic, np.random.default_rng(stream))

    def propose(self, query_id: str, judged: Mapping[str, float]) -> str | None:
        """The next document of ``query_id`` to judge, given its judgments so far (doc id →
        grade), or ``None`` when the topic's pool is exhausted or its budget spent (a topic no
        run answered has an empty pool)."""
        if self.budget is not None and len(judged) >= self.budget:
            return None
        if self.shares is not None and len(judged) >= self.shares.get(query_id, 0):
            return None
        topic = self.lists.topics.get(query_id)
        if topic is None:
            return None
        state = self._states.get(query_id)
        if state is None or not state.sync(judged):
            state = self._fresh(query_id, topic)
            state.sync(judged)
            self._states[query_id] = state
        choice = state.proposal()
        return None if choice is None else topic.docs[choice]

    def reset(self, query_id: str | None = None) -> None:
        """Forget the state of ``query_id`` (every topic when ``None``)."""
        if query_id is None:
            self._states.clear()
        else:
            self._states.pop(query_id, None)


def check_budget(budget: object) -> int | None:
    """``budget`` as judgments per topic: an integer >= 1, or ``None`` (no limit).

    A budget below 1 is refused as input that cannot be judged (an
    :class:`~cranfield.errors.EvaluationError`, the command line's exit 2), a value that is
    not an integer as an option (:class:`~cranfield.errors.OptionError`).

    >>> check_budget(0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cranfield.errors.EvaluationError: A budget of 0 judgments per topic judges nothing: ...
    """
    value = check_int("budget", budget, none=True)
    if value is not None and value < 1:
        raise EvaluationError(
            f"A budget of {value} judgments per topic judges nothing: give a budget of 1 or more."
        )
    return value


def check_budget_total(total: object) -> int:
    """``total`` as judgments over every topic: an integer >= 1 (0 is an
    :class:`~cranfield.errors.EvaluationError`, the command line's exit 2)."""
    value = check_int("budget_total", total)
    if value < 1:
        raise EvaluationError(
            f"A total budget of {value} judgments judges nothing: give a budget of 1 or more."
        )
    return value


def allocate_budget(total: int, caps: Mapping[str, int]) -> dict[str, int]:
    """Split ``total`` judgments evenly over the topics of ``caps``, none above its cap.

    Round-robin in effect: every topic gets one judgment per round while it is under its cap
    (its pool size), the last round's judgments going to the topics first in string order.
    A total above the sum of the caps leaves the excess unspent.

    >>> allocate_budget(10, {"q1": 100, "q2": 100, "q3": 100})
    {'q1': 4, 'q2': 3, 'q3': 3}
    >>> allocate_budget(10, {"q1": 100, "q2": 1, "q3": 2})
    {'q1': 7, 'q2': 1, 'q3': 2}
    """
    total = check_budget_total(total)
    order = sorted(caps)
    share = dict.fromkeys(order, 0)
    left = total
    while left > 0:
        open_ = [q for q in order if share[q] < caps[q]]
        if not open_:
            break
        each = left // len(open_)
        if each == 0:
            for q in open_[:left]:
                share[q] += 1
            break
        for q in open_:
            given = min(each, caps[q] - share[q])
            share[q] += given
            left -= given
    return share


def strategy(
    name: str,
    runs: RunLists | RunSet | Mapping[str, Any] | Sequence[Any],
    *,
    budget: int | None = None,
    budget_total: int | None = None,
    seed: int = 0,
    pool_depth: int | None = 100,
    **params: float,
) -> Strategy:
    """The adjudication strategy ``name`` over ``runs``' pools (see the module's table).

    Parameters
    ----------
    name:
        One of :data:`STRATEGIES`.
    runs:
        ``{name: run}``, a list of runs, a ``RunSet``, or a
        :class:`~cranfield.judging.pools.RunLists` already built (shared by several
        strategies).
    budget:
        Judgments per topic (an integer >= 1; ``None``: until the pool is exhausted).
    budget_total:
        Judgments over every topic (an integer >= 1), split evenly by
        :func:`allocate_budget` over the topics' pools (each capped by ``budget`` too);
        ``None``: no total.
    seed:
        The seed of the random choices (``random``, ties of ``maxmean``, the draws of
        ``thompson``): an integer >= 0.
    pool_depth:
        Documents taken from each run per topic (``None``: every one); a ``RunLists`` given
        as ``runs`` keeps the depth it was built with.
    **params:
        ``k`` of ``rrf`` (default 60), ``beta`` of ``hedge`` (in (0, 1), default 0.1),
        ``gamma`` of ``thompson-ns`` (in (0, 1], default 0.9).

    Examples
    --------
    >>> runs = {"a": {"q1": {"d1": 3, "d2": 2, "d3": 1}}, "b": {"q1": {"d4": 3, "d2": 2}}}
    >>> s = strategy("depth", runs, budget=3)
    >>> judged = {}
    >>> while (doc := s.propose("q1", judged)) is not None:
    ...     judged[doc] = 1
    >>> list(judged)
    ['d1', 'd4', 'd2']
    """
    check_choice("strategy", name, STRATEGIES)
    budget = check_budget(budget)
    if budget_total is not None:
        budget_total = check_budget_total(budget_total)
    seed = check_int("seed", seed, minimum=0)
    unknown = sorted(set(params) - set(_PARAMS.get(name, ())))
    if unknown:
        allowed = ", ".join(_PARAMS.get(name, ())) or "none"
        raise OptionError(
            unknown[0], f"a parameter of {name!r} (it takes: {allowed})", params[unknown[0]]
        )
    lists = runs if isinstance(runs, RunLists) else run_lists(runs, pool_depth=pool_depth)
    make = _maker(name, params)
    return _Policy(name, lists, make, budget, seed, budget_total)


def _maker(
    name: str, params: Mapping[str, float]
) -> Callable[[TopicLists, np.random.Generator], _Topic]:
    if name in ("depth", "borda", "combmnz", "random"):
        orders: dict[str, Callable[[TopicLists], NDArray[np.int64]]] = {
            "depth": _depth_order,
            "borda": _borda,
            "combmnz": _combmnz,
        }
        if name == "random":
            return lambda t, rng: _Ordered(t, rng, rng.permutation(len(t)).astype(np.int64))
        order = orders[name]
        return lambda t, rng: _Ordered(t, rng, order(t))
    if name == "rrf":
        k = check_float("k", params.get("k", 60.0), minimum=0.0)
        return lambda t, rng: _Ordered(t, rng, _rrf(t, k))
    if name == "mtf":
        return _MoveToFront
    if name == "hedge":
        beta = check_float(
            "beta", params.get("beta", 0.1), minimum=0.0, maximum=1.0, above=True, below=True
        )
        return lambda t, rng: _Hedge(t, rng, beta)
    gamma = check_float("gamma", params.get("gamma", 0.9), minimum=0.0, maximum=1.0, above=True)
    return lambda t, rng: _Bandit(t, rng, name, gamma)
