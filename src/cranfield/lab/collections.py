"""Test collections: documents, topics and judgments, with readers for common formats.

A :class:`Collection` bundles a stream of :class:`Document` objects, a list of
:class:`Topic` objects and the :class:`~cranfield.Qrels` that judge them. Readers:

* :func:`read_cranfield`: the classic Cranfield 1400 collection in its original format
  (``cran.all.1400``, ``cran.qry``, ``cranqrel``), with the query renumbering and the
  explicit mapping of Cleverdon's relevance codes to gains (:data:`CRANFIELD_GAINS`).
* :func:`read_topics`: TREC topic files (classic SGML ``<top>``, XML ``<topic>``, or
  ``query_id<TAB>text`` lines).
* :func:`read_trec_documents`: documents in TREC's classic SGML (``<DOC><DOCNO>…</DOCNO>
  <TEXT>…</TEXT></DOC>``, the TREC disks' and most ad hoc collections' format).
* :func:`from_ir_datasets`: any dataset of the optional ``ir_datasets`` package
  (``pip install '.[irds]'``); downloading it needs network access.
"""

from __future__ import annotations

import hashlib
import importlib
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any, Final, Literal, get_args

from cranfield._lazy import install_hint
from cranfield._validate import check_choice
from cranfield.data.qrels import Qrels
from cranfield.errors import InputError
from cranfield.io.lines import INTEGER
from cranfield.io.load import QrelsLike, load_qrels
from cranfield.io.source import open_source, read_bytes

__all__ = [
    "CRANFIELD_GAINS",
    "Collection",
    "Document",
    "QueryField",
    "Topic",
    "from_ir_datasets",
    "read_cranfield",
    "read_topics",
    "read_trec_documents",
]

QueryField = Literal["title", "description", "narrative", "title+description"]
QUERY_FIELDS: Final[tuple[str, ...]] = get_args(QueryField)

#: Gain of each Cranfield relevance code (Cleverdon's scale: a *smaller* code is *more*
#: relevant). Codes 1-4 become gains 4-1, so binary measures (relevance >= 1) count codes
#: 1-4 as relevant and graded measures such as nDCG give a "complete answer" (code 1) the
#: largest gain. Code -1 (unexplained in the distribution; one per query, probably the
#: paper the question came from) becomes 0: judged, not relevant. Code 5 ("of no interest")
#: never occurs but would also be 0.
CRANFIELD_GAINS: Final[Mapping[int, int]] = MappingProxyType({1: 4, 2: 3, 3: 2, 4: 1, 5: 0, -1: 0})


@dataclass(frozen=True)
class Document:
    """One document: an id, its body text and an optional title.

    Attributes
    ----------
    doc_id:
        The id written to run files (no blanks).
    text:
        Body text.
    title:
        Title, indexed with the body (empty when the collection has none).
    """

    doc_id: str
    text: str
    title: str = ""

    @property
    def contents(self) -> str:
        """The text an engine indexes: title and body separated by a newline."""
        return f"{self.title}\n{self.text}" if self.title else self.text


@dataclass(frozen=True)
class Topic:
    """One information need.

    Attributes
    ----------
    query_id:
        The id used in qrels and run files.
    title:
        The short query (for Cranfield, the whole question).
    description, narrative:
        TREC's longer statements (empty when absent).
    original_id:
        The id printed in the source file when it differs from :attr:`query_id`
        (Cranfield: the ``.I`` number).
    """

    query_id: str
    title: str
    description: str = ""
    narrative: str = ""
    original_id: str | None = None

    def query(self, field: QueryField = "title") -> str:
        """The query text built from ``field`` (``"title+description"`` joins both).

        Examples
        --------
        >>> Topic("301", "crime", "Identify organized crime.").query("title+description")
        'crime Identify organized crime.'
        """
        check_choice("field", field, QUERY_FIELDS)
        if field == "title+description":
            return " ".join(p for p in (self.title, self.description) if p)
        text: str = getattr(self, field)
        return text


@dataclass(frozen=True, eq=False)
class Collection:
    """Documents, topics and judgments, ready for :class:`cranfield.lab.Experiment`.

    Attributes
    ----------
    name:
        Short name used in reports and cache keys.
    documents:
        The documents, or a zero-argument callable returning a fresh iterator over them
        (so large collections are streamed, never held in memory).
    topics:
        Topics in file order.
    qrels:
        Judgments of the topics.
    fingerprint:
        Identifies the content; cached indexes and runs are reused only while it is
        unchanged.
    size_bytes:
        Size of the raw collection on disk (the denominator of the space overhead), or
        ``None`` when unknown; the experiment then uses the UTF-8 bytes of the document
        text it indexes.
    """

    name: str
    documents: Sequence[Document] | Callable[[], Iterable[Document]]
    topics: tuple[Topic, ...]
    qrels: Qrels
    fingerprint: str
    size_bytes: int | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def iter_documents(self) -> Iterator[Document]:
        """A fresh iterator over the documents."""
        docs = self.documents
        if callable(docs):
            return iter(docs())
        return iter(docs)

    def queries(self, field: QueryField = "title") -> dict[str, str]:
        """``{query_id: query text}`` in topic order."""
        check_choice("field", field, QUERY_FIELDS)
        return {t.query_id: t.query(field) for t in self.topics}

    def __repr__(self) -> str:
        return (
            f"Collection(name={self.name!r}, topics={len(self.topics)}, "
            f"judgments={len(self.qrels)}, fingerprint={self.fingerprint[:12]!r})"
        )

    @classmethod
    def from_documents(
        cls,
        name: str,
        documents: Iterable[Document],
        topics: Iterable[Topic],
        qrels: QrelsLike,
    ) -> Collection:
        """A collection held in memory; the fingerprint hashes every document and topic.

        Examples
        --------
        >>> c = Collection.from_documents(
        ...     "toy", [Document("d1", "wind tunnel"), Document("d2", "heat transfer")],
        ...     [Topic("q1", "heat")], {"q1": {"d2": 1}})
        >>> c.queries(), sum(1 for _ in c.iter_documents())
        ({'q1': 'heat'}, 2)
        """
        docs = tuple(documents)
        tops = tuple(topics)
        judged = load_qrels(qrels)
        h = hashlib.sha256()
        for d in docs:
            h.update(f"D\0{d.doc_id}\0{d.title}\0{d.text}\0".encode())
        for t in tops:
            h.update(f"T\0{t.query_id}\0{t.title}\0{t.description}\0{t.narrative}\0".encode())
        h.update(judged.frame.write_csv().encode())
        return cls(name=name, documents=docs, topics=tops, qrels=judged, fingerprint=h.hexdigest())


# --------------------------------------------------------------------------- Cranfield

_DOC_FIELDS: Final = {".T": 0, ".A": 1, ".B": 2, ".W": 3}


def _lines(path: Path) -> list[str]:
    """Lines of an ASCII/UTF-8 file (compressed or not) without their line ends (LF or CRLF),
    read by the one file opener, within its limits."""
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(str(path), line, "is not UTF-8 text") from exc
    # Only LF (or CR LF) ends a line: str.splitlines() also breaks at a form feed, U+2028 and
    # other characters that may stand inside a line, which moved the line numbers.
    return [line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")]


def _record_id(path: Path, number: int, line: str) -> str:
    parts = line.split()
    if len(parts) != 2 or not (parts[1].isascii() and parts[1].isdigit()):
        raise InputError(str(path), number, "expected '.I <number>'", line)
    return str(int(parts[1]))


def _cranfield_documents(path: Path) -> tuple[Document, ...]:
    """Parse ``cran.all.1400``: records ``.I n`` with fields ``.T .A .B .W`` in that order.

    A field marker is recognised only after the markers before it in that order, so the
    stray ``.A``/``.B`` lines inside document 240's abstract stay text; a repeated ``.W``
    (documents 576 and 578) continues the abstract.
    """
    docs: list[Document] = []
    seen: dict[str, int] = {}
    fields: list[list[str]] | None = None
    current = -1
    doc_id = ""

    def close() -> None:
        if fields is not None:
            title = " ".join(" ".join(fields[0]).split())
            body = " ".join(" ".join(fields[3]).split())
            docs.append(Document(doc_id, body, title))

    for number, raw in enumerate(_lines(path), start=1):
        line = raw.rstrip()
        if line.startswith(".I ") or line == ".I":
            close()
            doc_id = _record_id(path, number, line)
            if doc_id in seen:
                raise InputError(
                    str(path), number, f"document {doc_id} repeats (first on line {seen[doc_id]})"
                )
            seen[doc_id] = number
            fields, current = [[], [], [], []], -1
            continue
        if fields is None:
            if line.strip():
                raise InputError(str(path), number, "text before the first '.I' record", line)
            continue
        marker = _DOC_FIELDS.get(line)
        if marker is not None and (marker > current or (marker == current == 3)):
            current = marker
            continue
        if current < 0:
            if line.strip():
                raise InputError(str(path), number, "text before the first field marker", line)
            continue
        fields[current].append(line)
    close()
    if not docs:
        raise InputError(str(path), None, "contains no '.I' document records")
    return tuple(docs)


def _cranfield_queries(path: Path) -> tuple[Topic, ...]:
    """Parse ``cran.qry``; query ids are *positions* (1, 2, 3 ...), see :func:`read_cranfield`."""
    topics: list[Topic] = []
    original: str | None = None
    text: list[str] | None = None
    start = 0

    def close() -> None:
        if original is None:
            return
        if text is None:
            raise InputError(str(path), start, f"query {original} has no '.W' line")
        body = " ".join(" ".join(text).split())
        if not body:
            raise InputError(str(path), start, f"query {original} has no text")
        topics.append(Topic(str(len(topics) + 1), body, original_id=original))

    for number, raw in enumerate(_lines(path), start=1):
        line = raw.rstrip()
        if line.startswith(".I ") or line == ".I":
            close()
            original, text, start = _record_id(path, number, line), None, number
        elif original is None:
            if line.strip():
                raise InputError(str(path), number, "text before the first '.I' record", line)
        elif line == ".W" and text is None:
            text = []
        elif text is None:
            if line.strip():
                raise InputError(str(path), number, "query text before its '.W' line", line)
        else:
            text.append(line)
    close()
    if not topics:
        raise InputError(str(path), None, "contains no '.I' query records")
    return tuple(topics)


def _cranfield_qrels(
    path: Path, gains: Mapping[int, int | None], n_queries: int, doc_ids: set[str]
) -> Qrels:
    judged: dict[str, dict[str, int]] = {}
    where: dict[tuple[str, str], int] = {}
    for number, raw in enumerate(_lines(path), start=1):
        parts = raw.split()
        if not parts:
            continue
        if len(parts) != 3:
            raise InputError(
                str(path), number, f"expected 3 fields (query document code), got {len(parts)}", raw
            )
        if not all(INTEGER.match(p) for p in parts):  # int() would take '1_0' and '١'
            raise InputError(str(path), number, "fields must be integers", raw)
        q, d, code = (int(p) for p in parts)
        if not 1 <= q <= n_queries:
            raise InputError(
                str(path), number, f"query {q} is not a position in cran.qry (1..{n_queries})", raw
            )
        if str(d) not in doc_ids:
            raise InputError(str(path), number, f"document {d} is not in cran.all.1400", raw)
        if code not in gains:
            known = ", ".join(str(c) for c in sorted(gains))
            raise InputError(
                str(path), number, f"relevance code {code} has no gain (mapped codes: {known})", raw
            )
        key = (str(q), str(d))
        if key in where:
            raise InputError(
                str(path),
                number,
                f"query {q} document {d} is judged twice (also line {where[key]})",
            )
        where[key] = number
        gain = gains[code]
        if gain is not None:
            judged.setdefault(str(q), {})[str(d)] = int(gain)
    if not judged:
        raise InputError(str(path), None, "contains no judgments")
    return load_qrels(judged, name=path.name)


_TREC_DOCNO: Final = re.compile(r"<DOCNO>(.*?)</DOCNO>", re.IGNORECASE | re.DOTALL)
_TREC_TEXT: Final = re.compile(r"<TEXT>(.*?)</TEXT>", re.IGNORECASE | re.DOTALL)
_TREC_TITLE: Final = re.compile(r"<(HEADLINE|TITLE|HEAD)>(.*?)</\1>", re.IGNORECASE | re.DOTALL)
_TREC_DOCHDR: Final = re.compile(r"<DOCHDR>.*?</DOCHDR>", re.IGNORECASE | re.DOTALL)
_TREC_DOC_OPEN: Final = re.compile(r"<DOC>", re.IGNORECASE)
_TREC_DOC_CLOSE: Final = re.compile(r"</DOC>", re.IGNORECASE)
_SGML_TAG: Final = re.compile(r"<[^<>]*>")


def _plain(sgml: str) -> str:
    """Text without its tags, whitespace collapsed."""
    return " ".join(_SGML_TAG.sub(" ", sgml).split())


def read_trec_documents(path: str | Path) -> Iterator[Document]:
    """Documents in TREC's classic SGML, one ``<DOC>…</DOC>`` after another.

    The id is the ``<DOCNO>``; the body the ``<TEXT>`` sections (all of them, in order), or,
    in a document without one, everything but its ``<DOCNO>``, its title and a Web
    ``<DOCHDR>``; the title the first ``<HEADLINE>``, ``<TITLE>`` or ``<HEAD>``. Tags inside
    them are dropped and whitespace collapsed. The file (plain or compressed) is read as a
    stream, one document in memory at a time.

    Raises
    ------
    cranfield.errors.InputError
        Naming the file and line: text outside a document, a ``<DOC>`` inside another or
        never closed, a document without a ``<DOCNO>`` or whose id is empty or has a blank,
        text that is not UTF-8.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "docs.sgml"
    >>> _ = p.write_text("<DOC>\\n<DOCNO> FT911-1 </DOCNO>\\n<HEADLINE>Wings</HEADLINE>\\n"
    ...                  "<TEXT>\\nSwept <B>wings</B> at\\nspeed.\\n</TEXT>\\n</DOC>\\n")
    >>> list(read_trec_documents(p))
    [Document(doc_id='FT911-1', text='Swept wings at speed.', title='Wings')]
    """
    label = str(path)
    with open_source(path) as raw:
        start: int | None = None
        body: list[str] = []
        number = 0
        for number, data in enumerate(raw, start=1):
            try:
                line = data.decode("utf-8")
            except UnicodeDecodeError:
                raise InputError(label, number, "is not UTF-8 text") from None
            rest = line
            while rest:
                if start is None:
                    opened = _TREC_DOC_OPEN.search(rest)
                    before = rest if opened is None else rest[: opened.start()]
                    if before.strip():
                        raise InputError(
                            label, number, "has text outside <DOC>...</DOC>", before.strip()
                        )
                    if opened is None:
                        break
                    start, body, rest = number, [], rest[opened.end() :]
                    continue
                closed = _TREC_DOC_CLOSE.search(rest)
                inner = rest if closed is None else rest[: closed.start()]
                if _TREC_DOC_OPEN.search(inner):
                    raise InputError(label, number, f"opens a <DOC> inside the one of line {start}")
                body.append(inner)
                if closed is None:
                    break
                yield _trec_document("".join(body), label, start)
                start, rest = None, rest[closed.end() :]
        if start is not None:
            raise InputError(label, start, "opens a <DOC> that is never closed")


def _trec_document(sgml: str, label: str, line: int) -> Document:
    docno = _TREC_DOCNO.search(sgml)
    if docno is None:
        raise InputError(label, line, "starts a document without a <DOCNO>")
    doc_id = _plain(docno.group(1))
    if not doc_id or " " in doc_id:
        raise InputError(label, line, "has a <DOCNO> that is empty or holds a blank", doc_id)
    title = _TREC_TITLE.search(sgml)
    texts = _TREC_TEXT.findall(sgml)
    if texts:
        text = " ".join(_plain(t) for t in texts)
    else:
        rest = _TREC_DOCHDR.sub(" ", _TREC_DOCNO.sub(" ", sgml, count=1))
        text = _plain(rest if title is None else rest.replace(title.group(0), " ", 1))
    return Document(doc_id, text.strip(), _plain(title.group(2)) if title else "")


def read_cranfield(
    directory: str | Path,
    *,
    gains: Mapping[int, int | None] = CRANFIELD_GAINS,
    documents: str = "cran.all.1400",
    queries: str = "cran.qry",
    qrels: str = "cranqrel",
) -> Collection:
    """Read the Cranfield 1400 collection in its original distribution format.

    Parameters
    ----------
    directory:
        Folder holding ``cran.all.1400``, ``cran.qry`` and ``cranqrel``.
    gains:
        Gain of each relevance code, default :data:`CRANFIELD_GAINS`
        (``{1: 4, 2: 3, 3: 2, 4: 1, 5: 0, -1: 0}``). Map a code to ``None`` to drop its
        judgments (``{**CRANFIELD_GAINS, -1: None}`` leaves the ``-1`` documents unjudged).
    documents, queries, qrels:
        File names inside ``directory``.

    Returns
    -------
    Collection
        1400 documents (title and abstract; authors and source are not indexed), 225 topics
        with ids ``"1"`` .. ``"225"`` and the graded qrels; ``size_bytes`` is the size of
        the document file.

    Raises
    ------
    cranfield.errors.InputError
        A file is missing or malformed, a code has no gain, or a judgment names a query
        position or document that does not exist; the message names file and line.

    Notes
    -----
    **Query numbering.** ``cran.qry`` labels its 225 queries with ids between 1 and 365
    (``.I 001``, ``002``, ``004`` ...) but ``cranqrel`` numbers them 1..225 by *position*:
    judgment query *k* is the *k*-th record of ``cran.qry``. Topics therefore get their
    position as :attr:`Topic.query_id` and keep the printed id in
    :attr:`Topic.original_id` (so ``"3"`` is ``.I 004``). Using the printed ids pairs
    queries with unrelated judgments.

    **Relevance codes.** Cleverdon's codes run the other way round from gains: 1 is a
    complete answer, 4 of minimal interest, -1 is unexplained (one per query, judged not
    relevant here). The default mapping gives codes 1-4 the gains 4-1, so binary measures
    count 1-4 as relevant and nDCG rewards code 1 most. ``ir_datasets`` passes the raw codes
    through, which makes nDCG reward *less* relevant documents more.

    **Documents** 471 and 995 are empty and kept; 576 and 578 have two abstracts, which
    are joined; the lines ``.A`` and ``.B`` inside 240's abstract are text.

    Examples
    --------
    >>> from tests.conftest import SHARED  # doctest: +SKIP
    >>> c = read_cranfield(SHARED / "data" / "cranfield")  # doctest: +SKIP
    >>> c.topics[2].query_id, c.topics[2].original_id  # doctest: +SKIP
    ('3', '4')
    """
    root = Path(directory)
    if not root.is_dir():
        raise InputError(str(root), None, "is not a directory with the Cranfield files")
    doc_path, qry_path, rel_path = root / documents, root / queries, root / qrels
    docs = _cranfield_documents(doc_path)
    topics = _cranfield_queries(qry_path)
    judged = _cranfield_qrels(rel_path, gains, len(topics), {d.doc_id for d in docs})
    h = hashlib.sha256()
    for p in (doc_path, qry_path, rel_path):
        h.update(hashlib.sha256(p.read_bytes()).digest())
    h.update(repr(sorted(gains.items())).encode())
    return Collection(
        name="cranfield",
        documents=docs,
        topics=topics,
        qrels=judged,
        fingerprint=h.hexdigest(),
        size_bytes=doc_path.stat().st_size,
        notes=(
            "Cranfield query ids are positions in cran.qry (1..225), as cranqrel numbers them.",
            "Relevance codes mapped to gains: "
            + ", ".join(f"{c}->{g}" for c, g in sorted(gains.items()))
            + ".",
        ),
    )


# --------------------------------------------------------------------------- TREC topics

_TAG = re.compile(r"<(/?)(num|title|desc|narr|top)>", re.IGNORECASE)
_PREFIX = re.compile(r"^\s*(number|topic|description|narrative)\s*:\s*", re.IGNORECASE)


def _clean(text: str) -> str:
    return " ".join(_PREFIX.sub("", text, count=1).split())


def _sgml_topics(text: str, label: str) -> list[Topic]:
    """Classic TREC ``<top> <num> <title> <desc> <narr> </top>`` topics (closing tags optional)."""
    topics: list[Topic] = []
    fields: dict[str, str] | None = None
    tag: str | None = None
    start = 0
    line_of_top = 0
    for match in _TAG.finditer(text):
        if fields is not None and tag is not None:
            fields[tag] = fields.get(tag, "") + text[start : match.start()]
        closing, name = match.group(1) == "/", match.group(2).lower()
        if name == "top":
            if not closing:
                if fields is not None:
                    raise InputError(
                        label, text.count("\n", 0, match.start()) + 1, "'<top>' inside a topic"
                    )
                fields, tag = {}, None
                line_of_top = text.count("\n", 0, match.start()) + 1
            else:
                if fields is None:
                    raise InputError(
                        label, text.count("\n", 0, match.start()) + 1, "'</top>' without '<top>'"
                    )
                topics.append(_topic_from_fields(fields, label, line_of_top))
                fields, tag = None, None
        elif fields is not None:
            tag = None if closing else name
        start = match.end()
    if fields is not None:
        raise InputError(label, line_of_top, "topic has no closing '</top>'")
    return topics


def _topic_from_fields(fields: Mapping[str, str], label: str, line: int) -> Topic:
    number = _clean(fields.get("num", ""))
    if not number or any(c.isspace() for c in number):
        raise InputError(label, line, "topic has no single-word <num>", number or None)
    title = _clean(fields.get("title", ""))
    desc = _clean(fields.get("desc", ""))
    if not title and not desc:
        raise InputError(label, line, f"topic {number} has neither <title> nor <desc> text")
    return Topic(number, title, desc, _clean(fields.get("narr", "")))


def _xml_topics(text: str, label: str) -> list[Topic]:
    """``<topics><topic number="1"><query>..</query><question>..</question>...`` topics."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise InputError(label, exc.position[0], f"is not well-formed XML ({exc})") from None
    topics: list[Topic] = []
    for i, node in enumerate(root.iter("topic"), start=1):
        number = node.get("number") or node.get("id") or (node.findtext("number") or "").strip()
        if not number:
            raise InputError(label, None, f"topic {i} has no 'number' attribute")

        def first(*names: str, node: ET.Element = node) -> str:
            for n in names:
                found = node.findtext(n)
                if found and found.strip():
                    return " ".join(found.split())
            return ""

        title = first("query", "title", "keyword")
        desc = first("question", "description", "desc")
        if not title and not desc:
            raise InputError(label, None, f"topic {number} has neither <query> nor <question> text")
        topics.append(Topic(number, title, desc, first("narrative", "narr")))
    return topics


def _tsv_topics(text: str, label: str) -> list[Topic]:
    topics: list[Topic] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        qid, sep, query = line.partition("\t")
        if not sep or not qid.strip() or not query.strip():
            raise InputError(label, number, "expected 'query_id<TAB>query text'", line)
        topics.append(Topic(qid.strip(), " ".join(query.split())))
    return topics


def read_topics(path: str | Path) -> tuple[Topic, ...]:
    """Read a TREC topic file: SGML ``<top>``, XML ``<topic number=...>``, or TSV lines.

    The format is recognised from the content: ``<top>`` tags (TREC 1-2003 style, closing
    tags optional, ``Number:``/``Description:``/``Narrative:`` prefixes removed), a
    ``<topics>`` XML document (``<query>``, ``<question>``, ``<narrative>``; TREC Web,
    COVID, ...), or ``query_id<TAB>text`` lines (MS MARCO style). Whitespace inside fields
    is collapsed.

    Raises
    ------
    cranfield.errors.InputError
        Unreadable file, a topic without a number or text, or a repeated number.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "topics.txt"
    >>> _ = p.write_text("<top>\\n<num> Number: 301\\n<title> Organized Crime\\n"
    ...                  "<desc> Description:\\nIdentify crime.\\n</top>\\n")
    >>> read_topics(p)[0]
    Topic(query_id='301', title='Organized Crime', description='Identify crime.', \
narrative='', original_id=None)
    """
    source = Path(path)
    label = str(source)
    text = "\n".join(_lines(source))
    if re.search(r"<top>", text, re.IGNORECASE):
        topics = _sgml_topics(text, label)
    elif re.search(r"<topic[\s>]", text):
        topics = _xml_topics(text, label)
    else:
        topics = _tsv_topics(text, label)
    if not topics:
        raise InputError(label, None, "contains no topics")
    seen: set[str] = set()
    for t in topics:
        if t.query_id in seen:
            raise InputError(label, None, f"topic {t.query_id} occurs more than once")
        seen.add(t.query_id)
    return tuple(topics)


# --------------------------------------------------------------------------- ir_datasets


def _import_ir_datasets() -> ModuleType:
    try:
        return importlib.import_module("ir_datasets")
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "reading an ir_datasets collection needs the optional package ir_datasets; "
            + install_hint("irds")
        ) from None


def _text_of(record: Any) -> str:
    default = getattr(record, "default_text", None)
    if callable(default):
        return str(default())
    return str(getattr(record, "text", ""))


def from_ir_datasets(
    dataset: str | Any,
    *,
    name: str | None = None,
    gains: Mapping[int, int | None] | None = None,
) -> Collection:
    """A collection from ``ir_datasets`` (an id such as ``"cranfield"``, or a loaded dataset).

    Documents and queries use the dataset's ``default_text()`` (for most datasets the
    title and body); documents are streamed from ``docs_iter()`` each time the collection
    is indexed. ``gains`` optionally maps the dataset's relevance values (a value mapped to
    ``None`` drops the judgment). Needs ``pip install '.[irds]'`` and, the first
    time, network access to download the data.

    Notes
    -----
    ``ir_datasets`` passes Cranfield's codes through unchanged (1 = minimal interest ...
    4 = complete answer in its documentation, the reverse of the distribution's readme); for
    Cranfield prefer :func:`read_cranfield`, or pass ``gains=CRANFIELD_GAINS``.
    """
    ds = _import_ir_datasets().load(dataset) if isinstance(dataset, str) else dataset
    label = name or (dataset if isinstance(dataset, str) else type(dataset).__name__)
    topics = tuple(Topic(str(q.query_id), " ".join(_text_of(q).split())) for q in ds.queries_iter())
    judged: dict[str, dict[str, int]] = {}
    for i, rec in enumerate(ds.qrels_iter(), start=1):
        value = int(rec.relevance)
        if gains is not None:
            if value not in gains:
                raise InputError(label, i, f"relevance value {value} has no gain in 'gains'")
            mapped = gains[value]
            if mapped is None:
                continue
            value = int(mapped)
        judged.setdefault(str(rec.query_id), {})[str(rec.doc_id)] = value

    def documents() -> Iterator[Document]:
        for doc in ds.docs_iter():
            yield Document(str(doc.doc_id), _text_of(doc))

    h = hashlib.sha256(f"ir_datasets\0{label}\0{sorted((gains or {}).items())}".encode())
    return Collection(
        name=str(label).replace("/", "-"),
        documents=documents,
        topics=topics,
        qrels=load_qrels(judged, name=str(label)),
        fingerprint=h.hexdigest(),
    )
