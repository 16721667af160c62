"""Interaction logs read and written: search sessions in the WSCD text format, JSON Lines,
CSV, TSV or Parquet, as :class:`~cranfield.data.sessions.Sessions`.

Every source is opened by :mod:`cranfield.io.source` (a path or ``-``, compressed or not).
Every malformed session is an :class:`~cranfield.errors.InputError` naming the file, the
line (or, in Parquet, the row) and what was wrong; nothing is skipped.

The WSCD text format
--------------------
The format of the Yandex Web Search Click Data samples distributed with PyClick: sessions
separated by ``;`` (a line end also ends a session), each

::

    QUERY_ID<TAB>DOC,DOC,...,DOC : CLICKED , CLICKED , ...

the documents shown in rank order, then after ``:`` the clicked documents in the order of
the clicks (none: an abandoned session). Blanks around ids, commas, ``:`` and ``;`` are
ignored, and so is a session that is only blanks (the text between the last ``;`` of a line
and its end). A clicked document may be clicked again and may be one that was not shown
(kept as a click at rank -1). A session showing a document twice, an empty id, an id with a
blank inside, or a second ``:`` is an error naming the session (its number, counting from 1
in the file) and its line.

These files hold a few very long lines (a whole log on one line is allowed), so they are
read as a stream of sessions, not of lines: the longest-line limit of
:mod:`cranfield.io.limits` (``CRANFIELD_MAX_LINE_BYTES``, 1 MiB by default) bounds each
*session* instead, and memory holds the sessions read, never the text.

Tables: one row per session
---------------------------
JSON Lines, CSV, TSV and Parquet hold one session per row (and per line in the text
formats), with these columns (names exact; any other column is an error):

================  =============================================================  ========
column            holds                                                          needed
================  =============================================================  ========
``query_id``      the query (a string or an integer)                             yes
``shown``         the documents shown, in rank order                             yes
``clicks``        the clicked documents, in the order of the clicks (null:       yes
                  none)
``click_times``   seconds from the session's start to each click, one per        no
                  click
``dwell_times``   seconds spent on each clicked document, one per click          no
``time``          when the session started, in seconds (a Unix time, say)        no
``user``          the user (a string or an integer)                              no
``bucket``        the experiment bucket or system (a string or an integer)       no
``session_id``    an id of the session: read and not kept (rows are sessions)    no
================  =============================================================  ========

In JSON Lines and Parquet, ``shown``, ``clicks``, ``click_times`` and ``dwell_times`` are
lists (of strings or integers, of numbers); in CSV and TSV they are one field each with the
values separated by blanks (``d1 d2 d3``), so ids there cannot hold a blank. A null time
inside a list (an empty value in CSV cannot be one: leave the list out) is a time not known;
a list of times must have one value per click. Times and dwell times are finite numbers
``>= 0``: a NaN written in the file is refused like an infinite or negative time (a null, not
NaN, says a time is not known). :func:`write_sessions` writes the format the file's suffix
names.

Examples
--------
>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "clicks.txt"
>>> _ = path.write_text("7_0\\ta,b,c : b , x , b; 7_0\\ta,c,b :; \\n8_1\\tc,d : c ;\\n")
>>> s = read_sessions(path)
>>> len(s), s.num_queries, s.click_rank.tolist()
(3, 2, [1, -1, 1, 0])
>>> write_sessions(s, path.with_suffix(".jsonl"))
>>> print(path.with_suffix(".jsonl").read_text().splitlines()[0])
{"query_id":"7_0","shown":["a","b","c"],"clicks":["b","x","b"]}
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Final, Literal

import numpy as np
import polars as pl

from cranfield._types import LOG_FORMATS, LogFormat
from cranfield._validate import check_choice
from cranfield.data.sessions import Sessions
from cranfield.errors import InputError
from cranfield.io.formats import read_delimited, table_format_of_name
from cranfield.io.limits import LINE_BYTES_VARIABLE, max_line_bytes, size_in_words
from cranfield.io.sink import write_bytes
from cranfield.io.source import (
    open_source,
    read_bytes,
    read_head,
    regular_file,
    short_lines,
    source_name,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "COLUMNS",
    "detect_log_format",
    "read_sessions",
    "sessions_from_frame",
    "write_sessions",
]

COLUMNS: Final = (
    "query_id",
    "shown",
    "clicks",
    "click_times",
    "dwell_times",
    "time",
    "user",
    "bucket",
    "session_id",
)
"""The columns of a table of sessions, in the order :func:`write_sessions` writes them."""
_REQUIRED: Final = ("query_id", "shown", "clicks")
_ID_LISTS: Final = ("shown", "clicks")
_TIME_LISTS: Final = ("click_times", "dwell_times")
_CHUNK: Final = 1 << 20
_WSCD_START: Final = re.compile(rb"\s*[^\s;]+\t[^\n:;]*:")
_HEAD: Final = 1 << 16


def read_sessions(source: str | Path, *, format: LogFormat | None = None) -> Sessions:
    """The sessions of an interaction log.

    Parameters
    ----------
    source:
        A path, or ``-`` for standard input; compressed or not.
    format:
        ``"wscd"``, ``"jsonl"``, ``"csv"``, ``"tsv"`` or ``"parquet"`` (see the module
        notes); None detects it (:func:`detect_log_format`).

    Raises
    ------
    InputError
        If the source cannot be read or a session is malformed (naming the line or row).
    OptionError
        If ``format`` is not one of the formats.
    """
    name = source_name(source)
    chosen = detect_log_format(source) if format is None else format
    check_choice("format", chosen, LOG_FORMATS)
    if chosen == "wscd":
        with open_source(source) as stream:
            return _read_wscd(stream, name)
    if chosen == "parquet":
        return _read_parquet(read_bytes(source, lines=False), name)
    return _read_text_table(read_bytes(source), name, chosen)


def detect_log_format(source: str | Path) -> LogFormat:
    """The format of a log: by the name's suffix (``.jsonl``, ``.ndjson``, ``.csv``,
    ``.tsv``, ``.parquet``, ``.pq``, also before ``.gz``, ``.bz2``, ``.xz``, ``.zst``), else
    by its first bytes: a ``{`` starts JSON Lines, ``QUERY<TAB>... :`` WSCD text, and a
    header line naming ``query_id`` CSV or TSV by its separator.

    Raises
    ------
    InputError
        If the format cannot be told (standard input or a pipe must be given a format,
        since looking at its head would lose it).
    """
    name = source_name(source)
    found = table_format_of_name(source)
    if found is not None:
        return found
    if str(source) == "-" or (os.path.exists(source) and not regular_file(source)):
        problem = "is read once, so its format cannot be detected from its first bytes; give it"
        raise InputError(
            name,
            None,
            f"{problem} (format=, one of {', '.join(LOG_FORMATS)})",
            command_line_problem=f"{problem} with --log-format",
        )
    head, _ = read_head(source, _HEAD)
    if head.startswith(b"PAR1"):
        return "parquet"
    if head.lstrip().startswith(b"{"):
        return "jsonl"
    if _WSCD_START.match(head):
        return "wscd"
    first = head.lstrip().split(b"\n", 1)[0]
    if b"query_id" in first:
        return "tsv" if b"\t" in first else "csv"
    raise InputError(
        name,
        None,
        "is not a click log cranfield recognises (WSCD text, or JSON Lines, CSV, TSV or Parquet "
        "with a query_id column); give its format",
    )


# -- WSCD text ------------------------------------------------------------------------


def _records(stream: BinaryIO, name: str) -> Iterator[tuple[bytes, int]]:
    """The sessions of WSCD text (the text between ``;`` or line ends, blanks included)
    with the line each is on, read a piece at a time; a session longer than the longest
    line allowed is an error."""
    limit = max_line_bytes()
    line = 1
    carry = b""
    sessions = 0  # sessions (records that are not blank) so far, for the error of a long one

    def too_long(at: int) -> InputError:
        return InputError(
            name,
            at,
            f"session {sessions + 1} is longer than {size_in_words(limit)}, the longest session "
            f"cranfield reads (raise the limit with the environment variable {LINE_BYTES_VARIABLE})",
        )

    while True:
        chunk = stream.read(_CHUNK)
        data = carry + chunk if carry else chunk
        if not chunk:
            if len(data) > limit:
                raise too_long(line)
            yield data, line
            return
        cut = max(data.rfind(b";"), data.rfind(b"\n"))
        if cut < 0:
            if len(data) > limit:
                raise too_long(line)
            carry = data
            continue
        body, carry = data[:cut], data[cut + 1 :]
        for number, segment in enumerate(body.split(b"\n")):
            line += number > 0
            for record in segment.split(b";"):
                if len(record) > limit:
                    raise too_long(line)
                sessions += bool(record.strip())
                yield record, line
        line += data[cut] == ord(b"\n")
        if len(carry) > limit:
            raise too_long(line)


# A well-formed session with plain blanks (spaces) only: read by one match, the ids split
# without looking at each; anything else goes through _wscd_session, which words the error.
_ID: Final = r"[^\s,:;]+"
_IDS: Final = rf"{_ID}(?: *, *{_ID})*"
_PLAIN_SESSION: Final = re.compile(rf"({_ID})\t *({_IDS}) *:(?: *({_IDS}))? *")


def _read_wscd(stream: BinaryIO, name: str) -> Sessions:
    queries: list[str] = []
    shown: list[str] = []
    lengths: list[int] = []
    click_session: list[int] = []
    clicked: list[str] = []
    number = 0
    for record, line in _records(stream, name):
        text = record.strip()
        if not text:
            continue
        number += 1
        plain = _PLAIN_SESSION.fullmatch(text.decode("utf-8", "replace"))
        documents = [] if plain is None else plain[2].replace(" ", "").split(",")
        if plain is None or len(set(documents)) != len(documents) or "\ufffd" in plain[0]:
            query_id, documents, clicks = _wscd_session(text, name, line, number)
        else:
            query_id = plain[1]
            clicks = plain[3].replace(" ", "").split(",") if plain[3] else []
        queries.append(query_id)
        shown.extend(documents)
        lengths.append(len(documents))
        click_session.extend([number - 1] * len(clicks))
        clicked.extend(clicks)
    query_ids, query = _codes(pl.Series(queries, dtype=pl.String))
    doc_ids, codes = _codes(pl.Series(shown + clicked, dtype=pl.String))
    counts = np.array(lengths, dtype=np.int64)
    return Sessions(
        query_ids=query_ids,
        doc_ids=doc_ids,
        query=query,
        shown=_padded(codes[: len(shown)], counts),
        click_session=np.array(click_session, dtype=np.int64),
        click_doc=codes[len(shown) :],
        source=name,
    )


def _wscd_session(
    text: bytes, name: str, line: int, number: int
) -> tuple[str, list[str], list[str]]:
    """The query, the shown documents and the clicks of one WSCD session (stripped)."""

    def error(problem: str) -> InputError:
        shown = text.decode("utf-8", "replace")
        return InputError(name, line, f"session {number}: {problem}", shown)

    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError:
        raise error("is not UTF-8 text") from None
    query_id, tab, rest = decoded.partition("\t")
    if not tab:
        raise error("expected QUERY_ID<TAB>DOC,...,DOC : CLICKED , ... (no tab after the query id)")
    documents, colon, clicked = rest.partition(":")
    if not colon:
        raise error("expected ' : ' between the documents shown and the clicks")
    if ":" in clicked:
        raise error("has a second ':'")
    query_id = query_id.strip()
    if not query_id or len(query_id.split()) != 1:
        raise error(f"the query id {query_id!r} is empty or holds a blank")
    shown = [d.strip() for d in documents.split(",")]
    clicks = [c.strip() for c in clicked.split(",")] if clicked.strip() else []
    for kind, ids in (("document shown", shown), ("clicked document", clicks)):
        bad = next((d for d in ids if not d or len(d.split()) != 1), None)
        if bad is not None:
            raise error(f"a {kind} has an empty id or one with a blank inside ({bad!r})")
    if len(set(shown)) != len(shown):
        twice = next(d for d in shown if shown.count(d) > 1)
        raise error(f"shows the document {twice!r} twice")
    return query_id, shown, clicks


def _padded(flat: NDArray[np.int64], counts: NDArray[np.int64]) -> NDArray[np.int64]:
    """Rows of ``counts`` values taken in turn from ``flat``, padded with -1 to the longest."""
    depth = int(counts.max()) if counts.size else 0
    out = np.full((counts.size, depth), -1, dtype=np.int64)
    rows = np.repeat(np.arange(counts.size), counts)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])) if counts.size else counts
    out[rows, np.arange(flat.size) - np.repeat(starts, counts)] = flat
    return out


# -- tables: one row per session ------------------------------------------------------


class _Rows:
    """Where the rows of a table are: a row's physical line, or the row itself (Parquet,
    frames), for errors."""

    def __init__(self, name: str, lines: Sequence[int] | None, header: int | None) -> None:
        self.name = name
        self.lines = lines
        self.header = header

    def error(self, row: int, problem: str, text: str | None = None) -> InputError:
        """The error of 0-based ``row``."""
        if self.lines is not None:
            return InputError(self.name, self.lines[row], problem, text)
        return InputError(self.name, None, f"row {row + 1}: {problem}", text)

    def table_error(self, problem: str) -> InputError:
        """An error of the whole table (its columns): on its header line, if it has one."""
        return InputError(self.name, self.header, problem)


def _read_text_table(text: bytes, name: str, format_: Literal["jsonl", "csv", "tsv"]) -> Sessions:
    """Sessions of JSON Lines, CSV or TSV text (its lines checked for length)."""
    text = short_lines(text, name)
    if format_ == "jsonl":
        kept = [(n, line) for n, line in enumerate(text.split(b"\n"), start=1) if line.strip()]
        return _json_lines(b"\n".join(line for _, line in kept), [n for n, _ in kept], name)
    frame, header, rows = read_delimited(text, name, format_)
    return sessions_from_frame(frame, label=name, lines=rows, header=header, blank_separated=True)


def _json_lines(joined: bytes, numbers: list[int], name: str) -> Sessions:
    """The sessions of the non-blank lines ``joined`` of JSON Lines text: read by polars, and
    when polars cannot read them, or they break a rule of a whole column (a type), read again
    line by line to name the first line at fault."""
    if not numbers:
        return sessions_from_frame(
            pl.DataFrame({c: [] for c in _REQUIRED}), label=name, lines=numbers
        )
    try:
        frame = pl.read_ndjson(io.BytesIO(joined), infer_schema_length=None)
    except (pl.exceptions.PolarsError, pl.exceptions.PanicException, ValueError):
        frame = None
    if frame is not None and frame.height == len(numbers):
        try:
            return sessions_from_frame(frame, label=name, lines=numbers)
        except InputError as exc:
            if exc.line is not None:
                raise
    return sessions_from_frame(_json_rows(joined, numbers, name), label=name, lines=numbers)


_JSON_KINDS: Final = {
    "query_id": "id",
    "user": "id",
    "bucket": "id",
    "session_id": "id",
    "shown": "ids",
    "clicks": "ids",
    "click_times": "numbers",
    "dwell_times": "numbers",
    "time": "number",
}
_JSON_TYPES: Final[dict[str, pl.DataType]] = {
    "id": pl.String(),
    "ids": pl.List(pl.String),
    "numbers": pl.List(pl.Float64),
    "number": pl.Float64(),
}
_EXPECTED: Final = {
    "id": "a string or an integer",
    "ids": "a list of strings or integers",
    "numbers": "a list of numbers",
    "number": "a number",
}


def _json_rows(joined: bytes, numbers: list[int], name: str) -> pl.DataFrame:
    """The table of JSON Lines read line by line with the standard library, each value
    checked against its column (ids as strings, times as floats); the first line at fault is
    an error naming it."""
    rows: list[dict[str, object]] = []
    for number, raw in zip(numbers, joined.split(b"\n"), strict=True):
        shown = raw.decode("utf-8", "replace").strip()
        try:
            row = json.loads(raw)
        except (ValueError, RecursionError) as bad:
            raise InputError(name, number, f"is not a JSON object ({bad})", shown) from None
        if not isinstance(row, dict):
            raise InputError(name, number, "is not a JSON object", shown)
        for key, value in row.items():
            kind = _JSON_KINDS.get(key)
            if kind is None:
                raise InputError(
                    name,
                    number,
                    f"the column {key!r} is not a column of a click log (expected {', '.join(COLUMNS)})",
                )
            row[key] = _json_value(value, kind, key, name, number)
        rows.append(row)
    present = {key for row in rows for key in row}
    schema: dict[str, pl.DataType] = {
        c: _JSON_TYPES[_JSON_KINDS[c]] for c in COLUMNS if c in present
    }
    return pl.DataFrame(rows, schema=schema)


def _json_value(value: object, kind: str, key: str, name: str, line: int) -> object:
    """A JSON value in the form of its column, or an error naming the line."""

    def plain(item: object, numeric: bool) -> bool:
        if isinstance(item, bool):
            return False
        return isinstance(item, (int, float)) if numeric else isinstance(item, (str, int))

    if value is None:
        return None
    if kind == "number" and isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
    elif kind in ("id", "number") and plain(value, kind == "number"):
        return float(value) if kind == "number" else str(value)  # type: ignore[arg-type]
    elif isinstance(value, list) and all(
        item is None or plain(item, kind == "numbers") for item in value
    ):
        if kind == "numbers":
            return [None if item is None else float(item) for item in value]
        if kind == "ids":
            return [None if item is None else str(item) for item in value]
    shown = json.dumps(value) if not isinstance(value, str) else value
    raise InputError(name, line, f"the column {key!r} holds {shown[:60]!r}, not {_EXPECTED[kind]}")


def _read_parquet(data: bytes, name: str) -> Sessions:
    try:
        frame = pl.read_parquet(io.BytesIO(data))
    except (pl.exceptions.PolarsError, pl.exceptions.PanicException, OSError, ValueError) as exc:
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise InputError(name, None, f"cannot be read as Parquet ({detail})") from exc
    return sessions_from_frame(frame, label=name)


def sessions_from_frame(
    frame: pl.DataFrame,
    *,
    label: str = "<DataFrame>",
    lines: Sequence[int] | None = None,
    header: int | None = None,
    blank_separated: bool = False,
) -> Sessions:
    """The sessions of a table with one row per session (the columns of the module notes).

    Parameters
    ----------
    frame:
        The table.
    label:
        How errors name it.
    lines:
        The physical line of each row, for errors (else they name the row, from 1).
    header:
        The physical line of the header, for errors about a column (CSV, TSV).
    blank_separated:
        Whether the list columns are strings of values separated by blanks (CSV, TSV).

    Raises
    ------
    InputError
        If a column is missing, unknown or of the wrong type, or a row is malformed.
    """
    rows = _Rows(label, lines, header)
    unknown = [c for c in frame.columns if c not in COLUMNS]
    if unknown:
        raise rows.table_error(
            f"the column {unknown[0]!r} is not a column of a click log (expected {', '.join(COLUMNS)})"
        )
    missing = [c for c in _REQUIRED if c not in frame.columns]
    if missing:
        raise rows.table_error(
            f"the column {missing[0]!r} is missing (needed: {', '.join(_REQUIRED)})"
        )
    query_ids, query = _id_codes(frame.get_column("query_id"), rows)
    lists = {c: _list_column(frame.get_column(c), rows, blank_separated) for c in _ID_LISTS}
    shown, clicks = lists["shown"], lists["clicks"]
    null_shown = shown.is_null()
    if null_shown.any():
        raise rows.error(_first(null_shown), "the column 'shown' is empty (null)")
    clicks = clicks.fill_null(pl.Series([[]], dtype=pl.List(pl.String)).first())
    shown_counts = shown.list.len().to_numpy().astype(np.int64)
    click_counts = clicks.list.len().to_numpy().astype(np.int64)
    flat_shown = shown.explode(empty_as_null=False, keep_nulls=False)
    flat_clicks = clicks.explode(empty_as_null=False, keep_nulls=False)
    for column, flat, counts in (
        ("shown", flat_shown, shown_counts),
        ("clicks", flat_clicks, click_counts),
    ):
        bad = flat.is_null() | (flat.str.strip_chars() == "")
        if bad.any():
            row = int(np.repeat(np.arange(counts.size), counts)[_first(bad)])
            raise rows.error(row, f"the column {column!r} holds an empty id")
    doc_ids, doc_codes = _codes(pl.concat([flat_shown, flat_clicks]))
    times = {
        c: _times(frame.get_column(c), rows, blank_separated, click_counts, c)
        for c in _TIME_LISTS
        if c in frame.columns
    }
    extra: dict[str, object] = {}
    if "time" in frame.columns:
        extra["time"] = _numbers(frame.get_column("time"), rows, "time")
    for column in ("user", "bucket"):
        if column in frame.columns:
            ids, codes = _id_codes(frame.get_column(column), rows)
            extra[column], extra[f"{column}_ids"] = codes, ids
    try:
        return Sessions(
            query_ids=query_ids,
            doc_ids=doc_ids,
            query=query,
            shown=_padded(doc_codes[: flat_shown.len()], shown_counts),
            click_session=np.repeat(np.arange(frame.height, dtype=np.int64), click_counts),
            click_doc=doc_codes[flat_shown.len() :],
            click_time=times.get("click_times"),
            dwell=times.get("dwell_times"),
            source=label,
            **extra,  # type: ignore[arg-type]
        )
    except InputError as exc:  # a rule of the sessions broken by a row: name its line
        if exc.line is None:
            raise
        raise rows.error(exc.line - 1, exc.problem) from None


def _first(mask: pl.Series) -> int:
    return int(mask.arg_true()[0])


def _codes(values: pl.Series) -> tuple[tuple[str, ...], NDArray[np.int64]]:
    """The distinct strings in order of first appearance, and each value's code."""
    ids = values.unique(maintain_order=True)
    lookup = pl.DataFrame({"id": ids, "code": pl.int_range(ids.len(), dtype=pl.Int64, eager=True)})
    codes = pl.DataFrame({"id": values}).join(lookup, on="id", how="left", maintain_order="left")
    return tuple(ids.to_list()), codes.get_column("code").to_numpy().astype(np.int64)


def _as_ids(values: pl.Series) -> pl.Series | None:
    """Ids as strings (from strings or integers), or None for another type."""
    if values.dtype == pl.String:
        return values
    if values.dtype.is_integer() or values.dtype == pl.Null:
        return values.cast(pl.String)
    return None


def _id_codes(values: pl.Series, rows: _Rows) -> tuple[tuple[str, ...], NDArray[np.int64]]:
    ids = _as_ids(values)
    if ids is None:
        raise rows.table_error(
            f"the column {values.name!r} must hold strings or integers, not {values.dtype}"
        )
    bad = ids.is_null() | (ids.str.strip_chars() == "")
    if bad.any():
        raise rows.error(_first(bad), f"the column {values.name!r} is empty")
    return _codes(ids)


def _list_column(values: pl.Series, rows: _Rows, blank_separated: bool) -> pl.Series:
    """A column of id lists as lists of strings."""
    if blank_separated and values.dtype == pl.String:
        return values.str.extract_all(r"\S+").alias(values.name)
    if isinstance(values.dtype, pl.List):
        inner = _as_ids(values.explode(empty_as_null=False, keep_nulls=False))
        if inner is not None:
            return values.cast(pl.List(pl.String))
    if values.dtype == pl.Null:
        return values.cast(pl.List(pl.String))
    raise rows.table_error(
        f"the column {values.name!r} must hold lists of ids (strings or integers), not {values.dtype}"
    )


def _times(
    values: pl.Series,
    rows: _Rows,
    blank_separated: bool,
    click_counts: NDArray[np.int64],
    column: str,
) -> NDArray[np.float64]:
    """A column of time lists (one per click) as one flat array over the clicks."""
    if blank_separated and values.dtype == pl.String:
        values = values.str.extract_all(r"\S+")
        inner = values.explode(empty_as_null=False, keep_nulls=False)
        numbers = inner.cast(pl.Float64, strict=False)
        bad = numbers.is_null() & inner.is_not_null()
        if bad.any():
            counts = values.list.len().fill_null(0).to_numpy()
            row = int(np.repeat(np.arange(counts.size), counts)[_first(bad)])
            raise rows.error(
                row, f"the column {column!r} holds {inner[_first(bad)]!r}, not a number"
            )
        values = values.cast(pl.List(pl.Float64), strict=False)
    elif values.dtype == pl.Null:
        values = values.cast(pl.List(pl.Float64))
    elif not (
        isinstance(values.dtype, pl.List)
        and (values.dtype.inner.is_numeric() or values.dtype.inner == pl.Null)
    ):
        raise rows.table_error(
            f"the column {column!r} must hold lists of numbers, not {values.dtype}"
        )
    lengths = values.list.len()
    given = lengths.is_not_null().to_numpy()
    wrong = given & (lengths.fill_null(-1).to_numpy() != click_counts)
    if wrong.any():
        row = int(np.flatnonzero(wrong)[0])
        raise rows.error(
            row, f"the column {column!r} has {lengths[row]} values for {click_counts[row]} clicks"
        )
    inner = values.cast(pl.List(pl.Float64)).explode(empty_as_null=False, keep_nulls=False)
    # a null is a time not known; a NaN written in the file is no number of seconds
    written_nan = inner.is_nan().fill_null(False).to_numpy()
    known = inner.fill_null(np.nan).to_numpy().astype(np.float64)
    bad = (~((known >= 0) & (known < np.inf)) & ~np.isnan(known)) | written_nan
    if bad.any():
        clicks_given = np.repeat(np.arange(click_counts.size)[given], click_counts[given])
        at = int(np.flatnonzero(bad)[0])
        raise rows.error(
            int(clicks_given[at]),
            f"the column {column!r} holds {known[at]}, not a number of seconds >= 0",
        )
    flat = np.full(int(click_counts.sum()), np.nan)
    flat[np.repeat(given, click_counts)] = known
    return flat


def _numbers(values: pl.Series, rows: _Rows, column: str) -> NDArray[np.float64]:
    if values.dtype == pl.String:
        numbers = values.str.strip_chars().cast(pl.Float64, strict=False)
        bad = numbers.is_null() & values.is_not_null() & (values.str.strip_chars() != "")
        if bad.any():
            raise rows.error(
                _first(bad), f"the column {column!r} holds {values[_first(bad)]!r}, not a number"
            )
        values = numbers
    elif not (values.dtype.is_numeric() or values.dtype == pl.Null):
        raise rows.table_error(f"the column {column!r} must hold numbers, not {values.dtype}")
    floats = values.cast(pl.Float64)
    written_nan = floats.is_nan().fill_null(False).to_numpy()
    if written_nan.any():  # a null (an empty value) is a time not known; NaN is no time
        raise rows.error(
            int(np.flatnonzero(written_nan)[0]),
            f"the column {column!r} is NaN (leave the value out for a time not known)",
        )
    out = floats.fill_null(np.nan).to_numpy().astype(np.float64)
    bad_values = np.isinf(out)
    if bad_values.any():
        raise rows.error(int(np.flatnonzero(bad_values)[0]), f"the column {column!r} is infinite")
    return out


# -- writing --------------------------------------------------------------------------


WRITTEN_FORMATS: Final = ("jsonl", "csv", "tsv", "parquet")


def write_sessions(
    sessions: Sessions,
    path: str | Path,
    *,
    format: Literal["jsonl", "csv", "tsv", "parquet"] | None = None,
) -> None:
    """Write ``sessions`` as JSON Lines, CSV, TSV or Parquet (by the suffix of ``path`` if
    ``format`` is None: ``.csv``, ``.tsv``, ``.parquet``/``.pq``, else JSON Lines), whole or
    not at all (:mod:`cranfield.io.sink`); :func:`read_sessions` reads it back as it was.

    In CSV and TSV the lists are fields of values separated by blanks (the module notes), so
    an id holding a blank, or a click time not known inside a list, cannot be written there.

    Raises
    ------
    OptionError
        If ``format`` is not one of ``"jsonl"``, ``"csv"``, ``"tsv"``, ``"parquet"``.
    InputError
        Naming ``path`` and the session, for what CSV or TSV cannot hold; nothing is written.
    """
    named = table_format_of_name(path)
    chosen = format or (named if named in ("csv", "tsv", "parquet") else "jsonl")
    check_choice("format", chosen, WRITTEN_FORMATS)
    frame = sessions.to_polars()
    buffer = io.BytesIO()
    if chosen == "parquet":
        frame.write_parquet(buffer)
    elif chosen in ("csv", "tsv"):
        _delimited(frame, str(path)).write_csv(buffer, separator="," if chosen == "csv" else "\t")
    else:
        frame.write_ndjson(buffer)
    write_bytes(path, buffer.getvalue())


def _delimited(frame: pl.DataFrame, name: str) -> pl.DataFrame:
    """``frame`` with each list column as one field of blank-separated values (numbers in
    Python's shortest round-trip spelling), as the CSV and TSV readers take them."""
    columns: dict[str, list[str | None]] = {}
    for column in frame.columns:
        series = frame.get_column(column)
        if not isinstance(series.dtype, pl.List):
            continue
        cells: list[str | None] = []
        for row, values in enumerate(series.to_list(), start=1):
            if values is None or not values:
                cells.append(None)
                continue
            if any(v is None for v in values):
                raise InputError(
                    name,
                    None,
                    f"session {row} has a {column} value not known, which CSV and "
                    "TSV cannot hold inside a list; write .jsonl or .parquet",
                )
            if series.dtype.inner == pl.String:
                bad = next((v for v in values if len(v.split()) != 1), None)
                if bad is not None:
                    raise InputError(
                        name,
                        None,
                        f"session {row} has the id {bad!r} in {column}, which CSV "
                        "and TSV cannot hold (values are separated by blanks); write .jsonl or "
                        ".parquet",
                    )
                cells.append(" ".join(values))
            else:
                cells.append(" ".join(repr(float(v)) for v in values))
        columns[column] = cells
    return frame.with_columns(pl.Series(c, v, dtype=pl.String) for c, v in columns.items())
