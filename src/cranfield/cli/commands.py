"""``cranfield evaluate`` and ``cranfield measures``.

Exit codes: 0 success, 1 usage error (bad option, unknown measure), 2 bad input data.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, TextIO

from cranfield.errors import CranfieldError, InputError, MeasureError, OptionError

if TYPE_CHECKING:
    pass

DEFAULT_MEASURES = ["AP", "nDCG@10", "P@10", "R@1000", "RR@10"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cranfield", description="Evaluate search and ranking systems."
    )
    sub = p.add_subparsers(dest="command", required=True)
    ev = sub.add_parser(
        "evaluate",
        help="evaluate one or more runs against judgments",
        description="Evaluate runs (TREC run files, Parquet) against qrels.",
    )
    ev.add_argument(
        "qrels", help="qrels file (TREC 'qid iter docno rel', optionally compressed) or Parquet"
    )
    ev.add_argument(
        "runs", nargs="+", help="run files (TREC 'qid iter docno rank score tag') or Parquet"
    )
    ev.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="extend",
        nargs="+",
        metavar="MEASURE",
        help=f"measures, e.g. nDCG@10 'P(rel=2)@5' map (default: {' '.join(DEFAULT_MEASURES)})",
    )
    ev.add_argument("-q", "--per-query", action="store_true", help="one row per run and query")
    ev.add_argument(
        "-f", "--format", choices=["table", "tsv", "csv", "json", "jsonl"], default="table"
    )
    ev.add_argument(
        "--missing",
        choices=["zero", "skip", "error"],
        default="zero",
        help="judged queries absent from a run: score 0 (default), leave out, or fail",
    )
    ev.add_argument(
        "-l",
        "--relevance-level",
        type=int,
        default=1,
        metavar="N",
        help="minimum judged level counted relevant (default 1)",
    )
    ev.add_argument(
        "-J", "--judged-only", action="store_true", help="drop unjudged documents first"
    )
    ev.add_argument(
        "-M", "--depth", type=int, metavar="K", help="evaluate only the top K documents"
    )
    ev.add_argument(
        "--float32", action="store_true", help="round scores to float32 (trec_eval 9 / NIST)"
    )
    ev.add_argument(
        "--stream",
        action="store_true",
        help="read each run in blocks of whole queries, in bounded memory (runs must be grouped "
        "by query)",
    )
    ev.add_argument(
        "--aggregate",
        choices=["mean", "sum", "gmean", "median", "micro"],
        help="how per-query values combine (default: each measure's own; micro needs set measures)",
    )
    ev.add_argument(
        "--epsilon", type=float, default=1e-5, help="floor of the geometric mean (gmean)"
    )
    ev.add_argument(
        "-N",
        "--num-docs",
        type=int,
        default=0,
        metavar="N",
        help="collection size (fallout, accuracy, utility's true negatives)",
    )
    ev.add_argument(
        "--known",
        metavar="QRELS",
        help="relevant documents known to the user (Coverage, Novelty, RelRecall, RecallEffect)",
    )
    ev.add_argument(
        "--intents",
        metavar="QRELS",
        help="subtopic judgments 'qid subtopic docno rel' for alpha_nDCG",
    )
    ms = sub.add_parser("measures", help="list every measure with its definition")
    ms.add_argument("names", nargs="*", help="show only these measures")
    sub.add_parser(
        "trec-eval", help="drop-in trec_eval (see 'cranfield trec-eval -h')", add_help=False
    )
    sub.add_parser(
        "compare",
        help="significance tests between runs (see 'cranfield compare -h')",
        add_help=False,
    )
    sub.add_parser(
        "plot", help="figures: PR, gain, differences (see 'cranfield plot -h')", add_help=False
    )
    sub.add_parser(
        "report", help="self-contained HTML report (see 'cranfield report -h')", add_help=False
    )
    sub.add_parser(
        "lab",
        help="experiments, efficiency, pooling, folds (see 'cranfield lab -h')",
        add_help=False,
    )
    return p


def main(argv: list[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 1
    try:
        if args.command == "measures":
            return _measures(args.names, out)
        return _evaluate(args, out, err)
    except OptionError as exc:
        err.write(f"cranfield: {exc.for_command_line()}\n")
        return 1
    except MeasureError as exc:
        err.write(f"cranfield: {exc}\n")
        return 1
    except (InputError, CranfieldError) as exc:
        err.write(f"cranfield: {exc}\n")
        return 2
    except ValueError as exc:  # invalid option values (e.g. a negative depth)
        err.write(f"cranfield: {exc}\n")
        return 1


def _evaluate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.evaluation.evaluator import Evaluator, resolve_measures
    from cranfield.evaluation.options import EvalOptions

    measures = resolve_measures(args.measures or DEFAULT_MEASURES)
    options = EvalOptions(
        missing=args.missing,
        relevance_level=args.relevance_level,
        judged_only=args.judged_only,
        depth=args.depth,
        float32=args.float32,
        num_docs=args.num_docs,
        aggregate=args.aggregate,
        epsilon=args.epsilon,
    )
    evaluator = Evaluator(args.qrels, measures, options, known=args.known, intents=args.intents)
    results = list(evaluator.each(args.runs, stream=args.stream))
    from cranfield.report.tables import render

    render(results, measures, fmt=args.format, per_query=args.per_query, out=out)
    notes = "".join(f"{r.run_name}: {r.policy_note()}\n" for r in results)
    (out if args.format == "table" else err).write(notes)
    return 0


def _measures(names: list[str], out: TextIO) -> int:
    from cranfield.measures._spec import all_specs, lookup

    specs = all_specs()
    if names:
        specs = []
        for n in names:
            spec = lookup(n)
            if spec is None:
                from cranfield.measures._parse import parse_measure

                spec = parse_measure(n).spec
            specs.append(spec)
    for spec in specs:
        out.write(f"{spec.name}")
        if spec.aliases:
            out.write(f"  (also: {', '.join(spec.aliases)})")
        out.write("\n")
        out.write(f"    {spec.summary}\n")
        out.write(f"    formula: {spec.formula}\n")
        at = {
            "cutoff": "@k optional",
            "cutoff_required": "@k required",
            "recall_required": "@recall-level required",
        }.get(spec.at)
        if at:
            out.write(f"    cutoff: {at}\n")
        for p in spec.params:
            out.write(f"    param {p.name} (default {p.default!r}): {p.doc}\n")
        agg = {
            "mean": "mean over queries",
            "sum": "sum over queries",
            "gmean": "geometric mean (clamped at 1e-5)",
        }[spec.aggregate]
        out.write(f"    aggregate: {agg}\n")
        if spec.trec:
            out.write(f"    trec_eval: {', '.join(form.name for form in spec.trec)}\n")
        if spec.notes:
            out.write(f"    notes: {spec.notes}\n")
        if spec.citation:
            out.write(f"    cite: {spec.citation}\n")
        out.write("\n")
    return 0


def dumps(obj: object) -> str:
    return json.dumps(obj, allow_nan=True)
