"""Runs and qrels checked without evaluating them: what a file holds and what is wrong with it.

:func:`check` names each file's format (:func:`cranfield.io.formats.detect`) and what it
holds. A TREC file is read through the one opener (:func:`cranfield.io.source.read_bytes`) and
the line tokenizer of :mod:`cranfield.io.lines`, a run (6 fields or more) told from qrels (4
fields); a file in any other format (MS MARCO, BEIR, CSV, TSV, JSON, JSON Lines, Parquet) is
read by the one reader of its format (:func:`cranfield.io.formats.read_run_file`,
:func:`~cranfield.io.formats.read_qrels_file`), whose refusal is the ``unreadable`` finding, and
checked on the table it reads (a finding's ``line`` is then None and its message names the
data row). Each report counts what the file holds and lists its :class:`Finding`\\ s: what
the strict readers refuse (their own message), and what they accept but a user likely did not
mean (the last column says which files a finding applies to):

====================  =====================================================  ============
code                  finding                                                applies to
====================  =====================================================  ============
``unreadable``        the opener or the reader refuses the file (its         all
                      message)
``kind-unknown``      the file does not say whether it holds a run or        all
                      qrels (ranx JSON): give ``kind`` (``--kind``)
``format-ambiguous``  a headerless ``qid doc integer`` table whose third     MS MARCO
                      column is not ranks (1, increasing in each query):
                      scores or ranks? give the format
``duplicate``         a (query, document) pair on more than one line; in     all
                      a table, what the reader did (refused, or merged
                      identical judgments: its note)
``rank-zero``         a run line with rank 0 (ranks count from 1)            TREC
``rank-order``        queries whose rank field disagrees with the score      TREC
                      order (ranks are ignored)
``rank-repeat``       queries with one rank given to several documents       MS MARCO
                      (the ranks are the data: they tie)
``nonfinite-score``   ``nan`` or ``inf`` scores (a table reader refuses      all
                      NaN)
``negative-score``    negative scores (fine for a system's own scale; said   all
                      so it is known)
``tie-at-10``         queries whose score tie crosses rank 10: a measure at  all
                      10 then depends on the tie rule
``no-overlap``        the run shares no query with the qrels given           all
``low-overlap``       the run answers fewer than half of the judged queries  all
``unjudged-at-10``    more than half of the run's top 10 documents are       all
                      unjudged
``hash-docid``        a document id with ``#`` in a file with comment lines  TREC text
``crlf``              lines ending in CR LF (read fine; said so it is        TREC text
                      known)
``mixed-separators``  fields separated by tabs on some lines and spaces on   TREC text
                      others
====================  =====================================================  ============
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from cranfield.errors import AmbiguousFormatError, InputError, UnknownKindError
from cranfield.evaluation.overlap import partial_overlap
from cranfield.io import formats
from cranfield.io.lines import BOM, INTEGER, NUMBER, data_lines, int64, lines
from cranfield.io.source import is_parquet, read_bytes, regular_file, source_name

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from pathlib import Path

    from cranfield._types import FileFormat, InputKind
    from cranfield.data.qrels import Qrels
    from cranfield.data.run import Run

__all__ = ["CheckReport", "FileReport", "Finding", "check", "check_file"]

Kind = Literal["run", "qrels", "unknown"]
CUTOFF = 10
"""The rank the tie and unjudged findings look at."""


@dataclass(frozen=True)
class Finding:
    """One problem of a file: a short ``code`` (see the module notes), one sentence, and
    the first line it was seen on (``None``: not one line)."""

    code: str
    message: str
    line: int | None = None


@dataclass(frozen=True)
class FileReport:
    """What one file holds and what is wrong with it.

    ``format`` names the file's format and kind (``TREC (a run)``, ``BEIR qrels (...)``;
    None when the file cannot be read as either); ``depth`` is the number of documents per
    query (min, median, max) of a run, ``levels`` the number of judgments per relevance
    level of qrels; ``queries_with_ties`` counts the queries of a run with two documents of
    one score. ``lines`` counts the data lines of TREC text, the rows read from a table.
    """

    path: str
    kind: Kind
    format: str | None = None
    lines: int = 0
    queries: int = 0
    depth: tuple[int, float, int] | None = None
    levels: dict[str, int] = field(default_factory=dict)
    queries_with_ties: int = 0
    unjudged_at_10: float | None = None
    findings: tuple[Finding, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data (JSON-ready)."""
        return asdict(self)


@dataclass(frozen=True)
class CheckReport:
    """The reports of every file checked, in the order given."""

    files: tuple[FileReport, ...]
    qrels: str | None = None

    @property
    def findings(self) -> list[tuple[str, Finding]]:
        """``(path, finding)`` of every file."""
        return [(f.path, x) for f in self.files for x in f.findings]

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data (JSON-ready)."""
        return {"qrels": self.qrels, "files": [f.to_dict() for f in self.files]}


@dataclass
class _Rows:
    """The data lines of one file, split: ``(line, query, doc, rank text, score text)`` of
    a run or ``(line, query, doc, level text)`` of qrels."""

    kind: Kind
    rows: list[tuple[Any, ...]]
    findings: list[Finding]
    data: bytes = b""


def check(
    paths: Iterable[str | Path],
    *,
    qrels: str | Path | None = None,
    kind: InputKind | None = None,
) -> CheckReport:
    """Check each file of ``paths`` (runs and qrels in any format of
    :mod:`cranfield.io.formats`, compressed or not; ``-`` for TREC text on standard input);
    with ``qrels`` (in any format), also each run's queries and top documents against them.
    ``kind`` says what files that do not say hold (ranx JSON); a file whose kind cannot be
    told gets the ``kind-unknown`` finding.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> run = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = run.write_text("q1 Q0 a 1 2.0 t\\nq1 Q0 b 2 3.0 t\\n")
    >>> [(x.code, x.line) for x in check([run]).files[0].findings]
    [('rank-order', 2)]
    """
    judged = None if qrels is None else _judgments(qrels)
    files = tuple(check_file(p, judged=judged, kind=kind) for p in paths)
    return CheckReport(files, None if qrels is None else source_name(qrels))


def _judgments(qrels: str | Path) -> dict[str, dict[str, str]]:
    from cranfield.io import irds

    if irds.is_irds_id(qrels):  # no file: the dataset's qrels, from ir_datasets' cache
        rows = irds.read_qrels(str(qrels)).frame.select("query_id", "doc_id", "relevance")
        judged: dict[str, dict[str, str]] = {}
        for query, doc, level in rows.iter_rows():
            judged.setdefault(query, {})[doc] = str(level)
        return judged
    try:
        format_, _ = _format_of(qrels, "qrels")
    except InputError as error:
        raise InputError(source_name(qrels), None, f"cannot be read as qrels: {error}") from None
    if format_ != "trec":
        try:
            # ranx JSON does not say; a table with a score column and no label is a run
            if format_ != "json" and formats.detect_kind(qrels, format_) != "qrels":
                raise InputError(source_name(qrels), None, "holds a run, not judgments")
            frame = formats.read_qrels_file(qrels, format=format_).frame
        except InputError as error:
            message = f"cannot be read as qrels: {error}"
            raise InputError(source_name(qrels), None, message) from None
        out: dict[str, dict[str, str]] = {}
        for query, doc, level in frame.select("query_id", "doc_id", "relevance").iter_rows():
            out.setdefault(query, {})[doc] = str(level)
        return out
    split = _split(qrels)
    if split.kind != "qrels":
        problem = split.findings[0].message if split.findings else "holds no qrels lines"
        raise InputError(source_name(qrels), None, f"cannot be read as qrels: {problem}")
    out = {}
    for _, query, doc, level in split.rows:
        out.setdefault(query, {})[doc] = level
    return out


def check_file(
    path: str | Path,
    *,
    judged: Mapping[str, Mapping[str, str]] | None = None,
    kind: InputKind | None = None,
) -> FileReport:
    """The :class:`FileReport` of one file (``judged``: ``{query: {doc: level}}`` to check a
    run against; ``kind``: what the file holds, when it does not say)."""
    name = source_name(path)
    try:
        format_, told = _format_of(path, kind)
    except InputError as error:
        code = (
            "kind-unknown"
            if isinstance(error, UnknownKindError)
            else "format-ambiguous"
            if isinstance(error, AmbiguousFormatError)
            else "unreadable"
        )
        # an ambiguous format is settled where the file is evaluated: say the flag's name
        said = error.for_command_line() if code == "format-ambiguous" else str(error)
        return FileReport(name, "unknown", findings=(Finding(code, said, error.line),))
    if format_ != "trec" and told is not None:
        return _check_table(path, format_, told, judged)
    return _check_trec(path, judged)


def _format_of(path: str | Path, kind: InputKind | None) -> tuple[FileFormat, InputKind | None]:
    """The format of the file ``path`` and what it holds (None: TREC text, whose kind its
    fields tell, or standard input, which is read once as TREC text)."""
    if not is_parquet(path) and not regular_file(path):
        return "trec", kind
    if kind is not None:
        return formats.detect(path, kind), kind
    format_ = formats.detect(path, "run")
    if format_ == "trec":
        if formats.detect(path, "qrels") != "msmarco":
            return "trec", None
        return "msmarco", "qrels"
    return format_, formats.detect_kind(path, format_)


def _refused(error: InputError) -> list[Finding]:
    """The ``unreadable`` finding of a table reader's refusal, and the finding it is."""
    findings = [Finding("unreadable", f"the reader refuses it: {error}", error.line)]
    for start, code in (("duplicate", "duplicate"), ("score is NaN", "nonfinite-score")):
        if error.problem.startswith(start):
            findings.append(Finding(code, error.problem, error.line))
    return findings


def _check_table(
    path: str | Path,
    format_: FileFormat,
    kind: InputKind,
    judged: Mapping[str, Mapping[str, str]] | None,
) -> FileReport:
    """The report of a file in a format other than TREC, from the table its reader reads."""
    name = source_name(path)
    what = formats.described(format_, kind)
    data: Qrels | Run
    try:
        data = (
            formats.read_qrels_file(path, format=format_)
            if kind == "qrels"
            else formats.read_run_file(path, format=format_)
        )
    except InputError as error:
        return FileReport(name, kind, what, findings=tuple(_refused(error)))
    frame = data.frame
    queries = frame.get_column("query_id").n_unique()
    if kind == "qrels":
        label = "gain" if "gain" in frame.columns else "relevance"
        levels = Counter(f"{v:g}" if label == "gain" else str(v) for v in frame.get_column(label))
        merged = [
            Finding("duplicate", note.removeprefix(f"{name}: "))
            for note in data.notes
            if "merged" in note
        ]
        return FileReport(
            name,
            kind,
            what,
            lines=frame.height,
            queries=queries,
            levels=dict(sorted(levels.items())),
            findings=tuple(merged),
        )
    rows = [
        (row, query, doc, score)
        for row, (query, doc, score) in enumerate(
            frame.select("query_id", "doc_id", "score").iter_rows(), start=1
        )
    ]
    ranked = _ranked_scores(rows)
    findings = _score_findings([(row[0], row[3]) for row in rows])
    tied = [docs for docs in ranked.values() if len({s for _, s, _ in docs}) < len(docs)]
    if format_ == "msmarco" and tied:
        findings.append(
            Finding(
                "rank-repeat",
                f"{len(tied)} query(ies) with one rank given to several documents: they tie "
                "(cranfield and trec_eval: document id, descending)",
                min(_first_tie(docs) for docs in tied),
            )
        )
    findings.extend(_tie_findings(ranked))
    unjudged = None
    if judged is not None:
        overlap, unjudged = _against(ranked, judged)
        findings.extend(overlap)
    return FileReport(
        name,
        kind,
        what,
        lines=frame.height,
        queries=queries,
        depth=_depth(ranked),
        queries_with_ties=len(tied),
        unjudged_at_10=unjudged,
        findings=tuple(_on_rows(findings)),
    )


def _first_tie(docs: list[tuple[int, float, str]]) -> int:
    """The first row of a query's documents whose score another of them has too."""
    counts = Counter(s for _, s, _ in docs)
    return min(row for row, s, _ in docs if counts[s] > 1)


def _on_rows(findings: Iterable[Finding]) -> list[Finding]:
    """Findings about a table's rows: the row in the message, no line."""
    return [
        f if f.line is None else Finding(f.code, f"{f.message} (the first: data row {f.line})")
        for f in findings
    ]


def _depth(ranked: Mapping[str, list[tuple[int, float, str]]]) -> tuple[int, float, int] | None:
    depths = sorted(len(r) for r in ranked.values())
    return (depths[0], float(statistics.median(depths)), depths[-1]) if depths else None


def _check_trec(path: str | Path, judged: Mapping[str, Mapping[str, str]] | None) -> FileReport:
    """The report of TREC text (or what standard input holds)."""
    split = _split(path)
    name = source_name(path)
    findings = list(split.findings)
    if split.kind == "unknown":
        return FileReport(name, "unknown", findings=tuple(findings))
    what = formats.described("trec", split.kind)
    findings.extend(_strict_reader(path, split))
    findings.extend(_duplicates(split.rows))
    queries = sorted({row[1] for row in split.rows})
    if split.kind == "qrels":
        levels = Counter(row[3] for row in split.rows)
        return FileReport(
            name,
            "qrels",
            what,
            lines=len(split.rows),
            queries=len(queries),
            levels=dict(sorted(levels.items())),
            findings=tuple(findings),
        )
    ranked = _ranked(split.rows)
    findings.extend(_rank_findings(split.rows))
    findings.extend(_score_findings([(row[0], _score(row[4])) for row in split.rows]))
    ties = sum(1 for scores in ranked.values() if len({s for _, s, _ in scores}) < len(scores))
    findings.extend(_tie_findings(ranked))
    unjudged = None
    if judged is not None:
        overlap, unjudged = _against(ranked, judged)
        findings.extend(overlap)
    return FileReport(
        name,
        "run",
        what,
        lines=len(split.rows),
        queries=len(queries),
        depth=_depth(ranked),
        queries_with_ties=ties,
        unjudged_at_10=unjudged,
        findings=tuple(findings),
    )


def _split(path: str | Path) -> _Rows:
    """The file's data lines split into fields, its kind, and the findings of its text."""
    name = source_name(path)
    try:
        data = read_bytes(path).removeprefix(BOM)
        other = _not_trec(data, name)
        if other is not None:
            return _Rows("unknown", [], [Finding("unreadable", other)])
        split = list(data_lines(data, name))
    except InputError as error:
        return _Rows("unknown", [], [Finding("unreadable", str(error), error.line)])
    if not split:
        return _Rows("unknown", [], [Finding("unreadable", f"{name}: no data line")])
    first = len(split[0][1])
    kind: Kind = "qrels" if first == 4 else "run" if first >= 6 else "unknown"
    findings = _text_findings(data, split, name)
    if kind == "unknown":
        message = f"{name}:{split[0][0]}: {first} fields: neither a run (6) nor qrels (4)"
        return _Rows(kind, [], [Finding("unreadable", message, split[0][0]), *findings])
    rows: list[tuple[Any, ...]] = []
    for number, fields, _ in split:
        text = [f.decode("utf-8") for f in fields]
        if kind == "qrels" and len(text) == 4:
            rows.append((number, text[0], text[2], text[3]))
        elif kind == "run" and len(text) >= 6:
            rows.append((number, text[0], text[2], text[3], text[4]))
    return _Rows(kind, rows, findings, data)


def _not_trec(data: bytes, name: str) -> str | None:
    """What to say of standard input (read once, whole) in a format other than TREC text."""
    if regular_file(name):
        return None
    found = formats.detect_text(data, "run", label=name)
    if found == "trec":
        found = formats.detect_text(data, "qrels", label=name)
    if found == "trec":
        return None
    return (
        f"{name}: looks like {found.upper()} text; check reads that format from a file path, "
        "not standard input"
    )


def _text_findings(
    data: bytes, split: Sequence[tuple[int, list[bytes], str]], name: str
) -> list[Finding]:
    findings: list[Finding] = []
    crlf = [n for n, line in enumerate(lines(data), start=1) if line.endswith(b"\r")]
    if crlf:
        findings.append(
            Finding("crlf", f"{len(crlf)} line(s) end in CR LF (read fine: CR is a blank)", crlf[0])
        )
    tabs = [n for n, _, text in split if "\t" in text]
    spaces = [n for n, _, text in split if " " in text]
    if tabs and spaces:
        first = max(tabs[0], spaces[0])
        findings.append(
            Finding(
                "mixed-separators",
                f"fields separated by tabs on {len(tabs)} line(s) and by spaces on {len(spaces)}",
                first,
            )
        )
    comments = any(line.lstrip().startswith(b"#") for line in lines(data))
    hashed = [n for n, fields, _ in split if len(fields) > 2 and b"#" in fields[2]]
    if comments and hashed:
        findings.append(
            Finding(
                "hash-docid",
                f"{len(hashed)} document id(s) contain '#' in a file with comment lines: "
                "data, not comments, for cranfield; other tools may differ",
                hashed[0],
            )
        )
    return findings


def _strict_reader(path: str | Path, split: _Rows) -> list[Finding]:
    """What the reader :func:`cranfield.evaluate` uses says of the file (a run is parsed
    from the bytes already read; qrels on standard input, which cannot be read twice, are
    not read again)."""
    from cranfield.io.trec import read_qrels, read_run_bytes

    name = source_name(path)
    try:
        if split.kind == "run":
            read_run_bytes(split.data, name)
        elif name != "<stdin>":
            read_qrels(path)
    except InputError as error:
        return [Finding("unreadable", f"the reader refuses it: {error}", error.line)]
    return []


def _duplicates(rows: list[tuple[Any, ...]]) -> list[Finding]:
    seen: dict[tuple[str, str], tuple[int, str]] = {}
    repeats: list[tuple[int, int]] = []
    identical = 0
    for row in rows:
        key, value = (row[1], row[2]), row[-1]  # the level of qrels, the score of a run
        if key in seen:
            repeats.append((seen[key][0], row[0]))
            identical += seen[key][1] == value
        else:
            seen[key] = (row[0], value)
    if not repeats:
        return []
    first, again = repeats[0]
    return [
        Finding(
            "duplicate",
            f"{len(repeats)} repeated (query, document) pair(s), {identical} of them with the "
            f"same value; the first on lines {first} and {again}",
            again,
        )
    ]


def _score(text: str) -> float:
    return float(text) if NUMBER.match(text) else math.nan


def _ranked(rows: list[tuple[Any, ...]]) -> dict[str, list[tuple[int, float, str]]]:
    """``{query: [(line, score, doc), ...]}`` of TREC run lines, in the evaluation's order."""
    return _ranked_scores(
        [(line, query, doc, _score(score)) for line, query, doc, _, score in rows]
    )


def _ranked_scores(
    rows: Iterable[tuple[int, str, str, float]],
) -> dict[str, list[tuple[int, float, str]]]:
    """``{query: [(line, score, doc), ...]}`` of ``(line, query, doc, score)`` in the order of
    the evaluation: score descending, then document id descending (trec_eval's rule)."""
    out: dict[str, list[tuple[int, float, str]]] = {}
    for line, query, doc, score in rows:
        out.setdefault(query, []).append((line, score, doc))
    for docs in out.values():
        docs.sort(key=lambda r: (-r[1] if not math.isnan(r[1]) else math.inf, _desc(r[2])))
    return out


def _desc(doc: str) -> tuple[int, ...]:
    return (*(-b for b in doc.encode("utf-8")), 1)


def _rank_findings(rows: list[tuple[Any, ...]]) -> list[Finding]:
    findings: list[Finding] = []
    zero = [row[0] for row in rows if INTEGER.match(row[3]) and int64(row[3]) == 0]
    if zero:
        findings.append(
            Finding("rank-zero", f"{len(zero)} line(s) with rank 0 (ranks count from 1)", zero[0])
        )
    by_query: dict[str, list[tuple[int, float, int]]] = {}
    for line, query, _, rank, score in rows:
        if INTEGER.match(rank) and (number := int64(rank)) is not None:
            by_query.setdefault(query, []).append((number, _score(score), line))
    disagree: list[int] = []
    for listed in by_query.values():  # in rank order, a score may never rise (ties may)
        listed.sort()
        rises = [b[2] for a, b in itertools.pairwise(listed) if b[1] > a[1]]
        if rises:
            disagree.append(rises[0])
    if disagree:
        findings.append(
            Finding(
                "rank-order",
                f"{len(disagree)} query(ies) whose rank field disagrees with the score order "
                "(cranfield, like trec_eval, ranks by score and ignores the rank field)",
                min(disagree),
            )
        )
    return findings


def _score_findings(scores: list[tuple[int, float]]) -> list[Finding]:
    """The findings of ``(line, score)`` pairs."""
    findings: list[Finding] = []
    odd = [n for n, s in scores if not math.isfinite(s)]
    if odd:
        findings.append(Finding("nonfinite-score", f"{len(odd)} score(s) nan or inf", odd[0]))
    negative = [n for n, s in scores if s < 0]
    if negative:
        findings.append(
            Finding(
                "negative-score",
                f"{len(negative)} negative score(s) (fine for a system's own scale)",
                negative[0],
            )
        )
    return findings


def _tie_findings(ranked: Mapping[str, list[tuple[int, float, str]]]) -> list[Finding]:
    crossing = [
        docs[CUTOFF][0]
        for docs in ranked.values()
        if len(docs) > CUTOFF and docs[CUTOFF - 1][1] == docs[CUTOFF][1]
    ]
    if not crossing:
        return []
    return [
        Finding(
            "tie-at-10",
            f"{len(crossing)} query(ies) with a score tie across rank {CUTOFF}: a measure at "
            f"{CUTOFF} depends on the tie rule (cranfield and trec_eval: document id, "
            "descending)",
            min(crossing),
        )
    ]


def _against(
    ranked: Mapping[str, list[tuple[int, float, str]]], judged: Mapping[str, Mapping[str, str]]
) -> tuple[list[Finding], float | None]:
    answered = [q for q in ranked if q in judged]
    if not answered:
        some = ", ".join(repr(q) for q in sorted(ranked)[:3])
        return [Finding("no-overlap", f"no query in common with the qrels (run: {some})")], None
    findings: list[Finding] = []
    few = partial_overlap(len(judged), len(answered))
    if few is not None:
        findings.append(Finding("low-overlap", few))
    top = [doc in judged[q] for q in answered for _, _, doc in ranked[q][:CUTOFF]]
    unjudged = 1 - sum(top) / len(top) if top else 0.0
    if unjudged > 0.5:
        findings.append(
            Finding(
                "unjudged-at-10",
                f"{unjudged:.0%} of the top {CUTOFF} documents are unjudged: the measures "
                "count them not relevant",
            )
        )
    return findings, unjudged
