"""``cranfield power QRELS RUN... -m AP -m nDCG@10``: which measure tells the runs apart, how
stably, and how many topics it would need.

Prints, per measure, Sakai's discriminative power (the share of run pairs significant at α with
the paired bootstrap test and with the randomised Tukey HSD), the number of topics Sakai's
topic-set-size design asks for a difference of ``--difference`` (paired t-test, one-way ANOVA
of the runs, confidence-interval width), and the Voorhees & Buckley swap rates by topic-set
size: one call of :func:`cranfield.stats.power`, printed by :mod:`cranfield.report.power`.

Exit codes: 0 success, 1 usage error (bad option, unknown measure), 2 bad input data
(unreadable file, malformed line, fewer than 2 runs or queries).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import (
    LIST_RULE,
    Parser,
    UsageError,
    add_evaluation_options,
    add_format,
    add_inputs,
    add_measures,
    add_resampling_options,
    add_run_names,
    deprecate,
    eval_options,
)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from cranfield.stats.power_study import PowerStudy

PROG: Final = "cranfield power"
DEFAULT_MEASURES: Final = ("AP", "nDCG@10", "P@10", "bpref")
FORMATS: Final = ("table", "json")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield power`` with ``argv`` (the arguments after ``power``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description=(
            "Discriminative power of each measure on the runs (share of run pairs significant "
            "with the paired bootstrap and the randomised Tukey HSD), the topics needed to "
            "detect a difference (Sakai's topic-set-size design) and the swap rates of "
            "Voorhees & Buckley by topic-set size."
        ),
        epilog=LIST_RULE,
        out=out,
        err=err,
    )
    add_inputs(p)
    add_measures(p, DEFAULT_MEASURES)
    add_resampling_options(
        p,
        alpha="significance level (default 0.05)",
        resamples=(1000, "resamples of the bootstrap test and the randomised Tukey HSD (1000)"),
        seed="the resampling",
    )
    p.add_argument(
        "--trials",
        type=int,
        default=100,
        help="random splits of the queries for the swap rates, 0 for none (100)",
    )
    p.add_argument(
        "--difference",
        dest="min_d",
        type=float,
        default=0.05,
        help="minimum difference to detect, and interval width, for the topic-set sizes (0.05)",
    )
    p.add_argument(
        "--beta", type=float, default=0.2, help="type II error rate: power 1 - beta (0.2)"
    )
    add_format(p, FORMATS)
    p.add_argument(
        "--plot",
        metavar="FILE",
        help="also draw the ASL curves (paired bootstrap) and the topics each measure needs "
        "by minimum difference (paired t-test) to a .png, .svg or .pdf file (needs the "
        "'plot' extra)",
    )
    add_run_names(p)
    add_evaluation_options(p)
    deprecate(p, "-d", "--difference")
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.stats.power_study import power

    if len(args.runs) < 2:
        raise UsageError(1, "give at least two runs to tell apart.")
    if args.plot is not None:
        from cranfield.cli.figures import check_figure

        check_figure(args.plot, [args.qrels, *args.runs], label="--plot")
    study = power(
        args.qrels,
        args.runs,
        args.measures or list(DEFAULT_MEASURES),
        names=args.names,
        alpha=args.alpha,
        n_resamples=args.n_resamples,
        trials=args.trials,
        seed=args.seed,
        min_d=args.min_d,
        beta=args.beta,
        options=eval_options(args),
    )
    if args.format == "json":
        out.write(study.to_json())
    else:
        from cranfield.report.power import power_text

        out.write(power_text(study))
    if args.plot is not None:
        _draw(args, study)
        if args.format != "json":
            out.write(f"Wrote the ASL curves and the topics needed to {args.plot}.\n")
    return 0


def _draw(args: argparse.Namespace, study: PowerStudy) -> None:
    """The ASL curves beside the topics each measure needs, in one figure."""
    from matplotlib.figure import Figure

    from cranfield.cli.figures import save_figure
    from cranfield.report.plots import asl_curves, topic_set_curves

    fig = Figure(figsize=(12.0, 4.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    asl_curves(study.discriminative_power, ax=left)
    systems = len(study.discriminative_power.runs)
    topic_set_curves(study.variances, alpha=args.alpha, beta=args.beta, systems=systems, ax=right)
    save_figure(fig, args.plot)
