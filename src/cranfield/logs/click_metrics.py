"""Click metrics of a log: what users did with the results, per query, per bucket and overall.

Every metric is first a value per session (impression), then averaged over the sessions of
each group (a query, a bucket) and over all sessions (``overall``: every session counts
once, so a frequent query weighs more). A value a session does not have (the time to its
first click when it has no click) is left out of its averages, never counted as 0; the
metric is NaN for a group without any such session. The definitions, also returned as
:attr:`ClickMetrics.notes` (Radlinski, Kurup & Joachims, *How does clickthrough data reflect
retrieval quality?*, CIKM 2008; Chuklin, Markov & de Rijke, *Click Models for Web Search*,
2015, chapter 2):

* A *click* is a click on a result the session showed; clicks on something the session did
  not show (a document not among its results, as in the Yandex logs) count only in
  ``unshown_clicks``. A result clicked again is clicked once for the click-through rates and
  each time for ``clicks``.
* ``ctr``: the share of sessions with at least one click (not clicks over impressions);
  ``ctr@k``: with at least one click on ranks 1..k.
* ``abandonment``: the share of sessions without a click, ``1 - ctr`` (a session whose only
  clicks are on documents it did not show is abandoned).
* ``clicks``: clicks per session, repeated clicks counted; ``unshown_clicks``: clicks per
  session on documents not shown.
* ``rr_first``, ``rr_last``: 1/rank of the first and of the last click in time, 0 for a
  session without a click; ``rr_max``: 1/rank of the highest-ranked click (Radlinski et al.'s
  *max reciprocal rank*), 0 without a click.
* ``time_to_first_click``, ``time_to_last_click`` (seconds from the session's start, logs
  with click times only): over the sessions with a click whose time is known.
* ``sat_ctr``, ``sat_clicks`` (logs with dwell times only): the share of sessions with a
  *satisfied* click (dwell >= the threshold, 30 s by default, the usual convention after Fox
  et al., TOIS 2005), and satisfied clicks per session; a click of unknown dwell is not
  satisfied.
* The position-bias curve (:attr:`ClickMetrics.rank_ctr`): at each rank, the share of the
  sessions that showed a result there in which it was clicked.

Examples
--------
>>> import numpy as np
>>> from cranfield.data.sessions import Sessions
>>> s = Sessions(
...     query_ids=("q",), doc_ids=("a", "b", "x"), query=np.array([0, 0]),
...     shown=np.array([[0, 1], [1, 0]]),
...     click_session=np.array([0, 0, 0]), click_doc=np.array([1, 0, 2]),
... )
>>> m = click_metrics(s, k=(1,))
>>> m.overall["ctr"], m.overall["ctr@1"], m.overall["rr_first"], m.overall["rr_last"]
(0.5, 0.5, 0.25, 0.5)
>>> m.rank_ctr.tolist()
[0.5, 0.5]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

import numpy as np

from cranfield._validate import check_choice, check_float, check_int
from cranfield.errors import OptionError

if TYPE_CHECKING:
    import polars as pl
    from numpy.typing import NDArray

    from cranfield.data.sessions import Sessions

__all__ = [
    "DEFAULT_DWELL",
    "DEFAULT_K",
    "ClickMetrics",
    "check_options",
    "click_metrics",
    "session_metrics",
]

DEFAULT_K: Final = (1, 3, 5, 10)
"""The cutoffs of ``ctr@k`` by default."""
DEFAULT_DWELL: Final = 30.0
"""The dwell time, in seconds, from which a click is satisfied, by default."""

GroupBy = Literal["query", "bucket"]

NOTES: Final = (
    "A click is a click on a shown result; clicks on documents a session did not show count "
    "only in unshown_clicks.",
    "ctr: share of sessions with >= 1 click; ctr@k: with >= 1 click on ranks 1..k; "
    "abandonment = 1 - ctr.",
    "clicks: clicks per session, repeated clicks counted.",
    "rr_first, rr_last: 1/rank of the first and last click in time; rr_max: of the "
    "highest-ranked click; 0 without a click.",
    "Averages are over sessions (overall: every session once); a value a session lacks (a time "
    "without a click) is left out.",
)
_TIME_NOTE: Final = (
    "time_to_first_click, time_to_last_click: seconds from the session's start, over sessions "
    "with a timed click."
)


def _sat_note(dwell: float) -> str:
    return (
        f"sat_ctr, sat_clicks: a click is satisfied when its dwell is >= {dwell:g} s; a click of "
        "unknown dwell is not."
    )


def session_metrics(
    sessions: Sessions, *, k: Iterable[int] | int = DEFAULT_K, dwell: float = DEFAULT_DWELL
) -> dict[str, NDArray[np.float64]]:
    """Each metric's value per session (shape ``(n,)``, NaN where a session has none), in
    the order :func:`click_metrics` reports them (see the module notes).

    Raises
    ------
    OptionError
        If a cutoff is not an integer >= 1, or ``dwell`` not a number >= 0.
    """
    cutoffs, threshold = check_options(k=k, dwell=dwell)
    n = len(sessions)
    clicked = sessions.clicked
    on = sessions.click_rank >= 0
    session = sessions.click_session[on]
    rank = sessions.click_rank[on]
    out: dict[str, NDArray[np.float64]] = {}
    any_click = np.asarray(clicked.any(axis=1), dtype=np.bool_)
    out["ctr"] = any_click.astype(np.float64)
    for cutoff in cutoffs:
        out[f"ctr@{cutoff}"] = np.asarray(clicked[:, :cutoff].any(axis=1), dtype=np.float64)
    out["abandonment"] = (~any_click).astype(np.float64)
    out["clicks"] = np.bincount(session, minlength=n).astype(np.float64)
    out["unshown_clicks"] = np.bincount(sessions.click_session[~on], minlength=n).astype(np.float64)
    # the clicks are grouped by session in time order: a session's first and last are where
    # the session starts and ends in the flat arrays
    first, last = _ends(session)
    for name, at in (("rr_first", first), ("rr_last", last)):
        values = np.zeros(n)
        values[session[at]] = 1.0 / (rank[at] + 1)
        out[name] = values
    top = clicked.argmax(axis=1) if clicked.size else np.zeros(n, dtype=np.int64)
    out["rr_max"] = np.where(any_click, 1.0 / (top + 1), 0.0)
    if sessions.click_time is not None:
        times = sessions.click_time[on]
        for name, at in (("time_to_first_click", first), ("time_to_last_click", last)):
            values = np.full(n, np.nan)
            values[session[at]] = times[at]
            out[name] = values
    if sessions.dwell is not None:
        satisfied = sessions.dwell[on] >= threshold  # NaN (unknown) compares False
        count = np.bincount(session[satisfied], minlength=n).astype(np.float64)
        out["sat_ctr"] = (count > 0).astype(np.float64)
        out["sat_clicks"] = count
    return out


def _ends(session: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The index of the first and of the last element of each run of equal values."""
    if session.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    change = np.flatnonzero(np.diff(session)) + 1
    first = np.concatenate(([0], change)).astype(np.int64)
    last = np.concatenate((change - 1, [session.size - 1])).astype(np.int64)
    return first, last


def check_options(
    *, k: Iterable[int] | int = DEFAULT_K, dwell: float = DEFAULT_DWELL
) -> tuple[tuple[int, ...], float]:
    """The cutoffs (distinct, ascending) and the dwell threshold, checked, before any log is
    read.

    Raises
    ------
    OptionError
        If a cutoff is not an integer >= 1, or ``dwell`` not a number >= 0.
    """
    values = [k] if isinstance(k, int) else list(k)
    for value in values:
        check_int("k", value, minimum=1)
    return tuple(sorted(set(values))), check_float("dwell", dwell, minimum=0.0)


@dataclass(frozen=True, eq=False)
class ClickMetrics:
    """Click metrics of a log (see :mod:`cranfield.logs.click_metrics` for the definitions).

    Attributes
    ----------
    by:
        What the groups are: ``"query"``, ``"bucket"``, or None (only ``overall``).
    groups:
        The group ids (queries or buckets, in order of their codes), empty if ``by`` is None.
    sessions:
        Shape ``(len(groups),)``: the sessions of each group.
    values:
        Each metric's value per group (shape ``(len(groups),)``).
    overall:
        Each metric over all sessions.
    num_sessions:
        The number of sessions of the log.
    rank_ctr:
        Shape ``(depth,)``: the position-bias curve over all sessions (CTR by rank).
    group_rank_ctr:
        Shape ``(len(groups), depth)``: the curve of each group (NaN at a rank a group never
        showed).
    notes:
        The definitions, in sentences.
    """

    by: GroupBy | None
    groups: tuple[str, ...]
    sessions: NDArray[np.int64]
    values: dict[str, NDArray[np.float64]]
    overall: dict[str, float]
    num_sessions: int
    rank_ctr: NDArray[np.float64]
    group_rank_ctr: NDArray[np.float64]
    notes: tuple[str, ...]

    @property
    def metrics(self) -> tuple[str, ...]:
        """The names of the metrics, in order."""
        return tuple(self.values)

    def to_polars(self) -> pl.DataFrame:
        """One row per group (a query or bucket column, ``sessions``, then each metric);
        with no groups, one row of the overall values."""
        import polars as pl  # imported on first use

        if self.by is None:
            return pl.DataFrame(
                {"sessions": [self.num_sessions], **{k: [v] for k, v in self.overall.items()}}
            )
        columns: dict[str, Any] = {self.by: list(self.groups), "sessions": self.sessions}
        columns.update(self.values)
        return pl.DataFrame(columns)

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON: ``sessions``, ``overall``, ``rank_ctr``, the groups with
        their values and curves, and ``notes``; NaN is None."""

        def plain(x: float) -> float | None:
            return None if np.isnan(x) else float(x)

        out: dict[str, Any] = {
            "sessions": self.num_sessions,
            "overall": {k: plain(v) for k, v in self.overall.items()},
            "rank_ctr": [plain(v) for v in self.rank_ctr],
        }
        if self.by is not None:
            out["by"] = self.by
            out["groups"] = [
                {
                    self.by: group,
                    "sessions": int(self.sessions[i]),
                    **{m: plain(v[i]) for m, v in self.values.items()},
                    "rank_ctr": [plain(v) for v in self.group_rank_ctr[i]],
                }
                for i, group in enumerate(self.groups)
            ]
        out["notes"] = list(self.notes)
        return out


def click_metrics(
    sessions: Sessions,
    *,
    by: GroupBy | None = None,
    k: Iterable[int] | int = DEFAULT_K,
    dwell: float = DEFAULT_DWELL,
) -> ClickMetrics:
    """The click metrics of ``sessions``, overall and per query or bucket.

    Parameters
    ----------
    sessions:
        The log.
    by:
        ``"query"`` or ``"bucket"`` for values per group as well, None for overall only.
    k:
        The cutoffs of ``ctr@k`` (an integer or several).
    dwell:
        The dwell time in seconds from which a click is satisfied (logs with dwell times).

    Raises
    ------
    OptionError
        If ``by`` is not one of its choices (or is ``"bucket"`` for a log without buckets),
        a cutoff is not an integer >= 1, or ``dwell`` is not a number >= 0.
    """
    if by is not None:
        check_choice("by", by, ("query", "bucket"))
    per_session = session_metrics(sessions, k=k, dwell=dwell)
    notes = list(NOTES)
    if sessions.click_time is not None:
        notes.append(_TIME_NOTE)
    if sessions.dwell is not None:
        notes.append(_sat_note(dwell))
    everyone = np.zeros(len(sessions), dtype=np.int64)
    overall = {name: float(_means(values, everyone, 1)[0]) for name, values in per_session.items()}
    rank_ctr = _rank_ctr(sessions, everyone, 1)[0]
    if by is None:
        codes, groups = everyone[:0], tuple[str, ...]()
        values: dict[str, NDArray[np.float64]] = {}
        group_curve = np.zeros((0, sessions.depth))
        counts = np.zeros(0, dtype=np.int64)
    else:
        codes, groups = _group_codes(sessions, by)
        size = len(groups)
        values = {name: _means(v, codes, size) for name, v in per_session.items()}
        group_curve = _rank_ctr(sessions, codes, size)
        counts = np.bincount(codes, minlength=size).astype(np.int64)
    return ClickMetrics(
        by=by,
        groups=groups,
        sessions=counts,
        values=values,
        overall=overall,
        num_sessions=len(sessions),
        rank_ctr=rank_ctr,
        group_rank_ctr=group_curve,
        notes=tuple(notes),
    )


def _group_codes(sessions: Sessions, by: GroupBy) -> tuple[NDArray[np.int64], tuple[str, ...]]:
    if by == "query":
        return sessions.query, sessions.query_ids
    if sessions.bucket is None:
        raise OptionError("by", "'query' for a log without buckets", by)
    return sessions.bucket, sessions.bucket_ids


def _means(values: NDArray[np.float64], codes: NDArray[np.int64], size: int) -> NDArray[np.float64]:
    """The mean of ``values`` in each group, NaN values left out (NaN for a group without any)."""
    known = ~np.isnan(values)
    total = np.bincount(codes[known], weights=values[known], minlength=size)
    count = np.bincount(codes[known], minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        means: NDArray[np.float64] = total / count
    return means


def _rank_ctr(sessions: Sessions, codes: NDArray[np.int64], size: int) -> NDArray[np.float64]:
    """Shape ``(size, depth)``: per group, the share of sessions showing a result at each rank
    in which it was clicked."""
    depth = sessions.depth
    shown = np.zeros((size, depth))
    clicked = np.zeros((size, depth))
    for rank in range(depth):
        shown[:, rank] = np.bincount(codes, weights=sessions.shown[:, rank] >= 0, minlength=size)
        clicked[:, rank] = np.bincount(codes, weights=sessions.clicked[:, rank], minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        curve: NDArray[np.float64] = clicked / shown
    return curve
