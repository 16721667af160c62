"""A hand-built :class:`~cranfield.lab.ExperimentResult` (no engine run): what the report renders."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cranfield.lab.efficiency import IndexStats, LatencyStats, Machine
from cranfield.lab.result import ExperimentResult, SystemResult

MACHINE = Machine(
    cpu_count=2,
    cpus_available=2,
    cpu_model="test cpu",
    platform="test",
    machine="x86_64",
    memory_bytes=2**30,
    python="3.12",
    implementation="CPython",
    clock="test clock",
    load_average=None,
)


def index_stats(size: int) -> IndexStats:
    """Indexing figures with an index of ``size`` bytes."""
    return IndexStats(
        seconds=1.0,
        documents=10,
        text_bytes=1000,
        peak_memory_bytes=0,
        peak_rss_bytes=0,
        memory_method="test",
        index_bytes=size,
        index_files=1,
        allocated_bytes=size,
        collection_bytes=1000,
        collection_source="text",
    )


def latency_stats(ms: list[float]) -> LatencyStats:
    """One timed pass with these per-query latencies in milliseconds."""
    samples = np.asarray([ms], dtype=np.float64) / 1e3
    return LatencyStats(tuple(str(i) for i in range(len(ms))), samples, warmup=0, k=10)


def system(name: str, index: int | None, ms: list[float] | None) -> SystemResult:
    """A system with an index of ``index`` bytes and latencies ``ms`` (``None``: none)."""
    return SystemResult(
        name=name,
        config={},
        run_path=Path(f"{name}.run"),
        index=None if index is None else index_stats(index),
        latency=None if ms is None else latency_stats(ms),
        throughput=None,
        search_seconds=None,
        reused={},
    )


def result(systems: list[SystemResult], means: dict[str, dict[str, float]]) -> ExperimentResult:
    """An experiment of ``systems`` with ``{measure: {system: mean}}``, no comparison."""
    return ExperimentResult(
        name="exp",
        collection="toy",
        notes=(),
        topics=5,
        measures=list(means),
        systems=systems,
        means=means,
        comparison=None,
        baseline=systems[0].name,
        machine=MACHINE,
        workdir=Path("work"),
        seconds=1.0,
    )
