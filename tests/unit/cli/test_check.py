"""``cranfield check``: a table and the findings for people, JSON for programs, ``--strict``
exits 3 on any finding or warning (its own code: not a usage error, 1, nor bad data, 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cranfield.cli.main import main


def cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    good, bad, qrels = tmp_path / "good.run", tmp_path / "bad.run", tmp_path / "qrels.txt"
    good.write_text("q1 Q0 a 1 3.0 t\nq1 Q0 b 2 2.0 t\n")
    bad.write_text("q1 Q0 a 0 3.0 t\nq1 Q0 b 1 2.0 t\n")
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    return good, bad, qrels


def test_findings_for_people(capsys: pytest.CaptureFixture[str], files: tuple[Path, ...]) -> None:
    good, bad, qrels = files
    code, out, err = cli(capsys, "check", good, bad, qrels, "--qrels", qrels)
    assert (code, err) == (0, "")
    assert f"checked against {qrels}" in out
    assert out.endswith(
        f"1 finding(s)\n  {bad}:1: rank-zero: 1 line(s) with rank 0 (ranks count from 1)\n"
    )
    assert "2/2/2" in out  # the depth of both runs, min/median/max
    assert "unjudged@10" in out
    assert out.count(" 0% ") == 2  # both runs: every document of the top 10 judged


def test_json(capsys: pytest.CaptureFixture[str], files: tuple[Path, ...]) -> None:
    good, bad, _ = files
    code, out, _ = cli(capsys, "check", good, bad, "-f", "json")
    doc = json.loads(out)
    assert code == 0
    assert [f["kind"] for f in doc["files"]] == ["run", "run"]
    assert [f["format"] for f in doc["files"]] == ["TREC (a run)", "TREC (a run)"]
    assert doc["files"][1]["findings"] == [
        {"code": "rank-zero", "message": "1 line(s) with rank 0 (ranks count from 1)", "line": 1}
    ]


def test_strict_exits_3_on_a_finding(
    capsys: pytest.CaptureFixture[str], files: tuple[Path, ...]
) -> None:
    good, bad, qrels = files
    assert cli(capsys, "check", good, qrels, "--strict")[0] == 0
    code, out, err = cli(capsys, "check", good, bad, "--strict")
    assert (code, err) == (3, "")  # 3: neither a usage error (1) nor unreadable data (2)
    assert "1 finding(s)" in out  # the whole report first


def test_qrels_that_cannot_be_read_exit_2(
    capsys: pytest.CaptureFixture[str], files: tuple[Path, ...], tmp_path: Path
) -> None:
    good, _, _ = files
    code, out, err = cli(capsys, "check", good, "--qrels", tmp_path / "none.txt")
    assert (code, out) == (2, "")
    assert err.startswith(f"cranfield check: {tmp_path / 'none.txt'}: cannot be read as qrels")


def test_a_run_on_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    stdin = io.TextIOWrapper(io.BytesIO(b"\xef\xbb\xbfq1 Q0 a 1 3.0 t\nq1 Q0 a 2 2.0 t\n"))
    monkeypatch.setattr("sys.stdin", stdin)
    code, out, _ = cli(capsys, "check", "-", "-f", "json")
    (report,) = json.loads(out)["files"]
    assert (code, report["path"], report["kind"]) == (0, "<stdin>", "run")
    codes = [f["code"] for f in report["findings"]]
    assert codes == ["unreadable", "duplicate"]  # the reader's message, then the count


def test_every_format_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    run, qrels = tmp_path / "run.csv", tmp_path / "qrels.tsv"
    run.write_text("query_id,doc_id,score\nq1,a,3.0\nq1,b,2.0\n")
    qrels.write_text("query-id\tcorpus-id\tscore\nq1\ta\t1\nq1\tb\t0\n")
    code, out, err = cli(capsys, "check", run, qrels, "--qrels", qrels)
    assert (code, err) == (0, "")
    assert "CSV (a run)" in out
    assert "BEIR qrels (TSV with header query-id, corpus-id, score)" in out
    assert out.endswith("nothing found\n")


def test_a_file_that_does_not_say_its_kind(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "run.json"
    path.write_text('{"q1": {"a": 3.0, "b": 3.0}}\n')
    code, out, _ = cli(capsys, "check", path, "-f", "json", "--strict")
    (report,) = json.loads(out)["files"]
    assert (code, report["kind"], report["format"]) == (3, "unknown", None)
    (finding,) = report["findings"]
    assert finding["code"] == "kind-unknown"
    assert "--kind run or --kind qrels" in finding["message"]
    code, out, _ = cli(capsys, "check", path, "--kind", "run", "-f", "json", "--strict")
    (report,) = json.loads(out)["files"]
    assert (code, report["kind"], report["format"], report["findings"]) == (
        0,
        "run",
        "JSON (a run)",
        [],
    )


def test_another_format_on_standard_input_is_a_finding(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    stdin = io.TextIOWrapper(io.BytesIO(b"query_id,doc_id,score\nq1,a,3.0\n"))
    monkeypatch.setattr("sys.stdin", stdin)
    code, out, _ = cli(capsys, "check", "-", "-f", "json")
    (report,) = json.loads(out)["files"]
    assert (code, report["kind"]) == (0, "unknown")
    assert report["findings"] == [
        {
            "code": "unreadable",
            "message": "<stdin>: looks like CSV text; check reads that format from a file "
            "path, not standard input",
            "line": None,
        }
    ]
