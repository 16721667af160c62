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

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import polars as pl

from cranfield.data.qrels import Qrels
from cranfield.data.ranking import MissingPolicy
from cranfield.data.run import RUN_SCHEMA, Run
from cranfield.errors import MissingTopicError
from cranfield.evaluation.evaluator import MeasureLike, evaluate, resolve_measures
from cranfield.evaluation.results import Results
from cranfield.io.load import QrelsLike, load_qrels
from cranfield.io.source import source_name
from cranfield.io.trec_blocks import query_blocks

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.measures._spec import Measure

__all__ = ["evaluate_stream"]

DEFAULT_BLOCK_BYTES = 64 * 1024 * 1024


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
    for frame, tag in query_blocks(run, block_bytes):
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
