"""An evaluation context that also carries the optional extra inputs of some measures.

* ``known``: the relevant documents known to the user (a qrels-like table), read by the
  user-oriented measures (coverage, novelty, relative recall, recall effect).
* ``intents``: subtopic (intent) judgments, read by α-nDCG; the same document may be
  judged under several subtopics of a query.

Both are aligned to the ranking once per relevance level and cached, like the arrays of
:class:`~cranfield.kernels.context.EvalContext`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cranfield._types import Compat
from cranfield.errors import EvaluationError
from cranfield.kernels.context import EvalContext, memo

if TYPE_CHECKING:
    import polars as pl
    from numpy.typing import NDArray

    from cranfield.data.ranking import Ranking


@dataclass(frozen=True, eq=False)  # arrays: no field-wise equality (as RunColumns)
class IntentPairs:
    """Subtopic judgments aligned to a ranking (flat arrays; see :meth:`ExtendedContext.intents_at`).

    Attributes
    ----------
    row, row_subtopic:
        One entry per (ranked row, subtopic the row's document is relevant to), sorted by
        row then subtopic code.
    cand_topic, cand_doc:
        The topics' candidate documents for the ideal ranking: every document relevant to
        at least one subtopic, grouped by topic, doc ids *descending* within a topic.
    pair_cand, pair_subtopic:
        One entry per (candidate, subtopic it is relevant to), sorted by candidate.
    num_subtopics:
        Number of distinct (topic, subtopic) codes.
    """

    row: NDArray[np.int64]
    row_subtopic: NDArray[np.int64]
    cand_topic: NDArray[np.int64]
    cand_doc: list[str]
    pair_cand: NDArray[np.int64]
    pair_subtopic: NDArray[np.int64]
    num_subtopics: int


class ExtendedContext(EvalContext):
    """:class:`EvalContext` plus the optional ``known`` and ``intents`` tables.

    Parameters
    ----------
    ranking, compat, num_docs:
        As for :class:`EvalContext`.
    known:
        Columns ``query_id``, ``doc_id``, ``relevance``: documents the user already knows,
        relevant when ``relevance >= rel`` of the measure. ``None`` if not supplied.
    intents:
        Columns ``query_id``, ``subtopic``, ``doc_id``, ``relevance``. ``None`` if not supplied.
    """

    def __init__(
        self,
        ranking: Ranking,
        *,
        compat: Compat = 10,
        num_docs: int = 0,
        known: pl.DataFrame | None = None,
        intents: pl.DataFrame | None = None,
    ):
        super().__init__(ranking, compat=compat, num_docs=num_docs)
        self.known = known
        self.intents = intents

    def _row_frame(self) -> pl.DataFrame:
        import polars as pl

        topics = np.asarray(self.ranking.topics, dtype=object)
        return pl.DataFrame(
            {
                "query_id": pl.Series(topics[self.topic_of].tolist(), dtype=pl.String),
                "doc_id": self.ranking.doc_id,
                "_row": np.arange(self.rel.size, dtype=np.int64),
            }
        )

    @memo
    def known_at(self, level: int) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
        """Per ranked row: is the document known to the user; per topic: |U| (known count).

        Raises
        ------
        EvaluationError
            If no ``known`` table was given to :func:`cranfield.evaluate`.
        """
        import polars as pl

        if self.known is None:
            need = "User-oriented measures need the relevant documents known to the user"
            raise EvaluationError(
                f"{need}; pass evaluate(..., known=<qrels of known documents>).",
                command_line=f"{need}; give them with --known QRELS.",
            )
        known = self.known.filter(pl.col("relevance") >= level).select("query_id", "doc_id")
        flags = (
            self._row_frame()
            .join(
                known.with_columns(pl.lit(True).alias("_k")), on=["query_id", "doc_id"], how="left"
            )
            .sort("_row")
            .get_column("_k")
            .fill_null(False)
            .to_numpy()
            .astype(bool)
        )
        flags &= ~self.ranking.missing[self.topic_of]
        wanted = pl.DataFrame({"query_id": self.ranking.topics, "_t": np.arange(self.n_topics)})
        t = known.join(wanted, on="query_id", how="inner").get_column("_t").to_numpy()
        counts = np.bincount(t, minlength=self.n_topics).astype(np.int64)
        return flags, counts

    @memo
    def intents_at(self, level: int) -> IntentPairs:
        """Subtopic judgments (``relevance >= level``) aligned to the ranking.

        Raises
        ------
        EvaluationError
            If no ``intents`` table was given to :func:`cranfield.evaluate`.
        """
        import polars as pl

        if self.intents is None:
            need = "Intent-aware measures need subtopic judgments"
            raise EvaluationError(
                f"{need}; pass evaluate(..., intents=<intent qrels>).",
                command_line=f"{need}; give them with --intents QRELS.",
            )
        wanted = pl.DataFrame({"query_id": self.ranking.topics, "_t": np.arange(self.n_topics)})
        rel = (
            self.intents.filter(pl.col("relevance") >= level)
            .join(wanted, on="query_id", how="inner")
            .select("query_id", "_t", "subtopic", "doc_id")
        )
        codes = rel.select("_t", "subtopic").unique().sort("_t", "subtopic")
        codes = codes.with_columns(pl.int_range(pl.len()).alias("_s"))
        rel = rel.join(codes, on=["_t", "subtopic"], how="inner")

        rows = (
            self._row_frame()
            .join(rel.select("query_id", "doc_id", "_s"), on=["query_id", "doc_id"], how="inner")
            .sort("_row", "_s")
        )
        row = rows.get_column("_row").to_numpy().astype(np.int64)
        keep = ~self.ranking.missing[self.topic_of[row]] if row.size else np.zeros(0, bool)

        cands = rel.select("_t", "doc_id").unique().sort(["_t", "doc_id"], descending=[False, True])
        cands = cands.with_columns(pl.int_range(pl.len()).alias("_c"))
        pairs = rel.join(cands, on=["_t", "doc_id"], how="inner").sort("_c", "_s")
        return IntentPairs(
            row=row[keep],
            row_subtopic=rows.get_column("_s").to_numpy().astype(np.int64)[keep],
            cand_topic=cands.get_column("_t").to_numpy().astype(np.int64),
            cand_doc=cands.get_column("doc_id").to_list(),
            pair_cand=pairs.get_column("_c").to_numpy().astype(np.int64),
            pair_subtopic=pairs.get_column("_s").to_numpy().astype(np.int64),
            num_subtopics=codes.height,
        )


def extended(ctx: EvalContext) -> ExtendedContext:
    """``ctx`` as an :class:`ExtendedContext`.

    Raises
    ------
    EvaluationError
        If ``ctx`` is a plain context (built outside :func:`cranfield.evaluate`).
    """
    if isinstance(ctx, ExtendedContext):
        return ctx
    raise EvaluationError(
        "This measure needs the extra inputs of cranfield.evaluate (known= or intents=), "
        "which this evaluation context does not carry."
    )
