"""``cranfield`` entry point: dispatch to sub-commands."""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from typing import NoReturn


def run() -> NoReturn:
    """The ``cranfield`` command: run :func:`main` on the command line and exit with its code."""
    _one_blas_thread()
    _no_huge_page_advice()
    _keep_freed_memory()
    # Importing numpy, polars and the measures allocates enough objects to set off many
    # garbage collections, a full one walking everything imported. A command makes few
    # reference cycles: collect every 100,000 allocations, not every 700 (at 50,000 one
    # collection still fell among the imports; BENCHMARKS.md has the figures).
    gc.set_threshold(100_000, 20, 100)
    _watch_interrupts()
    try:
        code = main()
    except KeyboardInterrupt:
        _interrupted()
    _exit(code)


_WATCHER = "cranfield-interrupt"
GRACE_SECONDS = 0.3
"""How long Ctrl-C lets the command unwind (its files being written removed, its worker
processes ended) before the process ends regardless."""


def _interrupted() -> NoReturn:
    """Ctrl-C: stop at once with the shell's status for SIGINT (130), no traceback.

    Files being written are removed as the interrupt unwinds (:mod:`cranfield.io.sink`), so
    nothing half-written is left; helper threads (a run's next block being read) are not
    waited for.
    """
    _hard_stop()


def _hard_stop() -> NoReturn:
    """End the process now with 130: what is being written removed, the worker processes it
    started killed, the output flushed."""
    import multiprocessing
    import signal

    from cranfield.io.sink import remove_partial

    remove_partial()
    for child in multiprocessing.active_children():
        with contextlib.suppress(OSError):
            os.kill(child.pid or 0, signal.SIGKILL)
    _flush()
    os._exit(130)


def _watch_interrupts() -> None:
    """Make Ctrl-C end the command whatever it waits for.

    Python raises ``KeyboardInterrupt`` in the main thread only when that thread runs Python
    code again: a command waiting for a helper thread that reads standard input from a
    terminal (``evaluate QRELS -``) unwound into a wait for that thread and never ended. The
    signal's number is also written to a pipe the moment it arrives
    (:func:`signal.set_wakeup_fd`); a watching thread gives the interrupt
    :data:`GRACE_SECONDS` to unwind, then ends the process itself (:func:`_hard_stop`).
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except (ValueError, OSError):  # not the main thread of the main interpreter
        os.close(read_end)
        os.close(write_end)
        return

    def watch() -> None:
        while True:
            try:
                got = os.read(read_end, 64)
            except OSError:
                return
            if not got:
                return
            if signal.SIGINT in got:
                threading.Event().wait(GRACE_SECONDS)
                _hard_stop()

    threading.Thread(target=watch, name=_WATCHER, daemon=True).start()


def _exit(code: int) -> NoReturn:
    """End the process with ``code`` once the output is out and the exit handlers have run,
    without tearing the interpreter down object by object.

    A command ends holding every array and frame it made: freeing them one by one, module
    by module, and a last garbage collection that walks every object polars and numpy
    created take a measurable share of a large evaluation (BENCHMARKS.md). None of that is
    needed once the output is flushed and the ``atexit`` handlers (those of Dask, of
    coverage) have run. While another thread runs (a library's), the interpreter ends as usual,
    waiting for it.
    """
    import threading

    others = [t for t in threading.enumerate() if t.name != _WATCHER]
    if len(others) > 1:  # this thread and another, a library's (not the Ctrl-C watcher)
        gc.freeze()  # still skip the last garbage collection
        _flush()
        sys.exit(code)
    import atexit

    atexit._run_exitfuncs()  # CPython's own call at exit, before the teardown
    _flush()
    os._exit(code)


def _flush() -> None:
    """Flush standard output and error; if the reader of either went away, or the stream is
    closed, nothing more can be written, and that is no error."""
    import contextlib

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            if stream is sys.stdout:
                with contextlib.suppress(OSError, ValueError):
                    _discard_output()
        except (OSError, ValueError):
            pass


def _one_blas_thread() -> None:
    """Start numpy's OpenBLAS with one thread, unless the user chose a number.

    cranfield does no linear algebra worth a second thread, but OpenBLAS starts a thread per
    core when numpy is imported, which costs every command about 30 ms of start-up on two
    cores (BENCHMARKS.md, issue 29). Only the command does this, before numpy is imported;
    the library leaves the process alone. Worker processes started by the command inherit
    the setting, which is what a pool of one process per core wants anyway.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _no_huge_page_advice() -> None:
    """Start numpy without asking the kernel for huge pages, unless the user chose.

    numpy advises huge pages (``madvise(MADV_HUGEPAGE)``) for every array of 4 MiB or more.
    Where transparent huge pages are given on advice only, with defragmentation on advice
    (Debian's default, and this project's machines), each first touch of such an array may
    wait while the kernel compacts memory to find a free 2 MiB page: fusing two 7M-line runs
    spent 6.7 s of system time, 3.7 s without the advice, and ran about a fifth faster; an
    evaluation was no slower (BENCHMARKS.md, issue 34). Only the command does this, before
    numpy is imported; the library leaves the process alone.
    """
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")


def _keep_freed_memory() -> None:
    """Let glibc's malloc reuse freed blocks of up to 1 GiB instead of unmapping them.

    A first touch of fresh memory costs a page fault per 4 KiB page: on this project's
    machines a new 112 MB numpy array (14M numbers) takes 0.06 s to fill, a reused one
    0.009 s. glibc serves a block above its mmap threshold (32 MiB at most by its own rule)
    with a fresh ``mmap`` and unmaps it when it is freed, so every large array, and every
    block of a run file read in blocks of about 8 MiB (each a little longer than the last),
    faults its pages in anew. Served from the heap and kept there, freed memory is reused:
    fusing two 7M-line runs made 1.32M page faults, 0.90M with this; reading one, 14,000
    fewer. The price is a process that keeps up to 1 GiB it has freed until it ends. Only
    the command does this (the library leaves the process's allocator alone); elsewhere
    than glibc there is nothing to tune.
    """
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is not None:
        mallopt(-3, 1 << 30)  # M_MMAP_THRESHOLD: blocks up to 1 GiB come from the heap
        mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: keep up to 1 GiB freed at its top


def main(argv: list[str] | None = None) -> int:
    """Run the ``cranfield`` command line ``argv`` (default: ``sys.argv[1:]``); return the
    exit code. A closed output pipe (``cranfield ... | head``) ends it quietly, with 0."""
    from cranfield.cli.commands import main as run_command

    try:
        return run_command(sys.argv[1:] if argv is None else argv)
    except BrokenPipeError:
        _discard_output()
        return 0


def _discard_output() -> None:
    """Send what is left of standard output to the null device: the reader went away, and
    flushing the rest at exit must not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


if __name__ == "__main__":  # pragma: no cover
    run()
