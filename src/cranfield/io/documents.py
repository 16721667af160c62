"""Documents and topics as records: JSON Lines and TSV files of ``doc_id``, ``title``, ``text``
(documents) or ``query_id``, ``title``, ``description``, ``narrative`` (topics).

The judging workbench (:mod:`cranfield.workbench`) shows these texts to assessors; TREC's SGML
and XML topic files are read by :func:`cranfield.lab.collections.read_topics`.

* JSON Lines: one object a line, with the id and ``text`` (documents) or ``title`` (topics); the
  other fields are optional strings. ``id``/``_id`` stand for the id (BEIR's spelling), a
  document's ``contents`` for its ``text``.
* TSV: ``doc_id<TAB>title<TAB>text`` or ``doc_id<TAB>text`` a line (documents),
  ``query_id<TAB>title`` (topics); blank lines and lines starting with ``#`` are left out.

Policies: a repeated id, a line that is not an object, a missing id or text, a value that is
not a string are errors naming the file and the line; nothing is skipped or coerced.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Final, NamedTuple

from cranfield.errors import InputError
from cranfield.io.source import read_bytes, source_name

__all__ = ["DocumentRecord", "TopicRecord", "is_json_lines", "read_documents", "read_topic_records"]

_ID_KEYS: Final = {
    "doc": ("doc_id", "docid", "id", "_id"),
    "query": ("query_id", "qid", "id", "_id"),
}


class DocumentRecord(NamedTuple):
    """One document as an assessor reads it."""

    doc_id: str
    title: str
    text: str


class TopicRecord(NamedTuple):
    """One topic as an assessor reads it (TREC's fields; empty when absent)."""

    query_id: str
    title: str
    description: str = ""
    narrative: str = ""


def _text_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    label = source_name(path)
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(label, data[: exc.start].count(b"\n") + 1, "is not UTF-8 text") from exc
    for number, raw in enumerate(text.removesuffix("\n").split("\n"), start=1):
        line = raw.removesuffix("\r")
        if line.strip() and not line.lstrip().startswith("#"):
            yield number, line


def is_json_lines(path: str | Path) -> bool:
    """Whether ``path`` is read as JSON Lines: its name ends in ``.jsonl`` (or ``.json``), or its
    first byte that is not a blank is ``{``."""
    name = str(path).lower()
    for suffix in (".gz", ".bz2", ".xz", ".zst"):
        name = name.removesuffix(suffix)
    if name.endswith((".jsonl", ".json", ".ndjson")):
        return True
    return read_bytes(path).lstrip()[:1] == b"{"


def _field(obj: Mapping[str, object], keys: tuple[str, ...], label: str, line: int) -> str | None:
    for key in keys:
        if key in obj:
            value = obj[key]
            if isinstance(value, int) and not isinstance(value, bool):
                value = str(value)
            if not isinstance(value, str):
                raise InputError(label, line, f"the field {key!r} is not a string", repr(value))
            return value
    return None


def _objects(path: str | Path) -> Iterator[tuple[int, Mapping[str, object]]]:
    label = source_name(path)
    for number, line in _text_lines(path):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(label, number, f"is not JSON ({exc.msg})", line[:80]) from None
        if not isinstance(obj, dict):
            raise InputError(label, number, "is not a JSON object", line[:80])
        yield number, obj


def _unique(records: list[tuple[int, str]], label: str, what: str) -> None:
    seen: set[str] = set()
    for number, key in records:
        if key in seen:
            raise InputError(label, number, f"{what} {key} occurs more than once")
        seen.add(key)


def read_documents(path: str | Path) -> tuple[DocumentRecord, ...]:
    """The documents of a JSON Lines or TSV file (see the module's notes), in file order.

    Raises
    ------
    InputError
        Naming the file and the line: not UTF-8, not JSON, no id, no text, a repeated id.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "docs.jsonl"
    >>> _ = p.write_text('{"doc_id": "d1", "title": "Crime", "text": "Organised crime."}\\n')
    >>> read_documents(p)
    (DocumentRecord(doc_id='d1', title='Crime', text='Organised crime.'),)
    """
    label = source_name(path)
    found: list[DocumentRecord] = []
    lines: list[tuple[int, str]] = []
    if is_json_lines(path):
        for number, obj in _objects(path):
            doc_id = _field(obj, _ID_KEYS["doc"], label, number)
            text = _field(obj, ("text", "contents", "body"), label, number)
            if not doc_id or any(c.isspace() for c in doc_id):
                raise InputError(label, number, "has no 'doc_id' of one word")
            if text is None:
                raise InputError(label, number, f"document {doc_id} has no 'text'")
            title = _field(obj, ("title",), label, number) or ""
            found.append(DocumentRecord(doc_id, title, text))
            lines.append((number, doc_id))
    else:
        for number, line in _text_lines(path):
            parts = line.split("\t")
            if len(parts) not in (2, 3) or not parts[0].strip():
                raise InputError(
                    label, number, "expected 'doc_id<TAB>title<TAB>text' or 'doc_id<TAB>text'"
                )
            doc_id = parts[0].strip()
            title, text = (parts[1], parts[2]) if len(parts) == 3 else ("", parts[1])
            found.append(DocumentRecord(doc_id, title, text))
            lines.append((number, doc_id))
    if not found:
        raise InputError(label, None, "contains no documents")
    _unique(lines, label, "document")
    return tuple(found)


def read_topic_records(path: str | Path) -> tuple[TopicRecord, ...]:
    """The topics of a JSON Lines file: ``query_id`` (or ``id``), ``title`` (or ``query``/
    ``text``), optional ``description`` and ``narrative``.

    Raises
    ------
    InputError
        Naming the file and the line: not JSON, no id, no title, a repeated id.
    """
    label = source_name(path)
    found: list[TopicRecord] = []
    lines: list[tuple[int, str]] = []
    for number, obj in _objects(path):
        query_id = _field(obj, _ID_KEYS["query"], label, number)
        if not query_id or any(c.isspace() for c in query_id):
            raise InputError(label, number, "has no 'query_id' of one word")
        title = _field(obj, ("title", "query", "text"), label, number)
        if not title:
            raise InputError(label, number, f"topic {query_id} has no 'title'")
        description = _field(obj, ("description", "desc", "question"), label, number) or ""
        narrative = _field(obj, ("narrative", "narr"), label, number) or ""
        found.append(TopicRecord(query_id, title, description, narrative))
        lines.append((number, query_id))
    if not found:
        raise InputError(label, None, "contains no topics")
    _unique(lines, label, "topic")
    return tuple(found)
