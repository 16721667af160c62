"""Efficiency figures are measured, not invented: known sleeps, known bytes, known memory.

No assertion depends on how loaded the machine is (issue 29): a sleep never ends early, so
each timed search is at least its sleep (a lower bound), and the timed searches are parts of
the call, so together they never exceed the time the whole call took, measured around it
here (an upper bound that scales with the load). That clients search at once is shown by
their meeting inside the system, not by how much faster they finish.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from cranfield.errors import OptionError
from cranfield.lab import (
    CallableSystem,
    Collection,
    Document,
    IndexStats,
    LatencyStats,
    Machine,
    SQLiteFTS5,
    ThroughputStats,
    directory_size,
    measure_indexing,
    measure_latency,
    measure_throughput,
)

NAP = 0.020  # seconds a query sleeps


def sleeper(query: str, k: int) -> list[tuple[str, float]]:
    time.sleep(NAP)
    return [("d1", 1.0)]


def test_latency_of_a_sleeping_system_is_recovered() -> None:
    system = CallableSystem("sleeper", sleeper)
    queries = {f"q{i}": f"query {i}" for i in range(12)}
    start = time.perf_counter()
    lat = measure_latency(system, queries, warmup=2, repetitions=2, progress=False)
    whole = time.perf_counter() - start
    assert lat.samples.shape == (2, 12)
    assert lat.query_ids == tuple(queries)
    summary = lat.summary()
    # A sleep never returns early: every figure is at least the sleep, in seconds ...
    assert summary["min"] >= NAP * 0.995
    assert lat.p50 >= NAP * 0.995
    assert lat.mean >= NAP * 0.995
    assert lat.p50 <= lat.p90 <= lat.p95 <= lat.p99 <= lat.max
    # ... and the timed searches are parts of the call: never more than it took (2 warm-ups more)
    assert lat.samples.sum() + 2 * NAP * 0.995 <= whole


def test_latency_percentiles_follow_the_distribution() -> None:
    slow = {f"q{i}" for i in range(0, 20, 5)}  # 4 of 20 queries take 4x longer

    def uneven(query: str, k: int) -> list[tuple[str, float]]:
        time.sleep(0.040 if query in slow else 0.010)
        return []

    queries = {f"q{i}": f"q{i}" for i in range(20)}
    start = time.perf_counter()
    lat = measure_latency(
        CallableSystem("uneven", uneven), queries, warmup=0, repetitions=1, progress=False
    )
    assert lat.samples.sum() <= time.perf_counter() - start
    per = dict(zip(lat.query_ids, lat.per_query, strict=True))
    assert all(per[q] >= 0.0399 for q in slow)
    assert all(per[q] >= 0.0099 for q in set(queries) - slow)
    assert lat.p50 == np.percentile(lat.per_query, 50)
    # the 4 slowest of 20 are at least the 4 slow sleeps, whatever the load: p90 lies among them
    assert lat.p90 >= 0.0399
    assert lat.max >= 0.0399
    assert lat.mean == pytest.approx(np.mean(lat.per_query))


def test_throughput_of_a_sleeping_system() -> None:
    system = CallableSystem("sleeper", sleeper)
    queries = [f"query {i}" for i in range(16)]
    tp = measure_throughput(system, queries, concurrency=[1, 4], min_seconds=0, progress=False)
    assert tp.levels == (1, 4)
    assert tp.queries == (16, 16)
    # c clients sleeping 20 ms per query cannot exceed c * 50 queries per second
    assert tp.at(1) <= 1 / NAP * 1.01
    assert tp.at(4) <= 4 / NAP * 1.01
    assert tp.seconds[0] >= 16 * NAP * 0.995
    assert tp.seconds[1] >= 4 * NAP * 0.995  # one of the four clients searched 4 of the 16
    assert tp.best[0] in (1, 4)


def test_throughput_clients_search_at_once() -> None:
    # Each client's first search waits inside the system until all four are there: were the
    # clients run one after another, the barrier would break. Its timeout is only a bound
    # against a hang, far above any load; how much faster four clients go is not asserted.
    meeting = threading.Barrier(4, timeout=60)
    arrived: set[int] = set()
    lock = threading.Lock()

    def meet(query: str, k: int) -> list[tuple[str, float]]:
        with lock:
            first = threading.get_ident() not in arrived
            arrived.add(threading.get_ident())
        if first:
            meeting.wait()
        return []

    tp = measure_throughput(
        CallableSystem("meet", meet),
        ["a", "b"],
        concurrency=[4],
        passes=4,
        min_seconds=0,
        progress=False,
    )
    assert tp.queries == (8,)
    assert len(arrived) == 4


def test_throughput_runs_for_the_minimum_time() -> None:
    system = CallableSystem("fast", lambda q, k: [])
    tp = measure_throughput(system, ["a", "b"], concurrency=[2], min_seconds=0.2, progress=False)
    assert tp.seconds[0] >= 0.2
    assert tp.queries[0] > 2


def test_directory_size_equals_bytes_on_disk(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.bin").write_bytes(b"\0" * 12345)
    (tmp_path / "sub" / "b.bin").write_bytes(b"x" * 678)
    os.symlink(tmp_path / "a.bin", tmp_path / "link")  # not followed, not counted
    size, files, allocated = directory_size(tmp_path)
    assert (size, files) == (12345 + 678, 2)
    assert allocated == sum(
        os.stat(p).st_blocks * 512 for p in (tmp_path / "a.bin", tmp_path / "sub" / "b.bin")
    )


def test_index_size_equals_the_bytes_of_the_index_files(toy: Collection, tmp_path: Path) -> None:
    target = tmp_path / "index"
    stats = measure_indexing(SQLiteFTS5(), toy.iter_documents(), target, progress=False)
    independent = sum(len(p.read_bytes()) for p in target.rglob("*") if p.is_file())
    assert stats.index_bytes == independent > 0
    assert stats.documents == 6
    assert stats.text_bytes == sum(len(d.contents.encode()) for d in toy.iter_documents())
    assert stats.collection_source == "text"
    assert stats.overhead == pytest.approx(independent / stats.text_bytes)
    assert stats.seconds > 0
    with pytest.raises(FileExistsError, match="is not empty"):
        measure_indexing(SQLiteFTS5(), toy.iter_documents(), target, progress=False)
    again = IndexStats.from_dict(stats.to_dict())
    assert again == stats


def test_peak_memory_while_indexing_is_measured(tmp_path: Path) -> None:
    size = 64 * 2**20

    def hungry(documents: object, directory: Path) -> None:
        block = bytearray(size)  # touched: zero-filled pages are resident
        block[::4096] = b"\1" * len(block[::4096])
        (directory / "index").write_bytes(bytes(block[:10]))
        del block

    system = CallableSystem("hungry", lambda q, k: [], index=hungry)
    stats = measure_indexing(
        system, [Document("d", "x")], tmp_path / "i", collection_bytes=100, progress=False
    )
    assert stats.peak_memory_bytes >= size * 0.9
    assert stats.peak_rss_bytes >= stats.peak_memory_bytes
    assert stats.index_bytes == 10
    assert stats.overhead == pytest.approx(0.1)
    assert stats.collection_source == "file"


def test_machine_description_and_round_trips() -> None:
    m = Machine.current()
    assert m.cpu_count == os.cpu_count()
    assert m.cpus_available >= 1
    assert m.python.count(".") == 2
    assert "monotonic" in m.clock
    assert Machine.from_dict(m.to_dict()) == m
    assert m.same_as(m)
    assert "CPUs" in m.describe()
    lat = LatencyStats(("a", "b"), np.array([[0.1, 0.3], [0.2, 0.4]]), warmup=0, k=10)
    assert lat.per_query.tolist() == pytest.approx([0.15, 0.35])
    assert LatencyStats.from_dict(lat.to_dict()).summary() == lat.summary()
    tp = ThroughputStats(levels=(1, 2), queries=(10, 10), seconds=(1.0, 0.5), k=10)
    assert tp.qps == (10.0, 20.0)
    assert ThroughputStats.from_dict(tp.to_dict()) == tp
    with pytest.raises(OptionError, match="The 'level' option must be one of 1, 2, got 3"):
        tp.at(3)


def test_options_are_validated() -> None:
    system = CallableSystem("s", lambda q, k: [])
    with pytest.raises(
        OptionError, match="The 'repetitions' option must be an integer >= 1, got 0"
    ):
        measure_latency(system, ["a"], repetitions=0)
    with pytest.raises(ValueError, match="queries must hold at least one query"):
        measure_latency(system, [])
    with pytest.raises(
        OptionError, match="The 'concurrency' option must be an integer >= 1, got 0"
    ):
        measure_throughput(system, ["a"], concurrency=[0])
    with pytest.raises(OptionError, match="The 'concurrency' option must be at least one number"):
        measure_throughput(system, ["a"], concurrency=[])
    with pytest.raises(OptionError, match="The 'concurrency' option must be a list of integers"):
        measure_throughput(system, ["a"], concurrency=4)  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="The 'min_seconds' option must be a number >= 0, got -1"):
        measure_throughput(system, ["a"], min_seconds=-1)
