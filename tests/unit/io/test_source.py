"""The one file opener (:mod:`cranfield.io.source`): whole or streamed, the same text and
the same errors, for every compression and for standard input."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from cranfield.errors import InputError
from cranfield.io import source
from cranfield.io.source import compression, open_source, read_bytes

TEXT = b"".join(b"q%d Q0 d%d 1 %d t\n" % (i // 50, i, 1000 - i) for i in range(3000))


def _zstd(data: bytes) -> bytes:
    zstandard = pytest.importorskip("zstandard")
    return bytes(zstandard.ZstdCompressor().compress(data))


COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "zstd": _zstd,
}


def _streamed(path: Path | str, size: int = 1000) -> bytes:
    with open_source(path) as text:
        pieces = []
        while piece := text.read(size):
            pieces.append(piece)
    return b"".join(pieces)


def _put(tmp_path: Path, data: bytes, name: str = "file.bin") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.fixture(params=[1, 7, 1 << 20], ids=["chunk 1", "chunk 7", "chunk 1 MiB"])
def chunk(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """Compressed bytes decompressed this many at a time: every cut between two streams,
    inside padding and inside a gzip magic number is met at one byte."""
    size: int = request.param
    monkeypatch.setattr(source, "_CHUNK", size)
    return size


def _bodies(kind: str) -> dict[str, bytes]:
    pack = COMPRESSORS[kind]
    padding = b"\x00" * 8 if kind in ("gzip", "xz") else b""
    return {
        "one stream": pack(TEXT),
        "two streams": pack(TEXT[:5000]) + pack(TEXT[5000:]),
        "padded streams": pack(TEXT[:5000]) + padding + pack(TEXT[5000:]) + padding,
        "an empty stream": pack(b"") + pack(TEXT),
    }


@pytest.mark.parametrize("kind", list(COMPRESSORS))
@pytest.mark.parametrize("body", ["one stream", "two streams", "padded streams", "an empty stream"])
def test_streamed_text_is_the_whole_text(tmp_path: Path, chunk: int, kind: str, body: str) -> None:
    path = _put(tmp_path, _bodies(kind)[body])
    assert compression(path.read_bytes()) == kind
    assert read_bytes(path) == TEXT
    assert _streamed(path) == TEXT


def _damaged(kind: str, damage: str) -> bytes:
    pack = COMPRESSORS[kind]
    whole = pack(TEXT)
    if damage == "truncated":
        return whole[: len(whole) // 2]
    if damage == "cut in the trailer":
        return whole[:-1]
    if damage == "trailing garbage":
        return whole + b"garbage"
    if damage == "one byte of garbage":
        return whole + b"g"
    if damage == "garbage after padding":
        return whole + b"\x00\x00\x00\x00garbage"
    if damage == "corrupt second stream":
        second = bytearray(pack(TEXT[:5000]))
        for i in range(24, 64):
            second[i] ^= 0x5A
        return whole + bytes(second)
    return whole[:12]  # header only


DAMAGES = [
    "truncated",
    "cut in the trailer",
    "trailing garbage",
    "one byte of garbage",
    "garbage after padding",
    "corrupt second stream",
    "header only",
]


@pytest.mark.parametrize("kind", list(COMPRESSORS))
@pytest.mark.parametrize("damage", DAMAGES)
def test_damage_is_an_input_error_whole_and_streamed(
    tmp_path: Path, chunk: int, kind: str, damage: str
) -> None:
    path = _put(tmp_path, _damaged(kind, damage))
    with pytest.raises(InputError) as whole:
        read_bytes(path)
    with pytest.raises(InputError) as streamed:
        _streamed(path)
    for error in (whole.value, streamed.value):
        assert (error.source, error.line) == (str(path), None)
        assert error.problem.startswith(f"is not a valid {kind} file ("), error.problem


@pytest.mark.parametrize("damage", ["trailing garbage", "one byte of garbage", "truncated"])
def test_gzip_damage_is_worded_as_gzip_words_it(tmp_path: Path, chunk: int, damage: str) -> None:
    """Streamed or whole, the words of the standard library's own ``gzip.decompress``."""
    data = _damaged("gzip", damage)
    with pytest.raises((OSError, EOFError)) as stdlib:
        gzip.decompress(data)
    path = _put(tmp_path, data)
    for read in (read_bytes, _streamed):
        with pytest.raises(InputError) as info:
            read(path)
        assert info.value.problem == f"is not a valid gzip file ({stdlib.value})"


def test_text_starting_like_bzip2_is_text(tmp_path: Path) -> None:
    """Only "BZh", a block size and the block magic make bzip2; a query id may be "BZh1"."""
    data = b"BZh1 Q0 d 1 1.0 t\nBZh91AY Q0 d 1 1.0 t\n"
    assert compression(data) is None
    path = _put(tmp_path, data)
    assert read_bytes(path) == _streamed(path) == data


def _loop(tmp: Path) -> Path:
    loop = tmp / "loop"
    loop.symlink_to(loop)
    return loop


@pytest.mark.parametrize(
    "where",
    [lambda tmp: tmp / "absent.run", lambda tmp: tmp, _loop],
    ids=["missing", "directory", "symlink loop"],
)
def test_an_unreadable_source_is_an_input_error(
    tmp_path: Path, where: Callable[[Path], Path]
) -> None:
    path = where(tmp_path)
    with pytest.raises(InputError) as whole:
        read_bytes(path)
    with pytest.raises(InputError) as streamed:
        _streamed(path)
    assert str(whole.value) == str(streamed.value)
    assert whole.value.problem.startswith("cannot read file (")


def test_zstd_without_zstandard_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _put(tmp_path, _zstd(TEXT), "run.zst")
    monkeypatch.setitem(sys.modules, "zstandard", None)
    for read in (read_bytes, _streamed):
        with pytest.raises(InputError, match=r"run\.zst: .*pip install 'cranfield\[zstd\]'"):
            read(path)


class _Trickle(io.RawIOBase):
    """A pipe that hands over one byte per read."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if not self._data:
            return 0
        buffer[0], self._data = self._data[0], self._data[1:]
        return 1


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BufferedReader(_Trickle(data), buffer_size=1)


@pytest.mark.parametrize("kind", ["plain", *COMPRESSORS])
def test_stdin_is_read_once_and_whole(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    data = TEXT if kind == "plain" else COMPRESSORS[kind](TEXT)
    stdin = _Stdin(data)
    monkeypatch.setattr(sys, "stdin", stdin)
    assert _streamed("-") == TEXT
    assert not stdin.buffer.closed  # standard input is not the reader's to close
    monkeypatch.setattr(sys, "stdin", _Stdin(data))
    assert read_bytes("-") == TEXT


def test_text_only_and_absent_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("301 0 caf\u00e9 1\n"))
    assert _streamed("-") == "301 0 caf\u00e9 1\n".encode()
    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(InputError, match=r"<stdin>: cannot read file \(there is no standard input"):
        _streamed("-")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_opened_once(tmp_path: Path) -> None:
    """A second open of a named pipe would wait for a second writer that never comes."""
    fifo = tmp_path / "run.pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    writer = threading.Thread(target=fifo.write_bytes, args=(gzip.compress(TEXT),), daemon=True)
    reader = threading.Thread(target=lambda: got.append(_streamed(fifo)), daemon=True)
    writer.start()
    reader.start()
    reader.join(timeout=30)
    if reader.is_alive():  # release it
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=5)
    assert got == [TEXT]


def test_reading_stops_where_the_text_does(tmp_path: Path) -> None:
    path = _put(tmp_path, gzip.compress(TEXT))
    with open_source(path) as text:
        assert text.readline() == TEXT[: TEXT.index(b"\n") + 1]
        assert text.read() == TEXT[TEXT.index(b"\n") + 1 :]
        assert text.read(10) == b""
