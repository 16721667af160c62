"""The line rules every text reader shares (:mod:`cranfield.io.lines`): one tokenizer, one
number grammar, so qrels, runs, intents, prefs and judgment groups read text alike."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cranfield.errors import InputError
from cranfield.io.intents import read_intents
from cranfield.io.lines import INTEGER, NUMBER, data_lines, field_count, lines
from cranfield.io.prefs import read_prefs, read_qrels_jg
from cranfield.io.trec import read_qrels, read_run

# Each reader with one good line of its format.
READERS: dict[str, tuple[Callable[[Path], Any], bytes]] = {
    "qrels": (read_qrels, b"q1 0 d1 1\n"),
    "run": (read_run, b"q1 Q0 d1 1 2.5 t\n"),
    "intents": (read_intents, b"q1 2 d1 1\n"),
    "prefs": (read_prefs, b"q1 u s d1 1.5\n"),
    "qrels_jg": (read_qrels_jg, b"q1 u d1 1\n"),
}


def _query_ids(result: Any) -> list[str]:
    frame = getattr(result, "frame", result)
    return list(frame.get_column("query_id"))


def test_data_lines_numbers_physical_lines_and_splits_on_ascii_blanks() -> None:
    data = b"# c\n\n  a\tb\x0bc\xc2\xa0d  \r\n   # indented\nx y\n"
    assert list(data_lines(data, "f")) == [
        (3, [b"a", b"b", b"c\xc2\xa0d"], "a\tb\x0bc\xa0d"),
        (5, [b"x", b"y"], "x y"),
    ]


def test_data_lines_refuses_invalid_utf8_in_any_line() -> None:
    with pytest.raises(InputError) as info:
        list(data_lines(b"a b\n # caf\xe9 \n", "f.txt"))
    assert str(info.value) == "f.txt:2: is not valid UTF-8: '# caf\ufffd'"


@pytest.mark.parametrize("reader", list(READERS))
def test_every_reader_refuses_invalid_utf8_in_a_comment(tmp_path: Path, reader: str) -> None:
    read, line = READERS[reader]
    path = tmp_path / "input.txt"
    path.write_bytes(line + b"# caf\xe9\n")
    with pytest.raises(InputError) as info:
        read(path)
    assert (info.value.line, info.value.problem) == (2, "is not valid UTF-8")


@pytest.mark.parametrize("reader", list(READERS))
def test_every_reader_drops_a_byte_order_mark(tmp_path: Path, reader: str) -> None:
    read, line = READERS[reader]
    path = tmp_path / "input.txt"
    path.write_bytes(b"\xef\xbb\xbf" + line)
    assert _query_ids(read(path)) == ["q1"]


@pytest.mark.parametrize(
    ("text", "integer", "number"),
    [
        ("12", True, True),
        ("-0", True, True),
        ("+7", True, True),
        ("1.5", False, True),
        (".5e-3", False, True),
        ("1.", False, True),
        ("-Infinity", False, True),
        ("nan", False, True),
        ("1e", False, False),
        ("0x10", False, False),
        ("1_000", False, False),
        ("", False, False),
        ("٣", False, False),  # a digit, but not an ASCII one
    ],
)
def test_number_grammars(text: str, integer: bool, number: bool) -> None:
    assert bool(INTEGER.match(text)) is integer
    assert bool(NUMBER.match(text)) is number


# --------------------------------------------------------------------------- bounded memory


@given(
    data=st.binary(max_size=60).map(lambda b: b.replace(b"\x00", b"\n")), block=st.integers(1, 9)
)
def test_lines_split_a_block_at_a_time_as_split_does(data: bytes, block: int) -> None:
    assert list(lines(data, block)) == data.split(b"\n")


@given(text=st.text(alphabet=" \t\r\x0b\x0cab\xa0#", max_size=30))
def test_field_count_counts_what_split_makes(text: str) -> None:
    line = text.encode()
    assert field_count(line) == len(line.split())


def test_max_fields_leaves_the_rest_of_a_line_unsplit() -> None:
    line = b" q1 0 d1 1" + b" x" * 100_000 + b" \n"
    ((number, fields, _),) = data_lines(line, "f", max_fields=4)
    assert (number, fields[:4], len(fields)) == (1, [b"q1", b"0", b"d1", b"1"], 5)
    assert field_count(fields[4]) == 100_000
    ((_, short, _),) = data_lines(b"q1 0 d1 1  \n", "f", max_fields=4)
    assert short == [b"q1", b"0", b"d1", b"1"]


def test_data_lines_refuses_a_line_too_long(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRANFIELD_MAX_LINE_BYTES", "10")
    data = b"a b\n# a comment, longer than ten bytes\n"
    with pytest.raises(InputError) as info:
        list(data_lines(data, "f.txt"))
    assert (info.value.line, info.value.text) == (2, None)
    assert info.value.problem.startswith("is longer than 10 bytes, the longest line")


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("compressed", [False, True])
def test_every_reader_refuses_a_line_too_long(
    tmp_path: Path, reader: str, compressed: bool
) -> None:
    """2 MiB of blanks at the end of a line: the same error, whatever the reader."""
    read, line = READERS[reader]
    data = line * 3 + line.rstrip(b"\n") + b" " * (2 << 20) + b"\n" + line
    path = tmp_path / "input.txt"
    path.write_bytes(gzip.compress(data, 1) if compressed else data)
    with pytest.raises(InputError) as info:
        read(path)
    assert (info.value.line, info.value.problem) == (
        4,
        "is longer than 1 MiB, the longest line cranfield reads (raise the limit with the "
        "environment variable CRANFIELD_MAX_LINE_BYTES)",
    )
