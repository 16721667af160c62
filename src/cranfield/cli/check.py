"""``cranfield check FILE... [--qrels Q] [--kind run|qrels] [-f json] [--strict]``: runs and
qrels in any format checked without evaluating them (:mod:`cranfield.evaluation.check`).

Exit codes (:mod:`cranfield.cli.exits`): 0 whether anything is found or not; with ``--strict``,
3 when anything is (a finding or a warning), after the whole report; 1 usage error, 2 a
``--qrels`` file that cannot be read as qrels.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Final, TextIO

from cranfield._types import INPUT_KINDS
from cranfield.cli.exits import FINDINGS, run_command
from cranfield.cli.parser import Parser, add_format, add_strict

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield check"
FORMATS: Final = ("table", "json")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield check`` with ``argv`` (the arguments after ``check``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description="Check runs and qrels in any format (TREC, MS MARCO, BEIR, CSV, TSV, JSON, "
        "JSON Lines, Parquet) without evaluating them: what each holds and what is wrong with it.",
        out=out,
        err=err,
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="runs and qrels in any format, optionally compressed ('-': TREC text on stdin)",
    )
    p.add_argument(
        "--qrels", help="qrels (any format) to check each run's queries and top 10 against"
    )
    p.add_argument(
        "--kind",
        choices=INPUT_KINDS,
        help="what files that do not say hold (ranx JSON {query: {doc: value}})",
    )
    add_format(p, FORMATS)
    add_strict(p, "exit 3 after the report if anything is found (a warning counts)")
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import warnings

    from cranfield.errors import CranfieldWarning
    from cranfield.evaluation.check import check

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CranfieldWarning)
        report = check(args.files, qrels=args.qrels, kind=args.kind)
    with warnings.catch_warnings():  # printed by cli/exits.py, never raised: check's
        warnings.simplefilter("always", CranfieldWarning)  # --strict weighs them as findings
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if args.format == "json":
        out.write(json.dumps(report.to_dict(), indent=2) + "\n")
    else:
        from cranfield.report.check import check_text

        out.write(check_text(report))
    return FINDINGS if args.strict and (report.findings or caught) else 0
