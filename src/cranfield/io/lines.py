"""Lines of TREC-style text: the tokenizer and the number grammars every text reader shares.

A line is split into fields on runs of ASCII blanks (space, tab, CR, VT, FF: the blanks of
C's ``isspace``; a no-break space or other Unicode blank is part of a field). A blank line,
or one whose first field starts with ``#``, is not a data line. The text must be UTF-8
throughout, comment lines included.

The readers parse whole files with polars; these are their slow, exact counterparts, run
only to name the first bad line once a fast parse has found that something is wrong.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NoReturn

from cranfield.errors import InputError
from cranfield.io.limits import line_too_long, max_line_bytes

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "BLANKS",
    "BOM",
    "INT64_RANGE",
    "INTEGER",
    "NUMBER",
    "data_lines",
    "field_count",
    "int64",
    "lines",
    "no_bad_line",
]

BLANKS = b" \t\r\x0b\x0c"
"""The bytes that separate fields (C's ``isspace`` without the newline)."""

BOM = b"\xef\xbb\xbf"
"""A UTF-8 byte-order mark: at the very start of a file it is not text, and is dropped."""

INTEGER = re.compile(r"[+-]?[0-9]+\Z")
"""A decimal integer (an integer relevance)."""

NUMBER = re.compile(
    r"[+-]?(?:[0-9]+\.?[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)\Z",
    re.IGNORECASE,
)
"""A decimal number, ``inf`` or ``nan`` (a score or a preference level)."""

INT64_RANGE = (-(2**63), 2**63 - 1)
"""The smallest and largest integers an integer column holds."""


def int64(text: str) -> int | None:
    """The value of ``text``, an :data:`INTEGER`, if it fits in 64 bits, else None.

    Any number of digits is fine (``int()`` refuses more than 4,300): ``int64("0" * 5000)``
    is 0, ``int64("9" * 5000)`` is None.
    """
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > 19:  # 2**63 has 19 digits
        return None
    value = -int(digits) if text.startswith("-") else int(digits)
    return value if INT64_RANGE[0] <= value <= INT64_RANGE[1] else None


def data_lines(
    data: bytes, label: str, *, max_fields: int | None = None
) -> Iterator[tuple[int, list[bytes], str]]:
    """Each data line of ``data``: its physical line number (1-based, counting blank and
    comment lines), its fields, and its text without the blanks around it.

    The lines are split one block at a time, never all at once. With ``max_fields``, a line
    is split into at most that many fields and one more item, the rest of the line
    unsplit: a line of a million fields is never a million strings (count them with
    :func:`field_count`).

    Raises
    ------
    InputError
        At the first line, data or not, that is not valid UTF-8 or is longer than
        :func:`~cranfield.io.limits.max_line_bytes`.
    """
    longest = max_line_bytes()
    for number, raw in enumerate(lines(data), start=1):
        if len(raw) > longest:
            raise line_too_long(label, number, longest)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.strip().decode("utf-8", "replace")
            raise InputError(label, number, "is not valid UTF-8", text) from None
        # bytes.split() splits on exactly the ASCII blanks C's isspace() knows; str.split()
        # would also split on no-break spaces and other Unicode blanks inside a docno.
        fields = raw.split(None, -1 if max_fields is None else max_fields)
        if not fields or fields[0].startswith(b"#"):
            continue
        yield number, fields, raw.strip().decode("utf-8")


def lines(data: bytes, block: int = 1 << 20) -> Iterator[bytes]:
    """The lines of ``data`` as ``data.split(b"\\n")`` gives them, split about ``block`` bytes
    at a time: the lines of a large text are never all held at once.

    Examples
    --------
    >>> list(lines(b"a\\nbc\\n\\nd", block=2))
    [b'a', b'bc', b'', b'd']
    """
    start = 0
    while True:
        end = data.find(b"\n", start + block)
        if end < 0:
            yield from data[start:].split(b"\n")
            return
        yield from data[start:end].split(b"\n")
        start = end + 1


_FIELD_STARTS = bytes.maketrans(
    bytes(range(256)), bytes(32 if b in BLANKS else 120 for b in range(256))
)


def field_count(text: bytes) -> int:
    """The number of fields of a line, counted without splitting it.

    Examples
    --------
    >>> field_count(b"  q1\\tQ0  d1 ")
    3
    """
    marks = b" " + text.translate(_FIELD_STARTS)
    return marks.count(b" x")


def no_bad_line(label: str, any_line: bool, kind: str) -> NoReturn:
    """The error of a file whose lines were all read without finding a bad one: it has no
    data line (``kind`` says which lines it should hold), or the problem is not in a line."""
    if not any_line:
        raise InputError(label, None, f"contains no {kind} lines")
    raise InputError(label, None, "could not be parsed (no single bad line found)")
