"""THE rules of what a qrels label means and what repeated judgments become, for every reader.

Every qrels reader (TREC text in :mod:`cranfield.io.trec`; Parquet, Arrow, data frames and
dicts in :mod:`cranfield.io.columnar`) checks its own syntax and names its own lines or
rows, then applies these rules to the frame it read:

* **Decimal labels** (LLM-judged or averaged): the level of a label is its integer part, as
  C's ``atol`` reads it (``1.7`` is 1, ``-.5`` is 0); binary measures count a label relevant
  at level ``L`` exactly when it is ``>= L``. The labels themselves are kept in a ``gain``
  column, which some graded measures read (:data:`DECIMAL_NOTE_TAIL` says which), and the
  first such label is named in the qrels' notes (:func:`decimal_note`).
* **Repeated judgments** follow the ``duplicates`` policy (:data:`~cranfield._types.
  DuplicatePolicy`): ``merge`` makes repeats of one label one judgment and refuses different
  labels, ``first``/``last``/``max`` keep that label, ``error`` refuses any repeat (the
  readers refuse before calling :func:`merge_repeats`). What was merged is a note.

The readers word their errors; these functions only say what is wrong (``refuse``). What
reading changed is a :class:`~cranfield.errors.QrelsNoteWarning` per note, issued once by
:func:`noted` when the reading succeeded (so ``--strict`` makes it an error).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Final

import numpy as np
import polars as pl

from cranfield.errors import QrelsNoteWarning

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn

    from cranfield._types import DuplicatePolicy
    from cranfield.data.qrels import Qrels

__all__ = [
    "DECIMAL_NOTE_TAIL",
    "LABEL_TEXT",
    "decimal_note",
    "integer_parts",
    "label_text",
    "merge_repeats",
    "noted",
    "with_gains",
]

LABEL_TEXT: Final = r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)$"
"""A label written as text: an integer or a decimal without exponent (``2``, ``1.7``,
``.5``, ``2.``)."""

DECIMAL_NOTE_TAIL: Final = (
    "nDCG, DCG, CG and their variants, G, RBP and ERR use each label as its gain; every "
    "other measure counts a label relevant at level L when it is >= L (the intent-aware "
    "ones read their levels from the intents file)."
)
"""What a decimal label does, as every note on decimal labels ends (the measures that read
the ``gain`` column: the kernels of ``graded.gain_view`` and ``ranked_variants.err``)."""


def label_text(labels: pl.Series) -> pl.Series:
    """Labels (integers or floats) as :data:`LABEL_TEXT` reads them back: the shortest text of
    each float that reads back the same float, never with an exponent (``1.6e-06`` is
    written ``0.0000016``), so that a file written is a file read."""
    text = labels.cast(pl.String)
    if not labels.dtype.is_float():
        return text
    exponent = text.str.contains("e", literal=True)
    if not exponent.any():
        return text
    fixed = [np.format_float_positional(v, unique=True, trim="0") for v in labels.filter(exponent)]
    return text.scatter(exponent.arg_true(), fixed)


def integer_parts(text: pl.Series) -> pl.Series:
    """The levels of label texts (integers, or decimals without exponent: ``1.7``, ``.5``,
    ``2.``): their integer parts as C's ``atol`` reads them (``-.5`` is 0), as int64; null
    where the integer part does not fit in 64 bits."""
    whole = text.str.replace(r"\..*$", "").str.replace(r"^([+-]?)$", "${1}0")
    return whole.cast(pl.Int64, strict=False).alias("relevance")


def with_gains(frame: pl.DataFrame, level: pl.Series, gain: pl.Series) -> pl.DataFrame:
    """``frame`` with its ``relevance`` the ``level`` and a ``gain`` column (the labels)."""
    return frame.with_columns(level.alias("relevance"), gain.cast(pl.Float64).alias("gain"))


def decimal_note(where: str, count: int, first: object) -> str:
    """The note on ``count`` decimal labels, the first of them ``first`` at ``where`` (a
    file and its line, or a table and its row: ``qrels.txt:2``)."""
    return (
        f"{where}: {count} relevance label(s) are not integers (the first: {first!r}); "
        + DECIMAL_NOTE_TAIL
    )


def merge_repeats(
    frame: pl.DataFrame,
    label: str,
    duplicates: DuplicatePolicy,
    refuse: Callable[[], NoReturn],
    *,
    unit: str = "line",
) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """The qrels ``frame`` (in input order, some (query, document) pair repeated) with one
    row per pair, sorted, and the note saying what was merged.

    Different labels for one pair call ``refuse`` (which raises the reader's error) under
    ``merge``; ``first``, ``last`` or ``max`` keep that label. ``unit`` names what the
    reader counts (``line`` or ``row``) in the note.
    """
    value = "gain" if "gain" in frame.columns else "relevance"
    rel = pl.col(value)
    pairs = (
        frame.with_row_index("line")
        .sort("query_id", "doc_id", "line")
        .group_by("query_id", "doc_id", maintain_order=True)
        .agg(
            pl.col("iteration").first(),
            rel.first().alias("first"),
            rel.last().alias("last"),
            rel.max().alias("max"),
            rel.n_unique().alias("levels"),
            pl.len().alias("lines"),
        )
    )
    conflicting = int((pairs.get_column("levels") > 1).sum())
    if conflicting and duplicates == "merge":
        refuse()
    repeated = pairs.filter(pl.col("lines") > 1)
    query, doc = repeated.row(0)[:2]
    extra = int(repeated.get_column("lines").sum()) - repeated.height
    note = f"{label}: {extra} repeated judgment {unit}(s) merged"
    if conflicting:
        note += (
            f", {conflicting} (query, document) pair(s) judged differently keeping the "
            f"{duplicates} relevance (duplicates: {duplicates})"
        )
    note += f" (the first: query {query!r}, document {doc!r})."
    picked = "first" if duplicates == "merge" else duplicates
    merged = pairs.select("query_id", "iteration", "doc_id", pl.col(picked).alias(value))
    if value == "gain":
        merged = merged.with_columns(pl.col("gain").cast(pl.Int64).alias("relevance")).select(
            "query_id", "iteration", "doc_id", "relevance", "gain"
        )
    return merged, (note,)


def noted(qrels: Qrels) -> Qrels:
    """``qrels``, just read, after a :class:`~cranfield.errors.QrelsNoteWarning` for each of
    its notes (called once by each reader, where the notes are made)."""
    for note in qrels.notes:
        warnings.warn(note, QrelsNoteWarning, stacklevel=3)
    return qrels
