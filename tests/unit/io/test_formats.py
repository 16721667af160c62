"""The formats of qrels and run files (``io/formats.py``): each format, written by hand here,
evaluates to the numbers of the same judgments and run in TREC text; detection, forced
formats, binary files, standard input and compression."""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import lzma
import os
import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import cranfield
from cranfield._types import FILE_FORMATS
from cranfield.data.run import Run
from cranfield.errors import InputError, QrelsNoteWarning, UnknownKindError
from cranfield.io.formats import HEAD_BYTES, HEAD_LINES, detect, detect_kind, detect_text, write
from cranfield.io.inputs import open_qrels, open_run
from cranfield.io.load import load_qrels, load_run
from cranfield.io.run_names import run_name
from cranfield.io.source import read_head
from tests.conftest import REAL, require

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "Rprec", "recall@3"]

# The judgments and the run every other spelling below stands for.
TREC_QRELS = """\
q1 0 d1 1
q1 0 d2 0
q1 0 d3 2
q1 0 d5 1
q2 0 d1 1
q2 0 d4 3
"""
TREC_RUN = """\
q1 Q0 d1 1 3.5 sys
q1 Q0 d3 2 2.25 sys
q1 Q0 d2 3 1 sys
q1 Q0 d6 4 0.5 sys
q2 Q0 d7 1 2 sys
q2 Q0 d4 2 1.5 sys
q2 Q0 d1 3 -1 sys
"""

QRELS = {
    "qrels.csv": "query_id,doc_id,relevance\nq1,d1,1\nq1,d2,0\nq1,d3,2\nq1,d5,1\nq2,d1,1\nq2,d4,3\n",
    "qrels.tsv": "qid\titer\tdocno\trel\nq1\t0\td1\t1\nq1\t0\td2\t0\nq1\t0\td3\t2\n"
    "q1\t0\td5\t1\nq2\t0\td1\t1\nq2\t0\td4\t3\n",
    "beir.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\nq1\td3\t2\nq1\td5\t1\n"
    "q2\td1\t1\nq2\td4\t3\n",
    "ranx.json": '{"q1": {"d1": 1, "d2": 0, "d3": 2, "d5": 1},\n "q2": {"d1": 1, "d4": 3}}\n',
    "rows.json": '[{"qid": "q1", "docno": "d1", "label": 1}, {"qid": "q1", "docno": "d2", '
    '"label": 0}, {"qid": "q1", "docno": "d3", "label": 2}, {"qid": "q1", "docno": "d5", '
    '"label": 1}, {"qid": "q2", "docno": "d1", "label": 1}, {"qid": "q2", "docno": "d4", '
    '"label": 3}]',
    "qrels.jsonl": '{"query_id": "q1", "doc_id": "d1", "relevance": 1}\n'
    '{"query_id": "q1", "doc_id": "d2", "relevance": 0}\n'
    '{"query_id": "q1", "doc_id": "d3", "relevance": 2}\n'
    '{"query_id": "q1", "doc_id": "d5", "relevance": 1}\n\n'
    '{"query_id": "q2", "doc_id": "d1", "relevance": 1}\n'
    '{"query_id": "q2", "doc_id": "d4", "relevance": 3}\n',
    "quoted.csv": '"qid","docno","grade"\r\n"q1","d1",1\r\n"q1","d2",0\r\n"q1","d3",2\r\n'
    '"q1","d5",1\r\n"q2","d1",1\r\n"q2","d4",3\r\n',
}
RUNS = {
    "run.csv": "qid,docno,score\nq1,d1,3.5\nq1,d3,2.25\nq1,d2,1\nq1,d6,0.5\nq2,d7,2\nq2,d4,1.5\n"
    "q2,d1,-1\n",
    "run.tsv": "query_id\tdoc_id\tscore\nq1\td1\t3.5\nq1\td3\t2.25\nq1\td2\t1\nq1\td6\t0.5\n"
    "q2\td7\t2\nq2\td4\t1.5\nq2\td1\t-1\n",
    "beir-run.tsv": "query-id\tcorpus-id\tscore\nq2\td4\t1.5\nq2\td7\t2\nq2\td1\t-1\n"
    "q1\td1\t3.5\nq1\td3\t2.25\nq1\td2\t1\nq1\td6\t0.5\n",
    "ranx.json": '{"q1": {"d1": 3.5, "d3": 2.25, "d2": 1.0, "d6": 0.5},\n'
    ' "q2": {"d7": 2.0, "d4": 1.5, "d1": -1}}',
    "run.jsonl": '{"qid": "q1", "docno": "d1", "score": 3.5, "tag": "sys"}\n'
    '{"qid": "q1", "docno": "d3", "score": 2.25, "tag": "sys"}\n'
    '{"qid": "q1", "docno": "d2", "score": 1, "tag": "sys"}\n'
    '{"qid": "q1", "docno": "d6", "score": 0.5, "tag": "sys"}\n'
    '{"qid": "q2", "docno": "d7", "score": 2, "tag": "sys"}\n'
    '{"qid": "q2", "docno": "d4", "score": 1.5, "tag": "sys"}\n'
    '{"qid": "q2", "docno": "d1", "score": -1, "tag": "sys"}\n',
    "msmarco.tsv": "q1\td1\t1\nq1\td3\t2\nq1\td2\t3\nq1\td6\t4\nq2\td7\t1\nq2\td4\t2\nq2\td1\t3\n",
    "ranked.csv": "qid,pid,rank\nq1,d6,4\nq1,d1,1\nq1,d3,2\nq1,d2,3\nq2,d7,1\nq2,d4,2\nq2,d1,3\n",
}
FORMATS = {
    "qrels.csv": "csv",
    "qrels.tsv": "tsv",
    "beir.tsv": "beir",
    "ranx.json": "json",
    "rows.json": "json",
    "qrels.jsonl": "jsonl",
    "quoted.csv": "csv",
    "run.csv": "csv",
    "run.tsv": "tsv",
    "beir-run.tsv": "beir",
    "run.jsonl": "jsonl",
    "msmarco.tsv": "msmarco",
    "ranked.csv": "csv",
}


def _write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def _values(results: cranfield.Results) -> dict[str, dict[str, float]]:
    return {m: results.per_query(m) for m in MEASURES}


@pytest.fixture
def trec(tmp_path: Path) -> tuple[Path, Path, dict[str, dict[str, float]]]:
    qrels, run = _write(tmp_path, "q.trec", TREC_QRELS), _write(tmp_path, "r.trec", TREC_RUN)
    return qrels, run, _values(cranfield.evaluate(qrels, run, MEASURES))


# --------------------------------------------------------------------------- every format


@pytest.mark.parametrize("name", sorted(QRELS))
def test_qrels_in_each_format_score_as_their_trec_text(
    tmp_path: Path, trec: tuple[Path, Path, dict[str, dict[str, float]]], name: str
) -> None:
    _, run, expected = trec
    path = _write(tmp_path, name, QRELS[name])
    assert detect(path, "qrels") == FORMATS[name]
    results = cranfield.evaluate(path, run, MEASURES)
    assert _values(results) == expected
    assert any(note.startswith(f"{name}: read as ") for note in results.notes), results.notes


@pytest.mark.parametrize("name", sorted(RUNS))
def test_runs_in_each_format_score_as_their_trec_text(
    tmp_path: Path, trec: tuple[Path, Path, dict[str, dict[str, float]]], name: str
) -> None:
    qrels, _, expected = trec
    path = _write(tmp_path, name, RUNS[name])
    assert detect(path, "run") == FORMATS[name]
    results = cranfield.evaluate(qrels, path, MEASURES)
    assert _values(results) == expected
    assert results.notes == (load_run(path).notes[0],)
    assert results.notes[0].startswith(f"{name}: read as ")


def test_parquet_by_its_magic_bytes_without_the_suffix(
    tmp_path: Path, trec: tuple[Path, Path, dict[str, dict[str, float]]]
) -> None:
    qrels, _, expected = trec
    frame = pl.read_csv(io.StringIO(RUNS["run.csv"]))
    frame.write_parquet(tmp_path / "run.bin")
    assert detect(tmp_path / "run.bin", "run") == "parquet"
    assert _values(cranfield.evaluate(qrels, tmp_path / "run.bin", MEASURES)) == expected


def test_msmarco_notes_say_how_scores_were_made(tmp_path: Path) -> None:
    run = load_run(_write(tmp_path, "run.tsv", RUNS["msmarco.tsv"]))
    assert run.notes == (
        "run.tsv: read as an MS MARCO run (qid pid rank); each line's score is 1/rank.",
    )
    assert run.frame.get_column("score").to_list()[:4] == [1.0, 0.5, 1 / 3, 0.25]
    beir = load_qrels(_write(tmp_path, "qrels.tsv", QRELS["beir.tsv"]))
    assert beir.notes == (
        "qrels.tsv: read as BEIR qrels (TSV with header query-id, corpus-id, score).",
    )


def test_msmarco_reference_qrels_are_relevance_one(tmp_path: Path) -> None:
    binary = _write(tmp_path, "binary.trec", "q1 0 d1 1\nq1 0 d3 1\nq2 0 d4 1\n")
    pairs = _write(tmp_path, "qrels.dev.tsv", "q1\td1\nq1\td3\nq2\td4\n")
    run = _write(tmp_path, "r.trec", TREC_RUN)
    assert detect(pairs, "qrels") == "msmarco"
    assert load_qrels(pairs).frame.get_column("relevance").to_list() == [1, 1, 1]
    expected = _values(cranfield.evaluate(binary, run, MEASURES))
    assert _values(cranfield.evaluate(pairs, run, MEASURES)) == expected


def test_trec_inputs_get_no_note(trec: tuple[Path, Path, dict[str, dict[str, float]]]) -> None:
    qrels, run, _ = trec
    assert load_run(run).notes == ()
    assert load_qrels(qrels).notes == ()
    assert cranfield.evaluate(qrels, run, MEASURES).notes == ()


@pytest.mark.parametrize(
    "columns",
    [
        {"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]},
        {"query-id": ["q1"], "corpus-id": ["d1"], "score": [1.0]},
        {"qid": ["q1"], "pid": ["d1"], "rank": [1]},
    ],
)
def test_dataframes_take_every_spelling(columns: dict[str, list[object]]) -> None:
    for frame in (pl.DataFrame(columns), pd.DataFrame(columns)):
        run = load_run(frame)
        assert run.frame.rows() == [("q1", "d1", 1.0)]
        if "score" in columns:  # the relevance of qrels
            qrels = load_qrels(frame)
            assert qrels.frame.select("query_id", "doc_id", "relevance").rows() == [("q1", "d1", 1)]


def test_beir_qrels_frame_reads_score_as_relevance() -> None:
    frame = pd.DataFrame({"query-id": ["1", "1"], "corpus-id": ["a", "b"], "score": [2, 0]})
    assert load_qrels(frame).frame.get_column("relevance").to_list() == [2, 0]


def test_a_rank_must_be_a_whole_number_from_one(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_run(_write(tmp_path, "run.csv", "qid,pid,rank\nq1,a,1\n\nq1,b,0.5\n"))
    assert (info.value.line, info.value.problem) == (4, "rank must be an integer >= 1, got '0.5'")


# --------------------------------------------------------------------------- compression, stdin


def _zstd(data: bytes) -> bytes:
    zstandard = pytest.importorskip("zstandard")
    return bytes(zstandard.ZstdCompressor().compress(data))


@pytest.mark.parametrize(
    "pack", [gzip.compress, bz2.compress, lzma.compress, _zstd], ids=["gz", "bz2", "xz", "zst"]
)
@pytest.mark.parametrize("name", ["run.csv", "run.jsonl", "msmarco.tsv", "ranx.json"])
def test_compressed_files_are_detected_on_their_text(
    tmp_path: Path, trec: tuple[Path, Path, dict[str, dict[str, float]]], name: str, pack: object
) -> None:
    qrels, _, expected = trec
    path = _write(tmp_path, name + ".packed", pack(RUNS[name].encode()))  # type: ignore[operator]
    assert detect(path, "run") == FORMATS.get(name, "json")
    assert _values(cranfield.evaluate(qrels, path, MEASURES)) == expected


JSON_AP = ["-m", "AP", "-q", "-f", "json"]


class FakeStdin:
    """Stands in for ``sys.stdin``: the readers use its binary ``buffer``."""

    def __init__(self, data: bytes):
        self.buffer = io.BytesIO(data)


@pytest.mark.parametrize("name", ["run.csv", "beir-run.tsv", "msmarco.tsv", "run.jsonl"])
def test_standard_input_is_read_once_and_detected(
    monkeypatch: pytest.MonkeyPatch,
    trec: tuple[Path, Path, dict[str, dict[str, float]]],
    name: str,
) -> None:
    qrels, _, expected = trec
    monkeypatch.setattr(sys, "stdin", FakeStdin(gzip.compress(RUNS[name].encode())))
    results = cranfield.evaluate(qrels, "-", MEASURES)
    assert _values(results) == expected
    assert results.notes[0].startswith("stdin: read as ")


def test_qrels_on_standard_input(
    monkeypatch: pytest.MonkeyPatch, trec: tuple[Path, Path, dict[str, dict[str, float]]]
) -> None:
    _, run, expected = trec
    monkeypatch.setattr(sys, "stdin", FakeStdin(QRELS["beir.tsv"].encode()))
    assert _values(cranfield.evaluate("-", run, MEASURES)) == expected
    monkeypatch.setattr(sys, "stdin", FakeStdin(TREC_QRELS.encode()))
    assert load_qrels("-").notes == ()


def test_command_line_reads_a_detected_run_from_standard_input(
    trec: tuple[Path, Path, dict[str, dict[str, float]]],
) -> None:
    qrels, _, expected = trec
    done = subprocess.run(
        [sys.executable, "-m", "cranfield.cli.main", "evaluate", str(qrels), "-", *JSON_AP],
        input=RUNS["msmarco.tsv"].encode(),
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["results"]
    assert {row["query_id"]: row["AP"] for row in rows} == expected["AP"]


# --------------------------------------------------------------------------- forced formats


@pytest.mark.parametrize(
    ("text", "format_", "line", "problem"),
    [
        (TREC_RUN, "msmarco", 1, "expected 3 fields (qid pid rank) of an MS MARCO run, found 6"),
        (TREC_RUN, "csv", 1, "has no query id column"),
        (TREC_RUN, "jsonl", 1, "is not a JSON object"),
        (TREC_RUN, "json", 1, "is not valid JSON"),
        (
            RUNS["msmarco.tsv"],
            "trec",
            1,
            "expected 6 fields (qid iter docno rank score tag), got 3",
        ),
        (RUNS["run.csv"], "tsv", 1, "has no query id column"),
    ],
)
def test_a_forced_format_the_file_does_not_hold_names_file_and_line(
    tmp_path: Path, text: str, format_: str, line: int, problem: str
) -> None:
    path = _write(tmp_path, "run.txt", text)
    with pytest.raises(InputError) as info:
        load_run(path, format=format_)  # type: ignore[arg-type]
    assert (info.value.source, info.value.line) == (str(path), line)
    assert problem in info.value.problem, str(info.value)


def test_a_forced_format_skips_detection(tmp_path: Path) -> None:
    path = _write(tmp_path, "run.data", RUNS["msmarco.tsv"])
    assert load_run(path, format="msmarco").notes == (
        "run.data: read as an MS MARCO run (qid pid rank); each line's score is 1/rank.",
    )
    beir = _write(tmp_path, "beir.tsv", RUNS["beir-run.tsv"])
    assert load_run(beir, format="tsv").notes == ("beir.tsv: read as TSV (a run).",)
    with pytest.raises(cranfield.OptionError, match="'format'"):
        load_run(path, format="xlsx")  # type: ignore[arg-type]
    assert set(FILE_FORMATS) == {
        "trec",
        "msmarco",
        "beir",
        "csv",
        "tsv",
        "json",
        "jsonl",
        "parquet",
    }


# --------------------------------------------------------------------------- errors with lines


@pytest.mark.parametrize(
    ("name", "text", "line", "problem"),
    [
        ("a.csv", "qid,docno,score\nq1,d1,3\n\nq1,d2,x\n", 4, "score must be a number, got 'x'"),
        (
            "b.tsv",
            "qid\tdocno\tscore\nq1\td1\t3\nq1\td1\t2\n",
            3,
            "duplicate document 'd1' for query 'q1' (first seen on line 2)",
        ),
        (
            "c.jsonl",
            '{"qid": "q", "docno": "d", "score": 1}\n\n{"qid": "q", "docno": "e"}\n',
            3,
            "score is missing",
        ),
        ("d.jsonl", '{"qid": "q", "docno": "d", "score": 1}\n[1, 2]\n', 2, "is not a JSON object"),
        ("e.json", '{"q": {"d": 1,\n "e": }}', 2, "is not valid JSON"),
        ("g.csv", "qid,docno\nq1,d1\n", 1, "has no score column"),
    ],
)
def test_errors_name_the_file_and_physical_line(
    tmp_path: Path, name: str, text: str, line: int, problem: str
) -> None:
    path = _write(tmp_path, name, text)
    with pytest.raises(InputError) as info:
        load_run(path)
    assert (info.value.source, info.value.line) == (str(path), line), str(info.value)
    assert problem in info.value.problem, str(info.value)


def test_ranx_json_errors_name_the_query_and_document(tmp_path: Path) -> None:
    path = _write(tmp_path, "run.json", '{"q": {"d": 1, "e": "high"}}')
    with pytest.raises(InputError) as info:
        load_run(path)
    assert str(info.value) == f"{path}: query 'q', document 'e': score must be a number, got 'high'"


# --------------------------------------------------------------------------- binary files


@pytest.mark.parametrize(
    ("head", "looks"),
    [
        (b"PK\x03\x04\x14\x00\x06\x00\xff\xfe", "looks like a ZIP archive (an Excel workbook?)"),
        (b"ARROW1\x00\x00\xff\xff\xff\xff", "looks like an Arrow IPC file"),
        (b"SQLite format 3\x00\x10\x00", "looks like an SQLite database"),
    ],
)
def test_binary_files_are_named_by_what_they_look_like(
    tmp_path: Path, head: bytes, looks: str
) -> None:
    path = _write(tmp_path, "data.bin", head + bytes(range(256)))
    for load in (load_run, load_qrels):
        with pytest.raises(InputError) as info:
            load(path)
        message = str(info.value)
        assert message.startswith(f"{path}: {looks}"), message
        assert "cranfield reads TREC, MS MARCO, BEIR, CSV, TSV, JSON" in message
        assert message.isprintable()
        assert "\\x" not in message


def test_parquet_on_standard_input_says_to_pass_a_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", FakeStdin(b"PAR1\x15\x04\x15\x00\x00PAR1"))
    with pytest.raises(InputError) as info:
        load_run("-")
    message = str(info.value)
    assert message.startswith(
        "<stdin>: looks like a Parquet file; pass it as a file ending in .parquet"
    )
    assert "\\x" not in message


# --------------------------------------------------------------------------- detection


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        (TREC_RUN, "run", "trec"),
        (TREC_QRELS, "qrels", "trec"),
        ("1\t0\t7\t1\n2\t0\t8\t1\n", "qrels", "trec"),  # MS MARCO's own qrels are TREC qrels
        ("q1 d1 1\nq1 d2 2\n", "run", "trec"),  # blank-separated: not MS MARCO
        ("1 0 1\t0\n", "qrels", "trec"),  # found by the fuzz tests: one tab is not enough
        ("q1\td1 \t1\n", "run", "trec"),
        ("q1\t\td1\t1\n", "run", "trec"),
        ("q1\td1\t1\r\nq2\td2\t1\r\n", "run", "msmarco"),
        ("q1\tQ0\t1\n", "run", "trec"),  # a TREC line missing fields
        ("q1\td1\t1\nq1 Q0 d2 2 1.0 t\n", "run", "trec"),  # a mixed head
        ("q1\td1\tx\n", "run", "trec"),
        ("q1\td1\t1\n", "qrels", "trec"),  # 3 fields are never qrels: TREC's error
        ("q1\td1\n", "run", "trec"),
        ("# a comment\nq1\td1\t1\n", "run", "trec"),
        ("{q1} Q0 d1 1 2 t\n", "run", "trec"),
        ("query_id\tdoc_id\n", "run", "tsv"),  # its error: no score column
        ("q1\tdoc_id\tscore\n", "run", "trec"),  # no query id column: not a header
        ("query_id,doc_id,relevance\n", "qrels", "csv"),
        ("\ufeffqid,pid,rank\n", "run", "csv"),
        ('{"q": {"d": 1}}\n', "run", "json"),
        ("[\n", "run", "json"),
        ('{"qid": "q", "docno": "d", "score": 1}\n', "run", "jsonl"),
        ('{"qid": "q", "docno": "d", "score": 1}\n', "qrels", "jsonl"),  # score is relevance
    ],
)
def test_detection(text: str, kind: str, expected: str) -> None:
    assert detect_text(text.encode(), kind, label="x") == expected  # type: ignore[arg-type]


def test_one_line_json_longer_than_the_head_is_json(tmp_path: Path) -> None:
    docs = {f"d{i}": 1.0 / (i + 1) for i in range(20000)}
    path = _write(tmp_path, "run.json", json.dumps({"q1": docs}))
    assert path.stat().st_size > HEAD_BYTES
    assert detect(path, "run") == "json"
    assert len(load_run(path)) == 20000


def test_a_broken_first_line_falls_back_to_trec_errors(tmp_path: Path) -> None:
    path = _write(tmp_path, "run.txt", "q1 d1\nq1\td2\t2\n")
    with pytest.raises(InputError) as info:
        load_run(path)
    assert (info.value.line, info.value.problem.split(",")[0]) == (
        1,
        "expected 6 fields (qid iter docno rank score tag)",
    )


def test_detection_reads_only_the_head(tmp_path: Path) -> None:
    # The head decides: a bad line after it is an MS MARCO error, not a TREC one.
    lines = "".join(f"q{i}\td{i}\t1\n" for i in range(HEAD_LINES)) + "q\tQ0\td\t1\t2\tt\n"
    path = _write(tmp_path, "run.tsv", lines)
    assert detect(path, "run") == "msmarco"
    with pytest.raises(InputError) as info:
        load_run(path)
    assert info.value.line == HEAD_LINES + 1
    assert "of an MS MARCO run, found 6" in info.value.problem


def test_the_numpy_readers_leave_other_formats_to_the_loader(tmp_path: Path) -> None:
    for name, text in {**RUNS, **QRELS}.items():
        path = _write(tmp_path, name, text)
        assert open_run(path).columns() is None, name
        assert open_qrels(path).columns() is None, name


def test_streaming_reads_trec_runs_only(
    tmp_path: Path, trec: tuple[Path, Path, dict[str, dict[str, float]]]
) -> None:
    qrels, run, expected = trec
    assert _values(cranfield.evaluate_stream(qrels, run, MEASURES)) == expected
    path = _write(tmp_path, "run.tsv", RUNS["msmarco.tsv"])
    with pytest.raises(InputError) as info:
        cranfield.evaluate_stream(qrels, path, MEASURES)
    assert str(info.value).startswith(
        f"{path}: looks like an MS MARCO run (qid pid rank); --stream reads TREC runs"
    )


@pytest.mark.parametrize(
    "name", ["bm25.tsv", "bm25.jsonl", "bm25.json.gz", "bm25.csv", "bm25.ndjson", "bm25.txt.zst"]
)
def test_run_files_are_named_without_their_format_suffix(tmp_path: Path, name: str) -> None:
    assert run_name(f"runs/{name}") == "bm25"
    text = RUNS["run.jsonl"].encode()
    path = _write(tmp_path, name, gzip.compress(text) if name.endswith(".gz") else text)
    if not name.endswith(".zst"):
        assert load_run(path).name == "bm25"


# --------------------------------------------------------------------------- writing


def _sorted_rows(frame: pl.DataFrame, *columns: str) -> list[tuple[object, ...]]:
    return sorted(frame.select(*columns).rows())


@pytest.mark.parametrize("format_", [f for f in FILE_FORMATS if f != "msmarco"])
def test_a_written_run_reads_back_the_same(tmp_path: Path, format_: str) -> None:
    run = load_run(_write(tmp_path, "r.trec", TREC_RUN + 'q3 Q0 d,"x 1 0.1 sys\n'))
    path = tmp_path / f"out.{format_}"
    write(run, path, format_)  # type: ignore[arg-type]
    assert detect(path, "run") == format_
    back = load_run(path)
    columns = ("query_id", "doc_id", "score")
    assert _sorted_rows(back.frame, *columns) == _sorted_rows(run.frame, *columns)
    assert load_run(path, format=format_).frame.equals(back.frame)  # type: ignore[arg-type]


@pytest.mark.parametrize("format_", [f for f in FILE_FORMATS if f != "msmarco"])
def test_written_qrels_read_back_the_same(tmp_path: Path, format_: str) -> None:
    qrels = load_qrels(_write(tmp_path, "q.trec", TREC_QRELS + "q3 2 d9 -1\n"))
    path = tmp_path / f"out.{format_}"
    write(qrels, path, format_)  # type: ignore[arg-type]
    back = load_qrels(path)
    keeps_iteration = format_ not in ("beir", "json")
    columns = ("query_id", "doc_id", "relevance") + (("iteration",) if keeps_iteration else ())
    assert _sorted_rows(back.frame, *columns) == _sorted_rows(qrels.frame, *columns)


def test_an_msmarco_run_is_written_in_trec_evals_order(tmp_path: Path) -> None:
    # Ties are ranked by doc id descending (data/ranking.py), lines out of order sorted.
    text = "q2 Q0 a 1 1 t\nq1 Q0 d10 1 2 t\nq1 Q0 d2 2 2 t\nq1 Q0 zz 3 5 t\nq1 Q0 b 4 -1 t\n"
    run = load_run(_write(tmp_path, "r.trec", text))
    path = tmp_path / "out.tsv"
    write(run, path, "msmarco")
    assert path.read_text() == "q1\tzz\t1\nq1\td2\t2\nq1\td10\t3\nq1\tb\t4\nq2\ta\t1\n"
    qrels = _write(tmp_path, "q.trec", "q1 0 d2 1\nq1 0 b 1\nq2 0 a 1\n")
    measures = [*MEASURES, "nDCG"]
    same = cranfield.evaluate(qrels, path, measures)
    assert _values(same) == _values(cranfield.evaluate(qrels, run, measures))


def test_msmarco_qrels_hold_relevant_pairs_only(tmp_path: Path) -> None:
    binary = load_qrels(_write(tmp_path, "b.trec", "q1 0 d1 1\nq2 0 d4 1\n"))
    write(binary, tmp_path / "qrels.tsv", "msmarco")
    assert (tmp_path / "qrels.tsv").read_text() == "q1\td1\nq2\td4\n"
    graded = load_qrels(_write(tmp_path, "q.trec", TREC_QRELS))
    with pytest.raises(cranfield.OptionError, match="MS MARCO qrels hold relevant"):
        write(graded, tmp_path / "graded.tsv", "msmarco")
    assert not (tmp_path / "graded.tsv").exists()


def test_ids_that_would_not_read_back_are_refused(tmp_path: Path) -> None:
    run = load_run(pl.DataFrame({"qid": ["q 1"], "docno": ["d"], "score": [1.0]}))
    with pytest.raises(InputError, match="cannot write the run 'run' as MS MARCO text"):
        write(run, tmp_path / "r.tsv", "msmarco")
    write(run, tmp_path / "r.csv", "csv")  # CSV quotes what it must
    assert load_run(tmp_path / "r.csv").frame.rows() == [("q 1", "d", 1.0)]


# --------------------------------------------------------------------------- real data


def test_every_real_trec_file_is_detected_as_trec() -> None:
    with open(require(REAL / "MANIFEST.tsv"), encoding="utf-8", newline="") as f:
        entries = [r for r in csv.DictReader(f, delimiter="\t") if r["kind"] in ("qrels", "run")]
    assert len(entries) == 165
    found = {e["path"]: detect(REAL / e["path"], e["kind"]) for e in entries}  # type: ignore[arg-type]
    assert {path: f for path, f in found.items() if f != "trec"} == {}


@pytest.mark.parametrize("format_", ["msmarco", "beir", "csv", "tsv", "json", "jsonl", "parquet"])
def test_a_real_beir_run_scores_the_same_in_every_format(tmp_path: Path, format_: str) -> None:
    folder = require(REAL / "beir-trec-covid-news")
    qrels = folder / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt"
    run = folder / "runs" / "covid" / "bm25.txt.gz"
    measures = ["AP", "nDCG@10", "P@5", "RR", "bpref", "recall@100"]
    expected = cranfield.evaluate(qrels, run, measures)
    path = tmp_path / f"bm25.{format_}.gz"
    write(load_run(run), tmp_path / "plain", format_)  # type: ignore[arg-type]
    path.write_bytes(gzip.compress((tmp_path / "plain").read_bytes()))
    converted = path if format_ != "parquet" else tmp_path / "plain"
    results = cranfield.evaluate(qrels, converted, measures)
    for m in measures:
        assert results.per_query(m) == expected.per_query(m), m
    assert results.topics == expected.topics


def test_msmarco_lines_with_comments_blanks_or_spaces_read_alike(tmp_path: Path) -> None:
    # A comment line is not MS MARCO (detected as TREC), but read as MS MARCO when asked.
    tabs = load_run(_write(tmp_path, "a.tsv", "# top\nq1\td1\t1\n\nq1\td2\t2\n"), format="msmarco")
    spaces = load_run(_write(tmp_path, "b.tsv", "q1 d1 1\nq1  d2\t2\n"), format="msmarco")
    assert tabs.frame.equals(spaces.frame)
    with pytest.raises(InputError) as info:
        load_run(_write(tmp_path, "c.tsv", "# top\nq1\td1\t1\n\nq1\td2\t0\n"), format="msmarco")
    assert (info.value.line, info.value.problem) == (4, "rank must be an integer >= 1, got '0'")


def test_json_lines_read_alike_whatever_their_values(tmp_path: Path) -> None:
    plain = '{"qid": "q1", "docno": "d1", "score": 2.5}\n{"qid": "q1", "docno": "d2", "score": 1}\n'
    mixed = plain.replace('"score": 1}', '"score": 1, "extra": [1]}')  # read line by line
    assert load_run(_write(tmp_path, "a.jsonl", plain)).frame.equals(
        load_run(_write(tmp_path, "b.jsonl", mixed)).frame
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("text", [TREC_RUN, RUNS["msmarco.tsv"], RUNS["run.jsonl"]])
def test_a_named_pipe_is_read_once_whole_then_detected(tmp_path: Path, text: str) -> None:
    """``cranfield evaluate qrels <(zcat run.gz)``: a look at the head would lose it."""
    fifo = tmp_path / "run.pipe"
    os.mkfifo(fifo)
    got: list[Run] = []
    writer = threading.Thread(target=fifo.write_bytes, args=(text.encode(),), daemon=True)
    reader = threading.Thread(target=lambda: got.append(load_run(fifo)), daemon=True)
    writer.start()
    reader.start()
    reader.join(timeout=20)
    if reader.is_alive():  # waiting for a second writer that will never come: release it
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=5)
    assert got, "the pipe was opened twice: the first bytes went to a probe"
    expected = load_run(_write(tmp_path, "run.txt", text))
    assert got[0].frame.equals(expected.frame)


@pytest.mark.parametrize(
    "pack", [gzip.compress, bz2.compress, lzma.compress, _zstd], ids=["gz", "bz2", "xz", "zst"]
)
def test_the_head_of_a_compressed_file_is_read_alone(tmp_path: Path, pack: object) -> None:
    text = TREC_RUN.encode() * 5000
    path = _write(tmp_path, "run.packed", pack(text))  # type: ignore[operator]
    assert read_head(path, 100) == (text[:100], False)
    assert read_head(path, len(text)) == (text, True)
    truncated = _write(tmp_path, "cut.packed", path.read_bytes()[:-8])
    assert read_head(truncated, 100) == (text[:100], False)
    with pytest.raises(InputError, match="is not a valid"):
        read_head(truncated, len(text))


def test_a_decimal_label_of_a_text_table_is_named_by_its_line(tmp_path: Path) -> None:
    """The note on decimal labels names the physical line (the header is line 1), and a
    repeat follows the duplicates policy in every text format."""
    path = tmp_path / "labels.csv"
    path.write_text("query_id,doc_id,relevance\nq1,d1,1\nq1,d2,0.5\nq1,d1,2\n")
    with pytest.warns(QrelsNoteWarning):
        qrels = load_qrels(path, duplicates="max")
    assert qrels.notes[0] == "labels.csv: read as CSV (judgments)."
    assert qrels.notes[1].startswith(f"{path}:3: 1 relevance label(s) are not integers")
    assert "keeping the max relevance" in qrels.notes[2]
    assert qrels.to_dict() == {"q1": {"d1": 2, "d2": 0}}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("q1 0 d1 1\n", "qrels"),
        ("# a comment\nq1 0 d1 1\n", "qrels"),
        ("q1 Q0 d1 1 2.5 tag\n", "run"),
        ("q1\td1\n", "qrels"),
        ("q1\td1\t1\n", "run"),
        ("query-id\tcorpus-id\tscore\nq1\td1\t1\n", "qrels"),
        ("qid,docno,label\nq1,d1,1\n", "qrels"),
        ("query_id,doc_id,score\nq1,d1,1.5\n", "run"),
        ("qid\tpid\trank\nq1\td1\t1\n", "run"),
        ('{"qid": "q1", "docno": "d1", "rel": 2}\n', "qrels"),
        ('{"query_id": "q1", "doc_id": "d1", "score": 0.5}\n', "run"),
    ],
)
def test_the_kind_of_a_file_is_detected(tmp_path: Path, text: str, kind: str) -> None:
    path = tmp_path / "file"
    path.write_text(text)
    assert detect_kind(path) == kind
    gz = tmp_path / "file.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    assert detect_kind(gz) == kind


def test_the_kind_of_a_parquet_file_is_told_by_its_columns(tmp_path: Path) -> None:
    runs = tmp_path / "run.parquet"
    pl.DataFrame({"qid": ["q"], "docno": ["d"], "score": [1.0]}).write_parquet(runs)
    judged = tmp_path / "qrels.parquet"
    pl.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [1]}).write_parquet(judged)
    assert (detect_kind(runs), detect_kind(judged)) == ("run", "qrels")


@pytest.mark.parametrize(
    "text", ['{"q1": {"d1": 1}}', "qid,docno,label,score\nq,d,1,2\n", "q1 0 d1\n"]
)
def test_a_file_that_does_not_say_its_kind_asks_for_it(tmp_path: Path, text: str) -> None:
    path = tmp_path / "file"
    path.write_text(text)
    with pytest.raises(UnknownKindError, match=r"give its kind \(--kind run or --kind qrels\)"):
        detect_kind(path)


@pytest.mark.parametrize(
    "text", ["[" * 100_000 + "]" * 100_000, '{"q": ' * 50_000 + "1" + "}" * 50_000]
)
def test_json_nested_too_deep_is_an_input_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "deep.json"
    path.write_text(text)
    with pytest.raises(InputError, match="is not valid JSON \\(nested too deeply\\)"):
        load_run(path)


def _one_line_json(rows: int) -> str:
    return json.dumps({f"q{i}": {f"d{j}": j / 7 for j in range(20)} for i in range(rows)})


@pytest.mark.parametrize("how", ["file", "gzip", "stdin"])
def test_a_json_document_on_one_line_longer_than_the_line_limit_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """ranx writes its JSON on one line however large: the line limit is for text made of
    lines, the limit on text read whole still holds."""
    monkeypatch.setenv("CRANFIELD_MAX_LINE_BYTES", "1KiB")
    text = _one_line_json(50)
    assert len(text) > 1024
    path = tmp_path / "ranx.json"
    if how == "gzip":
        path = tmp_path / "ranx.json.gz"
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    if how == "stdin":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    run = load_run("-" if how == "stdin" else path)
    assert len(run) == 50 * 20
    trec = tmp_path / "long.run"
    trec.write_text("q1 Q0 " + "d" * 2000 + " 1 1.0 t\n")
    with pytest.raises(InputError, match="is longer than 1 KiB"):
        load_run(trec)


def test_a_pipe_without_line_ends_is_still_stopped_at_the_line_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CRANFIELD_MAX_LINE_BYTES", "1KiB")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\0" * 100_000)))
    with pytest.raises(InputError, match=r"^<stdin>:1: is longer than 1 KiB"):
        load_run("-")
