"""Where and how many runs are scored, declared once: :class:`Execution`.

The evaluation options (:class:`~cranfield.evaluation.options.EvalOptions`) say *what* a
score means; an :class:`Execution` says *where and how* runs are scored: how many worker
processes (``jobs``) or which Dask cluster (``scheduler``), whether results are kept and read
back (``store``), whether a progress bar is shown (``progress``), whether run files are read
in blocks of whole queries (``stream``, ``block_bytes``). Every function that scores many runs
(:meth:`Evaluator.many <cranfield.evaluation.evaluator.Evaluator.many>`, ``compare``, the HTML
report, pooling, ``judged_at_k``, ``leave_one_out``, cross-validation, the lab) takes one,
whole (``execution=``) or as keywords (``jobs=2``), validated here, once;
:data:`ExecutionKwargs` is the same list as a ``TypedDict`` (a test keeps the two equal).

:func:`score_runs` is the one loop that scores a set of runs by an execution: here, on the
engine's workers (:mod:`cranfield.evaluation.engines`), through the result store
(:mod:`cranfield.evaluation.store`), or partition by partition for a Parquet dataset
(:mod:`cranfield.evaluation.datasets`).
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

from cranfield._progress import Tracker, progress_enabled
from cranfield._types import RunNaming
from cranfield._validate import check_bool, check_int
from cranfield.errors import OptionError
from cranfield.evaluation.options import EvalKwargs
from cranfield.io.source import regular_file

if TYPE_CHECKING:
    from cranfield.data.run import Run
    from cranfield.evaluation.aggregate import How
    from cranfield.evaluation.engines import Engine
    from cranfield.evaluation.options import EvalOptions
    from cranfield.evaluation.results import Results
    from cranfield.evaluation.store import ResultStore, Stored
    from cranfield.io.runset import RunSet
    from cranfield.measures import Measure

__all__ = [
    "DEFAULT_BLOCK_BYTES",
    "EXECUTION_NAMES",
    "EvalExecutionKwargs",
    "Execution",
    "ExecutionKwargs",
    "RunTask",
    "execution_from",
    "score_runs",
    "score_task",
]

DEFAULT_BLOCK_BYTES = 64 * 1024 * 1024
"""Bytes per block of a streamed run file (about; memory use is a small multiple of it)."""


@dataclass(frozen=True)
class Execution:
    """Where and how runs are scored: the options every function that scores many runs
    shares.

    Parameters
    ----------
    jobs:
        Worker processes scoring runs at once: 1 (default) scores them here, 0 uses every
        core (:mod:`cranfield.evaluation.engines`).
    scheduler:
        A Dask scheduler address (``tcp://host:8786``) or a ``distributed.Client``: the runs
        are scored on that cluster's workers (the ``dask`` extra). Not with ``jobs`` other
        than 1.
    store:
        A folder (or :class:`~cranfield.evaluation.store.ResultStore`) where each run file's
        results are kept, per measure, and read back instead of computed again while the run,
        the qrels, the options and cranfield's version are the same.
    progress:
        A progress bar on standard error (runs done of the total, rate, time left; a Dask
        cluster's dashboard) once the work has taken a second; ``None`` shows it when
        standard error is a terminal.
    stream:
        Read each run file in blocks of whole queries, in bounded memory
        (:func:`cranfield.evaluate_stream` says what that requires).
    block_bytes:
        Approximate bytes per block when streaming.

    Raises
    ------
    OptionError
        For a value an option cannot take, with one sentence.

    Examples
    --------
    >>> Execution(jobs=2)
    Execution(jobs=2)
    >>> Execution(jobs=-1)
    Traceback (most recent call last):
    ...
    cranfield.errors.OptionError: The 'jobs' option must be an integer >= 0, got -1.
    """

    jobs: int = 1
    scheduler: Any = None
    store: str | Path | ResultStore | None = None
    progress: bool | None = False
    stream: bool = False
    block_bytes: int = DEFAULT_BLOCK_BYTES

    def __post_init__(self) -> None:
        from cranfield.evaluation.engines import engine_for

        object.__setattr__(
            self, "block_bytes", check_int("block_bytes", self.block_bytes, minimum=1)
        )
        engine_for(self.jobs, self.scheduler)  # validates both, starts nothing
        object.__setattr__(self, "jobs", check_int("jobs", self.jobs, minimum=0))
        if self.progress is not None:
            check_bool("progress", self.progress)
        check_bool("stream", self.stream)
        store = self.store
        if store is not None and not isinstance(store, (str, Path)):
            from cranfield.evaluation.store import ResultStore

            if not isinstance(store, ResultStore):
                raise OptionError("store", "a folder, a ResultStore or None", store)

    def __repr__(self) -> str:
        changed = ", ".join(f"{k}={v!r}" for k, v in self.changed().items())
        return f"Execution({changed})"

    def changed(self) -> dict[str, Any]:
        """The options that differ from their defaults, in declaration order."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != f.default
        }

    def replace(self, **changes: Any) -> Execution:
        """A copy with some options changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def engine(self) -> Engine:
        """A new engine for these options (:func:`~cranfield.evaluation.engines.engine_for`)."""
        from cranfield.evaluation.engines import engine_for

        return engine_for(self.jobs, self.scheduler)

    def result_store(self) -> ResultStore | None:
        """The result store, opened (``None``: results are not kept)."""
        store = self.store
        if store is None:
            return None  # not even imported: hashlib's and json's start-up spared
        from cranfield.evaluation.store import ResultStore

        return store if isinstance(store, ResultStore) else ResultStore(store)


class ExecutionKwargs(TypedDict, total=False):
    """The fields of :class:`Execution` as keyword arguments; documented on
    :class:`Execution`."""

    jobs: int
    scheduler: Any
    store: str | Path | ResultStore | None
    progress: bool | None
    stream: bool
    block_bytes: int


EXECUTION_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Execution))


def execution_from(
    execution: Execution | None,
    kwargs: dict[str, Any],
    *,
    caller: str = "this function",
    **defaults: Any,
) -> Execution:
    """``execution`` with the execution keywords of ``kwargs`` applied, and those keywords
    taken out of ``kwargs`` (what is left are the caller's other keywords): the one way a
    function that scores many runs builds its :class:`Execution`.

    ``defaults`` are the caller's own defaults for keywords not given (the lab shows its
    progress bar on a terminal: ``progress=None``). ``execution`` is not given together with
    execution keywords.
    """
    given = {key: kwargs.pop(key) for key in EXECUTION_NAMES if key in kwargs}
    if execution is None:
        return Execution(**{**defaults, **given})
    if not isinstance(execution, Execution):
        raise OptionError("execution", "an Execution or None", execution)
    if given:
        key = next(iter(given))
        raise OptionError(
            key,
            f"left out when execution= is given to {caller} (it is one of its fields)",
            given[key],
        )
    return execution


# ---------------------------------------------------------------------- scoring runs


class Scorer(Protocol):
    """What :func:`score_runs` needs of the evaluator it scores runs with (an
    :class:`~cranfield.evaluation.evaluator.Evaluator`)."""

    measures: list[Measure]
    options: EvalOptions
    aggregation: dict[Measure, How]

    def evaluate(self, run: Any, *, name: str | None = None) -> Results: ...

    def stream(
        self,
        run: str | Path,
        *,
        name: str | None = None,
        block_bytes: int = ...,
        progress: bool | None = ...,
    ) -> Results: ...

    def score_dataset(self, source: Any, *, name: str, engine: Engine) -> Results: ...

    def load_run(self, run: object, name: str) -> Run: ...

    def prepare(self) -> Scorer: ...

    def with_measures(self, measures: Sequence[Measure]) -> Scorer: ...

    def sources(self, run: object) -> dict[str, str | None]: ...

    def judged_topics(self) -> list[str]: ...


@dataclass(frozen=True)
class RunTask:
    """One run to score: its name, where it is (a path, or the run itself) and how to read
    it; what :func:`score_runs` hands an engine for each run."""

    name: str
    source: Any
    stream: bool = False
    block_bytes: int = DEFAULT_BLOCK_BYTES
    progress: bool = False  # a streamed run's lines on a bar (scored here only, never a worker)

    def __str__(self) -> str:
        return f"run {self.name!r}"


def score_task(evaluator: Scorer, task: RunTask) -> Results:
    """What an engine maps over the runs of an evaluation: ``task``'s run scored by
    ``evaluator`` (a module-level function, so that a worker process can be sent it)."""
    if task.stream:
        return evaluator.stream(
            task.source, name=task.name, block_bytes=task.block_bytes, progress=task.progress
        )
    return evaluator.evaluate(task.source, name=task.name)


def score_runs(
    evaluator: Scorer,
    runs: RunSet | Sequence[Any] | Mapping[str, Any],
    names: RunNaming | Sequence[str],
    execution: Execution,
) -> Iterator[Results]:
    """The results of each run in turn, in the order given, scored by ``evaluator`` as
    ``execution`` says (:meth:`Evaluator.each
    <cranfield.evaluation.evaluator.Evaluator.each>`)."""
    from cranfield.evaluation.engines import InProcess
    from cranfield.io.runset import RunSet

    engine = execution.engine()
    kept = execution.result_store()
    run_set = RunSet.of(runs, names)
    here = isinstance(engine, InProcess)
    stream, block_bytes = execution.stream, execution.block_bytes
    lines = stream and here and len(run_set) == 1 and progress_enabled(execution.progress)
    tasks = [RunTask(name, source, stream, block_bytes, lines) for name, source in run_set]
    if not here:  # a worker has a standard input and a working folder of its own
        tasks = [_for_workers(evaluator, task) for task in tasks]
    shown = progress_enabled(execution.progress) and len(tasks) > 1
    datasets = _datasets(tasks)
    if datasets and kept is not None:
        raise OptionError(
            "store",
            "None when a run is a Parquet dataset (its results are not stored)",
            execution.store,
        )
    if datasets and stream:
        raise OptionError(
            "stream",
            "False when a run is a Parquet dataset (it is scored by query-complete "
            "partitions, not read in blocks of text)",
            stream,
        )
    with Tracker(f"scoring {len(tasks)} runs", len(tasks), enabled=shown) as bar:
        if datasets:
            yield from _with_datasets(evaluator, tasks, datasets, engine, bar)
            return
        if kept is not None:
            yield from _through_store(evaluator, tasks, engine, kept, bar)
            return
        if here:
            for results in engine.map(score_task, evaluator, tasks):
                bar.advance()
                yield results
            return
        evaluator.prepare()
        for results in engine.map(score_task, evaluator, tasks):
            if bar.done == 0 and engine.dashboard:
                bar.description += f" (Dask dashboard {engine.dashboard})"
            bar.advance()
            yield results.noted(f"Scored by {engine.describe()}.")


def _for_workers(evaluator: Scorer, task: RunTask) -> RunTask:
    """``task`` as a worker can read it: a run on standard input (``-``) read now and sent in
    memory; a relative path made absolute here (a worker, a Dask worker on another machine
    above all, resolves a relative path against its own working folder, not the client's;
    the folder must then be one the workers see, a shared file system); anything else as it
    is."""
    if isinstance(task.source, (str, Path)):
        if str(task.source) == "-":
            return replace(task, source=evaluator.load_run("-", task.name), stream=False)
        if not Path(task.source).is_absolute():
            return replace(task, source=os.path.abspath(task.source))
    return task


def _datasets(tasks: list[RunTask]) -> list[bool]:
    """Which runs of ``tasks`` are Parquet datasets (none: an empty list)."""
    from cranfield.io.source import names_a_file

    if all(names_a_file(t.source) for t in tasks):  # run files: no dataset module imported
        return []
    from cranfield.io.parquet_dataset import is_dataset  # no polars

    found = [is_dataset(t.source) for t in tasks]
    return found if any(found) else []


def _with_datasets(
    evaluator: Scorer, tasks: list[RunTask], datasets: list[bool], engine: Engine, bar: Tracker
) -> Iterator[Results]:
    """:func:`score_runs` when some runs are Parquet datasets: in turn, a dataset scored by
    all the engine's workers, a run file by one of them."""
    from cranfield.evaluation.engines import InProcess

    if not isinstance(engine, InProcess):
        evaluator.prepare()
    for task, dataset in zip(tasks, datasets, strict=True):
        if dataset:
            results = evaluator.score_dataset(task.source, name=task.name, engine=engine)
        else:
            (results,) = engine.map(score_task, evaluator, [task])
            if not isinstance(engine, InProcess):
                results = results.noted(f"Scored by {engine.describe()}.")
        bar.advance()
        yield results


def _through_store(
    evaluator: Scorer, tasks: list[RunTask], engine: Engine, store: ResultStore, bar: Tracker
) -> Iterator[Results]:
    """:func:`score_runs` with a store: the measures stored for a run are read back, the
    others computed and stored; the results come in the order of ``tasks``, each with the
    warnings its evaluation raised.

    Here, one run after another: a run file is read once, hashed as it is read, and scored
    from those bytes if the store lacks a measure. On workers, grouped by the measures the
    runs miss: each run file is hashed here and read by its worker."""
    from cranfield.evaluation.engines import InProcess

    evaluator.judged_topics()  # the qrels read (and hashed as they are read) before any key
    if isinstance(engine, InProcess):
        yield from _kept_here(evaluator, tasks, engine, store, bar)
        return
    looked = [_looked_up(evaluator, task, store, read=False) for task in tasks]
    groups: dict[tuple[Measure, ...], list[int]] = {}
    for i, (_, _, found) in enumerate(looked):
        missing = tuple(m for m in evaluator.measures if found.get(m) is None)
        if missing:
            groups.setdefault(missing, []).append(i)
    computed: dict[int, tuple[Results, tuple[tuple[str, str], ...]]] = {}
    for missing, indices in groups.items():
        twin = (
            evaluator if list(missing) == evaluator.measures else evaluator.with_measures(missing)
        )
        twin.prepare()
        scored = engine.map(score_task, twin, [tasks[i] for i in indices])
        for i in indices:
            computed[i] = _recorded(scored)
            bar.advance()
    for i, (task, key, found) in enumerate(looked):
        if i not in computed:
            bar.advance()  # read back: done now
        yield _kept(evaluator, task, key, found, computed.get(i), store, engine)


def _kept_here(
    evaluator: Scorer, tasks: list[RunTask], engine: Engine, store: ResultStore, bar: Tracker
) -> Iterator[Results]:
    """:func:`_through_store` in this process: one run after another, each run file read
    once (hashed as it is read) and scored from those bytes if the store lacks a measure."""
    for given in tasks:
        task, key, found = _looked_up(evaluator, given, store, read=True)
        fresh = None
        missing = [m for m in evaluator.measures if found.get(m) is None]
        if missing:
            twin = evaluator if missing == evaluator.measures else evaluator.with_measures(missing)
            fresh = _recorded(engine.map(score_task, twin, [task]))
        bar.advance()
        yield _kept(evaluator, task, key, found, fresh, store, engine)


def _looked_up(
    evaluator: Scorer, task: RunTask, store: ResultStore, *, read: bool
) -> tuple[RunTask, str | None, dict[Measure, Stored | None]]:
    """``task`` (its run file read now if ``read``, to be scored from those bytes), the key
    of its results in ``store`` and what the store holds of them."""
    source = task.source
    if not isinstance(source, (str, Path)):
        return task, None, {}
    if read and not task.stream and regular_file(source):
        from cranfield.io.inputs import open_run

        opened = open_run(source, format=evaluator.options.run_format)
        opened.read()  # hashed as it is read: the key needs no second reading
        task = replace(task, source=opened)
    inputs = {role: p for role, p in evaluator.sources(source).items() if role != "run"}
    key = store.run_key(source, inputs, evaluator.options)
    found = {m: store.get(key, m) for m in evaluator.measures} if key is not None else {}
    return task, key, store.agreeing(found)


def _recorded(scored: Iterator[Results]) -> tuple[Results, tuple[tuple[str, str], ...]]:
    """The next results of ``scored`` and the warnings computing them raised (to be stored
    with them and raised again on every use)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = next(scored)
    return results, tuple((w.category.__name__, str(w.message)) for w in caught)


def _kept(
    evaluator: Scorer,
    task: RunTask,
    key: str | None,
    found: dict[Measure, Stored | None],
    fresh: tuple[Results, tuple[tuple[str, str], ...]] | None,
    store: ResultStore,
    engine: Engine,
) -> Results:
    """One run's results from what the store held and what was computed (stored now)."""
    from cranfield.evaluation.assemble import from_stored
    from cranfield.evaluation.engines import InProcess
    from cranfield.evaluation.store import Stored

    measures = evaluator.measures
    parts: dict[Measure, Stored] = {m: v for m, v in found.items() if v is not None}
    if fresh is not None:
        results, said = fresh
        for m in results.measures:
            part = Stored(
                topics=tuple(results.topics),
                values=tuple(results.values[m].tolist()),
                missing_topics=tuple(results.missing_topics),
                micro=results.micro.get(m),
                notes=results.notes,
                warnings=said,
            )
            parts[m] = part
            if key is not None:
                store.put(key, m, part)
                store.computed += 1
    reused = len(measures) - (0 if fresh is None else len(fresh[0].measures))
    store.hits += reused
    scored_by: tuple[str, ...] = ()
    if fresh is not None and not isinstance(engine, InProcess):
        scored_by = (f"Scored by {engine.describe()}.",)
    source = getattr(task.source, "source", task.source)  # a run file read here: its path
    return from_stored(
        parts,
        measures=measures,
        options=evaluator.options,
        aggregation=evaluator.aggregation,
        name=task.name,
        store=store,
        reused=reused,
        sources=evaluator.sources(source),
        scored_by=scored_by,
    )


class EvalExecutionKwargs(EvalKwargs, ExecutionKwargs, total=False):
    """The keyword options of a function that evaluates many runs: the evaluation options
    (:class:`~cranfield.evaluation.options.EvalOptions`) and the execution options
    (:class:`Execution`)."""
