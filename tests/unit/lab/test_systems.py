"""Engine adapters: index, reopen, search, thread safety, pickling, errors."""

from __future__ import annotations

import pickle
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cranfield.errors import OptionError
from cranfield.lab import (
    BM25S,
    CallableSystem,
    Collection,
    Document,
    EngineError,
    HTTPSystem,
    PrecomputedRun,
    SQLiteFTS5,
    System,
    Tantivy,
)
from cranfield.lab.systems import query_terms
from tests.unit.lab._server import EngineServer

ENGINES = [
    pytest.param(lambda: SQLiteFTS5("fts5"), id="sqlite-fts5"),
    pytest.param(lambda: BM25S("bm25s"), id="bm25s"),
    pytest.param(lambda: BM25S("bm25s-plain", stemmer=None, stopwords=None), id="bm25s-plain"),
    pytest.param(lambda: Tantivy("tantivy"), id="tantivy"),
    pytest.param(lambda: Tantivy("tantivy-plain", tokenizer="default"), id="tantivy-plain"),
]


@pytest.mark.parametrize("make", ENGINES)
def test_engine_indexes_searches_and_reopens(make, toy: Collection, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    system = make()
    assert isinstance(system, System)
    system.index(toy.iter_documents(), tmp_path)
    system.load(tmp_path)
    hits = system.search("heat transfer at hypersonic speeds", 10)
    assert hits[0][0] == "d2"
    assert {d for d, _ in hits} <= {"d1", "d2", "d3", "d4", "d5", "d6"}
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True)
    assert all(s > 0 for s in scores)
    assert len(system.search("boundary layer heat wing", 2)) == 2
    # Query syntax of the engines is inert: only word tokens reach them.
    assert system.search('wing" OR (flutter) -buckling: NEAR/2 *', 10)[0][0] in {"d6", "d3"}
    assert system.search("?!", 10) == []
    assert system.search("zyzzyva", 10) == []
    reopened = make()
    reopened.load(tmp_path)
    assert reopened.search("heat transfer at hypersonic speeds", 10) == hits
    clone = pickle.loads(pickle.dumps(system))
    assert clone.config() == system.config()
    assert clone.name == system.name
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: system.search("wind tunnel wing", 5), range(40)))
    assert all(a == answers[0] for a in answers)
    close = getattr(system, "close", None)
    if close:
        close()


@pytest.mark.parametrize("make", ENGINES)
def test_engine_errors(make, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    system = make()
    with pytest.raises(EngineError, match=f"system '{system.name}' has no index open"):
        system.search("x", 10)
    with pytest.raises(EngineError, match=rf"no \w+ index at {tmp_path}"):
        system.load(tmp_path)


def test_stemming_configuration_changes_matches(tmp_path: Path) -> None:
    docs = [Document("a", "the wings"), Document("b", "a wing")]
    stem, plain = BM25S("s"), BM25S("p", stemmer=None)
    stem.index(docs, tmp_path / "s")
    plain.index(docs, tmp_path / "p")
    assert {d for d, _ in stem.search("wing", 10)} == {"a", "b"}
    assert {d for d, _ in plain.search("wing", 10)} == {"b"}
    assert stem.config() != plain.config()


def test_parameters_are_validated() -> None:
    with pytest.raises(
        OptionError, match="The 'name' option must be a non-empty word without blanks, got 'two"
    ):
        SQLiteFTS5("two words")
    with pytest.raises(OptionError, match="The 'b' option must be a number >= 0 and <= 1, got 2"):
        BM25S(b=2)
    with pytest.raises(
        OptionError, match="The 'stemmer' option must be a Snowball language or None, got 'klingon'"
    ):
        BM25S(stemmer="klingon")
    with pytest.raises(
        OptionError, match="The 'heap_size' option must be an integer >= 15000000, got 10"
    ):
        Tantivy(heap_size=10)
    s = CallableSystem("c", lambda q, k: [])
    with pytest.raises(OptionError, match="The 'k' option must be an integer >= 1, got 0"):
        s.search("q", 0)
    with pytest.raises(OptionError, match="The 'url' option must be a URL that starts with http"):
        HTTPSystem("h", "ftp://example.org/{query}")
    with pytest.raises(OptionError, match=r"The 'url' option must be a URL with '\{query\}' in it"):
        HTTPSystem("h", "http://example.org/search")


def test_callable_system() -> None:
    s = CallableSystem("c", lambda q, k: {"x": 0.5, "y": 2.0, "z": 1.0}, config={"p": 1})
    assert s.search("q", 2) == [("y", 2.0), ("z", 1.0)]
    assert s.config()["p"] == 1
    assert s.builds_index is False
    bad = CallableSystem("bad", lambda q, k: [("x",)])
    with pytest.raises(EngineError, match="must return \\(doc_id, score\\) pairs"):
        bad.search("q", 3)
    a = CallableSystem("a", lambda q, k: [])
    b = CallableSystem("a", lambda q, k: [("d", 1.0)])
    assert a.config()["code"] != b.config()["code"]


def test_precomputed_run(tmp_path: Path) -> None:
    p = tmp_path / "r.run"
    p.write_text("q1 Q0 d1 1 2.0 tag\nq1 Q0 d2 2 1.0 tag\n")
    r = PrecomputedRun("mine", p)
    assert r.load().to_dict() == {"q1": {"d1": 2.0, "d2": 1.0}}
    assert r.config()["size"] == p.stat().st_size


def test_query_terms() -> None:
    assert query_terms("What (is) THE drag? drag-free") == ["what", "is", "the", "drag", "free"]


def test_topic_text_never_changes_the_path_of_an_http_request(
    toy: Collection, tmp_path: Path
) -> None:
    """A '/' in a topic was left unquoted: '../../boom' in a path template reached /boom."""
    engine = SQLiteFTS5("behind-http")
    engine.index(toy.iter_documents(), tmp_path / "index")
    with EngineServer(engine, max_requests=10, lifetime=60) as server:
        http = HTTPSystem("http", server.url + "/v1/{query}/search?q=heat&k={k}")
        hits = http.search("a/../../boom?x=1#frag", 2)
        (method, path, _, _), *_ = server.seen
    assert (method, path) == ("GET", "/v1/a%2F..%2F..%2Fboom%3Fx%3D1%23frag/search?q=heat&k=2")
    assert hits == engine.search("heat", 2)  # the server's /search answered, not /boom
