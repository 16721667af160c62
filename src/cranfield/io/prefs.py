"""Preference judgments (trec_eval ``-R prefs``) and judgment-group qrels (``-R qrels_jg``).

Two text formats, both whitespace separated, one judgment per line:

* **prefs**: ``qid jg jsg docno rel_level``. ``jg`` names a judgment group (one user's
  consistent view of the topic), ``jsg`` a judgment sub-group inside it; within a sub-group
  every document with a higher ``rel_level`` is preferred to every document with a lower
  one. ``rel_level`` is a real number; ``0.0`` conventionally means "not relevant".
* **qrels_jg**: ``qid jg docno rel``, an ordinary qrels file whose second column is the
  judgment group instead of the ignored iteration. The same document may be judged in
  several groups, but only once per group.

trec_eval's ``-R qrels_prefs`` reads an ordinary qrels file as prefs (group = second
column, one sub-group ``"0"`` per group, level = relevance); :func:`prefs_from_qrels` does
that conversion on a table already read.

Reading policy (as in :mod:`cranfield.io.trec`, through the same :mod:`cranfield.io.lines`
and :mod:`cranfield.io.source`): fields are split on ASCII blanks, blank lines and lines
whose first non-blank character is ``#`` are skipped (a ``#`` inside a field is data), the
text must be UTF-8 throughout (comment lines included) and a byte-order mark at its start is
dropped, files may be compressed, ``-`` is standard input. Deliberately stricter
than trec_eval, which parses numbers with ``atof``/``atol``: a ``rel_level`` that is not a
decimal number (or is NaN), a qrels_jg relevance that is not an integer or does not fit in
64 bits, a wrong number of fields and a repeated line key are errors naming the file, the
line and its text. A ``rel_level`` is a double, as for trec_eval: a huge one is a huge
level, beyond about 1.8e308 it is infinite.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import polars as pl

from cranfield.data.qrels import QRELS_SCHEMA, Qrels
from cranfield.errors import InputError
from cranfield.io.lines import BOM, INTEGER, NUMBER, data_lines, int64
from cranfield.io.source import read_bytes, source_name

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

__all__ = [
    "PREFS_SCHEMA",
    "prefs_from_qrels",
    "read_prefs",
    "read_qrels_jg",
    "read_qrels_prefs",
]

PREFS_SCHEMA = {
    "query_id": pl.String,
    "jg": pl.String,
    "jsg": pl.String,
    "doc_id": pl.String,
    "rel_level": pl.Float64,
}


def read_prefs(source: str | Path) -> pl.DataFrame:
    """Read a trec_eval preferences file (``qid jg jsg docno rel_level``).

    Parameters
    ----------
    source:
        Path of the file (optionally gzip/bzip2/xz/zstd compressed), or ``"-"`` for stdin.

    Returns
    -------
    polars.DataFrame
        Columns ``query_id``, ``jg``, ``jsg``, ``doc_id`` (strings) and ``rel_level``
        (float64), one row per line, sorted by ``query_id`` (bytewise) and otherwise in
        file order.

    Raises
    ------
    InputError
        A line without exactly five fields, a ``rel_level`` that is not a number or is
        NaN, the same document twice in one sub-group of one group, invalid UTF-8, or a
        file without any data line. The message names the file, the line and its text.

    Notes
    -----
    trec_eval reads ``rel_level`` with ``atof`` (``abc`` silently becomes 0.0) and counts
    a document listed twice at one level of a single-sub-group group twice; both are
    errors here, so every file cranfield accepts means the same to both programs.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".prefs", delete=False) as f:
    ...     _ = f.write("q1 user1 s1 d1 2\\n# a comment\\nq1 user1 s1 d2 0.5\\n")
    >>> read_prefs(f.name).rows()
    [('q1', 'user1', 's1', 'd1', 2.0), ('q1', 'user1', 's1', 'd2', 0.5)]
    >>> os.unlink(f.name)
    """
    label = source_name(source)
    rows: list[tuple[str, str, str, str, float]] = []
    seen: dict[tuple[str, str, str, str], int] = {}
    for number, fields, text in _data_lines(source, label):
        if len(fields) != 5:
            raise InputError(
                label,
                number,
                f"expected 5 fields (qid jg jsg docno rel_level), got {len(fields)}",
                text,
            )
        qid, jg, jsg, docno, level_text = fields
        if not NUMBER.match(level_text):
            raise InputError(label, number, f"rel_level must be a number, got {level_text!r}", text)
        level = float(level_text)
        if math.isnan(level):
            raise InputError(label, number, "rel_level is NaN", text)
        key = (qid, jg, jsg, docno)
        if key in seen:
            raise InputError(
                label,
                number,
                f"duplicate document {docno!r} in sub-group {jsg!r} of judgment group "
                f"{jg!r} for query {qid!r} (first seen on line {seen[key]})",
                text,
            )
        seen[key] = number
        rows.append((qid, jg, jsg, docno, level))
    if not rows:
        raise InputError(label, None, "contains no prefs lines")
    frame = pl.DataFrame(rows, schema=PREFS_SCHEMA, orient="row")
    return frame.sort("query_id", maintain_order=True)


def read_qrels_jg(source: str | Path) -> pl.DataFrame:
    """Read a judgment-group qrels file (``qid jg docno rel``; trec_eval ``-R qrels_jg``).

    Parameters
    ----------
    source:
        Path of the file (optionally compressed), or ``"-"`` for stdin.

    Returns
    -------
    polars.DataFrame
        The qrels columns ``query_id``, ``iteration`` (here: the judgment group),
        ``doc_id`` (strings) and ``relevance`` (int64), sorted by ``query_id``,
        ``iteration`` and ``doc_id`` (bytewise). Unlike :func:`cranfield.load_qrels`, a
        document may occur once in each group. Negative relevance means "in the pool but
        not judged", as everywhere in trec_eval.

    Raises
    ------
    InputError
        A line without exactly four fields, a relevance that is not an integer or does not
        fit in 64 bits (trec_eval's ``atol`` would clip it), a document twice in one group of
        one query (trec_eval: ``duplicate docs``), invalid UTF-8, or no data line at all.
    """
    label = source_name(source)
    rows: list[tuple[str, str, str, int]] = []
    seen: dict[tuple[str, str, str], int] = {}
    for number, fields, text in _data_lines(source, label):
        if len(fields) != 4:
            raise InputError(
                label, number, f"expected 4 fields (qid jg docno rel), got {len(fields)}", text
            )
        qid, jg, docno, rel_text = fields
        if not INTEGER.match(rel_text):
            raise InputError(label, number, f"relevance must be an integer, got {rel_text!r}", text)
        rel = int64(rel_text)
        if rel is None:
            raise InputError(label, number, "relevance does not fit in a 64-bit integer", text)
        key = (qid, jg, docno)
        if key in seen:
            raise InputError(
                label,
                number,
                f"duplicate document {docno!r} in judgment group {jg!r} for query {qid!r} "
                f"(first seen on line {seen[key]})",
                text,
            )
        seen[key] = number
        rows.append((qid, jg, docno, rel))
    if not rows:
        raise InputError(label, None, "contains no qrels lines")
    frame = pl.DataFrame(rows, schema=QRELS_SCHEMA, orient="row")
    return frame.sort("query_id", "iteration", "doc_id")


def read_qrels_prefs(source: str | Path) -> pl.DataFrame:
    """Read a qrels file as preferences, as trec_eval ``-R qrels_prefs`` does.

    Equivalent to ``prefs_from_qrels(read_qrels_jg(source))``: the second column is the
    judgment group, so one document may be judged once per group.
    """
    return prefs_from_qrels(read_qrels_jg(source))


def prefs_from_qrels(qrels: pl.DataFrame | Qrels) -> pl.DataFrame:
    """Turn ordinary qrels into preference judgments the way ``-R qrels_prefs`` does.

    Parameters
    ----------
    qrels:
        A :class:`~cranfield.data.qrels.Qrels` or a frame with the qrels columns
        ``query_id``, ``iteration``, ``doc_id`` and ``relevance``.

    Returns
    -------
    polars.DataFrame
        A prefs frame (see :func:`read_prefs`): ``jg`` is the ``iteration`` column,
        ``jsg`` is ``"0"`` everywhere and ``rel_level`` is the relevance as a float.

    Notes
    -----
    Every group thus has a single sub-group, so its preferences are complete: each
    document is preferred to every document of the group at a lower level. Negative
    relevance values are kept as levels (trec_eval reads them with ``atof``), so an
    "unjudged" ``-1`` document is a level below the non-relevant ``0`` ones and is
    counted as non-relevant by the ``prefs_avgjg_Rnonrel`` measures.

    Examples
    --------
    >>> import polars as pl
    >>> q = pl.DataFrame({"query_id": ["1", "1"], "iteration": ["0", "0"],
    ...                   "doc_id": ["a", "b"], "relevance": [1, 0]})
    >>> prefs_from_qrels(q).rows()
    [('1', '0', '0', 'a', 1.0), ('1', '0', '0', 'b', 0.0)]
    """
    frame = qrels.frame if isinstance(qrels, Qrels) else qrels
    missing = [c for c in QRELS_SCHEMA if c not in frame.columns]
    if missing:
        raise InputError(
            "<qrels DataFrame>", None, f"is missing the column(s) {', '.join(missing)}"
        )
    return frame.select(
        pl.col("query_id").cast(pl.String),
        pl.col("iteration").cast(pl.String).alias("jg"),
        pl.lit("0", dtype=pl.String).alias("jsg"),
        pl.col("doc_id").cast(pl.String),
        pl.col("relevance").cast(pl.Float64).alias("rel_level"),
    ).sort("query_id", maintain_order=True)


def _data_lines(source: str | Path, label: str) -> Iterator[tuple[int, list[str], str]]:
    """``(line number, fields, stripped text)`` of each data line of ``source``."""
    data = read_bytes(source).removeprefix(BOM)
    for number, fields, text in data_lines(data, label):
        yield number, [field.decode() for field in fields], text
