"""How many judged queries a run answers, and when that is too few to be meant.

A run and qrels that share **no** query id cannot have been meant for each other (the DL19
run against the DL20 qrels): :func:`check_overlap` raises an
:class:`~cranfield.errors.EvaluationError` naming both and a few ids of each. A run that
answers fewer than half of the judged queries is evaluated, with a
:class:`~cranfield.errors.QueryOverlapWarning` and the same sentence in the results' policy
note (:func:`partial_overlap`). An empty run is neither: there is nothing to compare.

``cranfield trec-eval`` keeps trec_eval's behaviour and never comes here.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from cranfield.errors import EvaluationError, QueryOverlapWarning

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["check_overlap", "no_shared_query", "partial_overlap"]

SHOWN = 3
"""How many query ids of each side a message names."""


def partial_overlap(judged: int, answered: int) -> str | None:
    """The sentence saying that a run answers fewer than half of the ``judged`` queries, or
    ``None`` when it answers at least half (or none: that is an error, not a note).

    Examples
    --------
    >>> partial_overlap(43, 10)
    'The run answers only 10 of the 43 judged queries (23%): wrong qrels file?'
    >>> partial_overlap(43, 22) is None
    True
    """
    if answered == 0 or 2 * answered >= judged:
        return None
    share = 100 * answered / judged
    return (
        f"The run answers only {answered} of the {judged} judged queries ({share:.0f}%): "
        "wrong qrels file?"
    )


def _some(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(q) for q in ids[:SHOWN])
    return f"{shown}, ..." if len(ids) > SHOWN else shown


def no_shared_query(
    run: str, run_ids: Sequence[str] | None, qrels: str, judged: Sequence[str]
) -> EvaluationError:
    """The error of a run and qrels without a query id in common.

    Examples
    --------
    >>> str(no_shared_query("run.txt", ["1", "2"], "qrels.txt", ["7", "8", "9", "10"]))
    "run.txt and qrels.txt share no query id: the run has 2 queries ('1', '2'), the qrels 4 ('7', '8', '9', ...). Wrong qrels file?"
    """  # noqa: E501
    if run_ids is None:  # standard input, read once
        return EvaluationError(
            f"{run} and {qrels} share no query id (the run was read from standard input: "
            f"its queries cannot be listed); the qrels have {len(judged)} ({_some(judged)}). "
            "Wrong qrels file?"
        )
    return EvaluationError(
        f"{run} and {qrels} share no query id: the run has {len(run_ids)} queries "
        f"({_some(run_ids)}), the qrels {len(judged)} ({_some(judged)}). Wrong qrels file?"
    )


def check_overlap(
    judged: Sequence[str],
    answered: int,
    *,
    run: str,
    qrels: str,
    run_ids: Callable[[], Sequence[str] | None],
) -> None:
    """Raise or warn when a run answers none or fewer than half of the ``judged`` queries.

    Parameters
    ----------
    judged:
        The qrels' query ids, bytewise order.
    answered:
        How many of them the run has a line for.
    run, qrels:
        How messages name the two inputs (paths, or a run's name).
    run_ids:
        The run's query ids, asked for only when the two share none (the error names some);
        ``None`` when they cannot be read again (standard input).

    Raises
    ------
    EvaluationError
        When the run has queries and none of them is judged.

    Warns
    -----
    QueryOverlapWarning
        When the run answers fewer than half of the judged queries.
    """
    if not judged:
        return
    if answered == 0:
        ids = run_ids()
        if ids is None or ids:
            raise no_shared_query(run, ids, qrels, judged)
        return
    note = partial_overlap(len(judged), answered)
    if note is not None:
        warnings.warn(f"{run} against {qrels}: {note}", QueryOverlapWarning, stacklevel=4)
