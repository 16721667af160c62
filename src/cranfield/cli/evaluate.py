"""``cranfield evaluate QRELS RUN [RUN ...]``: measures of runs, as a table or as data.

Exit codes: 0 success, 1 usage error (bad option, unknown measure), 2 bad input data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import (
    LIST_RULE,
    Parser,
    UsageError,
    add_evaluation_options,
    add_format,
    add_measures,
    eval_options,
)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from cranfield.data.run import Run
    from cranfield.evaluation.options import EvalOptions
    from cranfield.evaluation.results import Results
    from cranfield.io.load import QrelsLike
    from cranfield.measures import Measure

PROG: Final = "cranfield evaluate"
DEFAULT_MEASURES: Final = ("AP", "nDCG@10", "P@10", "R@1000", "RR@10")
FORMATS: Final = ("table", "tsv", "csv", "json", "jsonl")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield evaluate`` with ``argv`` (the arguments after ``evaluate``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description="Evaluate runs (TREC run files, Parquet) against qrels.",
        epilog=LIST_RULE,
        out=out,
        err=err,
    )
    p.add_argument(
        "qrels", help="qrels file (TREC 'qid iter docno rel', optionally compressed) or Parquet"
    )
    p.add_argument(
        "runs", nargs="+", help="run files (TREC 'qid iter docno rank score tag') or Parquet"
    )
    add_measures(p, DEFAULT_MEASURES)
    p.add_argument("-q", "--per-query", action="store_true", help="one row per run and query")
    add_format(p, FORMATS)
    add_evaluation_options(p)
    p.add_argument(
        "--known",
        metavar="QRELS",
        help="relevant documents known to the user (Coverage, Novelty, RelRecall, RecallEffect)",
    )
    p.add_argument(
        "--intents",
        metavar="QRELS",
        help="subtopic judgments 'qid subtopic docno rel' for alpha_nDCG",
    )
    p.add_argument(
        "--stream",
        action="store_true",
        help="read each run in blocks of whole queries, in bounded memory (runs must be grouped "
        "by query)",
    )
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.evaluation.evaluator import resolve_measures

    options = eval_options(args)
    if args.stream and (
        args.known
        or args.intents
        or options.aggregate == "micro"
        or args.num_docs
        or args.epsilon is not None
    ):
        raise UsageError(
            1, "--stream does not combine with --known, --intents, -N, --epsilon or micro."
        )
    measures = resolve_measures(args.measures or DEFAULT_MEASURES)
    results = _evaluate(args, measures, options)
    from cranfield.report.tables import render

    render(results, measures, fmt=args.format, per_query=args.per_query, out=out)
    notes = "".join(f"{r.run_name}: {r.policy_note(command_line=True)}\n" for r in results)
    (out if args.format == "table" else err).write(notes)
    return 0


def _evaluate(
    args: argparse.Namespace, measures: list[Measure], options: EvalOptions
) -> list[Results]:
    """Every run of ``args.runs`` evaluated (the library call of the command)."""
    from pathlib import Path

    from cranfield.evaluation.evaluator import evaluate
    from cranfield.io.trec_numpy import fits, read_qrels_columns

    # Small clean qrels are handed on as their path when a run is small too (read once with
    # numpy alone and kept, see cranfield.io.trec_numpy); otherwise the qrels are loaded
    # once for all the runs.
    qrels: QrelsLike = args.qrels
    loaded: Run | None = None  # the first run, if loaded next to the qrels
    small = not args.stream and any(fits(path) for path in args.runs)
    if not small or read_qrels_columns(args.qrels) is None:
        from cranfield.io.load import load_qrels, load_run, side_by_side

        if small or args.stream:
            qrels = load_qrels(args.qrels)
        else:  # a large first run starts loading next to the qrels
            qrels, loaded = side_by_side(
                lambda: load_qrels(args.qrels),
                lambda: load_run(args.runs[0], name=Path(args.runs[0]).name),
            )
    results: list[Results] = []
    for k, path in enumerate(args.runs):
        if args.stream:
            from cranfield.evaluation.streaming import evaluate_stream

            results.append(
                evaluate_stream(
                    qrels, path, measures, run_name=Path(path).name, **options.changed()
                )
            )
            continue
        run = loaded if k == 0 and loaded is not None else path
        results.append(
            evaluate(
                qrels,
                run,
                measures,
                run_name=Path(path).name,
                known=args.known,
                intents=args.intents,
                **options.changed(),
            )
        )
    return results
