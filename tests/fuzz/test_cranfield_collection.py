"""The Cranfield 1400 reader (``lab/collections.py`` :func:`read_cranfield`) on small
collections in the original format, written with the distribution's irregularities (CRLF
line ends, trailing blanks, irregular whitespace in ``cranqrel``, no final newline, field
markers inside an abstract) and mutations, against the reference reader of
:mod:`tests.fuzz.reference_formats`. The real files are in ``shared/data/cranfield``."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st

from cranfield.errors import InputError
from cranfield.lab.collections import Collection, read_cranfield
from tests.conftest import SHARED, require
from tests.fuzz import reference_formats as reference
from tests.fuzz.checks import attempt, one_line_error
from tests.fuzz.conftest import fuzz
from tests.fuzz.mutations import rarely

# The documented default gains (README of the collection, read_cranfield's notes).
GAINS = {1: 4, 2: 3, 3: 2, 4: 1, 5: 0, -1: 0}
DROP_UNEXPLAINED = {**GAINS, -1: None}

WORDS = (
    "experimental investigation",
    "of the aerodynamics of a wing .",
    "",
    "   ",
    ".A",  # a marker out of order is text
    ".B",
    ".T",
    ".W",  # a second .W continues the abstract; in a query it is text
    " .W",
    "tab\there",
    "\u00e9t\u00e9 \U0001f600",
    "\u00a0nbsp",
)
ODD = (
    ".W  ",
    ".I",
    ".I 7",
    ".Ix",
    "x\x0cy",  # a form feed is not a line end
    "a\u2028b",  # nor is U+2028
    "n\x85l",  # nor NEL
    "fs\x1cx",
    "v\x0bt",
    "cr\rinside",
    "nul\x00x",
)
FILES = ("cran.all.1400", "cran.qry", "cranqrel")
NUMBERS = ("1", "2", "3", "4", "5", "6", "001", "002", "010")
ODD_NUMBERS = ("x", "\u0663", "\u00b2", "1_0", "+2", "", "1 2")


def text(odd: bool) -> st.SearchStrategy[str]:
    """A line of text: ordinary words, and (``odd``) now and then a line that is not."""
    words = st.sampled_from(WORDS)
    return st.one_of(words, words, words, st.sampled_from(ODD)) if odd else words


@st.composite
def _lines(draw: st.DrawFn, records: list[tuple[str, list[str]]], odd: bool) -> list[str]:
    """``.I`` records, each followed by its lines."""
    out: list[str] = []
    if odd and draw(rarely(10)):
        out.append(draw(text(odd)))  # before the first record
    for number, body in records:
        out.append(f".I {number}" if number else ".I")
        out += body
    return out


@st.composite
def documents(draw: st.DrawFn, odd: bool) -> tuple[list[str], int]:
    """The lines of ``cran.all.1400``, and how many documents it numbers 1, 2 ..."""
    records = []
    count = draw(st.integers(0 if odd else 1, 5))
    for k in range(count):
        number = str(k + 1)
        if odd and draw(rarely(6)):
            number = draw(st.sampled_from(NUMBERS + ODD_NUMBERS))
        body: list[str] = []
        markers = [".T", ".A", ".B", ".W"]
        if odd and draw(rarely(6)):
            markers = draw(st.permutations(markers))
        for marker in markers:
            if not draw(rarely(5)):
                body.append(marker)
                body += draw(st.lists(text(odd), max_size=3))
        if odd and draw(rarely(7)):
            body = [draw(text(odd)), *body]  # text before the first marker
        records.append((number, body))
    return draw(_lines(records, odd)), count


@st.composite
def queries(draw: st.DrawFn, odd: bool) -> tuple[list[str], int]:
    """The lines of ``cran.qry``, and how many queries it holds."""
    records = []
    count = draw(st.integers(0 if odd else 1, 4))
    for _ in range(count):
        number = draw(st.sampled_from(NUMBERS + (ODD_NUMBERS if odd else ())))
        body = [".W"] if not (odd and draw(rarely(7))) else []
        body += draw(st.lists(text(odd), max_size=3))
        if not odd:
            body.append("what is the lift")  # never without text
        records.append((number, body))
    return draw(_lines(records, odd)), count


@st.composite
def judgments(draw: st.DrawFn, odd: bool, n_docs: int, n_queries: int) -> list[str]:
    """The lines of ``cranqrel``: mostly judgments of the queries and documents there are."""
    lines = []
    pairs = [(q, d) for q in range(1, n_queries + 1) for d in range(1, n_docs + 1)]
    if not odd:
        pairs = draw(st.permutations(pairs))[: draw(st.integers(1, max(1, len(pairs))))]
    for k in range(len(pairs) if not odd else draw(st.integers(0, 8))):
        q, d = pairs[k] if not odd and pairs else (1, 1)
        fields = [str(q), str(d), draw(st.sampled_from(("1", "2", "3", "4", "-1", "5")))]
        if odd:
            fields = [
                draw(st.sampled_from(("1", "2", "3", "0", "9", "\u0661", "1_0", "x", "+1"))),
                draw(st.sampled_from(("1", "2", "3", "7", "+2", "\u0662", "02"))),
                draw(st.sampled_from(("1", "2", "3", "4", "-1", "5", "7", "2.0"))),
            ]
            if draw(rarely(10)):
                fields = fields[: draw(st.integers(0, 2))] or [*fields, "1"]
        seps = [draw(st.sampled_from([" ", " ", "  ", "\t", "\u00a0", "\u3000"])) for _ in fields]
        line = "".join(f + s for f, s in zip(fields, seps, strict=True))
        lines.append(line if draw(st.booleans()) else line.rstrip())
        if draw(rarely(8)):
            lines.append(draw(st.sampled_from(["", "  ", "\t"])))
    return lines


@st.composite
def collection_files(draw: st.DrawFn) -> dict[str, bytes]:
    """The three files of a small collection; each file ``odd`` (mutated) or not."""
    docs, n_docs = draw(documents(draw(st.booleans())))
    topics, n_queries = draw(queries(draw(st.booleans())))
    qrels = draw(judgments(draw(st.booleans()), n_docs, n_queries))
    contents = [draw(encoded(lines)) for lines in (docs, topics, qrels)]
    return dict(zip(FILES, contents, strict=True))


@st.composite
def encoded(draw: st.DrawFn, lines: list[str]) -> bytes:
    """Lines with LF or CRLF ends (per file, as distributed, or per line), perhaps no final
    newline, now and then a byte that is not UTF-8."""
    ends = draw(st.sampled_from(["lf", "crlf", "mixed"]))
    out = []
    for line in lines:
        end = {"lf": "\n", "crlf": "\r\n"}.get(ends) or draw(st.sampled_from(["\n", "\r\n"]))
        out.append(line.encode() + end.encode())
    data = b"".join(out)
    if draw(rarely(4)):
        data = data.rstrip(b"\r\n")
    if data and draw(rarely(21)):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"])) + data[at:]
    return data


def _files(docs: str, topics: str, judged: str) -> dict[str, bytes]:
    return dict(zip(FILES, (docs.encode(), topics.encode(), judged.encode()), strict=True))


@pytest.mark.slow
# Found by this test: '.I ²' raised ValueError (str.isdigit() is true of '²', int() refuses
# it) ...
@example(files=_files(".I 1\n.W\nx\n", ".I \u00b2\n.W\nq\n", "1 1 1\n"), drop=False)
# ... '١' (an Arabic-Indic one) in cranqrel was read as document 1 ...
@example(files=_files(".I 1\n.W\nx\n", ".I 1\n.W\nq\n", "1 \u0661 1\n"), drop=False)
# ... and a form feed inside a line ended it: '.I 2' after it started a second document.
@example(files=_files(".I 1\n.W\na\x0c.I 2\n", ".I 1\n.W\nq\n", "1 1 1\n"), drop=False)
@fuzz(200)
@given(files=collection_files(), drop=st.booleans())
def test_small_cranfield_collections_are_read_as_documented(
    files: dict[str, bytes], drop: bool
) -> None:
    gains = DROP_UNEXPLAINED if drop else GAINS
    verdict = reference.cranfield(files, dict(gains))
    event("valid" if verdict.error is None else f"refused: {verdict.error[0]}")
    with tempfile.TemporaryDirectory() as folder:
        for name, data in files.items():
            (Path(folder) / name).write_bytes(data)
        outcome = attempt(lambda: read_cranfield(folder, gains=gains))
        if verdict.error is not None:
            name, line = verdict.error
            error = one_line_error(outcome, Path(folder) / name)
            assert error.line == line, (str(error), verdict.error)
            return
        assert isinstance(outcome, Collection), outcome
        assert [(d.doc_id, d.title, d.text) for d in outcome.iter_documents()] == (
            verdict.documents
        )
        assert [(t.query_id, t.title, t.original_id) for t in outcome.topics] == verdict.topics
        rows = outcome.qrels.frame.select("query_id", "doc_id", "relevance").rows()
        assert {(q, d): r for q, d, r in rows} == verdict.qrels


def test_the_real_collection_reads_as_the_reference_reads_it() -> None:
    """The distributed files themselves (CRLF queries, irregular judgments, document 240's
    stray markers, 576 and 578's two abstracts)."""
    folder = require(SHARED / "data" / "cranfield")
    files = {name: (folder / name).read_bytes() for name in FILES}
    verdict = reference.cranfield(files, dict(GAINS))
    assert verdict.error is None
    collection = read_cranfield(folder)
    assert [(d.doc_id, d.title, d.text) for d in collection.iter_documents()] == verdict.documents
    assert [(t.query_id, t.title, t.original_id) for t in collection.topics] == verdict.topics
    rows = collection.qrels.frame.select("query_id", "doc_id", "relevance").rows()
    assert {(q, d): r for q, d, r in rows} == verdict.qrels
    assert isinstance(InputError, type)
