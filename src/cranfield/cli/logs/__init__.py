"""``cranfield logs``: evaluation from interaction logs.

One module per sub-command in this package, each with ``main(argv, stdout=None,
stderr=None) -> int``, listed once in :data:`LOGS_COMMANDS` and imported only when it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.commands import Command, dispatch

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["LOGS_COMMANDS", "main"]

LOGS_COMMANDS: Final[tuple[Command, ...]] = (
    Command("metrics", "cranfield.cli.logs.metrics", "CTR, CTR@k, abandonment, clicked ranks"),
    Command("ab", "cranfield.cli.logs.ab", "A/B test of a metric per session, by unit"),
    Command("fit", "cranfield.cli.logs.fit", "click models fitted and scored, qrels from clicks"),
    Command(
        "simulate",
        "cranfield.cli.logs.simulate",
        "simulated users interleave two runs: agreement with nDCG@10 by impressions",
    ),
    Command(
        "interleave",
        "cranfield.cli.logs.interleave",
        "two runs interleaved for simulated users: which one they prefer, with its interval",
    ),
    Command("report", "cranfield.cli.logs.report", "the HTML page of a click log"),
)


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield logs`` with ``argv`` (the arguments after ``logs``)."""
    return dispatch(
        "cranfield logs",
        LOGS_COMMANDS,
        argv,
        title="Evaluate from interaction logs: click metrics, click models, online tests.",
        stdout=stdout,
        stderr=stderr,
    )
