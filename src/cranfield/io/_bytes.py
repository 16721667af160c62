"""Getting the bytes of a text file: compression by magic number, ``-`` for stdin.

A compressed file must decompress completely: a truncated or corrupt stream, or bytes after
the last stream that are not another stream, are an :class:`~cranfield.errors.InputError`
(concatenated streams, as written by ``cat a.gz b.gz``, are read in full).
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
import sys
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from cranfield.errors import InputError

if TYPE_CHECKING:
    from collections.abc import Callable

# bzip2: "BZh", the block size digit, then the magic of a first block (pi) or of an empty
# stream's end (sqrt(pi)); the three letters alone could start a plain text file.
_BZ2 = re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)")
_MAGIC = {
    b"\x1f\x8b": "gzip",
    b"\xfd7zXZ\x00": "xz",
    b"\x28\xb5\x2f\xfd": "zstd",
}


class _Decompressor(Protocol):
    @property
    def eof(self) -> bool: ...

    @property
    def unused_data(self) -> bytes: ...

    def decompress(self, data: bytes, /) -> bytes: ...


def source_name(source: str | Path) -> str:
    """How a source is named in messages."""
    return "<stdin>" if str(source) == "-" else str(source)


def compression(raw: bytes) -> str | None:
    """``"gzip"``, ``"bz2"``, ``"xz"`` or ``"zstd"`` if ``raw`` starts like one, else None."""
    for magic, kind in _MAGIC.items():
        if raw.startswith(magic):
            return kind
    if _BZ2.match(raw):
        return "bz2"
    return None


def read_bytes(source: str | Path) -> bytes:
    """All bytes of ``source``, decompressed if it is gzip, bzip2, xz or zstd.

    Compression is recognised by the file's first bytes, not its name. ``-`` reads
    standard input.
    """
    name = source_name(source)
    try:
        raw = _read_stdin() if str(source) == "-" else Path(source).read_bytes()
    except OSError as exc:
        raise InputError(name, None, f"cannot read file ({exc.strerror or exc})") from exc
    return decompressed(raw, name)


def decompressed(raw: bytes, name: str) -> bytes:
    """``raw`` decompressed if it starts like a gzip, bzip2, xz or zstd stream, else itself;
    ``name`` names the source in the :class:`~cranfield.errors.InputError` of a bad stream."""
    kind = compression(raw)
    return raw if kind is None else _decompress(raw, kind, name)


def _read_stdin() -> bytes:
    """Standard input as bytes; a text-only stream (a notebook, a test double) is encoded."""
    stream = sys.stdin
    if stream is None:
        raise OSError("there is no standard input")
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        return bytes(buffer.read())
    return str(stream.read()).encode("utf-8")


def _decompress(raw: bytes, kind: str, name: str) -> bytes:
    if kind == "gzip":
        # gzip.decompress reads every member and refuses trailing garbage itself.
        try:
            return gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(name, None, f"is not a valid gzip file ({exc})") from exc
    if kind == "bz2":
        return _streams(raw, bz2.BZ2Decompressor, kind, name, (OSError, ValueError))
    if kind == "xz":
        return _streams(raw, lzma.LZMADecompressor, kind, name, (lzma.LZMAError,))
    try:
        import zstandard
    except ImportError as exc:
        raise InputError(
            name,
            None,
            "is zstd-compressed; install the zstd extra: pip install 'cranfield[zstd]'",
        ) from exc
    dctx = zstandard.ZstdDecompressor()
    return _streams(raw, dctx.decompressobj, kind, name, (zstandard.ZstdError,))


def _streams(
    raw: bytes,
    new: Callable[[], _Decompressor],
    kind: str,
    name: str,
    errors: tuple[type[Exception], ...],
) -> bytes:
    """Decompress every concatenated stream of ``raw``; anything incomplete is an error.

    The module-level ``bz2.decompress`` and ``lzma.decompress`` silently drop bytes after
    the last stream; here they must form another complete stream.
    """
    caught: tuple[type[Exception], ...] = (EOFError, *errors)
    parts: list[bytes] = []
    rest = raw
    try:
        while rest:
            dec = new()
            parts.append(dec.decompress(rest))
            if not dec.eof:
                raise EOFError("compressed data ended before the end-of-stream marker")
            rest = dec.unused_data
            if kind == "xz":
                rest = rest.lstrip(b"\x00")  # stream padding between xz streams
    except caught as exc:
        raise InputError(name, None, f"is not a valid {kind} file ({exc})") from exc
    return b"".join(parts)
