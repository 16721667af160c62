"""The options of the sub-commands that interleave runs for simulated users.

``cranfield logs simulate`` and ``cranfield logs interleave`` both show each simulated user
an interleaving of the runs' top ``--shown`` documents, made by ``--method``, and click as
``--user`` does; the three flags are declared here once so that they keep one meaning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cranfield.cli.parser import Parser

__all__ = ["add_simulated_users"]


def add_simulated_users(p: Parser, *, user_help: str) -> None:
    """``--user`` (click and stop probabilities per grade), ``--method`` (the interleaving)
    and ``--shown`` (results per impression) on ``p``."""
    from cranfield.logs.interleaving_experiment import METHODS
    from cranfield.logs.simulation import USERS

    p.add_argument("--user", choices=tuple(USERS), default="navigational", help=user_help)
    p.add_argument(
        "--method", choices=METHODS, default="team-draft", help="interleaving (team-draft)"
    )
    p.add_argument(
        "--shown",
        type=int,
        default=10,
        metavar="N",
        option="depth",
        help="results shown per impression (10)",
    )
