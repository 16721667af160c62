"""``cranfield report QRELS RUN [RUN ...] -o report.html``: one self-contained HTML report.

``--strategy S,...`` adds a judging section: the strategies replayed on the runs' pools with
the qrels as the assessor (``cranfield pool simulate``'s curves and numbers), with
``--budget`` / ``--budget-total``, ``--pool-depth``, ``--checkpoints`` as ``pool simulate``
takes them, the report's first measure and ``--seed``.

Exit codes: 0 success, 1 usage error (bad option, unknown measure, test or baseline),
2 bad input data (unreadable file, malformed line, too few common queries) or an output
file that cannot be written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.compare import DEFAULT_MEASURES, comparison_options
from cranfield.cli.exits import run_command
from cranfield.cli.parser import (
    LIST_RULE,
    Parser,
    UsageError,
    add_evaluation_options,
    add_extra_judgments,
    add_inputs,
    add_parallel_options,
    add_run_names,
    add_test_options,
)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from cranfield.judging.simulation import Simulation

PROG: Final = "cranfield report"


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield report`` with ``argv`` (the arguments after ``report``).

    Examples
    --------
    >>> import io
    >>> err = io.StringIO()
    >>> main(["qrels.txt", "a.run", "b.run"], stderr=err)
    1
    >>> err.getvalue().splitlines()[-1]
    'cranfield report: error: the following arguments are required: -o/--output'
    """
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description=(
            "Compare runs and write one self-contained HTML page that works offline: the "
            "means with significance marks, precision-recall and nDCG@k curves, a sortable "
            "and filterable per-query table, and every parameter used; with --diff A B, also "
            "how run B differs from run A query by query."
        ),
        epilog=LIST_RULE,
        out=out,
        err=err,
    )
    add_inputs(p)
    p.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="the HTML file to write ('-': stdout)"
    )
    add_test_options(p, DEFAULT_MEASURES)
    add_run_names(p)
    add_evaluation_options(p)
    add_extra_judgments(p)
    add_parallel_options(p, store=True, progress=True)
    p.add_argument("--title", help="heading of the report")
    p.add_argument("--no-curves", action="store_true", help="leave out the curves")
    p.add_argument(
        "--rule",
        choices=["exact", "trec_eval"],
        default="exact",
        help="interpolation of the precision-recall curve (default exact)",
    )
    p.add_argument(
        "--max-rank",
        type=int,
        default=20,
        metavar="K",
        help="last rank of the nDCG@k curve (default 20)",
    )
    p.add_argument(
        "--page-size", type=int, default=50, metavar="N", help="rows per page when opened (50)"
    )
    from cranfield.cli.pool import add_checkpoints, add_judging_options

    add_judging_options(p, one=False, section=True)
    add_checkpoints(p)
    p.add_argument(
        "--diff",
        nargs=2,
        metavar=("RUN_A", "RUN_B"),
        help="add a 'run diff' section: how RUN_B differs from RUN_A query by query, as "
        "'cranfield diff' says it (two of the runs, by name or path; default: no such section)",
    )
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if len(args.runs) < 2:
        raise UsageError(1, "give at least two runs to compare.")
    from cranfield.cli.figures import write_page
    from cranfield.io.sink import refuse_overwriting

    refuse_overwriting(args.output, [args.qrels, *args.runs], option="output")
    page = _report(args)
    write_page(args.output, page, out)
    return 0


def _judging(args: argparse.Namespace) -> Simulation | None:
    """The judging simulation ``--strategy`` asks for (``None`` without it)."""
    from cranfield.cli.pool import budgets, checkpoints_of

    if not args.strategies:
        if args.budget is not None or args.budget_total is not None or args.checkpoints:
            raise UsageError(1, "--budget, --budget-total and --checkpoints need --strategy.")
        return None
    from cranfield.judging.simulation import simulate

    budget, total = budgets(args)
    measures = args.measures or DEFAULT_MEASURES
    return simulate(
        args.runs,
        args.qrels,
        args.strategies,
        budget=100 if budget is None else budget,
        budget_total=total,
        pool_depth=args.pool_depth,
        seed=0 if args.seed is None else args.seed,
        measure=str(measures[0]),
        checkpoints=checkpoints_of(args),
    )


def _report(args: argparse.Namespace) -> str:
    from cranfield.report.html import html_report

    judging = _judging(args)
    return html_report(
        args.qrels,
        args.runs,
        args.measures or DEFAULT_MEASURES,
        **comparison_options(args),
        curves=not args.no_curves,
        rule=args.rule,
        max_rank=args.max_rank,
        title=args.title,
        page_size=args.page_size,
        diff=args.diff,
        judging=judging,
    )
