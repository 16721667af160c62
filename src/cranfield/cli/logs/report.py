"""``cranfield logs report LOG -o logs.html``: the HTML page of a click log.

CTR by rank, the click metrics, the click models fitted on the log (scored on ``--held-out``
when given) with their perplexity per rank, and with ``--simulate QRELS RUN_A RUN_B`` a simulated
interleaving experiment of two runs (:mod:`cranfield.report.logs_page`). One offline file, no
script; it is never written over one of its inputs.

Exit codes: 0 success, 1 usage error (a bad option, an output that is an input), 2 bad input
(an unreadable or malformed log, qrels or run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import (
    LIST_RULE,
    Parser,
    add_click_models,
    add_log_format,
    add_seed,
    deprecate,
)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield logs report"


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield logs report`` with ``argv`` (the arguments after ``report``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    from cranfield.report.logs_page import MODEL_NAMES

    p = Parser(
        prog=PROG,
        description=(
            "The HTML page of a click log: click metrics, CTR by rank, the click models' fit "
            "(perplexity per rank), and a simulated interleaving experiment of two runs."
        ),
        epilog=LIST_RULE,
        out=out,
        err=err,
    )
    p.add_argument(
        "log", metavar="LOG", help="the interaction log (WSCD text, JSONL, CSV, TSV, Parquet)"
    )
    p.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="the HTML file to write ('-': stdout)"
    )
    add_log_format(p)
    p.add_argument(
        "--held-out", metavar="LOG", help="held-out sessions to score the models on (default: LOG)"
    )
    add_click_models(
        p, f"the click models to fit: {', '.join(MODEL_NAMES)} (any case; default: all)"
    )
    p.add_argument("--no-models", action="store_true", help="fit no click model")
    p.add_argument(
        "--simulate",
        nargs=3,
        metavar=("QRELS", "RUN_A", "RUN_B"),
        help="add a simulated interleaving experiment of RUN_A and RUN_B (as 'cranfield logs "
        "simulate' with its defaults)",
    )
    add_seed(p, "the simulation and of the examination curve's bootstrap")
    p.add_argument("--title", help="heading of the page")
    deprecate(p, "--test", "--held-out")
    deprecate(p, "--models", "--model")
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.cli.figures import write_page
    from cranfield.io.click_logs import read_sessions
    from cranfield.io.sink import refuse_overwriting
    from cranfield.report.logs_page import MODEL_NAMES, logs_html

    held_out = args.held_out
    inputs = [args.log, *([held_out] if held_out else []), *(args.simulate or [])]
    refuse_overwriting(args.output, inputs, option="output")
    sessions = read_sessions(args.log, format=args.log_format)
    test = read_sessions(held_out, format=args.log_format) if held_out else None
    roles = [("log", args.log)] + ([("test", held_out)] if held_out else [])
    simulation = None
    users = "DBN, navigational user"
    if args.simulate:
        from cranfield.evaluation.evaluator import Evaluator
        from cranfield.io.run_names import file_names
        from cranfield.logs.simulation import simulate_interleaving

        qrels, run_a, run_b = args.simulate
        names = file_names([run_a, run_b]) if run_a != run_b else (file_names([run_a])[0],) * 2
        simulation, _ = simulate_interleaving(
            Evaluator(qrels, ["nDCG@10"]), run_a, run_b, names=(names[0], names[1]), seed=args.seed
        )
        roles += [("qrels", qrels), ("run A", run_a), ("run B", run_b)]
    models = () if args.no_models else tuple(args.model or MODEL_NAMES)
    page = logs_html(
        sessions,
        test=test,
        models=models,
        simulation=simulation,
        users=users,
        inputs=[(role, path) for role, path in roles if path != "-"],
        title=args.title,
        seed=args.seed,
    )
    write_page(args.output, page, out)
    return 0
