"""``cranfield diff QRELS RUN_A RUN_B``: how run B differs from run A, query by query.

Prints the means and the paired tests (A the baseline), the largest wins and losses of B per
measure, the mean rank-biased overlap of the two rankings, the unjudged documents that entered
B's top k, and for the largest wins and losses (or the queries of ``--query``) the rank of
every judged relevant document in both runs (:mod:`cranfield.stats.run_diff`).

Exit codes: 0 success, 1 usage error (bad option, unknown measure or query), 2 bad input data
(unreadable file, malformed line, fewer than two common queries).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import (
    LIST_RULE,
    Parser,
    add_evaluation_options,
    add_format,
    add_inputs,
    add_queries,
    add_run_names,
    add_test_options,
    deprecate,
    eval_options,
)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield diff"
DEFAULT_MEASURES: Final = ("AP", "nDCG@10")
FORMATS: Final = ("table", "json")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield diff`` with ``argv`` (the arguments after ``diff``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description=(
            "Explain how run B differs from run A, query by query: per-query differences "
            "B - A with the paired tests (A the baseline), the largest wins and losses, the "
            "rank of each judged relevant document in both runs, the rank-biased overlap of "
            "the two rankings, and the unjudged documents that entered B's top k."
        ),
        epilog=LIST_RULE,
        out=out,
        err=err,
    )
    add_inputs(p, runs_help=("run A, the baseline", "run B"), runs_metavar=("RUN_A", "RUN_B"))
    add_test_options(p, DEFAULT_MEASURES, baseline=False)
    p.add_argument(
        "--top",
        type=int,
        default=5,
        metavar="N",
        help="largest wins and losses shown per measure (default 5)",
    )
    p.add_argument(
        "--top-k",
        dest="k",
        type=int,
        default=10,
        metavar="K",
        help="look for unjudged documents entering B's top K (default 10)",
    )
    add_queries(
        p, "list the relevant documents of these queries (default: the largest wins and losses)"
    )
    p.add_argument(
        "--every-query",
        action="store_true",
        help="list the relevant documents of every query (not with --query)",
    )
    p.add_argument(
        "--rbo-p", dest="p", type=float, default=0.9, help="RBO's persistence p (default 0.9)"
    )
    add_format(p, FORMATS)
    add_run_names(p)
    add_evaluation_options(p)
    deprecate(p, "-k", "--top-k")
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.stats.run_diff import diff_runs

    result = diff_runs(
        args.qrels,
        args.runs[0],
        args.runs[1],
        args.measures or DEFAULT_MEASURES,
        names=args.names,
        options=eval_options(args),
        top=args.top,
        k=args.k,
        queries=args.queries,
        every_query=args.every_query,
        p=args.p,
        tests=args.tests or ["t-test"],
        correction=args.correction,
        alpha=args.alpha,
        seed=args.seed,
        n_resamples=args.n_resamples,
    )
    if args.format == "json":
        out.write(result.to_json())
    else:
        from cranfield.report.run_diff import diff_text

        out.write(diff_text(result))
    return 0
