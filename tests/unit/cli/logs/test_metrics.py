"""``cranfield logs metrics``: its text and JSON, its groups, and its errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from cranfield.cli.main import main
from tests.conftest import SHARED, require

if TYPE_CHECKING:
    from pathlib import Path

LOG = b"q1\ta,b,c : b , a;q1\ta,b,c :;q2\tc,d : x , c;\n"
JSONL = (
    b'{"query_id": "q1", "shown": ["a", "b"], "clicks": ["b"], "click_times": [4],'
    b' "dwell_times": [45], "bucket": "A"}\n'
    b'{"query_id": "q1", "shown": ["b", "a"], "clicks": [], "bucket": "B"}\n'
)


def write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["logs", "metrics", write(tmp_path, "log.txt", LOG), "-k", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("log.txt: 3 sessions, 2 queries, depth 3, 4 clicks")
    assert "ctr             0.6667" in out
    assert "ctr@1           0.6667" in out  # a (s1) and c (s3) at rank 1
    assert "unshown_clicks  0.3333" in out
    assert "    3  0.0000" in out  # CTR by rank: rank 3 never clicked
    assert "Definitions:" in out


def test_by_query_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "log.txt", LOG)
    assert (
        main(["logs", "metrics", path, "--by", "query", "-f", "json", "-k", "1,2", "-k", "3"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["log"] == {
        "source": path,
        "sessions": 3,
        "queries": 2,
        "depth": 3,
        "clicks": 4,  # a click on a document not shown (x) counted too
        "click_times": False,
        "dwell_times": False,
        "buckets": 0,
    }
    assert list(data["log"])[:5] == ["source", "sessions", "queries", "depth", "clicks"]
    assert [g["query"] for g in data["groups"]] == ["q1", "q2"]
    assert data["groups"][0]["ctr"] == 0.5
    assert data["groups"][1]["unshown_clicks"] == 1.0
    assert {"ctr@1", "ctr@2", "ctr@3"} <= set(data["overall"])
    assert data["rank_ctr"][2] == 0.0


def test_by_bucket_with_times(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "log.jsonl", JSONL)
    assert main(["logs", "metrics", path, "--by", "bucket", "--dwell", "60"]) == 0
    out = capsys.readouterr().out
    assert "time_to_first_click  4.0000" in out
    assert "sat_ctr              0.0000" in out  # 45 s < 60 s
    assert "dwell is >= 60 s" in out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("bucket"))
    assert header.split()[:3] == ["bucket", "sessions", "ctr"]


def test_standard_input_with_its_format() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cranfield.cli.main",
            "logs",
            "metrics",
            "-",
            "--log-format",
            "wscd",
        ],
        input=LOG,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert b"<stdin>: 3 sessions" in done.stdout


def test_the_yandex_test_file(capsys: pytest.CaptureFixture[str]) -> None:
    path = require(SHARED / "data" / "clicks" / "yandex-wscd-sample.test.txt.gz")
    assert main(["logs", "metrics", str(path), "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["log"]["sessions"] == 21_413
    # 15,295 sessions click something; 51 of them click only documents they did not show
    assert round(data["overall"]["ctr"] * 21_413) == 15_295 - 51


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["-k", "0"], 1, "The --cutoffs option must be an integer >= 1, got 0."),
        (["-k", "x"], 1, "argument -k: invalid value: 'x'"),
        (["--dwell", "-1"], 1, "The --dwell option must be a number >= 0, got -1.0."),
        (["--by", "bucket"], 1, "The --by option must be 'query' for a log without buckets"),
        (["--by", "user"], 1, "argument --by: invalid choice: 'user'"),
        (["--log-format", "xml"], 1, "argument --log-format: invalid choice: 'xml'"),
        (["--log-format", "jsonl"], 2, "log.txt:1: is not a JSON object"),
    ],
)
def test_option_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], code: int, message: str
) -> None:
    assert main(["logs", "metrics", write(tmp_path, "log.txt", LOG), *argv]) == code
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"q1\ta,b : a;q1 a,b : a;", "log.txt:1: session 2: expected QUERY_ID<TAB>"),
        (b"q1\ta,a : a;", "log.txt:1: session 1: shows the document 'a' twice"),
        (b"\x1f\x8bnot gzip", "log.txt"),
    ],
)
def test_bad_input_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, message: str
) -> None:
    assert main(["logs", "metrics", write(tmp_path, "log.txt", data), "--log-format", "wscd"]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


def test_stdin_without_a_format_names_the_flag(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(LOG)))
    assert main(["logs", "metrics", "-"]) == 2
    assert "give it with --log-format" in capsys.readouterr().err


def test_help_lists_metrics(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["logs", "-h"]) == 0
    assert "metrics" in capsys.readouterr().out
