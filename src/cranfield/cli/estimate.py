"""``cranfield estimate``: what a judged sample says about a run.

Sub-commands::

    cranfield estimate inferred QRELS RUN [-q] [--compat sample_eval] [-f table|json]
    cranfield estimate statap PRELS RUN [-q] [--compat statap] [-f table|json]

``inferred`` reads a stratified sample (``topic iteration doc_id stratum relevance``, -1 for
a document of the population not sampled) and prints xinfAP, infNDCG and the inferred
precisions in ``sample_eval.pl``'s layout; ``statap`` reads prels (``topic doc_id relevance
method probability``) and prints statAP, statRP, statPC@30, statNDCG and the variance of
statAP in ``statAP_MQ_eval_v3.pl``'s. ``--compat`` reproduces the script's numbers byte for
byte; without it the estimators are computed as published (:mod:`cranfield.judging.estimators`).

Exit codes: 0 success, 1 usage error, 2 bad input (an unreadable file, a line that is not
five fields, a probability outside (0, 1], a sampled document not judged yet).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import Parser, add_format

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield estimate"


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield estimate`` with ``argv`` (the arguments after ``estimate``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description="Estimates of a run's measures from a judged sample (xinfAP, statAP).",
        out=out,
        err=err,
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(name: str, help_: str, sample: str, compat: str) -> None:
        sp: Parser = sub.add_parser(name, help=help_, description=help_, out=out, err=err)
        sp.add_argument("sample", metavar=sample, help="the judged sample")
        sp.add_argument("run", metavar="RUN", help="the run")
        sp.add_argument(
            "-q", "--per-query", action="store_true", help="each topic's values as well"
        )
        sp.add_argument(
            "--compat",
            choices=(compat,),
            help=f"{compat}: the script's numbers and output, byte for byte "
            "(default: the estimators as published)",
        )
        add_format(sp, ("table", "json"))

    add(
        "inferred",
        "xinfAP, infNDCG and inferred precision from a stratified sample (sample_eval.pl).",
        "QRELS",
        "sample_eval",
    )
    add(
        "statap",
        "statAP, statRP, statPC@30, statNDCG and the variance of statAP from prels.",
        "PRELS",
        "statap",
    )
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.judging.estimators import inferred, statistical
    from cranfield.report.judging import sample_eval_text, statap_text

    if args.command == "inferred":
        est = inferred(args.sample, args.run, compat=args.compat)
        if args.format == "json":
            data: dict[str, Any] = {
                "compat": est.compat,
                "summary": est.summary,
                "notes": list(est.notes),
            }
            if args.per_query:
                data["per_query"] = est.per_topic
            out.write(json.dumps(data, indent=2) + "\n")
        else:
            out.write(sample_eval_text(est, per_query=args.per_query))
        return 0
    stat = statistical(args.sample, args.run, compat=args.compat)
    if args.format == "json":
        body: dict[str, Any] = {
            "compat": stat.compat,
            "valid_topics": stat.valid_topics,
            "summary": stat.summary,
        }
        if args.per_query:
            body["per_query"] = [vars(t) for t in stat.topics]
        body["notes"] = list(stat.notes)
        out.write(json.dumps(body, indent=2, default=str) + "\n")
    else:
        out.write(statap_text(stat, per_query=args.per_query))
    return 0
