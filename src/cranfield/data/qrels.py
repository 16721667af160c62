"""Relevance judgments as an immutable columnar table."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from cranfield.data.row_index import doc_keys

if TYPE_CHECKING:
    from numpy.typing import NDArray

QRELS_SCHEMA = {
    "query_id": pl.String,
    "iteration": pl.String,
    "doc_id": pl.String,
    "relevance": pl.Int64,
}


@dataclass(frozen=True, eq=False)
class Qrels:
    """Relevance judgments: one row per judged (query, document) pair.

    The table has the columns ``query_id``, ``iteration``, ``doc_id`` (strings) and
    ``relevance`` (int64) and is sorted by ``query_id`` then ``doc_id``, both bytewise
    (C ``strcmp`` order, as trec_eval). Construct it with :func:`cranfield.load_qrels`,
    which validates the input; the constructor trusts its argument.

    Relevance values follow trec_eval: a value ``>= 0`` is a judgment (graded levels are
    allowed), any negative value means "in the judging pool but not judged" and is counted
    at no relevance level. ``iteration`` is kept verbatim and measures ignore it. Each
    (query, document) pair occurs once, so files that judge a document once per judge group
    or subtopic (trec_eval ``-R qrels_jg``, ndeval) are not ``Qrels``: read judgment groups
    with :func:`cranfield.io.prefs.read_qrels_jg`.

    ``notes`` are sentences on what reading did beyond the file's plain meaning (repeated
    lines merged, say); an evaluation prints them with its policy note.
    """

    frame: pl.DataFrame
    name: str = "qrels"
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return self.frame.height

    def __repr__(self) -> str:
        return f"Qrels(name={self.name!r}, topics={len(self.topics)}, judgments={len(self)})"

    @cached_property
    def topics(self) -> list[str]:
        """Query ids in bytewise order."""
        return self.frame.get_column("query_id").unique(maintain_order=True).to_list()

    @cached_property
    def doc_keys(self) -> NDArray[np.uint32]:
        """:func:`~cranfield.data.row_index.doc_keys` of every row's doc id (kept: every
        ranking against these qrels looks its judged rows up by them)."""
        return doc_keys(self.frame.get_column("doc_id"))

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{query_id: {doc_id: relevance}}``, topics and documents in table order."""
        out: dict[str, dict[str, int]] = {}
        for q, d, r in self.frame.select("query_id", "doc_id", "relevance").iter_rows():
            out.setdefault(q, {})[d] = r
        return out

    def to_polars(self) -> pl.DataFrame:
        """The table itself (polars frames are immutable; no copy is made)."""
        return self.frame

    def to_pandas(self) -> object:
        """The table as a pandas DataFrame (needs pandas and pyarrow)."""
        return self.frame.to_pandas()

    def topic_offsets(self) -> NDArray[np.int64]:
        """Row offsets of each topic in :attr:`frame`: topic i is rows ``[o[i], o[i+1])``."""
        counts = self.frame.get_column("query_id").rle().struct.field("len").to_numpy()
        return np.concatenate(([0], np.cumsum(counts, dtype=np.int64)))
