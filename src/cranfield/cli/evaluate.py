"""``cranfield evaluate QRELS RUN [RUN ...]``: measures of runs, as a table or as data.

A folder of run files is that many runs, one per file (:mod:`cranfield.io.runset` states the
rule). A run that is a folder of Parquet files is a dataset
(:mod:`cranfield.evaluation.datasets`): without ``--jobs`` or ``--scheduler`` its partitions
are scored here by dask's synchronous scheduler (one partition in memory at a time, nothing to
start), with ``--jobs N`` by a local Dask cluster of ``N`` worker processes started for the
command, with ``--scheduler`` by that cluster's workers. ``--rank-order rank`` orders each run
by its rank column, as NIST's ndeval does by default (:mod:`cranfield.io.rank_order`), instead
of trec_eval's order by score.

Exit codes: 0 success, 1 usage error (bad option, unknown measure), 2 bad input data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import (
    LIST_RULE,
    Parser,
    add_evaluation_options,
    add_extra_judgments,
    add_format,
    add_inputs,
    add_measures,
    add_parallel_options,
    add_per_query,
    add_run_names,
    eval_options,
    parallel_options,
)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield evaluate"
DEFAULT_MEASURES: Final = ("AP", "nDCG@10", "P@10", "R@1000", "RR@10")
FORMATS: Final = ("table", "tsv", "csv", "json", "jsonl")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield evaluate`` with ``argv`` (the arguments after ``evaluate``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description="Evaluate runs against qrels, in any format cranfield reads.",
        epilog=LIST_RULE,
        out=out,
        err=err,
    )
    add_inputs(
        p,
        runs_help="run files, or folders of Parquet files: a dataset, scored in partitions of "
        "whole queries on Dask (here; --jobs N: a local cluster of N workers; --scheduler)",
    )
    add_measures(p, DEFAULT_MEASURES)
    add_per_query(p, "one row per run and query")
    add_format(p, FORMATS)
    add_evaluation_options(p)
    add_extra_judgments(p)
    add_run_names(p)
    p.add_argument(
        "--stream",
        action="store_true",
        help="read each run in blocks of whole queries, in bounded memory (runs must be grouped "
        "by query)",
    )
    p.add_argument(
        "--rank-order",
        choices=("score", "rank"),
        default="score",
        help="how each run's documents are ordered: score (default; trec_eval's order, score "
        "descending then doc id) or rank, the run's rank column as NIST's ndeval orders it by "
        "default (TREC runs only; for every measure asked; a rank given twice in a query is "
        "an error)",
    )
    add_parallel_options(p, store=True, progress=True)
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import contextlib

    from cranfield.io.source import digests_unread

    # Only JSON prints provenance, and only a store keys by the inputs' SHA-256: other
    # outputs spare the hash of every input (a large run's is ~7% of its CPU time).
    unread = args.format != "json" and args.store is None
    with digests_unread() if unread else contextlib.nullcontext():
        return _evaluate(args, out, err)


def _evaluate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.evaluation.evaluator import Evaluator

    options = eval_options(args)
    runs = args.runs
    if args.rank_order == "rank":
        from cranfield.errors import OptionError
        from cranfield.io.rank_order import read_run_in_rank_order
        from cranfield.io.run_names import file_names

        if args.stream:
            raise OptionError("rank_order", "'score' with --stream (rank reads runs whole)", "rank")
        names = file_names(list(runs))
        runs = [read_run_in_rank_order(r, name=n) for r, n in zip(runs, names, strict=True)]
    evaluator = Evaluator(
        args.qrels,
        args.measures or DEFAULT_MEASURES,
        options,
        known=args.known,
        intents=args.intents,
    )
    results = list(
        evaluator.each(
            runs,
            names=args.names,
            stream=args.stream,
            **parallel_options(args),
        )
    )
    from cranfield.report.tables import render

    render(results, evaluator.measures, fmt=args.format, per_query=args.per_query, out=out)
    notes = "".join(f"{r.run_name}: {r.policy_note(command_line=True)}\n" for r in results)
    (out if args.format == "table" else err).write(notes)
    return 0  # what reading changed is a warning of its own (QrelsNoteWarning)
