"""``cranfield agree QRELS_A QRELS_B [QRELS_C ...] [--runs RUN...]``: how much do judges agree?

On the (query, document) pairs judged in two or more qrels files: Cohen's κ (unweighted,
linear, quadratic) and the confusion matrix for every pair of files, Fleiss' κ and
Krippendorff's α over all; with ``--runs``, the runs ranked under each qrels and compared with
the first as ``cranfield correlate`` does (:mod:`cranfield.stats.judge_agreement`). Negative
labels (trec_eval's "in the pool, not judged") are not judgments. ``--relevance-level N``
(``-l``, the evaluation option of that name) binarises graded labels before they are compared:
N or more is relevant (1), less is not (0), as κ papers often report.

Exit codes: 0 success, 1 usage error (bad option, unknown measure), 2 bad input data
(unreadable file, malformed line, qrels that share no judged pair).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import (
    Parser,
    UsageError,
    add_correlation_options,
    add_evaluation_options,
    add_format,
    add_measures,
    add_per_query,
    add_run_names,
    correlation_options,
    eval_options,
)
from cranfield.io.run_names import file_names

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield agree"
FORMATS: Final = ("table", "json")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield agree`` with ``argv`` (the arguments after ``agree``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description=(
            "Agreement of two or more qrels files on the (query, document) pairs they both "
            "judged: Cohen's kappa (unweighted, linear, quadratic) with the confusion matrix, "
            "Fleiss' kappa and Krippendorff's alpha; with --runs, the ranking of the runs "
            "under each qrels compared with the first. --relevance-level N binarises graded "
            "labels first (N or more: relevant)."
        ),
        out=out,
        err=err,
    )
    p.add_argument("qrels", nargs="+", metavar="QRELS", help="two or more qrels files")
    p.add_argument("--runs", nargs="+", metavar="RUN", help="runs to rank under each qrels")
    add_measures(p, ["AP"], one=True, help="the measure the runs are ranked by (with --runs)")
    add_per_query(p, "table format: agreement of every query")
    add_correlation_options(p)
    add_format(p, FORMATS)
    add_run_names(p)
    add_evaluation_options(p)
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.stats.judge_agreement import agree

    if len(args.qrels) < 2:
        raise UsageError(1, "give at least two qrels files to compare.")
    if args.runs is not None and len(args.runs) < 2:
        raise UsageError(1, "give at least two runs to rank (--runs RUN RUN ...).")
    result = agree(
        args.qrels,
        names=file_names(args.qrels, option="qrels", kind="qrels files"),
        runs=args.runs,
        measure=args.measures[0],
        options=eval_options(args),
        run_names=args.names,
        relevance_level=args.relevance_level,
        **correlation_options(args),
    )
    if args.format == "json":
        out.write(result.to_json())
    else:
        from cranfield.report.agreement import agreement_text

        out.write(agreement_text(result, per_query=args.per_query))
    return 0
