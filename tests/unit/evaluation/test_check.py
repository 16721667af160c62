"""``evaluation/check.py``: each problem of a table of seeded bad files is found, on the line
it is on; clean real files give nothing, or findings explained here."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from cranfield.errors import InputError
from cranfield.evaluation.check import check, check_file
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
