"""The line rules every text reader shares (:mod:`cranfield.io.lines`): one tokenizer, one
number grammar, so qrels, runs, intents, prefs and judgment groups read text alike."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cranfield.errors import InputError
from cranfield.io.intents import read_intents
from cranfield.io.lines import INTEGER, NUMBER, data_lines
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
