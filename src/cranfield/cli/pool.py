"""``cranfield pool``: judging on a budget.

Sub-commands::

    cranfield pool next RUN [RUN ...] [--judged QRELS] [--strategy mtf]
                        [--budget N | --budget-total N] [--pool-depth 100] [--seed 0]
    cranfield pool simulate QRELS RUN [RUN ...] [--strategy S,...] [--budget 100 | --budget-total N]
                            [--pool-depth 100] [--checkpoints N,...] [-m AP] [--plot FILE] [-o PAGE]
                            [-f table|json]
    cranfield pool sample RUN [RUN ...] --strata 1-10:1,11-:0.1 -o DESIGN [--prels FILE]
                          [--pool-depth 100] [--seed 0]
    cranfield pool sample RUN [RUN ...] --sample-size 200 -o PRELS [--pool-depth 100]
    cranfield pool pseudo QRELS RUN [RUN ...] [--vote soboroff,count,borda,condorcet]
                          [-m AP] [--pool-depth 100] [--seed 0] [-f table|json]

``pool next`` asks a strategy (:mod:`cranfield.judging.strategies`) for the next document of
every topic, given the judgments made so far; ``pool simulate`` replays strategies with
complete qrels as the assessor (:mod:`cranfield.judging.simulation`); ``pool sample`` draws a
stratified sample for judging (:mod:`cranfield.judging.sampling`; ``cranfield estimate``
reads it back once judged); ``pool pseudo`` ranks the runs with pseudo-qrels made from the runs
alone and compares with the ranking under real qrels (:mod:`cranfield.judging.pseudo_qrels`).
``--budget`` counts judgments per topic, ``--budget-total`` over every topic, split evenly
(:func:`cranfield.judging.strategies.allocate_budget`: one judgment per topic per round, the
last round to the topics first in string order, what a small pool cannot use to the others).
``cranfield lab pool``
is another thing: the statistics of one depth-k pool (sizes, unique documents, judged@k,
leave-one-run-out); ``--pool-depth`` means the same in both.

Exit codes: 0 success, 1 usage error (bad option or value), 2 bad input (an unreadable run or
qrels file, a budget of 0 judgments per topic or in all, a stratum with no document).
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import (
    LIST_RULE,
    Parser,
    UsageError,
    add_format,
    add_measures,
    add_seed,
    positive_int,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

PROG: Final = "cranfield pool"


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield pool`` with ``argv`` (the arguments after ``pool``)."""
    return run_command(PROG, _parser, _run_command, argv, stdout=stdout, stderr=stderr)


def _run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.command == "next":
        return _next(args, out)
    if args.command == "sample":
        return _sample(args, out)
    if args.command == "pseudo":
        return _pseudo(args, out)
    return _simulate(args, out)


def add_judging_options(p: Parser, *, one: bool, section: bool = False) -> None:
    """``--strategy``, ``--budget``, ``--budget-total``, ``--pool-depth`` and ``--seed`` of
    ``pool next`` (``one`` strategy), ``pool simulate`` and, with ``section``, ``report``
    (where no ``--strategy`` means no judging section)."""
    from cranfield.judging.strategies import STRATEGIES

    if one:
        default = " (default mtf)"
    elif section:
        default = " (a list; adds a judging section: the strategies replayed with the qrels)"
    else:
        default = " (a list; default every one)"
    p.add_list_option(
        "--strategy",
        dest="strategies",
        choices=STRATEGIES,
        most=1 if one else None,
        metavar="NAME",
        help="the adjudication strategy: " + ", ".join(STRATEGIES) + default,
    )
    p.add_argument(
        "--budget",
        type=int,
        default=None,
        metavar="N",
        help="judgments per topic"
        + (" (default: until the pool is exhausted)" if one else " (default 100)"),
    )
    p.add_argument(
        "--budget-total",
        type=int,
        default=None,
        metavar="N",
        help="instead of --budget: judgments over every topic, split evenly (one per topic "
        "per round, the last round to the topics first in string order; what a small pool "
        "cannot use goes to the others)",
    )
    p.add_argument(
        "--pool-depth",
        type=positive_int,
        default=100,
        metavar="K",
        help="pool depth: each run's top K documents of a topic are pooled (default 100)",
    )
    if not section:  # the report has its own --seed, which the replay takes too
        add_seed(p, "the strategies' random choices")


def add_checkpoints(p: Parser) -> None:
    """``--checkpoints N,...``: where a simulation compares the runs' ranking."""
    p.add_list_option(
        "--checkpoints",
        dest="checkpoints",
        item=int,
        metavar="N",
        help="budgets where the runs' ranking is compared with the full qrels' "
        "(default ten points up to the budget; 0 for none)",
    )


def checkpoints_of(args: argparse.Namespace) -> list[int] | None:
    """``--checkpoints`` checked: ``None`` (the default ten), ``[]`` for ``0``, or budgets."""
    checkpoints: list[int] | None = args.checkpoints
    if checkpoints == [0]:
        return []
    if checkpoints is not None and any(c < 1 for c in checkpoints):
        raise UsageError(1, "--checkpoints takes budgets >= 1, or 0 alone for none.")
    return checkpoints


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description="Judging on a budget: which document to judge next, and how well each "
        "strategy spends a budget (cranfield lab pool: one depth-k pool's statistics).",
        epilog=LIST_RULE,
        out=out,
        err=err,
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(name: str, help_: str) -> Parser:
        sp: Parser = sub.add_parser(name, help=help_, description=help_, out=out, err=err)
        return sp

    nxt = add("next", "The next document to judge of every topic, given the judgments so far.")
    nxt.add_argument("runs", nargs="+", metavar="RUN", help="run files")
    nxt.add_argument("--judged", metavar="QRELS", help="the judgments made so far (qrels)")
    add_judging_options(nxt, one=True)

    sim = add("simulate", "Replay strategies with complete qrels as the assessor.")
    sim.add_argument("qrels", metavar="QRELS", help="complete judgments: the assessor")
    sim.add_argument("runs", nargs="+", metavar="RUN", help="run files")
    add_judging_options(sim, one=False)
    add_checkpoints(sim)
    add_measures(sim, ["AP"], one=True, help="the measure that ranks the runs")
    sim.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="also write the curves and the numbers as a self-contained HTML page",
    )
    sim.add_argument(
        "--plot",
        metavar="FILE",
        help="also draw the curves to this .png, .svg or .pdf file (needs the 'plot' extra)",
    )
    add_format(sim, ("table", "json"))

    smp = add("sample", "A stratified sample of the pool to judge (sample_eval.pl's qrels).")
    smp.add_argument("runs", nargs="+", metavar="RUN", help="run files")
    smp.add_argument(
        "--strata",
        metavar="FIRST-LAST:RATE,...",
        help="strata by a document's best rank and the share of each sampled, in (0, 1] "
        "(1-10:1,11-100:0.2,101-:0.05)",
    )
    smp.add_argument(
        "--sample-size",
        type=positive_int,
        metavar="N",
        help="instead of strata: N draws per topic from statAP's AP prior, written as prels",
    )
    smp.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="the design: topic 0 doc_id stratum -1 (not sampled) or -2 (to judge); with "
        "--sample-size, prels: topic doc_id -2 1 probability",
    )
    smp.add_argument(
        "--prels",
        metavar="FILE",
        help="also the sampled documents as prels with their inclusion probability",
    )
    smp.add_argument(
        "--pool-depth",
        type=positive_int,
        default=100,
        metavar="K",
        help="pool depth: each run's top K documents of a topic are pooled (default 100)",
    )
    add_seed(smp, "the draws")

    pse = add("pseudo", "Rank the runs with no judgments (pseudo-qrels), against real qrels.")
    pse.add_argument("qrels", metavar="QRELS", help="real judgments, for the comparison")
    pse.add_argument("runs", nargs="+", metavar="RUN", help="run files")
    from cranfield.judging.pseudo_qrels import METHODS

    pse.add_list_option(
        "--vote",
        dest="votes",
        choices=METHODS,
        metavar="NAME",
        help="how documents are voted relevant (a list; default every one): " + ", ".join(METHODS),
    )
    add_measures(pse, ["AP"], one=True, help="the measure that ranks the runs")
    pse.add_argument(
        "--pool-depth",
        type=positive_int,
        default=100,
        metavar="K",
        help="pool depth: each run's top K documents of a topic are pooled (default 100)",
    )
    add_seed(pse, "Soboroff et al.'s draws")
    add_format(pse, ("table", "json"))
    return p


def _pseudo(args: argparse.Namespace, out: TextIO) -> int:
    from cranfield.judging.pseudo_qrels import METHODS, pseudo_study

    study = pseudo_study(
        args.runs,
        args.qrels,
        args.votes or list(METHODS),
        measure=args.measures[0],
        pool_depth=args.pool_depth,
        seed=args.seed,
    )
    if args.format == "json":
        data = {"measure": study.measure, "tau": study.tau, "tau_ap": study.tau_ap}
        out.write(json.dumps({**data, "means": study.means}, indent=2) + "\n")
        return 0
    out.write(f"the runs' {study.measure} ranking under pseudo-qrels vs the qrels\n")
    out.write(f"{'method':<10} {'tau-b':>7} {'tau_AP':>7}\n")
    for m in study.methods:
        out.write(f"{m:<10} {study.tau[m]:>7.3f} {study.tau_ap[m]:>7.3f}\n")
    return 0


def _sample(args: argparse.Namespace, out: TextIO) -> int:
    from cranfield.io.sink import refuse_overwriting
    from cranfield.judging.sampling import stratified_sample

    for target, option in ((args.output, "output"), (args.prels, "prels")):
        if target is not None:
            refuse_overwriting(target, args.runs, option=option)
    if (args.strata is None) == (args.sample_size is None):
        raise UsageError(1, "give --strata or --sample-size, one of the two.")
    if args.sample_size is not None:
        from cranfield.judging.sampling import prior_sample

        drawn = prior_sample(
            args.runs, args.sample_size, pool_depth=args.pool_depth, seed=args.seed
        )
        drawn.write_prels(args.output)
        out.write(
            f"Wrote {drawn.sampled()} documents to judge to {args.output}: replace each -2 "
            f"with its judgment, then cranfield estimate statap {args.output} RUN.\n"
        )
        return 0
    sample = stratified_sample(args.runs, args.strata, pool_depth=args.pool_depth, seed=args.seed)
    sample.write_stratified(args.output)
    if args.prels is not None:
        sample.write_prels(args.prels)
    out.write("stratum        pooled  sampled\n")
    for name, (pooled, sampled) in sample.sizes().items():
        out.write(f"{name:<12} {pooled:>8} {sampled:>8}\n")
    out.write(
        f"Wrote the design to {args.output}: replace each -2 with its judgment, then "
        f"cranfield estimate inferred {args.output} RUN.\n"
    )
    return 0


def budgets(args: argparse.Namespace) -> tuple[int | None, int | None]:
    """``(--budget, --budget-total)`` checked: one of the two at most, each >= 1."""
    from cranfield.judging.strategies import check_budget, check_budget_total

    if args.budget is not None and args.budget_total is not None:
        raise UsageError(1, "give --budget (per topic) or --budget-total (in all), not both.")
    total = None if args.budget_total is None else check_budget_total(args.budget_total)
    return check_budget(args.budget), total


def _next(args: argparse.Namespace, out: TextIO) -> int:
    from cranfield.io.load import load_qrels
    from cranfield.judging.pools import run_lists
    from cranfield.judging.strategies import strategy
    from cranfield.report.judging import proposals_text

    name = (args.strategies or ["mtf"])[0]
    budget, total = budgets(args)
    judged = load_qrels(args.judged).to_dict() if args.judged else {}
    lists = run_lists(args.runs, pool_depth=args.pool_depth)
    policy = strategy(name, lists, budget=budget, budget_total=total, seed=args.seed)
    proposals: dict[str, list[str]] = {}
    for qid in sorted(lists.topics):
        doc = policy.propose(qid, {d: float(g) for d, g in judged.get(qid, {}).items()})
        if doc is not None:
            proposals[qid] = [doc]
    shares = getattr(policy, "shares", None) if total is not None else None
    out.write(proposals_text(name, proposals, budget_total=total, shares=shares))
    return 0


def _simulate(args: argparse.Namespace, out: TextIO) -> int:
    from cranfield.judging.simulation import simulate
    from cranfield.judging.strategies import STRATEGIES
    from cranfield.report.judging import simulation_text

    if args.plot is not None:
        from cranfield.cli.figures import check_figure

        check_figure(args.plot, [args.qrels, *args.runs], label="--plot")
    if args.output is not None:
        from cranfield.io.sink import refuse_overwriting

        refuse_overwriting(args.output, [args.qrels, *args.runs], option="output")
    checkpoints = checkpoints_of(args)
    if args.budget is None and args.budget_total is None:
        args.budget = 100
    budget, total = budgets(args)
    result = simulate(
        args.runs,
        args.qrels,
        args.strategies or list(STRATEGIES),
        budget=budget if budget is not None else 100,
        budget_total=total,
        pool_depth=args.pool_depth,
        seed=args.seed,
        measure=args.measures[0],
        checkpoints=checkpoints,
    )
    if args.format == "json":
        out.write(json.dumps(result.to_dict(), indent=2) + "\n")
    else:
        out.write(simulation_text(result))
    if args.plot is not None:
        from cranfield.cli.figures import save_figure
        from cranfield.report.plots import judging_curves

        save_figure(judging_curves(result), args.plot)
        if args.format != "json":
            out.write(f"Wrote the curves to {args.plot}.\n")
    if args.output is not None:
        from cranfield.cli.figures import write_page
        from cranfield.report.html import simulation_html

        write_page(args.output, simulation_html(result), out)
    return 0
