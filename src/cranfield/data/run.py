"""A ranked result list (a "run") as an immutable columnar table."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import polars as pl

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
        return self.frame.get_column("query_id").unique().sort().to_list()

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
