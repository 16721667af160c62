"""``cranfield logs ab TABLE --metric COL [--bucket COL] [--unit COL]``: an A/B test from a
table of one row per session (:func:`cranfield.logs.ab_test.ab_test`).

Prints each bucket's units, rows and mean, the difference (treatment minus control) with its
confidence interval and p-value (Welch's t on the delta-method variance over the units of
randomisation), and with ``--mde`` the units per bucket needed to detect each effect.

Exit codes: 0 success, 1 usage error (a bad option, not two buckets, an unknown control), 2
bad input (an unreadable table, a missing column, an empty or non-numeric value, a unit in
two buckets).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import Parser, add_format

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield logs ab"
FORMATS: Final = ("table", "json")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield logs ab`` with ``argv`` (the arguments after ``logs ab``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description=(
            "An A/B test from a table with one row per session (CSV, TSV, JSON Lines or "
            "Parquet): the difference of the metric between the two buckets, its confidence "
            "interval and p-value with the unit of randomisation respected (the delta method "
            "over units, Welch's t), and the units needed to detect an effect."
        ),
        out=out,
        err=err,
    )
    p.add_argument("table", metavar="TABLE", help="the sessions table (- for standard input)")
    p.add_argument("--metric", required=True, metavar="COL", help="the metric's column")
    p.add_argument(
        "--bucket",
        dest="buckets",
        default="bucket",
        metavar="COL",
        help="the bucket's column (bucket)",
    )
    p.add_argument(
        "--unit",
        dest="units",
        metavar="COL",
        help="the column of the unit of randomisation, such as a user id (default: each row "
        "is a unit)",
    )
    p.add_argument(
        "--denominator",
        dest="denominators",
        metavar="COL",
        help="a ratio metric's denominator column: the bucket's metric is the sum of COL over "
        "the sum of this one (clicks over impressions)",
    )
    p.add_argument(
        "--control", metavar="NAME", help="the control bucket (default: the first in order)"
    )
    p.add_argument(
        "-a", "--alpha", type=float, default=0.05, help="1 - the interval's confidence (0.05)"
    )
    p.add_list_option(
        "--mde",
        dest="mde",
        item=float,
        metavar="DELTA",
        help="differences to detect (in the metric's units): the units per bucket needed",
    )
    p.add_argument("--power", type=float, default=0.8, help="the power for --mde (0.8)")
    add_format(p, FORMATS, deprecated={"text": ("-f", "table")})
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import json

    from cranfield.io.metric_table import read_metric_table
    from cranfield.logs.ab_test import ab_test, sample_size
    from cranfield.report.click_logs import ab_test_text

    mdes = list(args.mde or [])
    for mde in [1.0, *mdes]:  # the design's options are checked before the table is read
        sample_size(1.0, mde, alpha=args.alpha, power=args.power)
    table = read_metric_table(
        args.table,
        metric=args.metric,
        bucket=args.buckets,
        unit=args.units,
        denominator=args.denominators,
    )
    test = ab_test(
        table.values,
        table.buckets,
        units=table.units,
        denominators=table.denominators,
        control=args.control,
        alpha=args.alpha,
        unit_name=args.units,
        source=table.source,
        lines=table.lines,
    )
    needed = {mde: test.units_needed(mde, power=args.power) for mde in mdes}
    if args.format == "json":
        data = {"metric": args.metric, **test.to_dict()}
        data["power"] = args.power
        data["units_needed"] = [{"mde": m, "units_per_bucket": n} for m, n in needed.items()]
        out.write(json.dumps(data, indent=2, allow_nan=False) + "\n")
    else:
        out.write(ab_test_text(args.metric, test, needed, args.power))
    return 0
