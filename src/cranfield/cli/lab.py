"""``cranfield lab``: experiments with real engines, pooling and cross-validation.

Sub-commands::

    cranfield lab init [PATH]
    cranfield lab run CONFIG [--workdir DIR] [--fresh] [--[no-]efficiency] [-f markdown]
                      [--jobs N | --scheduler ADDRESS] [--ship-index]
    cranfield lab pool RUN [RUN ...] [--pool-depth 100] [--qrels QRELS] [-m AP]
                       [--judged-k 10] [--export FILE --seed N] [-f json]
                       [--group GROUP RUN [RUN ...] ...]
    cranfield lab merge QRELS NEW -o OUT [--on-conflict error|new|old]
    cranfield lab folds QRELS --folds 5 --seed 0
    cranfield lab cv QRELS RUN RUN [...] [-m AP] [--folds 5] [--seed 0] [--fold-file FILE]

Exit codes: 0 success, 1 usage error (bad option or value, an engine's package not
installed), 2 bad input data (unreadable or malformed file, invalid configuration, a failing
engine), an output that cannot be written, or a work directory another ``lab run`` is using.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import (
    Parser,
    add_evaluation_options,
    add_format,
    add_measures,
    add_parallel_options,
    add_run_names,
    add_seed,
    deprecate,
    eval_options,
    parallel_options,
    positive_int,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

PROG: Final = "cranfield lab"


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield lab`` with ``argv`` (the arguments after ``lab``)."""
    return run_command(PROG, _parser, _run_command, argv, stdout=stdout, stderr=stderr)


def _run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.command == "init":
        return _init(args, out)
    if args.command == "run":
        return _run(args, out, err)
    if args.command == "pool":
        return _pool(args, out)
    if args.command == "merge":
        return _merge(args, out)
    if args.command == "folds":
        return _folds(args, out)
    return _cv(args, out)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description="Laboratory experiments: run engines on a collection and measure "
        "effectiveness and efficiency; build pools; cross-validate configurations.",
        out=out,
        err=err,
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(name: str, help_: str) -> Parser:
        sp: Parser = sub.add_parser(name, help=help_, description=help_, out=out, err=err)
        return sp

    init = add("init", "Write a configuration template that documents every key (TOML).")
    init.add_argument(
        "path",
        nargs="?",
        type=Path,
        metavar="PATH",
        default=Path("cranfield.toml"),
        help="the file to write, never over an existing one; - prints it (default: cranfield.toml)",
    )

    run = add("run", "Run the experiment a TOML file describes and write its report.")
    run.add_argument("config", type=Path, metavar="CONFIG", help="experiment description (TOML)")
    run.add_argument("--workdir", type=Path, help="override the work directory")
    run.add_argument(
        "--fresh", action="store_true", help="rebuild indexes and runs even if up to date"
    )
    run.add_argument(
        "--efficiency",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="measure latency and throughput, or not (--no-efficiency); "
        "default: as the configuration's 'efficiency' says (true if it says nothing)",
    )
    add_format(run, ("table", "markdown"))
    deprecate(run, "--markdown", "-f", value="markdown")
    run.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    add_parallel_options(run)
    run.add_argument(
        "--ship-index",
        action="store_true",
        help="with --jobs or --scheduler: send each index's files to the workers instead of its "
        "path (for workers that do not share the work directory's storage)",
    )

    pool = add("pool", "Depth-k pool of runs: sizes, unique contributions, judged@k, bias.")
    pool.add_argument("runs", nargs="+", metavar="RUN", help="run files")
    add_run_names(pool)
    pool.add_argument(
        "--pool-depth",
        type=positive_int,
        default=100,
        metavar="K",
        help="pool depth: each run's top K documents of a topic are pooled (default 100)",
    )
    pool.add_argument("--qrels", type=Path, help="judgments, for judged@k and leave-one-out")
    add_measures(pool, ["AP"], one=True, help="measure of the leave-one-run-out test")
    pool.add_argument(
        "--group",
        nargs="+",
        action="append",
        metavar=("GROUP", "RUN"),
        option="groups",
        help="leave this group of runs out together in the bias test (one team's runs): its "
        "name, then its runs' names; repeat for each group (a run in none is left out alone)",
    )
    pool.add_argument(
        "--judged-k", type=positive_int, default=10, metavar="K", help="k of judged@k (10)"
    )
    pool.add_argument(
        "--export", type=Path, metavar="FILE", help="write the pool for judging to this file"
    )
    add_seed(pool, "the export's shuffle")
    pool.add_argument(
        "--export-format",
        choices=["qrels", "tsv"],
        default="qrels",
        help="format of the --export file (qrels)",
    )
    add_format(
        pool,
        ("table", "json"),
        deprecated={"qrels": ("--export-format", "qrels"), "tsv": ("--export-format", "tsv")},
    )
    deprecate(pool, "--depth", "--pool-depth")
    deprecate(pool, "--json", "-f", value="json")
    add_parallel_options(pool)

    merge = add("merge", "Merge new judgments into qrels.")
    merge.add_argument("qrels", type=Path, metavar="QRELS", help="the judgments so far")
    merge.add_argument("new", type=Path, metavar="NEW", help="the new judgments")
    merge.add_argument(
        "-o", "--output", type=Path, required=True, metavar="FILE", help="the qrels to write"
    )
    merge.add_argument("--on-conflict", choices=["error", "new", "old"], default="error")

    folds = add("folds", "Print a seeded split of the judged topics into folds.")
    folds.add_argument("qrels", type=Path, metavar="QRELS", help="the judged topics' qrels")
    folds.add_argument(
        "-n", "--folds", dest="n_folds", type=positive_int, default=5, help="number of folds (5)"
    )
    add_seed(folds, "the split")

    cv = add("cv", "Cross-validated choice among runs: held-out score of the choice.")
    cv.add_argument("qrels", type=Path, metavar="QRELS", help="the judgments")
    cv.add_argument("runs", nargs="+", metavar="RUN", help="the runs to choose among")
    add_measures(cv, ["AP"], one=True, help="the measure the runs are chosen by")
    cv.add_argument(
        "-n", "--folds", dest="n_folds", type=positive_int, default=5, help="number of folds (5)"
    )
    add_seed(cv, "the split into folds")
    cv.add_argument(
        "--fold-file",
        type=Path,
        metavar="FILE",
        help="predefined folds instead of the seeded split: one fold per line, query ids "
        "separated by blanks after an optional label and a tab (what 'lab folds' prints)",
    )
    add_run_names(cv)
    add_evaluation_options(cv)
    add_parallel_options(cv)
    return p


def _init(args: argparse.Namespace, out: TextIO) -> int:
    import errno

    from cranfield.io.sink import write_text, writing
    from cranfield.lab.config_template import TEMPLATE

    if str(args.path) == "-":
        out.write(TEMPLATE)
        return 0
    if args.path.exists() or args.path.is_symlink():
        raise FileExistsError(
            errno.EEXIST, "exists; cranfield lab init writes a new file only", str(args.path)
        )
    with writing(args.path):
        write_text(args.path, TEMPLATE)
    out.write(f"wrote {args.path}; edit it, then: cranfield lab run {args.path}\n")
    return 0


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.lab.config import load_config
    from cranfield.lab.report import to_markdown, to_text

    def log(line: str) -> None:
        if not args.quiet:
            err.write(line + "\n")
            err.flush()

    given = {} if args.efficiency is None else {"efficiency": args.efficiency}
    exp = load_config(
        args.config,
        workdir=args.workdir,
        reuse=not args.fresh,
        log=log,
        **given,
        **parallel_options(args),
        ship_index=args.ship_index,
    )
    result = exp.run()
    out.write(to_markdown(result) if args.format == "markdown" else to_text(result))
    out.write(f"report: {result.report_path}\nfinished in {result.seconds:.1f} s\n")
    return 0


def _runs(args: argparse.Namespace) -> dict[str, Any]:
    """``{name: run}`` of the run files: loaded here once, or, when workers score them
    (``--jobs``, ``--scheduler``), named here and left for the workers to read."""
    from cranfield.lab.pooling import named_runs

    paths = [str(r) for r in args.runs]
    return named_runs(paths, args.names, jobs=args.jobs, scheduler=args.scheduler)


def _pool(args: argparse.Namespace, out: TextIO) -> int:
    from cranfield.lab.pooling import pool_study

    study = pool_study(
        args.runs,
        args.pool_depth,
        names=args.names,
        qrels=args.qrels,
        measure=args.measures[0],
        judged_k=args.judged_k,
        export=args.export,
        seed=args.seed,
        format=args.export_format,
        jobs=args.jobs,
        scheduler=args.scheduler,
        groups=_group_option(args.group),
    )
    if args.format == "json":
        out.write(study.to_json())
    else:
        from cranfield.lab.report import pool_study_text

        out.write(pool_study_text(study))
    return 0


def _group_option(given: list[list[str]] | None) -> dict[str, str] | None:
    """``--group NAME RUN [RUN ...]`` (repeated) as ``{run: group}``."""
    if given is None:
        return None
    from cranfield.cli.parser import UsageError

    groups: dict[str, str] = {}
    for name, *runs in given:
        if not runs:
            raise UsageError(
                1, f"--group {name} names no run: give the group's name, then its runs."
            )
        for run in runs:
            if run in groups:
                raise UsageError(1, f"run {run} is in two groups ({groups[run]} and {name}).")
            groups[run] = name
    return groups


def _merge(args: argparse.Namespace, out: TextIO) -> int:
    from cranfield.io.sink import writing
    from cranfield.io.trec import write_qrels
    from cranfield.lab.pooling import merge_judgments

    merged = merge_judgments(args.qrels, args.new, on_conflict=args.on_conflict)
    with writing(str(args.output)):
        write_qrels(merged, args.output)
    out.write(f"{len(merged):,} judgments written to {args.output}\n")
    return 0


def _folds(args: argparse.Namespace, out: TextIO) -> int:
    from cranfield.io.load import load_qrels
    from cranfield.lab.folds import kfold

    for i, fold in enumerate(kfold(load_qrels(args.qrels).topics, args.n_folds, seed=args.seed)):
        out.write(f"{i}\t{' '.join(fold)}\n")
    return 0


def _cv(args: argparse.Namespace, out: TextIO) -> int:
    from cranfield.errors import InputError, OptionError
    from cranfield.lab.folds import cross_validate, read_folds

    folds = None if args.fold_file is None else read_folds(args.fold_file)
    try:
        result = cross_validate(
            args.qrels,
            _runs(args),
            args.measures[0],
            n_folds=args.n_folds,
            seed=args.seed,
            folds=folds,
            options=eval_options(args),
            **parallel_options(args),
        )
    except OptionError as exc:
        if folds is None or exc.option != "folds":
            raise
        # the folds are a file's contents: a data problem naming the file (exit 2)
        raise InputError(str(args.fold_file), None, f"must hold {exc.expected}") from None
    out.write(result.to_text() + "\n")
    return 0
