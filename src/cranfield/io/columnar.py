"""Columnar inputs and outputs: Parquet files, Arrow tables, pandas/polars frames, dicts.

Column names are matched case-sensitively against these synonyms (first match wins):

=============  ==========================================
field          accepted column names
=============  ==========================================
query id       ``query_id``, ``qid``, ``q_id``, ``query``, ``query-id``
document id    ``doc_id``, ``docno``, ``docid``, ``doc``, ``pid``, ``corpus-id``
relevance      ``relevance``, ``label``, ``rel``, ``grade``, ``score`` (qrels only)
score          ``score``, ``sim`` (run only)
rank           ``rank`` (run only: without a score column, the score is ``1/rank``)
iteration      ``iteration``, ``iter``, ``subtopic`` (optional, qrels only; default ``"0"``)
run tag        ``tag``, ``run_tag`` (optional, run only)
=============  ==========================================

These cover ir_measures' and pandas' ``query_id, doc_id, relevance|score``, BEIR's
``query-id, corpus-id, score`` (the score of BEIR qrels is the relevance) and MS MARCO's
``qid, pid, rank``. A run with a ``rank`` column and no score column is ranked by its ranks:
each row's score is ``1/rank``, and a rank must be an integer >= 1.

Ids (and the iteration and tag) may be strings, categoricals, integers or floats and are
converted to strings: ``301`` and ``301.0`` both become ``"301"`` (pandas turns integer
columns with a missing value into floats), ``301.5`` becomes ``"301.5"``. Other column
types (lists, structs, booleans, binary ...) are refused. Relevance is a number (an
integer, a finite float, a boolean, or a string holding an integer or a decimal without
exponent) whose integer part fits in 64 bits; a label that is not an integer is a decimal
label, read as TREC text reads it (:mod:`cranfield.data.judgments`: its integer part is the
level, the label a ``gain``, the first such row named in the notes). A (query, document)
pair on several rows follows the ``duplicates`` policy of :func:`~cranfield.io.trec.read_qrels`
(identical rows merged with a note by default). The score must be numeric (or a numeric
string) and not NaN. A missing value, a NaN or infinite id or label, or a duplicated (query,
document) pair in a run is an :class:`~cranfield.errors.InputError` naming the 1-based row
(both rows for a duplicate).
A pandas index with a name is read as a column (``df.set_index("qid")`` works); an unnamed
index is ignored. A pandas frame is converted by pyarrow when it is installed (the ``pandas``
extra), column by column through numpy and Python values when it is not: the same table
either way, pyarrow being only faster on large frames.

A Parquet file is read with these checks, and only the columns above are decoded. It must
start and end with the magic bytes ``PAR1`` and its footer must parse; the columns must be
there with the types above before any data is decoded. With pyarrow installed (``pip install
'cranfield[arrow]'``), pyarrow decodes the pages (it checks their headers and sizes, and their
checksums where the writer stored them), text must be valid UTF-8, the row counts of the
footer, of each row group and of each column chunk must agree with each other and with the
rows decoded, each column chunk must lie between the first magic bytes and the footer, and
the numbers of each row group must lie within the footer's minimum and maximum. Without
pyarrow, polars reads the footer's schema and row count and decodes the pages; its errors and
panics become the same one-line errors, but a corrupt page can make it abort the whole
process, which Python cannot catch. Parquet writers store no page checksums by default: a
changed byte inside a page that still decodes, to values within the footer's range, gives
different values that no reader can notice. :func:`write_parquet` stores the checksums
(with pyarrow installed), so a changed page of a file cranfield wrote is refused.
"""

from __future__ import annotations

import contextlib
import importlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import polars as pl

from cranfield._types import DUPLICATE_POLICIES, DuplicatePolicy, InputKind
from cranfield._validate import check_choice
from cranfield.data.judgments import (
    LABEL_TEXT,
    decimal_note,
    integer_parts,
    merge_repeats,
    noted,
    with_gains,
)
from cranfield.data.qrels import Qrels
from cranfield.data.row_index import pairs_differ_by_hash
from cranfield.data.run import Run
from cranfield.errors import InputError
from cranfield.io.run_names import run_name
from cranfield.io.sink import replacing

__all__ = [
    "kind_of_columns",
    "names_ids",
    "parquet_columns",
    "qrels_from_frame",
    "qrels_from_mapping",
    "read_parquet_qrels",
    "read_parquet_run",
    "run_columns",
    "run_from_frame",
    "run_from_mapping",
    "to_polars_frame",
    "write_parquet",
]

_Kind = InputKind


def _id_type(dtype: pl.DataType) -> bool:
    return (
        dtype in (pl.String, pl.Categorical, pl.Null)
        or isinstance(dtype, pl.Enum)
        or dtype.is_integer()
        or dtype.is_float()
    )


def _number_type(dtype: pl.DataType) -> bool:
    return dtype.is_numeric() or dtype in (pl.Boolean, pl.String, pl.Null)


@dataclass(frozen=True)
class _Field:
    """One field of a table: the column names it is found under and the types it takes."""

    role: str  # its column in the normalised table
    what: str  # how a message names it
    names: tuple[str, ...]
    accepts: Callable[[pl.DataType], bool]
    wanted: str  # what the values must be, for the message of a wrong type


_QUERY = _Field(
    "query_id",
    "query id",
    ("query_id", "qid", "q_id", "query", "query-id"),
    _id_type,
    "query_id values must be strings or integers",
)
_DOC = _Field(
    "doc_id",
    "document id",
    ("doc_id", "docno", "docid", "doc", "pid", "corpus-id"),
    _id_type,
    "doc_id values must be strings or integers",
)
_REL = _Field(
    "relevance",
    "relevance",
    ("relevance", "label", "rel", "grade", "score"),
    _number_type,
    "relevance must be an integer",
)
_SCORE = _Field("score", "score", ("score", "sim"), _number_type, "the score must be a number")
_RANK = _Field("rank", "rank", ("rank",), _number_type, "the rank must be an integer")
_ITER = _Field(
    "iteration",
    "iteration",
    ("iteration", "iter", "subtopic"),
    _id_type,
    "iteration values must be strings or integers",
)
_TAG = _Field(
    "tag", "run tag", ("tag", "run_tag"), _id_type, "tag values must be strings or integers"
)

# The fields of each kind of table: the required ones, then the optional one.
_FIELDS: dict[_Kind, tuple[tuple[_Field, ...], _Field]] = {
    "qrels": ((_QUERY, _DOC, _REL), _ITER),
    "run": ((_QUERY, _DOC, _SCORE), _TAG),
}

_CONVERSION_ERRORS = (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError)


def to_polars_frame(obj: Any, *, label: str | None = None) -> pl.DataFrame:
    """A polars DataFrame from a polars/pandas DataFrame or an Arrow table.

    Raises
    ------
    TypeError
        If ``obj`` is none of these.
    InputError
        If a pandas frame cannot be converted (for example a column mixing ints and strings).
    """
    if isinstance(obj, pl.LazyFrame):
        obj = obj.collect()
    if isinstance(obj, pl.DataFrame):
        frame: pl.DataFrame = obj
        return frame
    module = type(obj).__module__
    name = label or f"<{type(obj).__name__}>"
    if module.startswith("pandas") and hasattr(obj, "reset_index"):
        named_index = any(n is not None for n in obj.index.names)
        try:
            return _from_pandas(obj.reset_index(drop=not named_index))
        except _CONVERSION_ERRORS as exc:
            raise InputError(name, None, f"cannot be converted to a table ({exc})") from exc
    if module.startswith("pyarrow"):
        converted = pl.from_arrow(obj)
        if isinstance(converted, pl.DataFrame):
            return converted
    raise TypeError(
        f"cannot read judgments or a run from a {type(obj).__name__}; pass a path, a "
        "polars or pandas DataFrame, a pyarrow Table or a dict of dicts"
    )


def _from_pandas(frame: Any) -> pl.DataFrame:
    """A pandas frame as polars: by pyarrow when it is installed, else without it.

    polars' own conversion needs pyarrow; without it each column goes through numpy (a
    numpy dtype, NaN becoming null as polars' conversion makes it) or its Python values (an
    extension, categorical or object column, pandas' missing values becoming null), so a
    column mixing integers and strings is refused either way.
    """
    try:
        importlib.import_module("pyarrow")
    except ImportError:
        pass
    else:
        table: pl.DataFrame = pl.from_pandas(frame)
        return table
    columns: list[pl.Series] = []
    for label in frame.columns:
        column = frame[label]
        if isinstance(column.dtype, np.dtype) and column.dtype.kind in "biuf":
            columns.append(pl.Series(str(label), column.to_numpy(), nan_to_null=True))
        else:
            values = column.astype(object).where(column.notna(), None).tolist()
            kinds = sorted({type(v).__name__ for v in values if v is not None})
            try:
                columns.append(pl.Series(str(label), values, strict=True))
            except _CONVERSION_ERRORS:
                raise TypeError(f"column {label!r} mixes {' and '.join(kinds)} values") from None
    return pl.DataFrame(columns)


def names_ids(names: Sequence[str]) -> bool:
    """Whether the column ``names`` (a header line's, a JSON object's keys) name a query id
    column and a document id column, by the spellings above: a table of judgments or a run."""
    return all(any(n in names for n in field.names) for field in (_QUERY, _DOC))


def kind_of_columns(names: Sequence[str]) -> _Kind | None:
    """What a table with the columns ``names`` holds, by the spellings above: judgments when
    a relevance column other than ``score`` is there (``relevance``, ``label`` ...), a run
    when a ``score``, ``sim`` or ``rank`` column is there instead; ``None`` when both or
    neither are (BEIR's ``score`` judgments are told by their format, not their columns)."""
    labels = any(n in names for n in _REL.names if n not in _SCORE.names)
    scores = any(n in names for n in (*_SCORE.names, *_RANK.names))
    if labels == scores:
        return None
    return "qrels" if labels else "run"


def run_columns(names: Sequence[str], label: str) -> dict[str, str]:
    """``{field: column}`` of a run table with the columns ``names``: ``query_id``,
    ``doc_id``, and ``score`` or ``rank`` (a run ranked by its ranks), by the spellings above.

    Raises
    ------
    InputError
        Naming ``label`` when a required field has no column or its column occurs twice.

    Examples
    --------
    >>> run_columns(["qid", "pid", "rank"], "run.parquet")
    {'query_id': 'qid', 'doc_id': 'pid', 'rank': 'rank'}
    """
    listed = list(names)
    rank = next((n for n in _RANK.names if n in listed), None)
    ranked = rank is not None and not any(n in listed for n in _SCORE.names)
    found = _columns([*listed, "score"] if ranked else listed, "run", label)
    out = {field.role: column for field, column in found.items() if field is not _TAG}
    if ranked:
        del out["score"]
        out["rank"] = rank  # type: ignore[assignment]  # not None when ranked
    return out


def _columns(names: list[str], kind: _Kind, label: str) -> dict[_Field, str]:
    """The column of each field of ``kind`` (see the module notes) among ``names``.

    Raises
    ------
    InputError
        If a required field has no column, or its column name occurs twice.
    """
    required, optional = _FIELDS[kind]
    found: dict[_Field, str] = {}
    for field in (*required, optional):
        column = next((n for n in field.names if n in names), None)
        if column is None:
            if field is optional:
                continue
            raise InputError(
                label,
                None,
                f"has no {field.what} column (looked for {', '.join(field.names)}; "
                f"found {', '.join(names) or 'no columns'})",
            )
        if names.count(column) > 1:
            raise InputError(label, None, f"has {names.count(column)} columns named {column!r}")
        found[field] = column
    return found


def _check_types(schema: Mapping[str, pl.DataType], columns: dict[_Field, str], label: str) -> None:
    """Refuse a column whose type its field does not take (the module notes list them)."""
    for field, column in columns.items():
        dtype = schema[column]
        if not field.accepts(dtype):
            raise InputError(label, None, f"the {column} column has type {dtype}; {field.wanted}")


def _first(mask: pl.Series) -> int:
    """0-based index of the first true value of ``mask`` (which has one)."""
    return int(mask.fill_null(False).arg_true()[0])


def _string_column(values: pl.Series, field: _Field, label: str) -> pl.Series:
    """Ids as strings: integral numbers without ``.0`` (the type is one ``_id_type`` takes)."""
    _check_present(values, field, label)
    alias = field.role
    dtype = values.dtype
    if dtype == pl.String:
        return values.alias(alias)
    if not dtype.is_float():
        return values.cast(pl.String).alias(alias)
    bad = values.is_nan() | values.is_infinite()
    if bad.any():
        row = _first(bad)
        raise InputError(label, row + 1, f"{alias} is {values[row]!r}, not an id")
    as_int = values.cast(pl.Int64, strict=False)
    whole = as_int.is_not_null() & (as_int.cast(pl.Float64) == values.cast(pl.Float64))
    return (
        pl.select(pl.when(whole).then(as_int.cast(pl.String)).otherwise(values.cast(pl.String)))
        .to_series()
        .alias(alias)
    )


def _check_present(column: pl.Series, field: _Field, label: str) -> None:
    nulls = column.is_null()
    if nulls.any():
        raise InputError(
            label,
            _first(nulls) + 1,
            f"{field.role} is missing (a null in the {column.name!r} column)",
        )


def _check_pairs(frame: pl.DataFrame, label: str) -> None:
    """No repeated (query_id, doc_id) pair; hashing first keeps the common case cheap."""
    if pairs_differ_by_hash(frame):
        return
    repeat = frame.select(pl.struct("query_id", "doc_id").is_first_distinct().not_()).to_series()
    if repeat.any():
        row = _first(repeat)
        q, d = frame.get_column("query_id")[row], frame.get_column("doc_id")[row]
        same = (frame.get_column("query_id") == q) & (frame.get_column("doc_id") == d)
        raise InputError(
            label,
            row + 1,
            f"duplicate document {d!r} for query {q!r} (first seen on row {_first(same) + 1})",
        )


def _relevance(
    values: pl.Series, label: str, lines: Sequence[int] | None = None
) -> tuple[pl.Series, pl.Series | None, str | None]:
    """The levels of the labels ``values``, their gains when some label is not an integer
    (:mod:`cranfield.data.judgments`: then the levels are their integer parts) and the note
    naming the first such row (its physical line, given ``lines``)."""
    _check_present(values, _REL, label)
    if values.dtype.is_decimal():
        values = values.cast(pl.Float64)
    dtype = values.dtype
    if dtype == pl.String:
        good = values.str.contains(LABEL_TEXT)
        level = integer_parts(values).set(~good, None)
        gain = values.cast(pl.Float64, strict=False)
    elif dtype.is_float():
        good = values.is_finite()
        gain = values.cast(pl.Float64)
        level = gain.set(~good, None).cast(pl.Int64, strict=False)
    else:
        good = pl.Series([True] * len(values))
        level = gain = values.cast(pl.Int64, strict=False)
    bad = level.is_null()
    if bad.any():
        row = _first(bad)
        problem = (
            "relevance must be an integer or a decimal number"
            if not good[row]
            else "relevance does not fit in a 64-bit integer"
        )
        raise InputError(label, row + 1, f"{problem}, got {values[row]!r}")
    fraction = gain.cast(pl.Float64) != level.cast(pl.Float64)
    if not fraction.any():
        return level.alias("relevance"), None, None
    row = _first(fraction)
    where = row + 1 if lines is None else lines[row]
    note = decimal_note(f"{label}:{where}", int(fraction.sum()), values[row])
    return level.alias("relevance"), gain.cast(pl.Float64).alias("gain"), note


def _score(values: pl.Series, label: str) -> pl.Series:
    _check_present(values, _SCORE, label)
    out = values.cast(pl.Float64, strict=False)
    bad = out.is_null() | out.is_nan()
    if bad.any():
        row = _first(bad)
        if out[row] is not None:
            raise InputError(label, row + 1, "score is NaN")
        raise InputError(label, row + 1, f"score must be a number, got {values[row]!r}")
    return out.alias("score")


def _from_rank(frame: pl.DataFrame, label: str) -> pl.DataFrame:
    """``frame`` with a ``score`` column of ``1/rank`` if it has a rank column and no score
    column (see the module notes), else ``frame`` itself."""
    names = frame.columns
    column = next((n for n in _RANK.names if n in names), None)
    if column is None or any(n in names for n in _SCORE.names):
        return frame
    _check_types(frame.schema, {_RANK: column}, label)
    values = frame.get_column(column)
    _check_present(values, _RANK, label)
    ranks = values.cast(pl.Float64, strict=False)
    bad = ranks.is_null() | ~ranks.is_finite() | (ranks < 1) | (ranks % 1 != 0)
    if bad.any():
        row = _first(bad)
        raise InputError(label, row + 1, f"rank must be an integer >= 1, got {values[row]!r}")
    return frame.with_columns((1.0 / ranks).alias("score"))


_ROW = re.compile(r"\brow (\d+)\b")


@contextlib.contextmanager
def _physical(lines: Sequence[int] | None) -> Iterator[None]:
    """Errors raised inside name ``lines[row]`` (the physical line of a text file's row)
    instead of the 1-based row; ``None`` keeps the rows (in-memory tables)."""
    if lines is None:
        yield
        return
    try:
        yield
    except InputError as exc:
        if exc.line is None:
            raise
        problem = _ROW.sub(lambda m: f"line {lines[int(m.group(1)) - 1]}", exc.problem)
        raise InputError(exc.source, lines[exc.line - 1], problem, exc.text) from None


def _fields(frame: pl.DataFrame, kind: _Kind, label: str) -> dict[_Field, pl.Series]:
    """The column of each field of ``kind`` in ``frame``, its type checked."""
    columns = _columns(frame.columns, kind, label)
    _check_types(frame.schema, columns, label)
    return {field: frame.get_column(column) for field, column in columns.items()}


def qrels_from_frame(
    frame: pl.DataFrame,
    *,
    source_label: str,
    name: str,
    duplicates: DuplicatePolicy = "merge",
    lines: Sequence[int] | None = None,
) -> Qrels:
    """Validate and normalise a judgments table (see the module notes); a repeated (query,
    document) pair follows ``duplicates`` (:func:`~cranfield.io.trec.read_qrels`).

    ``lines`` gives the physical line of each row of a table parsed from text, for the
    errors; without it, errors name the 1-based row.
    """
    check_choice("duplicates", duplicates, DUPLICATE_POLICIES)
    with _physical(lines):
        return _qrels_from_frame(frame, source_label, name, duplicates, lines)


def _qrels_from_frame(
    frame: pl.DataFrame,
    source_label: str,
    name: str,
    duplicates: DuplicatePolicy,
    lines: Sequence[int] | None,
) -> Qrels:
    fields = _fields(frame, "qrels", source_label)
    it = fields.get(_ITER)
    iteration = (
        _string_column(it, _ITER, source_label)
        if it is not None
        else pl.Series("iteration", ["0"] * frame.height, dtype=pl.String)
    )
    out = pl.DataFrame(
        [
            _string_column(fields[_QUERY], _QUERY, source_label),
            iteration,
            _string_column(fields[_DOC], _DOC, source_label),
        ]
    )
    if duplicates == "error":
        _check_pairs(out, source_label)
    level, gain, note = _relevance(fields[_REL], source_label, lines)
    out = out.with_columns(level) if gain is None else with_gains(out, level, gain)
    notes = () if note is None else (note,)
    if duplicates == "error" or pairs_differ_by_hash(out) or _first_repeat(out) is None:
        return noted(Qrels(out.sort("query_id", "doc_id"), name=name, notes=notes))

    def refuse() -> NoReturn:
        _refuse_conflict(out, source_label)

    merged, merge_note = merge_repeats(out, source_label, duplicates, refuse, unit="row")
    return noted(Qrels(merged, name=name, notes=notes + merge_note))


def _first_repeat(frame: pl.DataFrame) -> int | None:
    """0-based row of the first repeated (query_id, doc_id) pair of ``frame``, if any."""
    repeat = frame.select(pl.struct("query_id", "doc_id").is_first_distinct().not_()).to_series()
    return _first(repeat) if repeat.any() else None


def _refuse_conflict(frame: pl.DataFrame, label: str) -> NoReturn:
    """Raise the error of the first row judging a pair differently from its first row."""
    value = "gain" if "gain" in frame.columns else "relevance"
    rows = frame.with_row_index("row").with_columns(
        pl.col("row").first().over("query_id", "doc_id").alias("earlier"),
        pl.col(value).first().over("query_id", "doc_id").alias("first_value"),
    )
    row, q, d, now, earlier, then = (
        rows.filter(pl.col(value) != pl.col("first_value"))
        .select("row", "query_id", "doc_id", value, "earlier", "first_value")
        .row(0)
    )
    raise InputError(
        label,
        row + 1,
        f"duplicate document {d!r} for query {q!r} judged {then} on row {earlier + 1} and "
        f"{now} here; keep one with duplicates='first', 'last' or 'max' (--duplicates)",
    )


def run_from_frame(
    frame: pl.DataFrame, *, source_label: str, name: str, lines: Sequence[int] | None = None
) -> Run:
    """Validate and normalise a run table (see the module notes); rows keep their order.

    ``lines`` gives the physical line of each row of a table parsed from text, for the
    errors; without it, errors name the 1-based row.
    """
    with _physical(lines):
        return _run_from_frame(frame, source_label=source_label, name=name)


def _run_from_frame(frame: pl.DataFrame, *, source_label: str, name: str) -> Run:
    frame = _from_rank(frame, source_label)
    fields = _fields(frame, "run", source_label)
    out = pl.DataFrame(
        [
            _string_column(fields[_QUERY], _QUERY, source_label),
            _string_column(fields[_DOC], _DOC, source_label),
        ]
    )
    _check_pairs(out, source_label)
    out = out.with_columns(_score(fields[_SCORE], source_label))
    tag = name
    tags = fields.get(_TAG)
    if tags is not None and frame.height:
        tag = _string_column(tags, _TAG, source_label)[-1]
    return Run(out, name=name, tag=tag)


def qrels_from_mapping(
    mapping: Mapping[Any, Mapping[Any, Any]], *, name: str, duplicates: DuplicatePolicy = "merge"
) -> Qrels:
    """Judgments from ``{query_id: {doc_id: relevance}}``; rows are counted in dict order
    (``301`` and ``"301"`` are one query, so a dict can repeat a pair: ``duplicates``)."""
    frame = _flatten(mapping, "relevance")
    return qrels_from_frame(frame, source_label="<dict>", name=name, duplicates=duplicates)


def run_from_mapping(mapping: Mapping[Any, Mapping[Any, Any]], *, name: str) -> Run:
    """A run from ``{query_id: {doc_id: score}}``; rows are counted in dict order."""
    frame = _flatten(mapping, "score")
    return run_from_frame(frame, source_label="<dict>", name=name)


def _flatten(mapping: Mapping[Any, Mapping[Any, Any]], value: str) -> pl.DataFrame:
    if not isinstance(mapping, Mapping):
        raise InputError("<dict>", None, f"must be a dict of dicts, got a {type(mapping).__name__}")
    qs: list[str] = []
    ds: list[str] = []
    vs: list[Any] = []
    for q, docs in mapping.items():
        if not isinstance(docs, Mapping):
            raise InputError(
                "<dict>",
                None,
                f"the value for query {q!r} must be a dict of doc_id -> {value}, "
                f"got a {type(docs).__name__}",
            )
        for d, v in docs.items():
            qs.append(str(q))
            ds.append(str(d))
            vs.append(v)
    try:
        values = pl.Series(value, vs, strict=False)
    except _CONVERSION_ERRORS:
        values = pl.Series(value, [], dtype=pl.Object)
    if values.dtype == pl.Object:
        # Values polars cannot type; as strings they are reported with their row.
        values = pl.Series(value, [None if v is None else str(v) for v in vs], dtype=pl.String)
    return pl.DataFrame(
        [
            pl.Series("query_id", qs, dtype=pl.String),
            pl.Series("doc_id", ds, dtype=pl.String),
            values,
        ]
    )


def read_parquet_qrels(
    path: str | Path,
    *,
    name: str | None = None,
    duplicates: DuplicatePolicy = "merge",
    data: bytes | None = None,
) -> Qrels:
    """Judgments from a Parquet file with the columns described in this module; a repeated
    (query, document) pair follows ``duplicates`` (:func:`~cranfield.io.trec.read_qrels`).
    ``data``: the file's bytes, when they were read already (the file is not opened again).

    Raises
    ------
    InputError
        If the file cannot be read or fails a check of the module notes, naming the file (and
        the row of a bad value).
    """
    frame = _read_parquet(path, "qrels", data)
    return qrels_from_frame(
        frame, source_label=str(path), name=name or Path(path).name, duplicates=duplicates
    )


def read_parquet_run(
    path: str | Path, *, name: str | None = None, data: bytes | None = None
) -> Run:
    """A run from a Parquet file with the columns described in this module; ``data``: the
    file's bytes, when they were read already (the file is not opened again).

    Raises
    ------
    InputError
        If the file cannot be read or fails a check of the module notes, naming the file (and
        the row of a bad value).
    """
    frame = _read_parquet(path, "run", data)
    return run_from_frame(frame, source_label=str(path), name=name or run_name(path))


def _read_parquet(path: str | Path, kind: _Kind, data: bytes | None = None) -> pl.DataFrame:
    """The columns of ``kind`` of a Parquet file (whose bytes are ``data`` if they were read
    already), checked as the module notes say."""
    label = str(path)
    if data is None:
        try:
            with open(path, "rb") as file:
                data = file.read()
        except OSError as exc:
            raise _unreadable(label, exc) from exc
    magic = data[:4]
    if magic != b"PAR1":  # readers look only for the "PAR1" that ends the file
        raise InputError(
            label, None, f"cannot read Parquet file (it starts with {magic!r}, not b'PAR1')"
        )
    try:
        import pyarrow.parquet  # noqa: F401 -- only whether it is installed
    except ImportError:
        frame, rows = _decode_with_polars(data, kind, label)
    else:
        frame, rows = _decode_with_pyarrow(data, kind, label)
    if frame.height != rows:
        raise InputError(label, None, f"holds {frame.height} rows, but its footer says {rows}")
    return frame


def parquet_columns(path: str | Path) -> list[str]:
    """The column names of the Parquet file ``path``, from its footer alone (no page read)."""
    label = str(path)
    try:
        import pyarrow.parquet as pq
    except ImportError:
        try:
            return list(pl.read_parquet_schema(path))
        except (OSError, pl.exceptions.PolarsError, pl.exceptions.PanicException) as exc:
            raise _unreadable(label, exc) from exc
    try:
        with pq.ParquetFile(path) as parquet:
            return list(parquet.schema_arrow.names)
    except (OSError, ValueError, TypeError) as exc:  # pyarrow's errors derive from these
        raise _unreadable(label, exc) from exc


def _unreadable(label: str, exc: BaseException) -> InputError:
    """The one-line error of a file the Parquet reader refused."""
    lines = str(exc).strip().splitlines() or [type(exc).__name__]
    detail = lines[0] if len(lines[0]) <= 200 else lines[0][:197] + "..."
    return InputError(label, None, f"cannot read Parquet file ({detail})")


def _decode_with_pyarrow(data: bytes, kind: _Kind, label: str) -> tuple[pl.DataFrame, int]:
    """The frame and the footer's row count; pyarrow decodes, so polars never meets a bad page.

    The schema is checked before any page is read, the rest of the footer after pyarrow has
    read the pages (it checks their headers and bounds itself; pyarrow 26 aborts on some corrupt
    column metadata when it is read before the pages that would have reported it).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        size = len(data)
        with pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=True) as parquet:
            schema = parquet.schema_arrow
            columns = _columns(schema.names, kind, label)
            # The columns without metadata (polars panics on metadata that is not UTF-8);
            # their types as polars reads them (pa.nulls, unlike an empty table, needs no pandas).
            bare = pa.schema([(c, schema.field(c).type) for c in columns.values()])
            types = {f.name: pl.Series(pa.nulls(0, type=f.type)).dtype for f in bare}
            _check_types(types, columns, label)
            # One thread: decoding from the bytes read (the file is opened once), pyarrow 26's
            # threads could abort the process at exit after refusing a corrupt page.
            table = parquet.read(
                columns=list(columns.values()), use_pandas_metadata=False, use_threads=False
            )
            for column in table.itercolumns():
                column.validate(full=True)  # UTF-8 of strings: polars panics on invalid text
            frame = pl.DataFrame(table.cast(bare))
            _check_footer(parquet.metadata, frame, size, label)
            return frame, parquet.metadata.num_rows
    except (
        OSError,
        UnicodeDecodeError,
        pa.ArrowException,
        pl.exceptions.PolarsError,
        pl.exceptions.PanicException,
    ) as exc:
        raise _unreadable(label, exc) from exc


def _check_footer(meta: Any, frame: pl.DataFrame, size: int, label: str) -> None:
    """What the footer says against the file and the decoded ``frame``: the row counts agree,
    each column chunk lies between the leading magic bytes and the footer, and the numbers
    lie within the footer's minimum and maximum (``meta`` is a ``pyarrow.parquet.FileMetaData``).

    Raises
    ------
    InputError
        At the first disagreement, naming the row group and the column.
    """
    footer = size - 8 - meta.serialized_size  # the footer, its length and "PAR1" end the file
    names = [meta.schema.column(i).path for i in range(meta.num_columns)]
    leaves = [(i, name) for i, name in enumerate(names) if name in frame.columns]
    total = 0
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        rows = group.num_rows
        where = f"row group {g + 1} of {meta.num_row_groups}"
        if rows < 0:
            raise InputError(label, None, f"{where} has {rows} rows")
        for c, name in leaves:
            chunk = group.column(c)
            if chunk.num_values != rows:
                raise InputError(
                    label, None, f"{where} holds {chunk.num_values} {name} values for {rows} rows"
                )
            first = chunk.dictionary_page_offset if chunk.has_dictionary_page else None
            start = chunk.data_page_offset if first is None else min(first, chunk.data_page_offset)
            end = start + chunk.total_compressed_size
            if start < 4 or end > footer or chunk.total_compressed_size < 0:
                raise InputError(
                    label,
                    None,
                    f"{where}: the {name} data (bytes {start} to {end}) is not within the "
                    f"file's data (bytes 4 to {footer})",
                )
            values = frame.get_column(name).slice(total, rows)
            numeric = values.dtype.is_integer() or values.dtype.is_float()
            stats = chunk.statistics if numeric and chunk.is_stats_set else None
            if stats is None or not stats.has_min_max or total + rows > frame.height:
                continue
            low: Any = values.min()  # a number, as the column is numeric
            high: Any = values.max()
            if (low is not None and low < stats.min) or (high is not None and high > stats.max):
                raise InputError(
                    label,
                    None,
                    f"{where}: the {name} values run from {low} to {high}, outside the "
                    f"footer's {stats.min} to {stats.max} (a corrupt data page)",
                )
        total += rows
    if total != meta.num_rows:
        raise InputError(
            label, None, f"its footer counts {meta.num_rows} rows, but its row groups hold {total}"
        )


def _decode_with_polars(data: bytes, kind: _Kind, label: str) -> tuple[pl.DataFrame, int]:
    """The frame and the footer's row count, read by polars alone (pyarrow is not installed)."""
    import io

    try:
        schema = pl.read_parquet_schema(io.BytesIO(data))
        columns = _columns(list(schema), kind, label)
        _check_types(schema, columns, label)
        rows = pl.scan_parquet(io.BytesIO(data)).select(pl.len()).collect().item()
        frame = pl.read_parquet(io.BytesIO(data), columns=list(columns.values()))
    except (OSError, pl.exceptions.PolarsError, pl.exceptions.PanicException) as exc:
        raise _unreadable(label, exc) from exc
    return frame, int(rows)


def write_parquet(data: Qrels | Run, path: str | Path) -> None:
    """Write judgments or a run as Parquet (run tag kept in a ``tag`` column).

    With pyarrow installed, each data page carries a CRC-32 checksum, which cranfield's
    reader verifies: a changed byte in the data is then an error rather than a changed value.
    """
    frame = data.frame
    if "gain" in frame.columns:  # decimal labels: the labels are written, read back the same
        frame = frame.drop("relevance").rename({"gain": "relevance"})
    if isinstance(data, Run):
        frame = frame.with_columns(pl.lit(data.tag, dtype=pl.String).alias("tag"))
    try:
        import pyarrow.parquet  # noqa: F401 -- only whether it is installed
    except ImportError:
        options: dict[str, Any] = {}
    else:
        options = {"use_pyarrow": True, "pyarrow_options": {"write_page_checksum": True}}
    with replacing(path) as tmp:  # whole or not at all (cranfield.io.sink)
        frame.write_parquet(tmp, **options)
