"""The click-log arrays every click model takes, checked once where they enter.

A log of ``n`` sessions (impressions) of at most ``depth`` results is three arrays over
integer codes (the data contract of issue 20, which :class:`cranfield.data.sessions.Sessions`
holds):

* ``query`` ``(n,)``: the query code of each session, ``>= 0``;
* ``shown`` ``(n, depth)``: the document code shown at each rank (rank 1 is column 0), ``-1``
  where the session showed fewer results; the shown results come first (no result after a
  ``-1``);
* ``clicked`` ``(n, depth)`` bool: at least one click on the result at that rank, never on a
  ``-1``.

:func:`click_arrays` checks them and returns a :class:`ClickArrays`, which also holds what
every model derives from them: which cells hold a result, the rank of the first and of the last
click, and for each rank the rank of the click before it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np

from cranfield.errors import InputError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["MAX_CODE", "ClickArrays", "click_arrays", "shown_arrays"]

MAX_CODE: Final = 2**31 - 1
"""Largest query or document code (a (query, document) pair is one 64-bit key)."""


@dataclass(frozen=True, eq=False)
class ClickArrays:
    """A checked click log (see the module's docstring for the meaning of each array).

    Attributes
    ----------
    query, shown, clicked:
        The arrays as given (``int64``, ``int64``, ``bool``).
    valid:
        ``(n, depth)`` bool: a result is shown in that cell.
    first_click, last_click:
        ``(n,)`` 0-based rank of the first and of the last click, ``-1`` without clicks.
    previous_click:
        ``(n, depth)`` 0-based rank of the last click above each rank, ``-1`` if none.
    """

    query: NDArray[np.int64]
    shown: NDArray[np.int64]
    clicked: NDArray[np.bool_]
    valid: NDArray[np.bool_]
    first_click: NDArray[np.int64]
    last_click: NDArray[np.int64]
    previous_click: NDArray[np.int64]

    @property
    def depth(self) -> int:
        """Number of ranks (columns)."""
        return int(self.shown.shape[1])


def _bad_row(name: str, bad: NDArray[np.bool_], problem: str) -> None:
    """Raise naming the first session (1-based row) where ``bad`` holds."""
    rows = np.flatnonzero(bad if bad.ndim == 1 else bad.any(axis=1))
    if rows.size:
        raise InputError(name, int(rows[0]) + 1, problem)


def shown_arrays(query: ArrayLike, shown: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``query`` and ``shown`` as ``int64`` arrays, checked (for prediction and simulation).

    Raises
    ------
    InputError
        A wrong shape or dtype, a negative or too large code, a ``-1`` before a shown result;
        the message names the array and the first bad session (1-based).
    """
    q = np.asarray(query)
    s = np.asarray(shown)
    for name, arr, ndim in (("query", q, 1), ("shown", s, 2)):
        if arr.ndim != ndim:
            raise InputError(name, None, f"expected a {ndim}-d array, got shape {arr.shape}")
        if arr.size and not np.issubdtype(arr.dtype, np.integer):
            raise InputError(name, None, f"expected integer codes, got dtype {arr.dtype}")
    if s.shape[0] != q.shape[0]:
        raise InputError(
            "shown", None, f"expected {q.shape[0]} rows (one per query), got {s.shape[0]}"
        )
    if s.shape[1] < 1:
        raise InputError("shown", None, "expected at least one rank (column), got 0")
    q64 = q.astype(np.int64, copy=False)
    s64 = s.astype(np.int64, copy=False)
    _bad_row("query", (q64 < 0) | (q64 > MAX_CODE), f"a query code must be in 0..{MAX_CODE}")
    _bad_row(
        "shown", (s64 < -1) | (s64 > MAX_CODE), f"a document code must be -1 or in 0..{MAX_CODE}"
    )
    valid = s64 >= 0
    _bad_row("shown", valid[:, 1:] & ~valid[:, :-1], "a shown result follows a -1 (no result)")
    return q64, s64


def click_arrays(query: ArrayLike, shown: ArrayLike, clicked: ArrayLike) -> ClickArrays:
    """Check a click log and derive the click ranks every model uses.

    Parameters
    ----------
    query:
        ``(n,)`` query codes.
    shown:
        ``(n, depth)`` document codes, ``-1`` where no result was shown (only at the end).
    clicked:
        ``(n, depth)`` bool (or 0/1 integers): the result at that rank was clicked.

    Returns
    -------
    ClickArrays

    Raises
    ------
    InputError
        A wrong shape or dtype, a bad code, or a click where no result was shown; the message
        names the array and the first bad session (1-based row).

    Examples
    --------
    >>> log = click_arrays([0, 0], [[3, 4, -1], [4, 3, 5]], [[0, 1, 0], [1, 0, 1]])
    >>> log.last_click.tolist(), log.previous_click.tolist()
    ([1, 2], [[-1, -1, 1], [-1, 0, 0]])
    """
    q, s = shown_arrays(query, shown)
    c = np.asarray(clicked)
    if c.shape != s.shape:
        raise InputError("clicked", None, f"expected shape {s.shape} like shown, got {c.shape}")
    if c.dtype != np.bool_:
        if c.size and not (np.issubdtype(c.dtype, np.integer) and np.isin(c, (0, 1)).all()):
            raise InputError("clicked", None, f"expected bool or 0/1, got dtype {c.dtype}")
        c = c.astype(np.bool_)
    valid = s >= 0
    _bad_row("clicked", c & ~valid, "a click on a rank where no result was shown (-1)")
    n, depth = s.shape
    ranks = np.arange(depth, dtype=np.int64)
    click_rank = np.where(c, ranks, -1)
    last = click_rank.max(axis=1, initial=-1)
    first = np.where(c.any(axis=1), np.argmax(c, axis=1), -1).astype(np.int64)
    previous = np.full((n, depth), -1, dtype=np.int64)
    if depth > 1:
        previous[:, 1:] = np.maximum.accumulate(click_rank, axis=1)[:, :-1]
    return ClickArrays(q, s, c, valid, first, last, previous)
