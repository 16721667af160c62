"""A TREC run read in blocks of whole queries, for evaluating runs larger than memory.

:func:`query_blocks` reads a run through :func:`~cranfield.io.source.open_source` (a path or
``-``, compressed or not) about ``block_bytes`` bytes at a time, cut at line ends, and parses
each block exactly as :func:`cranfield.io.trec.read_run` parses a whole file; the lines of the
query that a block ends in are carried into the next block, so each block holds whole queries.

What blocks require, and check: **the lines of each query are contiguous** (the file is
grouped by query, in any query order; lines inside a query may be in any order). A query
whose lines reappear after another query's is an :class:`~cranfield.errors.InputError`
naming the file, the data line and the query. Everything else (ties, unsorted scores,
duplicates, malformed lines with their physical line numbers, comment and blank lines, a
line longer than the longest allowed, :mod:`cranfield.io.limits`) behaves exactly as in
:func:`cranfield.io.trec.read_run`. Two blocks are held at a time, whatever the size of the run.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar, cast

import polars as pl

from cranfield.data.row_index import stretches
from cranfield.data.run import RUN_SCHEMA, Run
from cranfield.errors import InputError
from cranfield.io.formats import described, detect_text
from cranfield.io.limits import first_long_line, line_too_long, max_line_bytes
from cranfield.io.lines import BOM
from cranfield.io.source import Digest, open_source, source_name
from cranfield.io.trec import _fast_run, _has_duplicates, _run_is_faulty, read_run_bytes

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

__all__ = ["one_ahead", "query_blocks"]

T = TypeVar("T")


def query_blocks(
    source: str | Path, block_bytes: int, *, digest: Digest | None = None
) -> Iterator[tuple[pl.DataFrame, str]]:
    """The run ``source`` in parsed blocks of whole queries, each with the tag of the last
    line read so far (which may belong to the next block's query; with the last block, the
    run's tag, as trec_eval reports it).

    Each block is read and parsed on a helper thread while the one before is used (see
    :func:`one_ahead`), so two blocks of about ``block_bytes`` bytes are held at a time.

    Raises
    ------
    InputError
        When the source cannot be read, on a malformed line, when a query's lines are not
        contiguous, and when the file holds no run line; raised where the block holding the
        problem would have been.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 a 1 2.0 t\\nq1 Q0 b 2 1.0 t\\nq2 Q0 c 1 1.0 u\\n")
    >>> [(frame.height, tag) for frame, tag in query_blocks(path, 16)]
    [(2, 'u'), (1, 'u')]

    ``digest``: the bytes read are hashed into it (:class:`~cranfield.io.source.Digest`).
    """
    return one_ahead(_query_blocks(source, block_bytes, digest))


def _query_blocks(
    source: str | Path, block_bytes: int, digest: Digest | None
) -> Iterator[tuple[pl.DataFrame, str]]:
    label = source_name(source)
    finished: set[str] = set()
    pending = pl.DataFrame(schema=RUN_SCHEMA)
    pending_tag = ""
    rows_before = 0  # data lines in earlier blocks, for error messages
    lines_before = 0  # physical lines in earlier blocks
    longest = max_line_bytes()
    for data in _only_trec(_byte_blocks(source, block_bytes, longest, digest), label):
        _check_lines(data, label, longest, lines_before)
        text = data.removeprefix(BOM) if lines_before == 0 else data
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


def _only_trec(blocks: Iterator[bytes], label: str) -> Iterator[bytes]:
    """``blocks``, refused if the first is detected (:mod:`cranfield.io.formats`) as a format
    other than TREC: blocks are read and parsed as TREC text."""
    first = next(blocks, None)
    if first is None:
        return
    found = detect_text(first, "run", label=label)
    if found != "trec":
        raise InputError(
            label,
            None,
            f"looks like {described(found, 'run')}; --stream reads TREC runs "
            "(evaluate_stream): read it without --stream or convert it to TREC",
        )
    yield first
    yield from blocks


def _check_lines(data: bytes, label: str, longest: int, lines_before: int) -> None:
    """Raise the error of the first line of a block longer than ``longest`` bytes, if any
    (``lines_before``: the physical lines of the blocks before it)."""
    long_line = first_long_line(data, longest)
    if long_line is not None:
        line = lines_before + data.count(b"\n", 0, long_line) + 1
        raise line_too_long(label, line, longest)


_DONE = object()


def one_ahead(items: Iterator[T]) -> Iterator[T]:
    """The items of ``items``, each made on a helper thread while the one before is used.

    Reading and parsing the next block (polars releases the GIL) overlaps the evaluation of
    the current one, so both cores work; one block more is held. An error raised making an
    item surfaces where that item would have been. When the consumer stops early (an error,
    Ctrl-C), the helper is not waited for: a read blocked on a pipe must not hold the stop.
    """
    helper = ThreadPoolExecutor(1)
    finished = False
    try:
        upcoming = helper.submit(next, items, _DONE)
        while (item := _result(upcoming)) is not _DONE:
            upcoming = helper.submit(next, items, _DONE)
            yield cast("T", item)
        finished = True
    finally:
        # Waited for when all went well (the helper has ended, its blocks are freed);
        # not when the consumer stopped early, which a read blocked on a pipe must not hold.
        helper.shutdown(wait=finished, cancel_futures=True)


def _result(future: Future[object]) -> object:
    """The future's result, waited for in short steps: a signal (Ctrl-C) that the kernel
    delivers to the reading thread is only handled when the main thread runs again."""
    while True:
        try:
            return future.result(timeout=0.2)
        except TimeoutError:
            continue


def _byte_blocks(
    source: str | Path, size: int, longest: int, digest: Digest | None = None
) -> Iterator[bytes]:
    """About ``size`` bytes at a time, each block running to the end of its last line, or
    ``longest + 1`` bytes into it: a line that does not end there is too long."""
    with open_source(source, digest=digest) as text:
        while chunk := text.read(size):
            if not chunk.endswith(b"\n"):
                chunk += text.readline(longest + 1)  # the line's rest (the file may end without \n)
            if chunk.endswith(b"\n") or chunk.strip():
                yield chunk
