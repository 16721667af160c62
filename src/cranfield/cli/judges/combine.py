"""``cranfield judges combine LABELS``: many workers' labels of each pair made into qrels.

LABELS is a table of crowd labels (``worker, query_id, doc_id, label``; CSV, TSV, JSON Lines
or Parquet: :mod:`cranfield.io.crowd_labels`), or, with ``--kind qrels``, qrels files each
standing for one judge. The labels of each (query, document) pair are combined by
``--aggregation`` (majority vote, Dawid-Skene, one-coin Dawid-Skene or GLAD:
:mod:`cranfield.judges.aggregation`); the result is written as qrels (``-o``) and each worker's
quality is printed, scored on ``--gold`` pairs too when given.

Exit codes: 0 success, 1 usage error (bad option), 2 bad input data (unreadable file, a label
outside the scale, a worker labelling a pair twice, gold that shares no pair with the labels).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import Parser, UsageError, add_format

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield judges combine"
FORMATS: Final = ("table", "json")
AGGREGATIONS: Final = ("dawid-skene", "majority", "one-coin", "glad")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield judges combine`` with ``argv`` (the arguments after ``combine``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def scale_of(text: str) -> tuple[int, int]:
    """``LOW-HIGH`` (``0-3``) as two integers, or a usage error."""
    low, sep, high = text.strip().partition("-")
    try:
        if not sep:
            raise ValueError(text)
        pair = (int(low), int(high))
    except ValueError:
        raise UsageError(
            1, f"--scale takes LOW-HIGH, two integers such as 0-3, got {text!r}."
        ) from None
    if pair[0] > pair[1]:
        raise UsageError(1, f"--scale takes LOW-HIGH with LOW <= HIGH, got {text!r}.")
    return pair


def add_scale(p: Parser) -> None:
    """``--scale LOW-HIGH``: the labels allowed (default 0-3)."""
    p.add_argument(
        "--scale",
        default="0-3",
        metavar="LOW-HIGH",
        help="the labels allowed, inclusive (default 0-3: TREC's graded scale); a label "
        "outside it is an error",
    )


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description=(
            "Combine many workers' labels of each (query, document) pair into qrels: majority "
            "vote (ties to the lowest grade), Dawid-Skene, one-coin Dawid-Skene or GLAD, with "
            "each worker's quality, scored on gold pairs when given."
        ),
        out=out,
        err=err,
    )
    p.add_argument(
        "labels",
        nargs="+",
        metavar="LABELS",
        help="a table of worker, query_id, doc_id, label (CSV, TSV, JSONL, Parquet); with "
        "--kind qrels, qrels files, one per judge",
    )
    p.add_argument(
        "--kind",
        choices=("labels", "qrels"),
        default="labels",
        help="what LABELS holds: one table of crowd labels (default), or qrels files each "
        "standing for one judge",
    )
    p.add_argument(
        "--aggregation",
        choices=AGGREGATIONS,
        default="dawid-skene",
        help="how the labels of a pair become one (default dawid-skene)",
    )
    p.add_argument(
        "--gold",
        metavar="QRELS",
        help="qrels of pairs whose label is known: workers are scored on them (and EM holds "
        "them at their label)",
    )
    add_scale(p)
    p.add_argument(
        "--out-of-scale",
        choices=("error", "skip"),
        default="error",
        help="a label outside --scale: an error (default), or left out and counted",
    )
    p.add_argument(
        "--max-iterations",
        type=int,
        default=100,
        metavar="N",
        help="most EM iterations (default 100)",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write the combined labels as qrels")
    add_format(p, FORMATS)
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.io.crowd_labels import crowd_from_qrels, read_crowd_labels
    from cranfield.judges.aggregation import combine, gold_of
    from cranfield.judges.report import combined_text

    scale = scale_of(args.scale)
    if args.kind == "labels" and len(args.labels) != 1:
        raise UsageError(1, "give one table of crowd labels, or several qrels with --kind qrels.")
    if args.kind == "labels" and args.out_of_scale == "skip":
        raise UsageError(1, "--out-of-scale skip reads qrels files (--kind qrels) only.")
    if args.output is not None:
        from cranfield.io.sink import refuse_overwriting

        refuse_overwriting(args.output, [*args.labels, args.gold], option="output")
    if args.kind == "qrels":
        from cranfield.io.run_names import file_names

        names = file_names(args.labels, option="labels", kind="qrels files")
        crowd = crowd_from_qrels(args.labels, names=names, scale=scale, outside=args.out_of_scale)
    else:
        crowd = read_crowd_labels(args.labels[0], scale=scale)
    gold = None if args.gold is None else gold_of(args.gold)
    result = combine(crowd, method=args.aggregation, gold=gold, max_iterations=args.max_iterations)
    if args.output is not None:
        from cranfield.io.formats import format_of_suffix, write

        write(result.to_qrels(), args.output, format_of_suffix(args.output) or "trec")
    if args.format == "json":
        out.write(result.to_json())
    else:
        out.write(combined_text(result, skipped=crowd.skipped))
    return 0
