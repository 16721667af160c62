"""``cranfield compare QRELS RUN RUN [RUN ...]``: significance tests between runs.

Exit codes: 0 success, 1 usage error (bad option, unknown measure, test or baseline),
2 bad input data (unreadable file, malformed line, too few common queries).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import (
    LIST_RULE,
    Parser,
    UsageError,
    add_evaluation_options,
    add_extra_judgments,
    add_format,
    add_inputs,
    add_parallel_options,
    add_per_query,
    add_run_names,
    add_test_options,
    eval_options,
    parallel_options,
)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from cranfield.stats.comparison import Comparison

PROG: Final = "cranfield compare"
DEFAULT_MEASURES: Final = ("AP", "nDCG@10")
FORMATS: Final = ("table", "markdown", "latex", "csv", "json")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield compare`` with ``argv`` (the arguments after ``compare``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description=(
            "Evaluate runs on the same queries and test their differences: every pair, or "
            "each run against a baseline. Prints the means with significance marks and states "
            "the query set, test, correction, alpha and seed."
        ),
        epilog=LIST_RULE,
        out=out,
        err=err,
    )
    add_inputs(p)
    add_test_options(p, DEFAULT_MEASURES)
    p.add_list_option(
        "--ci",
        dest="intervals",
        choices=["t", "percentile", "bca"],
        metavar="INTERVAL",
        help="intervals of the mean difference: t, percentile, bca (default: t)",
    )
    p.add_argument(
        "--risk-aversion", type=float, default=1.0, help="URisk weight on losses (default 1)"
    )
    add_format(p, FORMATS)
    p.add_argument(
        "-d", "--details", action="store_true", help="table format: add one row per pair"
    )
    add_per_query(p, "json format: include every per-query score")
    p.add_argument(
        "--differences",
        nargs=2,
        metavar=("CONTROL", "TREATMENT"),
        help="print the per-query differences TREATMENT - CONTROL for each measure",
    )
    add_run_names(p)
    add_evaluation_options(p)
    add_extra_judgments(p)
    add_parallel_options(p, store=True, progress=True)
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if len(args.runs) < 2:
        raise UsageError(1, "give at least two runs to compare.")
    if args.differences and args.format not in ("table", "markdown"):
        raise UsageError(
            1,
            "--differences prints text, so it needs -f table or markdown, got -f "
            f"{args.format}; use -f json --per-query for the data.",
        )
    _render(_compare(args), args, out)
    return 0


def _compare(args: argparse.Namespace) -> Comparison:
    from cranfield.stats.comparison import compare

    return compare(
        args.qrels,
        args.runs,
        args.measures or DEFAULT_MEASURES,
        intervals=args.intervals or ["t"],
        risk_aversion=args.risk_aversion,
        **comparison_options(args),
    )


def comparison_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``compare`` keywords of the test options, the run names, the evaluation options
    and the extra judgments (shared by ``compare`` and ``report``)."""
    return {
        "baseline": args.baseline,
        "tests": args.tests or ["t-test"],
        "correction": args.correction,
        "alpha": args.alpha,
        "seed": args.seed,
        "n_resamples": args.n_resamples,
        "names": args.names,
        "options": eval_options(args),
        "known": args.known,
        "intents": args.intents,
        **parallel_options(args),
    }


def _render(cmp: Comparison, args: argparse.Namespace, out: TextIO) -> None:
    from cranfield.report.comparison import print_table, to_latex, to_markdown

    fmt = args.format
    if fmt == "json":
        out.write(cmp.to_json(per_query=args.per_query))
    elif fmt == "csv":
        out.write(cmp.to_csv())
    elif fmt == "markdown":
        out.write(to_markdown(cmp))
    elif fmt == "latex":
        out.write(to_latex(cmp))
    else:  # through a buffer: rich ends the process itself when the pipe is closed
        table = _Buffer(out)
        print_table(cmp, table, details=args.details, command_line=True)
        out.write(table.getvalue())
    if args.differences:
        control, treatment = args.differences
        fence = "```\n" if fmt == "markdown" else ""
        for m in cmp.measures:
            text = cmp.differences(control, treatment, m).to_text()
            out.write(f"\n{fence}{text}\n{fence}")


class _Buffer(io.StringIO):
    """Text on its way to ``stream``, a terminal (for rich's colours) when ``stream`` is."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self._stream = stream

    def isatty(self) -> bool:
        return self._stream.isatty()
