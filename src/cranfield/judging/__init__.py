"""``cranfield.judging``: judging on a budget.

Which documents to judge (:mod:`~cranfield.judging.strategies`: online adjudication policies
behind one :class:`Strategy` interface), how well a strategy does when replayed against
complete judgments (:mod:`~cranfield.judging.simulation`), what a sample of judgments can
estimate (:mod:`~cranfield.judging.sampling`, :mod:`~cranfield.judging.estimators`), what
the runs say with no judgments at all (:mod:`~cranfield.judging.pseudo_qrels`), and judging
again after the query was rephrased (:mod:`~cranfield.judging.iterative`).
"""

from cranfield.judging.pools import RunLists, TopicLists, run_lists
from cranfield.judging.strategies import STRATEGIES, Strategy, allocate_budget, strategy

__all__ = [
    "STRATEGIES",
    "RunLists",
    "Strategy",
    "TopicLists",
    "allocate_budget",
    "run_lists",
    "strategy",
]
