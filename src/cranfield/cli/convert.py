"""``cranfield convert IN OUT [--to FORMAT] [--from FORMAT] [--kind run|qrels]``: a run or
judgments rewritten in another format (:func:`cranfield.io.formats.convert`).

Exit codes: 0 converted, 1 usage error (an unknown format, no ``--to`` and a suffix that
names none, ``OUT`` the same file as ``IN``, a format that cannot hold the data), 2 an input
that cannot be read or does not say its kind, or an output that cannot be written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield._types import DUPLICATE_POLICIES, FILE_FORMATS, INPUT_KINDS
from cranfield.cli.exits import run_command
from cranfield.cli.parser import Parser

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield convert"


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield convert`` with ``argv`` (the arguments after ``convert``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    formats = ", ".join(FILE_FORMATS)
    p = Parser(
        prog=PROG,
        description="Rewrite a run or judgments in another format: " + formats + ". What "
        "the target format cannot hold (an MS MARCO run's scores, a run tag) is said.",
        out=out,
        err=err,
    )
    p.add_argument("source", metavar="IN", help="the run or qrels file (any format; - for stdin)")
    p.add_argument("target", metavar="OUT", help="the file to write (uncompressed)")
    p.add_argument(
        "--to",
        choices=FILE_FORMATS,
        metavar="FORMAT",
        help="the format to write (default: the one OUT's suffix names: .txt/.run/.qrels/.trec "
        "trec, .tsv tsv, .csv csv, .json json, .jsonl jsonl, .parquet parquet)",
    )
    p.add_argument(
        "--from",
        dest="source_format",
        choices=FILE_FORMATS,
        metavar="FORMAT",
        help="the format of IN (default: detected from its first lines)",
    )
    p.add_argument(
        "--kind",
        choices=INPUT_KINDS,
        help="whether IN holds a run or qrels (default: detected; needed for ranx JSON and "
        "standard input)",
    )
    p.add_argument(
        "--duplicates",
        choices=DUPLICATE_POLICIES,
        default="merge",
        help="a document judged on several qrels lines: as in 'cranfield evaluate' (merge)",
    )
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.io.formats import convert, described

    done = convert(
        args.source,
        args.target,
        args.to,
        source_format=args.source_format,
        kind=args.kind,
        duplicates=args.duplicates,
    )
    was = described(done.source_format, done.kind)
    now = described(done.target_format, done.kind)
    out.write(
        f"{args.target}: {done.rows:,} line(s), {done.queries:,} quer"
        f"{'y' if done.queries == 1 else 'ies'}, written as {now} from {was}.\n"
    )
    for note in done.notes:
        out.write(f"note: {note}\n")
    return 0
