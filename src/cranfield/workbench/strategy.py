"""Which document an assessor judges next: the :class:`Strategy` protocol and the default order.

A strategy is any object with ``propose(query_id, judged) -> doc_id | None``: given what the
assessor has done on the topic so far (``{doc_id: label}``; a skipped document is there with
``nan``, seen but not labelled), the pooled document to show next, or ``None`` when the topic
is done for this assessor. The adjudication strategies of :mod:`cranfield.judging` follow it;
the workbench needs nothing else of them. A strategy may only propose a pooled document the
assessor has not done yet (the workbench checks, and refuses another). The protocol has one
home, :class:`cranfield.judging.strategies.Strategy`; it is named here too, for the
workbench's users.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cranfield.judging.strategies import Strategy

__all__ = ["PoolOrder", "Strategy"]


class PoolOrder:
    """The default strategy: each topic's pool in a fixed order (the pool shuffled by the
    project's seed, :meth:`cranfield.lab.pooling.Pool.shuffled`), the first document not
    done yet.

    Examples
    --------
    >>> order = PoolOrder({"q1": ["d2", "d3", "d1"]})
    >>> order.propose("q1", {"d2": 1.0}), order.propose("q1", {"d2": 1, "d3": 0, "d1": 2})
    ('d3', None)
    """

    name = "pool"

    def __init__(self, order: Mapping[str, Sequence[str]]) -> None:
        self._order = {q: tuple(docs) for q, docs in order.items()}

    def propose(self, query_id: str, judged: Mapping[str, float]) -> str | None:
        """The first document of ``query_id``'s order that is not in ``judged``."""
        return next((d for d in self._order.get(query_id, ()) if d not in judged), None)
