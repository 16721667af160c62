"""THE way several runs are scored at once: in this process, in worker processes, or on a
Dask cluster.

The interface is small on purpose, so that another engine could sit behind it:

1. what every task shares, the bound :class:`~cranfield.evaluation.evaluator.Evaluator` (qrels
   read and indexed once, here), is sent to each worker once;
2. one module-level function is mapped over the items, each on a worker:
   :func:`~cranfield.evaluation.execution.score_task` for an evaluation, where the worker
   reads the run where it lies (a path is read by the worker; a
   run in memory is sent with its task);
3. only what the function returns comes back (a run's
   :class:`~cranfield.evaluation.results.Results`: its per-query values), in the order of the
   items, whatever order the workers finish in.

Nothing is computed from part of the data: a warning a worker raises is raised again here (so
``--strict`` still turns it into an error), an error a worker hits is raised here as it was,
and a worker process that dies ends the evaluation with an
:class:`~cranfield.errors.EvaluationError` naming the run it was scoring. On a Dask cluster,
Dask itself re-runs the task of a lost worker (up to its ``allowed-failures``) before it gives
up.

:func:`engine_for` validates ``jobs`` and ``scheduler`` (the two options every command that
scores several runs takes: ``--jobs`` and ``--scheduler``) and picks the engine:

=====================================  =================================================
``jobs=1``, no scheduler (default)     :class:`InProcess`: one run after another, here
``jobs=N`` (``0``: every core)         :class:`Processes`: ``N`` worker processes
                                       (:mod:`concurrent.futures`, started by *spawn*)
``scheduler="tcp://host:8786"``        :class:`DaskCluster`: the workers of a Dask
or a ``distributed.Client``            cluster (the ``dask`` extra)
=====================================  =================================================
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from abc import ABC, abstractmethod
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from cranfield._lazy import require
from cranfield._validate import check_int
from cranfield.errors import EvaluationError, OptionError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence


__all__ = [
    "DaskCluster",
    "Engine",
    "InProcess",
    "Processes",
    "all_cores",
    "engine_for",
]


CONNECT_SECONDS = 20.0
"""How long a Dask scheduler given by its address may take to answer."""


Caught = list[tuple[str, type[Warning]]]
S = TypeVar("S")
T = TypeVar("T")
R = TypeVar("R")


def _recording(function: Callable[[S, T], R], shared: S, item: T) -> tuple[R, Caught]:
    """``function(shared, item)`` with the warnings it raises kept, to be raised again where
    the results are gathered (a worker's warnings would otherwise be lost with its stderr)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(shared, item)
    return result, [(str(w.message), w.category) for w in caught]


def _replay(caught: Caught) -> None:
    for message, category in caught:
        warnings.warn(message, category, stacklevel=3)


# glibc's mallopt parameters, and what its own dynamic rule settles on for a process that
# allocates and frees large arrays (malloc.c: DEFAULT_MMAP_THRESHOLD_MAX on 64-bit; the trim
# threshold twice the mmap threshold)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_STEADY_MMAP, _STEADY_TRIM = 32 << 20, 64 << 20
_GLIBC_MMAP_DEFAULT = 128 << 10
_heap_lock = threading.Lock()
_heap_users = [0]


def _glibc_with_fixed_thresholds() -> tuple[Any, int, int] | None:
    """This process's glibc and the thresholds its environment fixed (``MALLOC_TRIM_
    THRESHOLD_``, ``MALLOC_MMAP_THRESHOLD_``), or ``None`` where they were not fixed (glibc
    then adapts them by itself) or this is not glibc."""
    trim = os.environ.get("MALLOC_TRIM_THRESHOLD_")
    if trim is None or not sys.platform.startswith("linux"):
        return None
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return None
        import ctypes

        libc = ctypes.CDLL(None)
        fixed = int(trim), int(os.environ.get("MALLOC_MMAP_THRESHOLD_", _GLIBC_MMAP_DEFAULT))
        return libc, *fixed
    except (ValueError, OSError, AttributeError):
        return None


@contextmanager
def _steady_heap() -> Iterator[None]:
    """While a task scores on a Dask worker, glibc keeps the memory of freed arrays for the
    next ones, as it does in any process that did not fix its thresholds.

    Dask's nanny starts every worker with ``MALLOC_TRIM_THRESHOLD_=65536``
    (``distributed.nanny.pre-spawn-environ``), so that a worker gives memory back to the
    system. Fixing a threshold also stops glibc from raising the mmap threshold as arrays
    are freed: every array over 128 KiB is then mapped and unmapped, its pages faulted in
    anew each time, and scoring a run took about 1.5 times the CPU it takes elsewhere
    (``BENCHMARKS.md``). Inside, the thresholds are those glibc's own rule settles on; when
    the last task of the process leaves, they are set back to the environment's and the free
    memory is given back (``malloc_trim``), as the worker was started to do.
    """
    glibc = _glibc_with_fixed_thresholds()
    if glibc is None:
        yield
        return
    libc, trim, mmap = glibc
    with _heap_lock:
        _heap_users[0] += 1
        if _heap_users[0] == 1:
            libc.mallopt(_M_MMAP_THRESHOLD, _STEADY_MMAP)
            libc.mallopt(_M_TRIM_THRESHOLD, _STEADY_TRIM)
    try:
        yield
    finally:
        with _heap_lock:
            _heap_users[0] -= 1
            if _heap_users[0] == 0:
                libc.mallopt(_M_MMAP_THRESHOLD, mmap)
                libc.mallopt(_M_TRIM_THRESHOLD, trim)
                libc.malloc_trim(0)


def _on_dask_worker(function: Callable[[S, T], R], shared: S, item: T) -> tuple[R, Caught]:
    """:func:`_recording` on a Dask worker: with the heap a scoring task needs
    (:func:`_steady_heap`)."""
    with _steady_heap():
        return _recording(function, shared, item)


def all_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class Engine(ABC):
    """Maps a function over items (runs) wherever its workers are."""

    workers: int
    """How many workers work at once."""

    dashboard: str | None = None
    """Where the work can be watched (a Dask cluster's dashboard), once it has started."""

    @abstractmethod
    def map(self, function: Callable[[S, T], R], shared: S, items: Sequence[T]) -> Iterator[R]:
        """``function(shared, item)`` of every item, in the order of ``items``.

        ``shared`` (the bound evaluator, say) is sent to each worker once; ``function`` must
        be a module-level function (it is pickled by reference) and ``str(item)`` names the
        item in an error (``run 'bm25'``).
        """

    @abstractmethod
    def describe(self) -> str:
        """Where the work was done, for the results' notes (``2 worker processes``)."""


class InProcess(Engine):
    """One item after another in this process (the default: nothing to start or ship)."""

    workers = 1

    def map(self, function: Callable[[S, T], R], shared: S, items: Sequence[T]) -> Iterator[R]:
        for item in items:
            yield function(shared, item)

    def describe(self) -> str:
        return "this process"


_WORKER: list[Any] = []  # in a worker process: [function, shared] it was sent


def _install(function: Callable[[Any, Any], Any], shared: bytes, threads: int) -> None:
    """A worker's start: its share of the cores for polars' thread pool (set before polars is
    imported, which unpickling ``shared`` does), then what every task shares."""
    import pickle
    import signal

    # Ctrl-C at a terminal reaches every process of its group: this process's parent stops
    # the work and ends its workers, which must not print a traceback each meanwhile.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ.setdefault("POLARS_MAX_THREADS", str(threads))
    _WORKER[:] = [function, pickle.loads(shared)]


def _in_worker(item: Any) -> tuple[Any, Caught]:
    return _recording(_WORKER[0], _WORKER[1], item)


class _WorkerDied(Exception):
    """A worker process of the pool ended while the pool was in use."""


_POLL_SECONDS = 0.2
"""How often a wait for a worker's result looks whether every worker still lives."""


def _awaited(pool: Any, future: Any) -> Any:
    """The result of ``future``, a task of ``pool``; :class:`_WorkerDied` as soon as any
    worker of the pool has ended, at whatever moment (while it starts too: a worker killed
    then can leave ``concurrent.futures`` waiting for ever)."""
    while True:
        try:
            return future.result(timeout=_POLL_SECONDS)
        except TimeoutError:
            if any(p.exitcode is not None for p in _workers(pool)):
                raise _WorkerDied from None


@contextmanager
def _workers_ignore_interrupts() -> Iterator[None]:
    """Worker processes started inside never see Ctrl-C: a Ctrl-C typed at a terminal reaches
    every process of its group, and this process, which ends its workers, is the one to
    answer it (a worker still starting printed a traceback each).

    SIGINT is blocked in this thread while the workers start; a child inherits the blocked
    mask across ``exec``, and Python leaves it so. Here, a Ctrl-C typed in that instant stays
    pending and is handled when the mask is restored: it is not lost."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):  # not POSIX
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _workers(pool: Any) -> list[Any]:
    """The worker processes ``pool`` started (``concurrent.futures`` keeps them by pid)."""
    return list((getattr(pool, "_processes", None) or {}).values())


def _end(pool: Any, others: set[Any]) -> None:
    """Stop ``pool`` at once, leaving no process behind: every worker killed and reaped, the
    tasks not started cancelled, nothing waited for that may never come.

    ``others``: the child processes this process had before the pool. Any other child is the
    pool's, even one it no longer lists (a worker being spawned when another died, which
    ``concurrent.futures`` forgets once it finds the pool broken)."""
    import multiprocessing

    workers = _workers(pool)
    for process in workers:
        if process.exitcode is None:
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:  # it may still be starting a worker: let it see the end first
        manager.join(_MANAGER_SECONDS)
    for process in workers:
        process.join()
    while strays := [p for p in multiprocessing.active_children() if p not in others]:
        for process in strays:
            if process.exitcode is None:
                process.kill()
        for process in strays:
            process.join()


_MANAGER_SECONDS = 5.0
"""How long ending a broken pool waits for its manager thread (which does not wait on a
worker: it sees the pool shut down within moments)."""


def _broken(pool: Any) -> bool:
    """Whether ``pool`` lost a worker (found broken, or a worker has ended)."""
    return bool(getattr(pool, "_broken", False)) or any(
        p.exitcode is not None for p in _workers(pool)
    )


class Processes(Engine):
    """``jobs`` worker processes of this machine, each sent the shared object once.

    Workers are started by *spawn* (a fresh interpreter), never by *fork*: a forked copy of a
    process that runs polars' or numpy's thread pools can deadlock. Each worker's polars uses
    its share of the cores (``POLARS_MAX_THREADS``, unless set already), so that ``jobs``
    workers do not each start a thread per core.
    """

    def __init__(self, jobs: int) -> None:
        self.workers = check_int("jobs", jobs, minimum=1)

    def map(self, function: Callable[[S, T], R], shared: S, items: Sequence[T]) -> Iterator[R]:
        import multiprocessing
        import pickle
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        workers = min(self.workers, len(items)) or 1
        self._started = workers  # no more processes than items
        others = set(multiprocessing.active_children())
        pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_install,
            initargs=(function, pickle.dumps(shared), max(1, all_cores() // workers)),
        )
        given = 0  # the results given so far: the next item is the one awaited
        try:
            try:
                with _workers_ignore_interrupts():  # the workers start as the tasks are given
                    futures = [pool.submit(_in_worker, item) for item in items]
            except (OSError, RuntimeError) as exc:  # a worker died while others were spawned:
                if not _broken(pool):  # the pool closed its pipes ("handle is closed")
                    raise
                raise _WorkerDied from exc
            for future in futures:
                result, caught = _awaited(pool, future)
                _replay(caught)
                given += 1
                yield result
        except (BrokenProcessPool, _WorkerDied) as exc:
            _end(pool, others)
            raise EvaluationError(
                f"a worker process died while {items[min(given, len(items) - 1)]} (or one "
                f"beside it) was being "
                f"scored, out of memory or killed; no result is given from part of "
                f"the runs: run again, with fewer --jobs."
            ) from exc
        except BaseException:  # an error, Ctrl-C, or a reader that stopped early
            _end(pool, others)
            raise
        pool.shutdown(wait=True)

    def describe(self) -> str:
        started = getattr(self, "_started", self.workers)
        return f"{started} worker process{'' if started == 1 else 'es'}"


class DaskCluster(Engine):
    """The workers of a Dask cluster: ``scheduler`` is its address (``tcp://host:8786``) or a
    connected ``distributed.Client``.

    The evaluator is scattered to every worker once; a run given as a path is read by the
    worker that scores it, so paths must name files every worker can read (shared storage).
    """

    def __init__(self, scheduler: Any) -> None:
        self._scheduler = scheduler
        self._client: Any = None
        self.workers = 0

    def _connect(self) -> Any:
        require(("distributed",), "dask", "--scheduler (a Dask cluster)")
        import distributed

        if isinstance(self._scheduler, distributed.Client):
            return self._scheduler, False
        try:
            client = distributed.Client(self._scheduler, timeout=f"{CONNECT_SECONDS}s")  # type: ignore[no-untyped-call]
            return client, True
        except (OSError, TimeoutError) as exc:
            raise EvaluationError(
                f"cannot reach the Dask scheduler at {self._scheduler}: {exc}"
            ) from exc

    @contextmanager
    def connected(self) -> Iterator[Any]:
        """The ``distributed.Client`` of the cluster (closed after, unless it was given), its
        workers, machines and dashboard noted for :meth:`describe`."""
        client, own = self._connect()
        try:
            workers = client.scheduler_info().get("workers", {})
            self.workers = len(workers)
            self._address = str(client.scheduler.address)
            self._hosts = {w.get("host", "?") for w in workers.values()}
            self.dashboard = getattr(client, "dashboard_link", None)
            yield client
        finally:
            if own:
                client.close()

    def map(self, function: Callable[[S, T], R], shared: S, items: Sequence[T]) -> Iterator[R]:
        import uuid  # here, not at the top: every command's start-up is spared it

        with self.connected() as client:
            sent = client.scatter(shared, broadcast=True)
            # keys of this map alone: a key an earlier map used may still hold its result
            # on the cluster, which Dask would hand back as this task's
            token = uuid.uuid4().hex
            futures = client.map(
                _on_dask_worker,
                [function] * len(items),
                [sent] * len(items),
                list(items),
                pure=False,
                key=[f"cranfield-{token}-{i}" for i in range(len(items))],
            )
            for item, future in zip(items, futures, strict=True):
                try:
                    result, caught = future.result()
                except Exception as exc:
                    if type(exc).__name__ == "KilledWorker":
                        raise EvaluationError(
                            f"the Dask workers given {item} died repeatedly; no result is "
                            f"given from part of the runs."
                        ) from exc
                    raise
                _replay(caught)
                yield result

    def describe(self) -> str:
        hosts = len(getattr(self, "_hosts", ())) or 1
        machines = "machine" if hosts == 1 else "machines"
        return (
            f"{self.workers} Dask workers on {hosts} {machines} ({getattr(self, '_address', '?')})"
        )


def engine_for(jobs: int = 1, scheduler: Any = None) -> Engine:
    """The engine that scores runs with ``jobs`` worker processes or on the Dask cluster
    ``scheduler``.

    Parameters
    ----------
    jobs:
        Worker processes of this machine: 1 (default) scores in this process, 0 uses every
        core (:func:`all_cores`).
    scheduler:
        A Dask scheduler's address (``tcp://host:8786``) or a ``distributed.Client``;
        ``None`` (default) for no cluster. Not given together with ``jobs`` other than 1: a
        cluster's workers are its own.

    Raises
    ------
    OptionError
        For ``jobs`` below 0, an empty or non-string address, or both options given.

    Examples
    --------
    >>> engine_for().describe(), engine_for(jobs=3).describe()
    ('this process', '3 worker processes')
    """
    n = check_int("jobs", jobs, minimum=0)
    if scheduler is None:
        n = all_cores() if n == 0 else n
        return InProcess() if n == 1 else Processes(n)
    if n != 1:
        raise OptionError(
            "jobs", "1 (the default) when a scheduler is given: its workers are its own", jobs
        )
    if isinstance(scheduler, str):
        if not scheduler.strip():
            raise OptionError("scheduler", "a Dask scheduler address (tcp://host:8786)", scheduler)
        return DaskCluster(scheduler)
    if type(scheduler).__name__ != "Client":
        raise OptionError(
            "scheduler", "an address (tcp://host:8786) or a distributed.Client", scheduler
        )
    return DaskCluster(scheduler)
