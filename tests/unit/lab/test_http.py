"""The HTTP adapter against a real engine (SQLite FTS5) served on 127.0.0.1 by the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from cranfield.lab import (
    Collection,
    EngineError,
    Experiment,
    HTTPSystem,
    SQLiteFTS5,
    measure_latency,
    measure_throughput,
)
from tests.unit.lab._server import EngineServer


@pytest.fixture
def served(toy: Collection, tmp_path: Path):  # type: ignore[no-untyped-def]
    engine = SQLiteFTS5("behind-http")
    engine.index(toy.iter_documents(), tmp_path / "index")
    with EngineServer(engine, max_requests=3000, lifetime=60) as server:
        yield server, engine


def test_get_template_matches_the_engine(served, toy: Collection) -> None:  # type: ignore[no-untyped-def]
    server, engine = served
    http = HTTPSystem("http", server.url + "/search?q={query}&k={k}")
    for query in toy.queries().values():
        assert http.search(query, 3) == engine.search(query, 3)
    assert http.search("heat & transfer?", 10) == engine.search("heat & transfer?", 10)


def test_json_body_template(served) -> None:  # type: ignore[no-untyped-def]
    server, engine = served
    http = HTTPSystem(
        "es-like",
        server.url + "/search",
        body={"query": {"text": "{query}"}, "size": "{k}"},
        hits="hits",
        doc_id="doc_id",
        score="score",
    )
    assert http.search("boundary layer", 2) == engine.search("boundary layer", 2)


def test_http_errors_are_engine_errors(served) -> None:  # type: ignore[no-untyped-def]
    server, _ = served
    with pytest.raises(EngineError, match="answered HTTP 500"):
        HTTPSystem("boom", server.url + "/boom?q={query}").search("x", 1)
    with pytest.raises(EngineError, match="did not answer with JSON"):
        HTTPSystem("text", server.url + "/text?q={query}").search("x", 1)
    with pytest.raises(EngineError, match="has no hit list at 'results'"):
        HTTPSystem("path", server.url + "/search?q={query}&k={k}", hits="results").search("x", 1)
    with pytest.raises(ValueError, match=r"The 'url' option must be a URL with '\{query\}' in it"):
        HTTPSystem("nourl", server.url + "/search")


def test_unreachable_endpoint() -> None:
    # Port 9 (discard) on the loopback address: nothing listens there in the test sandbox.
    http = HTTPSystem("gone", "http://127.0.0.1:9/search?q={query}", timeout=2)
    with pytest.raises(EngineError, match="could not be reached"):
        http.search("x", 1)


def test_efficiency_and_experiment_over_http(served, toy: Collection, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    server, _engine = served
    http = HTTPSystem("http", server.url + "/search?q={query}&k={k}")
    lat = measure_latency(http, toy.queries(), k=10, warmup=2, repetitions=2, progress=False)
    assert lat.samples.shape == (2, 4)
    assert (lat.samples > 0).all()
    tp = measure_throughput(
        http, toy.queries(), k=10, concurrency=[1, 2], min_seconds=0, progress=False
    )
    assert tp.queries == (4, 4)
    direct = SQLiteFTS5("direct")
    result = Experiment(
        toy,
        [direct, http],
        ["AP", "P@2"],
        workdir=tmp_path / "work",
        warmup=0,
        repetitions=1,
        concurrency=[1],
        throughput_seconds=0,
        progress=False,
    ).run()
    assert result.means["AP"]["http"] == pytest.approx(result.means["AP"]["direct"])
    assert result.system("http").index is None
    assert result.system("http").latency is not None
    assert server.requests < server.max_requests
