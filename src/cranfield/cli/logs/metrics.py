"""``cranfield logs metrics LOG``: click metrics of an interaction log, overall and per query
or bucket.

Prints the click-through rates (CTR, CTR@k), the abandonment rate, the clicks per session,
the reciprocal ranks of the first, last and highest click, the times to the first and last
click and the satisfied clicks (when the log has times), and the position-bias curve (CTR
by rank), with their definitions (:mod:`cranfield.logs.click_metrics`). The log is any format
of :mod:`cranfield.io.click_logs` (WSCD text, JSON Lines, CSV, TSV, Parquet; compressed or
not; ``-`` for standard input with ``--log-format``).

Exit codes: 0 success, 1 usage error (bad option), 2 bad input data (unreadable file,
malformed session).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import LIST_RULE, Parser, add_cutoffs, add_format, add_log_format

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from cranfield.data.sessions import Sessions

PROG: Final = "cranfield logs metrics"
FORMATS: Final = ("table", "json")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield logs metrics`` with ``argv`` (the arguments after ``metrics``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description=(
            "Click metrics of an interaction log: CTR and CTR@k, abandonment, clicks per "
            "session, reciprocal rank of the first, last and highest click, time to the first "
            "click and satisfied clicks (logs with times), and CTR by rank; overall and per "
            "query or bucket."
        ),
        epilog=LIST_RULE,
        out=out,
        err=err,
    )
    p.add_argument(
        "log",
        metavar="LOG",
        help="the interaction log (WSCD text, JSONL, CSV, TSV, Parquet; - for stdin)",
    )
    add_log_format(p)
    p.add_argument(
        "--by",
        choices=("query", "bucket"),
        help="values per query or per bucket (system) as well as overall",
    )
    add_cutoffs(p, "cutoffs of CTR@k, a list (default 1,3,5,10)", option="k")
    p.add_argument(
        "--dwell",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="dwell time from which a click is satisfied (default 30)",
    )
    add_format(p, FORMATS, deprecated={"text": ("-f", "table")})
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import json

    from cranfield.io.click_logs import read_sessions
    from cranfield.logs.click_metrics import DEFAULT_K, check_options, click_metrics
    from cranfield.report.click_logs import click_metrics_text

    k, _ = check_options(k=DEFAULT_K if args.cutoffs is None else args.cutoffs, dwell=args.dwell)
    sessions = read_sessions(args.log, format=args.log_format)
    metrics = click_metrics(sessions, by=args.by, k=k, dwell=args.dwell)
    if args.format == "json":
        data = {"log": _described(sessions), **metrics.to_dict()}
        out.write(json.dumps(data, indent=2, allow_nan=False) + "\n")
    else:
        out.write(click_metrics_text(sessions, metrics))
    return 0


def _described(sessions: Sessions) -> dict[str, object]:
    return {
        **sessions.described(),
        "click_times": sessions.click_time is not None,
        "dwell_times": sessions.dwell is not None,
        "buckets": len(sessions.bucket_ids) if sessions.bucket is not None else 0,
    }
