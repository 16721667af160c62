"""``cranfield trec-eval``: a drop-in replacement for NIST's ``trec_eval`` binary.

Same flags, same measure names and nicknames, same output byte for byte, same exit codes
(0 ok, 1 usage or unknown measure, 2 unreadable or malformed input, 4 evaluation failure,
7 no topic evaluated). ``--compat 9`` reproduces trec_eval 9.0.8.
"""

from __future__ import annotations

import getopt
import os
import sys
from typing import TYPE_CHECKING, Any, Final, TextIO

from cranfield.errors import EvaluationError, InputError, MeasureError, OptionError

if TYPE_CHECKING:
    from cranfield.compat.trec_eval import TrecEvalOptions, TrecEvalOutput

USAGE = """Usage: cranfield trec-eval [-h] [-q] [-m measure[.params]] [-c] [-n] [-l <num>]
       [-M <num>] [-J] [-N <num>] [-R qrels_format] [-Z zscores_file] [-v]
       [--compat 9|10] [--jobs N] [--scheduler ADDRESS]
       trec_rel_file trec_top_file [trec_top_file ...]

  -h, --help    print this help, then the documentation of every measure named with -m
                (-h -m map, -h -m official)
  -v, --version print the version on stderr and stop
  -q            print per-topic values as well as the summary ('all')
  -m measure    add a measure or nickname (official, all_trec, set, prefs, all_prefs,
                qrels_jg); parameters after a dot: -m P.5,10  -m ndcg.1=3,2=9
  -c            average over every judged topic; topics absent from the run score 0
                (without -c they are skipped with a warning on stderr)
  -n            no summary lines
  -l <num>      relevance level: judged values >= num are relevant (default 1)
  -M <num>      evaluate only the first num documents of each topic (after sorting)
  -J            judged documents only: drop unjudged documents before measuring
  -N <num>      number of documents in the collection (utility only; default 0)
  -R format     qrels format: qrels (default), prefs, qrels_prefs, qrels_jg
  -Z file       print z-scores against the means and sds of file (qid measure mean sd)
  --compat 9    trec_eval 9.0.8 semantics (float32 scores, trunc(p*R+0.9) recall
                cutoffs, no rbp/unj/dcg, missing topics not printed with -c)
  --jobs N      with several run files: N worker processes score them at once (0: every
                core; default 1); each run's output is printed as trec_eval prints it for
                that run alone, in the order the files are given, once every run is scored
  --scheduler ADDRESS  score the run files on the Dask cluster at ADDRESS (tcp://host:8786;
                default $CRANFIELD_SCHEDULER; needs the 'dask' extra)
trec_eval's long options work too (--measure map, --query_eval_wanted, ...).
Documents are ranked by score descending, ties by docno descending (bytewise); the rank
column is ignored. '-' as a file name reads standard input.
"""

# trec_eval's long options (getopt_long), each the same as a short one.
_LONG = {
    "help": "-h",
    "version": "-v",
    "query_eval_wanted": "-q",
    "measure=": "-m",
    "complete_rel_info_wanted": "-c",
    "level_for_rel=": "-l",
    "nosummary": "-n",
    "Debug_level=": "-D",
    "Judged_docs_only": "-J",
    "Number_docs_in_coll=": "-N",
    "Max_retrieved_per_topic=": "-M",
    "Rel_info_format=": "-R",
    "Results_format=": "-T",
    "Zscore=": "-Z",
}
_SHORT = {"--" + name.rstrip("="): short for name, short in _LONG.items()}


_SWITCHES: Final = {"-q": "per_query", "-c": "complete", "-n": "no_summary", "-J": "judged_only"}
_NUMBERS: Final = {"-l": "relevance_level", "-M": "depth", "-N": "num_docs"}


class _Refused(Exception):
    """A command line trec_eval refuses: the message to print, exit status 1."""


def main(argv: list[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run trec-eval with ``argv`` (without the program name); return the exit code."""
    from cranfield.compat.trec_eval import TrecEvalOptions

    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        compat, args = _compat(list(argv))
        args, parallel = _parallel(args)
        try:
            opts, files = getopt.getopt(args, "hvqm:cl:nM:JN:R:T:Z:oD:", list(_LONG))
        except getopt.GetoptError as exc:
            raise _Refused(f"cranfield trec-eval: {exc}\n{USAGE}") from None
        o = TrecEvalOptions(qrels="", run="", compat=compat)  # type: ignore[arg-type]
        wanted: set[str] = set()
        for given, value in opts:
            flag = _SHORT.get(given, given)
            if flag in ("-h", "-v"):
                wanted.add(flag)
                if flag == "-v":
                    err.write(f"trec_eval version {_VERSIONS[compat]} (cranfield)\n")
            else:
                _apply(o, flag, value)
    except _Refused as exc:
        err.write(str(exc))
        return 1
    if "-h" in wanted:
        return _help(o.measures, compat, out, err)
    if "-v" in wanted:
        return 0  # as trec_eval: the version only, with or without files
    if len(files) < 2:
        err.write(USAGE)
        return 1
    o.qrels, o.run = files[:2]
    from cranfield.io.source import digests_unread

    with digests_unread():  # trec_eval's output shows no provenance and keeps no store
        return _evaluate(o, files[1:], parallel, out, err)


_VERSIONS: Final = {10: "10.0-rc3", 9: "9.0.8"}


def _compat(args: list[str]) -> tuple[int, list[str]]:
    """The trec_eval version asked for with ``--compat`` (10 by default) and the other args."""
    if "--compat" not in args:
        return 10, args
    i = args.index("--compat")
    if i + 1 >= len(args) or args[i + 1] not in ("9", "10"):
        raise _Refused("cranfield trec-eval: --compat takes 9 or 10\n")
    return int(args[i + 1]), args[:i] + args[i + 2 :]


def _parallel(args: list[str]) -> tuple[list[str], dict[str, Any]]:
    """``--jobs N`` and ``--scheduler ADDRESS`` (options of cranfield's, not trec_eval's:
    taken out before trec_eval's own are read), as :func:`~cranfield.evaluation.engines.
    engine_for` takes them."""
    given: dict[str, Any] = {"jobs": 1, "scheduler": os.environ.get("CRANFIELD_SCHEDULER") or None}
    rest: list[str] = []
    words = iter(args)
    for word in words:
        flag, equals, value = word.partition("=")
        if flag not in ("--jobs", "--scheduler"):
            rest.append(word)
            continue
        if not equals:
            value = next(words, "")
            if not value:
                raise _Refused(f"cranfield trec-eval: {flag} takes a value\n{USAGE}")
        if flag == "--scheduler":
            given["scheduler"] = value
            continue
        try:
            given["jobs"] = int(value)
        except ValueError:
            raise _Refused(
                f"cranfield trec-eval: bad numeric option (--jobs {value!r})\n"
            ) from None
    return rest, given


def _apply(o: TrecEvalOptions, flag: str, value: str) -> None:
    """Set the option of one trec_eval flag on ``o``."""
    if flag in _SWITCHES:
        setattr(o, _SWITCHES[flag], True)
    elif flag in _NUMBERS:
        try:
            setattr(o, _NUMBERS[flag], int(value))
        except ValueError as exc:
            raise _Refused(f"cranfield trec-eval: bad numeric option ({exc})\n") from None
    elif flag == "-m":
        o.measures.append(value)
    elif flag == "-R":
        if value not in ("qrels", "prefs", "qrels_prefs", "qrels_jg"):
            raise _Refused(f"cranfield trec-eval: unknown qrels format '{value}'\n")
        o.qrels_format = value  # type: ignore[assignment]
    elif flag == "-T":
        if value != "trec_results":
            raise _Refused(f"cranfield trec-eval: unknown results format '{value}'\n")
    elif flag == "-Z":
        o.zscores = value
    # -o (old output format) and -D (debug) are accepted and ignored.


def _evaluate(
    o: TrecEvalOptions, runs: list[str], parallel: dict[str, Any], out: TextIO, err: TextIO
) -> int:
    """Evaluate as trec_eval would, each run in turn; its exit codes for the errors it would
    meet (the first run's to fail). Nothing is printed unless every run was scored."""
    try:
        results = _outputs(o, runs, parallel)
    except OptionError as exc:
        flag = {
            "depth": "-M",
            "relevance_level": "-l",
            "num_docs": "-N",
            "jobs": "--jobs",
            "scheduler": "--scheduler",
        }.get(exc.option)
        err.write(f"cranfield trec-eval: {exc.for_command_line(flag)}\n")
        return 1
    except MeasureError as exc:
        err.write(f"{exc}\n")
        return 1 if "illegal measure" in str(exc) else 2
    except InputError as exc:
        err.write(f"cranfield trec-eval: {exc}\n")
        return 4 if "duplicate document" in str(exc) else 2
    except EvaluationError as exc:
        err.write(f"{exc}\n")
        return 7 if "No queries" in str(exc) else 4
    for result in results:
        for w in result.warnings:
            err.write(w + "\n")
        out.write(result.text)
    return 0


def _outputs(o: TrecEvalOptions, runs: list[str], parallel: dict[str, Any]) -> list[TrecEvalOutput]:
    """Each run's output, in order: here, or by the engine ``--jobs`` and ``--scheduler`` pick
    (sent the qrels read once); a run on standard input is scored here, a worker having a
    standard input of its own."""
    from cranfield.compat.trec_eval import TrecEval, output_of
    from cranfield.evaluation.engines import InProcess, engine_for

    engine = engine_for(**parallel)
    bound = TrecEval(o)
    files = [run for run in runs if run != "-"]
    if isinstance(engine, InProcess) or not files:
        return [bound.output(run) for run in runs]
    scored = iter(engine.map(output_of, bound.prepare(), files))
    return [bound.output(run) if run == "-" else next(scored) for run in runs]


def _help(measures: list[str], compat: int, out: TextIO, err: TextIO) -> int:
    """``-h``: the usage, then the documentation of the measures named with ``-m``.

    As trec_eval: nicknames expand, measures come in trec_eval's order, an unknown measure
    is an error (exit 1), and without ``-m`` the help says how to ask for a measure.
    """
    from cranfield.compat.trec_eval import select
    from cranfield.measures.trec_names import describe

    try:
        names = [name for name, _ in select(measures, compat=compat)] if measures else []
    except MeasureError as exc:
        err.write(f"{exc}\n")
        return 1
    out.write(USAGE)
    out.write("\nIndividual measure documentation for requested measures\n")
    if not names:
        out.write(
            "-- No measures indicated.\n"
            "   Request measure documentation using <-m measure> on command line\n"
            "   (for instance: cranfield trec-eval -h -m map, or -h -m all_trec for all).\n"
        )
    for name in names:
        out.write(describe(name))
    return 0
