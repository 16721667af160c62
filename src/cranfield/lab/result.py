"""What an :class:`~cranfield.lab.Experiment` returns: per-system figures and the whole result.

The results are data: :meth:`ExperimentResult.to_dict` (the content of ``results.json``) and
:meth:`ExperimentResult.to_polars`; :mod:`cranfield.lab.report` renders them as HTML,
Markdown or text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from cranfield._validate import check_choice

if TYPE_CHECKING:
    from cranfield.evaluation.provenance import Provenance
    from cranfield.lab.efficiency import IndexStats, LatencyStats, Machine, ThroughputStats
    from cranfield.lab.folds import CrossValidation
    from cranfield.lab.search import SearchedOn
    from cranfield.stats.comparison import Comparison

__all__ = ["ExperimentResult", "SystemResult"]


@dataclass(frozen=True, eq=False)
class SystemResult:
    """Everything measured about one system.

    Attributes
    ----------
    name:
        System name (run tag).
    config:
        Its configuration.
    run_path:
        The TREC run file.
    index:
        Indexing figures, ``None`` for a system without an index of its own.
    latency, throughput:
        Query figures, ``None`` for a precomputed run or when efficiency was not measured.
    search_seconds:
        Wall-clock time of the pass that produced the run.
    reused:
        ``{"index": bool, "run": bool, "efficiency": bool}``: what came from the cache.
    measured_on:
        Machine of the efficiency figures (``None`` when there are none).
    searched_on:
        The workers that searched the topics (``--jobs``, ``--scheduler``); ``None`` when
        they were searched in this process.
    """

    name: str
    config: dict[str, Any]
    run_path: Path
    index: IndexStats | None
    latency: LatencyStats | None
    throughput: ThroughputStats | None
    search_seconds: float | None
    reused: dict[str, bool]
    measured_on: Machine | None = None
    searched_on: SearchedOn | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return {
            "name": self.name,
            "config": self.config,
            "run_path": str(self.run_path),
            "index": self.index.to_dict() if self.index else None,
            "latency": self.latency.to_dict() if self.latency else None,
            "throughput": self.throughput.to_dict() if self.throughput else None,
            "search_seconds": self.search_seconds,
            "reused": dict(self.reused),
            "measured_on": self.measured_on.to_dict() if self.measured_on else None,
            "searched_on": self.searched_on.to_dict() if self.searched_on else None,
        }


@dataclass(frozen=True, eq=False)
class ExperimentResult:
    """What :meth:`Experiment.run` returns.

    Attributes
    ----------
    name:
        Experiment name.
    collection:
        Collection name.
    notes:
        The collection's notes (for instance how relevance codes were mapped).
    topics:
        Number of topics searched.
    measures:
        Canonical measure names.
    systems:
        One :class:`SystemResult` per system, in the order given.
    means:
        ``{measure: {system: mean}}``.
    comparison:
        Significance tests of every system against :attr:`baseline` (``None`` with a single
        system).
    baseline:
        The baseline system (the first unless chosen).
    machine:
        The machine that ran this experiment.
    workdir:
        The work directory.
    seconds:
        Wall-clock time of :meth:`Experiment.run`.
    cross_validation:
        Cross-validated selection among the systems, when asked for.
    report_path:
        The HTML report (``None`` until written).
    comparison_report:
        The shared comparison report of :mod:`cranfield.report.html` written beside it
        (per-query table, every pairwise test, curves), ``None`` with a single system or
        until written.
    provenance:
        cranfield's version, the inputs with their SHA-256 (the collection's content
        fingerprint, the configuration file, every evaluated run file), the measures, the
        evaluation options and the tie rule; ``None`` for results assembled by hand.
    """

    name: str
    collection: str
    notes: tuple[str, ...]
    topics: int
    measures: list[str]
    systems: list[SystemResult]
    means: dict[str, dict[str, float]]
    comparison: Comparison | None
    baseline: str
    machine: Machine
    workdir: Path
    seconds: float
    cross_validation: CrossValidation | None = None
    report_path: Path | None = field(default=None)
    comparison_report: Path | None = field(default=None)
    provenance: Provenance | None = field(default=None)

    def system(self, name: str) -> SystemResult:
        """The result of system ``name``."""
        names = [s.name for s in self.systems]
        return self.systems[names.index(check_choice("name", name, names))]

    def significance(self, name: str, measure: str) -> tuple[float, bool] | None:
        """``(adjusted p-value, significant)`` of ``name`` against the baseline, or ``None``."""
        if self.comparison is None or name == self.baseline:
            return None
        pair = self.comparison.pair(self.baseline, name, measure)
        outcome = pair.tests[self.comparison.primary_test]
        return outcome.p_adjusted, outcome.significant

    def to_polars(self) -> pl.DataFrame:
        """One row per system: every mean, its adjusted p-value, and every efficiency figure."""
        rows: list[dict[str, Any]] = []
        for s in self.systems:
            row: dict[str, Any] = {"system": s.name}
            for m in self.measures:
                row[m] = self.means[m][s.name]
                sig = self.significance(s.name, m)
                row[f"{m} p"] = sig[0] if sig else None
            ix, lat, tp = s.index, s.latency, s.throughput
            row["index_seconds"] = ix.seconds if ix else None
            row["index_bytes"] = ix.index_bytes if ix else None
            row["overhead"] = ix.overhead if ix else None
            row["peak_memory_bytes"] = ix.peak_memory_bytes if ix else None
            for key in ("mean", "p50", "p90", "p95", "p99", "max"):
                row[f"latency_{key}_ms"] = lat.summary()[key] * 1e3 if lat else None
            if tp:
                for level, qps in zip(tp.levels, tp.qps, strict=True):
                    row[f"qps@{level}"] = qps
            rows.append(row)
        return pl.DataFrame(rows, infer_schema_length=None)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (the content of ``results.json``)."""
        return {
            "name": self.name,
            "collection": self.collection,
            "notes": list(self.notes),
            "topics": self.topics,
            "measures": list(self.measures),
            "baseline": self.baseline,
            "means": self.means,
            "significance": {
                s.name: {
                    m: (
                        {"p_adjusted": sig[0], "significant": sig[1]}
                        if (sig := self.significance(s.name, m))
                        else None
                    )
                    for m in self.measures
                }
                for s in self.systems
            },
            "comparison": self.comparison.to_dict() if self.comparison else None,
            "systems": [s.to_dict() for s in self.systems],
            "machine": self.machine.to_dict(),
            "seconds": self.seconds,
            "cross_validation": self.cross_validation.to_dict() if self.cross_validation else None,
            "provenance": self.provenance.to_dict() if self.provenance else None,
        }
