"""``cranfield power QRELS RUN... -m AP -m nDCG@10``: which measure tells the runs apart, how
stably, and how many topics it would need.

Prints, per measure, Sakai's discriminative power (the share of run pairs significant at α with
the paired bootstrap test and with the randomised Tukey HSD), the number of topics Sakai's
topic-set-size design asks for a difference of ``--difference`` (paired t-test, one-way ANOVA
of the runs, confidence-interval width), and the Voorhees & Buckley swap rates by topic-set
size (:mod:`cranfield.stats.discriminative_power`, :mod:`cranfield.stats.topic_set_size`).

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

    from cranfield.stats.discriminative_power import DiscriminativePower

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
    import json

    from cranfield.evaluation.evaluator import Evaluator
    from cranfield.stats.discriminative_power import discriminative_power
    from cranfield.stats.rank_correlation import table_measure
    from cranfield.stats.topic_set_size import residual_variance, topic_set_size

    if len(args.runs) < 2:
        raise UsageError(1, "give at least two runs to tell apart.")
    measures = args.measures or list(DEFAULT_MEASURES)
    # the design's options and the figure's file are checked before anything is evaluated
    topic_set_size(1.0, min_d=args.min_d, alpha=args.alpha, beta=args.beta)
    if args.plot is not None:
        from cranfield.cli.figures import check_figure

        check_figure(args.plot, [args.qrels, *args.runs], label="--plot")
    table = Evaluator(args.qrels, measures, eval_options(args)).many(args.runs, names=args.names)
    power = discriminative_power(
        table,
        measures,
        alpha=args.alpha,
        n_resamples=args.n_resamples,
        trials=args.trials,
        seed=args.seed,
    )
    designs = {}
    variances = {}
    for m in measures:
        name = str(table_measure(table, m))
        variances[name] = residual_variance(table.matrix(name))
        designs[name] = topic_set_size(
            variances[name],
            min_d=args.min_d,
            alpha=args.alpha,
            beta=args.beta,
            systems=len(table),
        )
    if args.format == "json":
        data = power.to_dict()
        data["topic_set_size"] = {name: d.to_dict() for name, d in designs.items()}
        out.write(json.dumps(data, indent=2, allow_nan=False) + "\n")
    else:
        from cranfield.report.power import power_text

        out.write(power_text(power, designs))
    if args.plot is not None:
        _draw(args, power, variances, systems=len(table))
        if args.format != "json":
            out.write(f"Wrote the ASL curves and the topics needed to {args.plot}.\n")
    return 0


def _draw(
    args: argparse.Namespace,
    power: DiscriminativePower,
    variances: dict[str, float],
    *,
    systems: int,
) -> None:
    """The ASL curves beside the topics each measure needs, in one figure."""
    from matplotlib.figure import Figure

    from cranfield.cli.figures import save_figure
    from cranfield.report.plots import asl_curves, topic_set_curves

    fig = Figure(figsize=(12.0, 4.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    asl_curves(power, ax=left)
    topic_set_curves(variances, alpha=args.alpha, beta=args.beta, systems=systems, ax=right)
    save_figure(fig, args.plot)
