"""``--qrels-format`` and ``--run-format``: every evaluating command reads files in any format
of :mod:`cranfield.io.formats`, detected or named, with the same numbers as TREC files and
the format named in the notes."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from cranfield.cli.main import main

if TYPE_CHECKING:
    from pathlib import Path

# The same judgments and runs, written by hand in several formats.
TREC_QRELS = "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d4 1\nq2 0 d5 1\n"
BEIR_QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\nq1\td3\t1\nq2\td4\t1\nq2\td5\t1\n"
CSV_QRELS = "qid,docno,label\nq1,d1,2\nq1,d2,0\nq1,d3,1\nq2,d4,1\nq2,d5,1\n"
TREC_RUN = "q1 Q0 d3 1 3 r\nq1 Q0 d9 2 2 r\nq1 Q0 d1 3 1 r\nq2 Q0 d5 1 2 r\nq2 Q0 d8 2 1 r\n"
TREC_RUN_B = "q1 Q0 d1 1 3 s\nq1 Q0 d3 2 2 s\nq2 Q0 d8 1 2 s\nq2 Q0 d4 2 1 s\n"
MSMARCO_RUN = "q1\td3\t1\nq1\td9\t2\nq1\td1\t3\nq2\td5\t1\nq2\td8\t2\n"
JSONL_RUN_B = "".join(
    json.dumps({"query_id": q, "doc_id": d, "score": s}) + "\n"
    for q, d, s in [("q1", "d1", 3), ("q1", "d3", 2), ("q2", "d8", 2), ("q2", "d4", 1)]
)
MEASURES = ["-m", "AP", "nDCG@10", "P@2", "RR"]


def _write(tmp_path: Path, files: dict[str, str]) -> dict[str, str]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return {name: str(tmp_path / name) for name in files}


def _values(out: str) -> list[list[str]]:
    """The rows of a ``--format tsv`` table without its run names."""
    return [line.split("\t")[1:] for line in out.splitlines()]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    return _write(
        tmp_path,
        {
            "qrels.txt": TREC_QRELS,
            "qrels.beir.tsv": BEIR_QRELS,
            "qrels.csv": CSV_QRELS,
            "a.run": TREC_RUN,
            "b.run": TREC_RUN_B,
            "a.tsv": MSMARCO_RUN,
            "b.jsonl": JSONL_RUN_B,
        },
    )


def test_detected_formats_give_the_numbers_of_trec_files(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["evaluate", files["qrels.txt"], files["a.run"], *MEASURES, "-f", "tsv"]) == 0
    trec = _values(capsys.readouterr().out)
    for qrels in ("qrels.beir.tsv", "qrels.csv"):
        assert main(["evaluate", files[qrels], files["a.tsv"], *MEASURES, "-f", "tsv"]) == 0
        assert _values(capsys.readouterr().out) == trec


def test_the_formats_read_are_in_the_notes(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["evaluate", files["qrels.beir.tsv"], files["a.tsv"], "-m", "AP"]) == 0
    out = capsys.readouterr().out
    assert "qrels.beir.tsv: read as BEIR qrels (TSV with header query-id, corpus-id, score)." in out
    assert "a.tsv: read as an MS MARCO run (qid pid rank); each line's score is 1/rank." in out
    assert main(["evaluate", files["qrels.txt"], files["a.run"], "-m", "AP"]) == 0
    assert "read as" not in capsys.readouterr().out  # TREC files: nothing to say


def test_a_named_format_the_file_is_not_in_is_an_error_naming_the_line(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["evaluate", files["qrels.beir.tsv"], files["a.run"], "-m", "AP"]
    assert main([*argv, "--qrels-format", "trec"]) == 2
    err = capsys.readouterr().err
    assert f"{files['qrels.beir.tsv']}:1:" in err
    assert "Traceback" not in err
    assert main([*argv, "--qrels-format", "xlsx"]) == 1
    assert "invalid choice: 'xlsx'" in capsys.readouterr().err


def test_a_named_format_is_read_as_named(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["evaluate", files["qrels.csv"], files["a.tsv"], *MEASURES, "-f", "tsv"]
    assert main([*argv, "--qrels-format", "csv", "--run-format", "msmarco"]) == 0
    named = _values(capsys.readouterr().out)
    assert main(argv) == 0
    assert named == _values(capsys.readouterr().out)


def test_streaming_reads_trec_runs_only(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["evaluate", files["qrels.txt"], files["a.tsv"], "-m", "AP", "--stream"]
    assert main(argv) == 2
    assert "looks like an MS MARCO run (qid pid rank); --stream reads TREC runs" in (
        capsys.readouterr().err
    )
    assert main([*argv, "--run-format", "msmarco"]) == 1
    assert "--run-format" in capsys.readouterr().err


def test_compare_report_and_plot_read_every_format(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trec = [files["qrels.txt"], files["a.run"], files["b.run"]]
    other = [files["qrels.beir.tsv"], files["a.tsv"], files["b.jsonl"]]
    assert main(["compare", *trec, "-m", "AP", "-f", "json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    assert main(["compare", *other, "-m", "AP", "-f", "json", "--run-format", "msmarco"]) == 2
    capsys.readouterr()  # b.jsonl is not MS MARCO: the named format is every run's
    assert main(["compare", *other, "-m", "AP", "-f", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["means"] == expected["means"]
    assert got["comparisons"] == expected["comparisons"]
    assert any("read as an MS MARCO run" in n for n in got["method"]["notes"])
    page = tmp_path / "report.html"
    assert main(["report", *other, "-m", "AP", "-o", str(page)]) == 0
    assert page.read_text().startswith("<!DOCTYPE html>")
    figure = tmp_path / "pr.svg"
    assert main(["plot", "pr", *other, "-o", str(figure), "--qrels-format", "beir"]) == 0
    assert figure.stat().st_size > 0
