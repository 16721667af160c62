"""The runs' ranked lists per topic, cut at a pool depth: what every judging strategy reads.

:class:`RunLists` holds, for each topic, the pooled documents in *depth order* (every run's
rank 1 in the order the runs are given, then every run's rank 2, ...; each document where it
first appears) and each run's list as positions into them, best first, with its scores.
Runs are ranked by THE ranking rule of :mod:`cranfield.data.ranking` (score descending, ties
by document id descending), as trec_eval ranks them and as :func:`cranfield.lab.pool` pools.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from cranfield._validate import check_int
from cranfield.data.ranking import trec_eval_order
from cranfield.errors import OptionError
from cranfield.io.runset import RunSet

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.data.run import Run

__all__ = ["RunLists", "TopicLists", "run_lists"]


@dataclass(frozen=True, eq=False)
class TopicLists:
    """One topic's pool.

    Attributes
    ----------
    docs:
        The pooled documents in depth order.
    index:
        ``{doc_id: position in docs}``.
    lists:
        Per run (in :attr:`RunLists.runs` order), positions into :attr:`docs`, best first
        (empty when the run did not answer the topic).
    scores:
        Per run, the run's scores of those documents.
    """

    docs: tuple[str, ...]
    index: dict[str, int]
    lists: tuple[NDArray[np.int64], ...]
    scores: tuple[NDArray[np.float64], ...]

    def __len__(self) -> int:
        return len(self.docs)


@dataclass(frozen=True, eq=False)
class RunLists:
    """Every topic's pool: the runs' lists cut at ``pool_depth`` (``None``: whole).

    Build it with :func:`run_lists`. ``runs`` are the run names in the order given.
    """

    runs: tuple[str, ...]
    pool_depth: int | None
    topics: dict[str, TopicLists]

    def __repr__(self) -> str:
        size = sum(len(t) for t in self.topics.values())
        return (
            f"RunLists(runs={len(self.runs)}, topics={len(self.topics)}, "
            f"pool_depth={self.pool_depth}, documents={size})"
        )

    def pool_sizes(self) -> dict[str, int]:
        """``{topic: pooled documents}``, topics in bytewise order."""
        return {q: len(t) for q, t in sorted(self.topics.items())}


def _top(run: Run, index: int, pool_depth: int | None) -> pl.DataFrame:
    ranked = run.frame.select("query_id", "doc_id", "score")[trec_eval_order(run)]
    ranked = ranked.with_columns(
        (pl.int_range(pl.len()).over("query_id") + 1).alias("rank"),
        pl.lit(index, dtype=pl.Int64).alias("run"),
    )
    return ranked if pool_depth is None else ranked.filter(pl.col("rank") <= pool_depth)


def run_lists(
    runs: RunLists | RunSet | Mapping[str, Any] | Sequence[Any],
    *,
    pool_depth: int | None = 100,
) -> RunLists:
    """The runs' lists per topic, cut at ``pool_depth`` documents per run and topic.

    Parameters
    ----------
    runs:
        ``{name: run}``, a list of runs (paths, ``Run``s, DataFrames, dicts; named by file
        name, :mod:`cranfield.io.run_names`), a ``RunSet``, or a ``RunLists`` (returned as
        it is when its depth is ``pool_depth``).
    pool_depth:
        Documents taken from the top of each run for each topic (``None``: every document).

    Examples
    --------
    >>> lists = run_lists({"a": {"q1": {"d1": 3.0, "d2": 2.0}}, "b": {"q1": {"d3": 5.0, "d1": 1.0}}})
    >>> lists.topics["q1"].docs
    ('d1', 'd3', 'd2')
    >>> [x.tolist() for x in lists.topics["q1"].lists]
    [[0, 2], [1, 0]]
    """
    pool_depth = check_int("pool_depth", pool_depth, minimum=1, none=True)
    if isinstance(runs, RunLists):
        if runs.pool_depth == pool_depth:
            return runs
        raise OptionError(
            "pool_depth", f"the depth of the RunLists given ({runs.pool_depth})", pool_depth
        )
    if isinstance(runs, (str, bytes)):
        raise OptionError("runs", "a list or a dict of runs", runs)
    run_set = RunSet.of(runs)
    frames = [_top(run_set.load(i), i, pool_depth) for i in range(len(run_set))]
    rows = pl.concat(frames, how="vertical").sort(["query_id", "rank", "run"], maintain_order=True)
    n_runs = len(run_set)
    topics: dict[str, TopicLists] = {}
    for (qid,), group in rows.group_by("query_id", maintain_order=True):
        docs_col = group.get_column("doc_id").to_list()
        index: dict[str, int] = {}
        for d in docs_col:
            if d not in index:
                index[d] = len(index)
        positions = np.fromiter((index[d] for d in docs_col), dtype=np.int64, count=len(docs_col))
        run_of = group.get_column("run").to_numpy()
        rank = group.get_column("rank").to_numpy()
        score = group.get_column("score").to_numpy()
        lists, scores = [], []
        for r in range(n_runs):
            mine = np.flatnonzero(run_of == r)
            mine = mine[np.argsort(rank[mine], kind="stable")]
            lists.append(positions[mine])
            scores.append(score[mine].astype(np.float64))
        topics[str(qid)] = TopicLists(
            docs=tuple(index), index=index, lists=tuple(lists), scores=tuple(scores)
        )
    return RunLists(runs=run_set.names, pool_depth=pool_depth, topics=topics)
