"""A compressed file of comment lines (a decompression bomb: 19 MB of gzip, 2 GiB of
``# ...`` lines) is held in a byte or two a line, not in its decompressed size (issue 30,
item 8): the comment lines of a text in a format that skips them (TREC, MS MARCO) are kept as
``#`` alone while it is decompressed, so every line keeps its number."""

from __future__ import annotations

import gc
import gzip
import tracemalloc
import zlib
from pathlib import Path

import pytest

import cranfield
from cranfield.errors import InputError
from cranfield.io.inputs import open_qrels, open_run
from cranfield.io.source import decompressed, read_bytes

COMMENT = b"# " + b"x" * 97 + b"\n"  # 100 bytes
RUN = b"q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n"


def _bomb(path: Path, megabytes: int, *, head: bytes = RUN, tail: bytes = b"") -> Path:
    """``head``, ``megabytes`` MB of comment lines, then ``tail``, gzip-compressed in
    pieces (nothing that size is ever held here)."""
    squeeze = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: the gzip container
    block = COMMENT * 10_000  # 1 MB
    with path.open("wb") as out:
        out.write(squeeze.compress(head))
        for _ in range(megabytes):
            out.write(squeeze.compress(block))
        out.write(squeeze.compress(tail))
        out.write(squeeze.flush())
    return path


def _peak(function: object) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        function()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_comment_lines_are_held_in_a_byte_or_two_each(tmp_path: Path) -> None:
    bomb = _bomb(tmp_path / "run.gz", 48)  # 48 MB of text in about 150 KB
    assert bomb.stat().st_size < 1 << 20
    opened = open_run(bomb)
    peak = _peak(opened.read)
    text = opened.data()
    lines = 2 + 48 * 10_000
    assert text == RUN + b"#\n" * (lines - 2)  # each line kept, as a comment
    assert peak < 8 << 20, peak  # read whole, the text alone was 48 MB


def test_a_bomb_of_comments_evaluates_as_its_data_lines(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 0\nq1 0 d2 1\n")
    run = _bomb(tmp_path / "run.gz", 8)
    assert cranfield.evaluate(qrels, run, measures=["AP"])["AP"] == 0.5
    judged = _bomb(tmp_path / "qrels.gz", 8, head=b"q1 0 d1 0\nq1 0 d2 1\n")
    assert open_qrels(judged).data().count(b"\n") == 2 + 8 * 10_000
    assert cranfield.evaluate(judged, run, measures=["AP"])["AP"] == 0.5


def test_lines_keep_their_numbers_in_errors(tmp_path: Path) -> None:
    bad = _bomb(tmp_path / "run.gz", 2, tail=b"q1 Q0 d3 3 high r\n")
    with pytest.raises(InputError, match=rf"run.gz:{2 + 2 * 10_000 + 1}: "):
        cranfield.load_run(bad)
    with pytest.raises(InputError, match=rf"run.gz:{2 + 2 * 10_000 + 1}: "):
        cranfield.evaluate(_qrels(tmp_path), bad, measures=["AP"])


def _qrels(tmp_path: Path) -> Path:
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 d1 1\n")
    return path


def test_text_in_other_formats_is_kept_whole(tmp_path: Path) -> None:
    """A format whose comment lines are data (JSON Lines, CSV) is read as it is: a ``#`` line
    there is an error naming it, with its text."""
    head = b"".join(b'{"qid": "q1", "docno": "d%d", "score": %d}\n' % (i, i) for i in range(2000))
    lines = _bomb(tmp_path / "run.jsonl.gz", 1, head=head)
    with pytest.raises(InputError, match=r"run.jsonl.gz:2001: is not a JSON object.*# xxx"):
        cranfield.load_run(lines)


@pytest.mark.parametrize("cut", [1, 2, 3, 50, 99, 100, 101, 65_536 + 7])
def test_a_comment_cut_between_pieces(cut: int) -> None:
    """Every way a piece boundary can fall (inside the blanks before ``#``, on it, inside
    the comment, on its line end) gives the same text."""
    text = RUN + b"  \t# one\n" + COMMENT * 700 + b"q2 Q0 d#1 1 1.0 r\n \n#\n" + COMMENT
    data = gzip.compress(text)
    whole = decompressed(data, "x", lines=False, comments=lambda head: True)
    assert whole == RUN + b"#\n" + b"#\n" * 700 + b"q2 Q0 d#1 1 1.0 r\n \n#\n#\n"
    from cranfield.io import source

    pieces = [text[i : i + cut] for i in range(0, len(text), cut)]
    gathered = source._Gathered("x", 1 << 30, compressed=True, lines=False, comments=lambda h: True)
    for piece in pieces:
        gathered.add(piece)
    assert gathered.value() == whole


def test_the_text_limit_still_counts_the_decompressed_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRANFIELD_MAX_TEXT_BYTES", "4MiB")
    bomb = _bomb(tmp_path / "run.gz", 5)
    with pytest.raises(InputError, match=r"run\.gz: .*more than 4 MiB"):
        read_bytes(bomb, comments=lambda head: True)
