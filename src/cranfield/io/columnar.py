"""Columnar inputs and outputs: Parquet files, Arrow tables, pandas/polars frames, dicts.

Column names are matched case-sensitively against these synonyms (first match wins):

=============  ==========================================
field          accepted column names
=============  ==========================================
query id       ``query_id``, ``qid``, ``q_id``, ``query``
document id    ``doc_id``, ``docno``, ``docid``, ``doc``
relevance      ``relevance``, ``label``, ``rel``, ``grade``
score          ``score``, ``sim``
iteration      ``iteration``, ``iter``, ``subtopic`` (optional, qrels only; default ``"0"``)
run tag        ``tag``, ``run_tag`` (optional, run only)
=============  ==========================================

Ids (and the iteration and tag) may be strings, categoricals, integers or floats and are
converted to strings: ``301`` and ``301.0`` both become ``"301"`` (pandas turns integer
columns with a missing value into floats), ``301.5`` becomes ``"301.5"``. Other column
types (lists, structs, booleans, binary ...) are refused. Relevance must be integral (an
integer, a float without fraction, a boolean or an integer string) and fit in 64 bits;
the score must be numeric (or a numeric string) and not NaN. A missing value, a NaN or
infinite id, or a duplicated (query, document) pair is an
:class:`~cranfield.errors.InputError` naming the 1-based row (both rows for a duplicate).
A pandas index with a name is read as a column (``df.set_index("qid")`` works); an unnamed
index is ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from cranfield.data.qrels import Qrels
from cranfield.data.run import Run
from cranfield.errors import InputError
from cranfield.io.run_names import run_name
from cranfield.io.sink import replacing

__all__ = [
    "qrels_from_frame",
    "qrels_from_mapping",
    "read_parquet_qrels",
    "read_parquet_run",
    "run_from_frame",
    "run_from_mapping",
    "to_polars_frame",
    "write_parquet",
]

_QUERY = ("query_id", "qid", "q_id", "query")
_DOC = ("doc_id", "docno", "docid", "doc")
_REL = ("relevance", "label", "rel", "grade")
_SCORE = ("score", "sim")
_ITER = ("iteration", "iter", "subtopic")
_TAG = ("tag", "run_tag")

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
            table: pl.DataFrame = pl.from_pandas(obj.reset_index(drop=not named_index))
        except _CONVERSION_ERRORS as exc:
            raise InputError(name, None, f"cannot be converted to a table ({exc})") from exc
        return table
    if module.startswith("pyarrow"):
        converted = pl.from_arrow(obj)
        if isinstance(converted, pl.DataFrame):
            return converted
    raise TypeError(
        f"cannot read judgments or a run from a {type(obj).__name__}; pass a path, a "
        "polars or pandas DataFrame, a pyarrow Table or a dict of dicts"
    )


def _required(frame: pl.DataFrame, names: tuple[str, ...], what: str, label: str) -> str:
    for n in names:
        if n in frame.columns:
            return n
    raise InputError(
        label,
        None,
        f"has no {what} column (looked for {', '.join(names)}; "
        f"found {', '.join(frame.columns) or 'no columns'})",
    )


def _optional(frame: pl.DataFrame, names: tuple[str, ...]) -> str | None:
    return next((n for n in names if n in frame.columns), None)


def _first(mask: pl.Series) -> int:
    """0-based index of the first true value of ``mask`` (which has one)."""
    return int(mask.fill_null(False).arg_true()[0])


def _string_column(values: pl.Series, alias: str, label: str) -> pl.Series:
    """Ids as strings: integral numbers without ``.0``, anything non-id-like refused."""
    dtype = values.dtype
    if dtype == pl.String:
        return values.alias(alias)
    if dtype in (pl.Categorical, pl.Null) or isinstance(dtype, pl.Enum) or dtype.is_integer():
        return values.cast(pl.String).alias(alias)
    if dtype.is_float():
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
    raise InputError(
        label,
        None,
        f"the {values.name} column has type {dtype}; {alias} values must be strings or integers",
    )


def _check_present(column: pl.Series, what: str, label: str) -> None:
    nulls = column.is_null()
    if nulls.any():
        raise InputError(label, _first(nulls) + 1, f"{what} is missing")


def _check_ids(frame: pl.DataFrame, label: str) -> None:
    """No missing ids and no repeated (query_id, doc_id) pair."""
    for col in frame.columns:
        if col in ("query_id", "doc_id", "iteration"):
            _check_present(frame.get_column(col), col, label)
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


def _relevance(values: pl.Series, label: str) -> pl.Series:
    _check_present(values, "relevance", label)
    if values.dtype.is_decimal():
        values = values.cast(pl.Float64)
    dtype = values.dtype
    if dtype.is_float():
        frac = ~values.is_finite() | (values.cast(pl.Float64) % 1 != 0)
        if frac.any():
            row = _first(frac)
            raise InputError(label, row + 1, f"relevance must be an integer, got {values[row]!r}")
    elif not (dtype.is_integer() or dtype in (pl.Boolean, pl.String, pl.Null)):
        raise InputError(
            label,
            None,
            f"the {values.name} column has type {dtype}; relevance must be an integer",
        )
    out = values.cast(pl.Int64, strict=False)
    bad = out.is_null()
    if bad.any():
        row = _first(bad)
        problem = (
            "relevance must be an integer"
            if dtype == pl.String
            else "relevance does not fit in a 64-bit integer"
        )
        raise InputError(label, row + 1, f"{problem}, got {values[row]!r}")
    return out.alias("relevance")


def _score(values: pl.Series, label: str) -> pl.Series:
    _check_present(values, "score", label)
    dtype = values.dtype
    if not (dtype.is_numeric() or dtype in (pl.Boolean, pl.String, pl.Null)):
        raise InputError(
            label, None, f"the {values.name} column has type {dtype}; the score must be a number"
        )
    out = values.cast(pl.Float64, strict=False)
    bad = out.is_null() | out.is_nan()
    if bad.any():
        row = _first(bad)
        if out[row] is not None:
            raise InputError(label, row + 1, "score is NaN")
        raise InputError(label, row + 1, f"score must be a number, got {values[row]!r}")
    return out.alias("score")


def qrels_from_frame(frame: pl.DataFrame, *, source_label: str, name: str) -> Qrels:
    """Validate and normalise a judgments table (see the module notes)."""
    q = _required(frame, _QUERY, "query id", source_label)
    d = _required(frame, _DOC, "document id", source_label)
    r = _required(frame, _REL, "relevance", source_label)
    it = _optional(frame, _ITER)
    iteration = (
        _string_column(frame.get_column(it), "iteration", source_label)
        if it
        else pl.Series("iteration", ["0"] * frame.height, dtype=pl.String)
    )
    out = pl.DataFrame(
        [
            _string_column(frame.get_column(q), "query_id", source_label),
            iteration,
            _string_column(frame.get_column(d), "doc_id", source_label),
        ]
    )
    _check_ids(out, source_label)
    out = out.with_columns(_relevance(frame.get_column(r), source_label))
    return Qrels(out.sort("query_id", "doc_id"), name=name)


def run_from_frame(frame: pl.DataFrame, *, source_label: str, name: str) -> Run:
    """Validate and normalise a run table (see the module notes); rows keep their order."""
    q = _required(frame, _QUERY, "query id", source_label)
    d = _required(frame, _DOC, "document id", source_label)
    s = _required(frame, _SCORE, "score", source_label)
    t = _optional(frame, _TAG)
    out = pl.DataFrame(
        [
            _string_column(frame.get_column(q), "query_id", source_label),
            _string_column(frame.get_column(d), "doc_id", source_label),
        ]
    )
    _check_ids(out, source_label)
    out = out.with_columns(_score(frame.get_column(s), source_label))
    tag = name
    if t is not None and frame.height:
        tags = _string_column(frame.get_column(t), "tag", source_label)
        _check_present(tags, "tag", source_label)
        tag = tags[-1]
    return Run(out, name=name, tag=tag)


def qrels_from_mapping(mapping: Mapping[Any, Mapping[Any, Any]], *, name: str) -> Qrels:
    """Judgments from ``{query_id: {doc_id: relevance}}``; rows are counted in dict order."""
    frame = _flatten(mapping, "relevance")
    return qrels_from_frame(frame, source_label="<dict>", name=name)


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


def read_parquet_qrels(path: str | Path, *, name: str | None = None) -> Qrels:
    """Judgments from a Parquet file with the columns described in this module."""
    frame = _read_parquet(path)
    return qrels_from_frame(frame, source_label=str(path), name=name or Path(path).name)


def read_parquet_run(path: str | Path, *, name: str | None = None) -> Run:
    """A run from a Parquet file with the columns described in this module."""
    frame = _read_parquet(path)
    return run_from_frame(frame, source_label=str(path), name=name or run_name(path))


def _read_parquet(path: str | Path) -> pl.DataFrame:
    try:
        return pl.read_parquet(path)
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InputError(str(path), None, f"cannot read Parquet file ({exc})") from exc


def write_parquet(data: Qrels | Run, path: str | Path) -> None:
    """Write judgments or a run as Parquet (run tag kept in a ``tag`` column)."""
    frame = data.frame
    if isinstance(data, Run):
        frame = frame.with_columns(pl.lit(data.tag, dtype=pl.String).alias("tag"))
    with replacing(path) as tmp:  # whole or not at all (cranfield.io.sink)
        frame.write_parquet(tmp)
