"""Pooling: which documents to judge, how complete the judgments are, and pool bias.

* :func:`pool`: depth-``k`` pools, per topic the union of every run's top ``k`` documents
  (ranked as trec_eval ranks them: score descending, ties by document id descending).
* :meth:`Pool.export`: the pool for assessors, one line per topic and document, documents
  shuffled within each topic with a seed so their order reveals no rank.
* :meth:`Pool.sizes`, :meth:`Pool.contributions`, :meth:`Pool.unique_contributions`: pool
  statistics.
* :func:`judged_at_k`: how much of each run's top ``k`` the qrels judge.
* :func:`leave_one_out`: Zobel's (1998) test of pool bias: each run scored with the full
  judgments and without the judgments of the documents only it contributed to the pool.
* :func:`merge_judgments`: new judgments (for instance of an exported pool) into qrels.
* :func:`pool_study`: what ``cranfield lab pool`` reports, in one call: the pool, its export,
  and with qrels judged@k and the leave-one-run-out test (:class:`PoolStudy`;
  :func:`cranfield.lab.report.pool_study_text` prints it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, Unpack, get_args

import numpy as np
import polars as pl

from cranfield._validate import check_choice, check_int
from cranfield.data.qrels import Qrels
from cranfield.errors import InputError, OptionError, spelled
from cranfield.evaluation.execution import Execution, execution_from
from cranfield.evaluation.options import EvalOptions, options_from
from cranfield.io.load import QrelsLike, RunLike, load_qrels
from cranfield.io.runset import RunSet
from cranfield.io.sink import refuse_overwriting, write_text, writing

if TYPE_CHECKING:
    from cranfield._types import RunNaming
    from cranfield.data.run import Run
    from cranfield.evaluation.evaluator import Evaluator, MeasureLike
    from cranfield.evaluation.execution import EvalExecutionKwargs, ExecutionKwargs

__all__ = [
    "LeaveOneOut",
    "Pool",
    "PoolStudy",
    "judged_at_k",
    "leave_one_out",
    "merge_judgments",
    "named_runs",
    "pool",
    "pool_study",
]

Conflict = Literal["error", "new", "old"]
CONFLICTS: Final[tuple[str, ...]] = get_args(Conflict)
PoolFormat = Literal["qrels", "tsv"]
POOL_FORMATS: Final[tuple[str, ...]] = get_args(PoolFormat)


def load_runs(
    runs: Mapping[str, RunLike] | Sequence[RunLike], names: RunNaming | Sequence[str] = "file"
) -> dict[str, Run]:
    """``{name: Run}``, named by the one run-naming rule (:mod:`cranfield.io.run_names`)."""
    if isinstance(runs, (str, Path)):
        raise OptionError("runs", "a list or a dict of runs", str(runs))
    run_set = RunSet.of(runs, names)
    return {name: run_set.load(i) for i, name in enumerate(run_set.names)}


def named_runs(
    runs: Mapping[str, RunLike] | Sequence[RunLike],
    names: RunNaming | Sequence[str] = "file",
    *,
    jobs: int = 1,
    scheduler: Any = None,
) -> dict[str, Any]:
    """``{name: run}``: loaded here once (:func:`load_runs`), or, when workers read them
    (``jobs`` other than 1, a ``scheduler``), named here and left for the workers to read."""
    if jobs == 1 and scheduler is None:
        return dict(load_runs(runs, names))
    if isinstance(runs, (str, Path)):
        raise OptionError("runs", "a list or a dict of runs", str(runs))
    return dict(RunSet.of(runs, names))


def _run_set(runs: Mapping[str, RunLike] | Sequence[RunLike]) -> RunSet:
    if isinstance(runs, (str, Path)):
        raise OptionError("runs", "a list or a dict of runs", str(runs))
    return RunSet.of(runs)


def _loaded(item: tuple[str, Any]) -> Run:
    """The run of a ``(name, source)`` pair of a :class:`RunSet`, loaded and so named."""
    name, source = item
    return RunSet.of({name: source}).load(0)


def _pooled_top(depth: int, item: tuple[str, Any]) -> pl.DataFrame:
    """What a worker sends back for :func:`pool`: its run's top ``depth`` per topic."""
    return _top(_loaded(item), depth, item[0])


def _top(run: Run, depth: int, name: str) -> pl.DataFrame:
    """Each topic's first ``depth`` documents in trec_eval order, with their rank."""
    from cranfield.data.ranking import trec_eval_order  # THE ranking rule, not a re-statement

    return (
        run.frame.select("query_id", "doc_id")[trec_eval_order(run)]
        .with_columns((pl.int_range(pl.len()).over("query_id") + 1).alias("rank"))
        .filter(pl.col("rank") <= depth)
        .select("query_id", "doc_id", "rank", pl.lit(name).alias("run"))
    )


@dataclass(frozen=True, eq=False)
class Pool:
    """A depth-``k`` pool.

    Attributes
    ----------
    depth:
        Documents taken from the top of each run for each topic.
    runs:
        Names of the contributing runs.
    entries:
        One row per (run, topic, document) taken into the pool: ``run``, ``query_id``,
        ``doc_id``, ``rank``.
    frame:
        One row per pooled (topic, document): ``query_id``, ``doc_id``, ``n_runs`` (how many
        runs put it in), ``best_rank`` (its best rank in any run) and ``runs`` (their names),
        sorted by topic then document id.
    """

    depth: int
    runs: tuple[str, ...]
    entries: pl.DataFrame
    frame: pl.DataFrame

    def __len__(self) -> int:
        return self.frame.height

    def __repr__(self) -> str:
        return (
            f"Pool(depth={self.depth}, runs={len(self.runs)}, topics={len(self.topics)}, "
            f"documents={len(self)})"
        )

    @property
    def topics(self) -> list[str]:
        """Pooled topics, bytewise order."""
        return self.frame.get_column("query_id").unique().sort().to_list()

    def sizes(self) -> dict[str, int]:
        """``{topic: documents in its pool}``, topics in bytewise order."""
        counts = self.frame.group_by("query_id").len().sort("query_id")
        return dict(zip(counts["query_id"].to_list(), counts["len"].to_list(), strict=True))

    def contributions(self) -> dict[str, int]:
        """``{run: (topic, document) pairs it put in the pool}`` (shared ones included)."""
        counts = dict(self.entries.group_by("run").len().iter_rows())
        return {r: int(counts.get(r, 0)) for r in self.runs}

    def unique_documents(self, run: str | None = None) -> pl.DataFrame:
        """Pooled (topic, document) pairs that exactly one run contributed, with that ``run``.

        ``run`` restricts the answer to one run's unique documents.
        """
        if run is not None:
            check_choice("run", run, self.runs)
        unique = self.frame.filter(pl.col("n_runs") == 1).select(
            "query_id", "doc_id", pl.col("runs").list.first().alias("run")
        )
        return unique if run is None else unique.filter(pl.col("run") == run)

    def unique_contributions(self) -> dict[str, int]:
        """``{run: pooled documents (over all topics) that only this run contributed}``."""
        counts = dict(self.unique_documents().group_by("run").len().iter_rows())
        return {r: int(counts.get(r, 0)) for r in self.runs}

    def statistics(self) -> pl.DataFrame:
        """One row per run: documents contributed, unique documents and their share."""
        contributed = self.contributions()
        unique = self.unique_contributions()
        return pl.DataFrame(
            {
                "run": list(self.runs),
                "contributed": [contributed[r] for r in self.runs],
                "unique": [unique[r] for r in self.runs],
                "unique_share": [
                    unique[r] / contributed[r] if contributed[r] else 0.0 for r in self.runs
                ],
            }
        )

    def to_qrels(self, relevance: int = -1) -> Qrels:
        """The pool as qrels, every pair with ``relevance`` (-1: "pooled but not judged")."""
        relevance = check_int("relevance", relevance)
        frame = self.frame.select(
            "query_id",
            pl.lit("0").alias("iteration"),
            "doc_id",
            pl.lit(relevance, dtype=pl.Int64).alias("relevance"),
        )
        return Qrels(frame=frame.sort(["query_id", "doc_id"]), name=f"pool@{self.depth}")

    def export(self, path: str | Path, *, seed: int, format: PoolFormat = "qrels") -> None:
        """Write the pool for judging: one line per topic and document, shuffled within topics.

        Parameters
        ----------
        path:
            Output file.
        seed:
            Seed of the shuffle (``numpy.random.default_rng``); the same seed writes the same
            file.
        format:
            ``"qrels"`` (default): ``query_id 0 doc_id -1`` lines, a qrels file whose ``-1``
            means "pooled but not judged" (trec_eval's convention) for assessors to overwrite;
            ``"tsv"``: ``query_id<TAB>doc_id``.

        Notes
        -----
        Topics stay together in bytewise order; the documents of each topic are permuted at
        random, so neither their rank nor their id order (pools are built sorted) shows.
        """
        check_choice("format", format, POOL_FORMATS)
        shuffled = self.shuffled(seed)
        sep = "\t" if format == "tsv" else " "
        lines = (
            f"{q}\t{d}\n" if format == "tsv" else f"{q}{sep}0{sep}{d}{sep}-1\n"
            for q, d in shuffled.select("query_id", "doc_id").iter_rows()
        )
        write_text(path, "".join(lines))

    def shuffled(self, seed: int) -> pl.DataFrame:
        """The order in which assessors see the pool: ``query_id``, ``doc_id``, topics in
        bytewise order, the documents of each topic permuted by ``seed``
        (``numpy.random.default_rng``), as :meth:`export` writes them and the judging
        workbench (:mod:`cranfield.workbench`) shows them.

        Examples
        --------
        >>> p = pool({"a": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}}, depth=3)
        >>> p.shuffled(0).get_column("doc_id").to_list()
        ['d2', 'd3', 'd1']
        """
        rng = np.random.default_rng(check_int("seed", seed, minimum=0))
        key = rng.permutation(self.frame.height)
        return (
            self.frame.select("query_id", "doc_id")
            .with_columns(pl.Series("key", key))
            .sort(["query_id", "key"])
            .select("query_id", "doc_id")
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready statistics: sizes per topic and contributions per run."""
        sizes = self.sizes()
        values = np.array(list(sizes.values()), dtype=np.float64)
        return {
            "depth": self.depth,
            "runs": list(self.runs),
            "topics": len(sizes),
            "documents": len(self),
            "size_per_topic": {
                "mean": float(values.mean()) if values.size else 0.0,
                "min": int(values.min()) if values.size else 0,
                "max": int(values.max()) if values.size else 0,
            },
            "sizes": sizes,
            "contributed": self.contributions(),
            "unique": self.unique_contributions(),
        }


def pool(
    runs: Mapping[str, RunLike] | Sequence[RunLike],
    depth: int = 100,
    *,
    execution: Execution | None = None,
    **kwargs: Unpack[ExecutionKwargs],
) -> Pool:
    """Depth-``depth`` pool of ``runs``: per topic, the union of every run's top ``depth``.

    Parameters
    ----------
    runs:
        ``{name: run}`` or a list of runs (named by file name without suffixes).
    depth:
        Documents taken from each run per topic.
    execution, **kwargs:
        Where the runs are read and cut to their top ``depth``
        (:class:`~cranfield.evaluation.execution.Execution`, whole or as keywords): ``jobs``
        worker processes (0: every core) or a Dask cluster ``scheduler``; only each run's top
        ``depth`` comes back.

    Returns
    -------
    Pool

    Notes
    -----
    Each run is ranked as trec_eval ranks it (score descending; equal scores by document id
    descending, bytewise; the rank column of a file is ignored, see
    :mod:`cranfield.data.ranking`), so the pool holds exactly the documents that measures
    cut at ``depth`` look at. A run that returns fewer than ``depth`` documents for a topic
    contributes all of them.

    Examples
    --------
    >>> p = pool({"a": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}},
    ...           "b": {"q1": {"d2": 9.0, "d4": 8.0}}}, depth=2)
    >>> p.sizes(), p.unique_contributions()
    ({'q1': 3}, {'a': 1, 'b': 1})
    """
    depth = check_int("depth", depth, minimum=1)
    engine = execution_from(execution, dict(kwargs), caller="pool").engine()
    run_set = _run_set(runs)
    tops = list(engine.map(_pooled_top, depth, list(run_set)))
    entries = pl.concat(tops, how="vertical")
    frame = (
        entries.group_by(["query_id", "doc_id"], maintain_order=True)
        .agg(
            pl.len().cast(pl.Int64).alias("n_runs"),
            pl.col("rank").min().alias("best_rank"),
            pl.col("run").alias("runs"),
        )
        .sort(["query_id", "doc_id"])
    )
    return Pool(depth=depth, runs=run_set.names, entries=entries, frame=frame)


def judged_at_k(
    qrels: QrelsLike,
    runs: Mapping[str, RunLike] | Sequence[RunLike],
    k: int = 10,
    *,
    options: EvalOptions | None = None,
    execution: Execution | None = None,
    **kwargs: Unpack[EvalExecutionKwargs],
) -> dict[str, float]:
    """``{run: mean Judged@k}``: the share of each run's top ``k`` that the qrels judge.

    Averaged over the judged topics (with the default ``missing="zero"``, a topic a run did
    not answer counts 0). Negative qrels values ("pooled but not judged") do not count as
    judged. ``options``/``kwargs``: the evaluation options of :func:`cranfield.evaluate`;
    ``execution``/``kwargs``: where the runs are scored
    (:class:`~cranfield.evaluation.execution.Execution`: ``jobs``, ``scheduler``, ...).
    """
    from cranfield.evaluation.evaluator import Evaluator

    k = check_int("k", k, minimum=1)
    rest: dict[str, Any] = dict(kwargs)
    run_on = execution_from(execution, rest, caller="judged_at_k")
    table = Evaluator(qrels, f"Judged@{k}", options, **rest).many(_run_set(runs), execution=run_on)
    return {r.run_name: float(r[f"Judged@{k}"]) for r in table}


@dataclass(frozen=True, eq=False)
class LeaveOneOut:
    """Zobel's leave-one-run-out test of pool bias.

    Attributes
    ----------
    measure:
        The measure.
    depth:
        Pool depth.
    frame:
        One row per run: ``run``, ``unique`` (pooled documents only it contributed),
        ``unique_judged`` and ``unique_relevant`` (how many of those the qrels judge, and
        judge relevant), ``score`` (with all judgments), ``score_without`` (with its unique
        documents' judgments removed), ``delta`` (``score_without - score``),
        ``delta_percent``, ``rank`` and ``rank_without`` (its rank among all runs' full
        scores, 1 = best). With ``groups``, a ``group`` column too, ``unique`` counts the
        documents only the run's group contributed, and ``rank_without`` places the run among
        the full scores of the runs outside its group.
    groups:
        ``{run: group}`` when runs were left out by group (one team's runs together), else
        ``None`` (each run alone).
    """

    measure: str
    depth: int
    frame: pl.DataFrame
    groups: dict[str, str] | None = None

    def to_text(self) -> str:
        """A plain-text table."""
        kind = "leave-one-run-out" if self.groups is None else "leave-one-group-out"
        group = "" if self.groups is None else f"{'group':<12} "
        lines = [
            f"{kind}, {self.measure}, pool depth {self.depth}",
            f"{'run':<20} {group}{'unique':>7} {'uniq.rel':>8} {'score':>8} {'without':>8} "
            f"{'delta':>8} {'delta%':>7} {'rank':>5} {'rank w/o':>8}",
        ]
        for row in self.frame.iter_rows(named=True):
            group = "" if self.groups is None else f"{row['group']:<12} "
            lines.append(
                f"{row['run']:<20} {group}{row['unique']:>7} {row['unique_relevant']:>8} "
                f"{row['score']:>8.4f} {row['score_without']:>8.4f} {row['delta']:>+8.4f} "
                f"{row['delta_percent']:>+7.2f} {row['rank']:>5} {row['rank_without']:>8}"
            )
        return "\n".join(lines)


def leave_one_out(
    qrels: QrelsLike,
    runs: Mapping[str, RunLike] | Sequence[RunLike],
    measure: MeasureLike = "AP",
    *,
    depth: int = 100,
    options: EvalOptions | None = None,
    execution: Execution | None = None,
    groups: Mapping[str, str] | None = None,
    **kwargs: Unpack[ExecutionKwargs],
) -> LeaveOneOut:
    """Score each run with and without the judgments of the documents only it pooled.

    Parameters
    ----------
    qrels:
        The judgments.
    runs:
        The runs that form the pool.
    measure:
        One measure (default ``AP``; its mean over the judged topics is MAP).
    depth:
        Pool depth.
    options:
        The evaluation options of :func:`cranfield.evaluate` (an ``EvalOptions``: its
        ``depth``, trec_eval's ``-M``, is not the pool depth).
    execution, **kwargs:
        Where the runs are read, pooled and scored
        (:class:`~cranfield.evaluation.execution.Execution`, whole or as keywords: ``jobs``,
        ``scheduler``): each worker scores its runs with and without their unique documents'
        judgments.
    groups:
        ``{run name: group}`` to leave groups out instead of single runs (one team's runs,
        which share their documents, together): each run is scored without the judgments of
        the documents that only runs of its group pooled. A run not named is a group of its
        own.

    Returns
    -------
    LeaveOneOut

    Notes
    -----
    For each run, the (topic, document) pairs of the depth-``depth`` pool that no other run
    contributed are removed from the qrels (they become unjudged, which the measure counts
    as not relevant, and a relevant one no longer counts in R), and the run is scored again.
    A large drop means the judgments favour runs that took part in the pool: a new run
    with the same unique documents would be underrated (Zobel 1998, "How reliable are the
    results of large-scale information retrieval experiments?", SIGIR). Scores use the
    evaluation options (by default ``missing="zero"``: over all judged topics). A run's rank
    without its documents is its place among the other runs' full scores.
    """
    from cranfield.evaluation.engines import InProcess
    from cranfield.evaluation.evaluator import Evaluator

    depth = check_int("depth", depth, minimum=1)
    evaluator = Evaluator(qrels, measure, options)
    if len(evaluator.measures) != 1:
        raise OptionError("measure", "exactly one measure", measure)
    run_on = execution_from(execution, dict(kwargs), caller="leave_one_out")
    engine = run_on.engine()
    run_set = _run_set(runs)
    group_of = _groups(groups, run_set.names)
    pooled = pool(dict(run_set), depth, execution=run_on)
    if not isinstance(engine, InProcess):
        evaluator.prepare()
    shared = (evaluator, _unique_to_groups(pooled, group_of), group_of)
    rows = list(engine.map(_without_unique, shared, list(run_set)))
    frame = pl.DataFrame(rows).with_columns(
        (pl.col("score_without") - pl.col("score")).alias("delta"),
        pl.when(pl.col("score") > 0)
        .then((pl.col("score_without") - pl.col("score")) / pl.col("score") * 100)
        .otherwise(0.0)
        .alias("delta_percent"),
    )
    scores = frame.get_column("score").to_numpy()
    without_scores = frame.get_column("score_without").to_numpy()
    rank = [int((scores > s).sum()) + 1 for s in scores]
    labels = np.array([group_of[r] for r in frame.get_column("run").to_list()], dtype=object)
    rank_without = [  # among the full scores of the runs outside its group
        int(((scores > w) & (labels != labels[i])).sum()) + 1 for i, w in enumerate(without_scores)
    ]
    frame = frame.with_columns(pl.Series("rank", rank), pl.Series("rank_without", rank_without))
    if groups is not None:
        frame = frame.insert_column(1, pl.Series("group", labels.tolist(), dtype=pl.String))
    return LeaveOneOut(
        measure=str(evaluator.measures[0]),
        depth=depth,
        frame=frame,
        groups=None if groups is None else group_of,
    )


def _groups(groups: Mapping[str, str] | None, names: Sequence[str]) -> dict[str, str]:
    """``{run: group}`` for every run: its given group, or its own name."""
    given = dict(groups or {})
    unknown = [r for r in given if r not in names]
    if unknown:
        raise OptionError(
            "groups", f"a mapping of run names ({', '.join(names)}) to groups", unknown[0]
        )
    for group in given.values():
        if not isinstance(group, str) or not group:
            raise OptionError("groups", "group names that are non-empty strings", group)
    return {r: given.get(r, r) for r in names}


def _unique_to_groups(pooled: Pool, group_of: Mapping[str, str]) -> pl.DataFrame:
    """Pooled (topic, document) pairs that the runs of exactly one group contributed, with
    that ``group``."""
    groups = pl.DataFrame(
        {"run": list(group_of), "group": list(group_of.values())},
        schema={"run": pl.String, "group": pl.String},
    )
    by_group = pooled.entries.join(groups, on="run").select("query_id", "doc_id", "group")
    return (
        by_group.unique()
        .group_by("query_id", "doc_id")
        .agg(pl.col("group").first(), pl.len().alias("n_groups"))
        .filter(pl.col("n_groups") == 1)
        .select("query_id", "doc_id", "group")
    )


def _without_unique(
    shared: tuple[Evaluator, pl.DataFrame, Mapping[str, str]], item: tuple[str, Any]
) -> dict[str, Any]:
    """One row of :func:`leave_one_out`: a run scored with every judgment and without the
    judgments of the documents only its group (itself, by default) pooled (``shared``: the
    evaluator, the pool's documents unique to a group, each run's group)."""
    evaluator, unique, group_of = shared
    m = evaluator.measures[0]
    name, run = item[0], _loaded(item)
    judgments = evaluator.qrels
    judged = judgments.frame
    mine = unique.filter(pl.col("group") == group_of[name]).select("query_id", "doc_id")
    hit = judged.join(mine, on=["query_id", "doc_id"], how="semi")
    reduced = Qrels(
        frame=judged.join(mine, on=["query_id", "doc_id"], how="anti"), name=judgments.name
    )
    full = float(evaluator.evaluate(run, name=name)[m])
    without = (
        float(evaluator.with_options(qrels=reduced).evaluate(run, name=name)[m])
        if hit.height
        else full
    )
    return {
        "run": name,
        "unique": mine.height,
        "unique_judged": int((hit.get_column("relevance") >= 0).sum()),
        "unique_relevant": int((hit.get_column("relevance") > 0).sum()),
        "score": full,
        "score_without": without,
    }


@dataclass(frozen=True, eq=False)
class PoolStudy:
    """What :func:`pool_study` returns: a pool, where it was written, and with qrels how
    judged each run is and how biased the judgments are towards the runs that made the pool.

    Attributes
    ----------
    pool:
        The depth-``k`` pool (its sizes and contributions).
    judged_k:
        The ``k`` of :attr:`judged_at_k`.
    judged_at_k:
        ``{run: mean Judged@k}`` (:func:`judged_at_k`); ``None`` without qrels.
    leave_one_out:
        Zobel's test (:func:`leave_one_out`); ``None`` without qrels.
    export, export_seed, export_format:
        The file the pool was written to for judging (:meth:`Pool.export`), the seed of its
        shuffle and its format; ``None`` when it was not written.
    """

    pool: Pool
    judged_k: int
    judged_at_k: dict[str, float] | None = None
    leave_one_out: LeaveOneOut | None = None
    export: Path | None = None
    export_seed: int | None = None
    export_format: PoolFormat | None = None

    def __repr__(self) -> str:
        return (
            f"PoolStudy({self.pool!r}, judged={self.judged_at_k is not None}, "
            f"exported={self.export is not None})"
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values: :meth:`Pool.to_dict`, then ``export`` (path, seed,
        format), ``judged_at_k`` (``k`` and each run's share) and ``leave_one_out``
        (``measure`` and a row per run) when there are."""
        data = self.pool.to_dict()
        if self.export is not None:
            data["export"] = {
                "path": str(self.export),
                "seed": self.export_seed,
                "format": self.export_format,
            }
        if self.judged_at_k is not None:
            data["judged_at_k"] = {"k": self.judged_k, **self.judged_at_k}
        if self.leave_one_out is not None:
            loo = self.leave_one_out
            data["leave_one_out"] = {"measure": loo.measure, "rows": loo.frame.to_dicts()}
        return data

    def to_json(self, *, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text, ending in a newline."""
        check_int("indent", indent, minimum=0, none=True)
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False) + "\n"


def pool_study(  # noqa: PLR0913 -- entry point: runs, naming, the pool's settings, export, options
    runs: Mapping[str, RunLike] | Sequence[RunLike],
    pool_depth: int = 100,
    *,
    names: RunNaming | Sequence[str] = "file",
    qrels: QrelsLike | None = None,
    measure: MeasureLike = "AP",
    judged_k: int = 10,
    export: str | Path | None = None,
    seed: int = 0,
    format: PoolFormat = "qrels",
    options: EvalOptions | None = None,
    execution: Execution | None = None,
    groups: Mapping[str, str] | None = None,
    **kwargs: Unpack[EvalExecutionKwargs],
) -> PoolStudy:
    """Pool the runs, write the pool for judging, and with qrels measure how judged each run
    is and how biased the judgments are: what ``cranfield lab pool`` reports, in one call.

    Parameters
    ----------
    runs:
        ``{name: run}`` or a list of runs (paths, ``Run`` objects, DataFrames or dicts).
    pool_depth:
        Documents taken from the top of each run per topic (:func:`pool`).
    names:
        How to name runs given as a list: ``"file"`` (default), ``"tag"``, or a list of names.
    qrels:
        Judgments: with them, each run's :func:`judged_at_k` and the :func:`leave_one_out`
        test; ``None`` (default): the pool alone.
    measure:
        The one measure of the leave-one-run-out test (default ``AP``).
    judged_k:
        The ``k`` of judged@k.
    export:
        A file to write the pool to for judging (:meth:`Pool.export`), never one of the
        inputs; ``None`` (default): none written.
    seed, format:
        The seed of the export's shuffle and its format (``"qrels"`` or ``"tsv"``).
    options, **kwargs:
        The evaluation options of judged@k and of the test (an ``EvalOptions`` whole, or
        keywords; their ``depth``, trec_eval's ``-M``, is not ``pool_depth``).
    execution, **kwargs:
        Where the runs are read, pooled and scored (:class:`~cranfield.evaluation.execution.
        Execution`, whole or as keywords: ``jobs``, ``scheduler``, ...), as :func:`pool`,
        :func:`judged_at_k` and :func:`leave_one_out` take it; the numbers are the same.
    groups:
        ``{run name: group}``: the bias test leaves groups of runs out (one team's runs)
        rather than single runs (:func:`leave_one_out`).

    Returns
    -------
    PoolStudy

    Raises
    ------
    cranfield.errors.OptionError
        A bad setting, an export that is one of the inputs, or a ``measure`` that is not one
        measure (all before any run is read).
    OSError
        The export cannot be written (``cannot write PATH: ...``).

    Notes
    -----
    The runs are read once when they are scored here, and by the workers otherwise. The
    pool is written before the judgments are read, as :func:`pool` builds it; the numbers
    are those of :func:`pool`, :func:`judged_at_k` and :func:`leave_one_out` called in turn.

    Examples
    --------
    >>> runs = {"a": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}},
    ...         "b": {"q1": {"d2": 9.0, "d4": 8.0}}}
    >>> study = pool_study(runs, 2, qrels={"q1": {"d1": 1, "d2": 0, "d4": 1}}, judged_k=2)
    >>> study.pool.sizes(), study.judged_at_k
    ({'q1': 3}, {'a': 1.0, 'b': 1.0})
    >>> study.leave_one_out.frame.select("run", "score", "score_without").rows()
    [('a', 0.5, 0.0), ('b', 0.25, 0.0)]
    """
    from cranfield.evaluation.evaluator import resolve_measures

    depth = check_int("pool_depth", pool_depth, minimum=1)
    k = check_int("judged_k", judged_k, minimum=1)
    if export is not None:
        check_int("seed", seed, minimum=0)
        check_choice("format", format, POOL_FORMATS)
    rest: dict[str, Any] = dict(kwargs)
    run_on = execution_from(execution, rest, caller="pool_study")
    evaluation = options_from(options, rest, caller="pool_study")
    if qrels is not None and len(resolve_measures(measure)) != 1:
        raise OptionError("measure", "exactly one measure", measure)
    if export is not None:
        refuse_overwriting(export, [*_sources(runs), qrels], option="export")
    named = named_runs(runs, names, jobs=run_on.jobs, scheduler=run_on.scheduler)
    pooled = pool(named, depth, execution=run_on)
    study = PoolStudy(pooled, k)
    if export is not None:
        path = Path(export)
        with writing(str(path)):
            pooled.export(path, seed=seed, format=format)
        study = replace(study, export=path, export_seed=seed, export_format=format)
    if qrels is None:
        return study
    return replace(
        study,
        judged_at_k=judged_at_k(qrels, named, k, options=evaluation, execution=run_on),
        leave_one_out=leave_one_out(
            qrels,
            named,
            measure,
            depth=depth,
            options=evaluation,
            execution=run_on,
            groups=groups,
        ),
    )


def _sources(runs: object) -> list[object]:
    """What the user gave for each run (the paths among them are inputs not to overwrite)."""
    if isinstance(runs, Mapping):
        return list(runs.values())
    return list(runs) if isinstance(runs, Sequence) and not isinstance(runs, str) else [runs]


def merge_judgments(qrels: QrelsLike, new: QrelsLike, *, on_conflict: Conflict = "error") -> Qrels:
    """``qrels`` with the judgments of ``new`` added.

    Parameters
    ----------
    qrels:
        Existing judgments.
    new:
        New judgments (for instance an exported pool filled in by assessors). A negative
        value ("pooled but not judged") never replaces an existing judgment.
    on_conflict:
        When a pair is judged in both with different values: ``"error"`` (default) raises,
        ``"new"`` keeps the new value, ``"old"`` keeps the existing one.

    Returns
    -------
    Qrels
        Sorted by topic then document, the iteration of the existing judgment kept.

    Raises
    ------
    cranfield.errors.InputError
        A conflict with ``on_conflict="error"``; the message names the topic, the document
        and both values.

    Examples
    --------
    >>> merged = merge_judgments({"q1": {"d1": 1}}, {"q1": {"d1": 1, "d2": 0}})
    >>> merged.to_dict()
    {'q1': {'d1': 1, 'd2': 0}}
    """
    check_choice("on_conflict", on_conflict, CONFLICTS)
    old = load_qrels(qrels)
    add = load_qrels(new, name="new judgments")
    both = old.frame.join(add.frame, on=["query_id", "doc_id"], how="inner", suffix="_new")
    differ = both.filter(
        (pl.col("relevance") != pl.col("relevance_new")) & (pl.col("relevance_new") >= 0)
    )
    if differ.height and on_conflict == "error":
        q, d, a, b = differ.select("query_id", "doc_id", "relevance", "relevance_new").row(0)
        conflict = f"judges topic {q} document {d} as {b} but the qrels say {a}"
        raise InputError(
            add.name,
            None,
            f"{conflict} ({differ.height} conflict(s); pass on_conflict='new' or 'old')",
            command_line_problem=f"{conflict} ({differ.height} conflict(s); give "
            f"{spelled('on_conflict', 'new', command_line=True)} or "
            f"{spelled('on_conflict', 'old', command_line=True)})",
        )
    replace = differ.select("query_id", "doc_id", "relevance_new") if on_conflict == "new" else None
    frame = old.frame
    if replace is not None and replace.height:
        frame = (
            frame.join(replace, on=["query_id", "doc_id"], how="left")
            .with_columns(pl.coalesce("relevance_new", "relevance").alias("relevance"))
            .drop("relevance_new")
        )
    extra = add.frame.join(old.frame, on=["query_id", "doc_id"], how="anti")
    merged = pl.concat([frame, extra.select(frame.columns)], how="vertical").sort(
        ["query_id", "doc_id"]
    )
    return Qrels(frame=merged, name=old.name)
