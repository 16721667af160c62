"""``cranfield fuse RUN RUN [...] -o OUT [--method rrf] [--norm min-max] [--weights W ...]
[--param NAME=VALUE ...] [--stream | -j N | --scheduler ADDRESS] [--tune MEASURE --qrels
QRELS [-n K] [--optimistic]]``: runs fused into one (:func:`cranfield.fusion.fuse`; in blocks
of whole queries read in bounded memory with ``--stream``, or fused on workers with ``--jobs``
or ``--scheduler``: :mod:`cranfield.fusion.blocks`), or a method's weights and parameters
tuned on training folds and the held-out fused run written (:func:`cranfield.fusion.tune`). A
method that learns from qrels (``posfuse``, ...) trains on the ``--qrels`` of the other folds
for each fold's queries (:func:`cranfield.fusion.tuning.held_out_fuse`), or on every query
with ``--optimistic``, labelled so; it fuses here, whole (not with ``--stream``, ``--jobs`` or
``--scheduler``). Condorcet fuses each query on its own, so it streams and runs on workers as
every other method does.

Exit codes: 0 written, 1 usage error (an unknown method, ``--optimistic`` or ``--step``
without ``--tune``, ``--stream`` with ``--tune``, ``--jobs``, ``--names tag`` or an output
format other than TREC, a method that learns from qrels with ``--stream``, ``--jobs`` or
``--scheduler``), 2 bad input: weights that do not match the runs, a method parameter out of
its range, a method that learns from qrels without ``--qrels``, runs that cannot be read,
share no query or give a score method a score that is not finite (with ``--stream``: a run
not grouped by query in bytewise order), or an output that cannot be written.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Final, TextIO

from cranfield._types import FILE_FORMATS, FUSION_METHODS, FUSION_NORMALIZATIONS, RUN_NAMINGS
from cranfield.cli.exits import run_command
from cranfield.cli.parser import (
    Parser,
    UsageError,
    add_evaluation_options,
    add_parallel_options,
    add_run_names,
    add_seed,
    eval_options,
    parallel_options,
    positive_int,
)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator, Sequence

    from cranfield.data.run import Run
    from cranfield.fusion.blocks import FusionPlan

PROG: Final = "cranfield fuse"
_INTEGER_PARAMS: Final = frozenset({"k", "n_segments", "w"})
"""The method parameters that are integers (rrf's k, probfuse's n_segments, slidefuse's w)."""


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield fuse`` with ``argv`` (the arguments after ``fuse``)."""
    return run_command(PROG, _parser, _run_checked, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description="Fuse runs into one (CombSUM and its family, weighted sums, RRF, ISR, RBC, "
        "BordaFuse, Condorcet, and BayesFuse, PosFuse, ProbFuse, SegFuse, SlideFuse, MAPFuse, "
        "which learn from --qrels; ranx's methods and normalisations), or tune a method's "
        "weights and parameters on training folds and write the fused run of the held-out "
        "queries. A method that learns from qrels is trained, for each fold's queries, on the "
        "other folds' qrels only. Each run is ranked by score descending, ties by doc id "
        "descending; so is the fused run.",
        out=out,
        err=err,
    )
    p.add_argument("runs", nargs="+", metavar="RUN", help="two or more runs (any format)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="the fused run to write")
    p.add_argument(
        "--to",
        choices=FILE_FORMATS,
        metavar="FORMAT",
        help="the format to write (default: the one FILE's suffix names, else trec)",
    )
    p.add_argument(
        "--method",
        choices=FUSION_METHODS,
        default="rrf",
        help="the fusion method: " + ", ".join(FUSION_METHODS) + " (default rrf)",
    )
    p.add_argument(
        "--norm",
        choices=FUSION_NORMALIZATIONS,
        default="min-max",
        help="each run's per-query score normalisation before a score method: "
        + ", ".join(FUSION_NORMALIZATIONS)
        + " (default min-max)",
    )
    p.add_list_option(
        "--weights",
        dest="weights",
        item=float,
        metavar="W",
        help="one weight per run, in the order of the runs (weighted methods; default 1 each)",
    )
    p.add_list_option(
        "--param",
        dest="params",
        metavar="NAME=VALUE",
        help="a method parameter: k=60 (rrf), gamma=1 (gmnz), sigma=0.01 (logn_isr), phi=0.8 "
        "(rbc), n_segments=25 (probfuse), w=5 (slidefuse)",
    )
    p.add_argument(
        "--ranks",
        choices=("score", "input"),
        default="score",
        help="a run's ranking for the rank methods: by score (default, as ranx and trec_eval) "
        "or by the order of its lines (as pyserini's RRF reads the rank column)",
    )
    add_run_names(p)
    p.add_argument(
        "--tune",
        metavar="MEASURE",
        help="tune the weights and parameters on this measure on training folds and write "
        "the held-out fused run (needs --qrels)",
    )
    p.add_argument(
        "--qrels",
        help="the qrels to tune on, or to train a method that learns from qrels on (any "
        "format; trained on the other folds' queries for each fold)",
    )
    p.add_argument(
        "-n", "--folds", dest="n_folds", type=positive_int, default=5, help="number of folds (5)"
    )
    add_seed(p, "the folds")
    p.add_argument(
        "--fold-file",
        metavar="FILE",
        option="folds",
        help="the folds of 'cranfield lab folds' (a line per fold: NUMBER, a tab, its queries) "
        "instead of -n seeded folds",
    )
    p.add_argument(
        "--step",
        type=float,
        default=None,
        help="the step of the weight grid when tuning (default 0.1; weights sum to 1)",
    )
    p.add_argument(
        "--optimistic",
        action="store_true",
        help="tune on all queries and write that run (chosen and scored on the same queries: "
        "optimistic, and labelled so)",
    )
    p.add_argument(
        "-c",
        "--correction",
        default="holm",
        help="correction of the paired tests against each input run: none, bonferroni, holm "
        "(default), bh",
    )
    p.add_argument(
        "--stream",
        action="store_true",
        help="read each run in blocks of whole queries, in bounded memory (TREC runs grouped "
        "by query, queries in bytewise order; writes TREC text)",
    )
    add_parallel_options(p)
    add_evaluation_options(p)
    return p


def _params(given: list[str] | None) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in given or []:
        name, sep, value = item.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = None
        if not sep or not name or number is None:
            raise UsageError(1, f"--param takes NAME=VALUE with a number, got {item!r}.")
        whole = number.is_integer() and name.strip() in _INTEGER_PARAMS
        out[name.strip()] = int(number) if whole else number
    return out


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.io.source import digests_unread

    with digests_unread():  # nothing here prints or keys by the inputs' SHA-256
        return _fuse(args, out)


def _fuse(args: argparse.Namespace, out: TextIO) -> int:
    from cranfield.io.runset import RunSet

    if len(args.runs) < 2:
        raise UsageError(1, "give at least two runs to fuse.")
    trained = _trained_method(args)
    if (
        args.tune is None
        and not trained
        and (args.optimistic or args.step is not None or args.qrels or args.fold_file)
    ):
        raise UsageError(1, "--optimistic, --step, --fold-file and --qrels go with --tune MEASURE.")
    if trained and args.step is not None:
        raise UsageError(1, "--step is the weight grid's, and trained methods take no weights.")
    if args.tune is not None and args.qrels is None:
        raise UsageError(1, "--tune needs the qrels to tune on: --qrels QRELS.")
    params = _params(args.params)
    parallel = args.jobs != 1 or args.scheduler is not None
    if trained and (args.stream or parallel):
        raise UsageError(
            1,
            f"method '{args.method}' learns from the qrels of each fold's other folds, which "
            "needs the runs whole, here: leave out --stream, --jobs and --scheduler.",
        )
    if args.stream:
        return _streamed(args, params, out)
    if parallel and args.tune is not None:
        raise UsageError(1, "--tune fuses here: leave out --jobs and --scheduler.")
    run_set = RunSet.of(args.runs, args.names)
    runs = [run_set.load(i, format=args.run_format) for i in range(len(run_set))]
    if trained and args.tune is None:
        return _held_out(args, runs, params, out)
    if parallel:
        return _on_workers(args, runs, params, out)
    if args.tune is None:
        from cranfield.fusion.blocks import fuse_to_file

        names = [r.name for r in runs]
        # fused here, and TREC text written block by block while later blocks are fused
        lines, queries = fuse_to_file(runs, args.output, _plan(args, names, params), format=args.to)
        out.write(_said(args, lines, queries, names, ""))
        return 0
    return _tuned(args, runs, params, out)


def _plan(args: argparse.Namespace, names: Sequence[str], params: dict[str, float]) -> FusionPlan:
    from cranfield.fusion.blocks import FusionPlan

    return FusionPlan(
        tuple(names),
        args.method,
        args.norm,
        None if args.weights is None else tuple(args.weights),
        params,
        args.ranks,
    )


def _said(
    args: argparse.Namespace, lines: int, queries: int, names: Sequence[str], how: str
) -> str:
    return (
        f"{args.output}: {lines:,} line(s), {queries:,} quer{'y' if queries == 1 else 'ies'}, "
        f"fused from {', '.join(names)}{how}; fused by {args.method} (normalisation "
        f"{args.norm}); ties by doc id descending.\n"
    )


def _streamed(args: argparse.Namespace, params: dict[str, float], out: TextIO) -> int:
    from cranfield.evaluation.execution import DEFAULT_BLOCK_BYTES
    from cranfield.fusion.blocks import fuse_stream
    from cranfield.io.formats import COMPRESSION_SUFFIXES, format_of_suffix
    from cranfield.io.run_names import file_names

    if args.tune is not None:
        raise UsageError(1, "--tune reads the runs whole: leave out --stream.")
    if args.jobs != 1 or args.scheduler is not None:
        raise UsageError(1, "--stream fuses in this process: leave out --jobs and --scheduler.")
    if args.names != RUN_NAMINGS[0]:
        raise UsageError(1, "--stream names runs by their files: leave out --names tag.")
    if args.run_format not in (None, "trec"):
        raise UsageError(1, "--stream reads TREC runs: leave out --run-format or give trec.")
    written = args.to or format_of_suffix(args.output) or "trec"
    if written != "trec" or str(args.output).lower().endswith(COMPRESSION_SUFFIXES):
        raise UsageError(
            1, "--stream writes plain TREC text: name a TREC output (or give --to trec)."
        )
    names = file_names(list(args.runs))
    lines, queries = fuse_stream(
        args.runs, args.output, _plan(args, names, params), block_bytes=DEFAULT_BLOCK_BYTES
    )
    out.write(_said(args, lines, queries, names, ", streamed by blocks of whole queries"))
    return 0


def _on_workers(
    args: argparse.Namespace, runs: list[Run], params: dict[str, float], out: TextIO
) -> int:
    from cranfield.evaluation.execution import Execution
    from cranfield.fusion.blocks import fuse_to_file

    names = [r.name for r in runs]
    plan = _plan(args, names, params)  # bad weights or parameters before any worker starts
    execution = Execution(**parallel_options(args))
    engine = execution.engine()
    lines, queries = fuse_to_file(runs, args.output, plan, execution, format=args.to)
    out.write(_said(args, lines, queries, names, f", on {engine.describe()}"))
    return 0


def _tuned(args: argparse.Namespace, runs: list[Run], params: dict[str, float], out: TextIO) -> int:
    from cranfield.fusion.tuning import tune
    from cranfield.io.folds import read_folds
    from cranfield.io.load import save_run

    if args.weights or params:
        raise UsageError(
            1, "--tune chooses the weights and parameters: leave out --weights and --param."
        )
    result = tune(
        args.qrels,
        {r.name: r for r in runs},
        args.method,
        args.tune,
        norm=args.norm,
        n_folds=None if args.optimistic else args.n_folds,
        seed=args.seed,
        folds=None if args.fold_file is None or args.optimistic else read_folds(args.fold_file),
        step=0.1 if args.step is None else args.step,
        options=eval_options(args),
        correction=args.correction,
        ranks=args.ranks,
    )
    written = result.optimistic_run if result.run is None else result.run
    save_run(written, args.output, format=args.to)
    out.write(result.to_text() + "\n")
    what = (
        "fused with the setting best on all queries (optimistic)"
        if args.optimistic
        else "the held-out fused run (each fold's queries fused with the setting chosen "
        "without them)"
    )
    out.write(f"{args.output}: {len(written):,} line(s), {what}.\n")
    return 0


_INPUT_OPTIONS: Final = {"params": "--param", "weights": "--weights"}
"""The options whose bad values are bad input to the fusion (exit 2, as the issue asks):
weights that do not match the runs, a method parameter out of its range."""


@contextmanager
def _bad_input() -> Iterator[None]:
    """A method parameter or weights the runs cannot take: one sentence, exit 2."""
    from cranfield.errors import EvaluationError, OptionError

    try:
        yield
    except OptionError as exc:
        if exc.option not in _INPUT_OPTIONS:
            raise
        raise EvaluationError(exc.for_command_line(_INPUT_OPTIONS[exc.option])) from None


def _trained_method(args: argparse.Namespace) -> bool:
    """Whether ``--method`` learns from qrels; then ``--qrels`` is required (exit 2)."""
    from cranfield.fusion.methods import METHODS

    if not METHODS[args.method].trained:
        return False
    if args.qrels is None:
        raise UsageError(
            2,
            f"method '{args.method}' learns from qrels: give the qrels to train on with "
            "--qrels QRELS (it trains on the other folds' queries for each fold).",
        )
    return True


def _held_out(
    args: argparse.Namespace, runs: list[Run], params: dict[str, float], out: TextIO
) -> int:
    """A trained method without ``--tune``: each fold fused with what the runs learnt on the
    other folds (``--optimistic``: trained on every query, and said so)."""
    from cranfield.fusion.tuning import held_out_fuse
    from cranfield.io.folds import read_folds
    from cranfield.io.load import load_qrels, save_run

    options = eval_options(args)
    fused = held_out_fuse(
        load_qrels(args.qrels, format=options.qrels_format),
        {r.name: r for r in runs},
        args.method,
        norm=args.norm,
        params=params,
        ranks=args.ranks,
        n_folds=None if args.optimistic else args.n_folds,
        seed=args.seed,
        folds=None if args.fold_file is None or args.optimistic else read_folds(args.fold_file),
        relevance_level=options.relevance_level,
    )
    save_run(fused, args.output, format=args.to)
    folds = (
        f"the folds of {args.fold_file}"
        if args.fold_file
        else f"{args.n_folds} folds, seed {args.seed}"
    )
    what = (
        "trained on every judged query (optimistic on those: trained and scored on the same "
        "queries)"
        if args.optimistic
        else "each fold's queries fused with what the runs learnt on the qrels of the other "
        f"folds ({folds})"
    )
    out.write(
        f"{args.output}: {len(fused):,} line(s), {len(fused.topics):,} quer"
        f"{'y' if len(fused.topics) == 1 else 'ies'}, {args.method} from "
        f"{', '.join(r.name for r in runs)}: {what}; ties by doc id descending.\n"
    )
    return 0


def _run_checked(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """:func:`_run`, with weights and method parameters the runs cannot take as bad input."""
    with _bad_input():
        return _run(args, out, err)
