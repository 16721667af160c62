"""Intent-aware (subtopic) qrels: ``qid subtopic docno rel``, one line per judgment.

The second column, which ordinary qrels ignore, is the subtopic (intent) the judgment is
for, as in the TREC Web track's diversity qrels read by ``ndeval``; a document may appear
once per subtopic. A repeated (query, subtopic, document) triple is an error. The file is
read with the rules of :func:`cranfield.io.trec.read_qrels` (:mod:`cranfield.io.lines`: ASCII
blank separators, ``#`` comments, UTF-8, a byte-order mark dropped at the start of the file
only, compression, a 64-bit integer relevance, errors naming file and line).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from cranfield.data.qrels import Qrels
from cranfield.errors import InputError
from cranfield.io import trec
from cranfield.io.lines import BOM, INTEGER, data_lines, int64
from cranfield.io.source import read_bytes, source_name

__all__ = ["IntentQrels", "load_intents", "read_intents"]

INTENT_SCHEMA = {
    "query_id": pl.String,
    "subtopic": pl.String,
    "doc_id": pl.String,
    "relevance": pl.Int64,
}


@dataclass(frozen=True, eq=False)
class IntentQrels:
    """Subtopic judgments: one row per judged (query, subtopic, document) triple.

    The table has the columns ``query_id``, ``subtopic``, ``doc_id`` (strings) and
    ``relevance`` (int64), sorted by query, subtopic and document (bytewise).
    """

    frame: pl.DataFrame
    name: str = "intents"

    def __len__(self) -> int:
        return self.frame.height

    def __repr__(self) -> str:
        topics = self.frame.get_column("query_id").n_unique()
        return f"IntentQrels(name={self.name!r}, topics={topics}, judgments={len(self)})"

    def to_qrels(self) -> Qrels:
        """Ordinary qrels: each (query, document) at its highest level over the subtopics.

        A document relevant to any subtopic is relevant to the query (ndeval's rule for
        its non-intent-aware MAP); the ``iteration`` column is ``"0"``.
        """
        frame = (
            self.frame.group_by("query_id", "doc_id")
            .agg(pl.col("relevance").max())
            .select(
                "query_id",
                pl.lit("0").alias("iteration"),
                "doc_id",
                pl.col("relevance").cast(pl.Int64),
            )
            .sort("query_id", "doc_id")
        )
        return Qrels(frame, name=self.name)


def read_intents(source: str | Path, *, name: str | None = None) -> IntentQrels:
    """Read an intent qrels file (``qid subtopic docno rel``).

    Parameters
    ----------
    source:
        Path of the file (optionally gzip/bzip2/xz/zstd compressed), or ``"-"`` for stdin.
    name:
        Name to give the judgments; defaults to the file name.

    Raises
    ------
    InputError
        On a malformed line or a repeated (query, subtopic, document), naming file,
        line number and text.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "intents.txt"
    >>> _ = path.write_text("1 1 d1 1\\n1 2 d1 1\\n1 2 d2 0\\n")
    >>> read_intents(path).frame.height
    3
    """
    label = source_name(source)
    data = read_bytes(source).removeprefix(BOM)
    # polars drops a byte-order mark at the start of what it parses, but only the file's
    # first one is not text: after it, a second one is part of a field (or of a comment's
    # first field, which then is no comment), so such a file is read line by line.
    frame = None if data.startswith(BOM) else _parsed(data, label)
    if frame is None:
        frame = _read_lines(data, label)
    return IntentQrels(frame.sort("query_id", "subtopic", "doc_id"), name=name or Path(label).name)


def _parsed(data: bytes, label: str) -> pl.DataFrame | None:
    """The judgments parsed by polars, or None if anything is off (a line to find)."""
    try:
        table = trec._parse(data, label, "qrels")
    except InputError:
        return None
    frame = table.select(
        pl.col("f0").alias("query_id"),
        pl.col("f1").alias("subtopic"),
        pl.col("f2").alias("doc_id"),
        pl.col("f3").cast(pl.Int64, strict=False).alias("relevance"),
    )
    if frame.get_column("relevance").null_count():
        return None
    if frame.select(pl.struct("query_id", "subtopic", "doc_id").is_duplicated().any()).item():
        return None
    return frame


def _read_lines(data: bytes, label: str) -> pl.DataFrame:
    """The judgments read line by line with :func:`cranfield.io.lines.data_lines` (the slow,
    exact reading of the format): the first bad line is an error naming it."""
    seen: dict[tuple[bytes, bytes, bytes], int] = {}
    rows: list[tuple[str, str, str, int]] = []
    for number, fields, text in data_lines(data, label):
        if len(fields) != 4:
            raise InputError(
                label,
                number,
                f"expected 4 fields (qid subtopic docno rel), got {len(fields)}",
                text,
            )
        rel = fields[3].decode()
        if not INTEGER.match(rel):
            raise InputError(
                label, number, f"relevance must be a 64-bit integer, got {rel!r}", text
            )
        value = int64(rel)
        if value is None:
            raise InputError(label, number, "relevance does not fit in a 64-bit integer", text)
        key = (fields[0], fields[1], fields[2])
        if key in seen:
            raise InputError(
                label,
                number,
                f"duplicate judgment of document {key[2].decode()!r} for query "
                f"{key[0].decode()!r}, subtopic {key[1].decode()!r} (first seen on line {seen[key]})",
                text,
            )
        seen[key] = number
        rows.append((key[0].decode(), key[1].decode(), key[2].decode(), value))
    if not rows:
        raise InputError(label, None, "contains no intent qrels lines")
    return pl.DataFrame(rows, schema=INTENT_SCHEMA, orient="row")


def load_intents(source: IntentQrels | str | Path | Any, *, name: str | None = None) -> IntentQrels:
    """Intent judgments from a path, an :class:`IntentQrels`, a DataFrame or a nested dict.

    A DataFrame needs the columns ``query_id``, ``subtopic`` (or ``iteration``), ``doc_id``
    and ``relevance``; a dict is ``{query_id: {subtopic: {doc_id: relevance}}}``.

    Raises
    ------
    InputError
        If the input cannot be read as intent judgments.
    """
    if isinstance(source, IntentQrels):
        return source
    if isinstance(source, (str, Path)):
        return read_intents(source, name=name)
    label = f"<{type(source).__name__}>"
    if isinstance(source, Mapping):
        rows = [
            (str(q), str(s), str(d), v)
            for q, subs in source.items()
            for s, docs in subs.items()
            for d, v in docs.items()
        ]
        frame = pl.DataFrame(rows, schema=list(INTENT_SCHEMA), orient="row")
    else:
        from cranfield.io.columnar import to_polars_frame

        frame = to_polars_frame(source, label=label)
        if "subtopic" not in frame.columns and "iteration" in frame.columns:
            frame = frame.rename({"iteration": "subtopic"})
    missing = [c for c in INTENT_SCHEMA if c not in frame.columns]
    if missing:
        raise InputError(label, None, f"intent judgments need the column(s) {', '.join(missing)}")
    try:
        frame = frame.select(
            *(pl.col(c).cast(pl.String) for c in ("query_id", "subtopic", "doc_id")),
            pl.col("relevance").cast(pl.Int64, strict=True),
        )
    except pl.exceptions.PolarsError:
        raise InputError(label, None, "relevance must be integers") from None
    if frame.null_count().sum_horizontal().item():
        raise InputError(label, None, "intent judgments contain missing values")
    if frame.select(pl.struct("query_id", "subtopic", "doc_id").is_duplicated().any()).item():
        raise InputError(label, None, "a (query, subtopic, document) triple is judged twice")
    return IntentQrels(frame.sort("query_id", "subtopic", "doc_id"), name=name or "intents")
