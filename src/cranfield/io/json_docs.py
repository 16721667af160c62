"""THE reading of JSON text into tables: a ranx-style document ``{query: {doc: value}}`` or a
list of row objects, and one JSON Lines row.

Every object is read with its keys in the order written and **every repeat kept**: Python's
``json.loads`` keeps the last of two equal keys, silently, so a query given twice would lose
its first ranking and a document given twice its first value. Here a repeated query holds the
documents of both places (as a query's lines may be apart in TREC text) and a repeated document
is a repeated (query, document) row, which the one duplicates rule decides on (a run refuses
it, qrels follow ``duplicates``: :mod:`cranfield.data.judgments`); a row object that repeats a
key is an error.

A ranx document is read query by query (:meth:`json.JSONDecoder.raw_decode` on each query's
object), its rows gathered into columns of strings every :data:`CHUNK_ROWS` rows, so the memory
it takes follows the data: the text, one query's objects, and the table (``SECURITY.md``).

A JSON number becomes text as a table column of numbers does
(:mod:`cranfield.io.columnar`): an integral float within 64 bits without its ``.0``
(``1.0`` is ``"1"``), others as Python spells them; so an id written ``1.0`` is the query
``"1"`` whatever the other rows hold.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import polars as pl

__all__ = ["CHUNK_ROWS", "RepeatedKeyError", "Table", "json_text", "json_value", "read_document"]

CHUNK_ROWS: Final = 1 << 13
"""How many rows of a ranx document are gathered before they become columns."""

_INT64: Final = 1 << 63


class RepeatedKeyError(ValueError):
    """A JSON row object gives one key twice."""

    def __init__(self, key: str) -> None:
        super().__init__(f"an object gives the key {key!r} twice")
        self.key = key


class _Pairs(list[tuple[str, Any]]):
    """An object's ``(key, value)`` pairs, repeats kept, in the order written."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object as a dict, refusing a key given twice."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise RepeatedKeyError(key)
            seen.add(key)
    return out


_ROWS = json.JSONDecoder(object_pairs_hook=_unique)
_KEPT = json.JSONDecoder(object_pairs_hook=_Pairs)


def json_value(text: bytes | str) -> Any:
    """The JSON value of ``text``, an object that repeats a key refused
    (:class:`RepeatedKeyError`); nesting too deep for Python's parser (a ``RecursionError``) is
    a ``ValueError`` like any other text that is not JSON."""
    try:
        return _ROWS.decode(text.decode() if isinstance(text, bytes) else text)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def json_text(value: object) -> str | None:
    """A JSON value as the text a table column of strings holds: strings as they are, an
    integral float within 64 bits as an integer (``1.0``: ``"1"``), others in JSON."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer() and -_INT64 <= value < _INT64:
        return str(int(value))
    return json.dumps(value)


def rows_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """Rows of JSON objects as a table of strings (numbers by :func:`json_text`; a key a row
    lacks is a null there)."""
    keys: dict[str, None] = {}
    for row in rows:
        keys.update(dict.fromkeys(row))
    return pl.DataFrame(
        {
            key: pl.Series(key, [json_text(row.get(key)) for row in rows], dtype=pl.String)
            for key in keys
        }
    )


@dataclass(frozen=True)
class Table:
    """A JSON document read as a table of strings; ``where(row)`` names a 1-based row's place
    in the text (``query '1', document 'd2'``), for the errors of a document without lines."""

    frame: pl.DataFrame
    where: Callable[[int], str] | None


class DocumentError(ValueError):
    """Text that is not the JSON document expected: ``line`` (1-based, if known) and what."""

    def __init__(self, problem: str, line: int | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line


_BLANKS = " \t\n\r"


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _BLANKS:
        at += 1
    return at


def read_document(data: bytes, value_column: str) -> Table:
    """The table of the JSON document ``data``: ``{query: {doc: value}}`` as the columns
    ``query_id, doc_id, value_column`` (every repeat kept, see the module notes), or a list of
    row objects as their columns.

    Raises
    ------
    DocumentError
        For text that is not JSON (with its line when the parser knows it), a row object
        that repeats a key, or a document of another shape.
    """
    try:
        text = data.decode()
    except UnicodeDecodeError as exc:
        raise DocumentError(f"is not valid JSON (not UTF-8 text: {exc.reason})") from None
    at = _skip(text, 0)
    try:
        if text.startswith("[", at):
            return _row_list(text)
        if not text.startswith("{", at):
            value = json_value(text)  # says why it is not JSON, or what it holds
            raise DocumentError(f"holds a JSON {type(value).__name__}, not an object")
        return _nested(text, at + 1, value_column)
    except RepeatedKeyError as exc:
        raise DocumentError(f"is not valid JSON for a table: {exc}") from None
    except json.JSONDecodeError as exc:
        raise DocumentError(f"is not valid JSON ({exc.msg})", exc.lineno) from None
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, DocumentError):
            raise
        raise DocumentError("is not valid JSON (nested too deeply)") from None


def _row_list(text: str) -> Table:
    value = json_value(text)
    if not all(isinstance(row, dict) for row in value):
        raise DocumentError("is a JSON list whose items are not all objects (rows)")
    return Table(rows_frame(value), None)


def _nested(text: str, at: int, column: str) -> Table:
    """``{query: {doc: value}, ...}`` from just after its ``{``, query by query."""
    frames: list[pl.DataFrame] = []
    queries: list[str] = []
    docs: list[str] = []
    values: list[str | None] = []

    def flush() -> None:
        if docs:
            frames.append(
                pl.DataFrame(
                    {"query_id": queries, "doc_id": docs, column: values},
                    schema={"query_id": pl.String, "doc_id": pl.String, column: pl.String},
                )
            )
            queries.clear()
            docs.clear()
            values.clear()

    at = _skip(text, at)
    if text.startswith("}", at):
        at += 1
    else:
        while True:
            if not text.startswith('"', at):
                raise json.JSONDecodeError(
                    "Expecting property name enclosed in double quotes", text, at
                )
            query, at = _KEPT.raw_decode(text, at)  # a string: it starts with '"'
            at = _skip(text, at)
            if not text.startswith(":", at):
                raise json.JSONDecodeError("Expecting ':' delimiter", text, at)
            ranking, at = _KEPT.raw_decode(text, _skip(text, at + 1))
            if not isinstance(ranking, _Pairs):
                raise DocumentError(
                    f"the value of query {query!r} must be an object of document -> "
                    f"{column}, got a JSON {type(ranking).__name__}"
                )
            for doc, number in ranking:
                queries.append(query)
                docs.append(doc)
                values.append(_value_text(number))
            if len(docs) >= CHUNK_ROWS:
                flush()
            at = _skip(text, at)
            if text.startswith(",", at):
                at = _skip(text, at + 1)
                continue
            if text.startswith("}", at):
                at += 1
                break
            raise json.JSONDecodeError("Expecting ',' delimiter", text, at)
    if _skip(text, at) != len(text):
        raise json.JSONDecodeError("Extra data", text, _skip(text, at))
    flush()
    frame = (
        pl.concat(frames)
        if frames
        else pl.DataFrame(schema={"query_id": pl.String, "doc_id": pl.String, column: pl.String})
    )

    def where(row: int) -> str:
        query, doc = frame.row(row - 1)[:2]
        return f"query {query!r}, document {doc!r}"

    return Table(frame, where)


def _value_text(value: object) -> str | None:
    """A document's value as text; an object (its pairs kept) in JSON."""
    if isinstance(value, _Pairs):
        return json.dumps(dict(value))
    return json_text(value)
