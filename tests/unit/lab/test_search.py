"""The lab searching on workers (``--jobs``, ``--scheduler``): the same runs, byte for byte,
one engine per worker kept across batches, latency per topic, the same errors."""

from __future__ import annotations

import gc
import io
import os
import pickle
import shutil
import socket
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from cranfield.cli.lab import main
from cranfield.errors import EngineError, OptionError
from cranfield.lab import BM25S, CallableSystem, Experiment, HTTPSystem, SQLiteFTS5, Tantivy
from cranfield.lab.report import to_html, to_text
from cranfield.lab.search import Batch, Searcher, search_on
from tests.unit.cli.test_lab import _small
from tests.unit.lab._server import EngineServer

if TYPE_CHECKING:
    from cranfield.lab import Collection


def _settings(tmp_path: Path, name: str, **given: Any) -> dict[str, Any]:
    return {
        "measures": ["AP"],
        "workdir": tmp_path / name,
        "isolate": False,
        "efficiency": False,
        "progress": False,
        **given,
    }


def _runs(workdir: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((workdir / "runs").glob("*.run"))}


# ------------------------------------------------------------------ the same runs


@pytest.mark.slow
def test_the_cranfield_runs_searched_on_a_dask_cluster_are_the_runs_searched_here(
    tmp_path: Path, cranfield: Collection, dask_cluster: Any
) -> None:
    systems = [
        BM25S("bm25s", stemmer="english"),
        Tantivy("tantivy", tokenizer="en_stem"),
        SQLiteFTS5("fts5"),
    ]
    settings = _settings(tmp_path, "cranfield", k=100)
    Experiment(cranfield, systems, **settings).run(report=False)
    here = _runs(tmp_path / "cranfield")
    assert len(here) == 3
    assert all(here.values())
    shutil.rmtree(tmp_path / "cranfield" / "runs")  # the indexes stay: searched again only
    result = Experiment(
        cranfield, systems, scheduler=dask_cluster.scheduler_address, **settings
    ).run(report=False)
    assert _runs(tmp_path / "cranfield") == here
    for s in result.systems:
        assert s.reused == {"index": True, "run": False, "efficiency": False}
        assert s.searched_on is not None
        assert s.searched_on.batches == 15  # 225 topics, 16 batches at most
        assert 1 <= s.searched_on.workers <= 2


@pytest.mark.slow
def test_lab_run_with_scheduler_writes_the_runs_of_lab_run_byte_for_byte(
    tmp_path: Path, dask_cluster: Any
) -> None:
    cfg = _small(tmp_path)
    out = io.StringIO()
    common = ["run", str(cfg), "--quiet", "--no-efficiency", "--workdir"]
    assert main([*common, str(tmp_path / "here")], stdout=out) == 0
    address = dask_cluster.scheduler_address
    code = main([*common, str(tmp_path / "dask"), "--scheduler", address], stdout=out)
    assert code == 0
    assert _runs(tmp_path / "dask") == _runs(tmp_path / "here")
    shipped = [*common, str(tmp_path / "shipped"), "--scheduler", address, "--ship-index"]
    assert main(shipped, stdout=io.StringIO()) == 0
    assert _runs(tmp_path / "shipped") == _runs(tmp_path / "here")
    text = out.getvalue()
    assert "- fts: topics searched in 2 batches by " in text
    assert f"of 2 Dask workers on 1 machine ({address})." in text


@pytest.mark.slow
def test_lab_run_with_jobs_writes_the_same_runs(tmp_path: Path, toy: Collection) -> None:
    systems = [SQLiteFTS5("fts5"), CallableSystem("echo", _echo, load=_record_load)]
    Experiment(toy, systems, **_settings(tmp_path, "here")).run(report=False)
    result = Experiment(toy, systems, jobs=2, **_settings(tmp_path, "jobs")).run(report=False)
    assert _runs(tmp_path / "jobs") == _runs(tmp_path / "here")
    assert result.systems[0].searched_on is not None
    assert result.systems[0].searched_on.engine == "2 worker processes"


@pytest.mark.slow
def test_an_http_system_searched_by_the_workers_gives_the_same_run(
    tmp_path: Path, toy: Collection, dask_cluster: Any
) -> None:
    engine = SQLiteFTS5("behind-http")
    engine.index(toy.iter_documents(), tmp_path / "served")
    with EngineServer(engine, max_requests=100, lifetime=60) as server:
        system = HTTPSystem("http", server.url + "/search?q={query}&k={k}")
        Experiment(toy, [system], **_settings(tmp_path, "here")).run(report=False)
        address = dask_cluster.scheduler_address
        Experiment(toy, [system], scheduler=address, **_settings(tmp_path, "dask")).run(
            report=False
        )
    assert _runs(tmp_path / "dask") == _runs(tmp_path / "here")


# ------------------------------------------------------------------ one engine per worker


def _echo(query: str, k: int) -> list[tuple[str, float]]:
    return [(f"d{len(query) % 5 + 2}", 1.0), ("d1", 0.5)]


def _record_load(directory: Path) -> None:
    """Leave a file in the index directory for every time an engine is opened."""
    (directory / f"opened-{os.getpid()}-{uuid.uuid4().hex}").touch()


@pytest.mark.slow
def test_each_worker_opens_the_engine_once_and_keeps_it_across_batches(
    tmp_path: Path, toy: Collection, dask_cluster: Any
) -> None:
    system = CallableSystem("echo", _echo, load=_record_load)
    exp = Experiment(
        toy, [system], scheduler=dask_cluster.scheduler_address, **_settings(tmp_path, "w")
    )
    searched = exp.run(report=False).systems[0].searched_on
    assert searched is not None
    assert searched.batches == 4  # one topic a batch: more batches than workers
    opened = list((tmp_path / "w" / "indexes" / "echo").glob("opened-*"))
    assert len(opened) == searched.workers
    assert len({p.name.split("-")[1] for p in opened}) == searched.workers  # one per process


# ------------------------------------------------------------------ efficiency


@pytest.mark.slow
def test_latency_is_timed_per_topic_on_the_workers_and_the_report_says_where(
    tmp_path: Path, toy: Collection, dask_cluster: Any
) -> None:
    exp = Experiment(
        toy,
        [SQLiteFTS5("fts5")],
        scheduler=dask_cluster.scheduler_address,
        **_settings(tmp_path, "eff", efficiency=True, warmup=1, repetitions=2),
    )
    result = exp.run(report=False)
    s = result.systems[0]
    assert s.latency is not None
    assert s.throughput is not None
    assert s.searched_on is not None
    assert s.latency.query_ids == ("q1", "q2", "q3", "q4")
    assert s.latency.samples.shape == (2, 4)
    assert (s.latency.samples > 0).all()
    assert s.throughput.levels == (2,)  # the workers searching at once
    assert s.throughput.queries == (8,)  # every timed search of the pass
    assert s.searched_on.machines == (socket.gethostname(),)
    text, page = to_text(result), to_html(result)
    where = f"fts5: topics searched in 4 batches by {s.searched_on.workers} worker"
    assert where in text
    assert where in page
    assert "on each worker 1 untimed warm-up queries, then each topic searched 2 times" in text
    assert "Throughput of the workers as a whole" in text
    again = Experiment(
        toy,
        [SQLiteFTS5("fts5")],
        scheduler=dask_cluster.scheduler_address,
        **_settings(tmp_path, "eff", efficiency=True, warmup=1, repetitions=2),
    ).run(report=False)
    assert again.systems[0].reused == {"index": True, "run": True, "efficiency": True}
    assert again.systems[0].searched_on == s.searched_on


# ------------------------------------------------------------------ errors


def _fails_on_shells(query: str, k: int) -> list[tuple[str, float]]:
    if "shells" in query:
        raise ValueError("no shells here")
    return [("d1", 1.0)]


@pytest.mark.slow
def test_an_engine_that_fails_on_a_worker_fails_as_it_does_here(
    tmp_path: Path, toy: Collection, dask_cluster: Any
) -> None:
    system = CallableSystem("shy", _fails_on_shells)
    with pytest.raises(EngineError) as here:
        Experiment(toy, [system], **_settings(tmp_path, "here")).run(report=False)
    with pytest.raises(EngineError) as there:
        Experiment(
            toy, [system], scheduler=dask_cluster.scheduler_address, **_settings(tmp_path, "dask")
        ).run(report=False)
    assert str(there.value) == str(here.value)
    assert str(here.value) == "system 'shy' failed on topic q4: ValueError: no shells here"


def test_a_system_that_cannot_be_sent_to_workers_is_refused_clearly(
    tmp_path: Path, toy: Collection
) -> None:
    system = CallableSystem("lambda", lambda query, k: [("d1", 1.0)])
    with pytest.raises(EngineError, match=r"^system 'lambda' cannot be sent to the workers ") as e:
        Experiment(toy, [system], jobs=2, **_settings(tmp_path, "w")).run(report=False)
    assert str(e.value).endswith(
        "give a 'python' system's functions as module:function, or search without --jobs "
        "and --scheduler."
    )


def test_a_worker_that_cannot_see_the_index_says_the_workdir_must_be_shared(
    tmp_path: Path,
) -> None:
    searcher = Searcher(SQLiteFTS5("fts5"), tmp_path / "elsewhere", 10, 0, 1)
    with pytest.raises(EngineError, match=r"the index directory .*elsewhere is not on worker"):
        searcher.search(Batch("fts5", ("q1",), ("wing",)))


def test_search_on_in_this_process_gives_the_same_run(tmp_path: Path, toy: Collection) -> None:
    from cranfield.evaluation.engines import InProcess

    system = CallableSystem("echo", _echo)
    found = search_on(InProcess(), system, None, toy.queries("title"), k=5, timed=False)
    assert found.searched_on.engine == "this process"
    assert found.efficiency is None
    assert found.run.topics == ["q1", "q2", "q3", "q4"]


# ------------------------------------------------------------------ the index sent


def test_a_shipped_index_is_opened_from_its_own_copy_and_removed_after(
    tmp_path: Path, toy: Collection, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the worker's copies go to a temporary folder of this test's own, where no other test
    # (another pytest-xdist worker shipping an index at the same time) makes one
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    index = tmp_path / "index"
    SQLiteFTS5("fts5").index(toy.iter_documents(), index)
    local = SQLiteFTS5("fts5")
    local.load(index)
    expected = local.search("boundary layer transition", 10)
    local.close()
    searcher = Searcher(SQLiteFTS5("fts5"), index, 10, 0, 1, ship=True)
    worker = pickle.loads(pickle.dumps(searcher))  # what a worker receives
    shutil.rmtree(index)  # a worker of another machine does not see the work directory
    answers = worker.search(Batch("fts5", ("q1",), ("boundary layer transition",)))
    assert answers.hits == (expected,)
    copies = list(temp.glob("cranfield-index-fts5-*"))
    assert len(copies) == 1
    worker.system.close()
    del worker
    gc.collect()
    assert not copies[0].exists()


def test_ship_index_without_workers_is_refused(tmp_path: Path, toy: Collection) -> None:
    with pytest.raises(OptionError, match="'ship_index' option must be false when no jobs"):
        Experiment(toy, [SQLiteFTS5("fts5")], ship_index=True, **_settings(tmp_path, "w"))


def test_search_on_needs_a_topic() -> None:
    from cranfield.evaluation.engines import InProcess

    with pytest.raises(OptionError, match="'queries' option must be at least one topic"):
        search_on(InProcess(), CallableSystem("echo", _echo), None, {}, k=5, timed=False)
