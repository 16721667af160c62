"""``cranfield correlate QRELS RUN... -m M1 -m M2``: do two measures, or two qrels, rank the
runs alike?

Two measures: the runs scored on ``QRELS`` under ``M1`` (the reference) and ``M2``. Two qrels
(``--qrels-b QRELS_B``): the runs scored under one measure on ``QRELS`` (the reference) and on
``QRELS_B``. Prints the system means, Kendall's τ-b, τ_AP, Spearman's ρ, Pearson's r and RBO
with bootstrap intervals over queries, and the swapped pairs: one call of
:func:`cranfield.stats.correlate`, printed by :mod:`cranfield.report.agreement`.

Exit codes: 0 success, 1 usage error (bad option, unknown measure), 2 bad input data
(unreadable file, malformed line, qrels with no query in common).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import (
    LIST_RULE,
    Parser,
    UsageError,
    add_correlation_options,
    add_evaluation_options,
    add_format,
    add_inputs,
    add_measures,
    add_per_query,
    add_run_names,
    correlation_options,
    eval_options,
)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield correlate"
DEFAULT_MEASURES: Final = ("AP", "nDCG@10")
FORMATS: Final = ("table", "json")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield correlate`` with ``argv`` (the arguments after ``correlate``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description=(
            "Rank the runs under two measures (-m M1 -m M2) or under two qrels files "
            "(--qrels-b, one measure) and compare the rankings: Kendall's tau-b, tau_AP, "
            "Spearman's rho, Pearson's r, RBO, the swapped pairs, bootstrap intervals over "
            "queries. The first measure (or QRELS) is the reference."
        ),
        epilog=LIST_RULE,
        out=out,
        err=err,
    )
    add_inputs(p)
    add_measures(p, DEFAULT_MEASURES)
    p.add_argument(
        "--qrels-b",
        metavar="QRELS",
        help="a second qrels file: rank the runs under each qrels with one measure",
    )
    add_correlation_options(p)
    add_per_query(p, "table format: how alike each run's per-query scores are under both settings")
    add_format(p, FORMATS)
    p.add_argument(
        "--plot",
        metavar="FILE",
        help="also draw the system means under both settings, swapped pairs joined, to a "
        ".png, .svg or .pdf file (needs the 'plot' extra)",
    )
    add_run_names(p)
    add_evaluation_options(p)
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.stats.rank_correlation import correlate

    if len(args.runs) < 2:
        raise UsageError(1, "give at least two runs to rank.")
    measures = args.measures
    if args.qrels_b is None:
        measures = measures or list(DEFAULT_MEASURES)
        if len(measures) != 2:
            raise UsageError(
                1,
                f"give two measures to compare (-m M1 -m M2), got {len(measures)}; or one "
                "measure and --qrels-b QRELS.",
            )
    else:
        measures = measures or ["AP"]
        if len(measures) != 1:
            raise UsageError(
                1, f"with --qrels-b give one measure (-m MEASURE), got {len(measures)}."
            )
    if args.plot is not None:
        from cranfield.cli.figures import check_figure

        check_figure(args.plot, [args.qrels, args.qrels_b, *args.runs], label="--plot")
    result = correlate(
        args.qrels,
        args.runs,
        *measures,
        qrels_b=args.qrels_b,
        names=args.names,
        options=eval_options(args),
        **correlation_options(args),
    )
    if args.format == "json":
        out.write(result.to_json())
    else:
        from cranfield.report.agreement import correlation_text

        out.write(correlation_text(result, per_query=args.per_query))
    if args.plot is not None:
        from cranfield.cli.figures import save_figure
        from cranfield.report.plots import ranking_scatter

        save_figure(ranking_scatter(result), args.plot)
        if args.format != "json":
            out.write(f"Wrote the scatter plot to {args.plot}.\n")
    return 0
