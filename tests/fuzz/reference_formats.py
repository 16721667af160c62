"""Plain reference readers of cranfield's documented text formats: the fuzzing suite's oracle.

Each reader is written from the documentation, never from cranfield's code: the README's
"Policies", the module notes of ``io/trec.py``, ``io/prefs.py`` and ``io/intents.py``, the
notes of ``lab/collections.py`` and the collection's own README
(``shared/data/cranfield/README.md``), and trec_eval's rules
(``shared/research/trec_eval.md``). They walk the bytes one line at a time, obviously and
slowly, and return a :class:`Verdict`: the values a correct reader gives, or every line that
a correct reader may name in its error.

The TREC-style rules they share (``io/trec.py``):

* lines end at ``\\n``; a UTF-8 byte-order mark at the very start of the file is dropped;
* the text must be UTF-8 throughout, comment lines included;
* fields are separated by runs of the ASCII blanks space, tab, CR, VT and FF (C's
  ``isspace`` without the newline); any other byte (NUL, a no-break space, U+2028 ...)
  belongs to a field;
* a blank line, or one whose first field starts with ``#``, is not a data line;
* a file without any data line is an error (that names no line).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

BOM = b"\xef\xbb\xbf"
_BLANKS = re.compile(rb"[ \t\r\x0b\x0c]+")
_INTEGER = re.compile(rb"[+-]?[0-9]+")
# "a decimal number (inf allowed, nan refused)": digits with an optional point and an
# optional exponent, or inf/infinity/nan in any case, after an optional sign.
_NUMBER = re.compile(
    rb"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)",
    re.IGNORECASE,
)
INT64 = (-(2**63), 2**63 - 1)


@dataclass
class Verdict:
    """What a correct reader does with one input.

    ``bad`` maps each line a correct reader may name in its error to why it is wrong; an
    input is valid when no line is bad and it has a data line (``empty`` is False), and
    then ``rows`` are its values (``tag``: a run's tag, of its last data line).
    """

    rows: list[tuple[Any, ...]] = field(default_factory=list)
    bad: dict[int, str] = field(default_factory=dict)
    empty: bool = True
    tag: str | None = None

    @property
    def valid(self) -> bool:
        return not self.bad and not self.empty


def physical_lines(data: bytes) -> list[bytes]:
    """The lines of a TREC-style file, numbered from 1 by their index + 1."""
    return data.removeprefix(BOM).split(b"\n")


def fields_of(raw: bytes) -> list[bytes]:
    return [f for f in _BLANKS.split(raw) if f]


def _data_lines(data: bytes, verdict: Verdict) -> list[tuple[int, bytes, list[bytes]]]:
    """``(number, raw line, fields)`` of each data line; lines that are not UTF-8 are bad."""
    out = []
    for number, raw in enumerate(physical_lines(data), start=1):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            verdict.bad[number] = "not UTF-8"
            continue
        fields = fields_of(raw)
        if fields and not fields[0].startswith(b"#"):
            out.append((number, raw, fields))
    verdict.empty = not out and not verdict.bad
    return out


def is_integer(text: bytes, *, bits64: bool = True) -> bool:
    return bool(_INTEGER.fullmatch(text)) and (not bits64 or INT64[0] <= int(text) <= INT64[1])


def is_number(text: bytes) -> bool:
    """A decimal number that is not NaN."""
    return bool(_NUMBER.fullmatch(text)) and not math.isnan(float(text))


def _duplicate(
    verdict: Verdict, seen: set[tuple[bytes, ...]], key: tuple[bytes, ...], n: int
) -> bool:
    if key in seen:
        verdict.bad[n] = "duplicate"
        return True
    seen.add(key)
    return False


_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+)")


def _label(text: bytes) -> int | float | None:
    """A relevance label: an integer of 64 bits, or a decimal without exponent whose
    integer part is one (its value, a float); ``None`` for anything else."""
    if is_integer(text):
        return int(text)
    whole = text.split(b".")[0]
    if _DECIMAL.fullmatch(text) and is_integer(whole if whole.strip(b"+-") else b"0"):
        return float(text)
    return None


def trec_qrels(data: bytes) -> Verdict:
    """``qid iter docno rel``: exactly four fields, ``rel`` an integer of 64 bits or a
    decimal (:func:`_label`); a (qid, docno) repeated with the same value is merged into
    its first line, with another value is an error. Rows: ``(qid, iter, docno, rel)``, rel
    an int or (a decimal label) a float."""
    verdict = Verdict()
    seen: dict[tuple[bytes, ...], float | None] = {}
    for number, _, fields in _data_lines(data, verdict):
        if len(fields) != 4:
            verdict.bad[number] = "fields"
            if len(fields) >= 3:  # a reader may also see its pair repeated later
                seen.setdefault((fields[0], fields[2]), None)
            continue
        key, label = (fields[0], fields[2]), _label(fields[3])
        if label is None:
            verdict.bad[number] = "relevance"
            seen.setdefault(key, None)
        elif key in seen:
            if seen[key] is None or seen[key] != label:
                verdict.bad[number] = "duplicate"
        else:
            seen[key] = label
            q, it, d = (f.decode() for f in fields[:3])
            verdict.rows.append((q, it, d, label))
    return verdict


def qrels_of(rows: list[tuple[Any, ...]]) -> Any:
    """The judgments of :func:`trec_qrels` rows as evaluation input: ``{query: {doc: rel}}``,
    or, with decimal labels, a ``Qrels`` whose levels are their integer parts and whose
    ``gain`` column holds the labels (the documented meaning of a decimal label)."""
    import polars as pl

    from cranfield.data.qrels import Qrels

    if not any(isinstance(r, float) for *_, r in rows):
        out: dict[str, dict[str, object]] = {}
        for q, _, d, r in rows:
            out.setdefault(q, {})[d] = r
        return out
    frame = pl.DataFrame(
        {
            "query_id": [q for q, *_ in rows],
            "iteration": [it for _, it, *_ in rows],
            "doc_id": [d for _, _, d, _ in rows],
            "relevance": [int(r) for *_, r in rows],
            "gain": [float(r) for *_, r in rows],
        },
        schema={
            "query_id": pl.String,
            "iteration": pl.String,
            "doc_id": pl.String,
            "relevance": pl.Int64,
            "gain": pl.Float64,
        },
    )
    return Qrels(frame.sort("query_id", "doc_id"))


def trec_run(data: bytes) -> Verdict:
    """``qid iter docno rank score tag [...]``: at least six fields, ``score`` a decimal
    number (not NaN); a repeated (qid, docno) is an error; ``iter`` and ``rank`` are
    ignored; the tag is the last data line's. Rows: ``(qid, docno, score)`` in file order.

    One more documented rule (``io/trec.py``, carriage returns): a line holding two or more
    CR-separated pieces of six fields each is several runs lines with old Mac line ends,
    and is refused rather than read as one line.
    """
    verdict = Verdict()
    seen: set[tuple[bytes, ...]] = set()
    for number, raw, fields in _data_lines(data, verdict):
        pieces = [p for p in raw.split(b"\r") if fields_of(p)]
        if sum(len(fields_of(p)) >= 6 for p in pieces) >= 2:
            verdict.bad[number] = "several lines joined by CR"
        if len(fields) < 6:
            verdict.bad[number] = "fields"
            if len(fields) >= 3:
                seen.add((fields[0], fields[2]))
            continue
        dup = _duplicate(verdict, seen, (fields[0], fields[2]), number)
        if not is_number(fields[4]):
            verdict.bad[number] = "score"
        elif not dup and number not in verdict.bad:
            verdict.rows.append((fields[0].decode(), fields[2].decode(), float(fields[4])))
        verdict.tag = fields[5].decode()
    return verdict


def prefs(data: bytes) -> Verdict:
    """``qid jg jsg docno rel_level`` (``io/prefs.py``): five fields, ``rel_level`` a decimal
    number (not NaN); a document twice in one sub-group of one group of one query is an
    error. Rows sorted by qid (bytewise), otherwise in file order."""
    verdict = Verdict()
    seen: set[tuple[bytes, ...]] = set()
    for number, _, fields in _data_lines(data, verdict):
        if len(fields) != 5:
            verdict.bad[number] = "fields"
            if len(fields) >= 4:
                seen.add(tuple(fields[:4]))
            continue
        dup = _duplicate(verdict, seen, tuple(fields[:4]), number)
        if not is_number(fields[4]):
            verdict.bad[number] = "rel_level"
        elif not dup:
            q, jg, jsg, d = (f.decode() for f in fields[:4])
            verdict.rows.append((q, jg, jsg, d, float(fields[4])))
    verdict.rows.sort(key=lambda row: row[0].encode())
    return verdict


def grouped_qrels(data: bytes) -> Verdict:
    """``qid group docno rel``: the judgment-group qrels of ``-R qrels_jg`` and the intent
    qrels of ``io/intents.py`` (group = subtopic): four fields, ``rel`` an integer; a
    document twice in one group of one query is an error. Rows sorted by qid, group and
    docno (bytewise)."""
    verdict = Verdict()
    seen: set[tuple[bytes, ...]] = set()
    for number, _, fields in _data_lines(data, verdict):
        if len(fields) != 4:
            verdict.bad[number] = "fields"
            if len(fields) >= 3:
                seen.add(tuple(fields[:3]))
            continue
        dup = _duplicate(verdict, seen, tuple(fields[:3]), number)
        if not is_integer(fields[3]):
            verdict.bad[number] = "relevance"
        elif not dup:
            q, g, d = (f.decode() for f in fields[:3])
            verdict.rows.append((q, g, d, int(fields[3])))
    verdict.rows.sort(key=lambda row: (row[0].encode(), row[1].encode(), row[2].encode()))
    return verdict


# --------------------------------------------------------------------------- Cranfield 1400


@dataclass
class CranfieldVerdict:
    """What a correct reader makes of a Cranfield folder: the collection, or the file and
    line (``None``: the file as a whole) of the first error."""

    documents: list[tuple[str, str, str]] | None = None  # (doc_id, title, text)
    topics: list[tuple[str, str, str]] | None = None  # (query_id, text, original_id)
    qrels: dict[tuple[str, str], int] | None = None
    error: tuple[str, int | None] | None = None


class _Refused(Exception):
    def __init__(self, line: int | None) -> None:
        self.line = line


def _text_lines(data: bytes) -> list[str]:
    """Lines of a UTF-8 file without their line ends, LF or CRLF (``lab/collections.py``);
    the line of the first byte that is not UTF-8 is an error."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Refused(data[: exc.start].count(b"\n") + 1) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the line end of the last line
    return [line.removesuffix("\r") for line in lines]


def _words(lines: list[str]) -> str:
    """Field text: line breaks are not meaningful, words are joined by single spaces."""
    return " ".join(" ".join(lines).split())


def _record_id(line: str, number: int) -> str:
    """``.I <number>``: two words, the second made of ASCII digits; the number itself."""
    words = line.split()
    if len(words) != 2 or not re.fullmatch(r"[0-9]+", words[1]):
        raise _Refused(number)
    return str(int(words[1]))


def _is_record(line: str) -> bool:
    return line == ".I" or line.startswith(".I ")


_MARKERS = {".T": 0, ".A": 1, ".B": 2, ".W": 3}


def cranfield_documents(data: bytes) -> list[tuple[str, str, str]]:
    """``cran.all.1400``: records ``.I n`` then field markers ``.T .A .B .W``, each on a
    line by itself (blanks after it allowed), in that order: a marker counts only after the
    markers before it in that order, so ``.A`` inside an abstract is text, and a repeated
    ``.W`` continues the abstract. Text before the first record, text of a record before
    its first marker, and a repeated document number are errors; so is a file without
    records."""
    docs: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    current: list[list[str]] | None = None
    rank = -1
    doc_id = ""
    for number, raw in enumerate(_text_lines(data), start=1):
        line = raw.rstrip()
        if _is_record(line):
            if current is not None:
                docs.append((doc_id, _words(current[0]), _words(current[3])))
            doc_id = _record_id(line, number)
            if doc_id in seen:
                raise _Refused(number)
            seen.add(doc_id)
            current, rank = [[], [], [], []], -1
            continue
        if current is None:
            if line.strip():
                raise _Refused(number)
            continue
        marker = _MARKERS.get(line)
        if marker is not None and (marker > rank or marker == rank == 3):
            rank = marker
            continue
        if rank < 0:
            if line.strip():
                raise _Refused(number)
            continue
        current[rank].append(line)
    if current is not None:
        docs.append((doc_id, _words(current[0]), _words(current[3])))
    if not docs:
        raise _Refused(None)
    return docs


def cranfield_queries(data: bytes) -> list[tuple[str, str, str]]:
    """``cran.qry``: records ``.I n``, a ``.W`` line, then the query text (a later ``.W``
    line is text). The query id is the record's position (1, 2, 3 ...), the printed number
    is kept. Errors: text before the first record or before its ``.W`` line; a record
    without a ``.W`` line or without text (named at the record's ``.I`` line); no records."""
    topics: list[tuple[str, str, str]] = []
    original: str | None = None
    text: list[str] | None = None
    start = 0

    def close() -> None:
        if original is None:
            return
        if text is None or not _words(text):
            raise _Refused(start)
        topics.append((str(len(topics) + 1), _words(text), original))

    for number, raw in enumerate(_text_lines(data), start=1):
        line = raw.rstrip()
        if _is_record(line):
            close()
            original, text, start = _record_id(line, number), None, number
        elif original is None or text is None:
            if line == ".W" and original is not None:
                text = []
            elif line.strip():
                raise _Refused(number)
        else:
            text.append(line)
    close()
    if not topics:
        raise _Refused(None)
    return topics


def cranfield_qrels(
    data: bytes, gains: dict[int, int | None], n_queries: int, doc_ids: set[str]
) -> dict[tuple[str, str], int]:
    """``cranqrel``: ``query document code`` separated by whitespace, blank lines skipped;
    three integers; the query a position of ``cran.qry``, the document one of
    ``cran.all.1400``, the code one of ``gains`` (a gain of ``None`` drops the judgment); a
    pair judged twice is an error, and so is a file without judgments."""
    judged: dict[tuple[str, str], int] = {}
    pairs: set[tuple[int, int]] = set()
    for number, raw in enumerate(_text_lines(data), start=1):
        words = raw.split()
        if not words:
            continue
        if len(words) != 3 or not all(re.fullmatch(r"[+-]?[0-9]+", w) for w in words):
            raise _Refused(number)
        q, d, code = (int(w) for w in words)
        if not 1 <= q <= n_queries or str(d) not in doc_ids or code not in gains:
            raise _Refused(number)
        if (q, d) in pairs:
            raise _Refused(number)
        pairs.add((q, d))
        gain = gains[code]
        if gain is not None:
            judged[(str(q), str(d))] = gain
    if not judged:
        raise _Refused(None)
    return judged


def cranfield(files: dict[str, bytes], gains: dict[int, int | None]) -> CranfieldVerdict:
    """The three files (``cran.all.1400``, ``cran.qry``, ``cranqrel``), read in that order."""
    verdict = CranfieldVerdict()
    where = "cran.all.1400"
    try:
        verdict.documents = cranfield_documents(files[where])
        where = "cran.qry"
        verdict.topics = cranfield_queries(files[where])
        where = "cranqrel"
        ids = {doc_id for doc_id, _, _ in verdict.documents}
        verdict.qrels = cranfield_qrels(files[where], gains, len(verdict.topics), ids)
    except _Refused as refused:
        verdict.error = (where, refused.line)
    return verdict
