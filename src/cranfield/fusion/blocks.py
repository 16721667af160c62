"""Fusing runs by blocks of whole queries: runs larger than memory (:func:`fuse_stream`), and
many runs on worker processes or a Dask cluster (:func:`fuse_to_file` with an
:class:`~cranfield.evaluation.execution.Execution`).

Every method fuses each query on its own: a normalisation looks at one run's list for one
query, a rank method at positions inside one query, BordaFuse at one query's candidates. So
the queries can be cut into blocks, each block fused by :func:`cranfield.fusion.fuse`'s own
arithmetic, and the fused blocks written one after another in the order of their queries:
the file is the same, byte for byte, as fusing the whole runs at once (a test checks it).

**Streaming** (``cranfield fuse --stream``) reads each run through
:func:`cranfield.io.trec_blocks.query_blocks` (TREC text, a path or ``-``, compressed or
not), about ``block_bytes`` at a time, and fuses a query as soon as every run has gone past
it. That needs each run **grouped by query, its queries in bytewise order** (as trec_eval
sorts them, and as ``cranfield fuse`` and ``convert`` write them): a run whose queries are
not contiguous, or come out of that order, is refused with the file and the data line
(``LC_ALL=C sort -s -k1,1`` puts a file in that order; or fuse without ``--stream``). Memory is a few
blocks per run, whatever the runs' size.

**Workers** (``--jobs N``, ``--scheduler``): the runs are read here, their queries cut into
blocks of about equal size, and each block is fused on a worker (the engines of
:mod:`cranfield.evaluation.engines`); the fused blocks come back in order.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from cranfield.errors import InputError, OptionError

if TYPE_CHECKING:
    from pathlib import Path

    import polars as pl

    from cranfield._types import FusionMethod, FusionNormalization
    from cranfield.data.run import Run
    from cranfield.evaluation.execution import Execution
    from cranfield.fusion.fuse import FusionInputs, RankSource
    from cranfield.fusion.supervised import FusionTraining

__all__ = ["FusionPlan", "fuse_stream", "fuse_to_file"]


@dataclass(frozen=True)
class FusionPlan:
    """What a fusion computes, checked once and shared by every block (and sent once to
    every worker): the method, normalisation, weights, parameters, ranking source, the
    fused run's name and, for a method that learns from qrels, its training (learnt once, up
    front, and applied to every block)."""

    names: tuple[str, ...]
    method: FusionMethod = "rrf"
    norm: FusionNormalization = "min-max"
    weights: tuple[float, ...] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    ranks: RankSource = "score"
    name: str | None = None
    training: FusionTraining | None = None
    """What a trained method learnt (:func:`cranfield.fusion.train`), once for every block."""

    def __post_init__(self) -> None:
        from cranfield.fusion.fuse import checked_options

        checked_options(
            self.method,
            self.norm,
            self.weights,
            self.params,
            self.names,
            self.ranks,
            training=self.training,
        )

    @property
    def label(self) -> str:
        """The fused run's name and tag."""
        return self.name or self.method

    def parts(self, runs: Sequence[Run] | FusionInputs) -> Iterator[Run]:
        """The run fused from ``runs`` by this plan, as the ranked runs of consecutive blocks
        of its queries (:func:`~cranfield.fusion.fuse.fused_parts`)."""
        from cranfield.fusion.fuse import fused_parts

        return fused_parts(
            runs,
            self.method,
            norm=self.norm,
            weights=self.weights,
            params=self.params,
            ranks=self.ranks,
            name=self.label,
            training=self.training,
        )

    def fused(self, frames: Sequence[pl.DataFrame]) -> Run | None:
        """The fused run of one block: ``frames[r]`` holds run ``r``'s rows of the block's
        queries (``query_id, doc_id, score``, whole queries, perhaps none); ``None`` when no
        run has a row."""
        from cranfield.data.run import Run
        from cranfield.fusion.fuse import fusion_inputs, joined_runs

        if not any(frame.height for frame in frames):
            return None
        from cranfield.fusion.methods import METHODS

        runs = [Run(frame, name=n) for frame, n in zip(frames, self.names, strict=True)]
        inverted = self.norm == "min-max-inverted"
        inputs = fusion_inputs(
            runs,
            ranks=self.ranks,
            inverted=inverted and METHODS[self.method].reads_ranks,
            shared_query=False,
        )
        return joined_runs(list(self.parts(inputs)), self.label)


@dataclass(frozen=True)
class _Block:
    """A worker's task: every run's rows of the queries ``first`` to ``last``."""

    first: str
    last: str
    frames: list[pl.DataFrame]

    def __str__(self) -> str:  # names the task in an engine's error
        return f"the block of queries {self.first!r} to {self.last!r}"


def _fused_block(plan: FusionPlan, block: _Block) -> Run | None:
    """A worker's task: one block fused (``None``: no run has a row in it)."""
    return plan.fused(block.frames)


def _shared(frames: Sequence[pl.DataFrame]) -> bool:
    """Whether two of ``frames`` have a query in common."""
    seen: set[str] = set()
    for frame in frames:
        queries = set(frame.get_column("query_id").unique().to_list())
        if seen & queries:
            return True
        seen |= queries
    return False


def fuse_stream(
    sources: Sequence[str | Path],
    output: str | Path,
    plan: FusionPlan,
    *,
    block_bytes: int,
) -> tuple[int, int]:
    """Fuse the TREC runs ``sources`` by ``plan`` into the TREC file ``output``, reading each
    run in blocks of whole queries of about ``block_bytes`` bytes (see the module notes for
    what the runs must be). Returns the lines and queries written.

    The file is written whole or not at all (:mod:`cranfield.io.sink`): an error in a later
    block leaves no partial output.

    Raises
    ------
    cranfield.errors.InputError
        A run that cannot be read, is not TREC text, has a malformed line, or is not grouped
        by query in bytewise order.
    cranfield.errors.EvaluationError
        Runs that share no query, or a score that is not finite given to a score method.
    """
    from cranfield.fusion.fuse import no_shared_query
    from cranfield.io.source import source_name
    from cranfield.io.trec import write_run_parts
    from cranfield.io.trec_blocks import query_blocks

    if len(sources) != len(plan.names):
        raise OptionError("sources", f"one per run name ({len(plan.names)})", len(sources))
    readers = [_SortedQueries(source_name(s), query_blocks(s, block_bytes)) for s in sources]

    def fused_blocks() -> Iterator[Run]:
        shared = False
        while True:
            for reader in readers:
                reader.fill()
            if all(r.done and not r.pending for r in readers):
                break
            limits = [r.complete_up_to() for r in readers if not r.done]
            frontier = min(limits) if limits else None  # None: every run is read whole
            frames = [r.take(frontier) for r in readers]
            shared = shared or _shared(frames)
            run = plan.fused(frames)
            if run is not None:
                yield run
        if not shared:  # raised while the file is being written: nothing is left of it
            raise no_shared_query(plan.names, [r.n_queries for r in readers])

    return write_run_parts(fused_blocks(), output, tag=plan.label)


class _SortedQueries:
    """One run's blocks of whole queries, checked to come in bytewise query order, with the
    rows read and not yet fused."""

    def __init__(self, label: str, blocks: Iterator[tuple[pl.DataFrame, str]]) -> None:
        self.label = label
        self.blocks = blocks
        self.done = False
        self.pending: list[pl.DataFrame] = []  # whole queries, in order
        self.queries: list[str] = []  # the last query of each pending frame
        self.last: str | None = None
        self.rows = 0  # data lines read so far, for messages
        self.n_queries = 0

    def fill(self) -> None:
        """Read a block when nothing is pending (or the run is done)."""
        if self.pending or self.done:
            return
        item = next(self.blocks, None)
        if item is None:
            self.done = True
            return
        frame = item[0]
        from cranfield.data.row_index import stretches

        values, lens = stretches(frame.get_column("query_id"))
        previous = self.last
        offset = 0
        for value, n in zip(values, lens.tolist(), strict=True):
            if previous is not None and value <= previous:
                raise InputError(
                    self.label,
                    None,
                    f"data line {self.rows + offset + 1}: query {value!r} comes after query "
                    f"{previous!r}; fusing with --stream needs each run's queries in bytewise "
                    "order (sort the file with 'LC_ALL=C sort -s -k1,1', or fuse without --stream)",
                )
            previous = value
            offset += n
        self.rows += frame.height
        self.n_queries += len(values)
        self.last = previous
        self.pending.append(frame)
        self.queries.append(values[-1])

    def complete_up_to(self) -> str:
        """The last query this run has read (after :meth:`fill`, a run not done has one)."""
        return self.queries[-1]

    def take(self, frontier: str | None) -> pl.DataFrame:
        """The pending rows of the queries up to ``frontier`` (all of them when ``None``),
        taken out of the pending rows."""
        import polars as pl

        if not self.pending:
            from cranfield.data.run import RUN_SCHEMA

            return pl.DataFrame(schema=RUN_SCHEMA)
        frame = pl.concat(self.pending) if len(self.pending) > 1 else self.pending[0]
        if frontier is None or frontier >= self.queries[-1]:
            self.pending, self.queries = [], []
            return frame
        from cranfield.data.row_index import stretches

        values, lens = stretches(frame.get_column("query_id"))
        k = bisect.bisect_right(values, frontier)
        cut = int(np.sum(lens[:k]))
        self.pending, self.queries = [frame.slice(cut)], [self.queries[-1]]
        return frame.head(cut)


def fuse_to_file(
    runs: Sequence[Run],
    output: str | Path,
    plan: FusionPlan,
    execution: Execution | None = None,
    *,
    format: str | None = None,
) -> tuple[int, int]:
    """Fuse ``runs`` (read already) by ``plan`` into ``output`` (in ``format``, as
    :func:`cranfield.save_run` writes it). Returns the lines and queries written; the file
    equals what :func:`cranfield.fusion.fuse` and :func:`cranfield.save_run` write.

    With the workers of ``execution`` (``jobs`` above 1, or a ``scheduler``; only those two
    are read), the queries are cut into blocks of about equal size, each fused on a worker,
    and the fused blocks written in order. Without (``None``, or one job here), the runs are
    fused here (large inputs by blocks on threads, :func:`~cranfield.fusion.fuse.fused_parts`)
    and TREC text is written block by block as the blocks come, while later ones are fused.

    Raises
    ------
    cranfield.errors.EvaluationError
        Runs that share no query, or a score that is not finite given to a score method.
    """
    import polars as pl

    from cranfield.fusion.fuse import joined_runs, no_shared_query
    from cranfield.io.load import save_run, written_format

    if execution is None or (execution.jobs == 1 and execution.scheduler is None):
        parts = plan.parts(runs)
        if written_format(output, format) == "trec":  # type: ignore[arg-type]
            from cranfield.io.trec import write_run_parts

            return write_run_parts(parts, output)
        run = joined_runs(list(parts), plan.label)
        save_run(run, output, format=format)  # type: ignore[arg-type]
        return len(run), len(run.topics)
    every = sorted(set().union(*(set(run.topics) for run in runs)))
    if not set.intersection(*(set(run.topics) for run in runs)):
        raise no_shared_query(plan.names, [len(run.topics) for run in runs])
    engine = execution.engine()
    pieces = max(1, min(len(every), 4 * engine.workers))
    bounds = [every[(len(every) * k) // pieces] for k in range(1, pieces)]
    blocks: list[list[pl.DataFrame]] = [[] for _ in range(pieces)]
    edges = [0, *[(len(every) * k) // pieces for k in range(1, pieces)], len(every)]
    for run in runs:
        frame = run.frame.select("query_id", "doc_id", "score")
        values, lens = run.query_stretches
        piece = np.repeat([bisect.bisect_right(bounds, q) for q in values], lens)
        parts_of = frame.with_columns(pl.Series("piece", piece)).partition_by(
            "piece", maintain_order=True, as_dict=True, include_key=False
        )
        for k in range(pieces):
            blocks[k].append(parts_of.get((k,), frame.clear()))
    tasks = [
        _Block(every[edges[k]], every[edges[k + 1] - 1], blocks[k])
        for k in range(pieces)
        if edges[k + 1] > edges[k]
    ]
    fused = [f for f in engine.map(_fused_block, plan, tasks) if f is not None]
    run = joined_runs(fused, plan.label)
    save_run(run, output, format=format)  # type: ignore[arg-type]
    return len(run), len(run.topics)
