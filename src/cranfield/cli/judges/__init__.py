"""``cranfield judges``: many judges combined, a model judge asked, judges assessed.

One module per sub-command in this package, each with ``main(argv, stdout=None,
stderr=None) -> int``, listed once in :data:`JUDGES_COMMANDS` and imported only when it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.commands import Command, dispatch

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["JUDGES_COMMANDS", "main"]

JUDGES_COMMANDS: Final[tuple[Command, ...]] = (
    Command(
        "combine",
        "cranfield.cli.judges.combine",
        "crowd labels into qrels: majority, Dawid-Skene, one-coin, GLAD; worker quality",
    ),
    Command(
        "ask",
        "cranfield.cli.judges.ask",
        "a model judge behind an OpenAI-compatible endpoint grades pool pairs (cached)",
    ),
    Command(
        "assess",
        "cranfield.cli.judges.assess",
        "judges against human qrels: kappa, alpha, rankings, top systems, a verdict",
    ),
)


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield judges`` with ``argv`` (the arguments after ``judges``)."""
    return dispatch(
        "cranfield judges",
        JUDGES_COMMANDS,
        argv,
        title="Many judges: crowd labels combined, a model judge asked, judges assessed.",
        stdout=stdout,
        stderr=stderr,
    )
