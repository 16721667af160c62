"""``cranfield judges assess HUMANS JUDGE [JUDGE ...]``: judging the judges before use.

Each judge's qrels (a model's, a crowd's) against the human qrels on the pairs both judged:
Cohen's κ over the grades, κ of each grade against the rest, κ binarised at ``-l`` (2 by
default), Krippendorff's α, the confusion matrix (``-f json``); with ``--runs``, the runs ranked
under each judge against under the humans (τ-b, τ_AP, RBO) over all runs and among the humans'
``--top-systems`` best; and one verdict sentence per judge (:mod:`cranfield.judges.assessment`).

Exit codes: 0 success, 1 usage error (bad option), 2 bad input data (unreadable file, a judge
that shares no judged pair with the humans).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import Parser, UsageError, add_format, add_measures, add_run_names

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield judges assess"
FORMATS: Final = ("table", "json")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield judges assess`` with ``argv`` (the arguments after ``assess``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description=(
            "Judge the judges: each judge's qrels against the human qrels (kappa per grade, "
            "binarised, alpha, confusion); with --runs, the system rankings under each compared "
            "overall and among the best systems; a verdict sentence per judge."
        ),
        out=out,
        err=err,
    )
    p.add_argument("humans", metavar="HUMANS", help="the human qrels (the reference)")
    p.add_argument("judges", nargs="+", metavar="JUDGE", help="one or more judges' qrels")
    p.add_argument("--runs", nargs="+", metavar="RUN", help="runs to rank under each qrels")
    add_measures(p, ["nDCG@10"], one=True, help="the measure the runs are ranked by (--runs)")
    p.add_argument(
        "-l",
        "--relevance-level",
        type=int,
        default=2,
        metavar="N",
        help="binarised kappa: a label >= N is relevant (default 2, TREC DL passages)",
    )
    p.add_argument(
        "--top-systems",
        type=int,
        default=5,
        metavar="K",
        help="the humans' K best runs, where the rankings are compared again (default 5)",
    )
    add_format(p, FORMATS)
    add_run_names(p)
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.io.run_names import file_names
    from cranfield.judges.assessment import assess
    from cranfield.judges.report import assessment_text

    if args.runs is not None and len(args.runs) < 2:
        raise UsageError(1, "give at least two runs to rank (--runs RUN RUN ...).")
    names = file_names([args.humans, *args.judges], option="judges", kind="qrels files")
    result = assess(
        args.humans,
        args.judges,
        names=names[1:],
        human_name=names[0],
        level=args.relevance_level,
        runs=args.runs,
        measure=args.measures[0],
        top=args.top_systems,
        run_names=args.names,
    )
    out.write(result.to_json() if args.format == "json" else assessment_text(result))
    return 0
