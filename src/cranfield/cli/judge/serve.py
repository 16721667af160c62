"""``cranfield judge serve PROJECT``: serve the workbench (uvicorn) and print its URL.

Serves on 127.0.0.1 unless ``--host`` names another address (an explicit choice: assessors on
other machines, behind TLS); ``--port 0`` takes a free port. One line per request on stderr.
Stop it with Ctrl-C: every judgment sent before is in the database.

Exit codes: 0 stopped, 1 usage error, 2 not a project, or the address cannot be bound.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import Parser

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield judge serve"


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield judge serve`` with ``argv``."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description="Serve the judging workbench to the assessors' browsers.",
        out=out,
        err=err,
    )
    p.add_argument("project", type=Path, metavar="PROJECT", help="the project folder")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address served on (default 127.0.0.1: this machine only)",
    )
    p.add_argument("--port", type=int, default=8000, help="the port (default 8000; 0: a free port)")
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.workbench import open_project
    from cranfield.workbench.serve import bind, serve, url_of

    project = open_project(args.project)
    try:
        sock = bind(args.host, args.port)
        out.write(f"cranfield judge: serving {args.project} at {url_of(sock)}\n")
        out.flush()
        serve(project, sock, err)
    finally:
        project.close()
    return 0
