"""Efficiency measurement: indexing time, memory and size; query latency and throughput.

Every duration is read from :func:`time.perf_counter_ns`, a monotonic clock with the
highest available resolution (:attr:`Machine.clock` records what the platform provides).
Absolute times only hold on the machine that measured them, so every figure travels with a
:class:`Machine` description (CPU count, Python version, platform, load average).

* :func:`measure_indexing` -> :class:`IndexStats`: wall-clock indexing time, peak memory
  while indexing, index size on disk and space overhead (index size / collection size).
* :func:`measure_latency` -> :class:`LatencyStats`: per-query latency after a warm-up, over
  several repetitions; mean, p50, p90, p95, p99 and max.
* :func:`measure_throughput` -> :class:`ThroughputStats`: queries per second with 1, 2, 4 ...
  concurrent clients (threads of this process).
"""

from __future__ import annotations

import gc
import itertools
import os
import platform
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from cranfield._progress import Tracker, progress_enabled
from cranfield._validate import check_choice, check_float, check_int
from cranfield.errors import OptionError

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.lab.collections import Document
    from cranfield.lab.systems import System

__all__ = [
    "PERCENTILES",
    "IndexStats",
    "LatencyStats",
    "Machine",
    "ThroughputStats",
    "directory_size",
    "measure_indexing",
    "measure_latency",
    "measure_throughput",
]

#: Latency percentiles reported by :class:`LatencyStats`.
PERCENTILES: Final = (50, 90, 95, 99)


# --------------------------------------------------------------------------- the machine


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_bytes() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return None


@dataclass(frozen=True)
class Machine:
    """Where a measurement was taken: timings only compare on the same machine.

    Attributes
    ----------
    cpu_count:
        Logical CPUs of the machine (:func:`os.cpu_count`).
    cpus_available:
        CPUs this process may run on (its affinity mask), which can be fewer.
    cpu_model, platform, machine:
        Processor name, operating system and architecture.
    memory_bytes:
        Physical memory.
    python, implementation:
        Python version and implementation.
    clock:
        The timer used and its resolution.
    load_average:
        1, 5 and 15 minute load averages when the description was taken (a busy machine
        shows here), or ``None`` where the platform has none.
    """

    cpu_count: int
    cpus_available: int
    cpu_model: str
    platform: str
    machine: str
    memory_bytes: int | None
    python: str
    implementation: str
    clock: str
    load_average: tuple[float, float, float] | None

    @classmethod
    def current(cls) -> Machine:
        """Describe the machine running this process, now."""
        info = time.get_clock_info("perf_counter")
        try:
            available = len(os.sched_getaffinity(0))
        except AttributeError:  # pragma: no cover - not Linux
            available = os.cpu_count() or 1
        try:
            load = tuple(round(x, 2) for x in os.getloadavg())
        except (AttributeError, OSError):  # pragma: no cover - Windows
            load = None
        return cls(
            cpu_count=os.cpu_count() or 1,
            cpus_available=available,
            cpu_model=_cpu_model(),
            platform=platform.platform(),
            machine=platform.machine(),
            memory_bytes=_memory_bytes(),
            python=platform.python_version(),
            implementation=platform.python_implementation(),
            clock=(
                f"time.perf_counter_ns ({info.implementation}, "
                f"{'monotonic' if info.monotonic else 'NOT monotonic'}, "
                f"resolution {info.resolution:.0e} s)"
            ),
            load_average=load if load is None else (load[0], load[1], load[2]),
        )

    def same_as(self, other: Machine) -> bool:
        """Whether timings taken on ``other`` compare with this machine's (load aside)."""
        keys = ("cpu_count", "cpus_available", "cpu_model", "platform", "machine", "python")
        return all(getattr(self, k) == getattr(other, k) for k in keys)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return {
            "cpu_count": self.cpu_count,
            "cpus_available": self.cpus_available,
            "cpu_model": self.cpu_model,
            "platform": self.platform,
            "machine": self.machine,
            "memory_bytes": self.memory_bytes,
            "python": self.python,
            "implementation": self.implementation,
            "clock": self.clock,
            "load_average": list(self.load_average) if self.load_average else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Machine:
        """Inverse of :meth:`to_dict`."""
        load = data.get("load_average")
        return cls(
            cpu_count=int(data["cpu_count"]),
            cpus_available=int(data["cpus_available"]),
            cpu_model=str(data["cpu_model"]),
            platform=str(data["platform"]),
            machine=str(data["machine"]),
            memory_bytes=None if data.get("memory_bytes") is None else int(data["memory_bytes"]),
            python=str(data["python"]),
            implementation=str(data["implementation"]),
            clock=str(data["clock"]),
            load_average=None if not load else (float(load[0]), float(load[1]), float(load[2])),
        )

    def describe(self) -> str:
        """One line for reports."""
        mem = f", {self.memory_bytes / 2**30:.0f} GiB" if self.memory_bytes else ""
        load = f"; load average {self.load_average[0]:.2f}" if self.load_average is not None else ""
        return (
            f"{self.cpu_count} CPUs ({self.cpus_available} available), {self.cpu_model}{mem}, "
            f"{self.platform}, {self.implementation} {self.python}{load}"
        )


# --------------------------------------------------------------------------- sizes


def directory_size(path: str | Path) -> tuple[int, int, int]:
    """``(bytes, files, allocated)`` of the regular files under ``path``.

    ``bytes`` is the sum of file sizes (what ``ls -l`` shows), ``allocated`` the space the
    file system reserved for them (``st_blocks * 512``, what ``du`` counts without the
    directories themselves). Symbolic links are not followed; a file linked twice counts
    once.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a").write_bytes(b"x" * 1000)
    >>> directory_size(d)[:2]
    (1000, 1)
    """
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"index directory {root} does not exist.")
    total = files = allocated = 0
    seen: set[tuple[int, int]] = set()
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            st = os.lstat(os.path.join(dirpath, name))
            if not _is_regular(st.st_mode) or (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            total += st.st_size
            files += 1
            allocated += getattr(st, "st_blocks", 0) * 512
    return total, files, allocated


def _is_regular(mode: int) -> bool:
    import stat

    return stat.S_ISREG(mode)


# --------------------------------------------------------------------------- memory


def _status_kib(key: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark (Linux ``clear_refs`` value 5); False if impossible."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
    except OSError:
        return False
    return True


class _MemoryWatch:
    """Peak resident memory of this process while a block runs.

    Linux: the kernel's high-water mark ``VmHWM``, reset at the start (exact, includes
    native allocations of engines written in C or Rust). Elsewhere, or if the reset is not
    permitted: ``VmRSS`` sampled every millisecond by a thread (or, without ``/proc``, the
    process-lifetime ``ru_maxrss``, an upper bound).
    """

    def __init__(self) -> None:
        self.method = "none"
        self.baseline = 0
        self.peak = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._sampled = 0

    def __enter__(self) -> _MemoryWatch:
        gc.collect()
        rss = _status_kib("VmRSS")
        if rss is not None:
            self.baseline = rss * 1024
            if _reset_peak() and _status_kib("VmHWM") is not None:
                self.method = "kernel peak RSS (VmHWM)"
            else:
                self.method = "RSS sampled every 1 ms"
                self._sampled = self.baseline
                self._thread = threading.Thread(target=self._sample, daemon=True)
                self._thread.start()
        else:  # pragma: no cover - not Linux
            self.baseline = _maxrss()
            self.method = "ru_maxrss (process lifetime peak)"
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.001):
            rss = _status_kib("VmRSS")
            if rss is not None:
                self._sampled = max(self._sampled, rss * 1024)

    def __exit__(self, *exc: object) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            rss = _status_kib("VmRSS") or 0
            self.peak = max(self._sampled, rss * 1024)
        elif self.method.startswith("kernel"):
            self.peak = (_status_kib("VmHWM") or 0) * 1024
        else:  # pragma: no cover - not Linux
            self.peak = _maxrss()


def _maxrss() -> int:  # pragma: no cover - not Linux
    import resource

    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(kib) * (1 if sys.platform == "darwin" else 1024)


# --------------------------------------------------------------------------- indexing


@dataclass(frozen=True)
class IndexStats:
    """What building one index cost.

    Attributes
    ----------
    seconds:
        Wall-clock time of ``system.index`` (monotonic clock), reading the documents included.
    documents:
        Documents indexed.
    text_bytes:
        UTF-8 bytes of the document text handed to the engine.
    peak_memory_bytes:
        Peak resident memory of the process while indexing minus the resident memory just
        before: what indexing added at its worst.
    peak_rss_bytes:
        The peak resident memory itself.
    memory_method:
        How the peak was read (see :func:`measure_indexing`).
    index_bytes, index_files, allocated_bytes:
        Size of the index directory after indexing (:func:`directory_size`).
    collection_bytes:
        The collection size the overhead divides by.
    collection_source:
        ``"file"`` (size of the raw collection on disk) or ``"text"`` (:attr:`text_bytes`).
    """

    seconds: float
    documents: int
    text_bytes: int
    peak_memory_bytes: int
    peak_rss_bytes: int
    memory_method: str
    index_bytes: int
    index_files: int
    allocated_bytes: int
    collection_bytes: int
    collection_source: str

    @property
    def overhead(self) -> float:
        """Space overhead: index size / collection size (``nan`` for an empty collection)."""
        return self.index_bytes / self.collection_bytes if self.collection_bytes else float("nan")

    @property
    def documents_per_second(self) -> float:
        """Indexing rate."""
        return self.documents / self.seconds if self.seconds > 0 else float("inf")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (with the derived overhead)."""
        return {
            "seconds": self.seconds,
            "documents": self.documents,
            "text_bytes": self.text_bytes,
            "peak_memory_bytes": self.peak_memory_bytes,
            "peak_rss_bytes": self.peak_rss_bytes,
            "memory_method": self.memory_method,
            "index_bytes": self.index_bytes,
            "index_files": self.index_files,
            "allocated_bytes": self.allocated_bytes,
            "collection_bytes": self.collection_bytes,
            "collection_source": self.collection_source,
            "overhead": self.overhead,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IndexStats:
        """Inverse of :meth:`to_dict`."""
        names = list(cls.__dataclass_fields__)
        return cls(**{n: data[n] for n in names})


class _Counting:
    """Passes documents through, counting them and their text bytes."""

    def __init__(self, documents: Iterable[Document], tracker: Tracker) -> None:
        self._documents = documents
        self._tracker = tracker
        self.count = 0
        self.text_bytes = 0

    def __iter__(self) -> Iterator[Document]:
        for doc in self._documents:
            self.count += 1
            self.text_bytes += len(doc.contents.encode("utf-8"))
            self._tracker.advance()
            yield doc


def measure_indexing(
    system: System,
    documents: Iterable[Document],
    directory: str | Path,
    *,
    collection_bytes: int | None = None,
    total: int | None = None,
    progress: bool | None = None,
) -> IndexStats:
    """Index ``documents`` with ``system`` into ``directory`` and measure the cost.

    Parameters
    ----------
    system:
        The system under test.
    documents:
        The document stream (consumed once).
    directory:
        Where the index goes; created if missing, and must be empty.
    collection_bytes:
        Size of the raw collection, the denominator of the space overhead; default the
        UTF-8 bytes of the document text streamed to the engine.
    total:
        Number of documents, if known, for the progress bar.
    progress:
        Show a progress bar (after one second); default when standard error is a terminal.

    Returns
    -------
    IndexStats

    Notes
    -----
    **Time** is the wall-clock time of the ``index`` call, reading the stream included.
    **Memory**: on Linux the kernel's peak resident set size of the process (``VmHWM``) is
    reset just before indexing (``/proc/self/clear_refs``) and read just after, so memory
    that a C or Rust engine allocates is counted; if the reset is refused, resident memory
    is sampled every millisecond instead. The figure reported is the peak minus the resident
    memory before indexing. **Size** is the sum of the file sizes in ``directory`` after
    indexing.

    Examples
    --------
    >>> import tempfile
    >>> from cranfield.lab import Document, SQLiteFTS5
    >>> stats = measure_indexing(SQLiteFTS5(), [Document("d1", "lift and drag")],
    ...                          tempfile.mkdtemp(), progress=False)
    >>> stats.documents, stats.index_bytes > 0
    (1, True)
    """
    check_int("collection_bytes", collection_bytes, minimum=0, none=True)
    check_int("total", total, minimum=0, none=True)
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    if any(target.iterdir()):
        raise FileExistsError(f"index directory {target} is not empty.")
    with Tracker(f"indexing {system.name}", total, enabled=progress_enabled(progress)) as tracker:
        stream = _Counting(documents, tracker)
        with _MemoryWatch() as memory:
            start = time.perf_counter_ns()
            system.index(stream, target)
            elapsed = (time.perf_counter_ns() - start) / 1e9
    size, files, allocated = directory_size(target)
    base = collection_bytes if collection_bytes is not None else stream.text_bytes
    return IndexStats(
        seconds=elapsed,
        documents=stream.count,
        text_bytes=stream.text_bytes,
        peak_memory_bytes=max(0, memory.peak - memory.baseline),
        peak_rss_bytes=memory.peak,
        memory_method=memory.method,
        index_bytes=size,
        index_files=files,
        allocated_bytes=allocated,
        collection_bytes=base,
        collection_source="file" if collection_bytes is not None else "text",
    )


# --------------------------------------------------------------------------- latency


def check_concurrency(concurrency: Iterable[int]) -> tuple[int, ...]:
    """The numbers of concurrent clients to measure: at least one, each an integer >= 1."""
    if isinstance(concurrency, (str, bytes)) or not isinstance(concurrency, Iterable):
        raise OptionError("concurrency", "a list of integers >= 1", concurrency)
    levels = tuple(check_int("concurrency", c, minimum=1) for c in concurrency)
    if not levels:
        raise OptionError("concurrency", "at least one number of clients", [])
    return levels


def _query_list(queries: Mapping[str, str] | Sequence[str]) -> tuple[list[str], list[str]]:
    if isinstance(queries, Mapping):
        ids, texts = [str(q) for q in queries], [str(t) for t in queries.values()]
    elif isinstance(queries, str):
        raise ValueError("queries must be a list of query texts or a {query_id: text} mapping.")
    else:
        texts = [str(t) for t in queries]
        ids = [str(i + 1) for i in range(len(texts))]
    if not texts:
        raise ValueError("queries must hold at least one query, got none.")
    return ids, texts


@dataclass(frozen=True, eq=False)
class LatencyStats:
    """Per-query response times of one system.

    Attributes
    ----------
    query_ids:
        Queries, in the order they were sent.
    samples:
        Seconds, shape ``(repetitions, queries)``: every timed call.
    warmup:
        Untimed calls made before the first timed one.
    k:
        Depth requested.

    Notes
    -----
    A query's latency is the **median of its repetitions** (robust to a stray pause of the
    machine); the summary statistics are taken over queries. Percentiles use linear
    interpolation between order statistics (NumPy's default, Hyndman and Fan's type 7).
    """

    query_ids: tuple[str, ...]
    samples: NDArray[np.float64]
    warmup: int
    k: int
    _summary: dict[str, float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        per = self.per_query
        summary = {"mean": float(per.mean()), "min": float(per.min()), "max": float(per.max())}
        for p, v in zip(PERCENTILES, np.percentile(per, PERCENTILES), strict=True):
            summary[f"p{p}"] = float(v)
        object.__setattr__(self, "_summary", summary)

    def __repr__(self) -> str:
        s = self._summary
        return (
            f"LatencyStats(queries={len(self.query_ids)}, repetitions={self.repetitions}, "
            f"mean={s['mean'] * 1e3:.3f} ms, p50={s['p50'] * 1e3:.3f} ms, "
            f"p99={s['p99'] * 1e3:.3f} ms)"
        )

    @property
    def repetitions(self) -> int:
        """Timed passes over the queries."""
        return int(self.samples.shape[0])

    @property
    def per_query(self) -> NDArray[np.float64]:
        """Latency of each query in seconds (median over repetitions)."""
        return np.asarray(np.median(self.samples, axis=0), dtype=np.float64)

    @property
    def mean(self) -> float:
        """Mean latency, seconds."""
        return self._summary["mean"]

    @property
    def p50(self) -> float:
        """Median latency, seconds."""
        return self._summary["p50"]

    @property
    def p90(self) -> float:
        """90th percentile, seconds."""
        return self._summary["p90"]

    @property
    def p95(self) -> float:
        """95th percentile, seconds."""
        return self._summary["p95"]

    @property
    def p99(self) -> float:
        """99th percentile, seconds."""
        return self._summary["p99"]

    @property
    def max(self) -> float:
        """Slowest query, seconds."""
        return self._summary["max"]

    def summary(self) -> dict[str, float]:
        """``{"mean", "min", "p50", "p90", "p95", "p99", "max"}`` in seconds."""
        return dict(self._summary)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: summary, per-query latencies and every sample."""
        return {
            "warmup": self.warmup,
            "repetitions": self.repetitions,
            "k": self.k,
            "summary_seconds": self.summary(),
            "query_ids": list(self.query_ids),
            "samples_seconds": self.samples.tolist(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LatencyStats:
        """Inverse of :meth:`to_dict`."""
        return cls(
            query_ids=tuple(data["query_ids"]),
            samples=np.asarray(data["samples_seconds"], dtype=np.float64),
            warmup=int(data["warmup"]),
            k=int(data["k"]),
        )


def measure_latency(
    system: System,
    queries: Mapping[str, str] | Sequence[str],
    *,
    k: int = 1000,
    warmup: int = 20,
    repetitions: int = 3,
    progress: bool | None = None,
) -> LatencyStats:
    """Time every query, one at a time, after a warm-up.

    Parameters
    ----------
    system:
        A system with an open index.
    queries:
        ``{query_id: text}`` or a list of texts.
    k:
        Depth asked for.
    warmup:
        Untimed searches first (the first ``warmup`` queries, cycling if there are fewer),
        so caches, lazy loading and JIT compilation do not land on the first timed query.
    repetitions:
        Timed passes over all queries; a query's latency is the median of its passes.
    progress:
        Progress bar after one second (default: when standard error is a terminal).

    Returns
    -------
    LatencyStats

    Notes
    -----
    Each call is timed alone with :func:`time.perf_counter_ns` around ``system.search``;
    the garbage collector stays on, as in service.

    Examples
    --------
    >>> import time
    >>> from cranfield.lab import CallableSystem
    >>> napper = CallableSystem("napper", lambda q, k: (time.sleep(0.002), [])[1])
    >>> lat = measure_latency(napper, ["a", "b"], warmup=1, repetitions=2, progress=False)
    >>> lat.p50 >= 0.002
    True
    """
    k = check_int("k", k, minimum=1)
    check_int("warmup", warmup, minimum=0)
    check_int("repetitions", repetitions, minimum=1)
    ids, texts = _query_list(queries)
    n = len(texts)
    samples = np.empty((repetitions, n), dtype=np.float64)
    clock = time.perf_counter_ns
    with Tracker(
        f"latency {system.name}", warmup + repetitions * n, enabled=progress_enabled(progress)
    ) as tracker:
        for i in range(warmup):
            system.search(texts[i % n], k)
            tracker.advance()
        for r in range(repetitions):
            row = samples[r]
            for j, text in enumerate(texts):
                start = clock()
                system.search(text, k)
                row[j] = (clock() - start) / 1e9
                tracker.advance()
    return LatencyStats(query_ids=tuple(ids), samples=samples, warmup=warmup, k=k)


# --------------------------------------------------------------------------- throughput


@dataclass(frozen=True)
class ThroughputStats:
    """Queries per second at several concurrency levels.

    Attributes
    ----------
    levels:
        Concurrent clients (threads) of each measurement.
    queries:
        Queries answered at each level.
    seconds:
        Wall-clock seconds each level took.
    k:
        Depth requested.
    """

    levels: tuple[int, ...]
    queries: tuple[int, ...]
    seconds: tuple[float, ...]
    k: int

    @property
    def qps(self) -> tuple[float, ...]:
        """Queries per second at each level."""
        return tuple(
            q / s if s > 0 else float("inf")
            for q, s in zip(self.queries, self.seconds, strict=True)
        )

    def at(self, level: int) -> float:
        """Queries per second with ``level`` concurrent clients."""
        return self.qps[self.levels.index(check_choice("level", level, self.levels))]

    @property
    def best(self) -> tuple[int, float]:
        """``(level, qps)`` of the highest throughput."""
        i = int(np.argmax(self.qps))
        return self.levels[i], self.qps[i]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (with the derived rates)."""
        return {
            "levels": list(self.levels),
            "queries": list(self.queries),
            "seconds": list(self.seconds),
            "qps": list(self.qps),
            "k": self.k,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ThroughputStats:
        """Inverse of :meth:`to_dict`."""
        return cls(
            levels=tuple(int(x) for x in data["levels"]),
            queries=tuple(int(x) for x in data["queries"]),
            seconds=tuple(float(x) for x in data["seconds"]),
            k=int(data["k"]),
        )


def measure_throughput(
    system: System,
    queries: Mapping[str, str] | Sequence[str],
    *,
    k: int = 1000,
    concurrency: Sequence[int] = (1, 2, 4),
    passes: int = 1,
    min_seconds: float = 1.0,
    progress: bool | None = None,
) -> ThroughputStats:
    """Queries per second with ``c`` clients searching at once, for each ``c`` in ``concurrency``.

    Parameters
    ----------
    system:
        A system with an open index; its ``search`` must be thread-safe.
    queries:
        ``{query_id: text}`` or a list of texts.
    k:
        Depth asked for.
    concurrency:
        Numbers of concurrent clients.
    passes:
        Passes over the query list at each level (at least ``passes * len(queries)``
        queries, shared by the clients).
    min_seconds:
        Keep cycling through the queries until each level has also run this long, so short
        query sets still give a stable rate (0 for exactly ``passes`` passes).
    progress:
        Progress bar after one second (default: when standard error is a terminal).

    Returns
    -------
    ThroughputStats

    Notes
    -----
    Clients are threads of this process pulling the next query (cycling through the list)
    from a shared counter until the load is done and ``min_seconds`` have passed; the clock
    runs from the release of the clients, all at once, to the last answer.
    Engines that hold Python's global interpreter lock while searching cannot use more than
    one core this way; an engine that releases it (SQLite, or a server behind
    :class:`~cranfield.lab.HTTPSystem`) can.
    """
    k = check_int("k", k, minimum=1)
    check_int("passes", passes, minimum=1)
    min_ns = int(check_float("min_seconds", min_seconds, minimum=0) * 1e9)
    levels = check_concurrency(concurrency)
    _ids, texts = _query_list(queries)
    n = len(texts)
    load = passes * n
    done: list[int] = []
    elapsed: list[float] = []
    with Tracker(
        f"throughput {system.name}", load * len(levels), enabled=progress_enabled(progress)
    ) as tracker:
        lock = threading.Lock()
        for level in levels:
            counter = itertools.count()
            gate = threading.Barrier(level + 1)

            def client(counter: Iterator[int] = counter, gate: threading.Barrier = gate) -> int:
                gate.wait()
                deadline = time.perf_counter_ns() + min_ns
                answered = 0
                while (i := next(counter)) < load or time.perf_counter_ns() < deadline:
                    system.search(texts[i % n], k)
                    answered += 1
                    with lock:
                        tracker.advance()
                return answered

            with ThreadPoolExecutor(max_workers=level) as pool:
                futures = [pool.submit(client) for _ in range(level)]
                gate.wait()  # every client is ready: release them all and start the clock
                start = time.perf_counter_ns()
                answered = sum(f.result() for f in futures)
                elapsed.append((time.perf_counter_ns() - start) / 1e9)
            done.append(answered)
    return ThroughputStats(levels=levels, queries=tuple(done), seconds=tuple(elapsed), k=k)
