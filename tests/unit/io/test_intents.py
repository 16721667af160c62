"""Intent (subtopic) qrels: :mod:`cranfield.io.intents` reads files, frames and dicts, and names
the file and line of every defect."""

from __future__ import annotations

import re

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cranfield.errors import InputError
from cranfield.io.intents import IntentQrels, load_intents, read_intents


def test_read_intents(tmp_path) -> None:
    path = tmp_path / "intents.txt"
    path.write_text("# comment\n1 1 a 1\n1 2 a 1\n1 2 b 0\n2 1 d 2\n")
    intents = read_intents(path)
    assert isinstance(intents, IntentQrels)
    assert intents.frame.columns == ["query_id", "subtopic", "doc_id", "relevance"]
    assert intents.frame.height == 4
    assert intents.to_qrels().to_dict() == {"1": {"a": 1, "b": 0}, "2": {"d": 2}}
    assert repr(intents) == "IntentQrels(name='intents.txt', topics=2, judgments=4)"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (
            "1 1 a 1\n1 1 a 0\n",
            ":2: duplicate judgment of document 'a' for query '1', subtopic '1' (first seen on line 1)",
        ),
        ("1 1 a 1\n1 1 b\n", ":2: expected 4 fields (qid subtopic docno rel), got 3"),
        ("1 1 a x\n", ":1: relevance must be a 64-bit integer, got 'x'"),
        ("# only a comment\n", "contains no"),
    ],
)
def test_read_intents_errors_name_file_and_line(tmp_path, text: str, fragment: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(InputError) as exc:
        read_intents(path)
    assert fragment in str(exc.value)


def test_load_intents_from_frames_and_dicts() -> None:
    nested = {"1": {"s1": {"a": 1, "b": 0}, "s2": {"a": 1}}}
    from_dict = load_intents(nested)
    frame = pl.DataFrame(
        {
            "query_id": ["1", "1", "1"],
            "iteration": ["s1", "s1", "s2"],
            "doc_id": ["a", "b", "a"],
            "relevance": [1, 0, 1],
        }
    )
    from_frame = load_intents(frame)
    assert from_dict.frame.equals(from_frame.frame)
    with pytest.raises(InputError, match="judged twice"):
        load_intents(pl.concat([frame, frame]))
    with pytest.raises(InputError, match="need the column"):
        load_intents(frame.drop("relevance"))


@pytest.mark.parametrize("rel", [str(2**63), "9" * 5000])
def test_read_intents_relevance_beyond_64_bits(tmp_path, rel: str) -> None:
    path = tmp_path / "intents.txt"
    path.write_text(f"1 1 a 1\n1 1 b {rel}\n")
    with pytest.raises(InputError) as exc:
        read_intents(path)
    assert str(exc.value).startswith(f"{path}:2: relevance does not fit in a 64-bit integer: ")


def test_a_second_byte_order_mark_is_text(tmp_path) -> None:
    # Only the first is dropped; polars would drop the second as well.
    path = tmp_path / "intents.txt"
    path.write_bytes(b"\xef\xbb\xbf\xef\xbb\xbf1 1 a 1\n2 1 b 0\n")
    assert read_intents(path).frame.rows() == [("2", "1", "b", 0), ("\ufeff1", "1", "a", 1)]
    path.write_bytes(b"\xef\xbb\xbf\xef\xbb\xbf# a comment?\n2 1 b 0\n")
    with pytest.raises(InputError) as exc:
        read_intents(path)
    assert str(exc.value).startswith(f"{path}:1: expected 4 fields (qid subtopic docno rel), got 3")


# --------------------------------------------------------------------------- mutations


class _Refused(Exception):
    """The reference's verdict on a bad file: the line to name (None: no data line)."""

    def __init__(self, line: int | None) -> None:
        self.line = line


def _reference(data: bytes) -> list[tuple[str, str, str, int]]:
    """The documented format, read plainly: a byte-order mark at the start is dropped; lines
    split on b"\\n" must be UTF-8; fields split on ASCII blanks; a blank line or one whose first
    field starts with '#' is skipped; otherwise exactly four fields, the last a decimal integer
    in 64 bits, and no (query, subtopic, document) twice. Rows sorted bytewise."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    rows: list[tuple[str, str, str, int]] = []
    seen: set[tuple[bytes, ...]] = set()
    for number, line in enumerate(data.split(b"\n"), start=1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            raise _Refused(number) from None
        fields = line.split()  # bytes.split(): the ASCII blanks, as C's isspace
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) != 4 or not re.fullmatch(rb"[+-]?[0-9]+", fields[3]):
            raise _Refused(number)
        digits = fields[3].lstrip(b"+-").lstrip(b"0") or b"0"
        value = (
            int(digits) * (-1 if fields[3].startswith(b"-") else 1) if len(digits) < 20 else 2**64
        )
        if not -(2**63) <= value < 2**63 or tuple(fields[:3]) in seen:
            raise _Refused(number)
        seen.add(tuple(fields[:3]))
        rows.append((fields[0].decode(), fields[1].decode(), fields[2].decode(), value))
    if not rows:
        raise _Refused(None)
    return sorted(rows, key=lambda r: (r[0].encode(), r[1].encode(), r[2].encode()))


_VALID = (
    b"# subtopic judgments\n"
    b"1 1 doc3 1\n1 1 doc7 0\n1 2 doc3 2\n1 2 doc9 -1\n"
    b"2 1 doc1 1\n2\t3\tdoc1\t0\n  2 3 doc4 1\r\n\n10 1 doc3 0\n"
)
# Bytes a mutation puts in: blanks of every kind, newline, '#', signs, digits, letters, NUL,
# separators Python (not C) calls blanks, a no-break space, a byte-order mark, invalid UTF-8.
_PIECES = [
    b" ", b"\t", b"\r", b"\x0b", b"\x0c", b"\n", b"#", b"+", b"-", b"0", b"9", b"a", b"\x00",
    b"\x1c", b"\x85", b"\xc2\xa0", b"\xe2\x80\xa8", b"\xef\xbb\xbf", b"\xff", b"99999999999999999999",
]  # fmt: skip


@st.composite
def _mutated(draw: st.DrawFn) -> bytes:
    lines = _VALID.split(b"\n")
    for _ in range(draw(st.integers(1, 3))):
        data = b"\n".join(lines)
        starts = [0, *(i + 1 for i, byte in enumerate(data) if byte == 0x0A)]
        at = draw(st.integers(0, len(data)) | st.sampled_from(starts))  # line starts matter
        kind = draw(st.sampled_from(["replace", "insert", "delete", "duplicate", "drop_field"]))
        if kind in ("replace", "insert"):
            piece = draw(st.sampled_from(_PIECES) | st.binary(min_size=1, max_size=1))
            data = data[:at] + piece + data[at + (kind == "replace") :]
        elif kind == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 4)) :]
        lines = data.split(b"\n")
        line = draw(st.integers(0, len(lines) - 1))
        if kind == "duplicate":
            lines.insert(line, lines[line])
        elif kind == "drop_field":
            fields = lines[line].split(b" ")
            del fields[draw(st.integers(0, len(fields) - 1))]
            lines[line] = b" ".join(fields)
    return b"\n".join(lines)


def test_the_reference_reads_the_valid_file() -> None:
    assert len(_reference(_VALID)) == 8


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=_mutated())
@example(data=b"\xef\xbb\xbf\xef\xbb\xbf" + _VALID)
def test_a_mutated_file_reads_as_the_reference_or_names_its_line(tmp_path, data: bytes) -> None:
    path = tmp_path / "mutated.txt"
    path.write_bytes(data)
    try:
        expected: list[tuple[str, str, str, int]] | _Refused = _reference(data)
    except _Refused as refused:
        expected = refused
    try:
        got: list[tuple[str, str, str, int]] | InputError = read_intents(path).frame.rows()
    except InputError as exc:
        got = exc
    if isinstance(expected, _Refused):
        assert isinstance(got, InputError), got
        assert (got.source, got.line) == (str(path), expected.line)
        assert "\n" not in str(got)
    else:
        assert got == expected
