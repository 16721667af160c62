"""A TREC run in the order of its rank column, as NIST's ndeval orders it by default.

trec_eval, and cranfield by default, rank a run's documents by score (equal scores by doc id,
:mod:`cranfield.data.ranking`) and never read the rank column. NIST's ``ndeval`` (the TREC Web
track's diversity evaluator, 2009-2014) sorts each query's lines by the rank column instead,
unless given ``-traditional``; the official diversity figures of runs whose ranks disagree
with their scores (score ties broken otherwise, re-ranked runs whose scores were not
rewritten) follow the rank column. :func:`read_run_in_rank_order` reads such a run as
ndeval does: the file is read and checked as any TREC run (:func:`cranfield.io.trec.
read_run_bytes`), then each line's score is replaced by minus its rank, so that THE ranking
rule (score descending) puts rank 1 first; the run carries a note saying so.

Policy: the rank must be an integer >= 0, and a query may not give one rank twice (ndeval
refuses both); either is an :class:`~cranfield.errors.InputError` naming the file and line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import polars as pl

from cranfield.data.run import Run
from cranfield.errors import InputError
from cranfield.io.run_names import run_name
from cranfield.io.source import read_bytes, source_name
from cranfield.io.trec import read_run_bytes

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["RANK_ORDER_NOTE", "read_run_in_rank_order"]

RANK_ORDER_NOTE: Final = (
    "ranked by its rank column (ndeval's default order), not by score: each score is minus "
    "the line's rank"
)
"""The note a run read in rank order carries (reported beside its results)."""


def _ranks(data: bytes, label: str) -> pl.DataFrame:
    """``query_id``, ``doc_id``, ``rank`` of every line of a run already read as a TREC run."""
    queries: list[str] = []
    docs: list[str] = []
    ranks: list[int] = []
    first: dict[tuple[str, int], int] = {}
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        query, doc, text = fields[0], fields[2], fields[3]
        if not text.isdigit():
            raise InputError(
                label, number, "the rank column must be an integer >= 0 to order by rank", line
            )
        rank = int(text)
        seen = first.setdefault((query, rank), number)
        if seen != number:
            raise InputError(
                label,
                number,
                f"query {query!r} gives rank {rank} twice (first on line {seen}), so it has "
                "no order by rank",
                line,
            )
        queries.append(query)
        docs.append(doc)
        ranks.append(rank)
    return pl.DataFrame(
        {"query_id": queries, "doc_id": docs, "rank": ranks},
        schema={"query_id": pl.String, "doc_id": pl.String, "rank": pl.Int64},
    )


def read_run_in_rank_order(source: str | Path, *, name: str | None = None) -> Run:
    """The TREC run ``source`` (a path or ``-``) ordered by its rank column (module notes).

    Parameters
    ----------
    source:
        A TREC run file (compressed or not), read once.
    name:
        The run's name (default: the file's, by :func:`~cranfield.io.run_names.run_name`).

    Raises
    ------
    InputError
        If the file is not a valid TREC run, a rank is not an integer >= 0, or a query gives
        a rank twice.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "r.txt"
    >>> _ = path.write_text("1 Q0 a 2 9.0 t\\n1 Q0 b 1 5.0 t\\n")
    >>> run = read_run_in_rank_order(path)
    >>> run.frame.rows(), run.name
    ([('1', 'a', -2.0), ('1', 'b', -1.0)], 'r')
    """
    label = source_name(source)
    data = read_bytes(source)
    run = read_run_bytes(data, label, name=name or run_name(source))
    ranks = _ranks(data, label)
    frame = (
        run.frame.join(ranks, on=["query_id", "doc_id"], how="left", maintain_order="left")
        .with_columns((-pl.col("rank").cast(pl.Float64)).alias("score"))
        .drop("rank")
    )
    return Run(frame, name=run.name, tag=run.tag, notes=(*run.notes, RANK_ORDER_NOTE))
