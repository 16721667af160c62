"""``cranfield plot KIND QRELS RUN [RUN ...] -o fig.png|svg|pdf``: one figure to a file.

Kinds: ``pr`` (interpolated precision-recall curves), ``gain`` (nDCG@k or DCG@k curves with
the ideal), ``differences`` (per-query difference bars of two runs), ``scores`` (box and
strip plots of per-query scores) and ``query`` (precision-recall of one query).

Exit codes: 0 success, 1 usage error (bad option, unknown measure, unsupported output
suffix, matplotlib not installed), 2 bad input data or an output file that cannot be
written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import (
    LIST_RULE,
    Parser,
    add_evaluation_options,
    add_inputs,
    add_measures,
    add_queries,
    add_run_names,
    deprecate,
    eval_options,
)
from cranfield.errors import EvaluationError

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from matplotlib.figure import Figure

PROG: Final = "cranfield plot"


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield plot`` with ``argv`` (the arguments after ``plot``).

    Examples
    --------
    >>> import io
    >>> err = io.StringIO()
    >>> main(["pr", "qrels.txt", "a.run", "-o", "fig.jpg"], stderr=err)
    1
    >>> err.getvalue()
    "cranfield plot pr: error: the output must end in .png, .svg or .pdf, got 'fig.jpg'.\\n"
    """
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _common(
    p: Parser,
    *,
    runs_help: str | tuple[str, ...] = "one or more run files",
    runs_metavar: str | tuple[str, ...] = "RUN",
) -> None:
    add_inputs(p, runs_help=runs_help, runs_metavar=runs_metavar)
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="figure file; the suffix picks the format: .png, .svg or .pdf",
    )
    p.add_argument("--title", help="axes title (default: says what is plotted)")
    p.add_argument(
        "--size",
        nargs=2,
        type=float,
        metavar=("WIDTH", "HEIGHT"),
        help="figure size in inches",
    )
    p.add_argument("--dpi", type=float, default=150.0, help="resolution of .png files (150)")
    add_run_names(p)
    add_evaluation_options(p)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description="Draw one figure of runs against judgments and save it (needs matplotlib).",
        out=out,
        err=err,
    )
    sub = p.add_subparsers(dest="kind", required=True, metavar="KIND")

    def add(name: str, help_: str) -> Parser:
        kind: Parser = sub.add_parser(name, help=help_, epilog=LIST_RULE, out=out, err=err)
        return kind

    pr = add("pr", "interpolated precision-recall curves")
    _common(pr, runs_help="one or more run files")
    pr.add_list_option(
        "--levels",
        dest="levels",
        item=float,
        metavar="R",
        help="recall levels (default: 0 0.1 ... 1)",
    )
    pr.add_argument(
        "--rule",
        choices=["exact", "trec_eval"],
        default="exact",
        help="interpolation (default exact)",
    )
    gain = add("gain", "nDCG@k / DCG@k curves with the ideal")
    _common(gain, runs_help="one or more run files")
    gain.add_argument(
        "--max-rank", type=int, default=20, metavar="K", help="last rank k plotted (default 20)"
    )
    gain.add_argument(
        "--gain",
        choices=["ndcg", "dcg", "ncg", "cg"],
        default="ndcg",
        help="the curve: nDCG@k (default), DCG@k, nCG@k or CG@k",
    )
    deprecate(gain, "--kind", "--gain")
    gain.add_argument(
        "--normalise",
        choices=["mean_of_ratios", "ratio_of_means"],
        default="mean_of_ratios",
        help="how nDCG and nCG are averaged (default: mean of per-query values)",
    )
    gain.add_argument("--no-ideal", action="store_true", help="leave out the ideal curve")
    diff = add("differences", "per-query difference bars of two runs")
    _common(
        diff,
        runs_help=("the control run", "the treatment run; the bars show treatment - control,"),
        runs_metavar=("CONTROL", "TREATMENT"),
    )
    add_measures(diff, ["AP"], one=True)
    diff.add_argument("--sort", choices=["difference", "topic", "none"], default="difference")
    scores = add("scores", "box and strip plots of per-query scores")
    _common(scores, runs_help="one or more run files")
    add_measures(scores, ["AP"], one=True)
    scores.add_argument(
        "--chart",
        choices=["box", "strip", "both"],
        default="both",
        help="box plots, strip plots (one point per query) or both (default)",
    )
    deprecate(scores, "--kind", "--chart")
    query = add("query", "precision-recall of one query")
    _common(query, runs_help="one or more run files")
    add_queries(query, "the query", one=True, required=True)
    deprecate(query, "-q", "--query")
    query.add_argument(
        "--no-interpolation", action="store_true", help="join the points in rank order"
    )
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.cli.figures import check_figure, save_figure

    check_figure(args.output, [args.qrels, *args.runs], label="the output")
    save_figure(_figure(args), args.output, dpi=args.dpi)
    out.write(f"wrote {args.output}\n")
    return 0


def _figure(args: argparse.Namespace) -> Figure:
    from cranfield import plot

    size: dict[str, Any] = {} if args.size is None else {"figsize": tuple(args.size)}
    options = eval_options(args)
    opts: dict[str, Any] = {"names": args.names, "options": options, "title": args.title, **size}
    if args.kind == "pr":
        levels: dict[str, Any] = {} if args.levels is None else {"levels": tuple(args.levels)}
        return plot.pr_curve(args.qrels, args.runs, rule=args.rule, **levels, **opts)
    if args.kind == "gain":
        return plot.gain_curve(
            args.qrels,
            args.runs,
            max_rank=args.max_rank,
            kind=args.gain,
            ideal=not args.no_ideal,
            normalise=args.normalise,
            **opts,
        )
    if args.kind == "query":
        return plot.query_pr_curve(
            args.qrels, args.runs, args.queries[0], interpolated=not args.no_interpolation, **opts
        )
    from cranfield.evaluation.evaluator import Evaluator

    evaluator = Evaluator(args.qrels, args.measures, options)
    results = list(evaluator.each(args.runs, names=args.names))
    size_opts = {"title": args.title, **size}
    if args.kind == "scores":
        return plot.score_distribution(results, args.measures[0], kind=args.chart, **size_opts)
    from cranfield.stats.histogram import query_differences

    control, treatment = results
    common = sorted(set(control.topics) & set(treatment.topics), key=str.encode)
    if not common:
        raise EvaluationError(
            f"runs {control.run_name!r} and {treatment.run_name!r} share no evaluated query."
        )
    m = control.measures[0]
    a, b = control.per_query(m), treatment.per_query(m)
    diffs = query_differences(
        common,
        [a[t] for t in common],
        [b[t] for t in common],
        measure=str(m),
        control_name=control.run_name,
        treatment_name=treatment.run_name,
    )
    return plot.difference_bars(diffs, sort=args.sort, **size_opts)
