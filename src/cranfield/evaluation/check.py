"""Runs and qrels checked without evaluating them: what a file holds and what is wrong with it.

:func:`check` reads each TREC file through the one opener (:func:`cranfield.io.source.read_bytes`)
and the line tokenizer of :mod:`cranfield.io.lines`, tells a run (6 fields or more) from qrels
(4 fields), counts what it holds and lists its :class:`Finding`\\ s: what the strict readers
refuse (their own message), and what they accept but a user likely did not mean:

===================  ==========================================================================
code                 finding
===================  ==========================================================================
``unreadable``       the opener or the reader refuses the file (its message)
``duplicate``        a (query, document) pair on more than one line
``rank-zero``        a run line with rank 0 (ranks count from 1)
``rank-order``       queries whose rank field disagrees with the score order (ranks are ignored)
``nonfinite-score``  ``nan`` or ``inf`` scores
``negative-score``   negative scores (fine for a system's own scale; said so it is known)
``tie-at-10``        queries whose score tie crosses rank 10: a measure at 10 then depends on
                     the tie rule
``no-overlap``       the run shares no query with the qrels given
``low-overlap``      the run answers fewer than half of the judged queries
``unjudged-at-10``   more than half of the run's top 10 documents are unjudged
``hash-docid``       a document id with ``#`` in a file with comment lines
``crlf``             lines ending in CR LF (read fine; said so it is known)
``mixed-separators`` fields separated by tabs on some lines and spaces on others
===================  ==========================================================================
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from cranfield.errors import InputError
from cranfield.evaluation.overlap import partial_overlap
from cranfield.io.lines import BOM, INTEGER, NUMBER, data_lines, int64, lines
from cranfield.io.source import read_bytes, source_name

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from pathlib import Path

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

    ``depth`` is the number of documents per query (min, median, max) of a run, ``levels``
    the number of judgments per relevance level of qrels; ``queries_with_ties`` counts the
    queries of a run with two documents of one score.
    """

    path: str
    kind: Kind
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


def check(paths: Iterable[str | Path], *, qrels: str | Path | None = None) -> CheckReport:
    """Check each file of ``paths`` (TREC runs and qrels, compressed or not, ``-`` for
    standard input); with ``qrels``, also each run's queries and top documents against them.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> run = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = run.write_text("q1 Q0 a 1 2.0 t\\nq1 Q0 b 2 3.0 t\\n")
    >>> [(x.code, x.line) for x in check([run]).files[0].findings]
    [('rank-order', 2)]
    """
    judged = None if qrels is None else _judgments(qrels)
    files = tuple(check_file(p, judged=judged) for p in paths)
    return CheckReport(files, None if qrels is None else source_name(qrels))


def _judgments(qrels: str | Path) -> dict[str, dict[str, str]]:
    split = _split(qrels)
    if split.kind != "qrels":
        problem = split.findings[0].message if split.findings else "holds no qrels lines"
        raise InputError(source_name(qrels), None, f"cannot be read as qrels: {problem}")
    out: dict[str, dict[str, str]] = {}
    for _, query, doc, level in split.rows:
        out.setdefault(query, {})[doc] = level
    return out


def check_file(
    path: str | Path, *, judged: Mapping[str, Mapping[str, str]] | None = None
) -> FileReport:
    """The :class:`FileReport` of one file (``judged``: ``{query: {doc: level}}`` to check a
    run against)."""
    split = _split(path)
    name = source_name(path)
    findings = list(split.findings)
    if split.kind == "unknown":
        return FileReport(name, "unknown", findings=tuple(findings))
    findings.extend(_strict_reader(path, split))
    findings.extend(_duplicates(split.rows))
    queries = sorted({row[1] for row in split.rows})
    if split.kind == "qrels":
        levels = Counter(row[3] for row in split.rows)
        return FileReport(
            name,
            "qrels",
            lines=len(split.rows),
            queries=len(queries),
            levels=dict(sorted(levels.items())),
            findings=tuple(findings),
        )
    ranked = _ranked(split.rows)
    findings.extend(_rank_findings(split.rows))
    findings.extend(_score_findings(split.rows))
    ties = sum(1 for scores in ranked.values() if len({s for _, s, _ in scores}) < len(scores))
    findings.extend(_tie_findings(ranked))
    unjudged = None
    if judged is not None:
        overlap, unjudged = _against(ranked, judged)
        findings.extend(overlap)
    depths = sorted(len(r) for r in ranked.values())
    depth = (depths[0], float(statistics.median(depths)), depths[-1]) if depths else None
    return FileReport(
        name,
        "run",
        lines=len(split.rows),
        queries=len(queries),
        depth=depth,
        queries_with_ties=ties,
        unjudged_at_10=unjudged,
        findings=tuple(findings),
    )


def _split(path: str | Path) -> _Rows:
    """The file's data lines split into fields, its kind, and the findings of its text."""
    name = source_name(path)
    try:
        data = read_bytes(path).removeprefix(BOM)
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
    """``{query: [(line, score, doc), ...]}`` in the order of the evaluation: score
    descending, then document id descending (trec_eval's rule)."""
    out: dict[str, list[tuple[int, float, str]]] = {}
    for line, query, doc, _, score in rows:
        out.setdefault(query, []).append((line, _score(score), doc))
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


def _score_findings(rows: list[tuple[Any, ...]]) -> list[Finding]:
    findings: list[Finding] = []
    scores = [(row[0], _score(row[4])) for row in rows]
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
