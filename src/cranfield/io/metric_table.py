"""A table of one metric per row (a session): the input of ``cranfield logs ab``.

CSV, TSV, JSON Lines or Parquet, with a header (CSV, TSV) naming the columns; the columns
asked for are read and checked, the others ignored. The format is the file's suffix
(``.csv``, ``.tsv``/``.tab``, ``.jsonl``/``.ndjson``, ``.parquet``/``.pq``; a compression
suffix such as ``.gz`` is looked through), else the first line's: ``{`` starts JSON Lines, a
tab a TSV header, anything else a CSV header. Text is read with
:func:`cranfield.io.source.read_bytes` (``-`` for standard input, compression by magic bytes,
the memory limits); Parquet by polars from its path.

Every problem is an :class:`~cranfield.errors.InputError` naming the file and the line (the
physical line of a text file, or the data row of a Parquet file or of a CSV whose quoted fields
span lines) and the column: a missing column, an empty value, a metric that is not a finite
number.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np
import polars as pl

from cranfield.errors import InputError
from cranfield.io.formats import (
    TableFormat,
    read_delimited,
    read_json_lines,
    table_format_of_name,
)
from cranfield.io.source import is_parquet, read_bytes, source_name

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["MetricTable", "TableFormat", "read_metric_table"]

_POLARS_ERRORS: Final = (pl.exceptions.PolarsError, pl.exceptions.PanicException, ValueError)


@dataclass(frozen=True)
class MetricTable:
    """The columns of a metric table, one entry per row.

    Attributes
    ----------
    values:
        The metric (finite numbers).
    buckets:
        The bucket of each row, as text.
    units:
        The unit of each row, as text (``None`` when no unit column was asked for).
    denominators:
        The denominator of each row, finite numbers >= 0 (``None`` when none was asked for).
    source:
        How errors name the table (its path, or ``<stdin>``).
    lines:
        The physical line of each row, when known (``None`` for Parquet, or a CSV whose
        quoted fields span lines).
    """

    values: NDArray[np.float64]
    buckets: NDArray[np.str_]
    units: NDArray[np.str_] | None
    denominators: NDArray[np.float64] | None = None
    source: str = "<data>"
    lines: tuple[int, ...] | None = None


@dataclass(frozen=True)
class _Frame:
    """A table and the line (or data row) each of its rows names in errors."""

    frame: pl.DataFrame
    header: int | None
    lines: list[int] | None

    def where(self, row: int) -> tuple[int | None, str]:
        """The line of data row ``row`` (0-based), or the row's words when lines are unknown."""
        if self.lines is not None:
            return self.lines[row], ""
        return None, f"data row {row + 1}: "


def read_metric_table(
    source: str | Path,
    *,
    metric: str,
    bucket: str,
    unit: str | None = None,
    denominator: str | None = None,
) -> MetricTable:
    """The ``metric``, ``bucket``, ``unit`` and ``denominator`` columns of the table ``source``
    (``unit`` and ``denominator`` when named).

    Raises
    ------
    InputError
        If the file cannot be read, lacks a column, or a row has an empty value or a metric
        that is not a finite number; the message names the file, the line and the column.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "sessions.csv"
    >>> _ = path.write_text("user,bucket,clicks\\nu1,A,2\\nu2,B,0\\n")
    >>> t = read_metric_table(path, metric="clicks", bucket="bucket", unit="user")
    >>> t.values.tolist(), t.buckets.tolist(), t.units.tolist()
    ([2.0, 0.0], ['A', 'B'], ['u1', 'u2'])
    """
    label = source_name(source)
    parsed = _read(source, label)
    columns = [metric, bucket] + [c for c in (unit, denominator) if c is not None]
    for name in columns:
        if name not in parsed.frame.columns:
            shown = ", ".join(repr(c) for c in parsed.frame.columns[:10])
            raise InputError(label, parsed.header, f"has no column {name!r} (its columns: {shown})")
    if parsed.frame.height == 0:
        raise InputError(label, None, "has no rows")
    values = _numbers(parsed, metric, label)
    buckets = _texts(parsed, bucket, label)
    units = None if unit is None else _texts(parsed, unit, label)
    denominators = None
    if denominator is not None:
        denominators = _numbers(parsed, denominator, label)
        if (denominators < 0).any():
            row = int(np.flatnonzero(denominators < 0)[0])
            line, where = parsed.where(row)
            raise InputError(label, line, f"{where}column {denominator!r} is negative")
    lines = None if parsed.lines is None else tuple(parsed.lines)
    return MetricTable(values, buckets, units, denominators, label, lines)


def _read(source: str | Path, label: str) -> _Frame:
    fmt = table_format_of_name(source)
    if fmt == "parquet" or (fmt is None and is_parquet(source)):
        return _parquet(source, label)
    text = read_bytes(source)
    if fmt is None:
        first = text.lstrip()[:1]
        head = text.lstrip().split(b"\n", 1)[0]
        fmt = "jsonl" if first == b"{" else ("tsv" if b"\t" in head else "csv")
    if fmt == "jsonl":  # numbers read by polars as text, as from CSV
        frame, numbers = read_json_lines(text, label)
        return _Frame(frame.with_columns(pl.all().cast(pl.String)), None, numbers)
    return _Frame(*read_delimited(text, label, "tsv" if fmt == "tsv" else "csv"))


def _parquet(source: str | Path, label: str) -> _Frame:
    if str(source) == "-":
        raise InputError(label, None, "Parquet is read from a path, not from standard input")
    try:
        with open(source, "rb") as file:
            magic = file.read(4)
    except OSError as exc:
        raise InputError(label, None, f"cannot be read ({exc.strerror or exc})") from exc
    if magic != b"PAR1":
        raise InputError(label, None, f"is not Parquet (it starts with {magic!r}, not b'PAR1')")
    try:
        frame = pl.read_parquet(source)
    except (*_POLARS_ERRORS, OSError) as exc:
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise InputError(label, None, f"cannot read Parquet file ({detail})") from exc
    frame = frame.with_columns(
        pl.col(c).cast(pl.String)
        for c, t in frame.schema.items()
        if t == pl.String or t.is_numeric() or t == pl.Boolean
    )
    return _Frame(frame, None, None)


def _texts(parsed: _Frame, column: str, label: str) -> NDArray[np.str_]:
    values = parsed.frame.get_column(column)
    if values.dtype != pl.String:
        raise InputError(label, parsed.header, f"column {column!r} holds {values.dtype}, not text")
    empty = values.is_null() | (values.str.strip_chars() == "")
    if empty.any():
        row = int(empty.arg_true()[0])
        line, where = parsed.where(row)
        raise InputError(label, line, f"{where}column {column!r} is empty")
    return np.asarray(values.str.strip_chars().to_list(), dtype=np.str_)


def _numbers(parsed: _Frame, column: str, label: str) -> NDArray[np.float64]:
    texts = parsed.frame.get_column(column)
    _texts(parsed, column, label)  # no empty value
    numbers = texts.str.strip_chars().cast(pl.Float64, strict=False)
    bad = numbers.is_null() | ~numbers.is_finite()
    if bad.any():
        row = int(bad.arg_true()[0])
        line, where = parsed.where(row)
        raise InputError(
            label, line, f"{where}column {column!r} is not a finite number", str(texts[row])
        )
    return numbers.to_numpy().astype(np.float64)
