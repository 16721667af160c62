"""Searching a system's topics into its run: here, or in batches on workers.

Here (the default, :func:`search_here`): one topic after another in this process, with the
index the experiment opened.

On workers (:func:`search_on`: ``--jobs N`` worker processes or the workers of a Dask
cluster, an :class:`~cranfield.evaluation.engines.Engine`):

1. each worker is sent, once, a :class:`Searcher`: the system without an open index (the
   adapters pickle as their parameters), the path of the index built here, the depth, the
   warm-up and the repetitions. By default the index is opened **by its path**, so the work
   directory must be on storage every worker can read (always so for worker processes or a
   ``LocalCluster`` of this machine; on a cluster of several machines, a shared file
   system); a worker that cannot see it says so. With ``ship=True`` the index's files are
   sent instead, in memory, with the searcher, and each worker opens its own copy in a
   temporary folder of its machine (removed when the worker lets the searcher go);
2. the topics are mapped in batches (:class:`Batch`, :func:`search_batch`): the first batch
   a worker gets opens the index (``system.load``) and runs the untimed warm-up; every later
   batch on that worker searches with the same open engine;
3. each batch comes back with, per topic, the hits and the seconds of each timed search,
   taken on the worker around ``system.search`` (the latency of the worker that answered),
   and the machine and process that answered (:class:`Answers`).

The run is assembled here in the order of the topics, from the same ``(doc_id, score)``
pairs, so it is the run a search here gives, byte for byte. An engine that fails on a
worker fails with the message it has here (``system 'bm25' failed on topic 12: ...``).
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import shutil
import socket
import tempfile
import threading
import time
import uuid
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from cranfield._progress import Tracker
from cranfield.data.run import Run
from cranfield.errors import CranfieldError, EngineError, InputError, OptionError
from cranfield.io.load import load_run
from cranfield.lab.efficiency import LatencyStats, Machine, ThroughputStats

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from cranfield.evaluation.engines import Engine
    from cranfield.lab.systems import Hits, System

__all__ = [
    "Answers",
    "Batch",
    "SearchedOn",
    "Searcher",
    "WorkerSearch",
    "its_own_failure",
    "search_batch",
    "search_here",
    "search_on",
]

BATCHES: int = 16
"""Batches a pass over the topics is cut into (more when a batch would exceed
:data:`BATCH_MAX` topics), so that the workers share the load evenly."""

BATCH_MAX: int = 500
"""Most topics in one batch."""


@contextlib.contextmanager
def its_own_failure(what: str, *wrapped: type[Exception]) -> Iterator[None]:
    """A failure of a system's own code (a user's function, an engine) as an
    :class:`EngineError` ``WHAT: TYPE: MESSAGE``; the errors of cranfield itself, of a file
    (``OSError``, unless ``wrapped``) and of a missing package pass unchanged."""
    passed = tuple(t for t in (CranfieldError, OSError, ImportError) if t not in wrapped)
    try:
        yield
    except passed:
        raise
    except Exception as exc:
        raise EngineError(f"{what}: {type(exc).__name__}: {exc}") from exc


def _answer(system: System, qid: str, text: str, k: int) -> Hits:
    """The first ``k`` ``(doc_id, score)`` pairs ``system`` answers ``text`` with."""
    with its_own_failure(f"system {system.name!r} failed on topic {qid}", OSError):
        return [(str(doc), float(score)) for doc, score in list(system.search(text, k))[:k]]


def _run_of(name: str, ids: Sequence[str], hits: Sequence[Hits]) -> Run:
    """The run of system ``name`` from the hits of each topic, in the order of ``ids``."""
    rows_q = [qid for qid, found in zip(ids, hits, strict=True) for _ in found]
    frame = pl.DataFrame(
        {
            "query_id": rows_q,
            "doc_id": [doc for found in hits for doc, _ in found],
            "score": [score for found in hits for _, score in found],
        },
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64},
    )
    try:
        run = load_run(frame, name=name)
    except InputError as exc:  # a score the run format refuses (NaN): the system's fault
        row = (exc.line or 1) - 1
        raise EngineError(
            f"system {name!r} answered topic {rows_q[row]} with document "
            f"{frame['doc_id'][row]!r} and an unusable score ({exc.problem})."
        ) from None
    return Run(frame=run.frame, name=name, tag=name)


def search_here(
    system: System, queries: Mapping[str, str], k: int, *, progress: bool
) -> tuple[Run, float]:
    """The run of ``system`` (its index open) on ``queries``, searched in this process, and
    the wall-clock seconds the pass took."""
    hits: list[Hits] = []
    with Tracker(f"searching {system.name}", len(queries), enabled=progress) as bar:
        start = time.perf_counter_ns()
        for qid, text in queries.items():
            hits.append(_answer(system, qid, text, k))
            bar.advance()
        seconds = (time.perf_counter_ns() - start) / 1e9
    return _run_of(system.name, list(queries), hits), seconds


# --------------------------------------------------------------------------- on workers


@dataclass(frozen=True)
class Batch:
    """Topics of one system searched together on one worker."""

    system: str
    ids: tuple[str, ...]
    texts: tuple[str, ...]

    def __str__(self) -> str:
        return f"topics {self.ids[0]} to {self.ids[-1]} of system {self.system!r}"


@dataclass(frozen=True)
class Answers:
    """What a worker returns for a :class:`Batch`.

    Attributes
    ----------
    hits:
        Each topic's ``(doc_id, score)`` pairs (of its first timed search).
    seconds:
        Each topic's timed searches, seconds on the worker's monotonic clock:
        ``seconds[r][j]`` is repetition ``r`` of topic ``j``.
    host, process:
        The machine (host name) and process that answered.
    machine:
        That machine's description.
    """

    hits: tuple[Hits, ...]
    seconds: tuple[tuple[float, ...], ...]
    host: str
    process: int
    machine: Machine


class Searcher:
    """What a worker is sent once: the system, where its index is, and how to search.

    The first :meth:`search` on a worker opens the index and runs the warm-up; the engine
    then stays open in this object, which the worker keeps, for every later batch. A copy
    (pickled to a worker) starts closed.

    Parameters
    ----------
    system:
        The system (sent without its open index).
    directory:
        Its index directory, read by the workers by this path (``None``: nothing to load).
    k:
        Depth.
    warmup:
        Untimed searches on each worker before its first timed one (the first topics of its
        first batch, cycled).
    repetitions:
        Timed searches of each topic.
    ship:
        Send the files of ``directory`` (read now, whole, into memory) rather than its path;
        each worker writes them to a temporary folder and opens that.
    """

    def __init__(
        self,
        system: System,
        directory: Path | None,
        k: int,
        warmup: int,
        repetitions: int,
        *,
        ship: bool = False,
    ) -> None:
        self.system = system
        self.directory = directory
        self.files = _packed(directory) if ship and directory is not None else None
        self.k = k
        self.warmup = warmup
        self.repetitions = repetitions
        self.token = uuid.uuid4().hex  # a new searcher is never taken for an earlier one
        self._lock = threading.Lock()
        self._machine: Machine | None = None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["_lock"]
        state["_machine"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _open(self, texts: Sequence[str]) -> Machine:
        """Open the index and warm up, once per copy of this searcher (thread-safe)."""
        with self._lock:
            if self._machine is not None:
                return self._machine
            name = self.system.name
            directory = self.directory
            if self.files is not None:
                directory = _unpacked(self.files, name, owner=self)
                self.files = None  # opened: the copy on disk is all this worker needs
            if directory is not None:
                if not directory.is_dir():
                    raise EngineError(
                        f"system {name!r}: the index directory {directory} is not on worker "
                        f"{socket.gethostname()}; on a cluster of several machines the lab's "
                        f"work directory must be on storage every worker shares, or the "
                        f"index sent to the workers (--ship-index)."
                    )
                with its_own_failure(f"system {name!r} failed to load its index {directory}"):
                    self.system.load(directory)
            for i in range(self.warmup):
                with its_own_failure(f"system {name!r} failed while warming up", OSError):
                    self.system.search(texts[i % len(texts)], self.k)
            self._machine = Machine.current()
            return self._machine

    def search(self, batch: Batch) -> Answers:
        """Search the topics of ``batch``, each ``repetitions`` times, timed one by one."""
        machine = self._open(batch.texts)
        clock = time.perf_counter_ns
        hits: list[Hits] = []
        seconds = [[0.0] * len(batch.ids) for _ in range(self.repetitions)]
        for j, (qid, text) in enumerate(zip(batch.ids, batch.texts, strict=True)):
            for r in range(self.repetitions):
                start = clock()
                found = _answer(self.system, qid, text, self.k)
                seconds[r][j] = (clock() - start) / 1e9
                if r == 0:
                    hits.append(found)
        return Answers(
            hits=tuple(hits),
            seconds=tuple(tuple(row) for row in seconds),
            host=socket.gethostname(),
            process=os.getpid(),
            machine=machine,
        )


def _packed(directory: Path) -> dict[str, bytes]:
    """The regular files under ``directory``, ``{relative POSIX path: bytes}``."""
    files: dict[str, bytes] = {}
    for path in sorted(directory.rglob("*")):
        if path.is_file() and not path.is_symlink():
            files[path.relative_to(directory).as_posix()] = path.read_bytes()
    return files


def _unpacked(files: Mapping[str, bytes], name: str, *, owner: object) -> Path:
    """``files`` written to a new temporary folder, removed when ``owner`` is collected."""
    folder = Path(tempfile.mkdtemp(prefix=f"cranfield-index-{name}-"))
    weakref.finalize(owner, shutil.rmtree, folder, ignore_errors=True)
    for relative, data in files.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return folder


def search_batch(searcher: Searcher, batch: Batch) -> Answers:
    """:meth:`Searcher.search` as the module-level function an engine maps."""
    return searcher.search(batch)


@dataclass(frozen=True)
class SearchedOn:
    """Where a system's topics were searched, for the report.

    Attributes
    ----------
    engine:
        The engine's own description (``2 Dask workers on 1 machine (tcp://...)``).
    workers:
        Worker processes that answered at least one batch.
    machines:
        Host names of the machines that answered, sorted.
    batches:
        Batches the topics were cut into.
    """

    engine: str
    workers: int
    machines: tuple[str, ...]
    batches: int

    def describe(self) -> str:
        """One phrase: ``16 batches by 2 workers on 1 machine (ada), of 2 worker processes``."""
        n = len(self.machines)
        return (
            f"{self.batches} batches by {self.workers} worker{'s' * (self.workers != 1)} on "
            f"{n} machine{'s' * (n != 1)} ({', '.join(self.machines)}), of {self.engine}"
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return {
            "engine": self.engine,
            "workers": self.workers,
            "machines": list(self.machines),
            "batches": self.batches,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SearchedOn:
        """Inverse of :meth:`to_dict`."""
        return cls(
            engine=str(data["engine"]),
            workers=int(data["workers"]),
            machines=tuple(str(m) for m in data["machines"]),
            batches=int(data["batches"]),
        )


@dataclass(frozen=True)
class WorkerSearch:
    """What :func:`search_on` returns.

    Attributes
    ----------
    run:
        The run, in the order of the topics.
    seconds:
        Wall-clock seconds of the pass, measured here from sending the first batch to
        receiving the last (index loading and warm-up on the workers included).
    efficiency:
        ``(latency, throughput)`` when timed, else ``None``: the latency of each topic's
        timed searches on the worker that answered it, and the throughput of the workers as
        a whole: every timed search of the pass / :attr:`seconds`, at the level of the
        workers that could search at once.
    searched_on:
        Where the topics were searched.
    machine:
        The description of a machine that answered (the first batch's).
    """

    run: Run
    seconds: float
    efficiency: tuple[LatencyStats, ThroughputStats] | None
    searched_on: SearchedOn
    machine: Machine


def _batches(name: str, queries: Mapping[str, str]) -> list[Batch]:
    ids, texts = list(queries), list(queries.values())
    size = max(1, min(BATCH_MAX, math.ceil(len(ids) / BATCHES)))
    return [
        Batch(name, tuple(ids[i : i + size]), tuple(texts[i : i + size]))
        for i in range(0, len(ids), size)
    ]


def search_on(  # noqa: PLR0913 -- the search and its timing, all keyword-only
    engine: Engine,
    system: System,
    directory: Path | None,
    queries: Mapping[str, str],
    *,
    k: int,
    timed: bool,
    warmup: int = 0,
    repetitions: int = 1,
    ship: bool = False,
    progress: bool = False,
) -> WorkerSearch:
    """The run of ``system`` on ``queries``, searched in batches by ``engine``'s workers.

    Parameters
    ----------
    engine:
        Worker processes or a Dask cluster (:func:`~cranfield.evaluation.engines.engine_for`).
    system:
        The system; it must pickle (the adapters do; a :class:`~cranfield.lab.CallableSystem`
        of a lambda does not).
    directory:
        Its index directory, opened by each worker by this path (or, with ``ship``, sent
        whole to each worker); ``None`` for a system that builds no index.
    queries:
        ``{topic: text}``.
    k:
        Depth.
    timed:
        Measure latency (``warmup`` untimed searches on each worker, then ``repetitions``
        timed searches of each topic) and the cluster's throughput; else one search a topic.
    progress:
        Progress bar (topics done) on standard error.

    Raises
    ------
    OptionError
        No topics.
    EngineError
        The system cannot be sent to the workers, or it failed on one (with the message it
        has in this process).
    """
    if not queries:
        raise OptionError("queries", "at least one topic to search", dict(queries))
    if not timed:
        warmup, repetitions = 0, 1
    searcher = Searcher(system, directory, k, warmup, repetitions, ship=ship)
    try:
        pickle.dumps(searcher)
    except Exception as exc:
        raise EngineError(
            f"system {system.name!r} cannot be sent to the workers ({type(exc).__name__}: "
            f"{exc}); give a 'python' system's functions as module:function, or search "
            f"without --jobs and --scheduler."
        ) from None
    batches = _batches(system.name, queries)
    answers: list[Answers] = []
    with Tracker(f"searching {system.name}", len(queries), enabled=progress) as bar:
        start = time.perf_counter_ns()
        for answer in engine.map(search_batch, searcher, batches):
            answers.append(answer)
            bar.advance(len(answer.hits))
        seconds = (time.perf_counter_ns() - start) / 1e9
    hits = [h for a in answers for h in a.hits]
    run = _run_of(system.name, list(queries), hits)
    workers = len({(a.host, a.process) for a in answers})
    searched_on = SearchedOn(
        engine=engine.describe(),
        workers=workers,
        machines=tuple(sorted({a.host for a in answers})),
        batches=len(batches),
    )
    efficiency = None
    if timed:
        samples = np.asarray(
            [[s for a in answers for s in a.seconds[r]] for r in range(repetitions)],
            dtype=np.float64,
        )
        latency = LatencyStats(query_ids=tuple(queries), samples=samples, warmup=warmup, k=k)
        level = max(1, min(engine.workers, len(batches)))
        throughput = ThroughputStats(
            levels=(level,), queries=(samples.size,), seconds=(seconds,), k=k
        )
        efficiency = (latency, throughput)
    return WorkerSearch(
        run=run,
        seconds=seconds,
        efficiency=efficiency,
        searched_on=searched_on,
        machine=answers[0].machine,
    )
