"""Hypothesis strategies of the fuzzing suite: small text files of valid lines mixed with
mutations.

A file is a list of lines, each a data line (valid fields joined by blanks), or a mutation
of one: blank and whitespace-only lines, comments, mixed separators (spaces, tabs, CR, VT,
FF), odd Unicode inside fields (no-break space, U+2028, NEL, a byte-order mark, NUL, digits
of other scripts), a field too many or too few, numbers that are not numbers or are huge,
a repeated key, invalid UTF-8, two run lines joined by a bare CR. The file itself may start
with a byte-order mark, end without a newline or in the middle of a line, and be compressed.

Nothing here says what the file means: the reference readers of
:mod:`tests.fuzz.reference_formats` decide that from the bytes alone. Sizes stay small (a
few KB): long lines, huge files, corrupt Parquet and integers beyond 64 bits in prefs and
intents files are other tests' business.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
from dataclasses import dataclass
from typing import Final

import zstandard
from hypothesis import strategies as st

BOM: Final = b"\xef\xbb\xbf"

# Ids from small pools, so that keys repeat: ordinary ones, then odd bytes inside a field
# (each a valid part of a field by the rules, except where the reference says otherwise).
IDS: Final = (
    "1",
    "2",
    "10",
    "q1",
    "Q1",
    "a",
    "B",
    "d1",
    "d2",
    "doc#1",
    "0",
    "-",
    "\u00e9",
    "\U0001f600",
    "x\u00a0y",  # a no-break space is not a blank
    "l\u2028s",  # nor is a line separator
    "n\u0085l",  # nor NEL
    "f\x1cs",  # nor a file separator (str.split would split on all of these)
    "\ufeffq",  # a byte-order mark inside the file is text
    "z\x00z",  # NUL
    "\u0661",  # an Arabic-Indic digit
    "\uff11",  # a fullwidth digit
)
GOOD_SCORES: Final = (
    "1",
    "2.5",
    "-3",
    "+.5",
    "5.",
    "1e3",
    "1E-3",
    "-0",
    "0.1",
    "007",
    "inf",
    "-Infinity",
    "+INF",
    "1e400",
    "-1e400",
    "1e-400",
    "4.9e-324",
    "123456789012345678901234567890",
    "0.30000000000000004",
)
BAD_SCORES: Final = (
    "nan",
    "-NaN",
    "abc",
    "1,5",
    "0x10",
    "1.5abc",
    "1e",
    "e3",
    ".",
    "+",
    "--1",
    "1_0",
    "\u0661",
    "\uff11",
    "\u00bd",
    "1..2",
    "infinit",
    "inf1",
)
GOOD_INTEGERS: Final = ("0", "1", "2", "-1", "+3", "007", "-0", "-2", "4")
EDGE_INTEGERS: Final = (str(2**63 - 1), str(-(2**63)))
HUGE_INTEGERS: Final = (str(2**63), str(-(2**63) - 1), "9" * 30)
BAD_INTEGERS: Final = ("1.0", "1.5", "1e3", "x", "0x1", "1_0", "\u0661", "\uff11", "\u00bd", "+-1")
SEPARATORS: Final = (" ", " ", " ", "\t", "  ", " \t", "\r", "\x0b", "\x0c", "\t\t")
GARBAGE: Final = (b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\xe2\x82", b"\x80", b"\xf5\x80\x80\x80")


PLAIN_IDS: Final = ("1", "2", "10", "q1", "Q1", "a", "B", "d1", "d2", "d10", "doc#1", "\u00e9")
PLAIN_SCORES: Final = ("1", "2.5", "-3", "0", "0.1", "1e3", "1E-3", "-0", "5.", "+.5", "007")


@dataclass(frozen=True)
class Style:
    """How a file is written: ``plain`` (ordinary ids and numbers, fields separated by one
    space or one tab, no extra field: what engines write) or not; and which mutations its
    lines may have (``none``, ``harmless``: blank and comment lines, or ``any``)."""

    plain: bool
    mutations: str
    separator: str = " "


def rarely(one_in: int) -> st.SearchStrategy[bool]:
    """True about once in ``one_in`` draws (``integers(0, n) == 0`` is true far more often:
    hypothesis favours small values)."""
    return st.sampled_from([False] * (one_in - 1) + [True])


def styles(
    mutations: tuple[str, ...] = ("none", "harmless", "any", "any"),
) -> st.SearchStrategy[Style]:
    plain = st.builds(
        Style, st.just(True), st.sampled_from(mutations), st.sampled_from([" ", "\t"])
    )
    fancy = st.builds(Style, st.just(False), st.sampled_from(mutations))
    return st.one_of(plain, fancy, fancy)


@st.composite
def _fields(draw: st.DrawFn, kind: str, style: Style, *, bits64: bool) -> list[bytes]:
    """The fields of one line of ``kind`` (``qrels``, ``run``, ``prefs``, ``grouped``)."""
    valid = style.mutations != "any"
    ident = st.sampled_from(PLAIN_IDS if style.plain else IDS).map(str.encode)
    # Documents from a larger pool: a repeated pair is one mutation among others.
    doc = st.one_of(ident, st.integers(0, 40).map(lambda k: b"D%d" % k))
    integers = GOOD_INTEGERS if style.plain else GOOD_INTEGERS + EDGE_INTEGERS
    if not valid:
        integers += BAD_INTEGERS + (HUGE_INTEGERS if bits64 else ())
    number = st.sampled_from(integers).map(str.encode)
    if kind == "qrels":
        return [draw(ident), draw(st.sampled_from([b"0", b"Q0", b"x"])), draw(doc), draw(number)]
    if kind == "grouped":
        return [draw(ident), draw(st.sampled_from([b"1", b"2", b"u"])), draw(doc), draw(number)]
    scores = PLAIN_SCORES if style.plain else GOOD_SCORES
    if not valid:
        scores += BAD_SCORES
    if not bits64:
        scores = tuple(s for s in scores if len(s) < 20)  # no huge literals in prefs
    score = draw(st.sampled_from(scores).map(str.encode))
    if kind == "prefs":
        jg, jsg = draw(st.sampled_from([b"u1", b"u2"])), draw(st.sampled_from([b"s1", b"0"]))
        return [draw(ident), jg, jsg, draw(doc), score]
    rank = draw(st.sampled_from([b"1", b"0", b"x", b"-5"]))
    tag = draw(st.sampled_from([b"runA", b"t", b"r\xc3\xa9", b"#t"]))
    extra = [] if style.plain else draw(st.lists(st.sampled_from([b"x", b"#", b"1"]), max_size=2))
    return [draw(ident), b"Q0", draw(doc), rank, score, tag, *extra]


_HARMLESS: Final = ("blank", "spaces", "comment")
_HARMFUL: Final = ("bad-comment", "garbage", "nul", "short", "long", "repeat", "cr-joined")
_KEYS: Final = {"qrels": (0, 2), "run": (0, 2), "grouped": (0, 1, 2), "prefs": (0, 1, 2, 3)}


@st.composite
def _line(
    draw: st.DrawFn, kind: str, style: Style, *, bits64: bool, earlier: list[list[bytes]]
) -> bytes:
    """One line (without its line end): a data line, or a mutation of one."""
    hows = ["data"] * 12
    if style.mutations != "none":
        hows += [*_HARMLESS, *(_HARMFUL if style.mutations == "any" else ())]
    how = draw(st.sampled_from(hows))
    if how == "blank":
        return b""
    if how == "spaces":
        return draw(st.sampled_from([b" ", b"\t", b" \t\r", b"\x0b\x0c", b"\r"]))
    if how in ("comment", "bad-comment"):
        body = draw(st.sampled_from([b"# a comment", b"#", b"  # x y z", b"#1 0 a 1"]))
        return body + (draw(st.sampled_from(GARBAGE)) if how == "bad-comment" else b"")
    fields = draw(_fields(kind, style, bits64=bits64))
    if how == "repeat" and earlier:
        model = draw(st.sampled_from(earlier))
        for k in _KEYS[kind]:
            if k < len(model):
                fields[k] = model[k]
    elif how == "short":
        fields = fields[: draw(st.integers(0, len(fields) - 1))]
    elif how == "long":
        fields.append(draw(st.sampled_from(IDS)).encode())
    elif how in ("garbage", "nul"):
        k = draw(st.integers(0, len(fields) - 1))
        insert = draw(st.sampled_from(GARBAGE)) if how == "garbage" else b"\x00"
        fields[k] = fields[k] + insert
    earlier.append(fields)
    line = _joined(draw, fields, style)
    if how == "cr-joined":
        line += b"\r" + _joined(draw, draw(_fields(kind, style, bits64=bits64)), style)
    return line


def _joined(draw: st.DrawFn, fields: list[bytes], style: Style) -> bytes:
    """Fields joined by separators, perhaps with blanks around the line."""
    if style.plain:
        return style.separator.encode().join(fields)
    seps = [draw(st.sampled_from(SEPARATORS)).encode() for _ in fields[1:]]
    body = b"".join(f + s for f, s in zip(fields, [*seps, b""], strict=False))
    lead = draw(st.sampled_from([b"", b"", b"", b" ", b"\t", b"\x0c"]))
    trail = draw(st.sampled_from([b"", b"", b"", b" ", b"\t", b"\r"]))
    return lead + body + trail


@st.composite
def text_file(
    draw: st.DrawFn,
    kind: str,
    *,
    style: st.SearchStrategy[Style] | None = None,
    bits64: bool = True,
    grouped: bool = False,
) -> bytes:
    """A small text file of ``kind`` (see :func:`_fields`) in a ``style`` (default: any).
    ``bits64=False`` keeps integers within 64 bits; ``grouped`` sorts the lines by their
    first field (a run grouped by query, for the block reader)."""
    chosen = draw(styles() if style is None else style)
    earlier: list[list[bytes]] = []
    lines = draw(st.lists(_line(kind, chosen, bits64=bits64, earlier=earlier), max_size=12))
    if grouped:
        lines.sort(key=lambda line: line.split(maxsplit=1)[:1])
    ends = [b"\n" if chosen.plain else draw(st.sampled_from([b"\n", b"\r\n"])) for _ in lines]
    data = b"".join(line + end for line, end in zip(lines, ends, strict=True))
    ending = draw(st.sampled_from(["whole", "whole", "whole", "no newline", "cut"]))
    if ending == "no newline":
        data = data.removesuffix(b"\n")
    elif ending == "cut" and data:
        data = data[: -draw(st.integers(1, min(6, len(data))))]
    if not chosen.plain and draw(rarely(6)):
        data = BOM + data
    return data


COMPRESSORS: Final = {
    "plain": lambda data: data,
    "gzip": lambda data: gzip.compress(data, mtime=0),
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "zstd": lambda data: zstandard.ZstdCompressor().compress(data),
}
packings = st.sampled_from(["plain", "plain", "plain", "gzip", "bz2", "xz", "zstd"])
