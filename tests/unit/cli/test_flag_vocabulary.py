"""One meaning per flag across every ``cranfield`` command (issue 29, part 2).

Every leaf command's parser is built (the command table of :mod:`cranfield.cli.commands`,
the sub-commands of ``lab`` and ``plot`` and the table of ``logs``) and each of its options
read: its spellings, ``dest``, action, ``nargs``, type and metavar. :data:`VOCABULARY` is the
canonical table: every flag with its short form, the ``dest`` its value lands in and what it
means. The test fails when

* a command has a flag the table does not know (a new flag gets its meaning written here,
  where a reviewer sees every other flag's meaning beside it),
* a command spells a flag of the table otherwise (``--per-query`` without ``-q``, ``--seed``
  without ``-s``) or stores it elsewhere (another ``dest`` is another meaning),
* one flag takes its value in two shapes (a switch here, a list there; an integer ``K`` here, an
  integer of another metavar there: ``--depth``'s evaluation depth against a pool's depth),
* an entry of the table is used by no command.

There is no allow-list: the only hidden spellings are the deprecated ones, which each command
registers (:func:`cranfield.cli.parser.deprecate`); each still parses to what its replacement
parses to, with one note on stderr.

``cranfield trec-eval`` is not an ``argparse`` command: its command line is trec_eval's own
(getopt, byte for byte). Where cranfield's commands have an option trec_eval has too, they spell
it as trec_eval does (``-q -m -l -M -J -N``); trec_eval's other letters (``-c`` complete,
``-n`` no summary) are trec_eval's, kept as they are.
"""

from __future__ import annotations

import argparse
import importlib
import io
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import NamedTuple, TextIO

import pytest

from cranfield.cli.commands import COMMANDS
from cranfield.cli.exits import EXIT_CODES, FINDINGS, exit_codes_text
from cranfield.cli.judge import JUDGE_COMMANDS
from cranfield.cli.judges import JUDGES_COMMANDS
from cranfield.cli.logs import LOGS_COMMANDS
from cranfield.cli.parser import SEED, Deprecation, Parser, UsageError

MakeParser = Callable[[TextIO, TextIO], Parser]


class Flag(NamedTuple):
    """A flag's other spellings (its short form), the ``dest`` of its value, its meaning."""

    also: tuple[str, ...]
    dest: str
    meaning: str


VOCABULARY: dict[str, Flag] = {
    # what is evaluated, and how (the evaluation options: cli/parser.add_evaluation_options)
    "--measure": Flag(("-m",), "measures", "measures (a list; one where a command takes one)"),
    "--missing": Flag((), "missing", "judged queries a run does not answer: zero, skip, error"),
    "--relevance-level": Flag(("-l",), "relevance_level", "lowest judged level counted relevant"),
    "--judged-only": Flag(("-J",), "judged_only", "drop unjudged documents before scoring"),
    "--depth": Flag(("-M",), "depth", "evaluation depth: documents kept per query (trec_eval -M)"),
    "--float32": Flag((), "float32", "round scores to float32 first"),
    "--aggregate": Flag((), "aggregate", "how per-query values are combined"),
    "--epsilon": Flag((), "epsilon", "floor of the geometric mean"),
    "--duplicates": Flag((), "duplicates", "a document judged on several qrels lines"),
    "--ignore-self": Flag((), "ignore_self", "drop run documents whose id is the query id"),
    "--qrels-format": Flag((), "qrels_format", "the qrels file's format"),
    "--run-format": Flag((), "run_format", "the run files' format"),
    "--num-docs": Flag(("-N",), "num_docs", "collection size"),
    "--strict": Flag((), "strict", "a warning fails the command (check: a finding, exit 3)"),
    "--known": Flag((), "known", "qrels of documents known to the user"),
    "--intents": Flag((), "intents", "subtopic judgments"),
    "--names": Flag((), "names", "how runs are named: file name or run tag"),
    "--stream": Flag((), "stream", "read a run in blocks of whole queries"),
    "--jobs": Flag(("-j",), "jobs", "worker processes"),
    "--scheduler": Flag((), "scheduler", "a Dask cluster's address"),
    "--store": Flag((), "store", "folder of results kept between evaluations"),
    "--quiet": Flag((), "quiet", "no progress on stderr"),
    # output
    "--format": Flag(("-f",), "format", "output format (table, json, ... per command)"),
    "--output": Flag(("-o",), "output", "the file written"),
    "--per-query": Flag(("-q",), "per_query", "show (or keep) every query's values as well"),
    "--title": Flag((), "title", "heading of a page or figure"),
    "--plot": Flag((), "plot", "also draw a figure to this file"),
    # which queries, which cutoffs
    "--query": Flag((), "queries", "query ids (a list; one where a command takes one)"),
    "--every-query": Flag((), "every_query", "list every query"),
    "--cutoffs": Flag(("-k",), "cutoffs", "cutoffs k of the measures (@k), a list"),
    "--top": Flag((), "top", "how many largest wins and losses"),
    "--top-k": Flag((), "k", "top K of run B where unjudged documents are looked for"),
    "--judged-k": Flag((), "judged_k", "k of judged@k"),
    "--max-rank": Flag((), "max_rank", "last rank k of a curve"),
    # significance tests and resampling (cli/parser.add_test_options, add_resampling_options)
    "--test": Flag(("-t",), "tests", "significance tests"),
    "--correction": Flag(("-c",), "correction", "multiple-comparison correction"),
    "--baseline": Flag(("-b",), "baseline", "the run every other is compared with"),
    "--alpha": Flag(("-a",), "alpha", "significance level (1 - an interval's confidence)"),
    "--resamples": Flag(("-B",), "n_resamples", "resamples of a random procedure"),
    "--seed": Flag(("-s",), "seed", "seed of the random procedures (default 0)"),
    "--trials": Flag((), "trials", "repetitions of a random experiment"),
    "--ci": Flag((), "intervals", "kinds of confidence interval"),
    "--risk-aversion": Flag((), "risk_aversion", "URisk's weight on losses"),
    "--details": Flag(("-d",), "details", "one row per pair in the table"),
    "--differences": Flag((), "differences", "print per-query differences of two runs"),
    "--diff": Flag((), "diff", "add a run diff section for two runs"),
    # rankings compared
    "--rbo-p": Flag((), "p", "RBO's persistence"),
    "--rbo-depth": Flag((), "rbo_depth", "depth at which RBO cuts the rankings"),
    "--qrels-b": Flag((), "qrels_b", "a second qrels file"),
    "--runs": Flag((), "runs", "runs ranked under each qrels"),
    "--original": Flag((), "original", "the original runs"),
    "--reproduced": Flag((), "reproduced", "their reproductions"),
    "--reproduced-qrels": Flag((), "reproduced_qrels", "qrels of a replication"),
    # power
    "--difference": Flag((), "min_d", "minimum difference to detect (topic-set size)"),
    "--beta": Flag((), "beta", "type II error rate"),
    # reports and figures
    "--no-curves": Flag((), "no_curves", "leave out the curves"),
    "--rule": Flag((), "rule", "interpolation of precision-recall"),
    "--page-size": Flag((), "page_size", "rows per page"),
    "--size": Flag((), "size", "figure size in inches"),
    "--dpi": Flag((), "dpi", "resolution of .png figures"),
    "--levels": Flag((), "levels", "recall levels of a precision-recall curve"),
    "--gain": Flag((), "gain", "which gain curve: ndcg, dcg, ncg, cg"),
    "--normalise": Flag((), "normalise", "how normalised gains are averaged"),
    "--no-ideal": Flag((), "no_ideal", "leave out the ideal curve"),
    "--sort": Flag((), "sort", "order of the difference bars"),
    "--chart": Flag((), "chart", "box plots, strip plots or both"),
    "--no-interpolation": Flag((), "no_interpolation", "join the points in rank order"),
    # files in and out
    "--qrels": Flag((), "qrels", "qrels to check or judge against (an input)"),
    "--kind": Flag((), "kind", "what a file holds: run or qrels"),
    "--to": Flag((), "to", "the format to write"),
    "--from": Flag((), "source_format", "the format read"),
    # the lab
    "--workdir": Flag((), "workdir", "the lab's work directory"),
    "--fresh": Flag((), "fresh", "rebuild instead of reusing"),
    "--efficiency": Flag(("--no-efficiency",), "efficiency", "measure latency and throughput"),
    "--ship-index": Flag((), "ship_index", "send index files to the workers"),
    "--pool-depth": Flag((), "pool_depth", "pool depth: each run's top K pooled"),
    "--export": Flag((), "export", "write the pool for judging to this file"),
    "--export-format": Flag((), "export_format", "format of the --export file"),
    "--on-conflict": Flag((), "on_conflict", "which judgment wins a conflict"),
    # judging on a budget
    "--strategy": Flag((), "strategies", "adjudication strategies (a list; one where one)"),
    "--budget": Flag((), "budget", "judgments per topic"),
    "--budget-total": Flag((), "budget_total", "judgments over every topic, split evenly"),
    "--judged": Flag((), "judged", "the judgments made so far (qrels)"),
    "--checkpoints": Flag((), "checkpoints", "budgets where the ranking is compared"),
    "--strata": Flag((), "strata", "strata of a sample by best rank, with their rates"),
    "--prels": Flag((), "prels", "also write the sample as prels (an output)"),
    "--compat": Flag((), "compat", "a reference program's numbers and output, byte for byte"),
    "--sample-size": Flag((), "sample_size", "draws per topic from statAP's AP prior"),
    "--vote": Flag((), "votes", "how runs vote documents relevant without judgments (a list)"),
    "--rank-order": Flag((), "rank_order", "order a run by score (trec_eval) or rank (ndeval)"),
    "--folds": Flag(("-n",), "n_folds", "number of folds"),
    "--group": Flag((), "group", "a group of runs left out together"),
    # interaction logs
    "--log-format": Flag((), "log_format", "the logs' format"),
    "--by": Flag((), "by", "values per query or per bucket"),
    "--dwell": Flag((), "dwell", "dwell time of a satisfied click"),
    "--metric": Flag((), "metric", "the per-session metric of an A/B test"),
    "--bucket": Flag((), "buckets", "the bucket's column"),
    "--unit": Flag((), "units", "the unit of randomisation's column"),
    "--denominator": Flag((), "denominators", "a ratio metric's denominator column"),
    "--control": Flag((), "control", "the control bucket"),
    "--mde": Flag((), "mde", "differences to detect, in the metric's units"),
    "--power": Flag((), "power", "statistical power for --mde"),
    "--held-out": Flag((), "held_out", "held-out log the models are scored on"),
    "--model": Flag((), "model", "click models (a list; one where a command takes one)"),
    "--no-models": Flag((), "no_models", "fit no click model"),
    "--prior": Flag((), "prior", "a click model's parameter without data"),
    "--pseudo-counts": Flag((), "pseudo_counts", "a click model's smoothing: A,B pseudo-counts"),
    "--gamma": Flag((), "gamma", "DBN's continuation"),
    "--max-iterations": Flag((), "max_iterations", "most EM iterations"),
    "--params": Flag((), "params_file", "write the fitted parameters as a table (an output)"),
    "--write-qrels": Flag((), "write_qrels", "write a model's relevance as qrels (an output)"),
    "--thresholds": Flag((), "thresholds", "grade thresholds of click relevance"),
    "--simulate": Flag((), "simulate", "add a simulated interleaving experiment"),
    "--clicks": Flag((), "clicks", "a click log the simulated users' click model is fitted on"),
    "--user": Flag((), "user", "the simulated users' click probabilities"),
    "--impressions": Flag((), "sizes", "experiment sizes N, in impressions"),
    "--impressions-per-query": Flag((), "impressions_per_query", "impressions simulated a query"),
    "--method": Flag((), "method", "the method: of interleaving (logs), of fusion (fuse)"),
    # fusion
    "--norm": Flag((), "norm", "a run's per-query score normalisation before fusion"),
    "--weights": Flag((), "weights", "one weight per run (a list)"),
    "--param": Flag((), "params", "a method parameter NAME=VALUE (a list)"),
    "--ranks": Flag((), "ranks", "a run's ranking: by score or by line order"),
    "--tune": Flag((), "tune", "the measure a fusion is tuned on"),
    "--step": Flag((), "step", "the step of a weight grid"),
    "--optimistic": Flag((), "optimistic", "tune on all queries (labelled optimistic)"),
    "--fold-file": Flag((), "fold_file", "predefined folds, one per line: the file of 'lab folds'"),
    "--shown": Flag((), "shown", "results shown per impression"),
    "--ab": Flag((), "ab_users", "simulate an A/B test of this many users a bucket"),
    "--sessions": Flag((), "sessions", "sessions per simulated user"),
    "--overall-only": Flag((), "overall_only", "leave out the table per query"),
    # many judges
    "--aggregation": Flag((), "aggregation", "how the labels of a pair become one"),
    "--gold": Flag((), "gold", "qrels of pairs whose label is known (scores workers)"),
    "--scale": Flag(
        (), "scale", "the grades allowed (judges: LOW-HIGH; judge init: with their words)"
    ),
    "--out-of-scale": Flag((), "out_of_scale", "a label outside the scale: error or skip"),
    "--top-systems": Flag((), "top_systems", "the humans' K best runs, compared again"),
    "--url": Flag((), "url", "the base URL of an OpenAI-compatible API"),
    "--llm": Flag((), "llm", "the language model's name at the endpoint"),
    "--queries": Flag((), "queries_file", "a file of query texts"),
    "--passages": Flag((), "passages", "a file of passage texts"),
    "--all-pairs": Flag((), "all_pairs", "ask about judged pool pairs too"),
    "--pairs": Flag((), "pairs", "a qrels-format file of the pairs to ask about"),
    "--probe": Flag((), "probe", "the keyword-stuffing probe"),
    "--prompt": Flag((), "prompt", "a prompt template: a shipped name or a file"),
    "--cache": Flag((), "cache", "folder of kept answers"),
    "--answers": Flag((), "answers", "write every answer received (an output)"),
    "--concurrency": Flag((), "concurrency", "requests under way at once"),
    "--rate": Flag((), "rate", "most requests started a second"),
    "--retries": Flag((), "retries", "retries of a 429, 5xx or time-out"),
    "--backoff": Flag((), "backoff", "first wait before a retry, doubling"),
    "--timeout": Flag((), "timeout", "one request's time limit"),
    "--api-key-env": Flag((), "api_key_env", "environment variable holding the API key"),
    "--temperature": Flag((), "temperature", "the model's sampling temperature"),
    "--max-tokens": Flag((), "max_tokens", "the longest answer, in tokens"),
    "--price": Flag((), "price", "prices per million prompt and completion tokens"),
    # the judging workbench
    "--pool": Flag((), "pool", "the runs pooled for judging"),
    "--topics": Flag((), "topics", "the topics (a file or an ir_datasets id) shown to assessors"),
    "--docs": Flag((), "docs", "the documents file shown to assessors"),
    "--grades": Flag((), "grades", "the graded scale of a judging project, with its words"),
    "--db": Flag((), "db", "a judging project's database URL"),
    "--host": Flag((), "host", "the address a server listens on"),
    "--port": Flag((), "port", "the port a server listens on (0: a free one)"),
    "--role": Flag((), "role", "an assessor's role: assessor or organiser"),
    "--invite": Flag((), "invite", "a one-time invitation link instead of a password"),
    "--site": Flag((), "site", "a judging workbench's address as assessors' browsers reach it"),
    "--expires": Flag((), "expires", "hours until an invitation link expires"),
    "--per-assessor": Flag((), "per_assessor", "a folder for each assessor's own qrels"),
    "--reveal-assessors": Flag((), "reveal_assessors", "assessors by name, not anonymised"),
}
"""Every flag of every command, by its long spelling: the one vocabulary of the command line."""


# --------------------------------------------------------------------------- the leaf commands


def _sub_parsers(p: Parser) -> dict[str, Parser]:
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


_PACKAGES = {"logs": LOGS_COMMANDS, "judges": JUDGES_COMMANDS, "judge": JUDGE_COMMANDS}


def _leaf_makers() -> Iterator[tuple[str, MakeParser]]:
    """Each leaf command's name (``lab pool``) and a maker of its parser (a fresh one each
    time: a parser notes each deprecated spelling once)."""
    sink = io.StringIO()
    for command in COMMANDS:
        if command.name == "trec-eval":  # getopt: trec_eval's own command line, checked below
            continue
        if command.name in _PACKAGES:  # a command package: its own table of sub-commands
            for sub in _PACKAGES[command.name]:
                sub_make: MakeParser = importlib.import_module(sub.module)._parser
                nested = _sub_parsers(sub_make(sink, sink))
                if not nested:
                    yield f"{command.name} {sub.name}", sub_make
                for name in nested:
                    yield f"{command.name} {sub.name} {name}", _sub_maker(sub_make, name)
            continue
        make: MakeParser = importlib.import_module(command.module)._parser
        subs = _sub_parsers(make(sink, sink))
        if not subs:
            yield command.name, make
        for name in subs:
            yield f"{command.name} {name}", _sub_maker(make, name)


def _sub_maker(make: MakeParser, name: str) -> MakeParser:
    return lambda out, err: _sub_parsers(make(out, err))[name]


LEAVES = dict(_leaf_makers())


def _parser(name: str, err: TextIO | None = None) -> Parser:
    return LEAVES[name](io.StringIO(), err or io.StringIO())


def _options(p: Parser) -> Iterator[argparse.Action]:
    """The options a command shows (not -h, not a deprecated spelling)."""
    for action in p._actions:
        if action.option_strings and action.dest != "help" and action.help != argparse.SUPPRESS:
            yield action


def _long(action: argparse.Action) -> str:
    return next((s for s in action.option_strings if s.startswith("--")), action.option_strings[0])


def _is_choice(action: argparse.Action) -> bool:
    """Whether ``action`` takes one of a set of values (which each command may choose)."""
    return (
        action.choices is not None
        or getattr(action, "item_choices", None) is not None
        or type(action).__name__ == "_Choice"
    )


def _shape(action: argparse.Action) -> tuple[str, object, str]:
    """What a flag's value looks like: a switch, one value, a list or a fixed number of values,
    and its type (text of any kind is text)."""
    if action.nargs == 0:
        kind = "switch"
    elif type(action).__name__ == "_ListAction":
        kind = "list"
    else:
        kind = "value"
    kind_of_type = getattr(action.type, "__name__", "text") if action.type is not None else "text"
    if kind_of_type in ("str", "Path"):
        kind_of_type = "text"
    return kind, action.nargs, kind_of_type


def test_every_command_is_reached() -> None:
    """45 leaf commands: the 44 built with argparse here and trec-eval."""
    assert len(LEAVES) + 1 == 45
    tops = {name.split()[0] for name in LEAVES} | {"trec-eval"}
    assert tops == {c.name for c in COMMANDS}


@pytest.mark.parametrize("name", LEAVES)
def test_each_flag_is_spelled_and_stored_as_the_vocabulary_says(name: str) -> None:
    for action in _options(_parser(name)):
        flag = _long(action)
        assert flag in VOCABULARY, f"{name}: {flag} is not in VOCABULARY; add it with its meaning"
        known = VOCABULARY[flag]
        assert set(action.option_strings) == {flag, *known.also}, (
            f"{name}: {'/'.join(action.option_strings)} must be spelled "
            f"{'/'.join([*known.also, flag])} ({known.meaning})"
        )
        assert action.dest == known.dest, (
            f"{name}: {flag} stores in {action.dest!r}, elsewhere in {known.dest!r}: "
            f"one flag, one meaning ({known.meaning})"
        )


def test_a_flag_takes_its_value_in_one_shape_everywhere() -> None:
    """One shape, and one metavar where the value is not a choice: ``--depth K`` everywhere,
    so a pool's depth or the results shown per impression cannot pass for it."""
    shapes: dict[str, dict[object, list[str]]] = {}
    for name in LEAVES:
        for action in _options(_parser(name)):
            found = shapes.setdefault(_long(action), {})
            found.setdefault(_shape(action), []).append(name)
            if not _is_choice(action):
                found.setdefault(("metavar", action.metavar), []).append(name)
    mixed = {
        flag: found
        for flag, found in shapes.items()
        if len([k for k in found if k[0] != "metavar"]) > 1
        or len([k for k in found if k[0] == "metavar"]) > 1
    }
    assert mixed == {}


def test_the_vocabulary_is_one_meaning_per_spelling_and_has_no_stale_entry() -> None:
    spellings = [s for flag, known in VOCABULARY.items() for s in (flag, *known.also)]
    assert len(spellings) == len(set(spellings))
    dests = [known.dest for known in VOCABULARY.values()]
    assert len(dests) == len(set(dests)), "two flags for one dest: one meaning, two spellings"
    used = {_long(a) for name in LEAVES for a in _options(_parser(name))}
    assert set(VOCABULARY) - used == set()


@pytest.mark.parametrize("name", LEAVES)
def test_every_seed_is_the_one_default(name: str) -> None:
    for action in _options(_parser(name)):
        if action.dest == "seed":
            assert (action.default, action.type) == (SEED, int)
            assert action.help is not None
            assert action.help.endswith(f"(default {SEED})")


@pytest.mark.parametrize("name", LEAVES)
def test_positional_arguments_are_named_in_capitals(name: str) -> None:
    for action in _parser(name)._get_positional_actions():
        if isinstance(action, argparse._SubParsersAction):
            continue
        assert isinstance(action.metavar, str)
        assert re.fullmatch(r"[A-Z_]+", action.metavar), f"{name}: {action.metavar}"


def test_trec_evals_letters_are_cranfields_where_both_have_the_option() -> None:
    from cranfield.cli import trec_eval

    letters = {**trec_eval._SWITCHES, **trec_eval._NUMBERS, "-m": "measures"}
    ours = {known.dest: known.also for known in VOCABULARY.values()}
    shared = {letter: dest for letter, dest in letters.items() if dest in ours}
    assert set(shared) == {"-q", "-J", "-l", "-M", "-N", "-m"}
    for letter, dest in shared.items():
        assert letter in ours[dest], f"trec_eval's {letter} is cranfield's {dest}: spell it so"


# --------------------------------------------------------------------------- deprecations


def _deprecations() -> Iterator[tuple[str, Deprecation]]:
    for name in LEAVES:
        for deprecation in _parser(name).deprecations:
            yield name, deprecation


DEPRECATIONS = list(_deprecations())


def _sample(action: argparse.Action) -> list[str]:
    """Words that are a valid value of ``action`` (none for a switch)."""
    if action.nargs == 0:
        return []
    choices = (
        getattr(action, "shown", None) or action.choices or getattr(action, "item_choices", None)
    )
    if choices:
        word = str(next(iter(choices)))
    else:
        item = getattr(action, "item", None) or action.type
        word = {int: "3", float: "0.5"}.get(item, "3" if "positive" in str(item) else "x")
    return [word] * (action.nargs if isinstance(action.nargs, int) else 1)


def _base_argv(p: Parser, leave_out: str) -> list[str]:
    """A command line ``p`` parses: a word for each positional argument, a value for each
    required option (except the one storing in ``leave_out``)."""
    argv: list[str] = []
    for action in p._actions:
        if not action.option_strings:
            if isinstance(action.nargs, int):
                argv += ["x"] * action.nargs
            elif action.nargs not in ("?", "*"):
                argv.append("x")
        elif action.required and action.dest != leave_out:
            argv += [action.option_strings[0], *_sample(action)]
    return argv


def test_the_deprecated_spellings_are_the_ones_the_issue_names() -> None:
    found = {(name, " ".join(d.old)) for name, d in DEPRECATIONS}
    assert found == {
        ("diff", "-k"),
        ("power", "-d"),
        ("plot gain", "--kind"),
        ("plot scores", "--kind"),
        ("plot query", "-q"),
        ("lab run", "--markdown"),
        ("lab pool", "--depth"),
        ("lab pool", "--json"),
        ("lab pool", "-f qrels"),
        ("lab pool", "-f tsv"),
        ("logs metrics", "-f text"),
        ("logs ab", "-f text"),
        ("logs fit", "--test"),
        ("logs fit", "-m"),
        ("logs fit", "--qrels"),
        ("logs fit", "--levels"),
        ("logs simulate", "--depth"),
        ("logs simulate", "--per-query"),
        ("logs report", "--test"),
        ("logs report", "--models"),
    }


@pytest.mark.parametrize(
    ("name", "deprecation"), DEPRECATIONS, ids=[f"{n} {' '.join(d.old)}" for n, d in DEPRECATIONS]
)
def test_an_old_spelling_works_as_before_with_one_note(name: str, deprecation: Deprecation) -> None:
    p = _parser(name)
    target = p._option_string_actions[deprecation.new[0]]
    base = _base_argv(p, leave_out=target.dest)
    old_flag = p._option_string_actions[deprecation.old[0]]
    value = _sample(target) if len(deprecation.old) == 1 and old_flag.nargs != 0 else []
    new = [*deprecation.new, *([] if len(deprecation.new) == 2 else value)]
    old = [*deprecation.old, *([] if len(deprecation.old) == 2 else value)]

    err_new, err_old = io.StringIO(), io.StringIO()
    parsed_new = vars(_parser(name, err_new).parse_args([*base, *new]))
    parsed_old = vars(_parser(name, err_old).parse_args([*base, *old]))
    assert parsed_old == parsed_new
    assert err_new.getvalue() == ""
    assert err_old.getvalue() == (
        f"cranfield: {' '.join(deprecation.old)} of '{name}' is deprecated; "
        f"use {' '.join(deprecation.new)}.\n"
    )


@pytest.mark.parametrize(("name", "deprecation"), DEPRECATIONS)
def test_an_old_spelling_is_hidden_from_the_help(name: str, deprecation: Deprecation) -> None:
    p = _parser(name)
    p.epilog = None  # LIST_RULE's examples use -m as measures
    page = p.format_help()
    if len(deprecation.old) == 1:
        assert p._option_string_actions[deprecation.old[0]].help == argparse.SUPPRESS
        assert not re.search(rf"(?<![\w-]){re.escape(deprecation.old[0])}\b", page)
    else:  # an old value: not among the values shown
        flag, value = deprecation.old
        assert value not in str(p._option_string_actions[flag].metavar)


def test_an_old_spelling_used_twice_is_noted_once() -> None:
    err = io.StringIO()
    _parser("lab pool", err).parse_args(["x", "--json", "--depth", "5", "--json"])
    assert err.getvalue().count("--json of 'lab pool' is deprecated") == 1
    assert err.getvalue().count("\n") == 2


def test_a_command_that_takes_one_measure_refuses_two() -> None:
    for name in ("agree", "lab pool", "lab cv", "plot differences", "plot scores", "logs simulate"):
        err = io.StringIO()
        p = _parser(name, err)
        with pytest.raises(UsageError) as raised:
            p.parse_args([*_base_argv(p, leave_out=""), "-m", "AP,P@10"])
        assert raised.value.status == 1
        assert err.getvalue().endswith(
            f"cranfield {name}: error: argument -m/--measure: this command takes one measure, "
            "got 2 (AP, P@10).\n"
        )


# --------------------------------------------------------------------------- exit codes


def test_the_exit_codes_are_written_once_and_shown_by_help() -> None:
    table = exit_codes_text()
    codes = {int(code) for code in re.findall(r"^  (\d+)", table, re.MULTILINE)}
    assert codes >= {0, FINDINGS, *EXIT_CODES.values()}
    assert len({0, 1, 2, FINDINGS}) == 4  # a finding is neither a usage error nor bad data
    done = subprocess.run(
        [sys.executable, "-m", "cranfield.cli.main", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert f"exit codes (every command):\n{table}" in done.stdout
