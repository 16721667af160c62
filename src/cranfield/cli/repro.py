"""``cranfield repro QRELS --original BASE [ADV] --reproduced BASE' [ADV']``: has an
experiment been reproduced (or replicated)?

The measures of Breuer et al. (2020), as repro_eval computes them: one call of
:func:`cranfield.stats.reproduce`, printed by :mod:`cranfield.report.reproducibility`.
Without ``--reproduced-qrels``, a reproduction: the reproduced runs answer the same queries
and are scored on ``QRELS``; for each run pair the per-query rankings are compared
(Kendall's τ Union at each cutoff, RBO) and so are the per-query scores (RMSE, nRMSE,
paired t-test). With ``--reproduced-qrels QRELS2``, a replication on another collection:
the reproduced runs are scored on ``QRELS2`` and compared by Student's unpaired t-test.
With a baseline and an advanced run on both sides, the Effect Ratio and ΔRI say whether
the improvement was reproduced.

Exit codes: 0 success, 1 usage error (bad option, unknown measure, wrong number of runs), 2
bad input data (unreadable file, malformed line, no query in common).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import (
    INPUT_FORMATS,
    LIST_RULE,
    Parser,
    UsageError,
    add_cutoffs,
    add_evaluation_options,
    add_format,
    add_measures,
    add_per_query,
    add_run_names,
    eval_options,
)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield repro"
DEFAULT_MEASURES: Final = ("AP", "nDCG@10", "P@10")
FORMATS: Final = ("table", "json")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield repro`` with ``argv`` (the arguments after ``repro``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    from cranfield.stats.reproducibility import DEFAULT_CUTOFFS

    p = Parser(
        prog=PROG,
        description=(
            "Compare an original experiment (a baseline run and optionally an advanced run) "
            "with its reproduction on the same qrels, or its replication on another "
            "collection (--reproduced-qrels): Kendall's tau Union and RBO of the rankings, "
            "RMSE and nRMSE of the per-query scores, the p-value of a t-test (paired, or "
            "Student's unpaired for a replication), and the Effect Ratio and Delta Relative "
            "Improvement between baseline and advanced (Breuer et al. 2020, as repro_eval)."
        ),
        epilog=LIST_RULE,
        out=out,
        err=err,
    )
    p.add_argument(
        "qrels", metavar="QRELS", help=f"qrels of the original experiment ({INPUT_FORMATS})"
    )
    p.add_argument(
        "--original",
        nargs="+",
        required=True,
        metavar="RUN",
        help="the original runs: the baseline, then optionally the advanced run",
    )
    p.add_argument(
        "--reproduced",
        nargs="+",
        required=True,
        metavar="RUN",
        help="their reproductions (or replications), in the same order",
    )
    p.add_argument(
        "--reproduced-qrels",
        metavar="QRELS",
        help="qrels of another collection: a replication (unpaired t-test, no rankings, "
        "RMSE or nRMSE)",
    )
    add_measures(p, DEFAULT_MEASURES)
    add_cutoffs(
        p,
        f"KTU on the top K documents, for each K (default: {','.join(map(str, DEFAULT_CUTOFFS))})",
    )
    p.add_argument("--rbo-p", dest="p", type=float, default=0.95, help="RBO's persistence p (0.95)")
    p.add_argument(
        "--rbo-depth",
        dest="rbo_depth",
        type=int,
        default=1000,
        help="RBO compares the rankings cut at this depth (1000)",
    )
    add_per_query(p, "also print KTU and RBO of every query (JSON always has them)")
    add_format(p, FORMATS)
    add_run_names(p)
    add_evaluation_options(p)
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.stats.reproducibility import DEFAULT_CUTOFFS, reproduce

    original, reproduced = args.original, args.reproduced
    for flag, runs in (("--original", original), ("--reproduced", reproduced)):
        if len(runs) > 2:
            raise UsageError(
                1, f"{flag} takes a baseline run and at most one advanced run, got {len(runs)}."
            )
    if len(original) != len(reproduced):
        raise UsageError(
            1,
            f"give as many --reproduced runs as --original runs, got {len(reproduced)} and "
            f"{len(original)}.",
        )
    for runs in (original, reproduced):
        if len(set(runs)) != len(runs):
            raise UsageError(1, f"give two different runs, not {runs[0]} twice.")
    result = reproduce(
        args.qrels,
        original,
        reproduced,
        args.measures or list(DEFAULT_MEASURES),
        reproduced_qrels=args.reproduced_qrels,
        names=args.names,
        cutoffs=args.cutoffs or DEFAULT_CUTOFFS,
        p=args.p,
        rbo_depth=args.rbo_depth,
        options=eval_options(args),
    )
    if args.format == "json":
        out.write(result.to_json())
    else:
        from cranfield.report.reproducibility import reproducibility_text

        out.write(reproducibility_text(result, per_query=args.per_query))
    return 0
