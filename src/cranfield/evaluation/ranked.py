"""A run ranked against the judgments: what every way of scoring a run starts from.

:func:`rank_run` reads a run (a file through :func:`cranfield.io.inputs.open_run`, opened
once; or a ``Run``, DataFrame, Arrow table or dict) and ranks it by THE ranking rules
(:mod:`cranfield.data.ranking`) against the judgments of an evaluation
(:class:`~cranfield.evaluation.judgments.Judgments`), with the evaluation context the kernels
score (:class:`~cranfield.evaluation.scoring.Prepared`). How, is decided here once: a small
clean TREC run against small clean TREC qrels is split and ranked with numpy alone
(:mod:`cranfield.io.trec_numpy`); any other run is read the careful way, a run file next to
the qrels when these are not read yet (a large run's reading starts slowly, leaving a core
free for them).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from cranfield.data.ranking import rank, rank_columns
from cranfield.evaluation.scoring import Prepared
from cranfield.io.inputs import RunInput, open_run
from cranfield.io.run_names import default_name
from cranfield.io.source import is_parquet
from cranfield.kernels.extras import ExtendedContext

if TYPE_CHECKING:
    from collections.abc import Sequence

    from cranfield.data.ranking import Ranking
    from cranfield.data.run import Run
    from cranfield.evaluation.judgments import Judgments
    from cranfield.evaluation.options import EvalOptions

__all__ = ["absent_ranking", "rank_run", "read_run"]


def rank_run(
    run: object, judgments: Judgments, options: EvalOptions, *, name: str | None = None
) -> Prepared:
    """``run`` read and ranked against ``judgments`` as ``options`` say, with its evaluation
    context; ``name``: the run's name (default: by the rule of :mod:`cranfield.io.run_names`).

    Under ``missing="zero"`` the judged queries the run has no line for are ranked as empty
    rankings, flagged missing; under ``"skip"`` they are left out (and named in the
    ``missing_topics``); under ``"error"`` :func:`~cranfield.data.ranking.rank` refuses them.
    """
    rank_options: dict[str, Any] = {
        "depth": options.depth,
        "judged_only": options.judged_only,
        "float32": options.float32,
        "missing": options.missing,
    }
    label = name or default_name(run)
    ranking = None
    notes: tuple[str, ...] = ()
    dropped = 0
    if isinstance(run, (str, Path)):
        run = open_run(run, format=options.run_format)  # opened once, whatever happens next
    if judgments.plain and not options.ignore_self and isinstance(run, RunInput):
        ranking = _rank_small(run, judgments, rank_options)
    if ranking is None:
        loaded = read_run(run, judgments, options, name=label)
        notes = loaded.notes  # how the run was read (a format other than TREC)
        if options.ignore_self:
            loaded, dropped = _without_self(loaded)
        ranking = rank(loaded, judgments.qrels, **rank_options)
    absent: list[str] = []
    if options.missing == "skip":
        evaluated = set(ranking.topics)
        absent = [t for t in judgments.judged_topics() if t not in evaluated]
    missing = [t for t, m in zip(ranking.topics, ranking.missing, strict=True) if m] + absent
    known, intents = judgments.extra_frames()
    ctx = ExtendedContext(
        ranking, compat=options.compat, num_docs=options.num_docs, known=known, intents=intents
    )
    return Prepared(label, ranking, ctx, sorted(missing), notes, dropped)


def _rank_small(
    run: RunInput, judgments: Judgments, rank_options: dict[str, Any]
) -> Ranking | None:
    """The ranking of a small clean run file against small clean qrels, with numpy alone;
    ``None`` when either is not such a file."""
    source = judgments.source
    if not (run.small and isinstance(source, (str, Path)) and not is_parquet(source)):
        return None  # a large run: not even the qrels are read
    judged = judgments.columns()
    ranked = None if judged is None else run.columns()
    if judged is None or ranked is None:
        return None
    return rank_columns(ranked, judged, **rank_options)


def read_run(run: object, judgments: Judgments, options: EvalOptions, *, name: str) -> Run:
    """``run`` as a ``Run`` named ``name``, read as ``options`` say; a run file is read once,
    next to the qrels of ``judgments`` when these are not read yet."""
    from cranfield.io.load import load_run

    if isinstance(run, (str, Path)):
        run = open_run(run, format=options.run_format)
    if isinstance(run, RunInput):
        opened = run
        if is_parquet(opened.label):  # no slow start to fill: read before the qrels
            return opened.run(name=name)
        return judgments.beside(lambda: opened.run(name=name))
    return load_run(run, name=name, format=options.run_format)


def absent_ranking(
    judgments: Judgments, options: EvalOptions, absent: Sequence[str], *, name: str
) -> Prepared:
    """The judged queries ``absent`` from a run, ranked as empty rankings against their
    judgments alone: what ``missing="zero"`` scores them as. A whole run's ranking holds them
    already; a run scored in parts (streamed, or a dataset's partitions) asks here for the
    queries no part held."""
    import polars as pl

    from cranfield.data.qrels import Qrels
    from cranfield.data.run import RUN_SCHEMA, Run

    qrels = judgments.qrels
    only = Qrels(qrels.frame.filter(pl.col("query_id").is_in(list(absent))), qrels.name)
    empty = Run(pl.DataFrame(schema=RUN_SCHEMA), name=name, tag=name)
    return rank_run(empty, judgments.with_qrels(only), options.replace(aggregate=None), name=name)


def _without_self(run: Run) -> tuple[Run, int]:
    """``run`` without the documents whose id is their query's id (``ignore_self``), and how
    many were dropped."""
    import polars as pl

    from cranfield.data.run import Run

    frame = run.frame.filter(pl.col("query_id") != pl.col("doc_id"))
    return Run(frame, name=run.name, tag=run.tag), run.frame.height - frame.height
