"""ranx-style JSON runs and qrels whose objects repeat keys (a query given twice, a document
given twice in one query or in two places of a query): every repeat is seen, and the one
duplicates rule decides, as in TREC text (issue 30, item 1). The reference is written from the
documentation: a run refuses a (query, document) pair given twice; qrels merge identical
repeats and refuse others by default, or keep the first, the last or the max."""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path

from hypothesis import event, given
from hypothesis import strategies as st

from cranfield.errors import CranfieldWarning, InputError
from cranfield.io.formats import read_qrels_file, read_run_file
from tests.fuzz.conftest import fuzz

IDS = st.sampled_from(["1", "2", "q3"])
DOCS = st.sampled_from(["d1", "d2", "d3", "d4"])

# a document as written: the list of (query, [(doc, value), ...]) places, keys repeated at will
Places = list[tuple[str, list[tuple[str, int]]]]
PLACES = st.lists(
    st.tuples(IDS, st.lists(st.tuples(DOCS, st.integers(0, 3)), min_size=1, max_size=4)),
    min_size=1,
    max_size=5,
)


def _text(places: Places) -> str:
    """The JSON text of ``places``, repeats written as they are (json.dumps cannot)."""
    inner = ("{" + ", ".join(f"{json.dumps(d)}: {v}" for d, v in docs) + "}" for _, docs in places)
    return (
        "{"
        + ", ".join(f"{json.dumps(q)}: {o}" for (q, _), o in zip(places, inner, strict=True))
        + "}"
    )


def _rows(places: Places) -> list[tuple[str, str, int]]:
    return [(q, d, v) for q, docs in places for d, v in docs]


def _write(text: str, folder: str) -> Path:
    path = Path(folder) / "file.json"
    path.write_text(text)
    return path


@fuzz(60)
@given(places=PLACES)
def test_a_run_with_repeated_keys(places: Places) -> None:
    rows = _rows(places)
    pairs = [(q, d) for q, d, _ in rows]
    with tempfile.TemporaryDirectory() as folder:
        path = _write(_text(places), folder)
        if len(set(pairs)) < len(pairs):
            event("a pair twice: refused")
            try:
                read_run_file(path)
            except InputError as exc:
                message = str(exc)
                assert "duplicate document" in message
                return
            raise AssertionError("a repeated (query, document) pair was read")
        event("no pair twice: read whole")
        run = read_run_file(path)
    got = {(q, d): s for q, d, s in run.frame.select("query_id", "doc_id", "score").iter_rows()}
    assert got == {(q, d): float(v) for q, d, v in rows}


@fuzz(60)
@given(places=PLACES, policy=st.sampled_from(["merge", "error", "first", "last", "max"]))
def test_qrels_with_repeated_keys(places: Places, policy: str) -> None:
    rows = _rows(places)
    values: dict[tuple[str, str], list[int]] = {}
    for q, d, v in rows:
        values.setdefault((q, d), []).append(v)
    repeated = any(len(v) > 1 for v in values.values())
    differ = any(len(set(v)) > 1 for v in values.values())
    refused = (policy == "error" and repeated) or (policy == "merge" and differ)
    with tempfile.TemporaryDirectory() as folder:
        path = _write(_text(places), folder)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", CranfieldWarning)
                qrels = read_qrels_file(path, duplicates=policy)  # type: ignore[arg-type]
        except InputError as exc:
            event(f"{policy}: refused")
            message = str(exc)
            assert refused, message
            assert "duplicate document" in message
            return
    assert not refused
    event(f"{policy}: read")
    pick = {"merge": lambda v: v[0], "first": lambda v: v[0], "last": lambda v: v[-1]}
    pick["max"] = max
    pick["error"] = lambda v: v[0]
    want = {pair: pick[policy](v) for pair, v in values.items()}
    got = {
        (q, d): r for q, d, r in qrels.frame.select("query_id", "doc_id", "relevance").iter_rows()
    }
    assert got == want
