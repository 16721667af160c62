"""THE one place where a run becomes ranked lists (trec_eval's ``form_res_rels.c`` rules).

For every topic that is evaluated:

1. Run lines of topics absent from the qrels are ignored (never evaluated, not counted).
2. Lines are ordered by score descending; equal scores by doc id **descending**, bytewise
   (C ``strcmp``: ``zz`` > ``doc9`` > ``doc2`` > ``doc10`` > ``Doc1``). The rank column of
   the input plays no part. With ``float32=True`` scores are first rounded to float32, which
   turns scores equal in float32 into ties (trec_eval 9.x, pytrec_eval, NIST's published
   TREC-COVID numbers).
3. Only the first ``depth`` documents are kept (trec_eval ``-M``), after sorting.
4. Each document gets its judgment code: the judged level (``>= 0``), ``NOT_IN_POOL`` (-1,
   no qrels entry) or ``UNJUDGED`` (-2, a negative qrels value: pooled but not judged).
5. With ``judged_only=True`` (trec_eval ``-J``) every document without a judgment is
   removed and the list closes up, before any measure sees it.

Topics are ordered bytewise. Which topics are evaluated is the ``missing`` policy:
``"zero"`` evaluates every qrels topic and gives a topic absent from the run the one-line
placeholder ranking trec_eval ``-c`` uses (one document, not in the pool), so each measure
takes its empty-list value (0 for all but a few, see each measure's notes);
``"skip"`` evaluates only topics present in both (trec_eval 9.x without ``-c``);
``"error"`` raises :class:`~cranfield.errors.MissingTopicError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Literal

import numpy as np
import polars as pl

from cranfield.errors import EvaluationError, MissingTopicError

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.data.qrels import Qrels
    from cranfield.data.run import Run

NOT_IN_POOL = -1
UNJUDGED = -2
PLACEHOLDER_DOC = "ceci_nest_pas_un_docno"

MissingPolicy = Literal["zero", "skip", "error"]


@dataclass(frozen=True, eq=False)
class Judgments:
    """Per-topic judged levels from the qrels, aligned to a topic list.

    ``levels[offsets[i]:offsets[i+1]]`` are the relevance values ``>= 0`` of topic ``i``,
    sorted descending (this is also the ideal ranking of the topic). ``pooled_unjudged``
    counts the topic's negative qrels entries.
    """

    offsets: NDArray[np.int64]
    levels: NDArray[np.int64]
    pooled_unjudged: NDArray[np.int64]

    @cached_property
    def topic_of(self) -> NDArray[np.int64]:
        """Topic index of each entry of :attr:`levels`."""
        return np.repeat(np.arange(self.offsets.size - 1), np.diff(self.offsets))

    def count_at_least(self, level: int) -> NDArray[np.int64]:
        """Per topic, number of judged documents with relevance ``>= level`` (R at level)."""
        return np.bincount(
            self.topic_of, weights=self.levels >= level, minlength=self.offsets.size - 1
        ).astype(np.int64)

    def count_below(self, level: int) -> NDArray[np.int64]:
        """Per topic, judged documents with ``0 <= relevance < level`` (judged non-relevant)."""
        return np.bincount(
            self.topic_of, weights=self.levels < level, minlength=self.offsets.size - 1
        ).astype(np.int64)

    @cached_property
    def max_level(self) -> NDArray[np.int64]:
        """Highest judged level per topic (-1 if the topic has no judged document)."""
        out = np.full(self.offsets.size - 1, -1, dtype=np.int64)
        nonempty = np.diff(self.offsets) > 0
        out[nonempty] = self.levels[self.offsets[:-1][nonempty]]
        return out


@dataclass(frozen=True, eq=False)
class Ranking:
    """Ranked judgment codes of every evaluated topic, as flat arrays with offsets.

    Topic ``i`` (``topics[i]``) owns rows ``offsets[i]:offsets[i+1]`` of :attr:`rel` and
    :attr:`doc_id`, best first. ``missing[i]`` is true for a topic that had no run line
    (only possible under the ``"zero"`` policy).
    """

    topics: list[str]
    offsets: NDArray[np.int64]
    rel: NDArray[np.int64]
    doc_id: pl.Series
    missing: NDArray[np.bool_]
    judgments: Judgments
    run_tag: str

    @property
    def num_topics(self) -> int:
        return len(self.topics)

    @cached_property
    def lengths(self) -> NDArray[np.int64]:
        """Number of ranked documents per topic (``num_ret``)."""
        return np.diff(self.offsets)

    @cached_property
    def topic_of(self) -> NDArray[np.int64]:
        """Topic index of each ranked row."""
        return np.repeat(np.arange(self.num_topics), self.lengths)

    @cached_property
    def position(self) -> NDArray[np.int64]:
        """0-based rank of each row within its topic."""
        return np.arange(self.rel.size, dtype=np.int64) - np.repeat(self.offsets[:-1], self.lengths)


def judgments_for(qrels: Qrels, topics: list[str]) -> Judgments:
    """Judged levels of ``topics`` (which must all be qrels topics), sorted descending."""
    frame = qrels.frame.select("query_id", "relevance")
    wanted = pl.DataFrame(
        {"query_id": topics, "_t": np.arange(len(topics), dtype=np.int64)},
        schema={"query_id": pl.String, "_t": pl.Int64},
    )
    joined = frame.join(wanted, on="query_id", how="inner")
    judged = joined.filter(pl.col("relevance") >= 0).sort(
        ["_t", "relevance"], descending=[False, True]
    )
    t = judged.get_column("_t").to_numpy()
    counts = np.bincount(t, minlength=len(topics)).astype(np.int64)
    unj = joined.filter(pl.col("relevance") < 0).get_column("_t").to_numpy()
    return Judgments(
        offsets=np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        levels=judged.get_column("relevance").to_numpy().astype(np.int64),
        pooled_unjudged=np.bincount(unj, minlength=len(topics)).astype(np.int64),
    )


def rank(
    run: Run,
    qrels: Qrels,
    *,
    depth: int | None = None,
    judged_only: bool = False,
    float32: bool = False,
    missing: MissingPolicy = "zero",
) -> Ranking:
    """Rank ``run`` against ``qrels`` following trec_eval exactly (see the module notes)."""
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0):
        raise ValueError(f"The depth must be an integer >= 0, got {depth!r}.")
    if missing not in ("zero", "skip", "error"):
        raise ValueError(f"The missing policy must be 'zero', 'skip' or 'error', got {missing!r}.")
    if len(qrels) == 0:
        raise EvaluationError(f"The judgments {qrels.name!r} contain no judged document.")
    qrels_topics = qrels.topics
    frame = run.frame
    if float32:
        frame = frame.with_columns(pl.col("score").cast(pl.Float32).cast(pl.Float64))
    frame = frame.join(
        pl.DataFrame({"query_id": qrels_topics}, schema={"query_id": pl.String}), on="query_id", how="semi"
    ).sort(
        ["query_id", "score", "doc_id"], descending=[False, True, True]
    )

    present_ids = frame.get_column("query_id").rle()
    present = present_ids.struct.field("value").to_list()
    counts = present_ids.struct.field("len").to_numpy().astype(np.int64)
    absent = sorted(set(qrels_topics) - set(present))
    if absent and missing == "error":
        raise MissingTopicError(absent)
    if missing == "zero" and absent:
        placeholder = pl.DataFrame(
            {
                "query_id": absent,
                "doc_id": [PLACEHOLDER_DOC] * len(absent),
                "score": [1.0] * len(absent),
            },
            schema=frame.schema,
        )
        frame = pl.concat([frame, placeholder]).sort(
            ["query_id", "score", "doc_id"], descending=[False, True, True]
        )
        topics = qrels_topics
        ids = frame.get_column("query_id").rle()
        counts = ids.struct.field("len").to_numpy().astype(np.int64)
        absent_set = set(absent)
        missing_mask = np.array([t in absent_set for t in topics], dtype=bool)
    else:
        topics = present
        missing_mask = np.zeros(len(topics), dtype=bool)

    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    if depth is not None:
        pos = np.arange(frame.height, dtype=np.int64) - np.repeat(offsets[:-1], counts)
        keep = pos < depth
        if not keep.all():
            frame = frame.filter(pl.Series(keep))
            counts = np.minimum(counts, depth)
            offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)

    qrels_frame = qrels.frame.select("query_id", "doc_id", "relevance")
    joined = frame.join(qrels_frame, on=["query_id", "doc_id"], how="left", maintain_order="left")
    rel_col = joined.get_column("relevance")
    rel = rel_col.fill_null(NOT_IN_POOL).to_numpy().astype(np.int64)
    rel[rel < NOT_IN_POOL] = UNJUDGED
    rel[(rel == NOT_IN_POOL) & rel_col.is_not_null().to_numpy()] = UNJUDGED
    doc_id = joined.get_column("doc_id")

    if judged_only:
        keep = rel >= 0
        if not keep.all():
            topic_of = np.repeat(np.arange(len(topics)), counts)
            counts = np.bincount(topic_of[keep], minlength=len(topics)).astype(np.int64)
            offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
            rel = rel[keep]
            doc_id = doc_id.filter(pl.Series(keep))

    return Ranking(
        topics=topics,
        offsets=offsets,
        rel=rel,
        doc_id=doc_id,
        missing=missing_mask,
        judgments=judgments_for(qrels, topics),
        run_tag=run.tag,
    )


def ranked_doc_ids(
    run: Run, *, ascending_ties: bool = False, depth: int | None = None
) -> dict[str, list[str]]:
    """``{query_id: doc ids best first}`` for every run topic, cut at ``depth``.

    Score descending; ties by doc id descending (``ascending_ties=True`` gives the
    ascending order trec_eval's preference measures use).
    """
    frame = run.frame.sort(
        ["query_id", "score", "doc_id"], descending=[False, True, not ascending_ties]
    )
    out: dict[str, list[str]] = {}
    for (qid,), group in frame.group_by("query_id", maintain_order=True):
        docs = group.get_column("doc_id").to_list()
        out[str(qid)] = docs if depth is None else docs[:depth]
    return out
