"""``cranfield logs interleave RUN_A RUN_B [RUN ...] (--qrels QRELS | --clicks LOG)``: two
runs interleaved (more multileaved) for users who click, and which run they prefer.

The runs' top ``--shown`` documents per query (by THE ranking rule) are interleaved
``--impressions-per-query`` times per query shared by both runs (``--method``: team-draft,
balanced or probabilistic interleaving; :mod:`cranfield.logs.interleaving`) and clicked by
simulated users (:func:`cranfield.logs.interleaving_experiment.interleaving_experiment`):

* ``--qrels QRELS``: users who click by the qrels grades (Hofmann et al.'s ``--user``, going
  down the list as ``--model`` dbn, cascade or pbm; :func:`cranfield.logs.simulation.
  graded_model`);
* ``--clicks LOG``: users who click as the click model ``--model`` (default DBN) fitted on a
  real click log does (:func:`cranfield.logs.fitted_click_model.fit_click_model`); a query or
  document the log lacks gets the model's prior.

Printed: the outcome (impressions A won, B won, tied), Δ_AB (the mean outcome over two, in
[-1/2, 1/2]; > 0 prefers A), the sign test of the queries A and B won and the bootstrap
interval of Δ_AB over queries (:func:`cranfield.logs.preference.preference`). With more
than two runs, all are multileaved by team-draft (:func:`cranfield.logs.interleaving_experiment.
multileaving_experiment`) and each pair gets the same figures from the clicks credited to
the two runs' teams.

Exit codes: 0 success, 1 usage error, 2 bad input (a run, the qrels or the log).
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
    add_format,
    add_seed,
)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from cranfield.logs.interleaving_experiment import ClickFunction

PROG: Final = "cranfield logs interleave"
FORMATS: Final = ("table", "json")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield logs interleave`` with ``argv`` (the arguments after ``interleave``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description=(
            "Interleave two runs for simulated users (clicking by the qrels grades, or as a "
            "click model fitted on a click log does) and report which run they prefer: the "
            "outcome, Δ_AB, its sign test and its interval."
        ),
        epilog=LIST_RULE,
        out=out,
        err=err,
    )
    p.add_argument("run_a", metavar="RUN_A", help="run A")
    p.add_argument("run_b", metavar="RUN_B", help="run B")
    p.add_argument(
        "more",
        metavar="RUN",
        nargs="*",
        help="more runs: all are multileaved (team-draft multileaving, Schuth et al. 2014) and "
        "each pair gets its preference",
    )
    p.add_argument("--qrels", help="users click by these grades (with --user, --model)")
    p.add_argument(
        "--clicks",
        metavar="LOG",
        help="users click as the click model --model (default DBN) fitted on this log does",
    )
    add_click_models(
        p,
        "with --qrels: how users go down the list, dbn (default), cascade or pbm; with --clicks: "
        "the click model fitted on the log (default DBN)",
    )
    p.add_argument(
        "--impressions-per-query",
        type=int,
        default=1000,
        option="impressions",
        metavar="M",
        help="impressions per query (1000)",
    )
    add_simulated_users(
        p,
        user_help="with --qrels: click and stop probabilities per grade (Hofmann et al. 2013); "
        "default navigational",
    )
    add_seed(p, "the interleavings, the clicks and the bootstrap")
    add_format(p, FORMATS)
    return p


def _users(args: argparse.Namespace, runs: dict[str, str]) -> tuple[ClickFunction, str]:
    """The click function and its description."""
    if args.model and len(args.model) > 1:
        raise UsageError(1, f"--model takes one model here, got {len(args.model)}.")
    model = args.model[0] if args.model else None
    if args.qrels is not None:
        from cranfield.evaluation.evaluator import Evaluator
        from cranfield.logs.simulation import MODELS, graded_model, run_rankings

        kind = (model or "dbn").lower()
        if kind not in MODELS:
            raise UsageError(1, f"--model with --qrels is one of {', '.join(MODELS)}, got {model}.")
        graded = run_rankings(Evaluator(args.qrels, ["nDCG@10"]), runs, depth=args.shown)
        clicks = graded_model(graded, model=kind, user=args.user)  # type: ignore[arg-type]
        return clicks, f"{kind} users, {args.user}, clicking by the grades of {args.qrels}"
    from cranfield.io.click_logs import read_sessions
    from cranfield.logs.fitted_click_model import fit_click_model
    from cranfield.logs.simulation import ModelClicks

    fitted = fit_click_model(model or "DBN", read_sessions(args.clicks))
    users = ModelClicks(fitted.model, fitted.query_ids, fitted.doc_ids)
    return users, f"{fitted.name} fitted on {args.clicks} ({fitted.sessions:,} sessions)"


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.data.ranking import ranked_doc_ids
    from cranfield.io.load import load_run
    from cranfield.io.run_names import file_names
    from cranfield.logs.interleaving_experiment import interleaving_experiment

    if (args.qrels is None) == (args.clicks is None):
        raise UsageError(1, "Give the users' clicks: either --qrels QRELS or --clicks LOG.")
    paths = [args.run_a, args.run_b, *args.more]
    if len(set(paths)) != len(paths):
        raise UsageError(1, "A run is given twice: interleave distinct runs.")
    names = file_names(paths)
    runs = dict(zip(names, paths, strict=True))
    clicks, users = _users(args, runs)
    if args.more:
        return _multileave(args, runs, clicks, users, out)
    a, b = (ranked_doc_ids(load_run(path), depth=args.shown) for path in runs.values())
    e = interleaving_experiment(
        a,
        b,
        clicks,
        method=args.method,
        impressions=args.impressions_per_query,
        depth=args.shown,
        seed=args.seed,
    )
    p = e.preference
    if args.format == "json":
        data = {
            "a": names[0],
            "b": names[1],
            "method": e.method,
            "users": users,
            "queries": len(e.query_ids),
            "left_out": list(e.left_out),
            "impressions_per_query": args.impressions_per_query,
            **p.to_dict(),
        }
        out.write(json.dumps(data, indent=2, allow_nan=False) + "\n")
        return 0
    lo, hi = p.interval
    verdict = "A" if lo > 0 else "B" if hi < 0 else "neither run (the interval holds 0)"
    out.write(
        f"A = {names[0]}, B = {names[1]}: {e.method} interleaving, {users}\n"
        f"{len(e.query_ids):,} queries x {args.impressions_per_query:,} impressions"
        + (f" ({len(e.left_out)} queries of one run only left out)" if e.left_out else "")
        + "\n"
        f"A won {p.wins:,}, B won {p.losses:,}, ties {p.ties:,}\n"
        f"Delta_AB {p.delta:+.4f}, {1 - p.alpha:.0%} bootstrap interval over queries "
        f"[{lo:+.4f}, {hi:+.4f}]; sign test over queries (A won {p.unit_wins}, B won "
        f"{p.unit_losses}) p = {p.p_value:.4g}\n"
        f"preferred: {verdict}\n"
        "Definitions: Delta_AB = mean outcome / 2 (an impression's outcome: 1 if A's team got "
        "more clicks, -1 if B's, 0 if tied), in [-1/2, 1/2]; > 0 prefers A\n"
    )
    return 0


def _multileave(
    args: argparse.Namespace,
    runs: dict[str, str],
    clicks: ClickFunction,
    users: str,
    out: TextIO,
) -> int:
    from cranfield.data.ranking import ranked_doc_ids
    from cranfield.io.load import load_run
    from cranfield.logs.interleaving_experiment import multileaving_experiment

    if args.method != "team-draft":
        raise UsageError(1, "More than two runs are multileaved by team-draft only (--method).")
    rankings = {n: ranked_doc_ids(load_run(p), depth=args.shown) for n, p in runs.items()}
    e = multileaving_experiment(
        rankings, clicks, impressions=args.impressions_per_query, depth=args.shown, seed=args.seed
    )
    if args.format == "json":
        data = {
            "runs": list(e.names),
            "method": "team-draft multileaving",
            "users": users,
            "queries": len(e.query_ids),
            "left_out": list(e.left_out),
            "impressions_per_query": args.impressions_per_query,
            "pairs": [{"a": a, "b": b, **p.to_dict()} for (a, b), p in e.preferences.items()],
        }
        out.write(json.dumps(data, indent=2, allow_nan=False) + "\n")
        return 0
    lines = [
        f"team-draft multileaving of {len(e.names)} runs, {users}",
        f"{len(e.query_ids):,} queries x {args.impressions_per_query:,} impressions",
        "",
        "A  B  Delta_AB  interval  p (sign test over queries)",
    ]
    for (a, b), p in e.preferences.items():
        lo, hi = p.interval
        lines.append(f"{a}  {b}  {p.delta:+.4f}  [{lo:+.4f}, {hi:+.4f}]  {p.p_value:.4g}")
    lines.append(
        "Definitions: an impression's outcome for A against B is the sign of the clicks "
        "credited to A's team minus B's; Delta_AB = mean outcome / 2; > 0 prefers A"
    )
    out.write("\n".join(lines) + "\n")
    return 0
