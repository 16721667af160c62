"""Crowd labels: many workers' labels of (query, document) pairs, the input of ``judges combine``.

A table with one label per row, in CSV, TSV, JSON Lines or Parquet (the format found as
:mod:`cranfield.io.metric_table` finds it: the suffix, else the first line), with these
columns (first spelling found wins; other columns are ignored):

==========  ==================================================
field       accepted column names
==========  ==================================================
worker      ``worker``, ``worker_id``, ``annotator``, ``judge``
query id    ``query_id``, ``qid``, ``query``, ``topic``
document    ``doc_id``, ``docid``, ``docno``, ``pid``
label       ``label``, ``relevance``, ``grade``, ``rel``
==========  ==================================================

A label is an integer inside the scale (``scale=(0, 3)`` by default: TREC's graded scale);
anything else is an :class:`~cranfield.errors.InputError` naming the file, the line and the
value, never coerced. A pair may carry any number of labels from different workers; the same
worker labelling the same pair twice is an error naming both lines (which label would count
is not guessed). :func:`crowd_from_qrels` reads qrels files as a crowd instead, one worker per
file (the LLMJudge challenge's 33 model judges); there negative labels (trec_eval's "in the
pool, not judged") are not labels and are left out, and a label outside the scale is an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

import numpy as np
import polars as pl

from cranfield._validate import check_choice
from cranfield.errors import InputError, OptionError
from cranfield.io.metric_table import _read
from cranfield.io.source import source_name

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import NDArray

    from cranfield.io.load import QrelsLike

__all__ = ["DEFAULT_SCALE", "CrowdLabels", "crowd_from_qrels", "read_crowd_labels"]

DEFAULT_SCALE: Final = (0, 3)
"""TREC's 4-point graded scale (0 irrelevant ... 3 perfectly relevant): UMBRELA's, LLMJudge's."""

_COLUMNS: Final = {
    "worker": ("worker", "worker_id", "annotator", "judge"),
    "query_id": ("query_id", "qid", "query", "topic"),
    "doc_id": ("doc_id", "docid", "docno", "pid"),
    "label": ("label", "relevance", "grade", "rel"),
}


@dataclass(frozen=True, eq=False)
class CrowdLabels:
    """Labels of (query, document) pairs by workers: one entry per label.

    Attributes
    ----------
    workers, queries, docs:
        Text ids, one per label.
    labels:
        The integer labels, inside :attr:`scale`.
    scale:
        The lowest and highest label allowed.
    source:
        How errors name the labels (a path, ``<qrels>``).
    lines:
        The physical line (or data row) of each label, when known.
    skipped:
        Labels outside the scale left out (``outside="skip"``); 0 by default, where such a
        label is an error.
    """

    workers: NDArray[np.str_]
    queries: NDArray[np.str_]
    docs: NDArray[np.str_]
    labels: NDArray[np.int64]
    scale: tuple[int, int] = DEFAULT_SCALE
    source: str = "<labels>"
    lines: tuple[int, ...] | None = None
    skipped: int = 0

    def __len__(self) -> int:
        return int(self.labels.size)

    def __repr__(self) -> str:
        return (
            f"CrowdLabels(source={self.source!r}, labels={len(self)}, "
            f"workers={np.unique(self.workers).size}, scale={self.scale})"
        )

    def where(self, row: int) -> int | None:
        """The line of label ``row`` (0-based), when known."""
        return None if self.lines is None else self.lines[row]


def check_scale(scale: object) -> tuple[int, int]:
    """``scale`` as ``(low, high)`` integers with ``low <= high``, or an ``OptionError``."""
    if (
        not isinstance(scale, (tuple, list))
        or len(scale) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in scale)
        or scale[0] > scale[1]
    ):
        raise OptionError("scale", "two integers (low, high) with low <= high", scale)
    return int(scale[0]), int(scale[1])


def read_crowd_labels(source: str | Path, *, scale: tuple[int, int] = DEFAULT_SCALE) -> CrowdLabels:
    """The labels of the table ``source`` (columns in the module documentation).

    Raises
    ------
    InputError
        The file cannot be read, lacks a column, has an empty value, a label that is not an
        integer or is outside ``scale``, or one worker labelling one pair twice; the message
        names the file and the line.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "labels.csv"
    >>> _ = path.write_text("worker,query_id,doc_id,label\\nw1,q1,d1,2\\nw2,q1,d1,3\\n")
    >>> crowd = read_crowd_labels(path)
    >>> crowd.workers.tolist(), crowd.labels.tolist()
    (['w1', 'w2'], [2, 3])
    """
    low, high = check_scale(scale)
    label = source_name(source)
    parsed = _read(source, label)
    frame = parsed.frame
    chosen: dict[str, str] = {}
    for field, names in _COLUMNS.items():
        found = next((n for n in names if n in frame.columns), None)
        if found is None:
            shown = ", ".join(repr(c) for c in frame.columns[:10])
            raise InputError(
                label,
                parsed.header,
                f"has no {field} column (one of {', '.join(names)}; its columns: {shown})",
            )
        chosen[field] = found
    if frame.height == 0:
        raise InputError(label, None, "has no labels")
    lines = None if parsed.lines is None else tuple(parsed.lines)

    def line_of(row: int) -> int | None:
        return None if lines is None else lines[row]

    def where(row: int) -> str:
        return "" if lines is not None else f"data row {row + 1}: "

    texts = {}
    for field in ("worker", "query_id", "doc_id"):
        column = frame.get_column(chosen[field]).cast(str)
        empty = column.is_null() | (column.str.strip_chars() == "")
        if empty.any():
            row = int(empty.arg_true()[0])
            raise InputError(label, line_of(row), f"{where(row)}the {field} is empty")
        texts[field] = np.asarray(column.str.strip_chars().to_list(), dtype=np.str_)
    raw = frame.get_column(chosen["label"]).cast(str).str.strip_chars()
    values = np.zeros(frame.height, dtype=np.int64)
    for row, text in enumerate(raw.to_list()):
        try:
            values[row] = int(text) if text is not None else _no_label(text)
        except ValueError:
            raise InputError(
                label, line_of(row), f"{where(row)}the label is not an integer", str(text)
            ) from None
    crowd = CrowdLabels(
        texts["worker"],
        texts["query_id"],
        texts["doc_id"],
        values,
        (low, high),
        label,
        lines,
    )
    _check(crowd)
    return crowd


def _no_label(text: str | None) -> int:
    raise ValueError(text)


def _check(crowd: CrowdLabels) -> None:
    """Every label inside the scale; no worker labels a pair twice."""
    low, high = crowd.scale
    outside = (crowd.labels < low) | (crowd.labels > high)
    if outside.any():
        row = int(np.flatnonzero(outside)[0])
        raise InputError(
            crowd.source,
            crowd.where(row),
            f"label {int(crowd.labels[row])} of worker {crowd.workers[row]!s} is outside the "
            f"scale {low}-{high} (give the scale with --scale LOW-HIGH)",
        )
    keys = np.char.add(
        np.char.add(np.char.add(crowd.workers, "\0"), np.char.add(crowd.queries, "\0")),
        crowd.docs,
    )
    _, first, counts = np.unique(keys, return_index=True, return_counts=True)
    if (counts > 1).any():
        key = keys[first[counts > 1][0]]
        rows = np.flatnonzero(keys == key)[:2]
        a, b = (crowd.where(int(r)) for r in rows)
        at = f"lines {a} and {b}" if a is not None else f"data rows {rows[0] + 1} and {rows[1] + 1}"
        raise InputError(
            crowd.source,
            crowd.where(int(rows[1])),
            f"worker {crowd.workers[rows[0]]!s} labels query {crowd.queries[rows[0]]!s}, "
            f"document {crowd.docs[rows[0]]!s} twice ({at}); which label counts is not guessed",
        )


def crowd_from_qrels(
    qrels: Sequence[QrelsLike],
    *,
    names: Sequence[str] | None = None,
    scale: tuple[int, int] = DEFAULT_SCALE,
    outside: Literal["error", "skip"] = "error",
) -> CrowdLabels:
    """Qrels files as a crowd: each file one worker (named ``names``, or by its file name).

    Negative labels ("in the pool, not judged") are left out; a label above the scale, or a
    non-negative one below it, is an :class:`~cranfield.errors.InputError` naming the file
    (``outside="error"``), or left out and counted in :attr:`CrowdLabels.skipped`
    (``outside="skip"``: two of the LLMJudge judges answered 5 and 10 on a 0-3 scale).
    """
    check_choice("outside", outside, ("error", "skip"))
    from cranfield.io.load import load_qrels

    low, high = check_scale(scale)
    if names is None:
        names = [
            Path(q).name if isinstance(q, (str, Path)) else f"qrels{i + 1}"
            for i, q in enumerate(qrels)
        ]
    if len(names) != len(qrels) or len(set(names)) != len(names):
        raise OptionError("names", f"{len(qrels)} different names, one per qrels", list(names))
    if len(qrels) == 0:
        raise OptionError("qrels", "one or more qrels", 0)
    parts: list[tuple[NDArray[np.str_], ...]] = []
    values: list[NDArray[np.int64]] = []
    skipped = 0
    for q, name in zip(qrels, names, strict=True):
        frame = load_qrels(q, name=name).frame.filter(pl.col("relevance") >= 0)
        rel = frame.get_column("relevance").to_numpy().astype(np.int64)
        bad = (rel < low) | (rel > high)
        if bad.any() and outside == "skip":
            skipped += int(bad.sum())
            frame, rel = frame.filter(pl.Series(~bad)), rel[~bad]
        elif bad.any():
            row = int(np.flatnonzero(bad)[0])
            qid, did = frame.get_column("query_id")[row], frame.get_column("doc_id")[row]
            raise InputError(
                str(q) if isinstance(q, (str, Path)) else name,
                None,
                f"label {int(rel[row])} of query {qid}, document {did} is outside the scale "
                f"{low}-{high} (give the scale with --scale LOW-HIGH)",
            )
        n = frame.height
        parts.append(
            (
                np.full(n, name),
                np.asarray(frame.get_column("query_id").to_list(), dtype=np.str_),
                np.asarray(frame.get_column("doc_id").to_list(), dtype=np.str_),
            )
        )
        values.append(rel)
    workers, queries, docs = (np.concatenate([p[i] for p in parts]) for i in range(3))
    return CrowdLabels(
        workers, queries, docs, np.concatenate(values), (low, high), "<qrels>", None, skipped
    )
