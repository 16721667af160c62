"""Texts by id: the queries and the passages a model judge is shown.

Two formats, told by the first line: JSON Lines (``{"id": ..., "text": ...}``; the id may be
spelled ``query_id``, ``qid``, ``doc_id``, ``docid``, ``_id`` and the text ``contents``,
``passage``, ``query``) or TSV (``id<TAB>text``, no header, the MS MARCO and TREC DL files).
Read whole with :func:`cranfield.io.source.read_bytes` (compression by magic bytes). An empty
id or text, a line without a tab, an id given twice: an :class:`~cranfield.errors.InputError`
naming the file and the line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from cranfield.errors import InputError
from cranfield.io.source import read_bytes, source_name

__all__ = ["read_texts"]

_IDS: Final = ("id", "query_id", "qid", "doc_id", "docid", "_id")
_TEXTS: Final = ("text", "contents", "passage", "query")


def read_texts(source: str | Path) -> dict[str, str]:
    """``{id: text}`` of the file ``source`` (module documentation).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "queries.tsv"
    >>> _ = path.write_text("q1\\twing flutter\\nq2\\tboundary layer\\n")
    >>> read_texts(path)
    {'q1': 'wing flutter', 'q2': 'boundary layer'}
    """
    label = source_name(source)
    try:
        text = read_bytes(source).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(label, None, f"is not UTF-8 text ({exc.reason})") from None
    out: dict[str, str] = {}
    where: dict[str, int] = {}
    as_json = text.lstrip().startswith("{")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if as_json:
            key, value = _json_line(line, label, number)
        else:
            key, tab, value = line.partition("\t")
            if not tab:
                raise InputError(label, number, "has no tab between the id and the text", line)
            key, value = key.strip(), value.strip()
        if not key or not value:
            raise InputError(label, number, "has an empty id or text", line)
        if key in out:
            raise InputError(label, number, f"gives id {key} again (first on line {where[key]})")
        out[key] = value
        where[key] = number
    if not out:
        raise InputError(label, None, "has no texts")
    return out


def _json_line(line: str, label: str, number: int) -> tuple[str, str]:
    try:
        row = json.loads(line)
    except ValueError:
        raise InputError(label, number, "is not a JSON object", line) from None
    if not isinstance(row, dict):
        raise InputError(label, number, "is not a JSON object", line)
    key = next((row[k] for k in _IDS if k in row), None)
    value = next((row[k] for k in _TEXTS if k in row), None)
    if not isinstance(key, (str, int)) or not isinstance(value, str):
        raise InputError(label, number, "has no string id and text", line)
    return str(key).strip(), value.strip()
