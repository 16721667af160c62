"""Iterative judging: judge, rephrase or expand the query, pool again, judge only what is new.

The seeds' query-expansion method: after a first round, the relevant documents found
(:func:`relevant_found`) feed rephrased or expanded queries (the lab runs them: relevance
feedback, new query variants), and :func:`next_round` pools those new runs and proposes,
per topic, only the documents nobody judged yet, in the order of an adjudication strategy
(:mod:`cranfield.judging.strategies`), up to a budget.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cranfield.io.load import QrelsLike, load_qrels
from cranfield.io.runset import RunSet
from cranfield.judging.pools import RunLists, run_lists
from cranfield.judging.strategies import check_budget, strategy

__all__ = ["Round", "next_round", "relevant_found"]


def relevant_found(judged: QrelsLike) -> dict[str, list[str]]:
    """``{topic: relevant documents}`` of the judgments so far (grade > 0), each topic's in
    document id order: the feedback for expanded queries.

    >>> relevant_found({"q": {"b": 1, "a": 2, "c": 0}})
    {'q': ['a', 'b']}
    """
    qrels = load_qrels(judged)
    return {q: sorted(d for d, g in docs.items() if g > 0) for q, docs in qrels.to_dict().items()}


@dataclass(frozen=True, eq=False)
class Round:
    """What :func:`next_round` returns.

    ``proposals``: ``{topic: documents to judge}`` in the strategy's order; ``pooled`` the
    new runs' pool size per topic; ``already`` how many of the pooled documents were judged
    before.
    """

    strategy: str
    proposals: dict[str, list[str]]
    pooled: dict[str, int]
    already: dict[str, int]


def next_round(
    judged: QrelsLike,
    runs: RunLists | RunSet | Mapping[str, Any] | Sequence[Any],
    *,
    strategy_name: str = "depth",
    budget: int | None = None,
    pool_depth: int | None = 100,
    seed: int = 0,
) -> Round:
    """The documents of ``runs``' pools not judged yet, per topic, in a strategy's order.

    Parameters
    ----------
    judged:
        The judgments so far (any qrels; a negative label counts as judged too, so a
        document is never asked twice).
    runs:
        The new runs (rephrased or expanded queries), or a ``RunLists``.
    strategy_name:
        The order (a fixed one such as ``depth`` or ``rrf`` makes sense offline; an adaptive
        one such as ``mtf`` answers the judgments so far and is best used live through
        :func:`~cranfield.judging.strategies.strategy`).
    budget:
        New judgments per topic (``None``: every unjudged pooled document).
    pool_depth, seed:
        As for :func:`~cranfield.judging.strategies.strategy`.

    Examples
    --------
    >>> r = next_round({"q": {"d1": 1}}, {"x": {"q": {"d1": 2.0, "d2": 1.0}}})
    >>> r.proposals, r.already
    ({'q': ['d2']}, {'q': 1})
    """
    budget = check_budget(budget)
    lists = runs if isinstance(runs, RunLists) else run_lists(runs, pool_depth=pool_depth)
    before = load_qrels(judged).to_dict()
    policy = strategy(strategy_name, lists, seed=seed)
    proposals: dict[str, list[str]] = {}
    already: dict[str, int] = {}
    for qid in sorted(lists.topics):
        topic = lists.topics[qid]
        known = before.get(qid, {})
        already[qid] = sum(1 for d in topic.docs if d in known)
        # what the strategy would ask next, with the earlier judgments as answers and each
        # new proposal answered "not relevant" (unknown yet): an order, not a live session
        view: dict[str, float] = {d: float(g) for d, g in known.items()}
        order: list[str] = []
        while (budget is None or len(order) < budget) and (
            doc := policy.propose(qid, view)
        ) is not None:
            order.append(doc)
            view[doc] = 0.0
        proposals[qid] = order
    return Round(
        strategy=strategy_name,
        proposals=proposals,
        pooled={q: len(t) for q, t in sorted(lists.topics.items())},
        already=already,
    )
