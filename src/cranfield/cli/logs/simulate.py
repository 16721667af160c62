"""``cranfield logs simulate QRELS RUN_A RUN_B``: simulated users interleave two runs; how
often does an experiment of N impressions agree with the offline measure?

Chapelle, Joachims, Radlinski & Yue's experiment (TOIS 2012, §5) on our data: users simulated
from the qrels grades (:mod:`cranfield.logs.simulation`: a DBN, cascade or PBM user, perfect,
navigational or informational) click on interleavings of the two runs' top 10; for each
experiment size N the share of experiments of N impressions that prefer the run the offline
measure (nDCG@10) prefers, overall and per query. ``-o LOG`` writes the simulated impressions
and their clicks as a log (JSON Lines, or Parquet by the suffix) that every ``cranfield logs``
command reads.

Exit codes: 0 success, 1 usage error (a bad option, an output that is an input), 2 bad input
(an unreadable qrels or run file).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.logs.simulated_users import add_simulated_users
from cranfield.cli.parser import (
    LIST_RULE,
    Parser,
    UsageError,
    add_click_models,
    add_evaluation_options,
    add_format,
    add_measures,
    add_seed,
    deprecate,
    eval_options,
)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from cranfield.evaluation.evaluator import Evaluator

PROG: Final = "cranfield logs simulate"
FORMATS: Final = ("table", "json")
MODEL_NAMES: Final = {"dbn": "DBN", "cascade": "cascade", "pbm": "PBM"}


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield logs simulate`` with ``argv`` (the arguments after ``simulate``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    from cranfield.logs.simulation import MODELS

    p = Parser(
        prog=PROG,
        description=(
            "Simulated interleaving of two runs by users whose clicks follow the qrels grades: "
            "for each number of impressions N, how often the interleaving experiment prefers "
            "the run the offline measure prefers (Chapelle et al. 2012), overall and per query."
        ),
        epilog=LIST_RULE,
        out=out,
        err=err,
    )
    p.add_argument("qrels", metavar="QRELS", help="the qrels (graded labels give the clicks)")
    p.add_argument("run_a", metavar="RUN_A", help="run A")
    p.add_argument("run_b", metavar="RUN_B", help="run B")
    add_click_models(
        p,
        "how users go down the list: dbn (Hofmann et al.'s user: stop after a click with "
        "P(stop | grade)), cascade (stop at the first click), pbm (examine rank r with 1/r); "
        "default dbn",
        choices=MODELS,
        default="dbn",
    )
    p.add_list_option(
        "--impressions",
        dest="sizes",
        item=int,
        metavar="N",
        help="experiment sizes N, in impressions (default 10,100,1000)",
    )
    p.add_argument(
        "--impressions-per-query",
        type=int,
        option="impressions",
        metavar="M",
        help="impressions per query simulated, that the experiments of N are drawn from "
        "with replacement (default: ten times the largest N)",
    )
    add_simulated_users(
        p,
        user_help="click and stop probabilities per grade (Hofmann et al. 2013); default "
        "navigational",
    )
    p.add_argument(
        "--trials",
        type=int,
        default=1000,
        option="repetitions",
        help="experiments of N impressions drawn per N (1000)",
    )
    add_seed(p, "the simulation")
    add_measures(p, ["nDCG@10"], one=True, help="the offline measure")
    p.add_argument(
        "--ab",
        dest="ab_users",
        type=int,
        metavar="USERS",
        help="simulate an A/B test instead: USERS users a bucket (A the control), each with "
        "--sessions queries; the difference over users beside the offline one",
    )
    p.add_argument("--sessions", type=int, default=5, help="with --ab: sessions per user (5)")
    p.add_argument(
        "--metric",
        choices=("rr", "ctr"),
        metavar="METRIC",
        default="rr",
        help="with --ab: a session's metric, rr (1/rank of the first click) or ctr (a click "
        "or none); default rr",
    )
    add_evaluation_options(p, ("relevance_level",))
    p.add_argument("--overall-only", action="store_true", help="leave out the table per query")
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the simulated impressions and clicks as a log, in the format its suffix "
        "names (.jsonl, .csv, .tsv or .parquet; JSON Lines for any other)",
    )
    add_format(p, FORMATS)
    deprecate(p, "--depth", "--shown")
    deprecate(p, "--per-query", "--impressions-per-query")
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.evaluation.evaluator import Evaluator
    from cranfield.io.run_names import file_names
    from cranfield.io.sink import refuse_overwriting, writing
    from cranfield.logs.simulation import simulate_interleaving
    from cranfield.report.simulation import agreement_text

    if args.output is not None:
        refuse_overwriting(args.output, [args.qrels, args.run_a, args.run_b], option="output")
    name_a, name_b = (
        file_names([args.run_a, args.run_b])
        if args.run_a != args.run_b
        else (
            file_names([args.run_a])[0],
            file_names([args.run_b])[0],
        )
    )
    evaluator = Evaluator(args.qrels, args.measures, eval_options(args))
    users = f"{MODEL_NAMES[args.model[0]]}, {args.user} user"
    if args.ab_users is not None:
        return _ab(args, evaluator, (name_a, name_b), users, out)
    result, log = simulate_interleaving(
        evaluator,
        args.run_a,
        args.run_b,
        names=(name_a, name_b),
        model=args.model[0],
        user=args.user,
        method=args.method,
        sizes=args.sizes or (10, 100, 1000),
        impressions=args.impressions_per_query,
        depth=args.shown,
        repetitions=args.trials,
        seed=args.seed,
        record=args.output is not None,
    )
    if log is not None:
        from cranfield.io.click_logs import write_sessions

        with writing(args.output):
            write_sessions(log, args.output)
    if args.format == "json":
        data = {"model": args.model[0], "user": args.user, **result.to_dict()}
        out.write(json.dumps(data, indent=2, allow_nan=False) + "\n")
    else:
        out.write(agreement_text(result, users=users, per_query=not args.overall_only))
    if log is not None:
        err.write(f"wrote {args.output} ({len(log):,} simulated sessions)\n")
    return 0


def _ab(
    args: argparse.Namespace, evaluator: Evaluator, names: tuple[str, str], users: str, out: TextIO
) -> int:
    from cranfield.logs.simulation import simulate_ab_test
    from cranfield.report.simulation import ab_simulation_text

    if args.output is not None:
        raise UsageError(1, "--output writes the log of an interleaving experiment, not of --ab.")
    result = simulate_ab_test(
        evaluator,
        args.run_a,
        args.run_b,
        names=names,
        model=args.model[0],
        user=args.user,
        users=args.ab_users,
        sessions=args.sessions,
        metric=args.metric,
        depth=args.shown,
        seed=args.seed,
    )
    if args.format == "json":
        data = {"model": args.model[0], "user": args.user, **result.to_dict()}
        out.write(json.dumps(data, indent=2, allow_nan=False) + "\n")
    else:
        out.write(ab_simulation_text(result, users=users))
    return 0
