"""The work directory of an experiment: the files of each system and its lock.

Layout (every file is plain text or JSON)::

    WORKDIR/.cranfield-lab.lock  the lock of the run using the directory: its pid and start
    WORKDIR/indexes/NAME/        the index of system NAME
    WORKDIR/indexes/NAME.json    how it was built: cache key, configuration, IndexStats, machine
    WORKDIR/runs/NAME.run        the run (TREC format, tag NAME)
    WORKDIR/runs/NAME.json       cache key of the run and the time the search pass took
    WORKDIR/efficiency/NAME.json latency and throughput, their options and machine
    WORKDIR/results.json         everything in the report, as data
    WORKDIR/report.html          efficiency and effectiveness side by side
    WORKDIR/comparison.html      the shared comparison report of two or more systems

One run at a time: :func:`locked` holds an exclusive ``flock`` on the lock file for the
whole run, so a second run on the same directory stops at once with
:class:`~cranfield.errors.WorkdirInUseError` instead of rebuilding indexes under the first.
The kernel releases the lock when its holder ends, however it ends, so the lock file a
killed run leaves behind blocks nobody. On a platform without ``fcntl`` (Windows) no lock is
taken and two runs on one directory are not kept apart.

A system's name names its files, so :func:`check_system_names` refuses names that cannot
name a file, or two names whose files would be the same file (``a`` and ``a.json`` share
``indexes/a.json``; ``A`` and ``a`` are one name on a case-insensitive file system).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Final

from cranfield.errors import OptionError, WorkdirInUseError
from cranfield.io.sink import writing

if sys.platform != "win32":
    import fcntl

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

__all__ = [
    "LOCK_FILE",
    "NAME_MAX_BYTES",
    "SystemFiles",
    "check_system_names",
    "locked",
]

LOCK_FILE: Final = ".cranfield-lab.lock"
NAME_MAX_BYTES: Final = 200
"""The longest system name, in UTF-8 bytes: the name plus the suffixes of its files and of
their temporary files (:mod:`cranfield.io.sink`) must fit in the 255 bytes most file systems
allow a file name."""


@dataclass(frozen=True)
class SystemFiles:
    """The files of one system in a work directory."""

    index: Path
    index_manifest: Path
    run: Path
    run_manifest: Path
    efficiency: Path

    @classmethod
    def of(cls, workdir: Path, name: str) -> SystemFiles:
        """The files of system ``name`` in ``workdir``."""
        return cls(
            index=workdir / "indexes" / name,
            index_manifest=workdir / "indexes" / f"{name}.json",
            run=workdir / "runs" / f"{name}.run",
            run_manifest=workdir / "runs" / f"{name}.json",
            efficiency=workdir / "efficiency" / f"{name}.json",
        )

    def paths(self) -> tuple[Path, ...]:
        """Every file (and the index directory), in the order of the fields."""
        return (self.index, self.index_manifest, self.run, self.run_manifest, self.efficiency)


def _as_one_file(path: Path) -> str:
    """The key under which file systems that ignore case or Unicode normalisation (macOS,
    Windows) see ``path``."""
    return unicodedata.normalize("NFC", path.as_posix()).casefold()


def check_system_names(names: Iterable[str]) -> None:
    """Refuse system names that cannot name files in the work directory, or whose files
    would be the same file.

    A name must be non-empty, have no ``/``, ``\\``, blank or control character, not start
    with ``.`` and be at most :data:`NAME_MAX_BYTES` bytes long in UTF-8 (it names the
    system's files and is the run tag of its run).

    Raises
    ------
    cranfield.errors.OptionError
        The ``systems`` option, with the name (or the two names) at fault.

    Examples
    --------
    >>> check_system_names(["bm25", "bm25.json"])
    Traceback (most recent call last):
    ...
    cranfield.errors.OptionError: The 'systems' option must be systems whose files in the \
work directory differ, got ['bm25', 'bm25.json']. Both would write indexes/bm25.json.
    """
    owner: dict[str, str] = {}
    for name in names:
        if not isinstance(name, str) or not name:
            raise OptionError("systems", "systems with non-empty names", name)
        if any(c in "/\\" or not c.isprintable() for c in name) or name.startswith("."):
            raise OptionError(
                "systems",
                "systems whose names can name a file (no '/', '\\' or control character, "
                "no leading '.')",
                name,
            )
        if any(c.isspace() for c in name):  # it is its run's tag: one field of a TREC line
            raise OptionError(
                "systems",
                "systems whose names are one word (no blank: a name is its run's tag)",
                name,
            )
        if len(name.encode("utf-8")) > NAME_MAX_BYTES:
            raise OptionError(
                "systems", f"systems whose names are at most {NAME_MAX_BYTES} bytes long", name
            )
        if name in owner.values():
            raise OptionError("systems", "systems with distinct names", name)
        files = {_as_one_file(p): p for p in SystemFiles.of(Path(), name).paths()}
        for key, path in files.items():
            other = owner.get(key)
            if other is not None:
                same = _as_one_file(Path(other)) == _as_one_file(Path(name))
                raise OptionError(
                    "systems",
                    "systems whose files in the work directory differ",
                    [other, name],
                    note=f"Both would write {path.as_posix()}"
                    + (" (file names may ignore case)." if same else "."),
                )
        owner.update(dict.fromkeys(files, name))


def _holder(fd: int) -> str:
    """Who holds the lock, as its holder wrote it in the lock file."""
    try:
        data = json.loads(os.pread(fd, 4096, 0))
        return f"pid {int(data['pid'])} on {data['host']}, started {data['started']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "pid unknown"


@contextlib.contextmanager
def locked(workdir: Path) -> Iterator[None]:
    """Create ``workdir`` if need be and hold its lock for the block.

    The lock is an exclusive ``flock`` on ``WORKDIR/.cranfield-lab.lock``, taken without
    waiting: a run a second process starts on the same directory fails at once. The file stays
    (removing it would let two later runs lock two different files); it names the holder (pid,
    host, start), and is emptied when the holder is done.

    Raises
    ------
    cranfield.errors.WorkdirInUseError
        Another process holds the lock.
    OSError
        The directory or the lock file cannot be created, or the file system cannot lock
        (``cannot lock PATH: REASON``).
    """
    with writing(workdir, "create the work directory"):
        workdir.mkdir(parents=True, exist_ok=True)
    if sys.platform == "win32":  # pragma: no cover - no flock: runs are not kept apart
        yield
        return
    path = workdir / LOCK_FILE
    with writing(path, "open the lock file"):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            who = _holder(fd)
            message = f"{workdir} is in use by another cranfield lab run ({who}); wait or use"
            raise WorkdirInUseError(
                f"{message} another workdir.", command_line=f"{message} another --workdir."
            ) from None
        except OSError as exc:
            raise OSError(exc.errno, f"cannot lock {path}: {exc.strerror or exc}") from exc
        me = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        with writing(path):
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(me) + "\n").encode(), 0)
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
    finally:
        os.close(fd)
