"""Strategies replayed with complete qrels as the assessor.

:func:`simulate` asks each strategy for documents topic by topic, answers with the qrels
grade (a document the qrels do not judge, or judge with a negative label, is answered 0:
not relevant, as trec_eval counts it), and records

* the relevant documents found after every judgment spent per topic (the curves of Losada,
  Parapar & Barreiro 2016, 2017), summed over the topics, and
* at a few budgets, the runs' ranking by a measure under the judgments made so far against
  their ranking under the full qrels: Kendall's τ-b and Yilmaz et al.'s τ_AP, by
  :func:`cranfield.stats.rank_correlation.correlate_scores`.

Every strategy reads one :class:`~cranfield.judging.pools.RunLists`, built once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from cranfield._validate import check_choices, check_int
from cranfield.data.qrels import QRELS_SCHEMA, Qrels
from cranfield.errors import OptionError
from cranfield.io.load import QrelsLike, load_qrels
from cranfield.io.runset import RunSet
from cranfield.judging.pools import RunLists, run_lists
from cranfield.judging.strategies import (
    STRATEGIES,
    check_budget,
    check_budget_total,
    strategy,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.data.run import Run

__all__ = ["Simulation", "simulate"]


@dataclass(frozen=True, eq=False)
class Simulation:
    """What :func:`simulate` returns.

    Attributes
    ----------
    strategies:
        The strategies replayed, in order.
    budget:
        Judgments per topic, or over every topic when :attr:`total`.
    pool_depth:
        The pool depth the strategies drew from.
    topics:
        The topics judged (those of the qrels that some run answered).
    relevant:
        Relevant documents in the qrels for those topics (the most any strategy can find).
    pooled_relevant:
        Relevant documents in the pool (the most a strategy can find within the pool).
    found:
        ``{strategy: array}``: element ``j`` is the relevant documents found, summed over the
        topics, after ``j + 1`` judgments per topic (a topic whose pool is exhausted stays),
        or, when :attr:`total`, after ``j + 1`` judgments in all.
    spent:
        ``{strategy: array}``: the judgments made, summed over the topics, at the same
        points (less than ``(j + 1) × topics``, or ``j + 1``, once pools run out).
    measure:
        The measure the runs are ranked by.
    checkpoints:
        The budgets (per topic, or in all when :attr:`total`) at which the ranking is
        compared.
    tau, tau_ap:
        ``{strategy: tuple}``: τ-b and τ_AP of the runs' ranking under the judgments made at
        each checkpoint against the ranking under the full qrels.
    runs:
        The run names, in the order of :attr:`scores` and :attr:`reference`.
    reference:
        Each run's mean ``measure`` under the full qrels (empty without checkpoints).
    scores:
        ``{strategy: tuple}``: at each checkpoint, each run's mean ``measure`` under the
        judgments made so far (how the scores move as the budget grows).
    total:
        ``True``: :attr:`budget` is a total over the topics, split evenly
        (:func:`~cranfield.judging.strategies.allocate_budget`: the topics judged
        round-robin, string order within a round), and :attr:`found`, :attr:`spent` and
        :attr:`checkpoints` count judgments in all.
    """

    strategies: tuple[str, ...]
    budget: int
    pool_depth: int | None
    topics: tuple[str, ...]
    relevant: int
    pooled_relevant: int
    found: dict[str, NDArray[np.int64]]
    spent: dict[str, NDArray[np.int64]]
    measure: str
    checkpoints: tuple[int, ...]
    tau: dict[str, tuple[float, ...]]
    tau_ap: dict[str, tuple[float, ...]]
    runs: tuple[str, ...] = ()
    reference: tuple[float, ...] = ()
    scores: dict[str, tuple[tuple[float, ...], ...]] = field(default_factory=dict)
    total: bool = False

    @property
    def unit(self) -> str:
        """What the budget counts: ``"judgments per topic"`` or ``"judgments in all"``."""
        return "judgments in all" if self.total else "judgments per topic"

    def found_at(self, judgments: int) -> dict[str, int]:
        """``{strategy: relevant found}`` after ``judgments`` per topic (in all when
        :attr:`total`)."""
        judgments = check_int("judgments", judgments, minimum=1, maximum=self.budget)
        return {s: int(self.found[s][judgments - 1]) for s in self.strategies}

    def to_frame(self) -> pl.DataFrame:
        """One row per strategy and judgments per topic: ``strategy``, ``judgments``,
        ``spent``, ``found``."""
        frames = [
            pl.DataFrame(
                {
                    "strategy": [s] * self.budget,
                    "judgments": np.arange(1, self.budget + 1),
                    "spent": self.spent[s],
                    "found": self.found[s],
                }
            )
            for s in self.strategies
        ]
        return pl.concat(frames)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (``NaN`` as ``None``)."""

        def plain(v: float) -> float | None:
            return None if np.isnan(v) else float(v)

        return {
            "budget": self.budget,
            "budget_per": "all topics" if self.total else "topic",
            "pool_depth": self.pool_depth,
            "topics": len(self.topics),
            "relevant": self.relevant,
            "pooled_relevant": self.pooled_relevant,
            "measure": self.measure,
            "checkpoints": list(self.checkpoints),
            "reference": dict(zip(self.runs, self.reference, strict=True))
            if self.reference
            else {},
            "strategies": {
                s: {
                    "found": self.found[s].tolist(),
                    "spent": self.spent[s].tolist(),
                    "tau": [plain(v) for v in self.tau[s]],
                    "tau_ap": [plain(v) for v in self.tau_ap[s]],
                    "scores": [
                        dict(zip(self.runs, step, strict=True)) for step in self.scores.get(s, ())
                    ],
                }
                for s in self.strategies
            },
        }


def _judge(
    name: str,
    lists: RunLists,
    truth: Mapping[str, Mapping[str, int]],
    budget: int,
    seed: int,
    params: Mapping[str, float],
    *,
    total: bool = False,
) -> dict[str, list[tuple[str, int]]]:
    """Each topic's judgments in the order ``name`` asked for them."""
    extra: dict[str, Any] = dict(params)
    if total:
        policy = strategy(name, lists, budget_total=budget, seed=seed, **extra)
    else:
        policy = strategy(name, lists, budget=budget, seed=seed, **extra)
    out: dict[str, list[tuple[str, int]]] = {}
    for qid in lists.topics:
        grades = truth.get(qid, {})
        judged: dict[str, float] = {}
        order: list[tuple[str, int]] = []
        while (doc := policy.propose(qid, judged)) is not None:
            grade = max(int(grades.get(doc, 0)), 0)
            judged[doc] = grade
            order.append((doc, grade))
        out[qid] = order
    return out


def _curves(
    order: Mapping[str, list[tuple[str, int]]], budget: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    found = np.zeros(budget, dtype=np.int64)
    spent = np.zeros(budget, dtype=np.int64)
    for seq in order.values():
        rel = np.fromiter((g > 0 for _, g in seq), dtype=np.int64, count=len(seq))
        cum = np.cumsum(rel)
        n = len(seq)
        if n:
            found[:n] += cum
            found[n:] += cum[-1]
        spent += np.minimum(np.arange(1, budget + 1), n)
    return found, spent


def _round_robin(order: Mapping[str, list[tuple[str, int]]]) -> list[str]:
    """The topics in the order their judgments are spent under a total budget: one each per
    round, string order within a round, a topic leaving once its judgments are done."""
    left = {q: len(seq) for q, seq in order.items()}
    out: list[str] = []
    for r in range(max(left.values(), default=0)):
        out.extend(q for q in sorted(left) if left[q] > r)
    return out


def _total_curves(
    order: Mapping[str, list[tuple[str, int]]], budget: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    found = np.zeros(budget, dtype=np.int64)
    spent = np.zeros(budget, dtype=np.int64)
    at = dict.fromkeys(order, 0)
    count = 0
    sequence = _round_robin(order)[:budget]
    for j, q in enumerate(sequence):
        count += order[q][at[q]][1] > 0
        at[q] += 1
        found[j] = count
        spent[j] = j + 1
    found[len(sequence) :] = count
    spent[len(sequence) :] = len(sequence)
    return found, spent


def _prefixes(order: Mapping[str, list[tuple[str, int]]], step: int, total: bool) -> dict[str, int]:
    """Each topic's judgments made at checkpoint ``step``."""
    if not total:
        return dict.fromkeys(order, step)
    made = dict.fromkeys(order, 0)
    for q in _round_robin(order)[:step]:
        made[q] += 1
    return made


def _partial_qrels(order: Mapping[str, list[tuple[str, int]]], upto: Mapping[str, int]) -> Qrels:
    rows = [(q, d, g) for q, seq in order.items() for d, g in seq[: upto[q]]]
    frame = pl.DataFrame(
        [(q, "0", d, g) for q, d, g in rows], schema=QRELS_SCHEMA, orient="row"
    ).sort(["query_id", "doc_id"])
    return Qrels(frame=frame, name=f"judged@{sum(upto.values())}")


def simulate(  # noqa: PLR0913 -- inputs, the strategies, and the settings of the replay
    runs: RunSet | Mapping[str, Any] | Sequence[Any],
    qrels: QrelsLike,
    strategies: str | Iterable[str] = STRATEGIES,
    *,
    budget: int = 100,
    budget_total: int | None = None,
    pool_depth: int | None = 100,
    seed: int = 0,
    measure: str = "AP",
    checkpoints: Sequence[int] | None = None,
    params: Mapping[str, Mapping[str, float]] | None = None,
) -> Simulation:
    """Replay ``strategies`` on ``runs``' pools with ``qrels`` as the assessor.

    Parameters
    ----------
    runs:
        The runs (``{name: run}``, a list, a ``RunSet``).
    qrels:
        Complete judgments: the assessor's answers.
    strategies:
        Names of :data:`~cranfield.judging.strategies.STRATEGIES` (default every one).
    budget:
        Judgments per topic (>= 1; 0 is an :class:`~cranfield.errors.EvaluationError`).
    budget_total:
        Instead of ``budget``: judgments over every topic (>= 1), split evenly as
        :func:`~cranfield.judging.strategies.allocate_budget` splits it (the topics judged
        round-robin); the curves and checkpoints then count judgments in all.
    pool_depth:
        Documents taken from each run per topic (``None``: every one).
    seed:
        The seed of every strategy.
    measure:
        The measure the runs are ranked by (``AP``: MAP), under the judgments made and under
        the full qrels.
    checkpoints:
        Budgets (per topic, or in all with ``budget_total``) at which the rankings are
        compared (default: 10 points from a tenth of the budget to the budget; ``[]``: no
        comparison, the quick replay).
    params:
        ``{strategy: {parameter: value}}`` (``{"rrf": {"k": 60}}``).

    Returns
    -------
    Simulation

    Examples
    --------
    >>> runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0}}, "b": {"q1": {"d3": 2.0, "d2": 1.0}}}
    >>> sim = simulate(runs, {"q1": {"d2": 1, "d3": 1}}, ["depth", "mtf"], budget=3, checkpoints=[])
    >>> sim.found["depth"].tolist(), sim.found["mtf"].tolist()
    ([0, 1, 2], [0, 1, 2])
    """
    names: list[str] = check_choices("strategies", strategies, list(STRATEGIES))
    total = budget_total is not None
    if budget_total is not None:
        budget = check_budget_total(budget_total)
    budget = check_int("budget", budget)
    check_budget(budget)
    seed = check_int("seed", seed, minimum=0)
    steps = (
        sorted({max(1, round(budget * i / 10)) for i in range(1, 11)})
        if checkpoints is None
        else sorted({check_int("checkpoints", c, minimum=1, maximum=budget) for c in checkpoints})
    )
    given = dict(params or {})
    for key in given:
        if key not in names:
            raise OptionError(
                "params", f"parameters of the strategies simulated ({', '.join(names)})", key
            )
    if isinstance(runs, (str, bytes)):
        raise OptionError("runs", "a list or a dict of runs", runs)
    run_set = RunSet.of(runs)
    loaded: dict[str, Run] = {n: run_set.load(i) for i, n in enumerate(run_set.names)}
    full = load_qrels(qrels)
    truth = full.to_dict()
    lists = run_lists(loaded, pool_depth=pool_depth)
    topics = tuple(q for q in lists.topics if q in truth)
    judged_lists = RunLists(
        runs=lists.runs, pool_depth=lists.pool_depth, topics={q: lists.topics[q] for q in topics}
    )
    relevant = sum(1 for q in topics for g in truth[q].values() if g > 0)
    pooled_relevant = sum(1 for q in topics for d in lists.topics[q].docs if truth[q].get(d, 0) > 0)
    reference = _means(full, loaded, measure, topics) if steps else np.zeros(0)
    found, spent, tau, tau_ap = {}, {}, {}, {}
    scores: dict[str, tuple[tuple[float, ...], ...]] = {}
    for name in names:
        order = _judge(name, judged_lists, truth, budget, seed, given.get(name, {}), total=total)
        found[name], spent[name] = (_total_curves if total else _curves)(order, budget)
        taus, aps, means = [], [], []
        for step in steps:
            judged = _partial_qrels(order, _prefixes(order, step, total))
            at_step = _means(judged, loaded, measure, topics)
            t, ap = _agreement(reference, at_step, run_set.names)
            taus.append(t)
            aps.append(ap)
            means.append(tuple(float(v) for v in at_step))
        tau[name], tau_ap[name] = tuple(taus), tuple(aps)
        scores[name] = tuple(means)
    return Simulation(
        strategies=tuple(names),
        budget=budget,
        pool_depth=lists.pool_depth,
        topics=topics,
        relevant=relevant,
        pooled_relevant=pooled_relevant,
        found=found,
        spent=spent,
        measure=measure,
        checkpoints=tuple(steps),
        tau=tau,
        tau_ap=tau_ap,
        runs=run_set.names,
        reference=tuple(float(v) for v in reference),
        scores=scores,
        total=total,
    )


def _means(
    qrels: Qrels, runs: Mapping[str, Run], measure: str, topics: Sequence[str]
) -> NDArray[np.float64]:
    """Each run's mean ``measure`` over ``topics`` (a topic a run did not answer counts 0)."""
    from cranfield.evaluation.evaluator import Evaluator

    table = Evaluator(qrels, measure, missing="zero").many(dict(runs))
    matrix = table.matrix(measure)
    where = {q: i for i, q in enumerate(table.topics)}
    rows = [where[q] for q in topics if q in where]
    return np.asarray(matrix[rows].sum(axis=0) / max(len(topics), 1), dtype=np.float64)


def _agreement(
    a: NDArray[np.float64], b: NDArray[np.float64], systems: Sequence[str]
) -> tuple[float, float]:
    from cranfield.stats.rank_correlation import correlate_scores

    result = correlate_scores(a[None, :], b[None, :], systems=systems, n_resamples=0)
    return result.coefficients["kendall_tau_b"].value, result.coefficients["tau_ap"].value
