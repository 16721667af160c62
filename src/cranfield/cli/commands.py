"""The ``cranfield`` commands, listed once: name, module and one line of help.

A command's module is imported only when the command runs, so ``cranfield --help`` and
``cranfield --version`` import neither numpy nor polars. Every module has
``main(argv, stdout=None, stderr=None) -> int`` (``argv`` without the command's name).
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Final, NamedTuple, TextIO

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["COMMANDS", "Command", "dispatch", "main"]


class Command(NamedTuple):  # not a dataclass: `dataclasses` imports `inspect` (start-up)
    """One ``cranfield`` sub-command."""

    name: str
    module: str
    help: str


COMMANDS: Final = (
    Command("evaluate", "cranfield.cli.evaluate", "evaluate one or more runs against judgments"),
    Command("measures", "cranfield.cli.measures", "list every measure with its definition"),
    Command("trec-eval", "cranfield.cli.trec_eval", "drop-in trec_eval: same flags, same bytes"),
    Command("compare", "cranfield.cli.compare", "significance tests between runs"),
    Command("diff", "cranfield.cli.diff", "how two runs differ, query by query"),
    Command("correlate", "cranfield.cli.correlate", "do two measures or two qrels rank runs alike"),
    Command("agree", "cranfield.cli.agree", "agreement between judges (qrels files)"),
    Command("power", "cranfield.cli.power", "discriminative power, swap rates, topics needed"),
    Command("repro", "cranfield.cli.repro", "was an experiment reproduced: KTU, RBO, RMSE, ER"),
    Command("report", "cranfield.cli.report", "one self-contained HTML report"),
    Command("plot", "cranfield.cli.plot", "figures: PR, gain, differences, scores, one query"),
    Command("lab", "cranfield.cli.lab", "experiments, efficiency, pooling, folds, cv"),
    Command("pool", "cranfield.cli.pool", "judging on a budget: what to judge next, simulated"),
    Command("estimate", "cranfield.cli.estimate", "xinfAP and statAP from a judged sample"),
    Command("check", "cranfield.cli.check", "lint runs and qrels without evaluating them"),
    Command("convert", "cranfield.cli.convert", "rewrite a run or qrels in another format"),
    Command("fuse", "cranfield.cli.fuse", "fuse runs into one; tune a fusion on held-out queries"),
    Command("logs", "cranfield.cli.logs", "click logs: metrics, click models, online tests"),
    Command("judges", "cranfield.cli.judges", "crowd labels combined, model judges, judges judged"),
    Command("judge", "cranfield.cli.judge", "judge pooled documents in a browser: qrels"),
)

_USAGE: Final = "usage: cranfield [-h] [--version] COMMAND ...\n"


def _help(usage: str, title: str, table: Sequence[Command], help_line: str) -> str:
    width = max(len(c.name) for c in table) + 2
    lines = "".join(f"  {c.name:<{width}}{c.help}\n" for c in table)
    version = "  --version   show cranfield's version and exit\n" if table is COMMANDS else ""
    codes = ""
    if table is COMMANDS:  # the same for every command: written once, in cli/exits.py
        from cranfield.cli.exits import exit_codes_text

        table_text = exit_codes_text()
        codes = f"\nexit codes (every command):\n{table_text}" if table_text else ""
    return (
        f"{usage}\n{title}\n\ncommands:\n{lines}\n"
        f"options:\n  -h, --help  show this help message and exit\n{version}{codes}\n"
        f"{help_line}\n"
    )


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the command ``argv[0]`` with the rest of ``argv``; return the exit code."""
    return dispatch(
        "cranfield",
        COMMANDS,
        argv,
        title="Evaluate search and ranking systems.",
        stdout=stdout,
        stderr=stderr,
    )


def dispatch(
    prog: str,
    table: Sequence[Command],
    argv: Sequence[str],
    *,
    title: str,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the command of ``table`` named by ``argv[0]`` with the rest of ``argv``.

    ``cranfield`` itself and every command with sub-commands of its own (``cranfield logs``)
    go through here, so they answer ``-h``, a missing and an unknown command alike.
    """
    out = sys.stdout if stdout is None else stdout
    err = sys.stderr if stderr is None else stderr
    top = table is COMMANDS
    usage = _USAGE if top else f"usage: {prog} [-h] COMMAND ...\n"
    names = ", ".join(c.name for c in table)
    if not argv:
        err.write(f"{usage}{prog}: error: give a command: {names}.\n")
        return 1
    first, rest = argv[0], list(argv[1:])
    if first in ("-h", "--help"):
        out.write(
            _help(usage, title, table, f"Run '{prog} COMMAND -h' for the options of a command.")
        )
        return 0
    if top and first in ("-V", "--version"):
        from cranfield._version import __version__

        out.write(f"cranfield {__version__}\n")
        return 0
    command = next((c for c in table if c.name == first), None)
    if command is None:
        what = "option" if first.startswith("-") else "command"
        err.write(f"{usage}{prog}: error: unknown {what} {first!r}; ")
        err.write(f"give a command first: {names}.\n")
        return 1
    code: int = importlib.import_module(command.module).main(rest, stdout=out, stderr=err)
    return code
