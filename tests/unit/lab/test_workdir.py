"""The work directory: one run at a time (its lock), and writes that fail name their file and
leave the previous files whole."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from cranfield.errors import OptionError, WorkdirInUseError
from cranfield.lab import CallableSystem, Collection, Experiment, PrecomputedRun
from cranfield.lab.workdir import LOCK_FILE, check_system_names, locked

if TYPE_CHECKING:
    from collections.abc import Iterator

FAST = {
    "warmup": 0,
    "repetitions": 1,
    "concurrency": [1],
    "throughput_seconds": 0.0,
    "progress": False,
    "isolate": False,
}

HOLD = """
import sys
from pathlib import Path
from cranfield.lab.workdir import locked
with locked(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()
"""


def first_doc(query: str, k: int) -> dict[str, float]:
    return {"d1": 1.0, "d2": 0.5}


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """Another process holding the lock of ``tmp_path / "work"``, until killed."""
    work = tmp_path / "work"
    with subprocess.Popen(
        [sys.executable, "-c", HOLD, str(work)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            assert proc.stdout is not None
            assert proc.stdout.readline() == "held\n"  # the lock is held from here on
            yield proc, work
        finally:
            proc.kill()


def test_a_run_on_a_work_directory_another_process_holds_fails_at_once(
    toy: Collection, holder: tuple[subprocess.Popen[str], Path]
) -> None:
    proc, work = holder
    exp = Experiment(toy, [CallableSystem("c", first_doc)], ["AP"], workdir=work, **FAST)
    with pytest.raises(WorkdirInUseError) as exc:
        exp.run()
    message = str(exc.value)
    assert message.startswith(f"{work} is in use by another cranfield lab run (pid {proc.pid} on ")
    assert message.endswith("; wait or use another workdir.")
    assert exc.value.for_command_line().endswith("; wait or use another --workdir.")
    assert not (work / "runs").exists()  # refused before it touched anything


def test_the_lock_file_of_a_killed_run_blocks_nobody(
    toy: Collection, holder: tuple[subprocess.Popen[str], Path]
) -> None:
    proc, work = holder
    proc.kill()
    proc.wait(timeout=60)
    left = json.loads((work / LOCK_FILE).read_text())
    assert left["pid"] == proc.pid  # what a pid file would take for a live run
    exp = Experiment(toy, [CallableSystem("c", first_doc)], ["AP"], workdir=work, **FAST)
    assert exp.run().means["AP"]["c"] > 0
    assert (work / LOCK_FILE).read_text() == ""  # emptied by the run that held it last


def test_a_second_run_while_one_is_running_is_refused_and_the_first_is_unharmed(
    toy: Collection, tmp_path: Path
) -> None:
    """The finding: a second ``lab run`` rebuilt the index under the first, whose scores
    came out 0. Now the second, started while the first searches, exits 2 at once."""
    work = tmp_path / "work"
    cfg = tmp_path / "lab.toml"
    (tmp_path / "docs.jsonl").write_text('{"doc_id": "d1", "text": "x"}\n')
    (tmp_path / "topics.tsv").write_text("q1\tboundary layer\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2.0 r\n")
    cfg.write_text(
        '[collection]\nformat = "trec"\nqrels = "qrels.txt"\ntopics = "topics.tsv"\n'
        'documents = "docs.jsonl"\n[[systems]]\nname = "r"\nengine = "run"\npath = "a.run"\n'
    )
    second: list[subprocess.CompletedProcess[str]] = []
    command = [sys.executable, "-m", "cranfield.cli.main", "lab", "run", str(cfg), "--quiet"]

    def search(query: str, k: int) -> dict[str, float]:
        if not second:  # while the first run holds the directory
            second.append(
                subprocess.run(
                    [*command, "--workdir", str(work)],
                    capture_output=True,
                    text=True,
                    check=False,
                    timeout=120,
                )
            )
        return first_doc(query, k)

    result = Experiment(
        toy, [CallableSystem("c", search)], ["AP"], workdir=work, efficiency=False, **FAST
    ).run()
    done = second[0]
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert f"{work} is in use by another cranfield lab run (pid {os.getpid()} on " in done.stderr
    assert done.stderr.endswith("; wait or use another --workdir.\n")
    alone = Experiment(
        toy, [CallableSystem("c", first_doc)], ["AP"], workdir=tmp_path / "alone", **FAST
    )
    assert result.means == alone.run(report=False).means


def test_a_full_disk_names_the_file_and_keeps_the_previous_results(
    toy: Collection, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    exp = Experiment(toy, [CallableSystem("c", first_doc)], ["AP"], workdir=work, **FAST)
    exp.run()
    before = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}

    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", no_space)
        with pytest.raises(OSError, match=r"^\[Errno 28\] cannot write .*results\.json: No space"):
            exp.run()
    after = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    assert after == before  # nothing half-written, no temporary file left
    exp.run()  # and the failed run let go of the lock


def test_a_read_only_work_directory_names_the_file(
    toy: Collection, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a file cannot be created (a read-only directory: simulated, so that the test also
    holds for root), the error names the file the run wanted, not a temporary one."""
    import tempfile

    work = tmp_path / "work"
    exp = Experiment(toy, [CallableSystem("c", first_doc)], ["AP"], workdir=work, **FAST)

    def read_only(*args: object, **kwargs: object) -> tuple[int, str]:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(work / ".x.partial"))

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    with pytest.raises(
        OSError, match=r"cannot write .*work/indexes/c\.json: Read-only file system$"
    ):
        exp.run()


def test_a_work_directory_with_too_long_a_name_is_one_error(
    toy: Collection, tmp_path: Path
) -> None:
    work = tmp_path / ("x" * 300)
    exp = Experiment(toy, [CallableSystem("c", first_doc)], ["AP"], workdir=work, **FAST)
    with pytest.raises(OSError, match=r"cannot create the work directory .*x: File name too long"):
        exp.run()


def test_locked_is_exclusive_within_one_process_too(tmp_path: Path) -> None:
    busy = pytest.raises(WorkdirInUseError, match=f"pid {os.getpid()} on ")
    with locked(tmp_path), busy, locked(tmp_path):
        pass
    with locked(tmp_path):  # released
        pass


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["a", "a.json"], r"got \['a', 'a\.json'\]\. Both would write indexes/a\.json\.$"),
        (["Run", "rUN"], r"Both would write indexes/rUN \(file names may ignore case\)"),
        (["", "a"], "systems with non-empty names, got ''"),
        (["a\nb"], "can name a file"),
        (["a\\b"], "can name a file"),
        ([".hidden"], "can name a file"),
        (["my run"], "one word"),  # the run tag of its run: refused before any run is written
        (["\u00e9" * 101], "at most 200 bytes long"),  # 202 bytes in UTF-8
    ],
)
def test_system_names_are_file_names(names: list[str], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        check_system_names(names)


def test_precomputed_runs_are_held_to_the_same_names(toy: Collection, tmp_path: Path) -> None:
    run = {"q1": {"d1": 1.0}}
    with pytest.raises(OptionError, match="systems with non-empty names"):
        Experiment(toy, [PrecomputedRun("", run)], workdir=tmp_path)
    with pytest.raises(OptionError, match=r"got \['x', 'x\.json'\]"):
        Experiment(toy, [PrecomputedRun("x", run), PrecomputedRun("x.json", run)])
    check_system_names(["a", "a.run", "b"])  # a.run's files are not a's
