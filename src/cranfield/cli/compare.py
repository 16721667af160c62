"""``cranfield compare QRELS RUN RUN [RUN ...]``: significance tests between runs.

Exit codes: 0 success, 1 usage error (bad option, unknown measure, test or baseline),
2 bad input data (unreadable file, malformed line, too few common queries).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from cranfield.errors import CranfieldError, InputError, MeasureError, OptionError

if TYPE_CHECKING:
    from cranfield.evaluation.options import EvalOptions
    from cranfield.stats.comparison import Comparison

DEFAULT_MEASURES = ["AP", "nDCG@10"]
FORMATS = ["table", "markdown", "latex", "csv", "json"]


class _UsageError(Exception):
    """argparse wanted to exit; carries its exit status."""

    def __init__(self, status: int):
        self.status = status


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that writes to the given streams and never calls ``sys.exit``."""

    def __init__(self, *args: object, out: TextIO, err: TextIO, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._out = out
        self._err = err

    def _print_message(self, message: str, file: object = None) -> None:
        if message:
            (self._out if file is None or file is sys.stdout else self._err).write(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            self._err.write(message)
        raise _UsageError(status)

    def error(self, message: str) -> NoReturn:
        self.print_usage(self._err)
        self.exit(1, f"{self.prog}: error: {message}\n")


def _parser(out: TextIO, err: TextIO) -> _Parser:
    p = _Parser(
        prog="cranfield compare",
        description=(
            "Evaluate runs on the same queries and test their differences: every pair, or "
            "each run against a baseline. Prints the means with significance marks and states "
            "the query set, test, correction, alpha and seed."
        ),
        out=out,
        err=err,
    )
    p.add_argument("qrels", help="qrels file (TREC 'qid iter docno rel', optionally compressed)")
    p.add_argument("runs", nargs="+", metavar="RUN", help="two or more run files")
    add_test_options(p)
    p.add_argument(
        "--ci",
        dest="intervals",
        action="extend",
        nargs="+",
        choices=["t", "percentile", "bca"],
        help="intervals of the mean difference (default: t)",
    )
    p.add_argument(
        "--risk-aversion", type=float, default=1.0, help="URisk weight on losses (default 1)"
    )
    p.add_argument("-f", "--format", choices=FORMATS, default="table")
    p.add_argument(
        "-d", "--details", action="store_true", help="table format: add one row per pair"
    )
    p.add_argument(
        "--per-query", action="store_true", help="json format: include every per-query score"
    )
    p.add_argument(
        "--differences",
        nargs=2,
        metavar=("CONTROL", "TREATMENT"),
        help="print the per-query differences TREATMENT - CONTROL for each measure",
    )
    add_evaluation_options(p)
    return p


def add_test_options(p: argparse.ArgumentParser) -> None:
    """Options shared by every command that runs ``compare``: measures, tests, correction."""
    from cranfield.stats.comparison import TESTS  # lazily: keeps scipy out of start-up

    p.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="extend",
        nargs="+",
        metavar="MEASURE",
        help=f"measures (default: {' '.join(DEFAULT_MEASURES)})",
    )
    p.add_argument(
        "-t",
        "--test",
        dest="tests",
        action="extend",
        nargs="+",
        metavar="TEST",
        help=f"tests, the first marks the table: {', '.join(TESTS)} (default: t-test)",
    )
    p.add_argument(
        "-c",
        "--correction",
        default="holm",
        help="multiple-comparison correction: none, bonferroni, holm (default), bh",
    )
    p.add_argument("-b", "--baseline", metavar="RUN", help="compare every run with this one")
    p.add_argument("-a", "--alpha", type=float, default=0.05, help="significance level (0.05)")
    p.add_argument("-s", "--seed", type=int, help="seed of the random procedures (default: fresh)")
    p.add_argument(
        "-B", "--resamples", type=int, default=10_000, help="resamples per random test (10000)"
    )


def add_evaluation_options(p: argparse.ArgumentParser) -> None:
    """Options shared by every command that evaluates runs for a comparison."""
    p.add_argument(
        "--names",
        choices=["file", "tag"],
        default="file",
        help="name runs by file name without folders and suffixes (default) or by run tag",
    )
    p.add_argument(
        "--missing",
        choices=["zero", "skip", "error"],
        default="zero",
        help="judged queries absent from a run: score 0 (default), leave out, or fail",
    )
    p.add_argument(
        "-l",
        "--relevance-level",
        type=int,
        default=1,
        metavar="N",
        help="minimum judged level counted relevant (default 1)",
    )
    p.add_argument("-J", "--judged-only", action="store_true", help="drop unjudged documents")
    p.add_argument("-M", "--depth", type=int, metavar="K", help="evaluate only the top K")
    p.add_argument("--float32", action="store_true", help="round scores to float32 first")


def main(argv: list[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield compare`` with ``argv`` (the arguments after ``compare``)."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        args = _parser(out, err).parse_args(argv)
    except _UsageError as exc:
        return 0 if exc.status == 0 else 1
    if len(args.runs) < 2:
        err.write("cranfield compare: error: give at least two runs to compare.\n")
        return 1
    if args.differences and args.format not in ("table", "markdown"):
        err.write(
            "cranfield compare: error: --differences prints text, so it needs -f table or "
            f"markdown, got -f {args.format}; use -f json --per-query for the data.\n"
        )
        return 1
    try:
        cmp = _compare(args)
        _render(cmp, args, out)
    except InputError as exc:  # also a ValueError: bad data first
        err.write(f"cranfield compare: {exc}\n")
        return 2
    except OptionError as exc:
        err.write(f"cranfield compare: {exc.for_command_line()}\n")
        return 1
    except MeasureError as exc:
        err.write(f"cranfield compare: {exc}\n")
        return 1
    except CranfieldError as exc:
        err.write(f"cranfield compare: {exc}\n")
        return 2
    except OSError as exc:
        err.write(f"cranfield compare: {exc}\n")
        return 2
    except ValueError as exc:
        err.write(f"cranfield compare: {exc}\n")
        return 1
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
    """The ``compare`` keywords parsed by :func:`add_test_options` and
    :func:`add_evaluation_options`."""
    return {
        "baseline": args.baseline,
        "tests": args.tests or ["t-test"],
        "correction": args.correction,
        "alpha": args.alpha,
        "seed": args.seed,
        "n_resamples": args.resamples,
        "names": args.names,
        "options": evaluation_options(args),
    }


def evaluation_options(args: argparse.Namespace) -> EvalOptions:
    """The evaluation options parsed by :func:`add_evaluation_options`."""
    from cranfield.evaluation.options import EvalOptions

    return EvalOptions(
        missing=args.missing,
        relevance_level=args.relevance_level,
        judged_only=args.judged_only,
        depth=args.depth,
        float32=args.float32,
    )


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
    else:
        print_table(cmp, out, details=args.details)
    if args.differences:
        control, treatment = args.differences
        fence = "```\n" if fmt == "markdown" else ""
        for m in cmp.measures:
            text = cmp.differences(control, treatment, m).to_text()
            out.write(f"\n{fence}{text}\n{fence}")
