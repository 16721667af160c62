"""The fusion methods that learn from qrels: BayesFuse, PosFuse, ProbFuse, SegFuse,
SlideFuse and MAPFuse (their estimates and scores; :mod:`cranfield.fusion.training` reads the
qrels and runs).

Each learns, per run, how likely a position of its ranking is to hold a relevant document,
from the qrels of *training* queries (:func:`cranfield.fusion.train`), and then scores the
documents of any query from their positions (:func:`cranfield.fusion.fuse` with
``training=``). What they learn is one table: for each run and training query, which
positions of the run's ranking hold a document judged relevant (relevance >= 1, ranx's
level) and how many relevant documents the query has. Each method's estimate is then a few
sums over that table:

* PosFuse, SlideFuse (Lillis et al. 2010, 2008): ``P_r(i)``, the share of training queries
  with a relevant document at position ``i`` among those whose list reaches ``i``;
* ProbFuse (Lillis et al. 2006): per segment of ``ceil(m / n_segments)`` positions, the
  share of relevant documents in it, averaged over the training queries;
* SegFuse (Shokouhi 2007): the same over segments that double in width (5, 10, 20, ...);
* BayesFuse (Aslam & Montague 2001): the log-odds of relevance in blocks of positions;
* MAPFuse (Lillis et al. 2010): each run's mean average precision.

The training queries are the queries of the qrels given (or of ``queries=``); a query a run
has no list for counts as an empty list (no position, no relevant document found): ranx's
``make_comparable``. A method's fused score is a sum over the runs, a run that did not
retrieve a document adding 0 (BayesFuse: the log-odds ``log(0.001 / 0.999)``). The fused run
is ranked by score descending, ties by doc id descending. Fitting on the queries that are
then scored is optimistic; :func:`cranfield.fusion.tune` and ``cranfield fuse --qrels`` fit
on training folds and score the held-out fold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np

from cranfield.errors import EvaluationError, OptionError

if TYPE_CHECKING:
    import polars as pl
    from numpy.typing import NDArray

    from cranfield.data.qrels import Qrels
    from cranfield.fusion.methods import MethodSpec

__all__ = ["FusionTraining", "checked_training", "trained_scores", "training_table"]

RELEVANT: Final = 1
"""The lowest relevance that counts as relevant (ranx's ``rel_lvl``)."""
_BAYES_CUTS: Final = (0, 5, 10, 15, 20, 30, 100, 200, 500, 1000)
_BAYES_FLOOR: Final = 0.001
_SEG_BOUNDS: Final = (0, *(10 * 2 ** (k - 1) - 5 for k in range(1, 11)))  # 5, 15, ..., 5115


@dataclass(frozen=True, eq=False)
class FusionTraining:
    """What the trained methods learn from qrels (:func:`cranfield.fusion.train`).

    Attributes
    ----------
    names:
        The runs it was learnt from, in order; the runs fused with it are matched by
        position (their number must be the same).
    queries:
        The training queries (bytewise).
    hits:
        One row per (run, training query, position): ``r``, ``query_id``, ``rank`` (from 0)
        and ``hit`` (1.0 where the document there is judged relevant).
    relevant:
        ``{query: number of relevant documents}`` over the training queries.
    norm, ranks:
        How the runs were ranked (``min-max-inverted`` ranks by score ascending).
    """

    names: tuple[str, ...]
    queries: tuple[str, ...]
    hits: pl.DataFrame
    relevant: dict[str, int]
    norm: str
    ranks: str

    def _run_hits(self, r: int) -> pl.DataFrame:
        import polars as pl

        return self.hits.filter(pl.col("r") == r)

    def position_probs(self, r: int) -> NDArray[np.float64]:
        """``P_r(i)`` for every position ``i`` up to run ``r``'s longest training list."""
        part = self._run_hits(r)
        rank = part.get_column("rank").to_numpy().astype(np.int64)
        if rank.size == 0:
            return np.zeros(0)
        hit = part.get_column("hit").to_numpy()
        return np.bincount(rank, weights=hit) / np.bincount(rank)

    def segment_probs(self, r: int, n_segments: int) -> NDArray[np.float64]:
        """ProbFuse's ``P_r(k)`` for ``k`` in ``0 .. n_segments - 1``."""
        import polars as pl

        part = self._run_hits(r)
        out = np.zeros(n_segments)
        if part.height:
            per = (
                part.with_columns(
                    (
                        pl.col("rank")
                        // (pl.col("m") + n_segments - 1).floordiv(n_segments).cast(pl.Int64)
                    ).alias("seg")
                )
                .group_by(["query_id", "seg"])
                .agg(pl.col("hit").mean())
            )
            np.add.at(out, per.get_column("seg").to_numpy(), per.get_column("hit").to_numpy())
        return out / len(self.queries)

    def fixed_segment_probs(self, r: int, cuts: Sequence[int]) -> NDArray[np.float64]:
        """The mean over training queries of the share of relevant documents in each block
        ``cuts[k] .. cuts[k+1] - 1`` (the block's full width, even past a list's end)."""
        part = self._run_hits(r)
        rank = part.get_column("rank").to_numpy()
        hit = part.get_column("hit").to_numpy()
        bounds = np.asarray(cuts)
        inside = rank < bounds[-1]
        block = np.searchsorted(bounds, rank[inside], side="right") - 1
        totals = np.bincount(block, weights=hit[inside], minlength=len(cuts) - 1)
        return totals / np.diff(bounds) / len(self.queries)

    def mean_average_precision(self, r: int) -> float:
        """Run ``r``'s mean average precision over the training queries (a query with no
        relevant document, or no list, scores 0)."""
        import polars as pl

        part = self._run_hits(r).sort(["query_id", "rank"])
        if part.height == 0:
            return 0.0
        per = (
            part.with_columns(pl.col("hit").cum_sum().over("query_id").alias("found"))
            .filter(pl.col("hit") > 0)
            .group_by("query_id")
            .agg((pl.col("found") / (pl.col("rank") + 1)).sum().alias("precisions"))
        )
        total = 0.0
        for q, s in zip(per.get_column("query_id"), per.get_column("precisions"), strict=True):
            total += s / self.relevant[q]
        return total / len(self.queries)


def training_table(
    qrels: Qrels,
    table: pl.DataFrame,
    names: tuple[str, ...],
    *,
    table_queries: Sequence[str],
    queries: Sequence[str] | None,
    norm: str,
    ranks: str,
    relevance_level: int = RELEVANT,
) -> FusionTraining:
    """What the stacked runs' ``table`` (:class:`~cranfield.fusion.fuse.FusionInputs`, whose
    ``qc`` column is a row's place in ``table_queries``) learn from ``qrels`` on the training
    ``queries`` (:func:`cranfield.fusion.train`): a document is relevant at
    ``relevance_level`` or above."""
    import polars as pl

    known = set(qrels.topics)
    wanted = sorted(known if queries is None else {str(q) for q in queries})
    unknown = [q for q in wanted if q not in known]
    if unknown or not wanted:
        raise OptionError(
            "queries",
            "training queries that the qrels judge"
            + (f" (not judged: {', '.join(unknown[:5])})" if unknown else ""),
            f"{len(wanted)} queries",
        )
    rel = qrels.frame.filter(pl.col("query_id").is_in(wanted)).select(
        "query_id", "doc_id", (pl.col("relevance") >= relevance_level).cast(pl.Float64).alias("hit")
    )
    relevant = dict(rel.group_by("query_id").agg(pl.col("hit").sum()).iter_rows())
    # the training queries as the table's codes, once; a query no run has is no row
    code = {q: i for i, q in enumerate(table_queries)}
    present = [q for q in wanted if q in code]
    codes = pl.DataFrame(
        {"qc": [code[q] for q in present], "query_id": present},
        schema={"qc": table.schema["qc"], "query_id": pl.String},
    )
    hits = (
        table.select("r", "qc", "doc_id", "rank", "m")
        .join(codes, on="qc", how="inner", maintain_order="left")
        .drop("qc")
        .join(rel, on=["query_id", "doc_id"], how="left", maintain_order="left")
        .with_columns(pl.col("hit").fill_null(0.0))
        .select("r", "query_id", "rank", "m", "hit")
    )
    return FusionTraining(
        names=names,
        queries=tuple(wanted),
        hits=hits,
        relevant={q: int(relevant.get(q, 0)) for q in wanted},
        norm=norm,
        ranks=ranks,
    )


def checked_training(
    spec: MethodSpec,
    training: FusionTraining | None,
    names: Sequence[str],
    *,
    inverted: bool = False,
    ranks: str = "score",
) -> FusionTraining | None:
    """``training`` checked against the method and the runs fused (``inverted``, ``ranks``:
    how they are ranked, which must be how the training ranked them).

    Raises
    ------
    cranfield.errors.OptionError
        A trained method without training, training for a method that learns nothing, or
        training learnt from another number of runs or from runs ranked another way.
    """
    if not spec.trained:
        if training is not None:
            raise OptionError(
                "training", f"left out for method '{spec.name}', which learns nothing", "given"
            )
        return None
    if training is None:
        raise OptionError(
            "training",
            f"given for method '{spec.name}', which learns from qrels: "
            f"training=cranfield.fusion.train(qrels, runs)",
            None,
        )
    if len(training.names) != len(names):
        raise OptionError(
            "training",
            f"learnt from the same {len(names)} runs ({', '.join(names)})",
            f"learnt from {len(training.names)} runs ({', '.join(training.names)})",
        )
    learnt = (training.norm == "min-max-inverted", training.ranks)
    if learnt != (inverted, ranks):
        raise OptionError(
            "training",
            f"learnt from runs ranked as they are fused (ranks '{ranks}', "
            f"{'min-max-inverted' if inverted else 'score descending'})",
            f"learnt with ranks '{training.ranks}' and norm '{training.norm}'",
        )
    return training


def trained_scores(
    table: pl.DataFrame,
    n_runs: int,
    spec: MethodSpec,
    training: FusionTraining,
    params: Mapping[str, float],
    normalized: NDArray[np.float64] | None,
) -> pl.DataFrame:
    """``qc, doc_id, score``: the fused score of every (query code, document) of the
    stacked runs' ``table`` (:class:`~cranfield.fusion.fuse.FusionInputs`) by the trained
    method ``spec`` (``normalized``: each row's normalised score, for SegFuse)."""
    import polars as pl

    r = table.get_column("r").to_numpy()
    rank = table.get_column("rank").to_numpy().astype(np.int64)
    m = table.get_column("m").to_numpy().astype(np.int64)
    value = np.zeros(table.height)
    for run in range(n_runs):
        rows = np.flatnonzero(r == run)
        i = rank[rows]
        value[rows] = _run_values(spec.name, training, run, i, m[rows], params, normalized, rows)
    frame = table.select("qc", "doc_id").with_columns(pl.Series("value", value))
    grouped = frame.group_by(["qc", "doc_id"]).agg(pl.col("value").sum(), pl.len().alias("n"))
    if spec.name == "bayesfuse":
        missing = float(np.log(_BAYES_FLOOR / (1.0 - _BAYES_FLOOR)))
        return grouped.select(
            "qc",
            "doc_id",
            (pl.col("value") + (n_runs - pl.col("n")).cast(pl.Float64) * missing).alias("score"),
        )
    return grouped.select("qc", "doc_id", pl.col("value").alias("score"))


def _run_values(
    method: str,
    training: FusionTraining,
    run: int,
    i: NDArray[np.int64],
    m: NDArray[np.int64],
    params: Mapping[str, float],
    normalized: NDArray[np.float64] | None,
    rows: NDArray[np.int64],
) -> NDArray[np.float64]:
    """What run ``run`` gives the documents at positions ``i`` of lists of length ``m``."""
    if method == "mapfuse":
        return np.asarray(training.mean_average_precision(run) / (i + 1.0), dtype=np.float64)
    if method in ("posfuse", "slidefuse"):
        probs = training.position_probs(run)
        if method == "posfuse":
            return _at(probs, i)
        w = int(params["w"])
        a = np.maximum(i - w, 0)
        b = np.minimum(i + w, m - 1)
        top = int(b.max(initial=0)) + 1
        cum = np.concatenate(([0.0], np.cumsum(_at(probs, np.arange(top)))))
        return np.asarray((cum[b + 1] - cum[a]) / (b - a + 1), dtype=np.float64)
    if method == "probfuse":
        k = int(params["n_segments"])
        probs = training.segment_probs(run, k)
        seg = i // -(-m // k)
        return np.asarray(probs[seg] / (seg + 1.0), dtype=np.float64)
    if method == "segfuse":
        if normalized is None:
            raise EvaluationError("SegFuse needs the runs' normalised scores.")
        probs = training.fixed_segment_probs(run, _SEG_BOUNDS)
        block = np.searchsorted(np.asarray(_SEG_BOUNDS), i, side="right") - 1
        return _at(probs, block) * (normalized[rows] + 1.0)
    # bayesfuse
    probs = training.fixed_segment_probs(run, _BAYES_CUTS)
    p = np.where(probs == 0.0, _BAYES_FLOOR, probs)
    q = 1.0 - p
    q = np.where(q == 0.0, _BAYES_FLOOR, q)
    odds = np.log(p / q)
    block = np.searchsorted(np.asarray(_BAYES_CUTS), i, side="right") - 1
    missing = float(np.log(_BAYES_FLOOR / (1.0 - _BAYES_FLOOR)))
    return np.where(i < _BAYES_CUTS[-1], _at(odds, block, missing), missing)


def _at(
    values: NDArray[np.float64], index: NDArray[np.int64], fill: float = 0.0
) -> NDArray[np.float64]:
    """``values[index]``, ``fill`` where ``index`` is past the end."""
    out = np.full(index.shape, fill)
    inside = index < values.size
    out[inside] = values[index[inside]]
    return out
