"""The one parser scaffold of every ``cranfield`` command.

:class:`Parser` is an ``argparse`` parser that writes to the streams it is given and never
ends the process (it raises :class:`UsageError`); options and files may come in any order.
The option groups that several commands share are declared here once: the measures
(:func:`add_measures`), the output format (:func:`add_format`), the evaluation options
(:func:`add_evaluation_options`, read back as one
:class:`~cranfield.evaluation.options.EvalOptions` by :func:`eval_options`), the run naming
(:func:`add_run_names`), the significance tests (:func:`add_test_options`), the resampling
options every testing command shares (:func:`add_resampling_options`: ``-a``, ``-B``, ``-s``)
and the options of the commands that correlate rankings (:func:`add_correlation_options`).

Lists (``-m``, ``-t``, ``--ci``, ``--levels``) are written the way trec_eval's ``-m`` is: see
:data:`LIST_RULE`. A command that takes one value of a list's concept (one measure) takes it
through the same option, which refuses a second.

An old spelling of a flag keeps working for one release, hidden from the help, with one line on
stderr that names the new one (:func:`deprecate`; :attr:`Parser.deprecations` lists them).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import TYPE_CHECKING, Any, Final, NamedTuple, NoReturn, TextIO, cast

from cranfield._types import (
    AGGREGATIONS,
    DUPLICATE_POLICIES,
    FILE_FORMATS,
    LOG_FORMATS,
    MISSING_POLICIES,
    RUN_NAMINGS,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from cranfield.evaluation.options import EvalOptions

__all__ = [
    "INPUT_FORMATS",
    "LIST_RULE",
    "SEED",
    "Deprecation",
    "Parser",
    "UsageError",
    "add_click_models",
    "add_correlation_options",
    "add_cutoffs",
    "add_evaluation_options",
    "add_extra_judgments",
    "add_format",
    "add_log_format",
    "add_measures",
    "add_parallel_options",
    "add_per_query",
    "add_queries",
    "add_resampling_options",
    "add_run_names",
    "add_seed",
    "add_strict",
    "add_test_options",
    "correlation_options",
    "deprecate",
    "eval_options",
    "parallel_options",
    "positive_int",
    "split_list",
]

LIST_RULE: Final = (
    "A list option takes one value or a comma-separated list (-m AP,nDCG@10) and can be "
    "repeated (-m AP -m nDCG@10). A comma inside brackets belongs to the value "
    "(-m 'nDCG(gains={0:0,1:1})'), and so does a comma before a number or a key=value that "
    "continues a trec_eval parameter list (-m P.5,10 is P@5 and P@10; -m ndcg.1=3,2=9). After "
    "the files, the words that follow a list option are values too, until the next option "
    "(FILES -m AP nDCG@10)."
)
"""How a list of values is written on the command line (shown in every command's help)."""

INPUT_FORMATS: Final = "TREC, MS MARCO, BEIR, CSV, TSV, JSON, JSON Lines or Parquet; - for stdin"
"""The formats every command reads its qrels and runs in, as the help words them."""


class UsageError(Exception):
    """The command line cannot be run as written, or it asked only for help.

    Parameters
    ----------
    status:
        The exit code: 0 after ``-h``, 1 for a usage error.
    message:
        What was wrong, printed as ``cranfield COMMAND: error: MESSAGE`` (empty when the
        parser has printed it already).
    """

    def __init__(self, status: int, message: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class _NotPlain(Exception):
    """argparse's plain pass found a command line wrong (the intermixed pass reads it again)."""


class Deprecation(NamedTuple):
    """An old spelling that still works for one release: the words ``old`` (``("--depth",)``,
    or a flag and a value: ``("-f", "text")``) mean the words ``new``."""

    old: tuple[str, ...]
    new: tuple[str, ...]


_INPUT_DESTS: Final = ("qrels", "runs", "known", "intents", "files", "source")
"""Where commands keep the inputs they read (``-``: standard input, readable once)."""


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that writes to ``out``/``err`` and never calls ``sys.exit``.

    Options may come before, between or after the positional arguments, and list options
    (:meth:`add_list_option`) follow :data:`LIST_RULE`. Sub-command parsers made with
    ``add_subparsers().add_parser(..., out=out, err=err)`` are Parsers too; the namespace's
    ``command_prog`` is the program name of the deepest one used (``cranfield lab pool``).
    ``deprecations`` lists the old spellings this command still reads (:func:`deprecate`).
    """

    def __init__(self, *args: Any, out: TextIO, err: TextIO, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._out = out
        self._err = err
        self._intermixing = False
        self._trying: list[Deprecation] | None = None  # in _intermixed's quiet pass: its notes
        self.deprecations: list[Deprecation] = []
        self._noted: set[Deprecation] = set()

    def note_deprecated(self, deprecation: Deprecation) -> None:
        """Say once on stderr that an old spelling was used, and what replaces it:
        ``cranfield: --depth of 'lab pool' is deprecated; use --pool-depth.``"""
        if self._trying is not None:  # the quiet plain pass: said if it is the one kept
            self._trying.append(deprecation)
            return
        if deprecation in self._noted:
            return
        self._noted.add(deprecation)
        command = self.prog.removeprefix("cranfield ")
        old, new = " ".join(deprecation.old), " ".join(deprecation.new)
        self._err.write(f"cranfield: {old} of '{command}' is deprecated; use {new}.\n")

    def _print_message(self, message: str, file: Any = None) -> None:
        if message:
            (self._out if file is None or file is sys.stdout else self._err).write(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            self._err.write(message)
        raise UsageError(status)

    def error(self, message: str) -> NoReturn:
        if self._trying is not None:
            raise _NotPlain
        self.print_usage(self._err)
        self.exit(1, f"{self.prog}: error: {message}\n")

    _adding = False  # within add_argument (argparse's checks)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """``argparse``'s, and ``option=NAME``: the library's name for the value, when it is not
        the ``dest`` (an :class:`~cranfield.errors.OptionError` about ``NAME`` then names this
        flag: :meth:`flag_for`)."""
        option = kwargs.pop("option", None)
        self._adding = True
        try:
            action = super().add_argument(*args, **kwargs)
        finally:
            self._adding = False
        if option is not None:
            action.option = option  # type: ignore[attr-defined]
        return action

    def _get_formatter(self) -> argparse.HelpFormatter:
        if self._adding:
            # argparse makes a formatter for every option added, only to check its metavar:
            # one that writes nothing needs no terminal width. Measuring it asks the terminal
            # once per option, and imports shutil with the compression modules on the first
            # (part of every command's start-up: BENCHMARKS.md, issue 29).
            formatter = cast("type[argparse.HelpFormatter]", self.formatter_class)
            return formatter(prog=self.prog, width=80)
        return super()._get_formatter()

    def add_list_option(  # noqa: PLR0913 - each keyword is one of add_argument's, passed on
        self,
        *flags: str,
        dest: str,
        item: Callable[[str], Any] = str,
        choices: Sequence[str] | None = None,
        metavar: str | None = None,
        help: str | None = None,
        default: list[Any] | None = None,
        most: int | None = None,
        required: bool = False,
        option: str | None = None,
    ) -> None:
        """A repeatable option whose values are lists (:data:`LIST_RULE`), gathered in order
        into ``dest`` (``default`` when the option is not given, replaced by the values given).

        ``most``: the most values it takes (1 for a command that takes one measure), more being
        a usage error. ``option``: the library's name for the values, when it is not ``dest``
        (an :class:`~cranfield.errors.OptionError` about ``k`` then names this flag).
        """
        self.add_argument(
            *flags,
            dest=dest,
            action=_ListAction,
            item=item,
            item_choices=choices,
            metavar=metavar,
            help=help,
            default=default,
            most=most,
            required=required,
            option=option,
        )

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._intermixing:  # inside parse_known_intermixed_args: argparse's own passes
            return super().parse_known_args(args, namespace)
        words = self._spread_lists(list(sys.argv[1:] if args is None else args))
        # A required option with an old spelling is given when either spelling is: argparse
        # would count only its own, so it is checked here (and shown required in the help).
        renamed = [a for a in self._actions if a.required and self._old_spellings(a)]
        for action in renamed:
            action.required = False
        try:
            if any(isinstance(a, argparse._SubParsersAction) for a in self._actions):
                parsed, extras = super().parse_known_args(words, namespace)
            else:  # options between the files too: "QRELS RUN1 -M 10 RUN2"
                parsed, extras = self._intermixed(words, namespace)
        finally:
            for action in renamed:
                action.required = True
        missing = [a for a in renamed if getattr(parsed, a.dest, None) is None]
        if missing:
            names = ", ".join("/".join(a.option_strings) for a in missing)
            self.error(f"the following arguments are required: {names}")
        if not hasattr(parsed, "command_prog"):  # the deepest parser names the command
            parsed.command_prog = self.prog
        self._stdin_once(parsed)
        return parsed, extras

    def _intermixed(
        self, words: list[str], namespace: argparse.Namespace | None
    ) -> tuple[argparse.Namespace, list[str]]:
        """``words`` read with options before, between or after the positional arguments.

        argparse's intermixed reading takes two passes and first formats the whole usage for
        its error messages (measuring the terminal, which imports shutil): the cost of a
        command's start-up that most command lines do not need (BENCHMARKS.md, issue 29).
        argparse's plain pass reads the positional arguments that no option separates, and
        those it can match apart (``QRELS -m AP RUN``), as the intermixed one does: it is
        tried first, quietly (its deprecation notes held back), on a namespace of its own. A
        line it leaves words of, or finds wrong, is read the intermixed way, which says what
        is wrong.
        """
        if namespace is None:
            notes: list[Deprecation] = []
            self._trying = notes
            try:
                plain: tuple[argparse.Namespace, list[str]] | None
                plain = super().parse_known_args(words, None)
            except _NotPlain:
                plain = None
            finally:
                self._trying = None
            if plain is not None and not plain[1]:
                for deprecation in notes:
                    self.note_deprecated(deprecation)
                return plain
        self._intermixing = True
        try:
            return super().parse_known_intermixed_args(words, namespace)
        finally:
            self._intermixing = False

    def _stdin_once(self, parsed: argparse.Namespace) -> None:
        """Refuse standard input (``-``) given as two inputs: it can be read only once, and
        the second reader would wait for ever or read nothing."""
        given: list[str] = []
        for dest in _INPUT_DESTS:
            value = getattr(parsed, dest, None)
            values = value if isinstance(value, list) else [value]
            given += [self.flag_for(dest) or dest.upper() for v in values if v == "-"]
        if len(given) > 1:  # one sentence, no usage: the command line is well formed
            raise UsageError(
                1,
                f"standard input (-) can be read only once, and is given as "
                f"{' and '.join(given)}: give all but one of them as files",
            )

    def _old_spellings(self, action: argparse.Action) -> bool:
        """Whether ``action`` has a deprecated spelling in this parser."""
        return any(isinstance(a, _DeprecatedFlag) and a.target is action for a in self._actions)

    def flag_for(self, dest: str) -> str | None:
        """The long flag (else the short one) of the option stored in ``dest`` (or the
        metavar of a positional argument stored there), searched in this parser and its
        sub-command parsers; ``None`` if no option stores there."""
        positional: list[str] = []
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    found = sub.flag_for(dest) if isinstance(sub, Parser) else None
                    if found is not None:
                        return found
            elif action.option_strings and dest in (action.dest, getattr(action, "option", None)):
                if action.help == argparse.SUPPRESS:  # a deprecated spelling
                    continue
                flags = action.option_strings
                return next((f for f in flags if f.startswith("--")), flags[0])
            elif action.dest == dest and isinstance(action.metavar, str):
                positional.append(action.metavar)  # by its name in the usage: OUT
        # several positionals into one list (diff's RUN_A RUN_B): the message names them all
        return " and ".join(positional) if positional else None

    # ------------------------------------------------------------------ lists after the files

    def _spread_lists(self, words: list[str]) -> list[str]:
        """``FILES -m A B -l 2`` as ``FILES -m A -m B -l 2``: the words after a list
        option's value are more values when the positional arguments are already given;
        before them, they are the positional arguments."""
        needed, then_subcommand = self._positionals_needed()
        out: list[str] = []
        seen = 0
        flag: str | None = None  # the list option whose values are being read
        i = 0
        while i < len(words):
            word = words[i]
            if word == "--":
                out.extend(words[i:])
                break
            if not self._is_option(word):
                if flag is not None:
                    out += [flag, word]
                else:
                    out.append(word)
                    seen += 1
                    if then_subcommand and seen >= needed:  # the rest is the sub-command's
                        out.extend(words[i + 1 :])
                        break
                i += 1
                continue
            taken, list_flag = self._option_words(words, i)
            out.extend(words[i : i + 1 + taken])
            flag = list_flag if list_flag is not None and seen >= needed else None
            i += 1 + taken
        return out

    def _positionals_needed(self) -> tuple[int, bool]:
        """How many positional words the command needs at least, and whether the last of
        them is a sub-command (after which every word is the sub-command's)."""
        needed = 0
        for action in self._get_positional_actions():
            if action.nargs in (argparse.PARSER, argparse.REMAINDER):
                return needed + 1, True
            if action.nargs is None or action.nargs == argparse.ONE_OR_MORE:
                needed += 1
            elif isinstance(action.nargs, int):
                needed += action.nargs
        return needed, False

    def _is_option(self, word: str) -> bool:
        if not word.startswith("-") or word == "-":
            return False
        return not (
            self._negative_number_matcher.match(word) and not self._has_negative_number_optionals
        )

    def _option_words(self, words: list[str], i: int) -> tuple[int, str | None]:
        """How many words after ``words[i]`` (an option) are its values, and the flag to
        repeat if it is a list option."""
        word = words[i]
        if word.startswith("--"):
            name, eq, _ = word.partition("=")
            action = self._long_option(name)
            if action is None or eq:
                return 0, (name if _is_list(action) else None)
            return self._values_after(action, words, i), (name if _is_list(action) else None)
        for k in range(1, len(word)):  # -Jq, -l2, -m AP
            action = self._option_string_actions.get("-" + word[k])
            if action is None:
                return 0, None
            if action.nargs != 0:
                short = "-" + word[k]
                list_flag = short if _is_list(action) else None
                if k + 1 < len(word):  # the value is attached: -l2
                    return 0, list_flag
                return self._values_after(action, words, i), list_flag
        return 0, None

    def _long_option(self, name: str) -> argparse.Action | None:
        if name in self._option_string_actions:
            return self._option_string_actions[name]
        if not self.allow_abbrev:
            return None
        matches = {a for s, a in self._option_string_actions.items() if s.startswith(name)}
        return matches.pop() if len(matches) == 1 else None

    def _values_after(self, action: argparse.Action, words: list[str], i: int) -> int:
        nargs = action.nargs
        if nargs is None:
            return 1
        if isinstance(nargs, int):
            return nargs
        taken = 0
        while i + 1 + taken < len(words) and not self._is_option(words[i + 1 + taken]):
            taken += 1
            if nargs == argparse.OPTIONAL:
                break
        return taken


class _ListAction(argparse.Action):
    """Adds the items of one list value (:func:`split_list`) to the option's list (the first
    value given replaces the default); refuses more than ``most`` items."""

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str,
        *,
        item: Callable[[str], Any] = str,
        item_choices: Sequence[str] | None = None,
        most: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(option_strings, dest, nargs=None, **kwargs)
        self.item = item
        self.item_choices = item_choices
        self.most = most

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given = getattr(namespace, self.dest, None)
        items = [] if given is self.default else list(given or [])
        for text in split_list(str(values)):
            if self.item_choices is not None and text not in self.item_choices:
                choices = ", ".join(map(repr, self.item_choices))
                parser.error(
                    f"argument {option_string}: invalid choice: {text!r} (choose from {choices})"
                )
            try:
                items.append(self.item(text))
            except ValueError:
                parser.error(f"argument {option_string}: invalid value: {text!r}")
        if self.most is not None and len(items) > self.most:
            what = (self.metavar if isinstance(self.metavar, str) else self.dest).lower()
            listed = ", ".join(map(str, items))
            most = "one" if self.most == 1 else f"at most {self.most}"
            parser.error(
                f"argument {'/'.join(self.option_strings)}: this command takes {most} {what}, "
                f"got {len(items)} ({listed})."
            )
        setattr(namespace, self.dest, items)


class _DeprecatedFlag(argparse.Action):
    """An old flag: notes that it is deprecated, then does what its replacement ``target``
    does (with ``value``: what ``target value`` does, for an old switch)."""

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str,
        *,
        target: argparse.Action,
        value: str | None,
        deprecation: Deprecation,
        **kwargs: Any,
    ) -> None:
        like: dict[str, Any] = (
            {"nargs": 0}
            if value is not None  # a switch
            else {"nargs": target.nargs, "type": target.type, "choices": target.choices}
        )
        super().__init__(option_strings, dest, metavar=target.metavar, **like, **kwargs)
        self.target = target
        self.value = value
        self.deprecation = deprecation

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if isinstance(parser, Parser):
            parser.note_deprecated(self.deprecation)
        given = values if self.value is None else self.value
        self.target(parser, namespace, given, option_string)


class _Runs(argparse.Action):
    """The runs of a command: each folder of run files given stands for its files, in the
    order of their names (the rule of :mod:`cranfield.io.runset`); a Parquet dataset folder
    stays one run."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if not any(isinstance(v, str) and os.path.isdir(v) for v in values):
            setattr(namespace, self.dest, list(values))  # files: nothing to expand, no import
            return
        from cranfield.io.runset import expand_folders

        setattr(namespace, self.dest, expand_folders(values))


class _Choice(argparse.Action):
    """One of ``choices``, stored; a deprecated value (``-f text``) is noted and does what its
    replacement does (``-f table``, or another option: ``--export-format qrels``)."""

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str,
        *,
        choices: Sequence[str],
        deprecated: Mapping[str, tuple[str, str]],
        **kwargs: Any,
    ) -> None:
        shown = "{" + ",".join(choices) + "}"
        super().__init__(option_strings, dest, metavar=shown, **kwargs)
        self.shown = list(choices)
        self.deprecated = dict(deprecated)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if values in self.deprecated and isinstance(parser, Parser):
            flag, value = self.deprecated[values]
            parser.note_deprecated(Deprecation((str(option_string), values), (flag, value)))
            target = parser._option_string_actions[flag]
            if target is not self:
                target(parser, namespace, value, flag)
                return
            values = value
        if values not in self.shown:
            choices = ", ".join(map(repr, self.shown))
            raise argparse.ArgumentError(
                self, f"invalid choice: {values!r} (choose from {choices})"
            )
        setattr(namespace, self.dest, values)


def _is_list(action: argparse.Action | None) -> bool:
    """Whether ``action`` reads a list (:data:`LIST_RULE`): a list option or an old spelling
    of one."""
    if isinstance(action, _DeprecatedFlag):
        return action.value is None and _is_list(action.target)
    return isinstance(action, _ListAction)


def deprecate(p: Parser, old: str, new: str, *, value: str | None = None) -> None:
    """Keep ``old``, a flag ``p`` no longer has, working for one release as ``new`` (an option
    ``p`` has; with ``value``, ``old`` was a switch that is now ``new value``): hidden from the
    help, noted on stderr when used (:meth:`Parser.note_deprecated`), listed in
    ``p.deprecations``."""
    target = p._option_string_actions[new]
    if value is not None and isinstance(target, _Choice) and value not in target.shown:
        raise ValueError(f"{value!r} is not a value of {new}")  # pragma: no cover - a typo
    deprecation = Deprecation((old,), (new,) if value is None else (new, value))
    p.add_argument(
        old,
        dest=target.dest,
        action=_DeprecatedFlag,
        target=target,
        value=value,
        deprecation=deprecation,
        default=argparse.SUPPRESS,
        help=argparse.SUPPRESS,
    )
    p.deprecations.append(deprecation)


# Compiled on first use (by re's cache): most command lines have no comma list.
_TREC_PARAMETERS: Final = r"[A-Za-z_][A-Za-z0-9_]*\."  # map_cut.  P.  ndcg.
_PARAMETER: Final = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[A-Za-z0-9_]+=[^,]*"


def split_list(text: str) -> list[str]:
    """The values of one list option value, as :data:`LIST_RULE` says.

    Examples
    --------
    >>> split_list("AP,nDCG@10")
    ['AP', 'nDCG@10']
    >>> split_list("P.5,10,map")
    ['P.5,10', 'map']
    >>> split_list("nDCG(gains={0:0,1:1})@10,ndcg.1=3,2=9,p=0.8,RR")
    ['nDCG(gains={0:0,1:1})@10', 'ndcg.1=3,2=9,p=0.8', 'RR']
    >>> split_list("0,0.5,1")
    ['0', '0.5', '1']
    """
    pieces: list[str] = []
    depth = 0
    start = 0
    for k, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            pieces.append(text[start:k])
            start = k + 1
    pieces.append(text[start:])
    out: list[str] = []
    for piece in pieces:
        if out and re.match(_TREC_PARAMETERS, out[-1]) and re.fullmatch(_PARAMETER, piece):
            out[-1] += "," + piece
        else:
            out.append(piece)
    return [piece.strip() for piece in out if piece.strip()]


# --------------------------------------------------------------------------- option groups


def add_inputs(
    p: Parser,
    *,
    runs_help: str | tuple[str, ...] = "two or more run files",
    runs_metavar: str | tuple[str, ...] = "RUN",
) -> None:
    """The positional ``qrels`` and ``runs`` of the commands that evaluate: files in any
    format :mod:`cranfield.io.formats` reads (``--qrels-format``, ``--run-format``), the qrels
    an ir_datasets id too (:mod:`cranfield.io.irds`); a folder of run files among the runs
    stands for its files (:mod:`cranfield.io.runset`).

    A tuple ``runs_metavar`` is exactly those runs, each named in the usage (``QRELS RUN_A
    RUN_B``) with the ``runs_help`` of the same place, gathered in ``args.runs`` all the same.
    """
    p.add_argument(
        "qrels",
        metavar="QRELS",
        help=f"qrels file ({INPUT_FORMATS}; optionally compressed), or an ir_datasets id such "
        "as msmarco-passage/trec-dl-2019/judged (read from its local cache; the irds extra)",
    )
    if isinstance(runs_metavar, tuple):
        for name, words in zip(runs_metavar, runs_help, strict=True):
            p.add_argument(
                "runs", action="append", metavar=name, help=f"{words} (any of those formats)"
            )
        return
    p.add_argument(
        "runs",
        nargs="+",
        action=_Runs,
        metavar=runs_metavar,
        help=f"{runs_help} (any of those formats; a folder of run files: each file)",
    )


def add_measures(
    p: Parser, default: Sequence[str], *, one: bool = False, help: str | None = None
) -> None:
    """``-m/--measure``: the measures, a list option (``args.measures``, ``None`` if absent).

    ``one``: the command takes one measure, ``default[0]`` if none is given
    (``args.measures[0]``); a second is a usage error. ``help`` says what the measures are for.
    """
    what = help or ("the measure" if one else "measures")
    shown = default[0] if one else " ".join(default)
    p.add_list_option(
        "-m",
        "--measure",
        dest="measures",
        metavar="MEASURE",
        help=f"{what}, e.g. nDCG@10 'P(rel=2)@5' map{'' if one else ' P.5,10'} (default: {shown})",
        default=[default[0]] if one else None,
        most=1 if one else None,
    )


def add_format(
    p: Parser, formats: Sequence[str], *, deprecated: Mapping[str, tuple[str, str]] | None = None
) -> None:
    """``-f/--format``: the output format, the first of ``formats`` by default.

    ``deprecated``: old values still read for one release, each with the flag and value that
    replace it (``{"text": ("-f", "table")}``).
    """
    p.add_argument(
        "-f",
        "--format",
        action=_Choice,
        choices=list(formats),
        deprecated=deprecated or {},
        default=formats[0],
        help=f"output format (default {formats[0]})",
    )
    for old, new in (deprecated or {}).items():
        p.deprecations.append(Deprecation(("-f", old), new))


def add_per_query(p: Parser, help: str) -> None:
    """``-q/--per-query``: show (or keep) every query's values as well; ``help`` says how."""
    p.add_argument("-q", "--per-query", action="store_true", help=help)


def add_queries(p: Parser, help: str, *, one: bool = False, required: bool = False) -> None:
    """``--query``: query ids, a list option (``args.queries``); ``one``: exactly one."""
    p.add_list_option(
        "--query",
        dest="queries",
        metavar="QID",
        help=help,
        most=1 if one else None,
        required=required,
    )


def add_cutoffs(p: Parser, help: str, *, option: str | None = None) -> None:
    """``-k/--cutoffs``: the cutoffs k of a command's measures (``@k``), a list of integers
    (``args.cutoffs``, ``None`` if absent); ``option`` is the library's name for them."""
    p.add_list_option(
        "-k", "--cutoffs", dest="cutoffs", item=int, metavar="K", help=help, option=option
    )


SEED: Final = 0
"""The seed of every command's random procedures when ``-s`` is not given: the same command
line prints the same numbers, and each result that draws at random states its seed. Another
seed (``-s 1``) draws anew; the Python API's default, ``None``, draws a fresh seed."""


def add_seed(p: Parser, what: str) -> None:
    """``-s/--seed``: the seed of ``what`` (the command's random procedures), :data:`SEED` by
    default."""
    p.add_argument("-s", "--seed", type=int, default=SEED, help=f"seed of {what} (default {SEED})")


def add_log_format(p: Parser) -> None:
    """``--log-format``: the format of the commands' interaction logs (default: detected)."""
    p.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        metavar="FORMAT",
        help=f"the logs' format: {', '.join(LOG_FORMATS)} (default: detected)",
    )


def add_click_models(
    p: Parser,
    help: str,
    *,
    choices: Sequence[str] | None = None,
    default: str | None = None,
) -> None:
    """``--model``: click models by name, a list option (``args.model``); with ``default``, the
    command takes one model (``args.model[0]``)."""
    p.add_list_option(
        "--model",
        dest="model",
        metavar="MODEL",
        choices=choices,
        help=help,
        default=None if default is None else [default],
        most=None if default is None else 1,
    )


_EVALUATION_FLAGS: Final[dict[str, tuple[tuple[str, ...], dict[str, Any]]]] = {
    "missing": (
        ("--missing",),
        {
            "choices": MISSING_POLICIES,
            "help": "judged queries absent from a run: score 0 (zero, the default), leave out "
            "(skip), or fail (error)",
        },
    ),
    "relevance_level": (
        ("-l", "--relevance-level"),
        {"type": int, "metavar": "N", "help": "minimum judged level counted relevant (1)"},
    ),
    "judged_only": (
        ("-J", "--judged-only"),
        {"action": "store_true", "help": "drop unjudged documents first"},
    ),
    "depth": (
        ("-M", "--depth"),
        {"type": int, "metavar": "K", "help": "evaluate only the top K documents of each query"},
    ),
    "float32": (
        ("--float32",),
        {"action": "store_true", "help": "round scores to float32 first (trec_eval 9, NIST)"},
    ),
    "aggregate": (
        ("--aggregate",),
        {
            "choices": AGGREGATIONS,
            "help": "how per-query values combine (default: each measure's own; micro needs "
            "set measures)",
        },
    ),
    "epsilon": (
        ("--epsilon",),
        {"type": float, "help": "floor of the geometric mean (gmean; default 1e-5)"},
    ),
    "duplicates": (
        ("--duplicates",),
        {
            "choices": DUPLICATE_POLICIES,
            "help": "a document judged on several qrels lines: merge lines of the same "
            "relevance (default; different ones fail), fail (error), or keep the first, last "
            "or max relevance",
        },
    ),
    "ignore_self": (
        ("--ignore-self",),
        {
            "action": "store_true",
            "help": "drop run documents whose id is the query id (BEIR ArguAna, Quora)",
        },
    ),
    "qrels_format": (
        ("--qrels-format",),
        {
            "choices": FILE_FORMATS,
            "metavar": "FORMAT",
            "help": "the qrels file's format: " + ", ".join(FILE_FORMATS) + " (default: detected "
            "from its first lines)",
        },
    ),
    "run_format": (
        ("--run-format",),
        {
            "choices": FILE_FORMATS,
            "metavar": "FORMAT",
            "help": "the run files' format, as --qrels-format (default: detected)",
        },
    ),
    "num_docs": (
        ("-N", "--num-docs"),
        {
            "type": int,
            "metavar": "N",
            "help": "collection size (fallout, accuracy, utility's true negatives)",
        },
    ),
}
"""Every evaluation option's flags, by :class:`~cranfield.evaluation.options.EvalOptions`
field; the defaults are EvalOptions' own."""


def add_evaluation_options(p: Parser, names: Sequence[str] = tuple(_EVALUATION_FLAGS)) -> None:
    """The flags of the evaluation options ``names`` (EvalOptions fields), read back with
    :func:`eval_options`."""
    for name in names:
        flags, kwargs = _EVALUATION_FLAGS[name]
        p.add_argument(*flags, dest=name, default=None, **kwargs)
    add_strict(p)


def add_strict(p: Parser, help: str = "treat every warning as an error (exit 2)") -> None:
    """``--strict``: every warning (a :class:`~cranfield.errors.CranfieldWarning`) is an
    error, exit 2 (:func:`cranfield.cli.exits.run_command` reads it); ``help`` words it for a
    command whose product is the warnings (``cranfield check``)."""
    p.add_argument("--strict", action="store_true", help=help)


def eval_options(args: argparse.Namespace) -> EvalOptions:
    """The evaluation options given on the command line, validated once.

    Raises
    ------
    OptionError
        For a value an option cannot take (printed with its flag: ``The --depth option ...``).
    """
    from cranfield.evaluation.options import EvalOptions

    given = {
        name: getattr(args, name)
        for name in _EVALUATION_FLAGS
        if getattr(args, name, None) is not None
    }
    return EvalOptions(**given)


def add_parallel_options(p: Parser, *, store: bool = False, progress: bool = False) -> None:
    """``--jobs`` and ``--scheduler``: where the runs are scored
    (:mod:`cranfield.evaluation.engines`); with ``store`` ``--store``: where their results are
    kept (:mod:`cranfield.evaluation.store`); with ``progress`` ``--quiet``: no progress bar
    (shown on a terminal only); read back by :func:`parallel_options`."""
    import os

    if progress:
        p.add_argument(
            "--quiet",
            action="store_true",
            help="no progress bar on stderr (shown only on a terminal, once the runs take a "
            "second)",
        )

    if store:
        p.add_argument(
            "--store",
            metavar="DIR",
            help="keep each run file's results in DIR and read them back next time, while the "
            "run, the qrels, the options and cranfield are the same",
        )

    p.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=1,
        help="worker processes scoring runs at once; 0 for every core (default 1: this process)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=os.environ.get("CRANFIELD_SCHEDULER") or None,
        help="score the runs on the Dask cluster at ADDRESS (tcp://host:8786; default "
        "$CRANFIELD_SCHEDULER; needs the 'dask' extra)",
    )


def parallel_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``jobs`` and ``scheduler`` keywords given on the command line (and ``store`` and
    ``progress``, for a command that has them)."""
    given = {"jobs": args.jobs, "scheduler": args.scheduler}
    if "store" in args:
        given["store"] = args.store
    if "quiet" in args:
        given["progress"] = False if args.quiet else None
    return given


def add_extra_judgments(p: Parser) -> None:
    """``--known`` and ``--intents``: the judgments some measures need besides the qrels."""
    p.add_argument(
        "--known",
        metavar="QRELS",
        help="relevant documents known to the user (Coverage, Novelty, RelRecall, RecallEffect)",
    )
    p.add_argument(
        "--intents",
        metavar="QRELS",
        help="subtopic judgments 'qid subtopic docno rel' for alpha_nDCG",
    )


def add_run_names(p: Parser) -> None:
    """``--names``: how runs are named (:mod:`cranfield.io.run_names`)."""
    p.add_argument(
        "--names",
        choices=RUN_NAMINGS,
        default=RUN_NAMINGS[0],
        help="name runs by file name without folders and suffixes (default) or by run tag",
    )


def add_test_options(p: Parser, default_measures: Sequence[str], *, baseline: bool = True) -> None:
    """The measures and the significance tests of the commands that compare runs
    (``baseline=False``: without ``-b``, for a command whose baseline is its first run)."""
    from cranfield.stats.comparison import TESTS  # lazily: keeps scipy out of start-up

    add_measures(p, default_measures)
    p.add_list_option(
        "-t",
        "--test",
        dest="tests",
        metavar="TEST",
        help=f"tests, the first marks the table: {', '.join(TESTS)} (default: t-test)",
    )
    p.add_argument(
        "-c",
        "--correction",
        default="holm",
        help="multiple-comparison correction: none, bonferroni, holm (default), bh",
    )
    if baseline:
        p.add_argument("-b", "--baseline", metavar="RUN", help="compare every run with this one")
    add_resampling_options(
        p,
        alpha="significance level (0.05)",
        resamples=(10_000, "resamples per random test (10000)"),
        seed="the random tests",
    )


def add_resampling_options(p: Parser, *, alpha: str, resamples: tuple[int, str], seed: str) -> None:
    """``-a/--alpha``, ``-B/--resamples`` and ``-s/--seed`` (:func:`add_seed`), declared once
    for every command that tests or resamples; each command words what they mean for it
    (``resamples`` is the default and its help, ``seed`` what the seed draws)."""
    p.add_argument("-a", "--alpha", type=float, default=0.05, help=alpha)
    p.add_argument(
        "-B",
        "--resamples",
        dest="n_resamples",
        type=int,
        default=resamples[0],
        help=resamples[1],
    )
    add_seed(p, seed)


def add_correlation_options(p: Parser) -> None:
    """RBO's persistence and the bootstrap's resamples, seed and level: the options of the
    commands that compare rankings of runs (``correlate``, ``agree``), read back by
    :func:`correlation_options`."""
    p.add_argument(
        "--rbo-p", dest="p", type=float, default=0.9, help="RBO's persistence p (default 0.9)"
    )
    add_resampling_options(
        p,
        alpha="intervals at 1 - alpha (0.05)",
        resamples=(1000, "bootstrap resamples of the queries for the intervals, 0 for none (1000)"),
        seed="the bootstrap",
    )


def correlation_options(args: argparse.Namespace) -> dict[str, Any]:
    """The :func:`~cranfield.stats.rank_correlation.correlate_scores` keywords given."""
    return {"p": args.p, "n_resamples": args.n_resamples, "seed": args.seed, "alpha": args.alpha}


def positive_int(text: str) -> int:
    """An option's value that must be an integer >= 1 (``--pool-depth``, ``-n/--folds``): the
    ``type=`` of every such option, so that each says the same sentence."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {value}")
    return value
