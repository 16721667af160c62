"""``evaluation/check.py``: each problem of a table of seeded bad files is found, on the line
it is on; clean real files give nothing, or findings explained here."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import polars as pl
import pytest

from cranfield.errors import InputError
from cranfield.evaluation.check import Finding, check, check_file
from cranfield.io.formats import described

if TYPE_CHECKING:
    from cranfield._types import FileFormat
from tests.conftest import REAL, require

# The reader's notes (a merged repeat) are warnings too (tests/unit/cli/test_qrels_notes.py).
pytestmark = pytest.mark.filterwarnings("ignore::cranfield.errors.QrelsNoteWarning")

CLEAN_RUN = "q1 Q0 a 1 3.0 t\nq1 Q0 b 2 2.0 t\nq2 Q0 c 1 1.0 t\n"
QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\nq3 0 d 1\n"

# (finding, file text, line of the first occurrence or None); one finding per file.
SEEDED = [
    ("duplicate", "q1 Q0 a 1 3.0 t\nq1 Q0 a 2 2.0 t\n", 2),
    ("duplicate", "q1 0 a 1\nq1 0 a 1\n", 2),
    ("rank-zero", "q1 Q0 a 0 3.0 t\nq1 Q0 b 1 2.0 t\n", 1),
    ("rank-order", "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 3.0 t\n", 2),
    ("nonfinite-score", "q1 Q0 a 1 inf t\nq1 Q0 b 2 2.0 t\n", 1),
    ("negative-score", "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 -1.5 t\n", 2),
    (
        "tie-at-10",
        "".join(f"q1 Q0 d{i:02} {i} {20 - min(i, 10)}.0 t\n" for i in range(1, 13)),
        11,
    ),
    ("hash-docid", "# my run\nq1 Q0 doc#1 1 2.0 t\n", 2),
    ("crlf", CLEAN_RUN.replace("\n", "\r\n"), 1),
    ("mixed-separators", "q1\tQ0\ta\t1\t3.0\tt\nq1 Q0 b 2 2.0 t\n", 2),
    ("unreadable", "q1 Q0 a 1 3.0\n", 1),
    ("unreadable", "q1 0 a 1\nq1 0 b\n", 2),
]


@pytest.mark.parametrize(("code", "text", "line"), SEEDED)
def test_each_seeded_problem_is_found(tmp_path: Path, code: str, text: str, line: int) -> None:
    path = tmp_path / "file.txt"
    path.write_text(text, newline="")
    found = {(f.code, f.line) for f in check_file(path).findings}
    assert (code, line) in found
    unexplained = {c for c, _ in found} - {code, "unreadable", "negative-score"}
    assert not unexplained  # one seeded problem, one finding (and what the reader says of it)


def test_a_refused_file_is_a_finding_with_the_reader_message(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 a 1 nan t\n")
    (finding,) = [f for f in check_file(path).findings if f.code == "unreadable"]
    assert finding.message == f"the reader refuses it: {path}:1: score is NaN: 'q1 Q0 a 1 nan t'"


@pytest.mark.parametrize(
    ("run", "code"),
    [
        ("x1 Q0 a 1 3.0 t\n", "no-overlap"),
        ("q1 Q0 a 1 3.0 t\nq1 Q0 b 2 2.0 t\n", "low-overlap"),
        ("q1 Q0 z 1 3.0 t\nq1 Q0 y 2 2.0 t\nq2 Q0 x 1 1.0 t\n", "unjudged-at-10"),
    ],
)
def test_runs_against_qrels(tmp_path: Path, run: str, code: str) -> None:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(run)
    report = check([tmp_path / "run.txt"], qrels=tmp_path / "qrels.txt")
    assert [f.code for f in report.files[0].findings] == [code]


def test_counts(tmp_path: Path) -> None:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt.gz").write_bytes(gzip.compress(CLEAN_RUN.encode()))
    report = check([tmp_path / "run.txt.gz", tmp_path / "qrels.txt"], qrels=tmp_path / "qrels.txt")
    run, qrels = report.files
    assert (run.kind, run.lines, run.queries, run.depth, run.findings) == (
        "run",
        3,
        2,
        (1, 1.5, 2),
        (),
    )
    assert run.unjudged_at_10 == 0.0
    assert (qrels.kind, qrels.queries, qrels.levels) == ("qrels", 3, {"0": 1, "1": 2, "2": 1})
    assert report.findings == []


def test_qrels_that_are_no_qrels_are_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "run.txt").write_text(CLEAN_RUN)
    with pytest.raises(InputError, match="cannot be read as qrels"):
        check([tmp_path / "run.txt"], qrels=tmp_path / "run.txt")


@pytest.mark.parametrize(
    ("file", "text"),
    [
        ("run.csv", "query_id,doc_id,score\nq1,a,3.0\n"),
        ("run.tsv", "q1\ta\t1\n"),
        ("qrels.tsv", "query-id\tcorpus-id\tscore\nq1\ta\t1\nq1\ta\t2\n"),
    ],
)
def test_qrels_in_another_format_that_are_no_qrels(tmp_path: Path, file: str, text: str) -> None:
    (tmp_path / "run.txt").write_text(CLEAN_RUN)
    (tmp_path / file).write_text(text)
    with pytest.raises(InputError, match=f"{tmp_path / file}: cannot be read as qrels: "):
        check([tmp_path / "run.txt"], qrels=tmp_path / file)


DL = REAL / "trec-dl-passage"


def test_clean_real_files_give_nothing() -> None:
    qrels = require(DL / "qrels" / "qrels.dl19-passage.txt")
    files = [DL / "runs" / "dl19" / "bm25.txt.gz", DL / "runs" / "dl19" / "tasb.txt.gz", qrels]
    report = check(files, qrels=qrels)
    assert report.findings == []
    assert [f.kind for f in report.files] == ["run", "run", "qrels"]


def test_a_real_run_with_ties_at_10_is_explained() -> None:
    """repllama's scores are rounded: 14 of the DL20 queries tie across rank 10, so nDCG@10
    depends on the tie rule (trec_eval's: document id, descending)."""
    report = check([require(DL / "runs" / "dl20" / "repllama.txt.gz")])
    assert [(f.code, f.message.split()[0]) for f in report.files[0].findings] == [
        ("tie-at-10", "14")
    ]


def test_duplicates_say_how_many_are_identical(tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 a 1\nq1 0 a 1\nq1 0 b 1\nq1 0 b 2\n")
    (finding,) = [f for f in check_file(path).findings if f.code == "duplicate"]
    assert finding.message == (
        "2 repeated (query, document) pair(s), 1 of them with the same value; "
        "the first on lines 1 and 2"
    )


# Files in the other formats, written by hand: (file name, text, finding code, kind or None).
# A table's findings name the data row in their message, not a line (the reader's refusal
# names its line).
TABLE_TIE_AT_10 = "query_id,doc_id,score\n" + "".join(
    f"q1,d{i:02},{20 - min(i, 10)}.0\n" for i in range(1, 13)
)
SEEDED_TABLES = [
    ("qrels.tsv", "query-id\tcorpus-id\tscore\nq1\ta\t1\nq1\ta\t2\n", "duplicate", None),
    ("run.csv", TABLE_TIE_AT_10 + "q1,d13,-1.5\n", "negative-score", None),
    ("run.csv", TABLE_TIE_AT_10, "tie-at-10", None),
    ("run.tsv", "q1\ta\t1\nq1\tb\t1\nq1\tc\t2\n", "rank-repeat", None),
    ("run.jsonl", '{"query_id": "q1", "doc_id": "a", "score": NaN}\n', "nonfinite-score", None),
    ("run.json", '{"q1": {"a": 1.0}}\n', "kind-unknown", None),
    ("qrels.jsonl", '{"qid": "q1", "pid": "a", "rel": 1}\n' * 2, "duplicate", None),
    ("run.tsv", "q1\ta\t0\n", "format-ambiguous", None),  # rank 0: not MS MARCO ranks
    ("run.json", '{"q1": {"a": "x"}}\n', "unreadable", "run"),
]


@pytest.mark.parametrize(("file", "text", "code", "kind"), SEEDED_TABLES)
def test_each_seeded_problem_of_a_table_is_found(
    tmp_path: Path, file: str, text: str, code: str, kind: Literal["run", "qrels"] | None
) -> None:
    path = tmp_path / file
    path.write_text(text)
    report = check_file(path, kind=kind)
    found = {f.code for f in report.findings}
    assert code in found
    assert not found - {code, "unreadable", "negative-score", "tie-at-10"}


def test_a_table_reader_refusal_is_its_message(tmp_path: Path) -> None:
    path = tmp_path / "qrels.tsv"
    path.write_text("query-id\tcorpus-id\tscore\nq1\ta\t1\nq1\ta\t2\n")
    report = check_file(path)
    assert (report.kind, report.format) == ("qrels", described("beir", "qrels"))
    assert report.findings[0] == Finding(
        "unreadable",
        f"the reader refuses it: {path}:3: duplicate document 'a' for query 'q1' judged 1 on "
        "line 2 and 2 here; keep one with duplicates='first', 'last' or 'max' (--duplicates)",
        3,
    )


def test_a_table_finding_names_the_row(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    path.write_text("query_id,doc_id,score\nq1,a,2.0\nq1,b,-1.0\nq1,c,inf\n")
    findings = check_file(path).findings
    assert [(f.code, f.line, f.message.rsplit("(", 1)[1]) for f in findings] == [
        ("nonfinite-score", None, "the first: data row 3)"),
        ("negative-score", None, "the first: data row 2)"),
    ]


def test_a_parquet_run_against_qrels_in_another_format(tmp_path: Path) -> None:
    pl.DataFrame({"qid": ["x1", "x1"], "pid": ["a", "b"], "score": [2.0, 1.0]}).write_parquet(
        tmp_path / "run.parquet"
    )
    (tmp_path / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\ta\t1\n")
    report = check([tmp_path / "run.parquet"], qrels=tmp_path / "qrels.tsv")
    assert [f.code for _, f in report.findings] == ["no-overlap"]


# The same run and qrels as CLEAN_RUN and QRELS, in each format (written by hand).
CLEAN = [
    ("run.tsv", "q1\ta\t1\nq1\tb\t2\nq2\tc\t1\n", "msmarco", "run"),
    ("qrels.tsv", "q1\ta\nq2\tc\n", "msmarco", "qrels"),
    ("qrels.tsv", "query-id\tcorpus-id\tscore\nq1\ta\t1\nq1\tb\t0\nq2\tc\t2\n", "beir", "qrels"),
    ("run.csv", "query_id,doc_id,score\nq1,a,3.0\nq1,b,2.0\nq2,c,1.0\n", "csv", "run"),
    ("qrels.tsv", "qid\tdocno\trelevance\nq1\ta\t1\nq2\tc\t2\n", "tsv", "qrels"),
    ("run.json", '{"q1": {"a": 3.0, "b": 2.0}, "q2": {"c": 1.0}}', "json", "run"),
    ("run.jsonl", '{"qid": "q1", "doc_id": "a", "score": 3}\n', "jsonl", "run"),
    ("run.txt", CLEAN_RUN, "trec", "run"),
    ("qrels.txt", "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n", "trec", "qrels"),
]


@pytest.mark.parametrize(("file", "text", "format_", "kind"), CLEAN)
def test_clean_files_of_each_format_give_nothing(
    tmp_path: Path, file: str, text: str, format_: FileFormat, kind: Literal["run", "qrels"]
) -> None:
    path = tmp_path / file
    path.write_text(text)
    report = check_file(path, kind="run" if format_ == "json" else None)
    assert (report.format, report.kind, report.findings) == (described(format_, kind), kind, ())
    assert report.queries == (1 if format_ == "jsonl" else 2)


def test_clean_parquet_and_compressed_tables_give_nothing(tmp_path: Path) -> None:
    pl.DataFrame(
        {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]}
    ).write_parquet(tmp_path / "run.parquet")
    (tmp_path / "qrels.tsv.gz").write_bytes(gzip.compress(b"q1\ta\nq2\tc\n"))
    report = check([tmp_path / "run.parquet", tmp_path / "qrels.tsv.gz"])
    assert report.findings == []
    assert [(f.kind, f.format, f.lines, f.queries) for f in report.files] == [
        ("run", "Parquet (a run)", 3, 2),
        ("qrels", "MS MARCO qrels (qid pid)", 2, 2),
    ]
    assert report.files[1].levels == {"1": 2}
