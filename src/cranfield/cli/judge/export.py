"""``cranfield judge export PROJECT -o QRELS``: the judgments as qrels, with provenance.

Writes the qrels (any format cranfield writes: by ``--to`` or the suffix) and
``QRELS.provenance.json`` (cranfield's version, the pool, strategy and seed, the policies,
each assessor's counts and times, anonymised unless ``--reveal-assessors``). A document's
label is its adjudication, else the one label its assessors agree on; a disagreement nobody
adjudicated fails the export unless ``--on-conflict latest|max``. Skipped and unjudged
documents are not written. ``--per-assessor DIR`` also writes each assessor's own qrels there,
for ``cranfield agree``.

Exit codes: 0 success, 1 usage error, 2 not a project, nothing judged, or an unadjudicated
disagreement.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

from cranfield._types import FILE_FORMATS
from cranfield.cli.exits import run_command
from cranfield.cli.parser import Parser

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield judge export"


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield judge export`` with ``argv``."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description="Export the judgments as qrels, with a provenance record.",
        out=out,
        err=err,
    )
    p.add_argument("project", type=Path, metavar="PROJECT", help="the project folder")
    p.add_argument(
        "-o", "--output", type=Path, required=True, metavar="FILE", help="the qrels to write"
    )
    p.add_argument(
        "--to",
        choices=FILE_FORMATS,
        metavar="FORMAT",
        help="the format to write (default: the one FILE's suffix names; trec otherwise)",
    )
    p.add_argument(
        "--on-conflict",
        choices=["error", "latest", "max"],
        default="error",
        help="assessors who disagree on a document nobody adjudicated: fail (error, the "
        "default), the latest judgment, or the highest grade",
    )
    p.add_argument(
        "--per-assessor",
        type=Path,
        metavar="DIR",
        help="also write each assessor's own qrels to DIR (for cranfield agree)",
    )
    p.add_argument(
        "--reveal-assessors",
        action="store_true",
        help="name assessors by their log-in names (default: assessor-1, assessor-2, ...)",
    )
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.workbench import export, open_project

    project = open_project(args.project)
    try:
        done = export(
            project,
            args.output,
            format=args.to,
            on_conflict=args.on_conflict,
            assessors_to=args.per_assessor,
            reveal=args.reveal_assessors,
        )
    finally:
        project.close()
    counts = done.record["documents"]
    out.write(
        f"{done.qrels}: {counts['agreed'] + counts['adjudicated'] + counts['resolved']} judged "
        f"documents ({counts['agreed']} agreed, {counts['adjudicated']} adjudicated, "
        f"{counts['resolved']} by --on-conflict {args.on_conflict}); not written: "
        f"{counts['skipped']} skipped, {counts['unjudged']} unjudged. Provenance: "
        f"{done.provenance}\n"
    )
    for name, path in done.assessor_files.items():
        out.write(f"{name}: {path}\n")
    return 0
