"""Evaluating runs larger than memory: blocks of whole queries, one at a time.

:func:`~cranfield.evaluation.evaluator.evaluate_stream` reads a TREC run file in blocks of
about ``block_bytes`` bytes, cut at line ends; the lines of the query that a block ends in
are carried into the next block, so every query is evaluated whole, with the same ranking rules and kernels as
:func:`cranfield.evaluate`. The next block is read and parsed on a second thread while one is
evaluated, so two blocks are held at a time. Memory therefore grows with the block size and
the number of queries (one float per query and measure), not with the file.

What streaming requires, and checks: **the lines of each query are contiguous** (the file is
grouped by query, in any query order; lines inside a query may be in any order). A query whose
lines reappear after another query's is an :class:`~cranfield.errors.InputError` naming the
file, the data line and the query. Everything else (ties, unsorted scores, duplicates,
malformed lines with their physical line numbers, comment and blank lines) behaves exactly as
in :func:`cranfield.read_run`.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, TYPE_CHECKING, TypeVar, cast

import polars as pl

from cranfield.data.run import RUN_SCHEMA, Run, stretches
from cranfield.errors import InputError
from cranfield.io.trec import _BOM, _fast_run, _has_duplicates, _run_is_faulty, read_run_bytes

if TYPE_CHECKING:
    pass

__all__ = ["query_blocks_ahead"]

T = TypeVar("T")


def _query_blocks(
    path: str | Path, label: str, block_bytes: int
) -> Iterator[tuple[pl.DataFrame, str]]:
    """Parsed blocks holding whole queries, with the tag of each block's last line."""
    finished: set[str] = set()
    pending = pl.DataFrame(schema=RUN_SCHEMA)
    pending_tag = ""
    rows_before = 0  # data lines in earlier blocks, for error messages
    lines_before = 0  # physical lines in earlier blocks
    for data in _byte_blocks(path, block_bytes):
        text = data.removeprefix(_BOM) if lines_before == 0 else data
        fast = _fast_run(text)
        if fast is not None and not _run_is_faulty(fast[0]):
            # A clean block has one run line per line: no need to count them.
            parsed = Run(fast[0], tag=fast[1])
            lines_before += parsed.frame.height
        else:
            try:
                parsed = read_run_bytes(text, label)
            except InputError as exc:
                if exc.line is None and exc.problem.startswith("contains no"):
                    lines_before += data.count(b"\n")  # only comments or blank lines
                    continue
                line = None if exc.line is None else exc.line + lines_before
                raise InputError(exc.source, line, exc.problem, exc.text) from None
            lines_before += data.count(b"\n")
        carried = pending.height > 0
        frame = pl.concat([pending, parsed.frame]) if pending.height else parsed.frame
        ids = frame.get_column("query_id")
        values, lengths_array = stretches(ids)
        lengths = lengths_array.tolist()
        start = 0
        for k, (qid, n) in enumerate(zip(values, lengths, strict=True)):
            if qid in finished:
                raise InputError(
                    label,
                    None,
                    f"data line {rows_before - pending.height + start + 1}: the lines of query "
                    f"{qid!r} are not contiguous; streaming needs a run grouped by query",
                )
            if k < len(values) - 1:
                finished.add(qid)
            start += n
        if carried and _has_duplicates(frame.head(lengths[0])):
            raise InputError(
                label,
                None,
                f"query {values[0]!r} has a duplicate document (its lines span two blocks, so "
                "read it with read_run for the exact line)",
            )
        last_len = lengths[-1] if lengths else 0
        complete = frame.head(frame.height - last_len)
        rows_before += parsed.frame.height
        pending = frame.tail(last_len)
        pending_tag = parsed.tag
        if complete.height:
            yield complete, pending_tag
    if pending.height:
        yield pending, pending_tag
    elif rows_before == 0:
        raise InputError(label, None, "contains no run lines")


_DONE = object()


def _one_ahead(items: Iterator[T]) -> Iterator[T]:
    """The items of ``items``, each made on a helper thread while the one before is used.

    Reading and parsing the next block (polars releases the GIL) overlaps the evaluation of
    the current one, so both cores work; one block more is held. An error raised making an
    item surfaces where that item would have been.
    """
    with ThreadPoolExecutor(1) as helper:
        upcoming = helper.submit(next, items, _DONE)
        while (item := upcoming.result()) is not _DONE:
            upcoming = helper.submit(next, items, _DONE)
            yield cast("T", item)


def _byte_blocks(path: str | Path, size: int) -> Iterator[bytes]:
    """About ``size`` bytes at a time, each block running to the end of its last line."""
    with _open(path) as fh:
        while chunk := fh.read(size):
            if not chunk.endswith(b"\n"):
                chunk += fh.readline()  # the rest of the line (the file may end without \n)
            if chunk.endswith(b"\n") or chunk.strip():
                yield chunk


def _open(path: str | Path) -> IO[bytes]:
    with open(path, "rb") as probe:
        magic = probe.read(6)
    if magic.startswith(b"\x1f\x8b"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if magic.startswith(b"BZh"):
        return bz2.open(path, "rb")
    if magic.startswith(b"\xfd7zXZ\x00"):
        return lzma.open(path, "rb")
    return open(path, "rb")


def query_blocks_ahead(
    path: str | Path, label: str, block_bytes: int
) -> Iterator[tuple[pl.DataFrame, str]]:
    """The blocks of whole queries of a run file, each read on a helper thread while the one
    before is evaluated."""
    return _one_ahead(_query_blocks(path, label, block_bytes))
