"""The limits on what a reader holds (:mod:`cranfield.io.limits`): their values, the
environment variables that override them, and the line-length checks every reader uses."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cranfield.errors import OptionError
from cranfield.io import limits
from cranfield.io.limits import LineLengths, first_long_line, max_line_bytes, max_text_bytes

READERS = {
    limits.LINE_BYTES_VARIABLE: max_line_bytes,
    limits.TEXT_BYTES_VARIABLE: max_text_bytes,
}


def test_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(limits.LINE_BYTES_VARIABLE, raising=False)
    monkeypatch.delenv(limits.TEXT_BYTES_VARIABLE, raising=False)
    assert max_line_bytes() == limits.MAX_LINE_BYTES == 1 << 20
    assert max_text_bytes() == limits.MAX_TEXT_BYTES == 2 << 30


@pytest.mark.parametrize("variable", list(READERS))
@pytest.mark.parametrize(
    ("value", "size"),
    [
        ("8388608", 8 << 20),
        ("8MiB", 8 << 20),
        (" 8 mib ", 8 << 20),
        ("8M", 8 << 20),
        ("64KiB", 64 << 10),
        ("3GiB", 3 << 30),
        ("1TiB", 1 << 40),
        ("100b", 100),
        ("1", 1),
        ("", None),  # set but empty: the default
    ],
)
def test_an_override_is_read_at_each_use(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, size: int | None
) -> None:
    read = READERS[variable]
    default = read()
    monkeypatch.setenv(variable, value)
    assert read() == (default if size is None else size)


@pytest.mark.parametrize("variable", list(READERS))
@pytest.mark.parametrize("value", ["0", "-1", "1.5MiB", "lots", "8 PiB", "0x100", "1e6"])
def test_a_bad_override_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(OptionError) as info:
        READERS[variable]()
    expected = f"The environment variable {variable} must be a number of bytes >= 1"
    assert str(info.value).startswith(expected)
    assert str(info.value).endswith(f", got {value!r}.")
    assert info.value.for_command_line() == str(info.value)  # no flag sets it


def _reference(text: bytes, limit: int) -> int | None:
    """The offset of the first line longer than ``limit``, one line at a time."""
    start = 0
    for line in text.split(b"\n"):
        if len(line) > limit:
            return start
        start += len(line) + 1
    return None


_TEXTS = st.lists(st.integers(0, 40), max_size=12).map(
    lambda lengths: b"\n".join(b"x" * n for n in lengths)
)


@given(text=_TEXTS, limit=st.integers(1, 30))
def test_first_long_line_is_the_first_line_too_long(text: bytes, limit: int) -> None:
    assert first_long_line(text, limit) == _reference(text, limit)


@given(text=_TEXTS, limit=st.integers(1, 30), cuts=st.lists(st.integers(0, 500), max_size=6))
def test_line_lengths_fed_in_pieces_finds_the_same_line(
    text: bytes, limit: int, cuts: list[int]
) -> None:
    lines = LineLengths(limit)
    found = None
    bounds = [0, *sorted(min(cut, len(text)) for cut in cuts), len(text)]
    for start, end in itertools.pairwise(bounds):
        found = lines.feed(text[start:end])
        if found is not None:
            break
    assert found == _reference(text, limit)


def test_a_very_long_line_among_short_ones() -> None:
    text = b"q1 Q0 d 1 1.0 t\n" * 1000 + b"x" * (64 << 20) + b"\nq2 Q0 d 1 1.0 t\n"
    assert first_long_line(text, 1 << 20) == 16 * 1000
    assert first_long_line(text, 64 << 20) is None
