"""``cranfield judge assessor add|assign PROJECT NAME``: assessors and their topics.

``add`` creates an assessor (``--role organiser`` for one who also sees the organiser's pages)
and prints their password once (only its argon2 hash is kept); ``--query`` assigns topics.
``assign`` gives an existing assessor more topics. Several assessors may share a topic.

Exit codes: 0 success, 1 usage error, 2 bad input (an unknown assessor or topic, a name
already taken).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import Parser, add_queries

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield judge assessor"


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield judge assessor`` with ``argv``."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(prog=PROG, description="Add assessors and assign them topics.", out=out, err=err)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(name: str, help_: str) -> Parser:
        sp: Parser = sub.add_parser(name, help=help_, description=help_, out=out, err=err)
        sp.add_argument("project", type=Path, metavar="PROJECT", help="the project folder")
        sp.add_argument("name", metavar="NAME", help="the assessor's log-in name")
        return sp

    new = add("add", "Add an assessor and print their password (shown once).")
    new.add_argument(
        "--role",
        choices=("assessor", "organiser"),
        default="assessor",
        help="an organiser also sees progress, agreement and adjudication (default assessor)",
    )
    add_queries(new, "topics to assign, a list")
    more = add("assign", "Assign more topics to an assessor.")
    add_queries(more, "topics to assign, a list", required=True)
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.workbench import open_project

    project = open_project(args.project)
    try:
        if args.command == "add":
            password = project.add_assessor(args.name, role=args.role, queries=args.queries or ())
            out.write(
                f"{args.role} {args.name} added to {args.project}; password (shown once): "
                f"{password}\n"
            )
        else:
            project.assign(args.name, args.queries)
        who = project.assessor(args.name)
        topics = project.assigned(who.id)
        out.write(f"{args.name}'s topics: {', '.join(topics) if topics else 'none yet'}\n")
    finally:
        project.close()
    return 0
