"""TREC text formats: qrels (``qid iter docno rel``) and runs (``qid iter docno rank score tag``).

Reading policy (every point is deliberate and tested):

* Fields are separated by any run of blanks (space, tab, CR, VT, FF: the ASCII blanks of
  C's ``isspace``; a no-break space or other Unicode blank is part of a field); leading and
  trailing blanks are ignored, so CR-LF files work. Blank lines are skipped.
* A line whose first non-blank character is ``#`` is a comment, anywhere in the file and any
  number in a row (trec_eval 10 crashes on some of these; cranfield accepts them). A ``#``
  inside a field is data: ``msmarco_doc_00#4`` is a valid docno.
* Files may be gzip, bzip2, xz or zstd compressed (recognised by their first bytes, not
  the name); a truncated or corrupt compressed file is an error. ``-`` reads standard input.
* Qrels lines have exactly 4 fields; the relevance is an integer that fits in 64 bits, or
  a decimal without exponent (``1.7``, ``.5``: LLM-judged or averaged labels). The level of
  a decimal label is its integer part (``1.7`` is level 1, as trec_eval's ``atol`` reads
  it): binary measures count it relevant at level ``L`` exactly when the label is ``>= L``.
  The labels themselves are kept in a ``gain`` column, used as gains by the measures
  :mod:`cranfield.data.judgments` names, and the first such line is named in the qrels'
  notes. Negative relevance means "in the pool, not judged", as in trec_eval.
* Run lines have at least 6 fields; fields after the sixth are ignored (as trec_eval does).
  The rank field is ignored entirely. The score must be a decimal number (``inf`` allowed,
  ``nan`` refused). The run tag reported for the run is the tag of its last line.
* A repeated (query, document) pair is an error in runs, reported with both line numbers.
  trec_eval only notices duplicates inside the part of a run it evaluates. In qrels, what a
  repeat does is the ``duplicates`` policy of :func:`read_qrels`: by default lines with the
  same relevance are merged (and the merge is named in the qrels' notes), different
  relevances are an error naming both lines.
* A file with no data line at all is an error.
* The text must be UTF-8 throughout, comment lines included. A UTF-8 byte-order mark at
  the very start of the file is not text and is dropped.

Every error names the file, the physical line number (1-based, counting blank and comment
lines) and the offending text.
"""

from __future__ import annotations

import codecs
import itertools
import math
import os
import re
import stat
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, NoReturn

import numpy as np
import polars as pl

from cranfield._types import DUPLICATE_POLICIES, DuplicatePolicy, InputKind
from cranfield._validate import check_choice
from cranfield.data.judgments import (
    LABEL_TEXT,
    decimal_note,
    integer_parts,
    label_text,
    merge_repeats,
    noted,
    with_gains,
)
from cranfield.data.qrels import Qrels
from cranfield.data.ranking import joined_tie_orders, tie_order
from cranfield.data.row_index import (
    TieOrder,
    block_rows,
    hashed_keys,
    mixed_keys,
    pairs_differ_by_hash,
    stretches,
)
from cranfield.data.run import Run
from cranfield.errors import InputError
from cranfield.io.limits import first_long_line, in_memory, max_line_bytes
from cranfield.io.lines import (
    BLANKS,
    BOM,
    INTEGER,
    NUMBER,
    data_lines,
    field_count,
    int64,
    lines,
    no_bad_line,
)
from cranfield.io.run_names import run_name
from cranfield.io.sink import replacing
from cranfield.io.source import (
    MAGIC_BYTES,
    Digest,
    compression,
    read_bytes,
    short_lines,
    source_name,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from numpy.typing import NDArray

__all__ = ["read_qrels", "read_run", "run_lines", "write_qrels", "write_run", "write_run_parts"]

Kind = InputKind


def read_qrels(
    source: str | Path, *, name: str | None = None, duplicates: DuplicatePolicy = "merge"
) -> Qrels:
    """Read a TREC qrels file (``qid iter docno rel``).

    Parameters
    ----------
    source:
        Path of the file (optionally gzip/bzip2/xz/zstd compressed), or ``"-"`` for stdin.
    name:
        Name to give the judgments; defaults to the file name.
    duplicates:
        A (query, document) pair on several lines: ``"merge"`` (default) makes lines with the
        same relevance one judgment and refuses different relevances; ``"error"`` refuses
        any repeat (trec_eval); ``"first"``, ``"last"`` or ``"max"`` keep that relevance.
        What was merged is stated in :attr:`Qrels.notes <cranfield.data.qrels.Qrels.notes>`.

    Raises
    ------
    InputError
        On any malformed line, naming file, line number and text.
    """
    check_choice("duplicates", duplicates, DUPLICATE_POLICIES)
    label = source_name(source)
    with in_memory(label):  # out of memory: an error naming the file, not a traceback
        return read_qrels_bytes(read_bytes(source), label, name=name, duplicates=duplicates)


def read_qrels_bytes(
    data: bytes, label: str, *, name: str | None = None, duplicates: DuplicatePolicy = "merge"
) -> Qrels:
    """Parse the bytes of a qrels file named ``label`` (see :func:`read_qrels`)."""
    check_choice("duplicates", duplicates, DUPLICATE_POLICIES)
    with in_memory(label):
        data = data.removeprefix(BOM)
        table = _parse(data, label, "qrels", duplicates)
        frame = table.select(
            pl.col("f0").alias("query_id"),
            pl.col("f1").alias("iteration"),
            pl.col("f2").alias("doc_id"),
            pl.col("f3").cast(pl.Int64, strict=False).alias("relevance"),
        )
        notes: tuple[str, ...] = ()
        if frame.get_column("relevance").null_count():
            frame, notes = _fractional(table.get_column("f3"), frame, data, label, duplicates)
        ordered = frame.sort("query_id", "doc_id")
        if _sorted_has_repeats(ordered):
            if duplicates == "error":
                _diagnose(data, label, "qrels", duplicates)
            ordered, merged = _merged(frame, data, label, duplicates)
            notes += merged
        return noted(Qrels(ordered, name=name or Path(label).name, notes=notes))


DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+)\Z")
"""A decimal relevance label without exponent (``1.7``, ``.5``, ``2.``)."""


def _fractional(
    text: pl.Series, frame: pl.DataFrame, data: bytes, label: str, duplicates: DuplicatePolicy
) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """``frame`` whose relevance column failed to read as integers, read again with decimal
    labels (:mod:`cranfield.data.judgments`): levels are their integer parts, the labels a
    ``gain`` column. Anything that is not an integer or a decimal is diagnosed."""
    if not text.str.contains(LABEL_TEXT).all():
        _diagnose(data, label, "qrels", duplicates)
    gain = text.cast(pl.Float64, strict=False)
    level = integer_parts(text)
    if gain.null_count() or level.null_count():
        _diagnose(data, label, "qrels", duplicates)
    fractional = int(text.str.contains(".", literal=True).sum())
    line, value = first_decimal_label(data, label)
    note = decimal_note(f"{label}:{line}", fractional, value)
    return with_gains(frame, level, gain), (note,)


def first_decimal_label(data: bytes, label: str) -> tuple[int, str]:
    """The physical line number and the text of the first decimal relevance label of the
    qrels text ``data`` (which must have one)."""
    for number, fields, _ in data_lines(data, label, max_fields=4):
        if len(fields) == 4 and b"." in fields[3]:
            return number, fields[3].decode()
    raise InputError(label, None, "has no decimal relevance label")


def _merged(
    frame: pl.DataFrame, data: bytes, label: str, duplicates: DuplicatePolicy
) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """The qrels ``frame`` (in file order) with one row per (query, document), sorted, and
    the note saying what was merged (:func:`~cranfield.data.judgments.merge_repeats`); a
    conflict the policy does not resolve is diagnosed, naming both lines."""

    def refuse() -> NoReturn:
        _diagnose(data, label, "qrels", duplicates)

    return merge_repeats(frame, label, duplicates, refuse)


def read_run(source: str | Path, *, name: str | None = None, float32: bool = False) -> Run:
    """Read a TREC run file (``qid iter docno rank score tag``).

    Parameters
    ----------
    source:
        Path of the file (optionally compressed), or ``"-"`` for stdin.
    name:
        Name of the run; defaults to the file name.
    float32:
        Round scores to float32 while reading (trec_eval 9.x and pytrec_eval semantics).
        Usually passed to :func:`cranfield.evaluate` instead.

    Raises
    ------
    InputError
        On any malformed line, naming file, line number and text.
    """
    label = source_name(source)
    with in_memory(label):
        handle = None if label == "<stdin>" else _regular_handle(Path(source))
        if handle is not None:
            with handle:
                blocks = _fast_run_blocks(handle)
        else:
            blocks = None
        if blocks is None:
            data = read_bytes(source).removeprefix(BOM)
            return read_run_bytes(data, label, name=name, float32=float32)
        if blocks.faulty:
            _diagnose(read_bytes(source).removeprefix(BOM), label, "run")
        # What the blocks' checks learnt is handed on; the tie order is that of the scores read.
        return Run.indexed(
            _rounded(blocks.frame, float32),
            name=name or run_name(label),
            tag=blocks.tag,
            query_stretches=blocks.query_stretches,
            doc_keys=blocks.doc_keys,
            tie_order=None if float32 else blocks.tie_order,
        )


def read_run_bytes(
    data: bytes, label: str, *, name: str | None = None, float32: bool = False
) -> Run:
    """Parse the bytes of a run file named ``label`` (see :func:`read_run`)."""
    fast = _fast_run(data)
    if fast is not None:
        frame, tag = fast
    else:
        table = _parse(data, label, "run")
        frame = table.select(
            pl.col("f0").alias("query_id"),
            pl.col("f2").alias("doc_id"),
            pl.col("f4").cast(pl.Float64, strict=False).alias("score"),
        )
        tag = table.get_column("f5")[-1]
    if _run_is_faulty(frame):
        _diagnose(data, label, "run")
    return _run(frame, tag, label, name, float32)


def _run_is_faulty(frame: pl.DataFrame) -> bool:
    """Whether a parsed run has a missing or NaN score or a repeated (query, document)."""
    score = frame.get_column("score")
    return bool(score.null_count() or score.is_nan().any() or _has_duplicates(frame))


def _run(frame: pl.DataFrame, tag: str, label: str, name: str | None, float32: bool) -> Run:
    return Run(_rounded(frame, float32), name=name or run_name(label), tag=tag)


def _rounded(frame: pl.DataFrame, float32: bool) -> pl.DataFrame:
    """``frame``, its scores rounded to float32 if asked."""
    if float32:
        return frame.with_columns(pl.col("score").cast(pl.Float32).cast(pl.Float64))
    return frame


# Plain run files are parsed this many bytes at a time, so the whole text is never in memory
# next to its parsed columns (on a 7M-line run that takes a third off the peak memory).
BLOCK_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True, eq=False)
class _BlockRead:
    """A run file read block by block, with what the checks learnt on the way."""

    frame: pl.DataFrame
    tag: str  # of the last line
    faulty: bool  # a (query, document) pair repeats, or a score is NaN
    query_stretches: tuple[list[str], NDArray[np.int64]]  # see Run.query_stretches
    tie_order: TieOrder  # see Run.known_tie_order
    doc_keys: NDArray[np.uint32]  # see Run.doc_keys


def read_run_handle(
    handle: BinaryIO, label: str, *, name: str | None = None, digest: Digest | None = None
) -> Run:
    """A TREC run from an open regular file that is not compressed, read once: block by
    block on the fast path (see :func:`read_run`), else whole, the careful way, from its
    start through the same handle. ``digest``: the bytes read are hashed into it.

    Raises
    ------
    InputError
        On any malformed line, naming file, line number and text.
    """
    with in_memory(label):
        blocks = _fast_run_blocks(handle, digest=digest)
        if blocks is not None and digest is not None:
            digest.done()  # every block was read, from the first byte to the last
        if blocks is None:
            data = _again(handle, label, digest).removeprefix(BOM)
            return read_run_bytes(data, label, name=name)
        if blocks.faulty:
            _diagnose(_again(handle, label, None).removeprefix(BOM), label, "run")
        return Run.indexed(
            blocks.frame,
            name=name or run_name(label),
            tag=blocks.tag,
            query_stretches=blocks.query_stretches,
            doc_keys=blocks.doc_keys,
            tie_order=blocks.tie_order,
        )


def _again(handle: BinaryIO, label: str, digest: Digest | None) -> bytes:
    """The whole text of an open regular file, read again from its start (its lines checked),
    hashed into ``digest`` anew."""
    handle.seek(0)
    data = handle.read()
    if digest is not None:
        digest.restart()
        digest.update(data)
        digest.done()
    return short_lines(data, label)


def _regular_handle(path: Path) -> BinaryIO | None:
    """``path`` opened, if it is a regular file; ``None`` for a pipe (``<(zcat run.gz)``,
    which can be opened and read only once) or a file that cannot be opened (the careful
    reader says why)."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return None
        return path.open("rb")
    except OSError:
        return None


def _fast_run_blocks(
    handle: BinaryIO, block_bytes: int | None = None, *, digest: Digest | None = None
) -> _BlockRead | None:
    """Parse an uncompressed run file block by block (cut at line ends) on the fast path.

    Returns the frame and what was learnt checking it; or ``None`` (read the whole file
    the careful way) when the file cannot be opened, is not a regular file, is
    compressed or empty, or any block is not clean in the sense of :func:`_fast_run`. Every
    block is parsed exactly as the whole file would have been.

    Repeats are looked for inside each block, then among the lines of the queries found in
    more than one block (in a file grouped by query, only the queries cut by a block end),
    which covers every pair while keeping each sort block-sized.
    """
    size = block_bytes or BLOCK_BYTES
    try:
        handle.seek(0)
        total = os.fstat(handle.fileno()).st_size
    except OSError:
        return None
    frames: list[pl.DataFrame] = []
    if compression(handle.read(MAGIC_BYTES)) is not None:
        return None
    longest = max_line_bytes()
    cuts = _cut_points(handle, total, size, longest)
    if cuts is None:
        return None
    handle.seek(0)
    # Two blocks are parsed at once (one parse alone leaves a core idle part of the time)
    # and each parsed block is checked on another thread while later blocks are read and
    # parsed (parses and most checks release the GIL), so the checks cost little wall
    # time. The checks fall behind the parses: with one checking thread the last blocks
    # were checked one after the other once the parsing was done, a core idle; two can
    # check them side by side (BENCHMARKS.md has the figures).
    with ThreadPoolExecutor(2) as parsers, ThreadPoolExecutor(2) as checker:
        parsing: deque[tuple[bytes, Future[tuple[pl.DataFrame, int] | None]]] = deque()
        checks = []
        for start, end in itertools.pairwise(cuts):
            block = handle.read(end - start)
            if digest is not None:
                digest.update_later(block)  # hashed on its own thread while it is parsed
            if start == 0:
                block = block.removeprefix(BOM)
            if first_long_line(block, longest) is not None:
                return None
            parsing.append((block, parsers.submit(_parse_plain, block)))
            while len(parsing) > 1 or (parsing and end == cuts[-1]):
                text, parse = parsing.popleft()
                parsed = parse.result()
                if parsed is None:
                    return None
                checks.append(checker.submit(_check_block, text, *parsed))
                frames.append(parsed[0])
        summaries = [done.result() for done in checks]
    if not all(summary.clean for summary in summaries):
        return None
    whole = pl.concat(frames, rechunk=False)  # never empty: an empty file is not clean
    faulty = any(summary.faulty for summary in summaries)
    seen: set[str] = set()
    spanning: set[str] = set()
    for summary in summaries:
        queries = set(summary.queries)
        spanning |= queries & seen
        seen |= queries
    query_stretches = _joined_stretches(summaries)
    if spanning and not faulty:
        faulty = _has_duplicates(whole[_rows_of(query_stretches, spanning)])
    starts = np.cumsum([0] + [frame.height for frame in frames[:-1]]).tolist()
    ties = joined_tie_orders([s.tie_order for s in summaries], starts, whole, query_stretches[1])
    keys = np.concatenate([summary.doc_keys for summary in summaries])
    return _BlockRead(whole, summaries[-1].tag, faulty, query_stretches, ties, keys)


def _cut_points(handle: BinaryIO, total: int, size: int, longest: int) -> list[int] | None:
    """Where the blocks of a file of ``total`` bytes start, and where the last one ends: the
    first line end at or after every multiple of the block ``size``, found by short reads,
    so that each block is read once and never copied; ``None`` if a line of more than
    ``longest`` bytes is met (the careful reader names it)."""
    cuts = [0]
    while cuts[-1] + size < total:
        handle.seek(cuts[-1] + size - 1)
        newline = _line_end(handle, longest + 1)
        if newline is None and handle.tell() < total:
            return None
        if newline is None:
            break
        cuts.append(cuts[-1] + size + newline)
    if total > cuts[-1] or total == 0:
        cuts.append(total)
    return cuts


def _line_end(handle: BinaryIO, most: int) -> int | None:
    """Where the first line end is among the next ``most`` bytes of ``handle``, counted
    from where it stands; ``None`` if there is none among them (or before the file ends)."""
    seen = 0
    while seen < most and (more := handle.read(min(1 << 16, most - seen))):
        newline = more.find(b"\n")
        if newline >= 0:
            return seen + newline
        seen += len(more)
    return None


@dataclass(frozen=True)
class _BlockSummary:
    """What the checking thread learnt about one parsed block."""

    clean: bool  # the text is clean in the sense of :func:`_fast_run`
    faulty: bool  # a (query, document) pair repeats inside the block, or a score is NaN
    queries: list[str]  # query of each stretch of consecutive lines, in order
    lengths: NDArray[np.int64]  # number of lines of each stretch
    tie_order: TieOrder  # of the block alone
    doc_keys: NDArray[np.uint32]  # of the block's lines (empty if not clean)
    tag: str  # of the block's last line (empty if not clean)


def _check_block(block: bytes, frame: pl.DataFrame, sep: int) -> _BlockSummary:
    """Check a block parsed with separator ``sep`` (clean bytes, no comment line, no
    repeated pair) and order it."""
    queries, lengths = stretches(frame.get_column("query_id"))
    clean = _plain_text(block) and _six_fields(block, frame.height, sep)
    if not clean or any(query.startswith("#") for query in queries):
        nothing = np.zeros(0, dtype=np.int64)
        no_ties = TieOrder(False, nothing, nothing)
        return _BlockSummary(False, False, queries, lengths, no_ties, np.zeros(0, np.uint32), "")
    scores = frame.get_column("score").to_numpy()
    ties = tie_order(scores, frame.get_column("doc_id"), lengths)
    doc_hash = frame.get_column("doc_id").hash().to_numpy()
    faulty = bool(np.isnan(scores).any()) or _repeats_in(frame, queries, lengths, doc_hash)
    tag = _last_tag(block, sep)
    return _BlockSummary(True, faulty, queries, lengths, ties, hashed_keys(doc_hash), tag)


def _joined_stretches(summaries: list[_BlockSummary]) -> tuple[list[str], NDArray[np.int64]]:
    """The stretches of the whole file: a query cut by a block end continues in the next."""
    queries: list[str] = []
    continued: list[int] = []
    for summary in summaries:
        if queries and summary.queries[0] == queries[-1]:
            continued.append(len(queries))
        queries.extend(summary.queries)
    lengths = np.concatenate([summary.lengths for summary in summaries])
    if not continued:
        return queries, lengths
    first = np.ones(len(queries), dtype=bool)
    first[continued] = False
    starts = np.flatnonzero(first)
    return [queries[k] for k in starts], np.add.reduceat(lengths, starts)


def _rows_of(
    query_stretches: tuple[list[str], NDArray[np.int64]], queries: set[str]
) -> NDArray[np.signedinteger[Any]]:
    """The rows of these queries, from the stretches (no pass over the query column)."""
    names, lengths = query_stretches
    pick = pl.Series(names, dtype=pl.String).is_in(list(queries)).to_numpy()
    return block_rows((np.cumsum(lengths) - lengths)[pick], lengths[pick])


def _repeats_in(
    frame: pl.DataFrame,
    queries: list[str],
    lengths: NDArray[np.int64],
    doc_hash: NDArray[np.uint64] | None = None,
) -> bool:
    """Whether a (query, document) pair repeats in a frame whose stretches are given
    (``doc_hash``: the doc ids' ``Series.hash()``, if already computed).

    Each line is keyed by a number for its query mixed with the hash of its document;
    equal neighbours after sorting the keys are the only candidates for the exact check.
    """
    number = {query: k for k, query in enumerate(dict.fromkeys(queries))}
    group = np.array([number[q] for q in queries], dtype=np.uint64)
    hashes = frame.get_column("doc_id").hash().to_numpy() if doc_hash is None else doc_hash
    key = mixed_keys(group, hashes, lengths)
    key.sort()
    if not (key[1:] == key[:-1]).any():
        return False
    return bool(frame.select(pl.struct("query_id", "doc_id").is_duplicated().any()).item())


_FAST_RUN_SCHEMA = {
    "f0": pl.String,
    "f1": pl.String,
    "f2": pl.String,
    "f3": pl.String,
    "f4": pl.Float64,
    "f5": pl.String,
    # Only there to be null: any seventh field is non-null or fails to parse. Boolean, as the
    # cheapest column to fill (a null string column costs 16 bytes a line).
    "f6": pl.Boolean,
}


def _fast_run(data: bytes) -> tuple[pl.DataFrame, str] | None:
    """Parse a clean run file in one projected pass, or return ``None`` to take the careful path.

    Clean means: ASCII or valid UTF-8, fields separated by single spaces or by single tabs,
    no CR, exactly six fields per line, no comment or blank line. Only the query, document
    and score columns are materialised (see :func:`_parse_plain` and :func:`_six_fields`
    for how a line of five or seven fields is caught); the tag is read off the last line.
    """
    if not _plain_text(data):
        return None
    parsed = _parse_plain(data)
    if parsed is None or not _six_fields(data, parsed[0].height, parsed[1]):
        return None
    frame, sep = parsed
    if frame.get_column("query_id").str.starts_with("#").any():
        return None
    return frame, _last_tag(data, sep)


def _plain_text(data: bytes) -> bool:
    """Valid UTF-8 (usually plain ASCII) without CR, VT or FF."""
    if not data or (not data.isascii() and not _is_utf8(data)):
        return False
    return not (b"\r" in data or b"\x0b" in data or b"\x0c" in data)


def _six_fields(data: bytes, lines: int, sep: int) -> bool:
    """Whether every line of ``data``, which polars parsed into ``lines`` rows with
    :func:`_parse_plain` and the separator ``sep``, has six fields separated by five single
    ``sep`` bytes.

    polars makes a row of every line (of nulls for a blank one). Given that no row had a
    seventh field, no separator is doubled and none ends a line, every line has at most
    five separators; so five per line on average means exactly five on every line.
    """
    return data[-1] != sep and _separators(data, sep) == 5 * lines


# The byte checks go through a text this many bytes at a time (an even number), so that
# their temporary arrays stay small and each of their passes finds the piece still in the
# core's cache (measured in BENCHMARKS.md: pieces of 512 KiB checked a block in less than
# half the time of 4 MiB pieces; smaller pieces gained no more).
_CHECK_BYTES = 1 << 19


def _separators(data: bytes, sep: int) -> int | None:
    """The number of ``sep`` bytes in ``data``; ``None`` if one stands before another one or
    before a line end.

    polars reads the empty field between two separators as a field, so a line of five
    fields with one separator doubled would pass for six; one that ends a line would make
    a sixth, empty field. The pairs of bytes are compared as 16-bit numbers, at even and at
    odd offsets.
    """
    doubled, line_end = sep * 0x0101, sep | 0x0A00  # little-endian: the first byte is low
    text = memoryview(data)
    count = 0
    for start in range(0, len(data), _CHECK_BYTES):
        piece = text[start : start + _CHECK_BYTES + 1]  # with the pair across the cut
        for offset in (0, 1):
            pair = np.frombuffer(piece, "<u2", offset=offset, count=(len(piece) - offset) // 2)
            if ((pair == doubled) | (pair == line_end)).any():
                return None
        count += int(np.count_nonzero(np.frombuffer(piece[:_CHECK_BYTES], np.uint8) == sep))
    return count


def _last_tag(data: bytes, sep: int) -> str:
    """The sixth field of the last line of a text that :func:`_six_fields` found clean."""
    last = data[data.rfind(b"\n", 0, len(data) - 1) + 1 :]
    return last.split(bytes([sep]))[5].rstrip(b"\n").decode()


def _parse_plain(data: bytes) -> tuple[pl.DataFrame, int] | None:
    """The parsing half of :func:`_fast_run`: the query, document and score columns and the
    separator (a tab if there is one, else a space; never both), or ``None`` when a line
    has a seventh field or an empty first, third or fifth one.

    The tag column is not parsed (that would fill a string column of 7M rows on MS MARCO
    for one value); :func:`_six_fields` proves that every line has a sixth field.
    """
    has_tab = b"\t" in data
    # polars drops a byte-order mark that starts its input: here it is text (a second mark,
    # or a field's first character at a block's start), read the careful way.
    if not data or (has_tab and b" " in data) or data.startswith(BOM):
        return None
    try:
        table = pl.read_csv(
            data,  # bytes are read in place; a BytesIO would be copied first
            separator="\t" if has_tab else " ",
            has_header=False,
            quote_char=None,
            schema=_FAST_RUN_SCHEMA,
            columns=[0, 2, 4, 6],
            truncate_ragged_lines=True,
            missing_columns="insert",
        )
    except (pl.exceptions.PolarsError, UnicodeDecodeError):
        return None
    n = table.height
    if n == 0 or table.get_column("f6").null_count() != n:
        return None
    if any(table.get_column(c).null_count() for c in ("f0", "f2", "f4")):
        return None
    frame = table.select(
        pl.col("f0").alias("query_id"), pl.col("f2").alias("doc_id"), pl.col("f4").alias("score")
    )
    return frame, 0x09 if has_tab else 0x20


def _sorted_has_repeats(frame: pl.DataFrame) -> bool:
    """Whether a frame sorted by query_id, doc_id has a repeated pair (adjacent rows)."""
    repeat = (pl.col("query_id") == pl.col("query_id").shift(1)) & (
        pl.col("doc_id") == pl.col("doc_id").shift(1)
    )
    return bool(frame.select(repeat.any()).item())


def _has_duplicates(frame: pl.DataFrame) -> bool:
    """Whether any (query_id, doc_id) pair repeats; hashing first keeps the common case cheap.

    A run grouped by query is checked by its stretches (:func:`_repeats_in`). Otherwise the
    two columns are hashed separately and mixed (about twice as fast as hashing a struct);
    only when two hashes coincide (:func:`~cranfield.data.row_index.pairs_differ_by_hash`) is
    the exact check run.
    """
    queries, lengths = stretches(frame.get_column("query_id"))
    if 8 * len(queries) <= frame.height:
        return _repeats_in(frame, queries, lengths)
    if pairs_differ_by_hash(frame):
        return False
    return bool(frame.select(pl.struct("query_id", "doc_id").is_duplicated().any()).item())


def _parse(
    data: bytes, label: str, kind: Kind, duplicates: DuplicatePolicy = "error"
) -> pl.DataFrame:
    """Split ``data`` into string columns f0.. with polars; diagnose on any anomaly."""
    want = 4 if kind == "qrels" else 6
    if not data.isascii() and not _is_utf8(data):
        # polars checks the UTF-8 of fields but not always of comment lines.
        _diagnose(data, label, kind, duplicates)
    if kind == "run" and b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        _check_bare_carriage_returns(data, label)
    sep, text = _canonical(data)
    if text and not text.endswith(b"\n"):
        # polars 2.1 refuses a one-line file with a '#' inside a field unless it ends in \n.
        text += b"\n"
    if text.startswith(BOM):
        text = b"#\n" + text  # polars would drop this text's first character (see _parse_plain)
    schema = {f"f{i}": pl.String for i in range(want)}
    try:
        table = pl.read_csv(
            text,  # in place, see _parse_plain
            separator=sep,
            has_header=False,
            quote_char=None,
            comment_prefix="#",
            schema=schema,
            # Runs ignore fields after the tag; a fifth qrels field is an error.
            truncate_ragged_lines=kind == "run",
            extra_columns="ignore" if kind == "run" else "raise",
        )
    except (pl.exceptions.PolarsError, UnicodeDecodeError):
        _diagnose(data, label, kind, duplicates)
    if table.height == 0:
        raise InputError(label, None, f"contains no {kind} lines")
    if table.get_column(f"f{want - 1}").null_count() > 0:
        _diagnose(data, label, kind, duplicates)
    return table


def _is_utf8(data: bytes, chunk: int = 1 << 24) -> bool:
    """Whether ``data`` is valid UTF-8, checked in chunks so no full copy is decoded."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for start in range(0, len(view), chunk):
            decoder.decode(view[start : start + chunk])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _check_bare_carriage_returns(data: bytes, label: str) -> None:
    """A CR inside a line is a blank (as in trec_eval), but a line holding two or more
    CR-separated pieces of six fields each is several lines with old Mac line ends whose
    extra fields would be ignored: refuse it instead of losing lines silently."""
    for number, raw in enumerate(lines(data), start=1):
        pieces = [piece for piece in raw.split(b"\r") if piece.strip()]
        if sum(field_count(piece) >= 6 for piece in pieces) >= 2:
            text = raw.decode("utf-8", "replace").strip()
            raise InputError(
                label,
                number,
                "holds several run lines separated by carriage returns (old Mac line ends); "
                "convert them to \\n",
                text,
            )


def _canonical(data: bytes) -> tuple[str, bytes]:
    """Return a separator and bytes polars can split on it.

    Files that are consistently single-space or single-tab separated pass through untouched
    (the common case, and the fast one). Anything else (mixed blanks, leading or trailing
    blanks, CR-LF, blank lines) is rewritten with every run of blanks collapsed to one space,
    blank lines removed and lines stripped.
    """
    if not data:
        return " ", data
    # Single bytes: ``in`` is a memchr. Pairs of bytes go through numpy, because ``in``
    # is slow for a two-byte needle whose first byte is as frequent as a space or newline.
    if b"\r" not in data and b"\x0b" not in data and b"\x0c" not in data:
        has_tab = b"\t" in data
        if not (has_tab and b" " in data):
            sep = 9 if has_tab else 32
            a = np.frombuffer(data, dtype=np.uint8)
            gap = (a == sep) | (a == 10)  # two gaps in a row: an empty field or line
            if a[0] != 10 and a[0] != sep and a[-1] != sep and not (gap[:-1] & gap[1:]).any():
                return chr(sep), data
    return " ", _collapse_blanks(data)


_IS_BLANK = np.zeros(256, dtype=bool)
_IS_BLANK[list(BLANKS)] = True


def _collapse_blanks(data: bytes) -> bytes:
    """Vectorised: blanks -> single spaces, lines stripped, blank lines dropped."""
    a = np.frombuffer(data, dtype=np.uint8)
    if a.size == 0:
        return data
    blank = _IS_BLANK[a]
    newline = a == 10
    # Pass 1: keep the first blank of a run unless it starts a line.
    prev_sep = np.empty_like(blank)
    prev_sep[0] = True
    prev_sep[1:] = blank[:-1] | newline[:-1]
    keep = ~blank | ~prev_sep
    b = np.where(blank, np.uint8(32), a)[keep]
    # Pass 2: drop a space right before a newline or the end.
    nxt_end = np.empty(b.size, dtype=bool)
    nxt_end[-1:] = True
    nxt_end[:-1] = b[1:] == 10
    b = b[~((b == 32) & nxt_end)]
    # Pass 3: drop newlines that end an empty line.
    nl = b == 10
    prev_nl = np.empty_like(nl)
    prev_nl[:1] = True
    prev_nl[1:] = nl[:-1]
    b = b[~(nl & prev_nl)]
    return bytes(b.tobytes())


def _diagnose(
    data: bytes, label: str, kind: Kind, duplicates: DuplicatePolicy = "error"
) -> NoReturn:
    """Walk the lines one by one and raise an :class:`InputError` for the first bad one.

    This slow path runs only when the fast columnar parse found something wrong, so the
    common case never pays for per-line Python. A repeated (query, document) is bad as the
    qrels policy ``duplicates`` says (:func:`read_qrels`; runs: always).
    """
    seen: dict[tuple[bytes, bytes], int] = {}
    levels: dict[tuple[bytes, bytes], tuple[bytes, str]] = {}  # iteration, relevance
    any_line = False
    for number, fields, text in data_lines(data, label, max_fields=4 if kind == "qrels" else 6):
        any_line = True
        if kind == "qrels":
            if len(fields) != 4:
                count = len(fields) if len(fields) < 4 else field_count(text.encode())
                raise InputError(
                    label,
                    number,
                    f"expected 4 fields (qid iter docno rel), got {count}",
                    text,
                )
            rel = fields[3].decode()
            if not INTEGER.match(rel) and not DECIMAL.match(rel):
                raise InputError(
                    label,
                    number,
                    f"relevance must be an integer or a decimal number, got {rel!r}",
                    text,
                )
            whole = rel.partition(".")[0]
            if int64(whole if whole.strip("+-") else "0") is None:
                raise InputError(
                    label, number, f"relevance {rel} does not fit in a 64-bit integer", text
                )
        else:
            if len(fields) < 6:
                raise InputError(
                    label,
                    number,
                    f"expected 6 fields (qid iter docno rank score tag), got {len(fields)}",
                    text,
                )
            score = fields[4].decode()
            if not NUMBER.match(score):
                raise InputError(label, number, f"score must be a number, got {score!r}", text)
            if math.isnan(float(score)):
                raise InputError(label, number, "score is NaN", text)
        key = (fields[0], fields[2])
        if key in seen:
            first = seen[key]
            if duplicates == "error":
                raise InputError(
                    label, number, f"{_repeat(key)} (first seen on line {first})", text
                )
            group, earlier = levels[key]
            level = fields[3].decode()
            if duplicates != "merge" or float(level) == float(earlier):
                continue
            hint = (
                ""
                if group == fields[1]
                else "; the second columns differ: if they are subtopics or judge groups, "
                "this is not a plain qrels file (--intents, trec-eval -R qrels_jg)"
            )
            raise InputError(
                label,
                number,
                f"{_repeat(key)} judged {earlier} on line {first} and {level} here; keep one "
                f"with duplicates='first', 'last' or 'max' (--duplicates){hint}",
                text,
            )
        seen[key] = number
        levels[key] = (fields[1], fields[3].decode())
    no_bad_line(label, any_line, kind)


def _repeat(key: tuple[bytes, bytes]) -> str:
    return f"duplicate document {key[1].decode()!r} for query {key[0].decode()!r}"


def write_run(run: Run, path: str | Path, *, tag: str | None = None) -> None:
    """Write ``run`` as a TREC run file, ranked as trec_eval ranks it.

    Lines are ordered by query id (bytewise), then score descending, then doc id descending;
    the rank column counts from 1 in that order. Scores are written in the shortest form
    that reads back to the same float64.

    Raises
    ------
    InputError
        If an id or the tag cannot be written as a TREC field (empty, containing a blank,
        or a query id starting with ``#``, which would read back as a comment); nothing is
        written then.
    """
    _write_lines(run_lines(run, path, tag=tag), path)


def run_lines(
    run: Run, path: str | Path, *, tag: str | None = None, first_row: int = 0
) -> pl.DataFrame:
    """The lines :func:`write_run` writes, as a frame of six columns written as they are
    (:func:`write_run_parts` writes many runs' lines into one file, each in turn; an error
    names a row counting from ``first_row``, the lines written before). The score stays a
    float: polars writes it in the form its cast to a string has, the shortest that reads
    back the same.

    Raises
    ------
    InputError
        As :func:`write_run` (``path`` names the file in the message).
    """
    run_tag = run.tag if tag is None else tag
    what = f"run {run.name!r}"
    queries, stretch_lengths = run.query_stretches  # each query id checked once, not a line
    first_rows = np.cumsum(stretch_lengths) - stretch_lengths
    named = pl.DataFrame({"query_id": queries}, schema={"query_id": pl.String})
    _check_writable(named, path, what, rows=first_rows + first_row)
    _check_writable(run.frame.select("doc_id"), path, what, first_row=first_row)
    _check_writable(pl.DataFrame({"tag": [run_tag]}, schema={"tag": pl.String}), path, what)
    lengths = _ranked_lengths(run)
    if lengths is None:
        frame = run.frame.sort(["query_id", "score", "doc_id"], descending=[False, True, True])
        rank = (pl.int_range(pl.len()).over("query_id") + 1).cast(pl.String).alias("rank")
    else:  # in that order already (a fused run): ranks from the stretches, no string sort
        frame = run.frame
        first = np.repeat(np.cumsum(lengths) - lengths, lengths)
        rank = pl.lit(pl.Series("rank", np.arange(1, frame.height + 1, dtype=np.int64) - first))
    return frame.select(
        "query_id",
        pl.lit("Q0").alias("iteration"),
        "doc_id",
        rank,
        "score",
        pl.lit(run_tag, dtype=pl.String).alias("tag"),
    )


def write_run_parts(
    parts: Iterable[Run], path: str | Path, *, tag: str | None = None
) -> tuple[int, int]:
    """Write runs of consecutive queries (each one's after the last one's, bytewise) into one
    TREC run file, each as :func:`write_run` writes it, as they come: the file is the one
    :func:`write_run` writes of them joined. Returns the lines and queries written.

    Raises
    ------
    InputError
        As :func:`write_run`, naming the row of the whole file; nothing is written then.
    """
    lines = queries = 0
    with replacing(path) as tmp, open(tmp, "wb") as handle:
        for run in parts:
            _write_rows(run_lines(run, path, tag=tag, first_row=lines), handle)
            lines += len(run)
            queries += len(run.topics)
    return lines, queries


def _ranked_lengths(run: Run) -> NDArray[np.int64] | None:
    """The query stretches' lengths of a run whose rows are in trec_eval's order already
    (queries bytewise, each one stretch; scores descending with no two equal in a query, or
    ties put in order by whoever made the run: :attr:`Run.known_tie_order` says so); else
    ``None``."""
    ties = run.known_tie_order
    if ties is None or not ties.descending or ties.positions.size:
        return None
    queries, lengths = run.query_stretches
    if any(a >= b for a, b in itertools.pairwise(queries)):
        return None
    return lengths


def write_qrels(qrels: Qrels, path: str | Path) -> None:
    """Write ``qrels`` as a TREC qrels file (``qid iter docno rel``), in table order.

    Raises
    ------
    InputError
        If a query id, iteration or doc id cannot be written as a TREC field (see
        :func:`write_run`); nothing is written then.
    """
    label = "gain" if "gain" in qrels.frame.columns else "relevance"  # decimal labels kept
    frame = qrels.frame.select("query_id", "iteration", "doc_id").with_columns(
        label_text(qrels.frame.get_column(label)).alias("relevance")
    )
    _check_writable(frame.drop("relevance"), path, f"qrels {qrels.name!r}")
    _write_lines(frame, path)


_BLANK_CHARACTERS = [chr(b) for b in BLANKS + b"\n"]


def _check_writable(
    frame: pl.DataFrame,
    path: str | Path,
    what: str,
    form: str = "TREC text",
    *,
    rows: NDArray[np.int64] | None = None,
    first_row: int = 0,
) -> None:
    """Refuse values that would not read back as the same single field of a line of blank
    separated fields (``form`` names the format in the message; ``rows``, the row of the
    table each value of ``frame`` stands for, if not ``first_row`` plus its own)."""
    for col in frame.columns:
        value = pl.col(col)
        checks = [
            (value.is_null(), "is missing"),
            (value.str.len_bytes() == 0, "is empty"),
            (value.str.contains_any(_BLANK_CHARACTERS), "contains a blank"),
        ]
        if col == "query_id":
            checks.append((value.str.starts_with("#"), "starts with '#' (a comment line)"))
        # every check in one pass of polars' threads; the first failing one is then found
        failing = frame.select(bad.any().alias(str(k)) for k, (bad, _) in enumerate(checks))
        for (bad, why), found in zip(checks, failing.row(0), strict=True):
            if found:
                at = int(frame.select(bad.arg_true().first()).item())
                raise InputError(
                    str(path),
                    None,
                    f"cannot write the {what} as {form}: the {col} of row "
                    f"{(first_row + at if rows is None else int(rows[at])) + 1} {why}, so it "
                    "would not read back as one field",
                    frame.get_column(col)[at],
                )


def _write_lines(frame: pl.DataFrame, path: str | Path) -> None:
    """Write string columns joined by single spaces, one line per row, never quoted; whole
    or not at all (:mod:`cranfield.io.sink`)."""
    with replacing(path) as tmp:
        _write_rows(frame, tmp)


def _write_rows(frame: pl.DataFrame, to: Path | BinaryIO) -> None:
    """The rows of ``frame`` as lines of its values joined by single spaces, never quoted."""
    frame.write_csv(to, separator=" ", include_header=False, quote_style="never")
