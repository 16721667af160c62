"""Search sessions from an interaction log, as numpy arrays over integer codes.

A *session* is one impression: a query, the results shown for it in rank order, and the
clicks that followed, in the order they happened. :class:`Sessions` holds many of them as
arrays, so that click metrics, click models and online tests vectorise over millions of
sessions. Ids are held once, in vocabularies (``query_ids``, ``doc_ids``, ``user_ids``,
``bucket_ids``); the arrays hold codes, positions in those vocabularies.

Read sessions from a file with :func:`cranfield.logs.read_sessions`; build them from arrays
with the constructor, which checks every array (:class:`~cranfield.errors.InputError`
naming the first session that breaks a rule).

Examples
--------
>>> import numpy as np
>>> s = Sessions(
...     query_ids=("q1", "q2"),
...     doc_ids=("a", "b", "c"),
...     query=np.array([0, 0, 1]),
...     shown=np.array([[0, 1, 2], [1, 0, 2], [2, 0, -1]]),
...     click_session=np.array([0, 0, 2]),
...     click_doc=np.array([1, 0, 2]),
... )
>>> len(s), s.depth, s.num_queries, s.num_clicks
(3, 3, 2, 3)
>>> s.clicked.astype(int).tolist()
[[1, 1, 0], [0, 0, 0], [1, 0, 0]]
>>> s.click_rank.tolist()
[1, 0, 0]
>>> len(s.for_queries(["q2"]))
1
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from cranfield.errors import InputError

if TYPE_CHECKING:
    import polars as pl
    from numpy.typing import ArrayLike, NDArray

__all__ = ["Sessions", "vocabulary"]


def _codes(values: ArrayLike, name: str, label: str, ndim: int) -> NDArray[np.int64]:
    array = np.asarray(values)
    if array.size == 0:
        array = array.astype(np.int64)
    if array.ndim != ndim:
        raise InputError(label, None, f"{name} must be a {ndim}-d array, got shape {array.shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise InputError(label, None, f"{name} must hold integer codes, got {array.dtype}")
    out = np.ascontiguousarray(array, dtype=np.int64)
    out.setflags(write=False)
    return out


def _floats(
    values: ArrayLike | None, name: str, label: str, size: int
) -> NDArray[np.float64] | None:
    if values is None:
        return None
    array = np.asarray(values)
    if array.shape != (size,) or not (
        np.issubdtype(array.dtype, np.number) and not np.issubdtype(array.dtype, np.complexfloating)
    ):
        raise InputError(
            label,
            None,
            f"{name} must be {size} real numbers, got {array.dtype} of shape {array.shape}",
        )
    out = np.ascontiguousarray(array, dtype=np.float64)
    if np.isinf(out).any():
        at = int(np.flatnonzero(np.isinf(out))[0])
        raise InputError(label, None, f"{name}[{at}] is infinite (NaN marks a missing value)")
    out.setflags(write=False)
    return out


def _first(mask: NDArray[np.bool_]) -> int:
    """The first index (of the first axis) where ``mask`` holds."""
    where = np.flatnonzero(mask.reshape(mask.shape[0], -1).any(axis=1) if mask.ndim > 1 else mask)
    return int(where[0])


@dataclass(frozen=True, eq=False)
class Sessions:
    """Search sessions (impressions): a query, the results shown, the clicks in order.

    Parameters
    ----------
    query_ids, doc_ids:
        The vocabularies: the code ``c`` of a query means ``query_ids[c]``, of a document
        ``doc_ids[c]``. Each id occurs once.
    query:
        Shape ``(n,)``: the query code of each session.
    shown:
        Shape ``(n, depth)``: the document code shown at each rank (rank 1 is column 0),
        ``-1`` after the last result of a session that showed fewer than ``depth``. A
        document is shown at most once in a session.
    click_session, click_doc:
        Shape ``(m,)``: the clicks, in the order they happened: the session (its row,
        0-based) and the document code of each. The clicks of a session are consecutive and
        sessions come in order (``click_session`` never decreases). A document may be
        clicked more than once, and may be one the session did not show (a click on
        something else on the page, as in the Yandex logs).
    click_time:
        Shape ``(m,)`` or None: seconds from the session's start (the results shown) to
        each click; NaN where not known.
    dwell:
        Shape ``(m,)`` or None: seconds spent on each clicked result; NaN where not known.
    time:
        Shape ``(n,)`` or None: when each session started, in seconds (a Unix time, say);
        NaN where not known.
    user, bucket:
        Shape ``(n,)`` or None: the user and the experiment bucket (system) of each
        session, codes into ``user_ids`` and ``bucket_ids``.
    source:
        How the sessions are named in messages (the file they were read from).

    Attributes
    ----------
    click_rank:
        Shape ``(m,)``: the 0-based rank of each click's document in its session, ``-1``
        for a click on a document that was not shown. Derived from the arrays above.
    clicked:
        Shape ``(n, depth)``, boolean: whether the result at each rank was clicked at least
        once. Derived from the clicks.

    Raises
    ------
    InputError
        If an array has the wrong shape or type, a code is outside its vocabulary, a
        vocabulary repeats an id, ``-1`` appears in a row of ``shown`` before a document, a
        session shows a document twice, or the clicks are not grouped by session in order.
        The message names the first session (row, 1-based) that breaks the rule.
    """

    query_ids: tuple[str, ...]
    doc_ids: tuple[str, ...]
    query: NDArray[np.int64]
    shown: NDArray[np.int64]
    click_session: NDArray[np.int64]
    click_doc: NDArray[np.int64]
    click_time: NDArray[np.float64] | None = None
    dwell: NDArray[np.float64] | None = None
    time: NDArray[np.float64] | None = None
    user: NDArray[np.int64] | None = None
    user_ids: tuple[str, ...] = ()
    bucket: NDArray[np.int64] | None = None
    bucket_ids: tuple[str, ...] = ()
    source: str = "<sessions>"
    click_rank: NDArray[np.int64] = field(init=False, repr=False)
    clicked: NDArray[np.bool_] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        label = self.source
        put = object.__setattr__
        for name in ("query_ids", "doc_ids", "user_ids", "bucket_ids"):
            vocabulary = tuple(str(v) for v in getattr(self, name))
            if len(set(vocabulary)) != len(vocabulary):
                raise InputError(label, None, f"{name} repeats an id")
            put(self, name, vocabulary)
        query = _codes(self.query, "query", label, 1)
        n = query.shape[0]
        shown = (
            _codes(self.shown, "shown", label, 2) if np.size(self.shown) else np.full((n, 0), -1)
        )
        shown.setflags(write=False)
        if shown.shape[0] != n:
            raise InputError(label, None, f"shown has {shown.shape[0]} rows for {n} sessions")
        self._in_range(query, len(self.query_ids), "query", 0)
        self._in_range(shown, len(self.doc_ids), "shown", -1)
        if shown.shape[1] > 1:
            gap = (shown[:, 1:] >= 0) & (shown[:, :-1] < 0)
            if gap.any():
                raise InputError(
                    label, _first(gap) + 1, "shows a document after an empty rank (-1)"
                )
            ordered = np.sort(shown, axis=1)
            twice = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)
            if twice.any():
                raise InputError(label, _first(twice) + 1, "shows a document twice")
        put(self, "query", query)
        put(self, "shown", shown)
        self._put_clicks(n, shown)
        for name, size in (
            ("click_time", self.num_clicks),
            ("dwell", self.num_clicks),
            ("time", n),
        ):
            put(self, name, _floats(getattr(self, name), name, label, size))
        for name, vocabulary in (("user", self.user_ids), ("bucket", self.bucket_ids)):
            values = getattr(self, name)
            if values is None:
                continue
            codes = _codes(values, name, label, 1)
            if codes.shape[0] != n:
                raise InputError(
                    label, None, f"{name} has {codes.shape[0]} values for {n} sessions"
                )
            self._in_range(codes, len(vocabulary), name, 0)
            put(self, name, codes)

    def _in_range(self, codes: NDArray[np.int64], size: int, name: str, low: int) -> None:
        bad = (codes < low) | (codes >= size)
        if bad.any():
            value = int(codes.reshape(-1)[np.flatnonzero(bad.reshape(-1))[0]])
            raise InputError(
                self.source,
                _first(bad) + 1,
                f"{name} holds the code {value}, outside {low}..{size - 1}",
            )

    def _put_clicks(self, n: int, shown: NDArray[np.int64]) -> None:
        label = self.source
        session = _codes(self.click_session, "click_session", label, 1)
        doc = _codes(self.click_doc, "click_doc", label, 1)
        if doc.shape != session.shape:
            raise InputError(
                label, None, f"click_doc has {doc.size} values for {session.size} clicks"
            )
        bad = (session < 0) | (session >= n)
        if bad.any():
            at = int(np.flatnonzero(bad)[0])
            raise InputError(
                label, None, f"click {at + 1} is in session {session[at]}, outside 0..{n - 1}"
            )
        back = np.flatnonzero(np.diff(session) < 0)
        if back.size:
            raise InputError(
                label,
                int(session[back[0] + 1]) + 1,
                "has a click after a click of a later session (clicks must be grouped by session, in order)",
            )
        bad = (doc < 0) | (doc >= len(self.doc_ids))
        if bad.any():
            at = int(np.flatnonzero(bad)[0])
            raise InputError(
                label,
                int(session[at]) + 1,
                f"click_doc holds the code {doc[at]}, outside 0..{len(self.doc_ids) - 1}",
            )
        hit = (
            shown[session] == doc[:, None]
            if shown.shape[1]
            else np.zeros((doc.size, 0), dtype=bool)
        )
        rank = (
            np.where(hit.any(axis=1), hit.argmax(axis=1), -1).astype(np.int64)
            if hit.size
            else np.full(doc.size, -1)
        )
        clicked = np.zeros(shown.shape, dtype=np.bool_)
        on = rank >= 0
        clicked[session[on], rank[on]] = True
        for array in (session, doc, rank, clicked):
            array.setflags(write=False)
        object.__setattr__(self, "click_session", session)
        object.__setattr__(self, "click_doc", doc)
        object.__setattr__(self, "click_rank", rank)
        object.__setattr__(self, "clicked", clicked)

    @classmethod
    def from_clicked(
        cls,
        *,
        query_ids: Sequence[str],
        doc_ids: Sequence[str],
        query: ArrayLike,
        shown: ArrayLike,
        clicked: ArrayLike,
        **optional: Any,
    ) -> Sessions:
        """Sessions whose clicks are known only as the ranks clicked (simulated users, a log
        without click order): one click on each clicked rank, in rank order, top first.

        ``optional`` takes the per-session fields (``time``, ``user``, ``user_ids``,
        ``bucket``, ``bucket_ids``, ``source``).

        Raises
        ------
        InputError
            If ``clicked`` is not a boolean array of the shape of ``shown``, or marks a rank
            where nothing was shown (and as the constructor).

        Examples
        --------
        >>> s = Sessions.from_clicked(
        ...     query_ids=("q",), doc_ids=("a", "b"), query=[0, 0],
        ...     shown=[[0, 1], [1, -1]], clicked=[[False, True], [True, False]],
        ... )
        >>> s.click_rank.tolist(), s.click_doc.tolist()
        ([1, 0], [1, 1])
        """
        label = str(optional.get("source", "<sessions>"))
        grid = np.asarray(shown)
        marks = np.asarray(clicked)
        if marks.dtype != np.bool_ or marks.shape != grid.shape:
            raise InputError(
                label,
                None,
                f"clicked must be booleans of shape {grid.shape}, got {marks.dtype} {marks.shape}",
            )
        nothing = marks & (grid < 0)
        if nothing.any():
            raise InputError(label, _first(nothing) + 1, "clicks a rank where nothing was shown")
        session, rank = np.nonzero(marks)  # row by row, ranks ascending
        return cls(
            query_ids=tuple(query_ids),
            doc_ids=tuple(doc_ids),
            query=np.asarray(query),
            shown=grid,
            click_session=session.astype(np.int64),
            click_doc=grid[session, rank].astype(np.int64),
            **optional,
        )

    def __len__(self) -> int:
        return int(self.query.shape[0])

    def __repr__(self) -> str:
        return (
            f"Sessions(source={self.source!r}, sessions={len(self)}, queries={self.num_queries}, "
            f"depth={self.depth}, clicks={self.num_clicks})"
        )

    def described(self) -> dict[str, object]:
        """What the log is, for JSON output: its source and its counts of sessions, queries,
        ranks and clicks."""
        return {
            "source": self.source,
            "sessions": len(self),
            "queries": self.num_queries,
            "depth": self.depth,
            "clicks": self.num_clicks,
        }

    @property
    def depth(self) -> int:
        """The number of ranks of :attr:`shown` (the most results a session showed)."""
        return int(self.shown.shape[1])

    @property
    def num_queries(self) -> int:
        """The number of distinct queries of the sessions."""
        return int(np.unique(self.query).size)

    @property
    def num_clicks(self) -> int:
        """The number of clicks, repeated clicks and clicks on documents not shown included."""
        return int(self.click_session.shape[0])

    @property
    def num_shown(self) -> NDArray[np.int64]:
        """Shape ``(n,)``: how many results each session showed."""
        counts: NDArray[np.int64] = (self.shown >= 0).sum(axis=1, dtype=np.int64)
        return counts

    @property
    def clicks_per_session(self) -> NDArray[np.int64]:
        """Shape ``(n,)``: how many clicks each session had (every click counted)."""
        return np.bincount(self.click_session, minlength=len(self)).astype(np.int64)

    @property
    def click_start(self) -> NDArray[np.int64]:
        """Shape ``(n + 1,)``: the clicks of session ``i`` are ``click_start[i]:click_start[i + 1]``."""
        start = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(self.clicks_per_session, out=start[1:])
        return start

    def select(self, which: ArrayLike) -> Sessions:
        """The sessions picked by ``which``: a boolean mask of shape ``(n,)`` or session
        indices (in the order given, each at most once). Vocabularies are kept whole, so
        codes mean the same in the selection (a train/test split shares them).

        Raises
        ------
        InputError
            If a mask has the wrong length, or an index is out of range or repeated.
        """
        picked = np.asarray(which)
        n = len(self)
        if picked.dtype == np.bool_:
            if picked.shape != (n,):
                raise InputError(
                    self.source,
                    None,
                    f"a selection mask must have shape ({n},), got {picked.shape}",
                )
            rows = np.flatnonzero(picked)
        else:
            rows = _codes(picked, "a selection", self.source, 1)
            if ((rows < 0) | (rows >= n)).any() or np.unique(rows).size != rows.size:
                raise InputError(
                    self.source,
                    None,
                    f"a selection must hold distinct session indices in 0..{n - 1}",
                )
        new_row = np.full(n, -1, dtype=np.int64)
        new_row[rows] = np.arange(rows.size)
        # clicks of the picked sessions, grouped in the new order of their sessions
        start = self.click_start
        counts = start[rows + 1] - start[rows]
        offsets = np.repeat(start[rows] - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
        take = np.arange(int(counts.sum()), dtype=np.int64) + offsets
        return Sessions(
            query_ids=self.query_ids,
            doc_ids=self.doc_ids,
            query=self.query[rows],
            shown=self.shown[rows],
            click_session=new_row[self.click_session[take]],
            click_doc=self.click_doc[take],
            click_time=None if self.click_time is None else self.click_time[take],
            dwell=None if self.dwell is None else self.dwell[take],
            time=None if self.time is None else self.time[rows],
            user=None if self.user is None else self.user[rows],
            user_ids=self.user_ids,
            bucket=None if self.bucket is None else self.bucket[rows],
            bucket_ids=self.bucket_ids,
            source=self.source,
        )

    def recoded(self, query_ids: Sequence[str] = (), doc_ids: Sequence[str] = ()) -> Sessions:
        """The same sessions over vocabularies that begin with ``query_ids`` and ``doc_ids``.

        Two logs read from two files code their ids each in its own order, so a code means
        one thing in the training log and another in the test log. ``test.recoded(
        train.query_ids, train.doc_ids)`` codes the test sessions as the training ones: an id
        both know gets its training code, an id only the test log has (an unseen query or
        document) a code past the training vocabulary, in order of its code here, which a
        model fitted on the training codes gives its prior. Users and buckets keep their
        codes.

        Raises
        ------
        InputError
            If ``query_ids`` or ``doc_ids`` repeats an id.

        Examples
        --------
        >>> s = Sessions(query_ids=("q2",), doc_ids=("c", "a"), query=[0], shown=[[0, 1]],
        ...              click_session=[0], click_doc=[1])
        >>> r = s.recoded(["q1", "q2"], ["a", "b"])
        >>> r.query.tolist(), r.shown.tolist(), r.doc_ids, r.click_doc.tolist()
        ([1], [[2, 0]], ('a', 'b', 'c'), [0])
        """
        queries, query_code = _extended(self.query_ids, query_ids)
        docs, doc_code = _extended(self.doc_ids, doc_ids)
        shown = np.where(self.shown >= 0, np.append(doc_code, -1)[self.shown], -1)
        return Sessions(
            query_ids=queries,
            doc_ids=docs,
            query=query_code[self.query],
            shown=shown,
            click_session=self.click_session,
            click_doc=doc_code[self.click_doc],
            click_time=self.click_time,
            dwell=self.dwell,
            time=self.time,
            user=self.user,
            user_ids=self.user_ids,
            bucket=self.bucket,
            bucket_ids=self.bucket_ids,
            source=self.source,
        )

    def for_queries(self, query_ids: str | Iterable[str]) -> Sessions:
        """The sessions of the given queries (one id or several; ids not in the log select
        nothing), in their order in the log."""
        wanted = {query_ids} if isinstance(query_ids, str) else set(query_ids)
        codes = np.array([i for i, q in enumerate(self.query_ids) if q in wanted], dtype=np.int64)
        return self.select(np.isin(self.query, codes))

    def to_polars(self) -> pl.DataFrame:
        """One row per session, in the layout of :mod:`cranfield.io.click_logs`'s files.

        Columns: ``query_id`` (string), ``shown`` (list of doc ids, rank order), ``clicks``
        (list of clicked doc ids, in click order), and only when the sessions have them
        ``click_times``, ``dwell_times`` (lists of floats, null where not known), ``time``
        (float), ``user`` and ``bucket`` (strings).
        """
        import polars as pl  # imported on first use, as by cranfield.data

        n = len(self)

        def ids(vocabulary: tuple[str, ...], codes: NDArray[np.int64]) -> pl.Series:
            # codes into a categorical-like lookup: one gather of the vocabulary's strings
            return (
                pl.Series(list(vocabulary), dtype=pl.String).gather(codes)
                if n
                else pl.Series([], dtype=pl.String)
            )

        def lists(values: pl.Series, owner: NDArray[np.int64]) -> pl.Series:
            # each session's values, in order, as one list (an empty list for none)
            grouped = (
                pl.DataFrame({"session": owner, "value": values})
                .group_by("session", maintain_order=True)
                .agg(pl.col("value"))
            )
            every = pl.DataFrame({"session": np.arange(n, dtype=np.int64)})
            joined = every.join(grouped, on="session", how="left", maintain_order="left")
            empty = pl.lit([], dtype=pl.List(values.dtype))
            return joined.select(pl.col("value").fill_null(empty)).to_series()

        on = self.shown >= 0
        columns: dict[str, Any] = {
            "query_id": ids(self.query_ids, self.query),
            "shown": ids(self.doc_ids, np.where(on, self.shown, 0).reshape(-1))
            .set(pl.Series(~on.reshape(-1)), None)
            .reshape((n, self.depth))
            .cast(pl.List(pl.String))
            .list.drop_nulls()
            if n and self.depth
            else pl.Series([[]] * n, dtype=pl.List(pl.String)),
            "clicks": lists(ids(self.doc_ids, self.click_doc), self.click_session),
        }
        for name, values in (("click_times", self.click_time), ("dwell_times", self.dwell)):
            if values is not None:
                times = pl.Series(values, dtype=pl.Float64).fill_nan(None)
                columns[name] = lists(times, self.click_session)
        if self.time is not None:
            columns["time"] = pl.Series(self.time, dtype=pl.Float64).fill_nan(None)
        for name, codes, vocabulary in (
            ("user", self.user, self.user_ids),
            ("bucket", self.bucket, self.bucket_ids),
        ):
            if codes is not None:
                columns[name] = ids(vocabulary, codes)
        return pl.DataFrame(columns)

    def arrays(self) -> dict[str, NDArray[Any]]:
        """The arrays the click models and online tests take: ``query``, ``shown``,
        ``clicked``, ``click_session``, ``click_rank`` (and ``click_time``, ``dwell`` when
        known)."""
        out: dict[str, NDArray[Any]] = {
            "query": self.query,
            "shown": self.shown,
            "clicked": self.clicked,
            "click_session": self.click_session,
            "click_rank": self.click_rank,
        }
        if self.click_time is not None:
            out["click_time"] = self.click_time
        if self.dwell is not None:
            out["dwell"] = self.dwell
        return out


def _extended(
    own: tuple[str, ...], first: Sequence[str]
) -> tuple[tuple[str, ...], NDArray[np.int64]]:
    """``first`` followed by the ids of ``own`` it lacks, and the new code of each old code."""
    codes: dict[str, int] = {}
    for value in first:
        if codes.setdefault(str(value), len(codes)) != len(codes) - 1:
            raise InputError("<vocabulary>", None, f"the vocabulary repeats the id {value!r}")
    new = np.fromiter(
        (codes.setdefault(v, len(codes)) for v in own), dtype=np.int64, count=len(own)
    )
    return tuple(codes), new


def vocabulary(values: Sequence[str]) -> tuple[tuple[str, ...], NDArray[np.int64]]:
    """The distinct values in order of first appearance and each value's code.

    Examples
    --------
    >>> vocabulary(["b", "a", "b"])
    (('b', 'a'), array([0, 1, 0]))
    """
    codes: dict[str, int] = {}
    out = np.fromiter(
        (codes.setdefault(v, len(codes)) for v in values), dtype=np.int64, count=len(values)
    )
    return tuple(codes), out
