"""Ctrl-C typed at a terminal stops a command at once with status 130, whatever it waits for
(issue 30, item 5): standard input (``evaluate QRELS -``: the command once waited until the
end of the input), worker processes (``compare --jobs 2``: their tracebacks once filled the
terminal), a search engine that does not answer (``lab run``).

Each command runs in a pseudo-terminal (:mod:`pty`) and is sent the byte a terminal turns
into SIGINT for its whole process group, once it is seen waiting. The bound on its end is a
liveness guard against a hang, far above any load, not a timing assertion."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a fresh interpreter per command, in a terminal

SRC = Path(__file__).resolve().parents[3] / "src"
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
QRELS, RUN = EXAMPLES / "qrels.txt", EXAMPLES / "bm25.run"
GUARD = 30.0  # seconds: a hang, not slowness (main kept waiting past 15 s, for ever)


def _in_terminal(argv: list[str], ready: Callable[[int], bool], cwd: Path) -> tuple[int, str]:
    """Run ``cranfield ARGV`` in a pseudo-terminal; once ``ready(pid)``, type Ctrl-C; return
    its exit status and what it printed."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, with the terminal as its standard streams
        os.chdir(cwd)
        os.environ["PYTHONPATH"] = str(SRC)
        os.execv(sys.executable, [sys.executable, "-m", "cranfield.cli.main", *argv])
    out = bytearray()
    try:
        _until(lambda: ready(pid), fd, out, "the command to wait")
        os.write(fd, b"\x03")  # Ctrl-C: the terminal sends SIGINT to its process group
        status = _until(lambda: _ended(pid), fd, out, "the command to end after Ctrl-C")
    finally:
        with contextlib.suppress(ProcessLookupError, ChildProcessError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    return status, out.decode(errors="replace")


def _until(done: Callable[[], object], fd: int, out: bytearray, what: str) -> object:
    deadline = time.monotonic() + GUARD
    while time.monotonic() < deadline:
        found = done()
        if found is not None and found is not False:
            return found
        readable, _, _ = select.select([fd], [], [], 0.05)
        if readable:
            with contextlib.suppress(OSError):
                out += os.read(fd, 65536)
    raise AssertionError(f"waited {GUARD} s for {what}; it printed: {out.decode(errors='replace')}")


def _ended(pid: int) -> int | None:
    got, status = os.waitpid(pid, os.WNOHANG)
    return os.waitstatus_to_exitcode(status) if got else None


def _tree(pid: int) -> list[int]:
    """The processes under ``pid`` (its workers)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            for child in (task / "children").read_text().split():
                found += [int(child), *_tree(int(child))]
    return found


def _reads_the_terminal(pid: int) -> bool:
    """Whether a thread of ``pid`` is blocked reading its standard input (x86-64 ``read`` on
    file descriptor 0)."""
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            if (task / "syscall").read_text().split()[:2] == ["0", "0x0"]:
                return True
    return False


def test_evaluate_waiting_for_standard_input(tmp_path: Path) -> None:
    status, out = _in_terminal(["evaluate", str(QRELS), "-"], _reads_the_terminal, tmp_path)
    assert status == 130, out
    assert "Traceback" not in out


@contextlib.contextmanager
def _held_fifo(path: Path) -> Iterator[threading.Event]:
    """A named pipe that someone opens for reading and nobody writes to; the event is set
    once a reader has it open."""
    os.mkfifo(path)
    opened = threading.Event()
    writers: list[int] = []

    def hold() -> None:
        while not opened.is_set():
            try:
                writers.append(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
                opened.set()
            except OSError:  # ENXIO: no reader yet
                time.sleep(0.01)

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    try:
        yield opened
    finally:
        opened.set()
        thread.join()
        for writer in writers:
            os.close(writer)


def test_compare_with_two_workers_waiting_for_a_run(tmp_path: Path) -> None:
    """A run named by path is read by its worker: a named pipe nobody writes to keeps one
    worker waiting, and the command waiting for it."""
    fifo = tmp_path / "held.run"
    with _held_fifo(fifo) as opened:
        workers: list[int] = []

        def waiting(pid: int) -> bool:
            if opened.is_set():
                workers[:] = _tree(pid)
                return True
            return False

        status, out = _in_terminal(
            ["compare", str(QRELS), str(fifo), str(RUN), "--jobs", "2"], waiting, tmp_path
        )
        assert status == 130, out
        assert "Traceback" not in out
        assert "KeyboardInterrupt" not in out
        assert workers  # the workers it had ...
        # ... are gone, none left behind, while the pipe is still held (a worker left waiting
        # on it would wait for ever). A helper that ends by itself once the command is gone
        # (multiprocessing's resource tracker, reading to the end of its pipe) may take a
        # moment on a busy machine: it is given a generous while, never a left-behind worker.
        assert _all_gone(workers), [w for w in workers if _alive(w)]


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists() and not _zombie(pid)


def _all_gone(pids: list[int], patience: float = 30.0) -> bool:
    """Whether every one of ``pids`` has ended (or is a zombie), waiting up to ``patience``
    seconds for the last ones to finish ending."""
    deadline = time.monotonic() + patience
    while any(_alive(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _zombie(pid: int) -> bool:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    return True


def test_lab_run_waiting_for_a_search_engine(tmp_path: Path) -> None:
    """An HTTP engine that accepts the connection and never answers (the request's timeout
    is far away): the lab waits for it."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    accepted = threading.Event()
    held: list[socket.socket] = []

    def accept() -> None:
        with contextlib.suppress(OSError):
            connection, _ = server.accept()
            held.append(connection)
            accepted.set()

    threading.Thread(target=accept, daemon=True).start()
    (tmp_path / "docs.jsonl").write_text('{"doc_id": "d1", "text": "boundary layer"}\n')
    (tmp_path / "topics.tsv").write_text("q1\tboundary layer\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "lab.toml").write_text(
        '[experiment]\nworkdir = "out"\nmeasures = "AP"\nisolate = false\nwarmup = 0\n'
        "repetitions = 1\nconcurrency = [1]\nthroughput_seconds = 0\nefficiency = false\n"
        '[collection]\nformat = "trec"\nqrels = "qrels.txt"\ntopics = "topics.tsv"\n'
        'documents = "docs.jsonl"\n[[systems]]\nname = "remote"\nengine = "http"\n'
        f'url = "http://127.0.0.1:{port}/search?q={{query}}&k={{k}}"\ntimeout = 600\n'
    )
    try:
        status, out = _in_terminal(
            ["lab", "run", "lab.toml"], lambda _: accepted.is_set(), tmp_path
        )
    finally:
        for connection in held:
            connection.close()
        server.close()
    assert status == 130, out
    assert "Traceback" not in out
