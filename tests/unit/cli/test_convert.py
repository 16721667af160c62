"""``cranfield convert``: what it wrote, what the target cannot hold, and its errors."""

from __future__ import annotations

import io
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from cranfield.cli.main import main

if TYPE_CHECKING:
    from pathlib import Path

RUN = "q1 Q0 d1 1 2.5 BM25-k1.2\nq1 Q0 d2 2 1.5 BM25-k1.2\nq2 Q0 d3 1 0.5 BM25-k1.2\n"


def _run(tmp_path: Path) -> Path:
    path = tmp_path / "bm25.run"
    path.write_text(RUN)
    return path


def test_converting_says_what_was_written_and_what_was_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "bm25.tsv"
    assert main(["convert", str(_run(tmp_path)), str(target), "--to", "msmarco"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        f"{target}: 3 line(s), 2 queries, written as an MS MARCO run (qid pid rank) from TREC "
        "(a run)."
    )
    assert out[1].startswith("note: scores are not kept: an MS MARCO run holds ranks")
    assert out[2] == "note: the run tag 'BM25-k1.2' is not kept (only TREC and Parquet hold one)"
    assert target.read_text() == "q1\td1\t1\nq1\td2\t2\nq2\td3\t1\n"


def test_the_suffix_names_the_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "bm25.jsonl"
    assert main(["convert", str(_run(tmp_path)), str(target)]) == 0
    assert "written as JSON Lines (a run)" in capsys.readouterr().out
    assert target.read_text().splitlines()[0] == (
        '{"query_id": "q1", "doc_id": "d1", "score": 2.5}'
    )


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["{run}", "{run}", "--to", "csv"], 1, "OUT must be a file that is not one of the inputs"),
        (["{run}", "{tmp}/x.gz"], 1, "OUT must be a file whose suffix names a format"),
        (["{run}", "{tmp}/x.csv", "--to", "xlsx"], 1, "invalid choice: 'xlsx'"),
        (["{tmp}/missing.run", "{tmp}/x.csv"], 2, "missing.run"),
        (["{tmp}/ranx.json", "{tmp}/x.csv"], 2, "give its kind (--kind run or --kind qrels)"),
        (["{run}", "{tmp}/x.csv", "--from", "jsonl"], 2, "does not look like jsonl but like trec"),
        (["{run}", "{tmp}/x.csv", "--from", "jsonl", "--kind", "run"], 2, "bm25.run:1"),
        (["{tmp}/graded.txt", "{tmp}/q.tsv", "--to", "msmarco"], 1, "MS MARCO qrels hold"),
    ],
)
def test_errors_say_what_is_wrong(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    code: int,
    message: str,
) -> None:
    run = _run(tmp_path)
    (tmp_path / "ranx.json").write_text('{"q1": {"d1": 1}}')
    (tmp_path / "graded.txt").write_text("q1 0 d1 2\n")
    words = [a.format(run=run, tmp=tmp_path) for a in argv]
    assert main(["convert", *words]) == code
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_standard_input_with_its_kind(tmp_path: Path) -> None:
    target = tmp_path / "qrels.csv"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cranfield.cli.main",
            "convert",
            "-",
            str(target),
            "--kind",
            "qrels",
        ],
        input="q1 0 d1 1\nq1 0 d2 0\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "from TREC (judgments)" in done.stdout
    assert target.read_text() == "query_id,doc_id,relevance\nq1,d1,1\nq1,d2,0\n"


def test_standard_input_without_its_kind_asks_for_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"q1 0 d1 1\n")))
    assert main(["convert", "-", str(tmp_path / "q.csv")]) == 2
    assert "cannot be looked at twice to tell its kind" in capsys.readouterr().err
