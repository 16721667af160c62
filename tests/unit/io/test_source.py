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
        with pytest.raises(InputError, match=r"run\.zst: .*pip install '\.\[zstd\]'"):
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


# --------------------------------------------------------------------------- bounded memory


@pytest.fixture
def small_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decompressors fed 5 bytes at a time and held to 7 bytes of text a step."""
    monkeypatch.setattr(source, "_PIECE", 7)
    monkeypatch.setattr(source, "_FEED", 5)
    monkeypatch.setattr(source, "_ZSTD_FEED", 5)
    monkeypatch.setattr(source, "_AHEAD", 11)


@pytest.mark.parametrize("kind", list(COMPRESSORS))
@pytest.mark.parametrize("body", ["one stream", "two streams", "padded streams", "an empty stream"])
def test_text_in_small_steps_is_the_whole_text(
    tmp_path: Path, small_steps: None, kind: str, body: str
) -> None:
    path = _put(tmp_path, _bodies(kind)[body])
    assert read_bytes(path) == TEXT
    assert _streamed(path) == TEXT


@pytest.mark.parametrize("kind", ["gzip", "bz2", "xz"])
def test_each_step_of_a_decompressor_makes_a_bounded_text(
    monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """A bomb's few compressed bytes never become its whole text at once."""
    monkeypatch.setattr(source, "_PIECE", 1000)
    bomb = COMPRESSORS[kind](b"\n" * (8 << 20))
    streams = source._Streams(kind, "bomb")
    sizes = [len(piece) for piece in streams.pieces(bomb)]
    streams.finish()
    assert sum(sizes) == 8 << 20
    assert max(sizes) == 1000


def test_zstd_is_fed_a_little_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """zstandard's decompressor takes no bound on its text: a few bytes make 128 KiB at most."""
    monkeypatch.setattr(source, "_ZSTD_FEED", 4)
    streams = source._Streams("zstd", "bomb")
    sizes = [len(piece) for piece in streams.pieces(_zstd(b"\n" * (8 << 20)))]
    streams.finish()
    assert sum(sizes) == 8 << 20
    assert max(sizes) <= 128 << 10


class _BigStdin:
    """Standard input whose buffer hands over what is asked for (not a byte at a time)."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


LONG_LINE = b"q1 Q0 d1 1 1.0 t\n" * 3 + b"q1 Q0 d2 1 1.0 " + b"t" * (3 << 20) + b"\nq2 Q0 d 1 1 t\n"


@pytest.mark.parametrize("kind", ["plain", *COMPRESSORS])
@pytest.mark.parametrize("where", ["file", "stdin"])
def test_a_long_line_is_an_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, where: str
) -> None:
    data = LONG_LINE if kind == "plain" else COMPRESSORS[kind](LONG_LINE)
    path = _put(tmp_path, data, "run.txt")
    if where == "stdin":
        monkeypatch.setattr(sys, "stdin", _BigStdin(data))
        path = Path("-")
    with pytest.raises(InputError) as info:
        read_bytes(path)
    assert (info.value.source, info.value.line) == (source.source_name(path), 4)
    assert info.value.problem == (
        "is longer than 1 MiB, the longest line cranfield reads "
        "(raise the limit with the environment variable CRANFIELD_MAX_LINE_BYTES)"
    )
    monkeypatch.setenv("CRANFIELD_MAX_LINE_BYTES", "4MiB")
    if where == "stdin":
        monkeypatch.setattr(sys, "stdin", _BigStdin(data))
    assert read_bytes(path) == LONG_LINE


def test_a_source_without_line_ends_stops_at_the_longest_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Standard input that never ends a line is read no further than the longest line."""
    monkeypatch.setenv("CRANFIELD_MAX_LINE_BYTES", "1000")

    class Endless(io.RawIOBase):
        given = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
            buffer[:] = b"\0" * len(buffer)
            Endless.given += len(buffer)
            return len(buffer)

    monkeypatch.setattr(sys, "stdin", type("Stdin", (), {"buffer": io.BufferedReader(Endless())}))
    with pytest.raises(InputError, match=r"^<stdin>:1: is longer than 1000 bytes, "):
        read_bytes("-")
    assert Endless.given <= 4 << 20


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_is_a_line_too_long() -> None:
    with pytest.raises(InputError, match=r"^/dev/zero:1: is longer than 1 MiB"):
        read_bytes("/dev/zero")


@pytest.mark.parametrize("kind", list(COMPRESSORS))
def test_a_decompression_bomb_stops_at_the_most_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """Blank and comment lines only, 3 MiB of them from a few KiB: stopped at 1 MiB (the
    default limit, 2 GiB, stops the same way; a test would not build that much)."""
    text = b"# a comment\n\n" * ((3 << 20) // 13)
    bomb = COMPRESSORS[kind](text)
    path = _put(tmp_path, bomb, "qrels.txt")
    monkeypatch.setenv("CRANFIELD_MAX_TEXT_BYTES", "1MiB")
    with pytest.raises(InputError) as whole:
        read_bytes(path)
    assert str(whole.value) == (
        f"{path}: decompresses to more than 1 MiB of text, the most cranfield reads whole "
        "into memory from a compressed file, standard input or a pipe; evaluate a run with "
        "--stream (evaluate_stream in Python), or raise the limit with the environment "
        "variable CRANFIELD_MAX_TEXT_BYTES"
    )
    monkeypatch.setattr(sys, "stdin", _BigStdin(bomb))
    with pytest.raises(InputError, match=r"^<stdin>: decompresses to more than 1 MiB of text"):
        read_bytes("-")
    assert _streamed(path, 1 << 20) == text  # streamed: held a block at a time, no limit
    monkeypatch.setenv("CRANFIELD_MAX_TEXT_BYTES", "4MiB")
    assert read_bytes(path) == text


def test_standard_input_is_held_to_the_most_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRANFIELD_MAX_TEXT_BYTES", "10000")
    monkeypatch.setattr(sys, "stdin", _Stdin(TEXT))
    with pytest.raises(InputError, match=r"^<stdin>: holds more than 9.77 KiB \(10000 bytes\)"):
        read_bytes("-")


def test_a_plain_file_is_not_held_to_the_most_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its size is known before it is read: only a compressed one is limited."""
    monkeypatch.setenv("CRANFIELD_MAX_TEXT_BYTES", "10000")
    assert read_bytes(_put(tmp_path, TEXT)) == TEXT
    with pytest.raises(InputError, match="decompresses to more than"):
        read_bytes(_put(tmp_path, gzip.compress(TEXT)))


def test_a_corrupt_stream_is_an_error_before_its_text_is_read(tmp_path: Path) -> None:
    """The text of each compressed chunk is decompressed ahead: garbage from a damaged
    stream is not handed out before the damage is found."""
    damaged = bytearray(gzip.compress(TEXT[:5000]))
    for i in range(24, 64):
        damaged[i] ^= 0x5A
    path = _put(tmp_path, gzip.compress(TEXT[:100]) + bytes(damaged))
    with open_source(path) as text, pytest.raises(InputError, match="is not a valid gzip"):
        text.read(10)


def test_running_out_of_memory_is_an_input_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_memory(*_: object, **__: object) -> bytes:
        raise MemoryError

    monkeypatch.setattr(source, "_unsized", no_memory)
    with pytest.raises(InputError) as info:
        read_bytes("-")
    assert str(info.value) == (
        "<stdin>: does not fit in memory; evaluate a run with --stream (evaluate_stream in Python)"
    )
