"""The one file opener: the text of a path or of ``-`` (standard input), compressed or not.

Every reader of :mod:`cranfield.io` gets its bytes here, whole (:func:`read_bytes`) or as a
stream read piece by piece (:func:`open_source`, for :func:`cranfield.evaluate_stream`), with
the same rules both ways:

* Compression is recognised by the first bytes, never by the file's name: gzip, bzip2, xz,
  or zstd (with the optional ``zstandard`` package, ``pip install '.[zstd]'``).
* The source is opened once and read once: the first bytes are kept, not probed by a
  second open, so a pipe (``-``, ``<(zcat run.gz)``, a named pipe) loses nothing.
* A compressed file must decompress completely: a truncated or corrupt stream, or bytes
  after the last stream that are not another stream, are an
  :class:`~cranfield.errors.InputError` (concatenated streams, as written by
  ``cat a.gz b.gz``, are read in full; zero bytes of padding between gzip members or xz
  streams are allowed).
* A source that cannot be opened or read (missing, a folder, a loop of symbolic links, no
  standard input) is an :class:`~cranfield.errors.InputError` naming it.
* Memory stays bounded (:mod:`cranfield.io.limits`): a compressed stream is decompressed a
  bounded piece at a time, whole or streamed; read whole, a line longer than the longest
  line allowed is an error naming it, and so is text beyond the most read whole from a
  source whose size is not known up front (a compressed file, standard input, a pipe),
  found as the text comes, before it is all in memory.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import stat
import sys
from collections import deque
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Final, Protocol, cast

from cranfield._lazy import install_hint
from cranfield.errors import InputError
from cranfield.io.limits import (
    LineLengths,
    first_long_line,
    in_memory,
    line_too_long,
    max_line_bytes,
    max_text_bytes,
    text_too_large,
)

if TYPE_CHECKING:
    import bz2
    import zlib
    from collections.abc import Callable, Iterator
    from concurrent.futures import Future, ThreadPoolExecutor

    Comments = Callable[[bytes], bool]
    """Told the first :data:`COMMENT_HEAD` bytes of a text, whether its comment lines may be
    kept short (the text is in a format whose comment lines are skipped: TREC, MS MARCO)."""

    from _typeshed import WriteableBuffer

__all__ = [
    "MAGIC_BYTES",
    "Digest",
    "compression",
    "decompressed",
    "digest_of",
    "digests_unread",
    "is_parquet",
    "open_source",
    "read_bytes",
    "read_head",
    "regular_file",
    "same_file",
    "short_lines",
    "source_name",
    "source_path",
]

# bzip2: "BZh", the block size digit, then the magic of a first block (pi) or of an empty
# stream's end (sqrt(pi)); the three letters alone could start a plain text file.
_BZ2 = re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)")
_GZIP = b"\x1f\x8b"
_MAGIC = {
    _GZIP: "gzip",
    b"\xfd7zXZ\x00": "xz",
    b"\x28\xb5\x2f\xfd": "zstd",
}
MAGIC_BYTES = 16
"""How many first bytes :func:`compression` needs to recognise every format (bzip2: 10)."""
_CHUNK = 1 << 20  # compressed bytes decompressed at a time by open_source
_PIECE = 1 << 20  # the most text one step of a decompressor makes (a bomb's ratio is 1:10^5)
_FEED = 1 << 16  # compressed bytes given to a decompressor at a time
_AHEAD = 16 << 20  # the most text decompressed ahead by open_source (see _Decoded)
# zstandard's decompressor has no bound on the text of one step: it is given this much at a
# time (a block of 128 KiB of text takes 4 bytes, so one step makes at most 128 MiB).
_ZSTD_FEED = 1 << 12


def source_name(source: str | Path) -> str:
    """How a source is named in messages: its path, or ``<stdin>`` for ``-``."""
    return "<stdin>" if str(source) == "-" else str(source)


def source_path(source: object) -> str | None:
    """The path of an input given as a file (``"-"`` for standard input), else ``None``
    (an object in memory): how provenance names it (:mod:`cranfield.evaluation.provenance`)."""
    if isinstance(source, (str, Path)):
        return str(source)
    return None


def names_a_file(source: object) -> bool:
    """Whether ``source`` is the path of an existing regular file (one ``stat``): then it is
    neither standard input, a folder of runs, a glob nor a Parquet dataset, and the modules
    that tell those apart need not be imported."""
    return isinstance(source, (str, Path)) and str(source) != "-" and os.path.isfile(source)


# ---------------------------------------------------------------------- digests

_DIGESTS: dict[tuple[object, ...], str | Future[str]] = {}
_MOST_DIGESTS = 100_000  # more files than one command reads: the oldest are forgotten


def _identity(path: str | Path, info: os.stat_result) -> tuple[object, ...]:
    """What names one version of a file: a regular file by its path, device, inode, size and
    times (any change is another version); a pipe or device by its path, device and inode."""
    where = os.path.abspath(path)
    if stat.S_ISREG(info.st_mode):
        return (where, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    return (where, info.st_dev, info.st_ino)


class Digest:
    """The SHA-256 of a source's bytes (as stored: a compressed file's compressed bytes),
    computed from the bytes a reader reads, as it reads them: never by opening the source
    again, so that a pipe (``<(zcat run.gz)``, a named pipe) is hashed too.

    Once every byte was read (:meth:`done`) the digest is remembered for the file's version
    (:func:`digest_of` finds it by the file's identity, without opening it); a reader that
    stops early (a fast path that hands over to a careful one) leaves nothing behind.
    Standard input is hashed but not remembered (it has no name to find it by).

    Bytes that stay as they are (a whole file's buffer, a block) can be hashed on a helper
    thread while the reader parses them (:meth:`update_later`; hashlib lets go of the GIL):
    on two cores the hash then costs a reader no wall time. :attr:`hexdigest` and
    :func:`digest_of` wait for it.
    """

    def __init__(self) -> None:
        # Made where no one will read a digest (see digests_unread): every call does nothing.
        self._wanted = _DIGESTS_WANTED.get()
        self._hash: _Hash = _new_hash() if self._wanted else _NO_HASH
        self._identity: tuple[object, ...] | None = None
        self._pending: Future[str] | None = None  # the last work given to the helper thread
        self._hexdigest: str | None = None

    @property
    def hexdigest(self) -> str | None:
        """The digest once every byte was read (:meth:`done`), else ``None``."""
        if self._pending is not None:
            self._pending.result()
        return self._hexdigest

    def opened(self, path: str | Path, info: os.stat_result) -> None:
        """The source being read is the file ``path`` with the status ``info`` (``fstat`` of
        the open file)."""
        self._identity = _identity(path, info)

    def update(self, data: bytes | memoryview) -> None:
        """The next bytes read (hashed now: the caller may reuse their buffer)."""
        if self._wanted:
            self._wait()
            self._hash.update(data)

    def update_later(self, data: bytes | memoryview) -> None:
        """The next bytes read, hashed on the helper thread: ``data`` must not change."""
        if self._wanted:
            self._pending = _hasher().submit(self._feed, data)

    def _feed(self, data: bytes | memoryview) -> str:
        self._hash.update(data)
        return ""

    def _wait(self) -> None:
        if self._pending is not None:
            self._pending.result()
            self._pending = None

    def restart(self) -> None:
        """Forget the bytes hashed so far (the source is read again from its start)."""
        self._wait()
        if self._wanted:
            self._hash = _new_hash()

    def done(self) -> None:
        """Every byte was read: the digest is remembered for the file's version."""
        if not self._wanted:
            return
        if self._pending is None:
            self._finish()
            return
        finished = _hasher().submit(self._finish)  # after the bytes given before it
        self._pending = finished
        if self._identity is not None:
            _remember(self._identity, finished)

    def _finish(self) -> str:
        self._hexdigest = self._hash.hexdigest()
        if self._identity is not None:
            _remember(self._identity, self._hexdigest)
        return self._hexdigest


class _Hash(Protocol):
    def update(self, data: bytes | memoryview, /) -> None: ...
    def hexdigest(self) -> str: ...


def _new_hash() -> _Hash:
    import hashlib  # only when a source is hashed: the start-up of other commands spared it

    return hashlib.sha256()


class _NoHash:
    """The hash of a digest nobody reads: never fed (:meth:`Digest.update` checks first)."""

    def update(self, data: bytes | memoryview, /) -> None:
        raise AssertionError("a digest nobody reads was fed")

    def hexdigest(self) -> str:
        raise AssertionError("a digest nobody reads was asked for")


_NO_HASH: Final = _NoHash()
_DIGESTS_WANTED: ContextVar[bool] = ContextVar("cranfield_digests_wanted", default=True)


@contextlib.contextmanager
def digests_unread() -> Iterator[None]:
    """The sources opened inside are not hashed: for a command whose output shows no
    provenance and keeps no store (``cranfield evaluate`` printing a table), which spares a
    large run's hash (about 0.17 s of CPU for 235 MB). Their :class:`Digest` then gives no
    digest, and :func:`digest_of` knows none of them; provenance asked for later hashes a
    regular file itself."""
    token = _DIGESTS_WANTED.set(False)
    try:
        yield
    finally:
        _DIGESTS_WANTED.reset(token)


_HASHER: list[ThreadPoolExecutor] = []


def _hasher() -> ThreadPoolExecutor:
    """The one helper thread that hashes (in the order the bytes were given)."""
    if not _HASHER:
        from concurrent.futures import ThreadPoolExecutor  # only a command that hashes

        _HASHER.append(ThreadPoolExecutor(1, thread_name_prefix="cranfield-sha256"))
    return _HASHER[0]


def _remember(identity: tuple[object, ...], digest: str | Future[str]) -> None:
    if identity not in _DIGESTS and len(_DIGESTS) >= _MOST_DIGESTS:
        _DIGESTS.pop(next(iter(_DIGESTS)))
    _DIGESTS[identity] = digest


def digest_of(path: str | Path) -> str | None:
    """The SHA-256 of the file ``path`` as a reader of this process read it, if this version
    of the file was read whole (see :class:`Digest`); ``None`` otherwise. Nothing is opened:
    a named pipe read earlier is found by its device and inode."""
    if str(path) == "-":
        return None
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    found = _DIGESTS.get(_identity(path, info))
    return found if found is None or isinstance(found, str) else found.result()


class _Hashed:
    """A binary source whose bytes are hashed into a :class:`Digest` as they are read."""

    def __init__(self, raw: _Binary, digest: Digest) -> None:
        self._raw = raw
        self._digest = digest

    def read(self, size: int = -1, /) -> bytes:
        data = self._raw.read(size)
        self._digest.update(data)
        return data

    def readinto(self, buffer: WriteableBuffer, /) -> int | None:
        got = self._raw.readinto(buffer)
        if got:
            self._digest.update(memoryview(buffer).cast("B")[:got])
        return got


def is_parquet(path: str | Path) -> bool:
    """Whether a path names a Parquet file (by its suffix, ``.parquet`` or ``.pq``); every
    other path is read as text."""
    return str(path).endswith((".parquet", ".pq"))


def regular_file(source: str | Path) -> bool:
    """Whether ``source`` is a regular file (not ``-``, a pipe, a device or a folder), whose
    first bytes can be looked at and then read again."""
    if str(source) == "-":
        return False
    try:
        return stat.S_ISREG(os.stat(source).st_mode)
    except (OSError, ValueError):
        return False


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths are the same file (or, for paths that do not exist, the same path)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return os.path.abspath(a) == os.path.abspath(b)


def compression(head: bytes) -> str | None:
    """``"gzip"``, ``"bz2"``, ``"xz"`` or ``"zstd"`` if ``head`` starts like one, else None."""
    for magic, kind in _MAGIC.items():
        if head.startswith(magic):
            return kind
    if _BZ2.match(head):
        return "bz2"
    return None


def read_bytes(
    source: str | Path,
    *,
    lines: bool | None = True,
    digest: Digest | None = None,
    comments: Comments | None = None,
) -> bytes:
    """All bytes of ``source`` (a path, or ``-`` for standard input), decompressed if they
    are gzip, bzip2, xz or zstd.

    ``lines=False`` reads a document that is not made of lines (JSON, often one line
    however large): no line-length limit then, the limit on the text read whole still holds.
    ``lines=None`` decides by the first byte that is not a blank: ``{`` or ``[`` starts a
    JSON document, anything else lines (so a source without line ends, like ``/dev/zero``,
    is still stopped after the longest line).

    ``digest``: the bytes read (as stored, before decompression) are hashed into it as they
    come, and it remembers the source's SHA-256 once they are all read (:class:`Digest`).

    ``comments``: told the head of a text whose size was not known (compressed, a pipe), says
    whether its comment lines may be kept short (:class:`_CommentLines`).

    Raises
    ------
    InputError
        If the source cannot be read, is compressed and does not decompress completely, has
        a line longer than :func:`~cranfield.io.limits.max_line_bytes`, or is of unknown
        size (compressed, standard input, a pipe) and holds more text than
        :func:`~cranfield.io.limits.max_text_bytes`.
    """
    name = source_name(source)
    try:
        with in_memory(name), contextlib.ExitStack() as stack:
            if str(source) == "-":
                raw: _Binary = _stdin()
                regular = False
            else:
                handle = stack.enter_context(open(source, "rb"))
                info = os.fstat(handle.fileno())
                regular = stat.S_ISREG(info.st_mode)
                raw = handle
                if digest is not None:
                    digest.opened(source, info)
            if digest is not None:
                raw = _Hashed(raw, digest)
            if regular:  # its size is known: read whole at once
                text = decompressed(raw.read(), name, lines=lines, comments=comments)
            else:
                text = _unsized(raw, name, lines=lines, comments=comments)
            if digest is not None:
                digest.done()
            return text
    except OSError as exc:
        raise _unreadable(name, exc) from exc


def read_head(path: str | Path, size: int) -> tuple[bytes, bool]:
    """The first ``size`` bytes of the text of the regular file ``path`` (decompressed if
    it is gzip, bzip2, xz or zstd), and whether they are the whole text.

    Only as much of a compressed file is read and decompressed as those bytes take, so a
    look at the head of a large compressed file costs about what it holds. A file that is not
    regular (a pipe) would lose what is read here: read it whole with :func:`read_bytes`.

    Raises
    ------
    InputError
        If the file cannot be read, or its compressed head is not a valid stream.
    """
    name = source_name(path)
    try:
        with open(path, "rb") as raw:
            head = _read(raw, MAGIC_BYTES, name)
            kind = compression(head)
            if kind is None:
                text = head + _read(raw, size + 1 - len(head), name)
                return text[:size], len(text) <= size
            streams = _Streams(kind, name)
            gathered = bytearray()
            data = head
            while data:
                for piece in streams.pieces(data):
                    gathered += piece
                    if len(gathered) > size:
                        return bytes(gathered[:size]), False
                data = _read(raw, _FEED, name)
            streams.finish()
            return bytes(gathered), True
    except OSError as exc:
        raise _unreadable(name, exc) from exc


def decompressed(
    raw: bytes,
    name: str,
    *,
    limit: int | None = None,
    lines: bool | None = True,
    comments: Comments | None = None,
) -> bytes:
    """``raw`` decompressed if it starts like a gzip, bzip2, xz or zstd stream, else itself;
    ``name`` names the source in the :class:`~cranfield.errors.InputError` of a bad stream.

    The text is checked as it comes: a line longer than
    :func:`~cranfield.io.limits.max_line_bytes` is an error naming it, and so is text beyond
    ``limit`` bytes (default :func:`~cranfield.io.limits.max_text_bytes`) once decompressed;
    ``lines=False``: no line is too long; ``None``: unless it starts as JSON (see
    :func:`read_bytes`). ``comments``: see :func:`read_bytes`.
    """
    kind = compression(raw)
    if kind is None:
        return raw if _json_document(raw, lines) else short_lines(raw, name)
    text = _Gathered(
        name, limit or max_text_bytes(), compressed=True, lines=lines, comments=comments
    )
    streams = _Streams(kind, name)
    for piece in streams.pieces(raw):
        text.add(piece)
    streams.finish()
    return text.value()


def _unsized(
    raw: _Binary, name: str, *, lines: bool | None = True, comments: Comments | None = None
) -> bytes:
    """The whole text of a source whose size is not known before it is read (standard
    input, a pipe, a device), read a piece at a time up to the most text allowed."""
    head = _read(raw, MAGIC_BYTES, name)
    kind = compression(head)
    streams = None if kind is None else _Streams(kind, name)
    decoded = _Decoded(raw, head, streams, name)
    text = _Gathered(
        name, max_text_bytes(), compressed=kind is not None, lines=lines, comments=comments
    )
    while piece := decoded.read(_CHUNK):
        text.add(piece)
    return text.value()


COMMENT_HEAD: Final = 1 << 16
"""How much text decides whether comment lines are kept short (the formats' detection's)."""


class _CommentLines:
    """Text whose comment lines (the first byte that is not a blank is ``#``) are kept as
    ``#`` alone (a comment still), piece by piece: a line of text for each line read, so every line keeps its
    number, but a compressed file of comments (a decompression bomb) is held in a byte or two
    a line, not in its decompressed size."""

    _COMMENT: Final = re.compile(rb"(?m)^[ \t]*#[^\n]*")

    def __init__(self) -> None:
        self._inside = False  # within a comment line already cut short
        self._data_line = False  # within a line that is not a comment
        self._pending = b""  # the start of a line that may yet be a comment (blanks only)

    def feed(self, piece: bytes) -> bytes:
        data = self._pending + piece
        self._pending = b""
        kept = b""
        if self._inside or self._data_line:
            end = data.find(b"\n")
            if end < 0:
                return b"" if self._inside else data
            kept = b"\n" if self._inside else data[: end + 1]
            self._inside = self._data_line = False
            data = data[end + 1 :]
        last = data.rfind(b"\n") + 1
        whole, tail = data[:last], data[last:]
        kept += self._COMMENT.sub(b"#", whole)
        start = tail.lstrip(b" \t")
        if start.startswith(b"#"):
            self._inside = True
            return kept + b"#"
        if not start:
            self._pending = tail
            return kept
        self._data_line = True
        return kept + tail

    def end(self) -> bytes:
        return self._pending


class _Gathered:
    """The text of a source gathered piece by piece, its lines and size checked as it comes
    (:mod:`cranfield.io.limits`); with ``comments``, comment lines kept short once the head
    says they may be (:class:`_CommentLines`)."""

    def __init__(
        self,
        name: str,
        limit: int,
        *,
        compressed: bool,
        lines: bool | None = True,
        comments: Comments | None = None,
    ) -> None:
        self._name = name
        self._limit = limit
        self._compressed = compressed
        self._undecided = lines is None  # lines unless the text starts as a JSON document
        self._lines = None if lines is False else LineLengths(max_line_bytes())
        # A BytesIO grows in place and hands its buffer over without a copy: the text is
        # held about once, not twice as by joining a list of pieces.
        self._text = io.BytesIO()
        self._read = 0  # bytes of text read (before comment lines are cut short)
        self._newlines = 0  # line ends among them
        self._comments = comments
        self._short: _CommentLines | None = None

    def add(self, piece: bytes) -> None:
        """Add the next piece of the text."""
        if self._read + len(piece) > self._limit:
            raise text_too_large(self._name, self._limit, compressed=self._compressed)
        if self._undecided and self._lines is not None:
            start = _first_byte(self._text.getvalue() + piece)
            if start or self._read + len(piece) > self._lines.limit:
                self._undecided = False
                if start in _JSON_OPENERS:
                    self._lines = None
        long_line = None if self._lines is None else self._lines.feed(piece)
        if long_line is not None:
            inside = max(0, long_line - self._read)
            number = self._newlines + piece.count(b"\n", 0, inside) + 1
            raise line_too_long(self._name, number, self._lines.limit)  # type: ignore[union-attr]
        self._read += len(piece)
        self._newlines += piece.count(b"\n")
        if self._short is not None:
            self._text.write(self._short.feed(piece))
            return
        self._text.write(piece)
        if self._comments is not None and self._read >= COMMENT_HEAD:
            self._decide()

    def _decide(self) -> None:
        """Whether comment lines are kept short from now on (the head so far too)."""
        comments, self._comments = self._comments, None
        if comments is not None and comments(self._text.getvalue()[:COMMENT_HEAD]):
            self._short = _CommentLines()
            head = self._text.getvalue()
            self._text = io.BytesIO()
            self._text.write(self._short.feed(head))

    def value(self) -> bytes:
        """The text gathered so far."""
        if self._short is not None:
            self._text.write(self._short.end())
            self._short = None
        return self._text.getvalue()


_BLANKS_AT_START: Final = re.compile(rb"[ \t\r\n\f\v]*")
_JSON_OPENERS: Final = (b"{", b"[")


def _first_byte(text: bytes) -> bytes:
    """The first byte of ``text`` that is not a blank (empty if there is none)."""
    end = cast("re.Match[bytes]", _BLANKS_AT_START.match(text)).end()  # it always matches
    return text[end : end + 1]


def _json_document(text: bytes, lines: bool | None) -> bool:
    """Whether ``text`` is read without a line-length limit: ``lines`` is False, or None
    and the first byte that is not a blank opens a JSON object or array."""
    if lines is None:
        return _first_byte(text) in _JSON_OPENERS
    return not lines


def short_lines(text: bytes, name: str) -> bytes:
    """``text``, checked for a line longer than the longest allowed (an
    :class:`~cranfield.errors.InputError` naming it)."""
    longest = max_line_bytes()
    long_line = first_long_line(text, longest)
    if long_line is not None:
        raise line_too_long(name, text.count(b"\n", 0, long_line) + 1, longest)
    return text


@contextlib.contextmanager
def open_source(source: str | Path, *, digest: Digest | None = None) -> Iterator[BinaryIO]:
    """``source`` (a path, or ``-`` for standard input) as a binary stream of its text,
    decompressed on the fly (see the module notes).

    The stream raises :class:`~cranfield.errors.InputError` where the source cannot be
    read or a compressed stream turns out truncated, corrupt or followed by garbage, which
    may be after much of the text was read. Standard input is not closed at the end.

    Examples
    --------
    >>> import gzip, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_bytes(gzip.compress(b"q1 Q0 a 1 2.0 t\\n"))
    >>> with open_source(path) as text:
    ...     text.readline()
    b'q1 Q0 a 1 2.0 t\\n'
    """
    name = source_name(source)
    with contextlib.ExitStack() as stack:
        try:
            if str(source) == "-":
                raw: _Binary = _stdin()
            else:
                handle = stack.enter_context(open(source, "rb"))
                raw = handle
                if digest is not None:
                    digest.opened(source, os.fstat(handle.fileno()))
        except OSError as exc:
            raise _unreadable(name, exc) from exc
        if digest is not None:
            raw = _Hashed(raw, digest)
        head = _read(raw, MAGIC_BYTES, name)
        kind = compression(head)
        streams = None if kind is None else _Streams(kind, name)
        text = io.BufferedReader(_Decoded(raw, head, streams, name), buffer_size=_CHUNK)
        yield stack.enter_context(text)  # closing it leaves standard input open
        if digest is not None and not text.read(1):  # read to its end: every byte hashed
            digest.done()


def _unreadable(name: str, exc: OSError) -> InputError:
    return InputError(name, None, f"cannot read file ({exc.strerror or exc})")


def _stdin() -> _Binary:
    """Standard input as a binary stream; a text-only one (a notebook's, a test double) is
    read and encoded."""
    stream = sys.stdin
    if stream is None:
        raise OSError("there is no standard input")
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        return cast("_Binary", buffer)
    return io.BytesIO(str(stream.read()).encode("utf-8"))


def _read(raw: _Binary, size: int, name: str) -> bytes:
    """Up to ``size`` bytes of ``raw`` (fewer only at its end)."""
    try:
        return raw.read(size)
    except OSError as exc:
        raise _unreadable(name, exc) from exc


class _Binary(Protocol):
    """An open binary file, standard input's buffer or a BytesIO."""

    def read(self, size: int = -1, /) -> bytes: ...

    def readinto(self, buffer: WriteableBuffer, /) -> int | None: ...


class _Decoded(io.RawIOBase):
    """The text of an open source: its first bytes (already read), then the rest, through
    the decompressor of its format if it has one.

    The text of each compressed chunk read is decompressed ahead, up to :data:`_AHEAD`
    bytes, before any of it is handed out: a stream found corrupt in that chunk is an error
    before its garbage is read as text (as when the source is read whole), while the text
    held stays bounded whatever the compression ratio.
    """

    def __init__(self, raw: _Binary, head: bytes, streams: _Streams | None, name: str) -> None:
        super().__init__()
        self._raw = raw
        self._streams = streams
        self._name = name
        self._out = head  # text being handed out
        self._pos = 0
        self._ended = False
        self._pieces: Iterator[bytes] = iter(())  # the text of the compressed chunk read
        self._ready: deque[bytes] = deque()  # of which decompressed ahead
        if streams is not None:
            self._out = b""
            self._pieces = streams.pieces(head)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int | None:
        view = memoryview(buffer).cast("B")
        while self._pos >= len(self._out):
            if self._ended:
                return 0
            if self._streams is None:  # plain text: straight into the caller's buffer
                self._out = b""
                try:
                    got = self._raw.readinto(view)
                except OSError as exc:
                    raise _unreadable(self._name, exc) from exc
                self._ended = got == 0
                return got
            self._pos = 0
            self._out = b""
            if not self._ready:
                self._ahead()
            if self._ready:
                self._out = self._ready.popleft()
                continue
            chunk = _read(self._raw, _CHUNK, self._name)
            if chunk:
                self._pieces = self._streams.pieces(chunk)
            else:
                self._ended = True
                self._streams.finish()
        n = min(len(view), len(self._out) - self._pos)
        view[:n] = memoryview(self._out)[self._pos : self._pos + n]
        self._pos += n
        return n

    def _ahead(self) -> None:
        """Decompress the next pieces of the chunk read, up to :data:`_AHEAD` bytes."""
        held = 0
        while held < _AHEAD and (piece := next(self._pieces, None)) is not None:
            self._ready.append(piece)
            held += len(piece)


class _Decompressor(Protocol):
    """One stream's decompressor: zlib's, bz2's, lzma's (which take a bound on the text of a
    step) or zstandard's (which does not)."""

    @property
    def eof(self) -> bool: ...

    @property
    def unused_data(self) -> bytes: ...

    def decompress(self, data: bytes, max_length: int = ..., /) -> bytes: ...


# What a stream that stops short is told: gzip's own words, and ours for the others.
_ENDED_EARLY = {
    "gzip": "Compressed file ended before the end-of-stream marker was reached",
    "bz2": "compressed data ended before the end-of-stream marker",
    "xz": "compressed data ended before the end-of-stream marker",
    "zstd": "compressed data ended before the end-of-stream marker",
}


class _Streams:
    """The concatenated streams of one format, decompressed piece by piece as the
    compressed bytes come: every stream must end, and whatever follows one must start
    another (after zero bytes of padding, for gzip and xz).

    The module-level ``bz2.decompress`` and ``lzma.decompress`` silently drop bytes after
    the last stream, and ``bz2.open``/``lzma.open`` do so after the first; here they are
    an error, in whichever piece they come.
    """

    def __init__(self, kind: str, name: str) -> None:
        self.kind = kind
        self.name = name
        self._new, errors = _decompressors(kind, name)
        self._errors: tuple[type[Exception], ...] = (EOFError, *errors)
        self._stream: _Decompressor | None = None
        self._started = False
        self._between = b""  # gzip: the start of what follows a member, not yet 2 bytes

    def pieces(self, data: bytes) -> Iterator[bytes]:
        """The text of the next piece of compressed bytes, in pieces of a bounded size (the
        text of a few compressed bytes can be a hundred thousand times their size).

        The compressed bytes go to the decompressor a slice at a time, so that what a step
        leaves over, and what follows the end of a stream, is never more than a slice.
        """
        feed = _ZSTD_FEED if self.kind == "zstd" else _FEED
        try:
            for start in range(0, len(data), feed):
                left = data[start : start + feed]
                while left:
                    if self._stream is None:
                        left = self._next_stream(left)
                        if not left:
                            break
                    if self._stream is None:
                        self._stream = self._new()
                        self._started = True
                    stream = self._stream
                    yield from _steps(stream, self.kind, left)
                    if not stream.eof:
                        break
                    left = stream.unused_data
                    self._stream = None
        except self._errors as exc:
            raise self._invalid(exc) from exc

    def finish(self) -> None:
        """Check that the compressed bytes ended where a stream does."""
        if self._stream is not None:
            raise self._invalid(EOFError(_ENDED_EARLY[self.kind]))
        if self._between:
            raise self._invalid(OSError(f"Not a gzipped file ({self._between!r})"))

    def _next_stream(self, data: bytes) -> bytes:
        """What is left of ``data`` once the padding before a next stream is skipped (and,
        for gzip, once its magic is checked)."""
        if not self._started:
            return data
        if self.kind in ("gzip", "xz") and not self._between:
            data = data.lstrip(b"\x00")
        if self.kind == "gzip" and data:
            data = self._between + data
            if len(data) < len(_GZIP):
                self._between = data
                return b""
            self._between = b""
            if not data.startswith(_GZIP):
                raise OSError(f"Not a gzipped file ({data[:2]!r})")
        return data

    def _invalid(self, exc: Exception) -> InputError:
        return InputError(self.name, None, f"is not a valid {self.kind} file ({exc})")


def _steps(stream: _Decompressor, kind: str, data: bytes) -> Iterator[bytes]:
    """The text of ``data`` given to one stream's decompressor, step by step, each step's
    text of at most :data:`_PIECE` bytes (zstd: of at most :data:`_ZSTD_FEED` compressed
    bytes); after the stream's end, what follows it is the decompressor's ``unused_data``."""
    if kind == "zstd":
        yield stream.decompress(data)
        return
    text = stream.decompress(data, _PIECE)
    yield text
    if kind == "gzip":  # what is left over waits in unconsumed_tail, or inside zlib
        gzip = cast("zlib._Decompress", stream)
        while not gzip.eof and (gzip.unconsumed_tail or len(text) == _PIECE):
            text = gzip.decompress(gzip.unconsumed_tail, _PIECE)
            yield text
    else:
        bounded = cast("bz2.BZ2Decompressor", stream)
        while not bounded.eof and not bounded.needs_input:
            yield bounded.decompress(b"", _PIECE)


def _decompressors(
    kind: str, name: str
) -> tuple[Callable[[], _Decompressor], tuple[type[Exception], ...]]:
    """A maker of one stream's decompressor, and the errors it raises on bad data."""
    # Imported when a compressed file is met (most inputs are not).
    if kind == "gzip":
        import zlib

        # wbits 31: a gzip member, header and trailer (CRC and length) checked by zlib.
        return lambda: zlib.decompressobj(wbits=31), (OSError, zlib.error)
    if kind == "bz2":
        import bz2

        return bz2.BZ2Decompressor, (OSError, ValueError)
    if kind == "xz":
        import lzma

        return lzma.LZMADecompressor, (lzma.LZMAError,)
    try:
        import zstandard
    except ImportError as exc:
        raise InputError(
            name,
            None,
            f"is zstd-compressed; {install_hint('zstd')}",
        ) from exc
    dctx = zstandard.ZstdDecompressor()
    # Its decompress takes no bound on the text of a step (see _steps).
    return cast("Callable[[], _Decompressor]", dctx.decompressobj), (zstandard.ZstdError,)
