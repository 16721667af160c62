"""Readers and writers of sampled judgments: NIST's two five-column formats.

* **Stratified qrels** (``sample_eval.pl``): ``topic iteration doc_id stratum relevance``.
  Every document of the judging population is listed with its stratum; a relevance ``>= 0``
  is a judgment of a sampled document, ``-1`` (any negative value) a document of the
  population that was not sampled. cranfield writes ``-2`` for a sampled document still to be
  judged (:func:`write_stratified`), and the reader refuses a ``-2`` left in the file.
* **prels** (``statAP_MQ_eval_v3.pl``): ``topic doc_id relevance method probability``: a
  judged document with the probability that the sample included it. A relevance of ``-999``
  or a probability ``NA`` leaves the line out (the script's meaning); ``method`` is the
  Million Query track's judging site (0 UMass, 1 NEU, 2 both, 4 NEU), kept for the
  script's compat mode. cranfield writes ``-2`` for a sampled document still to be judged,
  and the reader refuses one left in the file.

Both scripts read their files as one stream of whitespace-separated fields, five at a time,
so a line with a missing field shifts every later one; these readers read lines and refuse
a line that does not have five fields (the file, the line and the text in one sentence), a
relevance or probability that is not a number, a probability outside (0, 1], and a document
listed twice for a topic (the scripts would count it twice in the population).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cranfield.errors import InputError
from cranfield.io.sink import write_text
from cranfield.io.source import read_bytes, source_name

__all__ = [
    "LEFT_OUT",
    "TO_JUDGE",
    "Prel",
    "StratifiedJudgment",
    "read_prels",
    "read_stratified",
    "write_prels",
    "write_stratified",
]

TO_JUDGE: Final = -2
"""The relevance cranfield writes for a sampled document not judged yet."""
LEFT_OUT: Final = -999
"""statAP's relevance of a line left out."""


@dataclass(frozen=True)
class StratifiedJudgment:
    """One line of a stratified qrels file.

    ``relevance_text`` is the label as written (``sample_eval.pl`` keys the grades by their
    text); ``relevance`` its value; ``sampled`` is ``relevance >= 0``.
    """

    topic: str
    doc_id: str
    stratum: str
    relevance_text: str
    relevance: float
    line: int

    @property
    def sampled(self) -> bool:
        return self.relevance >= 0


@dataclass(frozen=True)
class Prel:
    """One line of a prels file; ``probability`` is ``None`` for ``NA``."""

    topic: str
    doc_id: str
    relevance: float
    method: int
    probability: float | None
    line: int

    @property
    def left_out(self) -> bool:
        """A line statAP leaves out: relevance ``-999`` (or below) or probability ``NA``."""
        return self.relevance <= LEFT_OUT or self.probability is None


def _lines(source: str | Path) -> list[tuple[int, list[str], str]]:
    text = read_bytes(source).decode("utf-8", errors="replace")
    out = []
    for number, raw in enumerate(text.splitlines(), start=1):
        fields = raw.split()
        if fields:
            out.append((number, fields, raw))
    return out


def _number(name: str, line: int, text: str, value: str, what: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise InputError(name, line, f"the {what} must be a number, got {value!r}", text) from None
    if not math.isfinite(number):
        raise InputError(name, line, f"the {what} must be a finite number, got {value!r}", text)
    return number


def read_stratified(source: str | Path) -> list[StratifiedJudgment]:
    """The lines of a stratified qrels file (``topic iteration doc_id stratum relevance``).

    Raises
    ------
    InputError
        For a line without five fields, a relevance that is not a number, a sampled
        document left unjudged (``-2``), or a document listed twice for a topic.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp(), "q.txt")
    >>> _ = path.write_text("1 0 d1 1 1\\n1 0 d2 1 -1\\n")
    >>> [(j.doc_id, j.stratum, j.sampled) for j in read_stratified(path)]
    [('d1', '1', True), ('d2', '1', False)]
    """
    name = source_name(source)
    rows: list[StratifiedJudgment] = []
    seen: set[tuple[str, str]] = set()
    for line, fields, raw in _lines(source):
        if len(fields) != 5:
            raise InputError(
                name,
                line,
                f"expected 5 fields (topic iteration doc_id stratum relevance), got {len(fields)}",
                raw,
            )
        topic, _, doc, stratum, rel = fields
        value = _number(name, line, raw, rel, "relevance")
        if value == TO_JUDGE:
            raise InputError(name, line, "a sampled document is not judged yet (relevance -2)", raw)
        if (topic, doc) in seen:
            raise InputError(
                name, line, f"document {doc!r} is listed twice for topic {topic!r}", raw
            )
        seen.add((topic, doc))
        rows.append(StratifiedJudgment(topic, doc, stratum, rel, value, line))
    return rows


def read_prels(source: str | Path) -> list[Prel]:
    """The lines of a prels file (``topic doc_id relevance method probability``).

    Raises
    ------
    InputError
        For a line without five fields, a relevance, method or probability that is not a
        number (``NA`` is allowed as a probability), a probability outside (0, 1], or a
        document listed twice for a topic.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp(), "prels")
    >>> _ = path.write_text("1 d1 1 1 0.5\\n1 d2 0 1 1.5\\n")
    >>> read_prels(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cranfield.errors.InputError: ...prels:2: the inclusion probability must be in (0, 1], got '1.5': ...
    """
    name = source_name(source)
    rows: list[Prel] = []
    seen: set[tuple[str, str]] = set()
    for line, fields, raw in _lines(source):
        if len(fields) != 5:
            raise InputError(
                name,
                line,
                f"expected 5 fields (topic doc_id relevance method probability), got {len(fields)}",
                raw,
            )
        topic, doc, rel, method, prob = fields
        value = _number(name, line, raw, rel, "relevance")
        code = _number(name, line, raw, method, "method")
        if code != int(code):
            raise InputError(name, line, f"the method must be an integer, got {method!r}", raw)
        if value == TO_JUDGE:
            raise InputError(name, line, "a sampled document is not judged yet (relevance -2)", raw)
        probability = None if prob == "NA" else _number(name, line, raw, prob, "probability")
        if probability is not None and not 0.0 < probability <= 1.0 and value > LEFT_OUT:
            raise InputError(
                name, line, f"the inclusion probability must be in (0, 1], got {prob!r}", raw
            )
        if (topic, doc) in seen:
            raise InputError(
                name, line, f"document {doc!r} is listed twice for topic {topic!r}", raw
            )
        seen.add((topic, doc))
        rows.append(Prel(topic, doc, value, int(code), probability, line))
    return rows


def write_stratified(path: str | Path, rows: list[tuple[str, str, str, int]]) -> None:
    """Write ``(topic, doc_id, stratum, relevance)`` rows as a stratified qrels file
    (``-1``: in the population, not sampled; ``-2``: sampled, to judge)."""
    write_text(path, "".join(f"{t} 0 {d} {s} {r}\n" for t, d, s, r in rows))


def write_prels(path: str | Path, rows: list[tuple[str, str, int, int, float]]) -> None:
    """Write ``(topic, doc_id, relevance, method, probability)`` rows as prels."""
    write_text(path, "".join(f"{t} {d} {r} {m} {p!r}\n" for t, d, r, m, p in rows))
