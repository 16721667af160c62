"""``cranfield trec-eval``: a drop-in replacement for NIST's ``trec_eval`` binary.

Same flags, same measure names and nicknames, same output byte for byte, same exit codes
(0 ok, 1 usage or unknown measure, 2 unreadable or malformed input, 4 evaluation failure,
7 no topic evaluated). ``--compat 9`` reproduces trec_eval 9.0.8.
"""

from __future__ import annotations

import getopt
import sys
from typing import TextIO

from cranfield.errors import EvaluationError, InputError, MeasureError

USAGE = """Usage: cranfield trec-eval [-h] [-q] [-m measure[.params]] [-c] [-n] [-l <num>]
       [-M <num>] [-J] [-N <num>] [-R qrels_format] [-Z zscores_file] [-v]
       [--compat 9|10] trec_rel_file trec_top_file

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


def main(argv: list[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run trec-eval with ``argv`` (without the program name); return the exit code."""
    from cranfield.compat.trec_eval import TrecEvalOptions, run

    out = stdout or sys.stdout
    err = stderr or sys.stderr
    compat = 10
    args = list(argv)
    if "--compat" in args:
        i = args.index("--compat")
        if i + 1 >= len(args) or args[i + 1] not in ("9", "10"):
            err.write("cranfield trec-eval: --compat takes 9 or 10\n")
            return 1
        compat = int(args[i + 1])
        del args[i : i + 2]
    try:
        opts, files = getopt.getopt(args, "hvqm:cl:nM:JN:R:T:Z:oD:", list(_LONG))
    except getopt.GetoptError as exc:
        err.write(f"cranfield trec-eval: {exc}\n{USAGE}")
        return 1
    o = TrecEvalOptions(qrels="", run="", compat=compat)  # type: ignore[arg-type]
    help_wanted = version_wanted = False
    try:
        for given, value in opts:
            flag = _SHORT.get(given, given)
            if flag == "-h":
                help_wanted = True
            elif flag == "-v":
                version_wanted = True
                err.write(
                    "trec_eval version 10.0-rc3 (cranfield)\n"
                    if compat == 10
                    else "trec_eval version 9.0.8 (cranfield)\n"
                )
            elif flag == "-q":
                o.per_query = True
            elif flag == "-m":
                o.measures.append(value)
            elif flag == "-c":
                o.complete = True
            elif flag == "-n":
                o.no_summary = True
            elif flag == "-J":
                o.judged_only = True
            elif flag == "-l":
                o.relevance_level = int(value)
            elif flag == "-M":
                o.depth = int(value)
            elif flag == "-N":
                o.num_docs = int(value)
            elif flag == "-R":
                if value not in ("qrels", "prefs", "qrels_prefs", "qrels_jg"):
                    err.write(f"cranfield trec-eval: unknown qrels format '{value}'\n")
                    return 1
                o.qrels_format = value  # type: ignore[assignment]
            elif flag == "-T":
                if value != "trec_results":
                    err.write(f"cranfield trec-eval: unknown results format '{value}'\n")
                    return 1
            elif flag == "-Z":
                o.zscores = value
            # -o (old output format) and -D (debug) are accepted and ignored.
    except ValueError as exc:
        err.write(f"cranfield trec-eval: bad numeric option ({exc})\n")
        return 1
    if help_wanted:
        return _help(o.measures, compat, out, err)
    if version_wanted:
        return 0  # as trec_eval: the version only, with or without files
    if len(files) != 2:
        err.write(USAGE)
        return 1
    o.qrels, o.run = files
    try:
        result = run(o)
    except MeasureError as exc:
        err.write(f"{exc}\n")
        return 1 if "illegal measure" in str(exc) else 2
    except InputError as exc:
        err.write(f"cranfield trec-eval: {exc}\n")
        return 4 if "duplicate document" in str(exc) else 2
    except EvaluationError as exc:
        err.write(f"{exc}\n")
        return 7 if "No queries" in str(exc) else 4
    for w in result.warnings:
        err.write(w + "\n")
    out.write(result.text)
    return 0


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
