"""The vocabulary of options, declared once: every ``Literal`` an option can take.

Each alias names one concept of the glossary (ARCHITECTURE.md); the tuples beside them are
derived from the aliases, so a choice is never listed twice.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

__all__ = [
    "AGGREGATIONS",
    "COMPATS",
    "DUPLICATE_POLICIES",
    "FILE_FORMATS",
    "FUSION_METHODS",
    "FUSION_NORMALIZATIONS",
    "INPUT_KINDS",
    "LOG_FORMATS",
    "MISSING_POLICIES",
    "RUN_NAMINGS",
    "Aggregation",
    "Compat",
    "DuplicatePolicy",
    "FileFormat",
    "FusionMethod",
    "FusionNormalization",
    "InputKind",
    "LogFormat",
    "MissingPolicy",
    "RunNaming",
]

MissingPolicy = Literal["zero", "skip", "error"]
"""What happens to a judged query that a run does not answer."""

Aggregation = Literal["mean", "sum", "gmean", "median", "micro"]
"""How per-query values are summarised over queries."""

Compat = Literal[9, 10]
"""The trec_eval version whose rounding is followed (interpolated precision)."""

RunNaming = Literal["file", "tag"]
"""How runs given without names are named: by file name, or by the run tag of the file."""

DuplicatePolicy = Literal["merge", "error", "first", "last", "max"]
"""What happens to a (query, document) pair judged on several lines of the qrels: ``merge``
(lines with the same relevance become one, with a note; different relevances are an error),
``error`` (any repeat is an error, as in trec_eval), or keep the ``first`` line's relevance,
the ``last`` one's, or the ``max``."""

FileFormat = Literal["trec", "msmarco", "beir", "csv", "tsv", "json", "jsonl", "parquet"]
"""The format of a qrels or run file (``None`` where a format is asked for means "detect it",
:mod:`cranfield.io.formats`): TREC text, MS MARCO text (``qid pid rank`` runs, ``qid pid``
qrels), BEIR's TSV (header ``query-id corpus-id score``), CSV or TSV with a header naming the
columns, ranx-style JSON ``{query: {doc: value}}``, JSON Lines rows, or Parquet."""

MISSING_POLICIES: Final[tuple[str, ...]] = get_args(MissingPolicy)
AGGREGATIONS: Final[tuple[str, ...]] = get_args(Aggregation)
COMPATS: Final[tuple[int, ...]] = get_args(Compat)
DUPLICATE_POLICIES: Final[tuple[str, ...]] = get_args(DuplicatePolicy)
FILE_FORMATS: Final[tuple[str, ...]] = get_args(FileFormat)

InputKind = Literal["qrels", "run"]
"""What an input file holds: relevance judgments or one system's ranked results."""
INPUT_KINDS: Final[tuple[str, ...]] = get_args(InputKind)
RUN_NAMINGS: Final[tuple[str, ...]] = get_args(RunNaming)

LogFormat = Literal["wscd", "jsonl", "csv", "tsv", "parquet"]
"""The format of an interaction log (``None`` where a format is asked for means "detect it",
:mod:`cranfield.io.click_logs`): the WSCD text of the Yandex click logs, or one session per
row of JSON Lines, CSV, TSV or Parquet."""
LOG_FORMATS: Final[tuple[str, ...]] = get_args(LogFormat)

FusionMethod = Literal[
    "sum",
    "mnz",
    "anz",
    "gmnz",
    "max",
    "min",
    "med",
    "wsum",
    "wmnz",
    "mixed",
    "rrf",
    "isr",
    "log_isr",
    "logn_isr",
    "rbc",
    "bordafuse",
    "w_bordafuse",
    "condorcet",
    "w_condorcet",
    "bayesfuse",
    "posfuse",
    "probfuse",
    "segfuse",
    "slidefuse",
    "mapfuse",
]
"""A way of fusing runs (:mod:`cranfield.fusion`): the CombX family, weighted sums, and the
rank-based methods; the names are ranx's."""
FUSION_METHODS: Final[tuple[str, ...]] = get_args(FusionMethod)

FusionNormalization = Literal[
    "none", "min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda"
]
"""How each run's scores are normalised per query before they are fused
(:mod:`cranfield.fusion`); the names are ranx's, ``none`` keeps the scores as given."""
FUSION_NORMALIZATIONS: Final[tuple[str, ...]] = get_args(FusionNormalization)
