"""Curves and comparison tables, as tidy polars DataFrames ready to plot.

* :func:`pr_points`: the precision–recall point of every retrieved relevant document;
* :func:`interpolated_pr` / :func:`mean_interpolated_pr`: interpolated precision at the 11
  standard recall levels (or any levels) per topic, and averaged over topics;
* :func:`gain_curves` / :func:`mean_gain_curves`: the CG, DCG, ideal CG/DCG and nCG/nDCG
  vectors at every rank 1..max_rank per topic, and averaged over topics (normalised as a ratio of
  averages, as Järvelin & Kekäläinen and Baeza-Yates & Ribeiro-Neto do, or as an average
  of ratios);
* :func:`precision_histogram`: per-topic differences of a measure between two runs;
* :func:`summary_table`: queries, documents retrieved, relevant, relevant retrieved.

Every function takes the inputs and the evaluation options of :func:`cranfield.evaluate`
(an :class:`~cranfield.evaluation.options.EvalOptions` as ``options=``, or its fields as
keywords) and ranks the run with the same rules (score descending, ties by docno descending).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Literal, Unpack, get_args

import numpy as np
import polars as pl

from cranfield._deprecation import renamed_parameters
from cranfield._validate import check_choice, check_float, check_int
from cranfield.errors import EvaluationError
from cranfield.evaluation.evaluator import Evaluator, evaluate
from cranfield.evaluation.options import EvalKwargs, EvalOptions
from cranfield.kernels.binary import interpolated_precision
from cranfield.kernels.dcg_variants import discount, variant_gains
from cranfield.kernels.ranked_variants import interpolated_precision_exact

if TYPE_CHECKING:
    from collections.abc import Mapping

    from numpy.typing import NDArray

    from cranfield.evaluation.results import Results
    from cranfield.io.load import QrelsLike, RunLike

__all__ = [
    "STANDARD_LEVELS",
    "gain_curves",
    "interpolated_pr",
    "mean_gain_curves",
    "mean_interpolated_pr",
    "pr_points",
    "precision_histogram",
    "summary_table",
]

STANDARD_LEVELS: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
Interpolation = Literal["exact", "trec_eval"]
Normalisation = Literal["ratio_of_means", "mean_of_ratios"]
INTERPOLATIONS: Final[tuple[str, ...]] = get_args(Interpolation)
NORMALISATIONS: Final[tuple[str, ...]] = get_args(Normalisation)


def pr_points(
    qrels: QrelsLike,
    run: RunLike,
    *,
    options: EvalOptions | None = None,
    **kwargs: Unpack[EvalKwargs],
) -> pl.DataFrame:
    """The (recall, precision) point at each retrieved relevant document of each topic.

    Returns
    -------
    polars.DataFrame
        Columns ``query_id``, ``rank`` (1-based), ``recall`` (= rr(rank)/R) and
        ``precision`` (= rr(rank)/rank); topics in bytewise order, then by rank. A topic
        with no relevant document retrieved has no row.

    Examples
    --------
    >>> qrels = {"q": {"d3": 1, "d56": 1, "d129": 1}}
    >>> run = {"q": {"d123": 3, "d84": 2, "d56": 1}}
    >>> pr_points(qrels, run).rows()
    [('q', 3, 0.3333333333333333, 0.3333333333333333)]
    """
    evaluator = Evaluator(qrels, [], options, **kwargs)
    ctx = evaluator.ranking(run).ctx
    relevance_level = evaluator.options.relevance_level
    rows, _ = ctx.rel_rows(relevance_level)
    found = ctx.rel_cum(relevance_level)[rows].astype(np.float64)
    rank = ctx.position[rows] + 1
    big_r = ctx.num_rel(relevance_level)[ctx.topic_of[rows]]
    topics = np.asarray(ctx.ranking.topics, dtype=object)
    return pl.DataFrame(
        {
            "query_id": pl.Series(topics[ctx.topic_of[rows]].tolist(), dtype=pl.String),
            "rank": rank.astype(np.int64),
            "recall": found / big_r,
            "precision": found / rank,
        }
    )


def interpolated_pr(
    qrels: QrelsLike,
    run: RunLike,
    *,
    levels: tuple[float, ...] = STANDARD_LEVELS,
    rule: Interpolation = "exact",
    options: EvalOptions | None = None,
    **kwargs: Unpack[EvalKwargs],
) -> pl.DataFrame:
    """Interpolated precision at recall ``levels``, per topic.

    Parameters
    ----------
    levels:
        Recall levels in [0, 1]; the 11 standard levels 0, 0.1, …, 1 by default.
    rule:
        ``"exact"`` (textbook, measure ``IntPrec``): the best precision at any rank whose
        recall is at least the level. ``"trec_eval"`` (measure ``IPrec``): recall levels
        rounded to a count of relevant documents as trec_eval does (``compat`` selects 9.x
        or 10 rounding).

    Returns
    -------
    polars.DataFrame
        Columns ``query_id``, ``recall`` (the level) and ``precision``; one row per topic
        and level. A topic without relevant documents scores 0 at every level.
    """
    levels = tuple(check_float("levels", p, minimum=0, maximum=1) for p in levels)
    check_choice("rule", rule, INTERPOLATIONS)
    evaluator = Evaluator(qrels, [], options, **kwargs)
    ctx = evaluator.ranking(run).ctx
    relevance_level = evaluator.options.relevance_level
    if rule == "exact":
        table = interpolated_precision_exact(ctx, rel=relevance_level, levels=levels)
    else:
        table = interpolated_precision(ctx, rel=relevance_level, levels=levels)
    n_levels = len(levels)
    return pl.DataFrame(
        {
            "query_id": pl.Series(
                np.repeat(ctx.ranking.topics, n_levels).tolist(), dtype=pl.String
            ),
            "recall": np.tile(np.asarray(levels, dtype=np.float64), ctx.n_topics),
            "precision": table.T.reshape(-1),
        }
    )


def mean_interpolated_pr(qrels: QrelsLike, run: RunLike, **kwargs: Any) -> pl.DataFrame:
    """The interpolated precision–recall curve averaged over topics.

    ``P̄(r_j) = (1/N_q) Σ_i P̄_i(r_j)``; takes the options of :func:`interpolated_pr`.

    Returns
    -------
    polars.DataFrame
        Columns ``recall`` (the level) and ``precision`` (the mean over topics).
    """
    per_topic = interpolated_pr(qrels, run, **kwargs)
    return (
        per_topic.group_by("recall", maintain_order=True)
        .agg(pl.col("precision").mean())
        .sort("recall")
    )


def _gain_matrices(
    qrels: QrelsLike,
    run: RunLike,
    *,
    max_rank: int | None,
    gains: Mapping[int, float] | None,
    exp: bool,
    retrieved_ideal: bool,
    evaluator: Evaluator,
) -> tuple[list[str], NDArray[np.float64], NDArray[np.float64]]:
    """Topics, and dense (topics × max_rank) matrices of the run's and the ideal ranking's gains."""
    ctx = evaluator.ranking(run).ctx
    pairs = None if gains is None else tuple((int(lv), float(g)) for lv, g in gains.items())
    row, ideal, offsets = variant_gains(ctx, pairs, exp, retrieved_ideal)
    width = int(ctx.lengths.max(initial=0)) if max_rank is None else max_rank
    if width < 1:
        raise ValueError(
            "The run ranks no document of a judged query, so its gain curves need max_rank."
        )
    run_g = np.zeros((ctx.n_topics, width))
    keep = ctx.position < width
    run_g[ctx.topic_of[keep], ctx.position[keep]] = row[keep]
    lengths = np.diff(offsets)
    ipos = np.arange(ideal.size) - np.repeat(offsets[:-1], lengths)
    itopic = np.repeat(np.arange(ctx.n_topics), lengths)
    ikeep = ipos < width
    ideal_g = np.zeros((ctx.n_topics, width))
    ideal_g[itopic[ikeep], ipos[ikeep]] = ideal[ikeep]
    return list(ctx.ranking.topics), run_g, ideal_g


def _ratio(num: NDArray[np.float64], den: NDArray[np.float64]) -> NDArray[np.float64]:
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den > 0)
    return out


@renamed_parameters(k="max_rank")
def gain_curves(  # noqa: PLR0913 -- the gain, discount and ideal of measure nDCGx, then the options
    qrels: QrelsLike,
    run: RunLike,
    *,
    max_rank: int | None = None,
    gains: Mapping[int, float] | None = None,
    exp: bool = False,
    base: float = 2.0,
    jk: bool = False,
    retrieved_ideal: bool = False,
    options: EvalOptions | None = None,
    **kwargs: Unpack[EvalKwargs],
) -> pl.DataFrame:
    """CG, DCG, ideal CG/DCG and nCG/nDCG at every rank 1..max_rank, per topic.

    Parameters
    ----------
    max_rank:
        Last rank of the curves (default: the longest ranked list); shorter lists are
        padded with zero gains.
    gains, exp, base, jk, retrieved_ideal:
        The gain, discount and ideal ranking of measure ``nDCGx`` (see
        :mod:`cranfield.kernels.dcg_variants`): the defaults are linear gain and
        ``log2(i + 1)``; ``jk=True, base=2`` is Järvelin & Kekäläinen's vector
        ``DCG[i] = CG[i]`` for ``i < b`` and ``DCG[i−1] + G[i]/log_b(i)`` after.

    Returns
    -------
    polars.DataFrame
        Columns ``query_id``, ``rank``, ``gain``, ``cg``, ``dcg``, ``ideal_gain``, ``icg``,
        ``idcg``, ``ncg`` (= cg/icg) and ``ndcg`` (= dcg/idcg); ratios are 0 where the ideal
        is 0.
    """
    check_int("max_rank", max_rank, minimum=1, none=True)
    check_float("base", base, minimum=1, above=True)
    evaluator = Evaluator(qrels, [], options, **kwargs)
    topics, run_g, ideal_g = _gain_matrices(
        qrels,
        run,
        max_rank=max_rank,
        gains=gains,
        exp=exp,
        retrieved_ideal=retrieved_ideal,
        evaluator=evaluator,
    )
    width = run_g.shape[1]
    ranks = np.arange(1, width + 1)
    disc = discount(ranks, base=base, jk=jk)
    cg = np.cumsum(run_g, axis=1)
    dcg = np.cumsum(run_g / disc, axis=1)
    icg = np.cumsum(ideal_g, axis=1)
    idcg = np.cumsum(ideal_g / disc, axis=1)
    return pl.DataFrame(
        {
            "query_id": pl.Series(np.repeat(topics, width).tolist(), dtype=pl.String),
            "rank": np.tile(ranks, len(topics)).astype(np.int64),
            "gain": run_g.reshape(-1),
            "cg": cg.reshape(-1),
            "dcg": dcg.reshape(-1),
            "ideal_gain": ideal_g.reshape(-1),
            "icg": icg.reshape(-1),
            "idcg": idcg.reshape(-1),
            "ncg": _ratio(cg, icg).reshape(-1),
            "ndcg": _ratio(dcg, idcg).reshape(-1),
        }
    )


def mean_gain_curves(
    qrels: QrelsLike,
    run: RunLike,
    *,
    normalise: Normalisation = "ratio_of_means",
    **kwargs: Any,
) -> pl.DataFrame:
    """The gain curves averaged over topics.

    Parameters
    ----------
    normalise:
        ``"ratio_of_means"`` (default; seed 002, Järvelin & Kekäläinen): ``nCG[i] =
        mean CG[i] / mean ICG[i]`` and likewise nDCG. ``"mean_of_ratios"``: the mean over
        topics of each topic's nCG[i] and nDCG[i] (what averaging per-topic nDCG@i gives).
    kwargs:
        Those of :func:`gain_curves` (its curve parameters and the evaluation options).

    Returns
    -------
    polars.DataFrame
        Columns ``rank``, ``cg``, ``dcg``, ``icg``, ``idcg`` (means over topics), ``ncg``
        and ``ndcg``.
    """
    check_choice("normalise", normalise, NORMALISATIONS)
    per_topic = gain_curves(qrels, run, **kwargs)
    means = per_topic.group_by("rank", maintain_order=True).agg(
        pl.col("cg", "dcg", "icg", "idcg", "ncg", "ndcg").mean()
    )
    if normalise == "ratio_of_means":
        means = means.with_columns(
            pl.when(pl.col("icg") > 0)
            .then(pl.col("cg") / pl.col("icg"))
            .otherwise(0.0)
            .alias("ncg"),
            pl.when(pl.col("idcg") > 0)
            .then(pl.col("dcg") / pl.col("idcg"))
            .otherwise(0.0)
            .alias("ndcg"),
        )
    return means.sort("rank")


def precision_histogram(a: Results, b: Results, measure: str = "Rprec") -> pl.DataFrame:
    """Per-topic difference of a measure between two evaluated runs (``RP_A/B(i)``).

    A positive difference means run A is better on that topic, 0 that both are equal.

    Parameters
    ----------
    a, b:
        Results of :func:`cranfield.evaluate` for two runs; both must have evaluated
        ``measure``.
    measure:
        Any evaluated measure (R-precision by default, as in Baeza-Yates & Ribeiro-Neto).

    Returns
    -------
    polars.DataFrame
        Columns ``query_id``, ``a``, ``b`` and ``difference`` (= a − b), for the topics
        both runs evaluated, in bytewise order.

    Raises
    ------
    EvaluationError
        If the two results share no topic.
    """
    left = pl.DataFrame({"query_id": a.topics, "a": list(a.per_query(measure).values())})
    right = pl.DataFrame({"query_id": b.topics, "b": list(b.per_query(measure).values())})
    both = left.join(right, on="query_id", how="inner").sort("query_id")
    if both.height == 0:
        raise EvaluationError(f"Runs {a.run_name!r} and {b.run_name!r} share no evaluated topic.")
    return both.with_columns((pl.col("a") - pl.col("b")).alias("difference"))


def summary_table(
    qrels: QrelsLike,
    run: RunLike,
    *,
    run_name: str | None = None,
    options: EvalOptions | None = None,
    **kwargs: Unpack[EvalKwargs],
) -> pl.DataFrame:
    """Summary statistics of a run over all queries.

    Returns
    -------
    polars.DataFrame
        One row: ``run``, ``queries`` (evaluated), ``retrieved`` (documents retrieved by
        all queries), ``relevant`` (relevant documents that could have been retrieved) and
        ``relevant_retrieved`` (relevant documents retrieved).
    """
    res = evaluate(
        qrels,
        run,
        ["NumQ", "NumRet", "NumRel", "NumRelRet"],
        options=options,
        run_name=run_name,
        **kwargs,
    )
    return pl.DataFrame(
        {
            "run": [res.run_name],
            "queries": [int(res["NumQ"])],
            "retrieved": [int(res["NumRet"])],
            "relevant": [int(res["NumRel"])],
            "relevant_retrieved": [int(res["NumRelRet"])],
        }
    )
