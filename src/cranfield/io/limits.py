"""The limits on what a reader holds in memory: their values, how to raise them, their checks.

Two limits bound the memory a text input can take, whatever it holds:

* **The longest line**: a line of a text input (qrels, run, preferences, intents) is at most
  :data:`MAX_LINE_BYTES` bytes, 1 MiB by default (a TREC line is a few dozen bytes), without
  its line end. A longer line is an :class:`~cranfield.errors.InputError` naming its line
  number, found in time linear in the size of the text, before the line is split into
  fields; so is a source without a line end (``/dev/zero``) as soon as it has given that
  many bytes.
* **The most text read whole**: without ``--stream``, a reader holds the whole text in
  memory. When its size is not known before it is read, that is a compressed file (whose
  text may be a hundred thousand times its size: a bomb), standard input or a pipe, the
  text is at most :data:`MAX_TEXT_BYTES` bytes, 2 GiB by default (far above any real
  qrels file, and several times the text of a run of MS MARCO's 7,000 queries); beyond it
  reading stops with an :class:`~cranfield.errors.InputError` that says to stream the run
  (``--stream``) or to raise the limit. A plain regular file is not limited: its size is
  known before it is read (it is what ``ls -l`` shows, chosen by whoever gave it), so
  reading it cannot take anyone by surprise, and a large run is read block by block anyway.
  Streamed, a run is held two blocks at a time and needs no such limit.

Each limit is raised (or lowered) by an environment variable, which reaches the command line
and the Python API alike and is read every time a source is opened:
``CRANFIELD_MAX_LINE_BYTES`` and ``CRANFIELD_MAX_TEXT_BYTES``. Their value is a number of
bytes, with or without a binary unit (K, M, G, T; ``KiB`` and ``KB`` both mean 1024):
``8388608``, ``8MiB``, ``8M``, ``16GiB``. A value that is not such a number is an
:class:`~cranfield.errors.OptionError` naming the variable.

Examples
--------
>>> first_long_line(b"q1 Q0 d 1 1.0 t\\n" + b"x" * 40 + b"\\nq2\\n", 30)
16
>>> first_long_line(b"short\\nlines\\n", 30) is None
True
"""

from __future__ import annotations

import contextlib
import os
import re
from typing import TYPE_CHECKING, Final

from cranfield.errors import InputError, OptionError

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "LINE_BYTES_VARIABLE",
    "MAX_LINE_BYTES",
    "MAX_TEXT_BYTES",
    "TEXT_BYTES_VARIABLE",
    "LineLengths",
    "first_long_line",
    "in_memory",
    "line_too_long",
    "max_line_bytes",
    "max_text_bytes",
    "size_in_words",
    "text_too_large",
]

MAX_LINE_BYTES: Final = 1 << 20
"""The default longest line, in bytes (1 MiB)."""

MAX_TEXT_BYTES: Final = 2 << 30
"""The default most text read whole from a source of unknown size, in bytes (2 GiB)."""

LINE_BYTES_VARIABLE: Final = "CRANFIELD_MAX_LINE_BYTES"
"""The environment variable that overrides :data:`MAX_LINE_BYTES`."""

TEXT_BYTES_VARIABLE: Final = "CRANFIELD_MAX_TEXT_BYTES"
"""The environment variable that overrides :data:`MAX_TEXT_BYTES`."""

_UNITS: Final = {"": 0, "k": 10, "m": 20, "g": 30, "t": 40}
# Compiled when a variable is set (re keeps it), not by every command.
_SIZE = r"\s*([0-9]+)\s*(?:([kmgt])(?:i?b)?|b)?\s*"


def max_line_bytes() -> int:
    """The longest line a reader accepts, in bytes: ``CRANFIELD_MAX_LINE_BYTES`` if set,
    else :data:`MAX_LINE_BYTES`.

    Raises
    ------
    OptionError
        If the variable is set to something that is not a number of bytes >= 1.
    """
    return _setting(LINE_BYTES_VARIABLE, MAX_LINE_BYTES)


def max_text_bytes() -> int:
    """The most text read whole from a compressed file, standard input or a pipe, in bytes:
    ``CRANFIELD_MAX_TEXT_BYTES`` if set, else :data:`MAX_TEXT_BYTES`.

    Raises
    ------
    OptionError
        If the variable is set to something that is not a number of bytes >= 1.
    """
    return _setting(TEXT_BYTES_VARIABLE, MAX_TEXT_BYTES)


def _setting(variable: str, default: int) -> int:
    value = os.environ.get(variable)
    if value is None or not value.strip():
        return default
    match = re.fullmatch(_SIZE, value, re.IGNORECASE)
    size = 0 if match is None else int(match[1]) << _UNITS[(match[2] or "").lower()]
    if size < 1:
        raise _EnvironmentError(
            variable,
            "a number of bytes >= 1, with or without a unit (such as 1048576, 64KiB or 8MiB)",
            value,
        )
    return size


class _EnvironmentError(OptionError):
    """A limit set in the environment to a value it cannot take: named as the variable it
    is, in Python and on the command line alike (no flag sets it)."""

    def worded(self, label: str, *, expected: str | None = None) -> str:
        what = self.expected if expected is None else expected
        return f"The environment variable {self.option} must be {what}, got {self.value!r}."

    def for_command_line(self, flag: str | None = None) -> str:
        return str(self)


def size_in_words(size: int) -> str:
    """A number of bytes as a person reads it: ``1 MiB``, ``4 GiB``, and the exact number
    of bytes where the unit rounds it.

    Examples
    --------
    >>> size_in_words(1 << 20), size_in_words(3 << 29), size_in_words(1500), size_in_words(5)
    ('1 MiB', '1.5 GiB (1610612736 bytes)', '1.46 KiB (1500 bytes)', '5 bytes')
    """
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
        if size > 1 << shift:
            return f"{size / (1 << shift):.3g} {unit} ({size} bytes)"
    return f"{size} bytes"


def line_too_long(label: str, line: int, limit: int) -> InputError:
    """The error of line ``line`` of ``label``, longer than ``limit`` bytes."""
    return InputError(
        label,
        line,
        f"is longer than {size_in_words(limit)}, the longest line cranfield reads (raise "
        f"the limit with the environment variable {LINE_BYTES_VARIABLE})",
    )


def text_too_large(label: str, limit: int, *, compressed: bool) -> InputError:
    """The error of a source whose text, read whole, would be more than ``limit`` bytes."""
    what = "decompresses to" if compressed else "holds"
    return InputError(
        label,
        None,
        f"{what} more than {size_in_words(limit)} of text, the most cranfield reads whole "
        f"into memory from a compressed file, standard input or a pipe; evaluate a run "
        f"with --stream (evaluate_stream in Python), or raise the limit with the "
        f"environment variable {TEXT_BYTES_VARIABLE}",
    )


@contextlib.contextmanager
def in_memory(label: str) -> Iterator[None]:
    """Reading ``label`` inside: running out of memory is an
    :class:`~cranfield.errors.InputError` naming it, not a traceback."""
    try:
        yield
    except MemoryError:
        raise InputError(
            label,
            None,
            "does not fit in memory; evaluate a run with --stream (evaluate_stream in Python)",
        ) from None


def first_long_line(data: bytes, limit: int, start: int = 0, end: int | None = None) -> int | None:
    """The offset of the first line of ``data[start:end]`` longer than ``limit`` bytes
    (line ends not counted), or ``None``; ``start`` must be where a line starts.

    Linear in the size of the text, and usually much less: each window of ``limit // 2 + 1``
    bytes is searched for a line end only until the first one is found (a line of
    ``limit + 1`` bytes or more holds a whole window), and only a window without one is
    looked at more closely.
    """
    stop = len(data) if end is None else end
    window = limit // 2 + 1
    at = start
    while at + window <= stop:
        if data.find(b"\n", at, at + window) >= 0:
            at += window
            continue
        begins = max(data.rfind(b"\n", start, at) + 1, start)
        ends = data.find(b"\n", at + window, stop)
        ends = stop if ends < 0 else ends
        if ends - begins > limit:
            return begins
        at = ends + 1
    return None


class LineLengths:
    """Checks that no line is longer than ``limit`` bytes, over a text given piece by piece.

    :meth:`feed` takes each next piece and returns where the first line found too long
    starts, as an offset in the whole text (the caller counts the line ends before it to
    name the line); a line that is still going on counts as soon as it is too long.

    Examples
    --------
    >>> lines = LineLengths(8)
    >>> lines.feed(b"q1 Q0\\nabcde"), lines.feed(b"fgh\\n"), lines.feed(b"i")
    (None, None, None)
    >>> lines.feed(b"jklmnopq")
    15
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._size = 0  # bytes fed so far
        self._line = 0  # offset of the line going on at the end of them

    def feed(self, piece: bytes) -> int | None:
        """The offset of the first line too long, given the text's next ``piece``; or
        ``None``."""
        first = piece.find(b"\n")
        if first >= 0 and self._size + first - self._line > self.limit:
            return self._line
        if first >= 0:
            last = piece.rfind(b"\n")
            inner = first_long_line(piece, self.limit, first + 1, last)
            if inner is not None:
                return self._size + inner
            self._line = self._size + last + 1
        self._size += len(piece)
        return self._line if self._size - self._line > self.limit else None
