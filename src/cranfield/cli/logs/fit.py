"""``cranfield logs fit TRAIN [--held-out LOG] [--model MODEL ...]``: click models fitted on one
log and scored on another.

Fits each model asked (default: all nine of :data:`cranfield.logs.fitted_click_model.MODELS`)
on TRAIN and prints, for the held-out log (for TRAIN itself, with a note, when none is given), the
log-likelihood, the perplexity, the conditional perplexity and the perplexity at each rank,
one row per model, the lowest perplexity first (:func:`cranfield.report.click_logs.
click_models_text`; ``--format json`` for every figure). The held-out log is put on TRAIN's
codes, so its unseen queries and documents get the prior. Every estimated ratio is smoothed
with ``--pseudo-counts A,B`` (default 1,1, PyClick's estimate; 0,0 the unsmoothed maximum
likelihood), and the definitions printed say which. ``--format json`` holds every fitted
parameter (per rank, per rank and previous click, per (query, document) pair with its ids,
PBM's propensities rank → examination relative to rank 1); ``--params FILE`` writes them as
one table (Parquet or CSV by the suffix). ``--write-qrels FILE`` writes one
model's estimated relevance as qrels (:func:`cranfield.logs.click_judgments.click_judgments`):
graded by ``--thresholds``, or as gains.

Exit codes: 0 success, 1 usage error (a bad option, an unknown model), 2 bad input data (an
unreadable log, a malformed session).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import (
    LIST_RULE,
    Parser,
    add_click_models,
    add_format,
    add_log_format,
    deprecate,
)
from cranfield.errors import OptionError

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from cranfield.logs.fitted_click_model import ClickModelComparison

PROG: Final = "cranfield logs fit"
FORMATS: Final = ("table", "json")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield logs fit`` with ``argv`` (the arguments after ``logs fit``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    from cranfield.logs.fitted_click_model import MODELS

    p = Parser(
        prog=PROG,
        description=(
            "Click models fitted on a training log and scored on a test log: log-likelihood, "
            "perplexity, conditional perplexity and perplexity per rank, one row per model, "
            "the lowest perplexity first. A result clicked twice counts once; a click on a "
            "document not shown is left out. --write-qrels writes a model's estimated "
            "relevance as judgments."
        ),
        epilog=LIST_RULE,
        out=out,
        err=err,
    )
    p.add_argument(
        "train",
        metavar="TRAIN",
        help="the training log (WSCD text, JSONL, CSV, TSV, Parquet; - for stdin)",
    )
    p.add_argument(
        "--held-out",
        metavar="LOG",
        help="the log to score the models on (default: TRAIN itself, which flatters the "
        "models with more parameters)",
    )
    add_click_models(p, f"the models, a list (default: all: {', '.join(MODELS)}; any case)")
    add_log_format(p)
    p.add_argument(
        "--prior",
        type=float,
        metavar="P",
        help="the value of a parameter with no data, and EM's start (0.5)",
    )
    p.add_list_option(
        "--pseudo-counts",
        dest="pseudo_counts",
        item=float,
        metavar="A,B",
        option="pseudo_counts",
        help="the successes and failures every estimated ratio starts with: (k + A) / (n + A + "
        "B); default 1,1 (a Beta(1, 1) prior's posterior mean, PyClick's estimate, so figures "
        "compare with published ones); 0,0 is the unsmoothed maximum likelihood (the former "
        "default), which estimates a pair never clicked at 0",
    )
    p.add_argument(
        "--gamma",
        type=float,
        metavar="G",
        help="DBN's continuation, fixed instead of fitted",
    )
    p.add_argument(
        "--max-iterations",
        type=int,
        metavar="N",
        help="the most EM iterations of PBM, UBM and DBN (100; they stop sooner once no "
        "parameter moves by more than 1e-6)",
    )
    p.add_argument(
        "--write-qrels",
        metavar="FILE",
        help="write the estimated relevance of the one model given with --model as qrels "
        "(the format by the suffix, TREC otherwise)",
    )
    p.add_argument(
        "--params",
        dest="params_file",
        metavar="FILE",
        help="write every fitted parameter of every model as a table, one row each (columns "
        "model, parameter, rank, previous_click, query_id, doc_id, value; PBM's propensities "
        "as the parameter 'propensity'): Parquet for a .parquet suffix, CSV for .csv",
    )
    p.add_list_option(
        "--thresholds",
        dest="thresholds",
        item=float,
        metavar="T",
        option="levels",
        help="with --write-qrels: grade thresholds, increasing in [0, 1]: a relevance >= the "
        "g-th is graded g (0.2,0.5,0.8 gives 0..3); default: the relevance as a decimal gain, "
        "which nDCG and its kin use as it is and binary measures see as level 0",
    )
    add_format(p, FORMATS)
    deprecate(p, "--test", "--held-out")
    deprecate(p, "-m", "--model")
    deprecate(p, "--qrels", "--write-qrels")
    deprecate(p, "--levels", "--thresholds")
    return p


def _options(args: argparse.Namespace) -> dict[str, object]:
    options: dict[str, object] = {}
    if args.prior is not None:
        options["prior"] = args.prior
    if args.pseudo_counts is not None:
        options["pseudo_counts"] = tuple(args.pseudo_counts)
    if args.gamma is not None:
        options["gamma"] = args.gamma
    if args.max_iterations is not None:
        options["max_iterations"] = args.max_iterations
    return options


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import json

    from cranfield.io.click_logs import read_sessions
    from cranfield.logs.click_judgments import check_levels, click_judgments
    from cranfield.logs.fitted_click_model import (
        MODELS,
        click_model_class,
        compare_click_models,
        model_options,
    )
    from cranfield.report.click_logs import click_models_text

    models = [click_model_class(m) for m in args.model] if args.model else None
    if args.thresholds is not None and args.write_qrels is None:
        raise OptionError("thresholds", "given with --write-qrels", args.thresholds)
    if args.write_qrels is not None:
        from cranfield.io.sink import refuse_overwriting

        if models is None or len(models) != 1:
            raise OptionError(
                "write_qrels",
                "given with one model (--model), whose estimated relevance it holds",
                args.write_qrels,
            )
        refuse_overwriting(args.write_qrels, [args.train, args.held_out], option="write_qrels")
        if args.thresholds is not None:
            check_levels(args.thresholds)
    options = _options(args)
    asked = list(MODELS.values()) if models is None else models
    for option, value in options.items():
        if not any(option in model_options(m) for m in asked):
            takers = [name for name, m in MODELS.items() if option in model_options(m)]
            raise OptionError(
                option, f"given with a model that takes it ({', '.join(takers)})", value
            )
    if args.params_file is not None:
        from cranfield.io.sink import refuse_overwriting

        _table_format(args.params_file)
        refuse_overwriting(args.params_file, [args.train, args.held_out], option="params_file")
    train = read_sessions(args.train, format=args.log_format)
    test = None if args.held_out is None else read_sessions(args.held_out, format=args.log_format)
    comparison = compare_click_models(train, test, models, **options)
    if args.write_qrels is not None:
        from cranfield.io.formats import format_of_suffix, write

        qrels = click_judgments(comparison.fits[0].fitted, levels=args.thresholds)
        write(qrels, args.write_qrels, format_of_suffix(args.write_qrels) or "trec")
    if args.params_file is not None:
        _write_params(comparison, args.params_file)
    if args.format == "json":
        out.write(json.dumps(comparison.to_dict(), indent=2, allow_nan=False) + "\n")
    else:
        out.write(click_models_text(comparison))
    return 0


def _table_format(path: str) -> str:
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if suffix not in ("parquet", "csv"):
        raise OptionError("params_file", "a file name ending in .parquet or .csv", path)
    return suffix


def _write_params(comparison: ClickModelComparison, path: str) -> None:
    import polars as pl

    from cranfield.io.sink import replacing, writing

    table = pl.concat([f.fitted.parameter_table() for f in comparison.fits])
    with writing(path), replacing(path) as tmp:
        if _table_format(path) == "parquet":
            table.write_parquet(tmp)
        else:
            table.write_csv(tmp)
