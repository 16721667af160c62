"""A ranked result list (a "run") as an immutable columnar table."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from cranfield.data.row_index import TieOrder, doc_keys, stretches

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["RUN_SCHEMA", "Run"]

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
    Construct it with :func:`cranfield.load_run`, which validates the input.
    """

    frame: pl.DataFrame
    name: str = "run"
    tag: str = "run"
    notes: tuple[str, ...] = ()
    """Sentences on how the run was read beyond the plain meaning of a TREC run (the format
    it was read as, for example), reported beside the results."""
    known_tie_order: TieOrder | None = field(default=None, init=False, repr=False)
    """trec_eval's order inside each stretch, when the run's reader worked it out (see
    :meth:`indexed`); :func:`cranfield.data.ranking.tie_order_of` computes it otherwise."""

    @classmethod
    def indexed(
        cls,
        frame: pl.DataFrame,
        *,
        name: str = "run",
        tag: str = "run",
        notes: tuple[str, ...] = (),
        query_stretches: tuple[list[str], NDArray[np.int64]],
        doc_keys: NDArray[np.uint32],
        tie_order: TieOrder | None = None,
    ) -> Run:
        """A run with the row indexes its reader worked out while reading ``frame``, so
        that nothing computes them again: :attr:`query_stretches`, :attr:`doc_keys` and,
        if known, :attr:`known_tie_order`. The caller vouches that they are ``frame``'s."""
        run = cls(frame, name=name, tag=tag, notes=notes)
        known = vars(run)  # the instance's own cache of its cached properties
        known["query_stretches"] = query_stretches
        known["doc_keys"] = doc_keys
        object.__setattr__(run, "known_tie_order", tie_order)
        return run

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
