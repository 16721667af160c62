"""Evaluating runs larger than memory: blocks of whole queries, one at a time.

:func:`evaluate_stream` reads a TREC run file in blocks of about ``block_bytes`` bytes, cut at
line ends; the lines of the query that a block ends in are carried into the next block, so
every query is evaluated whole, with the same ranking rules and kernels as
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
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, TypeVar, cast

import numpy as np
import polars as pl

from cranfield.data.qrels import Qrels
from cranfield.data.ranking import MissingPolicy
from cranfield.data.run import RUN_SCHEMA, Run, stretches
from cranfield.errors import InputError, MissingTopicError
from cranfield.evaluation.evaluator import MeasureLike, evaluate, resolve_measures
from cranfield.evaluation.results import Results
from cranfield.io.load import QrelsLike, load_qrels
from cranfield.io.source import source_name
from cranfield.io.trec import _BOM, _fast_run, _has_duplicates, _run_is_faulty, read_run_bytes

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.measures._spec import Measure

__all__ = ["evaluate_stream"]

DEFAULT_BLOCK_BYTES = 64 * 1024 * 1024

T = TypeVar("T")


def evaluate_stream(
    qrels: QrelsLike,
    run: str | Path,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    block_bytes: int = DEFAULT_BLOCK_BYTES,
    missing: MissingPolicy = "zero",
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    float32: bool = False,
    compat: Literal[9, 10] = 10,
    num_docs: int = 0,
    run_name: str | None = None,
    aggregate: Literal["mean", "sum", "gmean", "median"] | None = None,
) -> Results:
    """Evaluate a run file of any size in bounded memory; same numbers as :func:`evaluate`.

    Parameters
    ----------
    qrels:
        Judgments (path, ``Qrels``, frame or dict); read once.
    run:
        Path of a TREC run file (plain, gzip, bzip2 or xz) grouped by query.
    block_bytes:
        Approximate bytes per block; memory use is a small multiple of it.
    missing, relevance_level, judged_only, depth, float32, compat, num_docs, run_name:
        As for :func:`cranfield.evaluate`.
    aggregate:
        As for :func:`cranfield.evaluate`, except ``"micro"``, which needs every query's
        counts at once and is refused here.

    Raises
    ------
    InputError
        On a malformed line, or when a query's lines are not contiguous.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 a 1 2.0 t\\nq1 Q0 b 2 1.0 t\\nq2 Q0 c 1 1.0 t\\n")
    >>> res = evaluate_stream({"q1": {"b": 1}, "q2": {"c": 1}}, path, ["RR"], block_bytes=16)
    >>> res.per_topic("RR")
    {'q1': 0.5, 'q2': 1.0}
    """
    if isinstance(block_bytes, bool) or not isinstance(block_bytes, int) or block_bytes < 1:
        raise ValueError(f"The block size must be an integer >= 1 byte, got {block_bytes!r}.")
    if aggregate == "micro":  # type: ignore[comparison-overlap]
        raise ValueError("Micro-averaging needs every query's counts at once; it is not streamed.")
    judgments = load_qrels(qrels)
    wanted = resolve_measures(measures)
    label = source_name(run)
    name = run_name or Path(label).name
    options: dict[str, Any] = {
        "relevance_level": relevance_level,
        "judged_only": judged_only,
        "depth": depth,
        "float32": float32,
        "compat": compat,
        "num_docs": num_docs,
    }
    topics: list[str] = []
    parts: dict[Measure, list[NDArray[np.float64]]] = {m: [] for m in wanted}
    tag = name
    for frame, tag in _one_ahead(_query_blocks(run, label, block_bytes)):
        block = evaluate(
            judgments, Run(frame, name=name, tag=tag), wanted, missing="skip", **options
        )
        topics.extend(block.topics)
        for m in wanted:
            parts[m].append(block.values[m])

    seen = set(topics)
    absent = [t for t in judgments.topics if t not in seen]
    if absent and missing == "error":
        raise MissingTopicError(absent)
    if absent and missing == "zero":
        # The placeholder ranking of cranfield.evaluate, for the judged queries never seen.
        only_absent = Qrels(
            judgments.frame.filter(pl.col("query_id").is_in(absent)), judgments.name
        )
        empty = Run(pl.DataFrame(schema=RUN_SCHEMA), name=name, tag=tag)
        block = evaluate(only_absent, empty, wanted, missing="zero", **options)
        topics.extend(block.topics)
        for m in wanted:
            parts[m].append(block.values[m])

    order = sorted(range(len(topics)), key=topics.__getitem__)
    values = {m: np.concatenate(parts[m])[order] if parts[m] else np.zeros(0) for m in wanted}
    return Results(
        run_name=name,
        topics=[topics[i] for i in order],
        values=values,
        missing_policy=missing,
        missing_topics=sorted(absent),
        aggregation=dict.fromkeys(wanted, aggregate) if aggregate else {},
    )


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
