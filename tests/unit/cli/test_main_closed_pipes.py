"""``cranfield ... | head``: the reader reads a line and goes away while the command is still
writing (outputs larger than a pipe holds). The command ends quietly, with status 0 as when
the reader was gone before it wrote (``test_command_line.py`` has that case for every
command that prints): no traceback, no "Exception ignored" from the last flush."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

QUERIES = 2000  # about 100 KB or more of output from each command below; a pipe holds 64 KiB


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    folder = tmp_path_factory.mktemp("pipes")
    qrels, bm25, neural = folder / "qrels.txt", folder / "bm25.run", folder / "neural.run"
    qrels.write_text("".join(f"q{k} 0 d{k % 7} {k % 3}\n" for k in range(QUERIES)))
    for run, shift in ((bm25, 0), (neural, 3)):
        lines = (
            f"q{k} Q0 d{(k + d + shift) % 7} {d + 1} {10 - d} t\n"
            for k in range(QUERIES)
            for d in range(5)
        )
        run.write_text("".join(lines))
    return str(qrels), str(bm25), str(neural)


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "{q}", "{a}", "{b}", "-q", "-m", "AP"],
        ["evaluate", "{q}", "{a}", "{b}", "-q", "-f", "jsonl", "--stream"],
        ["compare", "{q}", "{a}", "{b}", "-m", "AP", "-f", "json", "--per-query"],
        ["trec-eval", "-q", "-m", "all_trec", "{q}", "{a}"],
    ],
    ids=lambda argv: "-".join(a for a in argv if not a.startswith("{"))[:40],
)
def test_a_reader_gone_midway_ends_the_command_quietly(
    files: tuple[str, str, str], argv: list[str]
) -> None:
    q, a, b = files
    command = [arg.format(q=q, a=a, b=b) for arg in argv]
    proc = subprocess.Popen(
        [sys.executable, "-m", "cranfield.cli.main", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # `head -1` has what it wants
    errors = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=120) == 0, errors
    assert first
    assert "Traceback" not in errors
    assert "Exception ignored" not in errors
    assert "BrokenPipe" not in errors
    assert Path(q).is_file()
