"""Writing an output file whole or not at all: the one way cranfield writes a file.

Every file cranfield writes (runs, qrels, Parquet, reports, figures, pools, the lab's JSON and
caches) is written to a temporary file beside its target, flushed to the disk, and renamed
over the target only once complete. If writing fails (a full disk, an error half-way), the
temporary file is removed and the previous file, if there was one, is left exactly as it
was; a reader never sees half a file. The new file gets the permissions a plain ``open(...,
"w")`` would give it (the umask's), or those of the file it replaces.

:func:`refuse_overwriting` is the guard of the commands whose output is not of the same kind
as their inputs (an HTML report, a figure, a pool): writing it over one of the inputs is a
mistake, refused before anything is computed.

>>> import pathlib, tempfile
>>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
>>> write_text(target, "complete\\n")
>>> target.read_text()
'complete\\n'
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from cranfield.errors import OptionError
from cranfield.io.source import same_file

__all__ = [
    "refuse_overwriting",
    "remove_partial",
    "replacing",
    "write_bytes",
    "write_text",
    "writing",
]

_STEM_BYTES = 200
_PARTIAL: set[Path] = set()  # the temporary files being written now, by every thread


def remove_partial() -> None:
    """Remove every temporary file being written now (a process about to end at once, on
    Ctrl-C, without unwinding: nothing half-written is left behind)."""
    for tmp in list(_PARTIAL):
        with contextlib.suppress(OSError):
            tmp.unlink()


@contextlib.contextmanager
def replacing(target: str | Path) -> Iterator[Path]:
    """A temporary path beside ``target`` to write to; it replaces ``target`` when the block
    ends without an error, and is removed when it raises (an ``OSError`` then names
    ``target``, whose previous content is untouched).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = target.write_text("old\\n")
    >>> try:
    ...     with replacing(target) as tmp:
    ...         _ = tmp.write_text("half")
    ...         raise OSError(28, "No space left on device")
    ... except OSError:
    ...     pass
    >>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
    ('old\\n', ['run.txt'])
    """
    final = Path(target)
    folder = final.parent if str(final.parent) else Path(".")
    # The temporary name adds about 18 bytes to the target's: a name near the file system's
    # limit (255 bytes) is shortened in it, so that any target that can exist can be written.
    stem = os.fsencode(final.name)[:_STEM_BYTES].decode(errors="ignore")
    fd, name = tempfile.mkstemp(prefix=f".{stem}.", suffix=".partial", dir=folder)
    os.close(fd)
    tmp = Path(name)
    _PARTIAL.add(tmp)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp, _mode_for(final))
        os.replace(tmp, final)
        _PARTIAL.discard(tmp)
    except BaseException as exc:
        _PARTIAL.discard(tmp)
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError) and exc.filename in (None, str(tmp)):
            # Name the file asked for (a full disk says nothing of it; polars' errors not even
            # their errno), not the temporary one.
            raise OSError(exc.errno, exc.strerror or str(exc), str(final)) from exc
        raise


def write_text(target: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8, newlines as given) to ``target``, whole or not at all."""
    with replacing(target) as tmp, open(tmp, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)


def write_bytes(target: str | Path, data: bytes) -> None:
    """Write ``data`` to ``target``, whole or not at all."""
    with replacing(target) as tmp:
        tmp.write_bytes(data)


@contextlib.contextmanager
def writing(path: str | Path, doing: str = "write") -> Iterator[None]:
    """Word a failure inside the block as ``cannot write PATH: REASON`` (an ``OSError`` with
    the same ``errno``), naming ``path`` whatever file the operating system named (often the
    temporary one of :func:`replacing`). A broken pipe passes unchanged: it is how a reader
    that stopped early (``| head``) is recognised.

    Examples
    --------
    >>> try:
    ...     with writing("out/report.html"):
    ...         raise OSError(28, "No space left on device", ".report.html.x1.partial")
    ... except OSError as exc:
    ...     print(exc)
    [Errno 28] cannot write out/report.html: No space left on device
    """
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OSError(exc.errno, f"cannot {doing} {path}: {exc.strerror or exc}") from exc


def refuse_overwriting(output: str | Path, inputs: Iterable[object], *, option: str) -> None:
    """Refuse an ``output`` that is one of the ``inputs`` (paths; other inputs are ignored).

    Raises
    ------
    OptionError
        ``The '<option>' option must be a file that is not one of the inputs, got ...``.
    """
    if str(output) == "-":
        return
    for source in inputs:
        if isinstance(source, (str, Path)) and str(source) != "-" and same_file(output, source):
            raise OptionError(option, "a file that is not one of the inputs", str(output))


def _mode_for(final: Path) -> int:
    """The permissions of the file being replaced, or a new file's under the umask."""
    try:
        return stat.S_IMODE(os.stat(final).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask
