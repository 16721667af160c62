"""Every output format and mode with a pipe for an input, and standard input given twice
(issue 30, item 6): a named pipe, standard input and ``<(...)`` read once by ``evaluate`` in
every format and mode and by ``report``; ``evaluate - -`` refused in one sentence."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import require
from tests.unit.evaluation.test_open_once import EXAMPLES, QRELS, RUN, _cranfield, _fifo, cli

# Every output format and mode with a pipe for an input (issue 30, item 6): in this process
# (a named pipe, standard input), each command in a thread that must end (a guard against a
# hang, far above any load: a second opening of a pipe waits for ever), and in a shell.

FORMATS = ["table", "tsv", "csv", "json", "jsonl"]
MODES = [(), ("--stream",), ("--store", "STORE"), ("-q",)]


def _within(seconds: float, *argv: str | Path, stdin: bytes | None = None) -> tuple[int, str]:
    """:func:`cli` in a thread that must end within ``seconds`` (``stdin``: its standard
    input)."""
    done: list[tuple[int, str]] = []
    failed: list[BaseException] = []

    def call() -> None:
        try:
            done.append(cli(*argv))
        except BaseException as exc:  # raised again below, in the test
            failed.append(exc)

    saved = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        worker = threading.Thread(target=call, daemon=True)
        worker.start()
        worker.join(seconds)
    finally:
        sys.stdin = saved
    assert not worker.is_alive(), f"still running after {seconds} s: {argv}"
    if failed:
        raise failed[0]
    return done[0]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("mode", MODES)
def test_every_format_and_mode_reads_a_pipe_and_standard_input_once(
    tmp_path: Path, fmt: str, mode: tuple[str, ...]
) -> None:
    require(QRELS)
    argv = [str(tmp_path / "store") if a == "STORE" else a for a in mode]
    code, expected = cli("evaluate", QRELS, RUN, "-f", fmt, *argv)
    assert code == 0
    for place in ("run", "qrels"):
        fifo = _fifo(tmp_path, (RUN if place == "run" else QRELS).read_bytes(), f"{place}.fifo")
        given = (QRELS, fifo) if place == "run" else (fifo, RUN)
        code, out = _within(120, "evaluate", *given, "-f", fmt, *argv)
        assert code == 0
        assert _values(out, fmt) == _values(expected, fmt), (place, fmt, mode)
        fifo.unlink()
    code, out = _within(120, "evaluate", QRELS, "-", "-f", fmt, *argv, stdin=RUN.read_bytes())
    assert code == 0
    assert _values(out, fmt) == _values(expected, fmt)


def _values(out: str, fmt: str) -> list[str]:
    """The numbers of an output, whatever names its run and inputs (a pipe, ``<stdin>``)."""
    import re

    if fmt == "json":
        return [json.dumps(r, sort_keys=True) for r in _numbers(json.loads(out)["results"])]
    if fmt == "jsonl":
        rows = [json.loads(line) for line in out.splitlines() if line.strip()]
        return [json.dumps(r, sort_keys=True) for r in _numbers(rows)]
    return re.findall(r"\d+\.\d+", out)


def _numbers(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: v for k, v in r.items() if isinstance(v, float)} for r in rows]


def test_standard_input_given_twice_is_refused_in_one_sentence() -> None:
    """``evaluate - -`` read the qrels from standard input, then waited for a run that could
    never come: now one sentence, before anything is read (stdin stays open here)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3] / "src")}
    for argv in (["-", "-"], [str(QRELS), "-", "-"], [str(QRELS), "-", "--known", "-"]):
        with subprocess.Popen(
            [sys.executable, "-m", "cranfield.cli.main", "evaluate", *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        ) as command:
            try:
                out, err = command.communicate(timeout=60)  # a guard against the old wait
            finally:
                command.kill()
        assert command.returncode == 1
        assert out == b""
        (line,) = err.decode().splitlines()
        assert line.startswith("cranfield evaluate: error: standard input (-) can be read only")


@pytest.mark.slow  # a shell and a command per output
def test_process_substitution_in_every_format_and_report(tmp_path: Path) -> None:
    require(QRELS)
    for fmt in FORMATS:
        out = _cranfield("evaluate", f"<(cat {QRELS})", f"<(cat {RUN})", "-f", fmt, shell=True)
        assert _values(out, fmt) == _values(cli("evaluate", QRELS, RUN, "-f", fmt)[1], fmt)
    page = tmp_path / "report.html"
    neural = EXAMPLES / "neural.run"
    _cranfield("report", QRELS, "-", neural, "-o", page, stdin=RUN.read_bytes())
    assert "neural" in page.read_text()
    fifo = _fifo(tmp_path, QRELS.read_bytes(), "qrels.fifo")
    other = tmp_path / "fifo.html"
    _cranfield("report", fifo, RUN, neural, "-o", other)
    assert "neural" in other.read_text()
