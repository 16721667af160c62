"""How a command ends: the one mapping from what went wrong to a message and an exit code.

Every command runs through :func:`run_command` (parse, then the command's body), so every
command ends the same way. This table is the one place the exit codes are written down;
``cranfield --help`` prints it (:func:`exit_codes_text`), and each command's page points here:

====  ==========================================================================
code  when
====  ==========================================================================
0     success, or only help was asked for
1     the command line is wrong: a usage error, an option with a value it cannot
      take (:class:`~cranfield.errors.OptionError`), an unknown measure
      (:class:`~cranfield.errors.MeasureError`), a missing optional dependency
      (the message says which ``pip install '.[extra]'`` brings it)
2     the data or the world is wrong: input that cannot be read
      (:class:`~cranfield.errors.InputError`, ``OSError``), input that cannot be
      evaluated as asked (:class:`~cranfield.errors.EvaluationError`), a failing
      engine (:class:`~cranfield.errors.EngineError`), an output that cannot be written,
      input too large for the memory at hand (``MemoryError``), a warning with ``--strict``
3     ``cranfield check --strict`` found something (a finding or a warning) in the
      files it checked, after printing its whole report
4, 7  ``cranfield trec-eval`` only: trec_eval's own codes (an evaluation failure, no
      topic evaluated)
130   interrupted (Ctrl-C): stopped at once, no file left half-written
====  ==========================================================================

A :class:`~cranfield.errors.CranfieldWarning` prints ``PROG: warning: MESSAGE`` on stderr and
the command goes on; with ``--strict`` it is an error (code 2). A closed output pipe
(``cranfield ... | head``) is not an error: :mod:`cranfield.cli.main` ends quietly with 0.
"""

from __future__ import annotations

import sys
import warnings
from typing import TYPE_CHECKING, Final, TextIO

from cranfield._lazy import INSTALL_HINT_START, install_hint
from cranfield.errors import (
    AmbiguousFormatError,
    CranfieldError,
    CranfieldWarning,
    EngineError,
    EvaluationError,
    InputError,
    MeasureError,
    OptionError,
    StoreWarning,
)

if TYPE_CHECKING:  # the parser (argparse) is imported when a command runs: not for --help
    import argparse
    from collections.abc import Callable, Sequence

    from cranfield.cli.parser import Parser

__all__ = ["EXIT_CODES", "FINDINGS", "exit_code", "exit_codes_text", "message", "run_command"]

USAGE: Final = 1
DATA: Final = 2
FINDINGS: Final = 3
"""``cranfield check --strict`` found something: neither a usage error nor unreadable data."""

EXIT_CODES: Final[dict[type[BaseException], int]] = {
    OptionError: USAGE,
    MeasureError: USAGE,
    InputError: DATA,
    EvaluationError: DATA,
    EngineError: DATA,
    CranfieldError: DATA,
    CranfieldWarning: DATA,  # a warning made an error by --strict
    UnicodeError: DATA,  # a binary file given as text
    OSError: DATA,
    MemoryError: DATA,  # input too large for the memory at hand (readers name the file)
    ValueError: USAGE,  # an option checked by hand in the library, not yet an OptionError
}
"""Exit code by exception class; an exception takes the code of the nearest class in its
method resolution order, so the order of this table does not matter (``InputError`` is a
``ValueError`` too, and is found first)."""

_NOT_AN_EXTRA: Final = frozenset({"bench", "test"})


def exit_codes_text() -> str:
    """The exit codes of this module's table as plain text, indented for ``cranfield --help``
    (empty when Python runs without docstrings, ``-OO``)."""
    import re
    import textwrap

    lines = (__doc__ or "").splitlines()
    rules = [i for i, line in enumerate(lines) if line.startswith("====")]
    if len(rules) < 3:
        return ""
    rows: list[tuple[str, str]] = []
    for line in lines[rules[1] + 1 : rules[2]]:
        code, text = line[:6].strip(), line[6:].strip()
        if code:
            rows.append((code, text))
        else:  # the row goes on
            rows[-1] = (rows[-1][0], f"{rows[-1][1]} {text}")
    out = []
    for code, text in rows:
        plain = re.sub(r":[a-z]+:`~?(?:[\w.]*\.)?([^`.]+)`", r"\1", text).replace("``", "")
        out.append(
            textwrap.fill(plain, 80, initial_indent=f"  {code:<6}", subsequent_indent=" " * 8)
        )
    return "\n".join(out) + "\n"


def exit_code(exc: BaseException) -> int | None:
    """The exit code of a command that raised ``exc``; ``None`` for an exception that is not
    the user's to fix (a bug: let it show its traceback) or a closed output pipe."""
    from cranfield.cli.parser import UsageError

    if isinstance(exc, UsageError):
        return exc.status
    if isinstance(exc, BrokenPipeError):
        return None
    if isinstance(exc, ImportError):
        return USAGE if _install_hint(exc) is not None else None
    for cls in type(exc).__mro__:
        if cls in EXIT_CODES:
            return EXIT_CODES[cls]
    return None


def message(exc: BaseException, parser: Parser | None = None) -> str:
    """``exc`` as one line for the command line, options named by their flags (as
    ``parser`` spells them, when it declares the option)."""
    if isinstance(exc, OptionError):
        return exc.for_command_line(parser.flag_for(exc.option) if parser else None)
    if isinstance(exc, AmbiguousFormatError) and parser is not None:
        # the run's format is --run-format where runs are evaluated, --from in convert
        flag = parser.flag_for("run_format") or parser.flag_for("source_format")
        return exc.for_command_line().replace("--run-format", flag or "--run-format")
    if isinstance(exc, CranfieldError):
        return exc.for_command_line()
    if isinstance(exc, CranfieldWarning):
        return f"{exc} (an error with --strict)"
    if isinstance(exc, ImportError):
        return _install_hint(exc) or str(exc)
    if isinstance(exc, MemoryError):
        return "out of memory; evaluate a large run with --stream"
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename is not None else ""
        return f"{where}{exc.strerror}."
    return str(exc)


def _install_hint(exc: ImportError) -> str | None:
    """The message of a missing optional dependency with the extra that installs it, or
    ``None`` if ``exc`` is not about one."""
    text = str(exc)
    if INSTALL_HINT_START in text:
        return text
    missing = _normalise((exc.name or "").split(".")[0])
    extra = _extra_providing(missing) if missing else None
    if extra is None:
        return None
    return f"{text}; {install_hint(extra)}"


def _extra_providing(package: str) -> str | None:
    import importlib.metadata
    import re

    try:
        requirements = importlib.metadata.requires("cranfield") or []
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a checkout
        return None
    for requirement in requirements:
        name = re.match(r"[A-Za-z0-9_.-]+", requirement)
        extra = re.search(r"extra == ['\"]([^'\"]+)['\"]", requirement)
        if name and extra and extra[1] not in _NOT_AN_EXTRA and _normalise(name[0]) == package:
            return extra[1]
    return None


def _normalise(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def run_command(
    prog: str,
    parser: Callable[[TextIO, TextIO], Parser],
    body: Callable[[argparse.Namespace, TextIO, TextIO], int],
    argv: Sequence[str],
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Parse ``argv`` with ``parser(out, err)``, run ``body(args, out, err)`` and return its
    exit code; an error prints ``PROG: MESSAGE`` on ``err`` and returns its code
    (:data:`EXIT_CODES`)."""
    from cranfield.cli.parser import UsageError

    out = sys.stdout if stdout is None else stdout
    err = sys.stderr if stderr is None else stderr
    args: argparse.Namespace | None = None
    the_parser: Parser | None = None
    try:
        the_parser = parser(out, err)
        args = the_parser.parse_args(list(argv))
        return _warned(body, args, out, err, getattr(args, "command_prog", prog))
    except Exception as exc:
        code = exit_code(exc)
        if code is None:
            raise
        name = getattr(args, "command_prog", prog)
        if isinstance(exc, UsageError):
            if exc.message:
                err.write(f"{name}: error: {exc.message}\n")
        else:
            err.write(f"{name}: {message(exc, the_parser)}\n")
        return code


def _warned(
    body: Callable[[argparse.Namespace, TextIO, TextIO], int],
    args: argparse.Namespace,
    out: TextIO,
    err: TextIO,
    name: str,
) -> int:
    """``body(args, out, err)``, each :class:`~cranfield.errors.CranfieldWarning` it issues
    printed as ``NAME: warning: MESSAGE`` on ``err`` (raised instead with ``--strict``);
    other warnings go their usual way."""
    caught: list[warnings.WarningMessage] = []
    strict = getattr(args, "strict", False)
    try:
        with warnings.catch_warnings(record=True) as recorded:
            caught = recorded
            warnings.simplefilter("error" if strict else "always", CranfieldWarning)
            warnings.simplefilter("always", StoreWarning)  # the numbers given are computed
            return body(args, out, err)
    finally:  # after the filters are restored; also when the body then fails
        for w in caught:
            if issubclass(w.category, CranfieldWarning):
                err.write(f"{name}: warning: {w.message}\n")
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
