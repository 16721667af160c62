"""Parquet qrels and runs (``io/columnar.py``): well-formed files written from generated
tables, with the column synonyms, the column types and the odd values the module notes
name, read as a plain reading of those notes says; a table read is written back and read
again unchanged.

Corrupt Parquet bytes are not generated here (their checks are tested with them)."""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import polars as pl
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from cranfield.data.qrels import Qrels
from cranfield.data.run import Run
from cranfield.io.columnar import read_parquet_qrels, read_parquet_run, write_parquet
from tests.fuzz.checks import attempt, exact_rows, one_line_error
from tests.fuzz.conftest import fuzz
from tests.fuzz.mutations import IDS, rarely

pytestmark = pytest.mark.filterwarnings("ignore::cranfield.errors.QrelsNoteWarning")

# The synonyms of each column, in the documented order (the first one present wins).
QUERY = ("query_id", "qid", "q_id", "query")
DOC = ("doc_id", "docno", "docid", "doc")
RELEVANCE = ("relevance", "label", "rel", "grade")
SCORE = ("score", "sim")
ITERATION = ("iteration", "iter", "subtopic")
TAG = ("tag", "run_tag")

# Values a column of each type may hold (None: missing).
ID_VALUES: dict[str, tuple[Any, ...]] = {
    "string": (*IDS, None),
    "categorical": ("a", "b", "301", "\u00e9", None),
    "int64": (0, 1, 2, -3, 301, 2**62, None),
    "int32": (0, 1, 2, -3, 301, None),
    "uint64": (0, 1, 2, 2**63 + 1, None),
    "float64": (1.0, 2.0, -0.0, 0.5, 301.0, 301.5, 2.0**60, math.nan, math.inf, None),
    "float32": (1.0, 2.0, 0.5, 301.5, None),
    "boolean": (True, False),
}
RELEVANCE_VALUES: dict[str, tuple[Any, ...]] = {
    "int64": (0, 1, 2, -1, 2**62, None),
    "int8": (0, 1, 3, -1),
    "uint64": (0, 1, 2**63 + 5),
    "float64": (0.0, 1.0, 2.0, -1.0, 0.5, math.nan, math.inf, None),
    "boolean": (True, False, None),
    "string": ("1", "-2", "+3", "007", "-0", "1.0", "x", "1e3", "", None),
    "list": ([1], [2]),
}
SCORE_VALUES: dict[str, tuple[Any, ...]] = {
    "float64": (1.0, 2.5, -0.0, 0.0, math.inf, -math.inf, 1e-300, math.nan, None),
    "float32": (1.0, 2.5, 0.375),  # exact in float32
    "int64": (1, -2, 2**62 + 1, None),
    "uint64": (0, 3, 2**64 - 1),
    "boolean": (True, False),
    "string": ("1", "+.5", "5.", "1e3", "inf", "-Infinity", "x", "nan", "", None),
    "list": ([1.0], [2.0]),
}
DTYPES: dict[str, Any] = {
    "string": pl.String,
    "categorical": pl.Categorical,
    "int64": pl.Int64,
    "int32": pl.Int32,
    "int8": pl.Int8,
    "uint64": pl.UInt64,
    "float64": pl.Float64,
    "float32": pl.Float32,
    "boolean": pl.Boolean,
    "list": pl.List(pl.Float64),
}
_NUMBER = r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)"


@dataclass
class Column:
    name: str
    kind: str
    values: list[Any]

    def series(self) -> pl.Series:
        return pl.Series(self.name, self.values, dtype=DTYPES[self.kind], strict=False)


@dataclass
class Verdict:
    """The reference reading: the rows, or the rows a correct reader may name (``None``: a
    column as a whole)."""

    rows: list[tuple[Any, ...]] = field(default_factory=list)
    bad: set[int | None] = field(default_factory=set)
    tag: str | None = None


def _as_id(kind: str, value: Any) -> str | None:
    """An id as text (module notes: integral numbers without ``.0``); None if refused."""
    if value is None:
        return None
    if kind in ("string", "categorical"):
        return str(value)
    if kind.startswith(("int", "uint")):
        return str(value)
    if math.isnan(value) or math.isinf(value):
        return None
    if value == int(value) and -(2**63) <= value < 2**63:
        return str(int(value))
    return repr(value)  # the values generated print the same in Python and polars


def _as_relevance(kind: str, value: Any) -> tuple[int, float] | None:
    """Relevance: a number (integer, finite float, boolean, or a string holding an integer or
    a decimal without exponent) whose integer part fits in 64 bits, as its level (the integer
    part) and its label; None if refused."""
    if value is None:
        return None
    if kind == "string":
        import re

        if not re.fullmatch(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)", value):
            return None
        whole = value.partition(".")[0]
        number = int(whole) if whole.strip("+-") else 0
        label = float(value)
    elif kind == "float64":
        if not math.isfinite(value):
            return None
        number, label = int(value), float(value)  # int() truncates toward zero, as atol
    else:
        number = int(value)
        label = float(number)
    return (number, label) if -(2**63) <= number < 2**63 else None


def _as_score(kind: str, value: Any) -> float | None:
    """Score: a number or a numeric string, not NaN; None if refused."""
    if value is None:
        return None
    if kind == "string":
        import re

        if not re.fullmatch(_NUMBER, value, re.IGNORECASE):
            return None
    number = float(value)
    return None if math.isnan(number) else number


def _pick(columns: list[Column], names: tuple[str, ...]) -> Column | None:
    present = {c.name: c for c in columns}
    return next((present[n] for n in names if n in present), None)


def reference(columns: list[Column], kind: str) -> Verdict:
    """A plain reading of the module notes of ``io/columnar.py``."""
    verdict = Verdict()
    query, doc = _pick(columns, QUERY), _pick(columns, DOC)
    value = _pick(columns, RELEVANCE if kind == "qrels" else SCORE)
    extra = _pick(columns, ITERATION if kind == "qrels" else TAG)
    if query is None or doc is None or value is None:
        verdict.bad.add(None)
        return verdict
    # A tag is read off the last row: the type of an empty tag column does not matter.
    tag = [extra] if extra is not None and (kind == "qrels" or extra.values) else []
    for column in (query, doc, *tag):
        if column.kind == "boolean":
            verdict.bad.add(None)
    if value.kind == "list":
        verdict.bad.add(None)
    # A run refuses a repeated pair; qrels merge a repeat of the first label of the pair
    # (keeping the first row) and refuse another label (duplicates="merge").
    seen: dict[tuple[str, str], Any] = {}
    convert = _as_relevance if kind == "qrels" else _as_score
    for row, (q, d, v) in enumerate(zip(query.values, doc.values, value.values, strict=True)):
        ids = (_as_id(query.kind, q), _as_id(doc.kind, d))
        it = _as_id(extra.kind, extra.values[row]) if extra else "0" if kind == "qrels" else ""
        number = None if value.kind == "list" else convert(value.kind, v)
        label = number[1] if isinstance(number, tuple) else None
        repeat = ids in seen
        if None in ids or it is None or number is None or (repeat and kind == "run"):
            verdict.bad.add(row + 1)
        if repeat and kind == "qrels" and seen[cast("tuple[str, str]", ids)] != label:
            verdict.bad.add(row + 1)
        if None not in ids and not repeat:
            seen[cast("tuple[str, str]", ids)] = label
        if row + 1 in verdict.bad or repeat:
            continue
        if isinstance(number, tuple):
            verdict.rows.append((ids[0], it, ids[1], number[0]))
        else:
            verdict.rows.append((ids[0], ids[1], number))
    if kind == "run" and extra is not None and query.values:
        verdict.tag = _as_id(extra.kind, extra.values[-1])
    return verdict


@st.composite
def tables(draw: st.DrawFn, kind: str) -> list[Column]:
    """A small table of qrels or a run: the columns by one of their names (now and then
    under two, or none), each of a drawn type."""
    n = draw(st.integers(0, 8))
    clean = draw(st.booleans())
    names = [QUERY, DOC, RELEVANCE if kind == "qrels" else SCORE]
    optional = ITERATION if kind == "qrels" else TAG
    if draw(st.booleans()):
        names.append(optional)
    pools = [ID_VALUES, ID_VALUES, RELEVANCE_VALUES if kind == "qrels" else SCORE_VALUES]
    pools.append(ID_VALUES)
    columns: list[Column] = []
    for synonyms, pool in zip(names, pools, strict=False):
        chosen = draw(st.lists(st.sampled_from(synonyms), min_size=0, max_size=2, unique=True))
        if not draw(rarely(10)) and not chosen:
            chosen = [synonyms[0]]  # a required column is rarely left out
        for name in chosen:
            types = list(pool) if draw(rarely(6)) else [t for t in pool if t != "boolean"]
            column_kind = draw(st.sampled_from(types))
            values = draw(st.lists(st.sampled_from(pool[column_kind]), min_size=n, max_size=n))
            if clean:  # the usual table: no missing or refused value
                values = [v for v in values if v is not None and _usable(column_kind, v)]
                values = (values * n)[:n] if values else []
                if len(values) < n:
                    n = len(values)
                    for column in columns:
                        del column.values[n:]
            columns.append(Column(name, column_kind, values))
    return columns


def _usable(kind: str, value: Any) -> bool:
    if isinstance(value, float) and not math.isfinite(value):
        return False
    return kind not in ("list", "boolean") and value not in ("x", "", "nan", "1.0", "1e3", 0.5)


def _frame(columns: list[Column]) -> pl.DataFrame:
    return pl.DataFrame([c.series() for c in columns]) if columns else pl.DataFrame()


def _check(columns: list[Column], kind: str) -> None:
    verdict = reference(columns, kind)
    event("valid" if not verdict.bad else "refused")
    read = read_parquet_qrels if kind == "qrels" else read_parquet_run
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{kind}.parquet"
        _frame(columns).write_parquet(path)
        outcome = attempt(lambda: read(path))
        if verdict.bad:
            error = one_line_error(outcome, path)
            assert error.line in verdict.bad, (str(error), verdict.bad)
            return
        assert isinstance(outcome, (Qrels, Run)), outcome
        if isinstance(outcome, Qrels):
            got = outcome.frame.select("query_id", "iteration", "doc_id", "relevance").rows()
            assert sorted(got) == sorted(verdict.rows)
        else:
            got = outcome.frame.select("query_id", "doc_id", "score").rows()
            assert exact_rows(got) == exact_rows(verdict.rows)
            if verdict.tag is not None:
                assert outcome.tag == verdict.tag
        if not verdict.rows:
            return  # nothing to write back (the tag of a run without rows is its name)
        copy = Path(folder) / "copy.parquet"
        write_parquet(outcome, copy)  # and the values round-trip
        again = read(copy)
        assert again.frame.equals(outcome.frame)
        if isinstance(outcome, Run):
            assert isinstance(again, Run)
            assert again.tag == outcome.tag


@fuzz(150)
@given(columns=tables("qrels"))
def test_parquet_qrels_are_read_as_documented(columns: list[Column]) -> None:
    _check(columns, "qrels")


@fuzz(150)
@given(columns=tables("run"))
def test_parquet_runs_are_read_as_documented(columns: list[Column]) -> None:
    _check(columns, "run")
