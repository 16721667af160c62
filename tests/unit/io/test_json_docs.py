"""JSON runs and qrels (``io/json_docs.py``): a repeated key is seen, never dropped (the one
duplicates rule decides), a ranx document is read in memory that follows the data, and a
number used as an id reads the same whatever the other rows hold (issue 30, items 1 and 9 and
its JSON Lines ids)."""

from __future__ import annotations

import gc
import json
import tracemalloc
from pathlib import Path

import pytest

import cranfield
from cranfield.errors import InputError
from cranfield.io.formats import read_qrels_file, read_run_file
from cranfield.io.json_docs import CHUNK_ROWS, DocumentError, read_document

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_repeated_query_keeps_both_rankings(tmp_path: Path) -> None:
    # json.loads kept the second ranking alone: d1 at rank 1, AP 0.5 (d3 unretrieved).
    # Both places together: d3 (2.0), d1 (1.5), d2 (0.5): AP = (1/1 + 2/2) / 2 = 1.0.
    qrels = _write(tmp_path, "q.txt", QRELS)
    run = _write(tmp_path, "r.json", '{"1": {"d3": 2.0, "d2": 0.5}, "1": {"d1": 1.5}}')
    read = read_run_file(run)
    assert sorted(read.frame.get_column("doc_id").to_list()) == ["d1", "d2", "d3"]
    assert cranfield.evaluate(qrels, run, measures=["AP"])["AP"] == 1.0


def test_a_repeated_document_of_a_run_is_refused_as_in_trec_text(tmp_path: Path) -> None:
    run = _write(tmp_path, "r.json", '{"1": {"d1": 1.0, "d2": 0.5, "d1": 3.0}}')
    with pytest.raises(InputError) as got:
        read_run_file(run)
    assert str(got.value) == (
        f"{run}: query '1', document 'd1': duplicate document 'd1' for query '1' (given twice)"
    )
    across = _write(tmp_path, "s.json", '{"1": {"d1": 1.0}, "2": {"d1": 1}, "1": {"d1": 2}}')
    with pytest.raises(InputError, match="duplicate document 'd1' for query '1'"):
        read_run_file(across)


@pytest.mark.filterwarnings("ignore::cranfield.errors.QrelsNoteWarning")
def test_repeated_judgments_follow_the_duplicates_policy(tmp_path: Path) -> None:
    path = _write(tmp_path, "q.json", '{"1": {"d1": 2, "d2": 0}, "1": {"d1": 1}}')
    with pytest.raises(InputError, match=r"judged 2 first and 1 here; keep one with duplicates="):
        read_qrels_file(path)
    for policy, level in (("first", 2), ("last", 1), ("max", 2)):
        qrels = read_qrels_file(path, duplicates=policy)
        row = qrels.frame.filter(doc_id="d1")
        assert row.get_column("relevance").to_list() == [level], policy
    same = _write(tmp_path, "same.json", '{"1": {"d1": 1}, "1": {"d1": 1}}')
    merged = read_qrels_file(same)
    assert merged.frame.height == 1
    assert any("1 repeated judgment row(s) merged" in note for note in merged.notes)


def test_a_row_object_giving_a_key_twice_is_refused(tmp_path: Path) -> None:
    rows = _write(tmp_path, "rows.json", '[{"qid": "1", "docno": "d1", "score": 1, "qid": "2"}]')
    with pytest.raises(InputError, match="an object gives the key 'qid' twice"):
        read_run_file(rows)
    # polars keeps the first of the two, json.loads the last: neither is right
    lines = _write(
        tmp_path,
        "r.jsonl",
        '{"qid": "1", "docno": "d0", "score": 2}\n{"qid": "1", "docno": "d1", "score": 1, "qid": "2"}\n',
    )
    with pytest.raises(InputError, match=r"r.jsonl:2: an object gives the key 'qid' twice"):
        read_run_file(lines)


def test_json_lines_ids_written_as_floats_read_as_one_id(tmp_path: Path) -> None:
    """``1.0`` is the query ``"1"`` whether the other rows hold numbers, strings or values
    that only the careful reading takes (polars spelled it ``1`` and the careful reading
    ``1.0``)."""
    plain = '{"qid": 1.0, "docno": "d1", "score": 1}\n'
    cases = {
        "numbers": plain + '{"qid": 2.5, "docno": "d1", "score": 1}\n',
        "strings": plain + '{"qid": "x", "docno": "d1", "score": 1}\n',
        "careful": plain + '{"qid": "x", "docno": "d1", "score": 1, "flag": true}\n',
        "big": '{"qid": 1e20, "docno": "d1", "score": 1}\n{"qid": "x", "docno": "d1", "score": 1}\n',
    }
    want = {"numbers": ["1", "2.5"], "strings": ["1", "x"], "careful": ["1", "x"]}
    for case, text in cases.items():
        run = read_run_file(_write(tmp_path, f"{case}.jsonl", text))
        ids = run.frame.get_column("query_id").to_list()
        if case == "big":
            assert ids[0] in ("1e+20", "100000000000000000000")  # one of the two, below
            big = ids[0]
        else:
            assert ids == want[case], case
    alone = read_run_file(
        _write(tmp_path, "alone.jsonl", '{"qid": 1e20, "docno": "d", "score": 1}\n')
    )
    assert alone.frame.get_column("query_id").to_list() == [big]


def test_a_document_is_read_in_chunks_with_its_places(tmp_path: Path) -> None:
    docs = {f"d{i}": i / 7 for i in range(CHUNK_ROWS + 10)}
    table = read_document(json.dumps({"q": docs, "r": {"x": 1}}).encode(), "score")
    assert table.frame.height == CHUNK_ROWS + 11
    assert table.frame.row(CHUNK_ROWS + 10) == ("r", "x", "1")
    assert table.frame.get_column("score")[3] == repr(3 / 7)
    assert table.where is not None
    assert table.where(CHUNK_ROWS + 11) == "query 'r', document 'x'"


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ('{"q": {"d": 1}} x', 1, "is not valid JSON (Extra data)"),
        ('{"q": {"d": 1},\n "r": [1]}', None, "the value of query 'r' must be an object"),
        ('{"q": {"d": 1}\n "r": {}}', 2, "is not valid JSON (Expecting ',' delimiter)"),
        ('{"q" {"d": 1}}', 1, "Expecting ':' delimiter"),
        ("{q: 1}", 1, "Expecting property name"),
        ("[1]", None, "items are not all objects"),
        ('"text"', None, "holds a JSON str, not an object"),
        ('{"q": ' + '{"a": ' * 100_000, None, "nested too deeply"),
        ('{"q": ' + "[" * 100_000, None, "nested too deeply"),
        ("{\xff}", None, "not UTF-8"),
    ],
)
def test_text_that_is_not_a_document_is_one_error(
    text: str, line: int | None, problem: str
) -> None:
    data = text.encode("latin-1") if "\xff" in text else text.encode()
    with pytest.raises(DocumentError, match=problem.replace("(", r"\(").replace(")", r"\)")) as got:
        read_document(data, "score")
    assert got.value.line == line


def _peak(function: object, *args: object) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        function(*args)  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow  # tracemalloc slows the reading down about tenfold
def test_a_ranx_run_is_read_in_memory_that_follows_the_data(tmp_path: Path) -> None:
    """Python's ``json.loads`` made a dict of every query, a str and a float for every row:
    about 8 times the text (1.75 GB for a 104 MB run). Read query by query, the objects
    alive are one query's and a chunk's: the peak is the text (bytes and str) and a little
    more, measured here by tracemalloc (polars' columns are not Python objects)."""
    queries, depth = 100, 1000
    run = {f"q{q}": {f"doc{q}-{d}": (depth - d) / 3 for d in range(depth)} for q in range(queries)}
    path = tmp_path / "big.json"
    path.write_text(json.dumps(run))
    size = path.stat().st_size
    peak = _peak(read_run_file, path)
    assert peak < 4 * size, (peak, size)  # reading with json.loads went past it
