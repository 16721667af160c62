"""``cranfield judge assessor add|assign|invite PROJECT NAME``: assessors and their topics.

``add`` creates an assessor (``--role organiser`` for one who also sees the organiser's pages)
and prints their password once (only its argon2 hash is kept); ``--query`` assigns topics.
With ``--invite`` it prints a one-time invitation link instead of a password: the assessor
opens it and chooses their password; the link works once and expires after ``--expires``
hours (72); only its token's SHA-256 is kept. ``invite`` makes a new link for an existing
assessor (a lost link or password). ``--site`` is the workbench's address as the assessors'
browsers reach it (default ``http://127.0.0.1:8000/``, ``judge serve``'s).
``assign`` gives an existing assessor more topics. Several assessors may share a topic.

Exit codes: 0 success, 1 usage error, 2 bad input (an unknown assessor or topic, a name
already taken).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import Parser, add_queries, positive_int

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from cranfield.workbench.project import Project

PROG: Final = "cranfield judge assessor"


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield judge assessor`` with ``argv``."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


DEFAULT_SITE: Final = "http://127.0.0.1:8000/"


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
    new.add_argument(
        "--invite",
        action="store_true",
        help="print a one-time invitation link instead of a password: the assessor opens it "
        "and chooses their password",
    )

    def link_options(sp: Parser) -> None:
        sp.add_argument(
            "--site",
            default=DEFAULT_SITE,
            metavar="URL",
            help="the workbench's address as the assessors' browsers reach it "
            f"(default {DEFAULT_SITE})",
        )
        sp.add_argument(
            "--expires",
            type=positive_int,
            default=72,
            metavar="HOURS",
            help="hours until an invitation link expires (default 72)",
        )

    link_options(new)
    more = add("assign", "Assign more topics to an assessor.")
    add_queries(more, "topics to assign, a list", required=True)
    again = add("invite", "Print a new one-time invitation link for an assessor.")
    link_options(again)
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.workbench import open_project

    project = open_project(args.project)
    try:
        if args.command == "add":
            password = project.add_assessor(args.name, role=args.role, queries=args.queries or ())
            if args.invite:  # the password is never shown: the link sets another
                out.write(
                    f"{args.role} {args.name} added to {args.project}; " + _link(project, args)
                )
            else:
                out.write(
                    f"{args.role} {args.name} added to {args.project}; password (shown once): "
                    f"{password}\n"
                )
        elif args.command == "invite":
            out.write(f"{args.name}: " + _link(project, args))
        else:
            project.assign(args.name, args.queries)
        who = project.assessor(args.name)
        topics = project.assigned(who.id)
        out.write(f"{args.name}'s topics: {', '.join(topics) if topics else 'none yet'}\n")
    finally:
        project.close()
    return 0


def _link(project: Project, args: argparse.Namespace) -> str:
    token = project.invite(args.name, hours=args.expires)
    url = args.site.rstrip("/") + "/invite/" + token
    return f"invitation link (shown once; it works once, for {args.expires} hours): {url}\n"
