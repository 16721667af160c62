"""``cranfield judge``: the judging workbench (:mod:`cranfield.workbench`).

One module per sub-command in this package, each with ``main(argv, stdout=None, stderr=None)
-> int``, listed once in :data:`JUDGE_COMMANDS` and imported only when it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.commands import Command, dispatch

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["JUDGE_COMMANDS", "main"]

JUDGE_COMMANDS: Final[tuple[Command, ...]] = (
    Command(
        "init", "cranfield.cli.judge.init", "a judging project from runs, topics and documents"
    ),
    Command("assessor", "cranfield.cli.judge.assessor", "add assessors, assign them topics"),
    Command("serve", "cranfield.cli.judge.serve", "serve the workbench to assessors' browsers"),
    Command("export", "cranfield.cli.judge.export", "the judgments as qrels, with provenance"),
)


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield judge`` with ``argv`` (the arguments after ``judge``)."""
    return dispatch(
        "cranfield judge",
        JUDGE_COMMANDS,
        argv,
        title="Judge pooled documents in a browser; export the judgments as qrels.",
        stdout=stdout,
        stderr=stderr,
    )
