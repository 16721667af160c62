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

    from cranfield.workbench.project import Project

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
    from cranfield.judging.strategies import STRATEGIES

    p.add_list_option(
        "--strategy",
        dest="strategies",
        choices=STRATEGIES,
        most=1,
        metavar="NAME",
        help="the adjudication strategy choosing each assessor's next document from the labels "
        "so far, over the project's runs at its pool depth and seed: "
        + ", ".join(STRATEGIES)
        + " (default: the pool's order, shuffled by the project's seed)",
    )
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.workbench import open_project
    from cranfield.workbench.serve import bind, serve, url_of

    project = open_project(args.project)
    if args.strategies:
        project = _with_strategy(project, args.strategies[0])
    try:
        sock = bind(args.host, args.port)
        out.write(f"cranfield judge: serving {args.project} at {url_of(sock)}\n")
        out.flush()
        serve(project, sock, err)
    finally:
        project.close()
    return 0


def _with_strategy(project: Project, name: str) -> Project:
    """``project`` opened again with the adjudication strategy ``name`` over its own runs,
    at its pool depth and seed (:func:`cranfield.judging.strategies.strategy`)."""
    from cranfield.judging.strategies import strategy
    from cranfield.workbench import open_project

    runs = project.runs()
    depth, seed = project.setting("pool_depth"), project.setting("seed")
    project.close()
    chosen = strategy(name, {n: str(path) for n, path in runs.items()}, pool_depth=depth, seed=seed)
    return open_project(project.folder, strategy=chosen)
