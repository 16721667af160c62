"""A ranked result list (a "run") as an immutable columnar table."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.data.ranking import TieOrder

RUN_SCHEMA = {
    "query_id": pl.String,
    "doc_id": pl.String,
    "score": pl.Float64,
}


@dataclass(frozen=True, eq=False)
class Run:
    """Retrieved documents with scores: one row per (query, document) pair.

    The table has the columns ``query_id``, ``doc_id`` (strings) and ``score`` (float64)
    in input order; the rank column of a TREC file is not kept because trec_eval never
    uses it (documents are ranked by score, see :mod:`cranfield.data.ranking`). ``tag``
    is the run tag of the *last* line of a TREC file, as trec_eval reports it.
    Construct it with :func:`cranfield.read_run`, which validates the input.
    """

    frame: pl.DataFrame
    name: str = "run"
    tag: str = "run"

    def __len__(self) -> int:
        return self.frame.height

    def __repr__(self) -> str:
        return f"Run(name={self.name!r}, tag={self.tag!r}, topics={len(self.topics)}, lines={len(self)})"

    @cached_property
    def topics(self) -> list[str]:
        """Query ids present in the run, bytewise order."""
        return sorted(set(self.query_stretches[0]))  # code point order is UTF-8 byte order

    @cached_property
    def query_stretches(self) -> tuple[list[str], NDArray[np.int64]]:
        """The query ids in input order, run-length encoded: ``(queries, lengths)``.

        ``queries[k]`` is the query of the k-th stretch of consecutive rows and
        ``lengths[k]`` its number of rows; a run grouped by query has one stretch per query.
        """
        return stretches(self.frame.get_column("query_id"))

    @cached_property
    def doc_keys(self) -> NDArray[np.uint32]:
        """A 32-bit hash of each row's doc id (:func:`doc_keys`), to find judged rows fast."""
        return doc_keys(self.frame.get_column("doc_id"))

    @cached_property
    def tie_order(self) -> TieOrder:
        """trec_eval's order inside each stretch: a :class:`~cranfield.data.ranking.TieOrder`."""
        from cranfield.data.ranking import tie_order  # ranking builds on runs

        return tie_order(
            self.frame.get_column("score").to_numpy(),
            self.frame.get_column("doc_id"),
            self.query_stretches[1],
        )

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query_id: {doc_id: score}}`` in input order."""
        out: dict[str, dict[str, float]] = {}
        for q, d, s in self.frame.select("query_id", "doc_id", "score").iter_rows():
            out.setdefault(q, {})[d] = s
        return out

    def to_polars(self) -> pl.DataFrame:
        """The table itself (polars frames are immutable; no copy is made)."""
        return self.frame

    def to_pandas(self) -> object:
        """The table as a pandas DataFrame (needs pandas and pyarrow)."""
        return self.frame.to_pandas()


def stretches(column: pl.Series) -> tuple[list[str], NDArray[np.int64]]:
    """Run-length encoding of a string column: the value of each stretch and its length."""
    runs = column.rle()
    return runs.struct.field("value").to_list(), runs.struct.field("len").to_numpy().astype(
        np.int64
    )


def doc_keys(doc_id: pl.Series) -> NDArray[np.uint32]:
    """The low 32 bits of polars' hash of each doc id: equal ids give equal keys, in any
    series and any process; different ids rarely do."""
    return hashed_keys(doc_id.hash().to_numpy())


def hashed_keys(hashes: NDArray[np.uint64]) -> NDArray[np.uint32]:
    """:func:`doc_keys` from hashes already computed with ``Series.hash()``."""
    return hashes.astype(np.uint32)  # the low 32 bits (unsigned casts wrap around)
