"""``Experiment``: index, search, measure, evaluate, compare and report, with a cache.

The cache and the reports live in a work directory (:mod:`cranfield.lab.workdir`: its
layout, and its lock, which keeps a second run out while one is using it). An index is
reused while its key (the system's ``config()`` and the collection's fingerprint) is
unchanged; a run while, in addition, the topics, query field and depth are; efficiency
figures while, in addition, the measurement options are and the machine is the same
(absolute times only hold on the machine that took them).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack, cast

import polars as pl

from cranfield._progress import progress_enabled
from cranfield._validate import check_bool, check_choice, check_float, check_int
from cranfield.data.run import RUN_SCHEMA, Run
from cranfield.errors import EvaluationError, InputError, OptionError
from cranfield.evaluation.execution import Execution, ExecutionKwargs, execution_from
from cranfield.evaluation.provenance import file_sha256
from cranfield.io.load import load_run
from cranfield.io.sink import write_text, writing
from cranfield.io.trec import write_run
from cranfield.lab.collections import QUERY_FIELDS
from cranfield.lab.efficiency import (
    IndexStats,
    LatencyStats,
    Machine,
    ThroughputStats,
    check_concurrency,
    measure_indexing,
    measure_latency,
    measure_throughput,
)
from cranfield.lab.folds import cross_validation_settings
from cranfield.lab.report import to_html
from cranfield.lab.result import ExperimentResult, SystemResult
from cranfield.lab.search import (
    SearchedOn,
    WorkerSearch,
    its_own_failure,
    search_here,
    search_on,
)
from cranfield.lab.systems import PrecomputedRun, System
from cranfield.lab.workdir import SystemFiles, check_system_names, locked

if TYPE_CHECKING:
    from cranfield.evaluation.engines import Engine
    from cranfield.evaluation.evaluator import MeasureLike
    from cranfield.evaluation.options import EvalOptions
    from cranfield.evaluation.provenance import Provenance
    from cranfield.lab.collections import Collection, QueryField

__all__ = ["Experiment"]

SCHEMA = 1  # version of the cache files; a change invalidates every cache entry


def _key(*parts: Any) -> str:
    blob = json.dumps([SCHEMA, *parts], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _cached_run(path: Path, manifest: Mapping[str, Any], name: str) -> Run | None:
    """The run cached at ``path`` if it is the file its manifest describes (same SHA-256,
    same number of lines), else ``None``: a truncated or edited run is searched again, never
    scored. A system that found nothing leaves an empty run, which is rebuilt as such."""
    try:
        if manifest.get("sha256") != file_sha256(path):
            return None
    except OSError:
        return None
    if manifest.get("lines") == 0:
        return Run(pl.DataFrame(schema=RUN_SCHEMA), name=name, tag=name)
    try:
        run = load_run(path, name=name)
    except InputError:
        return None
    if len(run) != manifest.get("lines"):
        return None
    return Run(frame=run.frame, name=name, tag=name)


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    with writing(path):
        write_text(path, json.dumps(data, indent=2, sort_keys=True, allow_nan=True) + "\n")


def _write_run(run: Run, path: Path, tag: str) -> None:
    with writing(path):
        write_run(run, path, tag=tag)


def _mkdir(path: Path) -> None:
    with writing(path, "create the directory"):
        path.mkdir(parents=True, exist_ok=True)


def _systems(
    systems: Sequence[System | PrecomputedRun] | Mapping[str, System | PrecomputedRun],
) -> list[System | PrecomputedRun]:
    """The systems of an experiment: at least one, each a system, with distinct names that
    can name files (their indexes, runs and report rows;
    :func:`~cranfield.lab.workdir.check_system_names`)."""
    if isinstance(systems, Mapping):
        for key, system in systems.items():
            if key != getattr(system, "name", key):
                raise OptionError("systems", f"keyed by each system's name ({system.name!r})", key)
    chosen = list(systems.values() if isinstance(systems, Mapping) else systems)
    if not chosen:
        raise OptionError("systems", "at least one system", chosen)
    for s in chosen:
        if not isinstance(s, (PrecomputedRun, System)):
            raise OptionError(
                "systems", "systems with config, index, load and search (cranfield.lab.System)", s
            )
    check_system_names(s.name for s in chosen)
    return chosen


def _some(ids: Iterable[str]) -> str:
    """The first few of ``ids``, for a message."""
    items = list(ids)
    return ", ".join(items[:3]) + (f" and {len(items) - 3} more" if len(items) > 3 else "")


def _workers(jobs: int, scheduler: Any) -> Engine | None:
    """The engine whose workers search the topics, ``None`` to search in this process."""
    from cranfield.evaluation.engines import InProcess, engine_for

    engine = engine_for(jobs, scheduler)
    return None if isinstance(engine, InProcess) else engine


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Experiment:
    """A laboratory experiment: systems x collection -> runs, efficiency, effectiveness.

    Parameters
    ----------
    collection:
        Documents, topics and judgments (:func:`~cranfield.lab.read_cranfield`, ...).
    systems:
        Systems under test (:class:`~cranfield.lab.System`, or
        :class:`~cranfield.lab.PrecomputedRun` for effectiveness only), a list (named by
        their ``name``) or ``{name: system}``. The first is the baseline unless
        ``baseline`` says otherwise.
    measures:
        Effectiveness measures (default MAP, nDCG@10 and P@10).
    workdir:
        Where indexes, runs and reports go (default ``./lab-<collection>``).
    name:
        Experiment name for the report.
    k:
        Documents retrieved per topic (run depth).
    query_field:
        Which topic field is the query (``"title"``, ``"description"``,
        ``"title+description"``).
    baseline:
        System every other is tested against.
    tests, correction, alpha, seed:
        Passed to :func:`cranfield.compare` (``seed`` is its ``rng``).
    warmup, repetitions:
        Latency measurement (:func:`~cranfield.lab.measure_latency`).
    concurrency, throughput_passes, throughput_seconds:
        Throughput measurement (:func:`~cranfield.lab.measure_throughput`: its
        ``concurrency``, ``passes`` and ``min_seconds``).
    isolate:
        Index in a fresh Python process (default), so that the peak memory of one system is
        not hidden by memory an earlier one freed but the allocator kept; systems or
        collections that cannot be pickled (lambdas, streamed collections) are indexed in
        this process, and so is everything if a process cannot be started.
    efficiency:
        Measure latency and throughput (indexing is always measured).
    reuse:
        Reuse up-to-date indexes, runs and efficiency figures of earlier runs.
    cross_validation:
        ``{"measure": ..., "n_folds": ..., "seed": ...}`` (each optional:
        :func:`~cranfield.lab.folds.cross_validation_settings`) to add a cross-validated
        selection among the systems to the result.
    log:
        Called with one line per step (what was built, reused or measured).
    options:
        The evaluation options (:class:`~cranfield.evaluation.options.EvalOptions`).
    config_file:
        The configuration file the experiment was described in (set by
        :func:`~cranfield.lab.load_config`); its SHA-256 goes into the provenance.
    execution, **kwargs:
        Where and how (:class:`~cranfield.evaluation.execution.Execution`, whole or as
        keywords): ``progress``, progress bars (after one second) on standard error (default
        ``None``: when it is a terminal); ``jobs``, ``scheduler``: search the topics on
        ``jobs`` worker processes of this machine (``0``: every core)
        or on the workers of the Dask cluster ``scheduler`` (an address or a
        ``distributed.Client``; :func:`~cranfield.evaluation.engines.engine_for`) instead of
        in this process (the default): each index is built here once and opened by each
        worker by its path (:mod:`cranfield.lab.search`), so the work directory must be on
        storage the workers share. The runs are the same, byte for byte; latency is timed
        on the worker that answered each topic, throughput for the workers as a whole.
    ship_index:
        With ``jobs`` or ``scheduler``: send each index's files to the workers (read into
        memory here, written to a temporary folder on each worker) instead of its path, for
        workers that do not share the work directory's storage.

    Examples
    --------
    >>> import tempfile
    >>> from cranfield.lab import Collection, Document, Topic, SQLiteFTS5, CallableSystem
    >>> docs = [Document("d1", "lift and drag of wings"), Document("d2", "heat transfer")]
    >>> col = Collection.from_documents("toy", docs, [Topic("q1", "wing drag"),
    ...                                 Topic("q2", "heat")], {"q1": {"d1": 1}, "q2": {"d2": 1}})
    >>> exp = Experiment(col, [SQLiteFTS5("fts5"), CallableSystem("d1", lambda q, k: {"d1": 1.0})],
    ...                  ["AP"], workdir=tempfile.mkdtemp(), repetitions=1, warmup=0,
    ...                  concurrency=[1], progress=False)
    >>> result = exp.run()
    >>> result.means["AP"]
    {'fts5': 1.0, 'd1': 0.5}
    """

    def __init__(  # noqa: PLR0913, PLR0915 -- the lab's settings: to be grouped (ExperimentConfig)
        self,
        collection: Collection,
        systems: Sequence[System | PrecomputedRun] | Mapping[str, System | PrecomputedRun],
        measures: MeasureLike | Sequence[MeasureLike] = ("AP", "nDCG@10", "P@10"),
        *,
        workdir: str | Path | None = None,
        name: str | None = None,
        k: int = 1000,
        query_field: QueryField = "title",
        baseline: str | None = None,
        tests: str | Sequence[str] = "t-test",
        correction: str = "holm",
        alpha: float = 0.05,
        seed: int = 0,
        warmup: int = 20,
        repetitions: int = 3,
        concurrency: Sequence[int] = (1, 2, 4),
        throughput_passes: int = 1,
        throughput_seconds: float = 1.0,
        isolate: bool = True,
        efficiency: bool = True,
        reuse: bool = True,
        cross_validation: Mapping[str, Any] | None = None,
        log: Callable[[str], None] | None = None,
        options: EvalOptions | None = None,
        config_file: str | Path | None = None,
        ship_index: bool = False,
        execution: Execution | None = None,
        **kwargs: Unpack[ExecutionKwargs],
    ) -> None:
        from cranfield.evaluation.evaluator import resolve_measures
        from cranfield.evaluation.options import options_from

        self.options = options_from(options, {}, caller="Experiment")
        # The lab shows its progress on a terminal unless told otherwise.
        run_on = execution_from(execution, dict(kwargs), caller="Experiment", progress=None)
        for unused in ("store", "stream"):
            if run_on.changed().get(unused):
                raise OptionError(
                    unused, "left at its default by the lab (its runs are made, not read)", True
                )
        self.collection = collection
        chosen = _systems(systems)
        names = [s.name for s in chosen]
        self.systems: list[System | PrecomputedRun] = chosen
        from cranfield.measures import Measure

        items = [measures] if isinstance(measures, (str, Measure)) else measures
        if not isinstance(items, Sequence) or not all(isinstance(m, (str, Measure)) for m in items):
            raise OptionError("measures", "a measure name or a list of them", measures)
        self.measures = [str(m) for m in resolve_measures(measures)]
        if not self.measures:
            raise OptionError("measures", "at least one measure", measures)
        if baseline is not None:
            check_choice("baseline", baseline, names)
        self.baseline = baseline or names[0]
        self.k = check_int("k", k, minimum=1)
        self.query_field: QueryField = check_choice("query_field", query_field, QUERY_FIELDS)
        self.queries = collection.queries(query_field)
        empty = [q for q, text in self.queries.items() if not text.strip()]
        if empty:
            raise EvaluationError(
                f"topic {empty[0]} has no {query_field!r} text; choose another query_field."
            )
        if not set(collection.qrels.topics) & set(self.queries):
            raise EvaluationError(
                f"no topic of collection {collection.name!r} is judged in its qrels (topics: "
                f"{_some(self.queries)}; judged: {_some(collection.qrels.topics)}); are the "
                "topics and the qrels of one collection?"
            )
        self.workdir = Path(workdir) if workdir is not None else Path(f"lab-{collection.name}")
        if name is not None and not isinstance(name, str):
            raise OptionError("name", "a string or None", name)
        self.name = name or collection.name
        from cranfield.stats.plan import TestPlan

        self.plan = TestPlan(
            tests=cast("Any", tests), correction=cast("Any", correction), alpha=alpha, seed=seed
        )
        self.seed = seed
        self.warmup = check_int("warmup", warmup, minimum=0)
        self.repetitions = check_int("repetitions", repetitions, minimum=1)
        self.concurrency = check_concurrency(concurrency)
        self.throughput_passes = check_int("throughput_passes", throughput_passes, minimum=1)
        self.throughput_seconds = check_float("throughput_seconds", throughput_seconds, minimum=0)
        self.isolate = check_bool("isolate", isolate)
        self.efficiency = check_bool("efficiency", efficiency)
        self.reuse = check_bool("reuse", reuse)
        self.cross_validation = (
            None
            if cross_validation is None
            else cross_validation_settings(cross_validation, self.measures[0], seed)
        )
        self.progress = progress_enabled(run_on.progress)
        self._log = log or (lambda line: None)
        self.config_file = Path(config_file) if config_file is not None else None
        self.jobs = run_on.jobs
        self.engine = _workers(run_on.jobs, run_on.scheduler)
        self.ship_index = check_bool("ship_index", ship_index)
        if self.ship_index and self.engine is None:
            raise OptionError(
                "ship_index", "false when no jobs or scheduler send the search to workers", True
            )

    def __repr__(self) -> str:
        return (
            f"Experiment(collection={self.collection.name!r}, "
            f"systems={[s.name for s in self.systems]}, measures={self.measures})"
        )

    # ------------------------------------------------------------------ steps

    def _index(self, system: System, machine: Machine) -> tuple[IndexStats | None, bool, Path]:
        files = SystemFiles.of(self.workdir, system.name)
        directory, manifest = files.index, files.index_manifest
        _mkdir(directory.parent)
        key = _key(system.config(), self.collection.fingerprint)
        builds = bool(getattr(system, "builds_index", True))
        old = _read_json(manifest) if self.reuse else None
        if old and old.get("key") == key and old.get("complete") and directory.is_dir():
            self._log(f"{system.name}: index up to date, reused ({directory})")
            cached = IndexStats.from_dict(old["stats"]) if old.get("stats") else None
            return cached, True, directory
        with writing(directory, "remove the old index"):
            if directory.exists():
                shutil.rmtree(directory)
            manifest.unlink(missing_ok=True)
        stats: IndexStats | None = None
        if not builds:  # nothing to build or measure: the system keeps no index of its own
            _mkdir(directory)
        else:
            stats = self._build(system, directory)
        _write_json(
            manifest,
            {
                "key": key,
                "complete": True,
                "system": system.name,
                "config": system.config(),
                "collection": self.collection.name,
                "stats": stats.to_dict() if stats is not None else None,
                "machine": machine.to_dict(),
                "built": _now(),
            },
        )
        if stats is not None:
            self._log(
                f"{system.name}: indexed {stats.documents} documents in {stats.seconds:.2f} s, "
                f"{stats.index_bytes:,} bytes"
            )
        return stats, False, directory

    def _build(self, system: System, directory: Path) -> IndexStats:
        """Index the collection into ``directory``, in a fresh process if asked and possible.

        An ``OSError`` that names no file (a full disk while the engine writes) is worded
        with the index directory."""
        try:
            with its_own_failure(f"system {system.name!r} failed to index {self.collection.name}"):
                stats = None
                if self.isolate:
                    stats = _isolated_indexing(system, self.collection, directory, self.progress)
                if stats is None:
                    stats = _indexing(system, self.collection, directory, self.progress)
        except OSError as exc:
            if exc.filename is not None:
                raise
            raise OSError(
                exc.errno, f"cannot build the index {directory}: {exc.strerror or exc}"
            ) from exc
        return stats

    @staticmethod
    def _searched_on(*records: Mapping[str, Any] | None) -> SearchedOn | None:
        """Where the reused run or efficiency figures were searched, if on workers."""
        for record in records:
            if record and record.get("searched_on"):
                return SearchedOn.from_dict(record["searched_on"])
        return None

    def _keep_run(
        self,
        run: Run,
        files: SystemFiles,
        key: str,
        seconds: float,
        searched_on: SearchedOn | None,
    ) -> None:
        """Write a run searched now and its manifest, and say so."""
        _write_run(run, files.run, run.name)
        _write_json(
            files.run_manifest,
            {
                "key": key,
                "search_seconds": seconds,
                "written": _now(),
                "lines": len(run),
                "sha256": file_sha256(files.run),
                **({"searched_on": searched_on.to_dict()} if searched_on else {}),
            },
        )
        where = f" ({searched_on.describe()})" if searched_on else ""
        self._log(f"{run.name}: searched {len(self.queries)} topics in {seconds:.2f} s{where}")

    def _keep_efficiency(
        self,
        name: str,
        files: SystemFiles,
        key: str,
        latency: LatencyStats,
        throughput: ThroughputStats,
        machine: Machine,
        searched_on: SearchedOn | None,
    ) -> None:
        """Write efficiency figures measured now, and say so."""
        _mkdir(files.efficiency.parent)
        _write_json(
            files.efficiency,
            {
                "key": key,
                "machine": machine.to_dict(),
                "latency": latency.to_dict(),
                "throughput": throughput.to_dict(),
                "measured": _now(),
                **({"searched_on": searched_on.to_dict()} if searched_on else {}),
            },
        )
        self._log(
            f"{name}: latency p50 {latency.p50 * 1e3:.2f} ms, p99 {latency.p99 * 1e3:.2f} ms; "
            + ", ".join(
                f"{q:.0f} q/s at {c}"
                for c, q in zip(throughput.levels, throughput.qps, strict=True)
            )
        )

    def _measure_here(self, system: System) -> tuple[LatencyStats, ThroughputStats]:
        """Latency and throughput of ``system`` (its index open) in this process."""
        latency = measure_latency(
            system,
            self.queries,
            k=self.k,
            warmup=self.warmup,
            repetitions=self.repetitions,
            progress=self.progress,
        )
        throughput = measure_throughput(
            system,
            self.queries,
            k=self.k,
            concurrency=self.concurrency,
            passes=self.throughput_passes,
            min_seconds=self.throughput_seconds,
            progress=self.progress,
        )
        return latency, throughput

    def _system(  # noqa: PLR0912, PLR0915 -- one system's steps (index, run, efficiency) in order
        self, system: System | PrecomputedRun, machine: Machine
    ) -> tuple[SystemResult, Run]:
        files = SystemFiles.of(self.workdir, system.name)
        run_path, run_manifest = files.run, files.run_manifest
        _mkdir(run_path.parent)
        if isinstance(system, PrecomputedRun):
            given = system.load()
            given = Run(frame=given.frame, name=system.name, tag=system.name)
            _write_run(given, run_path, system.name)
            self._log(f"{system.name}: precomputed run, {len(given.topics)} topics")
            return (
                SystemResult(
                    name=system.name,
                    config=system.config(),
                    run_path=run_path,
                    index=None,
                    latency=None,
                    throughput=None,
                    search_seconds=None,
                    reused={"index": False, "run": False, "efficiency": False},
                ),
                given,
            )
        index_stats, index_reused, directory = self._index(system, machine)
        index_key = _key(system.config(), self.collection.fingerprint)
        topics = sorted(self.queries.items())
        run_key = _key(index_key, topics, self.k, self.query_field)
        old = _read_json(run_manifest) if self.reuse else None
        run: Run | None = None
        search_seconds: float | None = None
        run_reused = False
        if old and old.get("key") == run_key:
            run = _cached_run(run_path, old, system.name)
            if run is None:
                self._log(f"{system.name}: cached run changed or damaged, searching again")
            else:
                search_seconds = old.get("search_seconds")
                run_reused = True
                self._log(f"{system.name}: run up to date, reused ({run_path})")
        eff_key = _key(
            run_key,
            self.warmup,
            self.repetitions,
            list(self.concurrency),
            self.throughput_passes,
            self.throughput_seconds,
            *([] if self.engine is None else [type(self.engine).__name__, self.jobs]),
        )
        eff_path = files.efficiency
        eff_old = _read_json(eff_path) if (self.reuse and self.efficiency) else None
        latency: LatencyStats | None = None
        throughput: ThroughputStats | None = None
        measured_on: Machine | None = None
        eff_reused = False
        if (
            eff_old
            and eff_old.get("key") == eff_key
            and Machine.from_dict(eff_old["machine"]).same_as(machine)
        ):
            latency = LatencyStats.from_dict(eff_old["latency"])
            throughput = ThroughputStats.from_dict(eff_old["throughput"])
            measured_on = Machine.from_dict(eff_old["machine"])
            eff_reused = True
            self._log(f"{system.name}: efficiency figures up to date, reused ({eff_path})")
        measure = self.efficiency and not eff_reused
        searched_on = self._searched_on(
            old if run_reused else None, eff_old if eff_reused else None
        )
        found: WorkerSearch | None = None
        if (run is None or measure) and self.engine is not None:
            found = search_on(
                self.engine,
                system,
                directory,
                self.queries,
                k=self.k,
                timed=measure,
                warmup=self.warmup,
                repetitions=self.repetitions,
                ship=self.ship_index,
                progress=self.progress,
            )
            searched_on = found.searched_on
        elif run is None or measure:
            with its_own_failure(f"system {system.name!r} failed to load its index {directory}"):
                system.load(directory)
        if run is None:
            if found is not None:
                run, search_seconds = found.run, found.seconds
            else:
                run, search_seconds = search_here(
                    system, self.queries, self.k, progress=self.progress
                )
            self._keep_run(run, files, run_key, search_seconds, searched_on)
        if found is not None and found.efficiency is not None:
            latency, throughput = found.efficiency
            measured_on = found.machine
            self._keep_efficiency(
                system.name, files, eff_key, latency, throughput, measured_on, searched_on
            )
        elif found is None and measure:
            latency, throughput = self._measure_here(system)
            measured_on = Machine.current()
            self._keep_efficiency(
                system.name, files, eff_key, latency, throughput, measured_on, None
            )
        close = getattr(system, "close", None)
        if callable(close):
            close()
        return (
            SystemResult(
                name=system.name,
                config=system.config(),
                run_path=run_path,
                index=index_stats,
                latency=latency,
                throughput=throughput,
                search_seconds=search_seconds,
                reused={"index": index_reused, "run": run_reused, "efficiency": eff_reused},
                measured_on=measured_on,
                searched_on=searched_on,
            ),
            run,
        )

    # ------------------------------------------------------------------ run

    def run(self, *, report: bool = True) -> ExperimentResult:
        """Index, search, measure, evaluate, compare and (``report=True``) write the report.

        The work directory is locked for the whole run (:func:`~cranfield.lab.workdir.locked`):
        a second run on the same directory fails at once instead of changing its files under
        this one.

        Returns
        -------
        ExperimentResult

        Raises
        ------
        cranfield.lab.EngineError
            A system failed while indexing or searching.
        cranfield.errors.WorkdirInUseError
            Another process is running an experiment in the same work directory.
        OSError
            A file of the work directory cannot be written (``cannot write PATH: REASON``);
            the previous version of every file is left whole.
        """
        with locked(self.workdir):
            return self._run(report=report)

    def _run(self, *, report: bool) -> ExperimentResult:
        from cranfield.evaluation.evaluator import evaluate
        from cranfield.stats.comparison import compare

        start = time.perf_counter_ns()
        machine = Machine.current()
        results: list[SystemResult] = []
        runs: dict[str, Run] = {}
        for system in self.systems:
            res, run = self._system(system, machine)
            results.append(res)
            runs[system.name] = run
        qrels = self.collection.qrels
        comparison = None
        if len(runs) >= 2:
            comparison = compare(
                qrels,
                runs,
                self.measures,
                baseline=self.baseline,
                plan=self.plan,
                options=self.options,
            )
            means = {m: dict(comparison.means[m]) for m in comparison.measures}
        else:
            only = next(iter(runs.values()))
            single = evaluate(qrels, only, self.measures, options=self.options, run_name=only.name)
            means = {m: {only.name: float(single[m])} for m in self.measures}
        cv = None
        if self.cross_validation is not None:
            from cranfield.lab.folds import cross_validate

            opts = self.cross_validation
            cv = cross_validate(
                qrels,
                runs,
                opts["measure"],
                n_folds=opts["n_folds"],
                seed=opts["seed"],
                options=self.options,
            )
        result = ExperimentResult(
            name=self.name,
            collection=self.collection.name,
            notes=self.collection.notes,
            topics=len(self.queries),
            measures=list(means),
            systems=results,
            means=means,
            comparison=comparison,
            baseline=self.baseline,
            machine=machine,
            workdir=self.workdir,
            seconds=(time.perf_counter_ns() - start) / 1e9,
            cross_validation=cv,
            provenance=self._provenance(results),
        )
        if report:
            _write_json(self.workdir / "results.json", result.to_dict())
            shared = self._comparison_report(runs)
            result = replace(result, comparison_report=shared)
            path = self.workdir / "report.html"
            with writing(path):
                write_text(path, to_html(result))
            result = replace(result, report_path=path)
        return result

    def _provenance(self, systems: Sequence[SystemResult]) -> Provenance:
        """Version, inputs and their SHA-256, measures, options and tie rule of this run."""
        from cranfield._version import __version__
        from cranfield.evaluation.provenance import InputFile, Provenance

        inputs = [InputFile("collection", self.collection.name, self.collection.fingerprint)]
        if self.config_file is not None:
            inputs.append(InputFile.of("config", self.config_file))
        inputs += [InputFile.of(f"run:{s.name}", s.run_path) for s in systems]
        return Provenance(
            version=__version__,
            inputs=tuple(inputs),
            measures=tuple(self.measures),
            options=self.options.to_dict(),
        )

    def _comparison_report(self, runs: Mapping[str, Run]) -> Path | None:
        """Write the shared HTML comparison report (:mod:`cranfield.report.html`) of 2+ runs."""
        from cranfield.report.html import html_report

        if len(runs) < 2:
            return None
        page = html_report(
            self.collection.qrels,
            dict(runs),
            self.measures,
            baseline=self.baseline,
            plan=self.plan,
            options=self.options,
            title=f"{self.name}: effectiveness of {len(runs)} systems",
        )
        path = self.workdir / "comparison.html"
        with writing(path):
            write_text(path, str(page))
        return path


def _indexing(
    system: System, collection: Collection, directory: Path, progress: bool
) -> IndexStats:
    """:func:`measure_indexing` of ``collection`` (runs in this or in a child process)."""
    docs = collection.documents
    return measure_indexing(
        system,
        collection.iter_documents(),
        directory,
        collection_bytes=collection.size_bytes,
        total=None if callable(docs) else len(docs),
        progress=progress,
    )


def _isolated_indexing(
    system: System, collection: Collection, directory: Path, progress: bool
) -> IndexStats | None:
    """:func:`_indexing` in a fresh (spawned) process; ``None`` if that is not possible."""
    import multiprocessing
    import pickle
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        pickle.dumps((system, collection))
    except Exception:
        return None
    try:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            stats = pool.submit(_indexing, system, collection, directory, progress).result()
    except (BrokenProcessPool, OSError):
        if directory.exists():
            shutil.rmtree(directory)
        return None
    return replace(stats, memory_method=f"{stats.memory_method}, in a fresh process")
