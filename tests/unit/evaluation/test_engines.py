"""Runs scored by worker processes or a Dask cluster: bit for bit the numbers of this process,
warnings and errors carried back, a dead worker a clear error, never a partial result."""

from __future__ import annotations

import ctypes
import os
import pickle
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from cranfield.errors import (
    EvaluationError,
    InputError,
    MissingTopicError,
    OptionError,
    QueryOverlapWarning,
    UnknownKindError,
)
from cranfield.evaluation.engines import DaskCluster, InProcess, Processes, engine_for
from cranfield.evaluation.evaluator import Evaluator
from cranfield.evaluation.results import ScoreTable

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "R@100", "Rprec"]
QUIET = pytest.mark.filterwarnings("ignore::cranfield.errors.QueryOverlapWarning")  # small runs
GLIBC = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="glibc's heap thresholds (Linux)"
)


def _adversarial(folder: Path, seed: int, runs: int = 5) -> tuple[Path, list[Any]]:
    """Qrels and runs that catch a lost order or a split query: tied scores, unsorted and
    interleaved lines, queries missing from some runs, a run in memory beside the files."""
    rng = np.random.default_rng(seed)
    queries = [f"q{i}" for i in range(30)]
    qrels = folder / "qrels.txt"
    qrels.write_text(
        "".join(
            f"{q} 0 d{d} {int(rng.integers(0, 3))}\n"
            for q in queries
            for d in rng.choice(60, size=12, replace=False)
        )
    )
    sources: list[Any] = []
    for r in range(runs):
        lines = [
            (q, f"d{d}", float(rng.integers(0, 4)))  # few distinct scores: many ties
            for q in queries
            if rng.random() > 0.15  # some queries missing
            for d in rng.choice(60, size=25, replace=False)
        ]
        order = rng.permutation(len(lines))  # lines of a query scattered through the file
        path = folder / f"run{r}.txt"
        path.write_text(
            "".join(f"{q} Q0 {d} 0 {s} tag{r}\n" for q, d, s in (lines[i] for i in order))
        )
        sources.append(path)
    sources.append({"q1": {"d1": 1.0, "d2": 1.0, "d3": 0.5}, "q7": {"d9": 2.0}})
    return qrels, sources


def _same(a: ScoreTable, b: ScoreTable) -> None:
    assert a.names == b.names
    assert a.topics == b.topics
    for m in a.measures:
        np.testing.assert_array_equal(a.matrix(m), b.matrix(m))
    for x, y in zip(a.results, b.results, strict=True):
        assert x.topics == y.topics
        assert x.missing_topics == y.missing_topics
        assert x.means() == y.means()


@QUIET
@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_worker_processes_give_the_numbers_of_this_process(tmp_path: Path, missing: str) -> None:
    qrels, runs = _adversarial(tmp_path, seed=7)
    here = Evaluator(qrels, MEASURES, missing=missing).many(runs)
    there = Evaluator(qrels, MEASURES, missing=missing).many(runs, jobs=2)
    _same(here, there)
    assert all(r.notes[-1] == "Scored by 2 worker processes." for r in there.results)
    assert all("worker" not in " ".join(r.notes) for r in here.results)


def test_every_core_is_jobs_0_and_a_bad_jobs_is_one_sentence() -> None:
    assert isinstance(engine_for(), InProcess)
    assert isinstance(engine_for(jobs=1), InProcess)
    many = engine_for(jobs=0)
    assert many.workers == len(os.sched_getaffinity(0)) or isinstance(many, InProcess)
    assert isinstance(engine_for(jobs=3), Processes)
    with pytest.raises(OptionError, match=r"The 'jobs' option must be an integer >= 0, got -1\."):
        engine_for(jobs=-1)
    with pytest.raises(OptionError, match=r"'jobs' option must be 1 .* when a scheduler"):
        engine_for(jobs=2, scheduler="tcp://localhost:8786")
    with pytest.raises(OptionError, match="'scheduler' option must be"):
        engine_for(scheduler="  ")
    with pytest.raises(OptionError, match="'scheduler' option must be"):
        engine_for(scheduler=8786)
    assert isinstance(engine_for(scheduler="tcp://localhost:8786"), DaskCluster)


@pytest.mark.slow
def test_a_warning_raised_in_a_worker_is_raised_here(tmp_path: Path) -> None:
    qrels, runs = _adversarial(tmp_path, seed=3, runs=1)
    with pytest.warns(QueryOverlapWarning, match="run 'run2'"):
        Evaluator(qrels, ["AP"]).many(runs, jobs=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", QueryOverlapWarning)  # --strict: still an error
        with pytest.raises(QueryOverlapWarning):
            Evaluator(qrels, ["AP"]).many(runs, jobs=2)


@pytest.mark.slow
@QUIET
def test_an_error_in_a_worker_is_raised_here_as_it_was(tmp_path: Path) -> None:
    qrels, runs = _adversarial(tmp_path, seed=5, runs=2)
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 d1 0 1.0 tag\nq1 Q0 d2 0 high tag\n")
    with pytest.raises(InputError) as here:
        Evaluator(qrels, ["AP"]).many([runs[0], bad])
    with pytest.raises(InputError) as there:
        Evaluator(qrels, ["AP"]).many([runs[0], bad], jobs=2)
    assert str(there.value) == str(here.value)
    assert (there.value.source, there.value.line) == (here.value.source, 2)
    with pytest.raises(MissingTopicError):
        Evaluator(qrels, ["AP"], missing="error").many(runs, jobs=2)


def test_every_error_survives_pickling_whole() -> None:
    errors = [
        InputError("a.txt", 3, "bad", "x y", command_line_problem="worse"),
        UnknownKindError("f.json", None, "no kind"),
        OptionError("depth", "an integer >= 0", -1, note="See --help."),
        MissingTopicError(["q1", "q2"]),
        EvaluationError("plain", command_line="worded"),
    ]
    for error in errors:
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error)
        assert str(copy) == str(error)
        assert copy.for_command_line() == error.for_command_line()
        assert copy.__dict__ == error.__dict__


class _KillsItsWorker:
    """A run whose unpickling ends the process it lands in, as an out-of-memory kill would."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (os._exit, (3,))


@QUIET
def test_a_worker_that_dies_ends_the_evaluation_with_a_clear_error(tmp_path: Path) -> None:
    qrels, runs = _adversarial(tmp_path, seed=11, runs=2)
    with pytest.raises(EvaluationError, match="a worker process died while run 'run") as exc:
        Evaluator(qrels, ["AP"]).many([*runs[:2], _KillsItsWorker()], jobs=2)
    assert "no result is given from part of the runs" in str(exc.value)


# --------------------------------------------------------------------------- Dask


@pytest.mark.slow
@QUIET
def test_a_dask_cluster_gives_the_numbers_of_this_process(
    tmp_path: Path, dask_cluster: Any
) -> None:
    qrels, runs = _adversarial(tmp_path, seed=13)
    here = Evaluator(qrels, MEASURES).many(runs)
    by_address = Evaluator(qrels, MEASURES).many(runs, scheduler=dask_cluster.scheduler_address)
    _same(here, by_address)
    note = by_address.results[0].notes[-1]
    assert note.startswith("Scored by 2 Dask workers on 1 machine (tcp://"), note
    from distributed import Client

    with Client(dask_cluster) as client:
        by_client = Evaluator(qrels, MEASURES).many(runs, scheduler=client)
        assert client.status == "running"  # a client given is the caller's: left open
    _same(here, by_client)


@pytest.mark.slow
def test_a_dask_worker_error_and_warning_come_back(tmp_path: Path, dask_cluster: Any) -> None:
    qrels, runs = _adversarial(tmp_path, seed=17, runs=1)
    with pytest.warns(QueryOverlapWarning):
        Evaluator(qrels, ["AP"]).many(runs, scheduler=dask_cluster.scheduler_address)
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 d1 0 one tag\n")
    with pytest.raises(InputError, match=r"bad\.txt:1: "):
        Evaluator(qrels, ["AP"]).many([runs[0], bad], scheduler=dask_cluster.scheduler_address)


def _pair(shared: str, item: int) -> tuple[str, int]:
    return shared, item


@pytest.mark.slow
def test_two_maps_at_once_on_one_cluster_keep_their_own_results(dask_cluster: Any) -> None:
    from distributed import Client

    with Client(dask_cluster) as client:
        engine = DaskCluster(client)
        first = engine.map(_pair, "A", [1, 2])
        assert next(first) == ("A", 1)  # its tasks are still held while a second map runs
        assert list(engine.map(_pair, "B", [1, 2])) == [("B", 1), ("B", 2)]
        assert list(first) == [("A", 2)]


class _MallInfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2``."""

    _fields_: ClassVar[list[tuple[str, type[ctypes.c_size_t]]]] = [
        (name, ctypes.c_size_t)
        for name in (
            *("arena", "ordblks", "smblks", "hblks", "hblkhd"),
            *("usmblks", "fsmblks", "uordblks", "fordblks", "keepcost"),
        )
    ]


def _mapped_alone(_: object, size: int) -> tuple[str | None, int]:
    """The process's fixed trim threshold, and whether glibc gave an array of ``size``
    doubles a mapping of its own (1) or memory of its heap (0): the count of mmapped blocks
    while the array lives (``mallinfo2().hblks``), whatever pages the kernel backs it with."""
    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = _MallInfo2
    before = libc.mallinfo2().hblks
    array = np.ones(size)
    mapped = libc.mallinfo2().hblks - before
    del array
    return os.environ.get("MALLOC_TRIM_THRESHOLD_"), int(mapped)


MIB = 1 << 17  # doubles: an array of 1 MiB, above glibc's 128 KiB mmap threshold


@pytest.mark.slow
@GLIBC
def test_a_dask_task_reuses_the_memory_of_freed_arrays() -> None:
    # Dask's nanny fixes glibc's trim threshold, which makes every array over 128 KiB a
    # mapping of its own, its pages faulted in anew each time (scoring then took 1.5x the
    # CPU): the engine's tasks run with the thresholds glibc itself would settle on. A worker
    # of its own: a worker that has scored runs may serve an array from its heap anyway.
    distributed = pytest.importorskip("distributed")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with (
            distributed.LocalCluster(
                n_workers=1,
                threads_per_worker=1,
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",
                silence_logs=50,
            ) as fresh,
            distributed.Client(fresh) as client,
        ):
            [(trim, fixed)] = client.gather(client.map(_mapped_alone, [None], [MIB], pure=False))
            [(_, steady)] = DaskCluster(client).map(_mapped_alone, None, [MIB])
    assert trim == "65536"  # what the nanny sets: the case this guards against
    assert (fixed, steady) == (1, 0)


@GLIBC
def test_the_heap_is_steady_only_inside_and_given_back_after() -> None:
    code = (
        "from tests.unit.evaluation.test_engines import _mapped_alone as f, MIB\n"
        "from cranfield.evaluation.engines import _steady_heap\n"
        "before = f(None, MIB)[1]\n"
        "with _steady_heap():\n"
        "    with _steady_heap():\n"  # nested, as two tasks of one worker at once
        "        pass\n"
        "    inside = f(None, MIB)[1]\n"
        "print(before, inside, f(None, MIB)[1])\n"
    )
    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["1", "0", "1"], done.stdout
    unset = {k: v for k, v in env.items() if k != "MALLOC_TRIM_THRESHOLD_"}
    done = subprocess.run(  # nothing fixed: glibc's own rule, left alone
        [sys.executable, "-c", code], env=unset, capture_output=True, text=True, check=True
    )
    assert done.stdout.split()[1:] == ["0", "0"], done.stdout


@QUIET
def test_an_unreachable_scheduler_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr("cranfield.evaluation.engines.CONNECT_SECONDS", 1.0)
    qrels, runs = _adversarial(tmp_path, seed=19, runs=2)
    with pytest.raises(EvaluationError, match="cannot reach the Dask scheduler at tcp://127"):
        Evaluator(qrels, ["AP"]).many(runs, scheduler="tcp://127.0.0.1:9")


# --------------------------------------------------------------------------- progress


class _Bar:
    """A stand-in for the progress bar that records how it was used."""

    made: ClassVar[list[_Bar]] = []

    def __init__(self, description: str, total: int | None, *, enabled: bool) -> None:
        self.description, self.total, self.enabled, self.done = description, total, enabled, 0
        _Bar.made.append(self)

    def __enter__(self) -> _Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def advance(self, amount: int = 1) -> None:
        self.done += amount


@QUIET
def test_progress_counts_the_runs_and_shows_only_when_asked_or_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("cranfield.evaluation.execution.Tracker", _Bar)
    qrels, runs = _adversarial(tmp_path, seed=23, runs=3)
    _Bar.made.clear()
    Evaluator(qrels, ["AP"]).many(runs, progress=True)
    Evaluator(qrels, ["AP"]).many(runs)  # the library is quiet unless asked
    Evaluator(qrels, ["AP"]).many(runs[:1], progress=True)  # one run: no bar
    monkeypatch.setattr("sys.stderr.isatty", lambda: False)
    Evaluator(qrels, ["AP"]).many(runs, progress=None)  # not a terminal
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    Evaluator(qrels, ["AP"]).many(runs, progress=None)  # a terminal
    shown = [(bar.enabled, bar.total, bar.done) for bar in _Bar.made]
    assert shown == [(True, 4, 4), (False, 4, 4), (False, 1, 1), (False, 4, 4), (True, 4, 4)]
    assert _Bar.made[0].description == "scoring 4 runs"


def _polars_threads(_: object, __: object) -> int:
    import polars

    return int(polars.thread_pool_size())


@pytest.mark.slow
def test_each_worker_process_gets_its_share_of_the_cores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("POLARS_MAX_THREADS", raising=False)
    share = max(1, len(os.sched_getaffinity(0)) // 2)
    assert list(Processes(2).map(_polars_threads, None, [1, 2])) == [share, share]


def test_a_streamed_run_counts_its_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("cranfield.evaluation.execution.Tracker", _Bar)  # the runs
    monkeypatch.setattr("cranfield.evaluation.evaluator.Tracker", _Bar)  # a run's lines
    qrels, runs = _adversarial(tmp_path, seed=29, runs=1)
    run = tmp_path / "sorted.txt"  # streaming wants each query's lines together
    run.write_text("".join(sorted(runs[0].read_text().splitlines(keepends=True))))
    lines = len(run.read_text().splitlines())
    _Bar.made.clear()
    streamed = Evaluator(qrels, ["AP"]).stream(run, progress=True, block_bytes=4096)
    assert [(b.description, b.total, b.done, b.enabled) for b in _Bar.made] == [
        ("streaming sorted (lines)", None, lines, True)
    ]
    assert streamed.means() == Evaluator(qrels, ["AP"]).evaluate(run).means()
    _Bar.made.clear()
    list(Evaluator(qrels, ["AP"]).each([run], stream=True, progress=True))
    assert [(b.total, b.enabled) for b in _Bar.made] == [(1, False), (None, True)]


@QUIET
def test_the_notes_count_the_processes_that_were_started(tmp_path: Path) -> None:
    qrels, runs = _adversarial(tmp_path, seed=31, runs=1)
    table = Evaluator(qrels, ["AP"]).many(runs[:2], jobs=8)  # two runs: two processes
    assert table.results[0].notes[-1] == "Scored by 2 worker processes."


@QUIET
def test_compare_and_the_report_show_the_runs_scored_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cranfield.report.html import html_report
    from cranfield.stats import compare

    monkeypatch.setattr("cranfield.evaluation.execution.Tracker", _Bar)
    qrels, runs = _adversarial(tmp_path, seed=37, runs=2)
    _Bar.made.clear()
    compare(qrels, runs[:2], ["AP"], progress=True)
    compare(qrels, runs[:2], ["AP"])
    html_report(qrels, runs[:2], ["AP"], curves=False, progress=True)
    assert [(b.enabled, b.total, b.done) for b in _Bar.made] == [
        (True, 2, 2),
        (False, 2, 2),
        (True, 2, 2),
    ]
