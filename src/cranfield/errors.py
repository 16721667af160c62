"""The one exception tree of cranfield.

::

    CranfieldError                 base of everything cranfield raises on purpose
    ├── InputError                 a file or in-memory object cannot be read as qrels/run
    ├── OptionError                an option with a value it cannot take (also ValueError/TypeError)
    ├── MeasureError               an unknown measure name or an invalid parameter
    ├── EvaluationError            inputs are well formed but cannot be evaluated as asked
    │   └── MissingTopicError      a judged topic is absent from the run (policy "error")
    ├── EngineError                a system under test failed (cranfield.lab.systems)
    └── WorkdirInUseError          another experiment holds the lab's work directory

    CranfieldWarning               base of every warning (a UserWarning): the inputs are
    ├── QueryOverlapWarning        read, but the numbers are likely not what was meant
    └── QrelsNoteWarning           reading changed what the qrels say (a note of theirs)

Every message is one sentence that says what was wrong and where:
``qrels.txt:12: expected 4 fields (qid iter docno rel), got 3: '301 0 DOC1'``.

A message that names an option names it as the caller writes it: ``missing='zero'`` in
Python, ``--missing zero`` on the command line (:meth:`CranfieldError.for_command_line`,
built with :func:`spelled`), so the library never imports the command line.
"""

from __future__ import annotations

__all__ = [
    "AmbiguousFormatError",
    "CranfieldError",
    "CranfieldWarning",
    "EngineError",
    "EvaluationError",
    "InputError",
    "MeasureError",
    "MissingTopicError",
    "OptionError",
    "QrelsNoteWarning",
    "QueryOverlapWarning",
    "StoreWarning",
    "UnknownKindError",
    "WorkdirInUseError",
]


def spelled(option: str, value: object, *, command_line: bool = False) -> str:
    """An option set to a value, as a Python caller or a command-line user writes it.

    Examples
    --------
    >>> spelled("on_conflict", "new")
    "on_conflict='new'"
    >>> spelled("on_conflict", "new", command_line=True)
    '--on-conflict new'
    """
    if command_line:
        return f"--{option.replace('_', '-')} {value}"
    return f"{option}={value!r}"


class CranfieldError(Exception):
    """Base class of every error cranfield raises on purpose.

    Parameters
    ----------
    *args:
        The message (as for any exception).
    command_line:
        The same message worded for the command line, when the message names an option
        (``--missing zero`` instead of ``missing='zero'``); by default the message itself.
    """

    def __init__(self, *args: object, command_line: str | None = None) -> None:
        super().__init__(*args)
        self._command_line = command_line

    def for_command_line(self) -> str:
        """The message as the command line prints it, options named by their flags."""
        return str(self) if self._command_line is None else self._command_line

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled whole (message, attributes), whatever the subclass's constructor takes: an
        error raised in a worker process is raised again as it was where the results are
        gathered (:mod:`cranfield.evaluation.engines`)."""
        return (_rebuilt, (type(self), self.args, self.__dict__))


def _rebuilt(
    cls: type[CranfieldError], args: tuple[object, ...], state: dict[str, object]
) -> CranfieldError:
    """An unpickled :class:`CranfieldError`: its arguments and attributes, no constructor run."""
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(state)
    return error


class InputError(CranfieldError, ValueError):
    """Malformed input; the message names the source, the line and the offending text.

    Attributes
    ----------
    source:
        File name (or a description such as ``"<DataFrame>"``) of the bad input.
    line:
        1-based physical line number (or row number for in-memory data), if known.
    """

    def __init__(
        self,
        source: str,
        line: int | None,
        problem: str,
        text: str | None = None,
        *,
        command_line_problem: str | None = None,
    ):
        self.source = source
        self.line = line
        self.problem = problem
        self.text = text
        cli = None if command_line_problem is None else self._message(command_line_problem)
        super().__init__(self._message(problem), command_line=cli)

    def _message(self, problem: str) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        msg = f"{where}: {problem}"
        if self.text is not None:
            text = self.text
            shown = text if len(text) <= 120 else text[:117] + "..."
            msg += f": {shown!r}"
        return msg


class UnknownKindError(InputError):
    """A file that does not say whether it holds a run or judgments (ranx JSON, a table with
    both or neither kind of value column), where its kind was not given."""


class AmbiguousFormatError(InputError):
    """A file whose first lines fit two formats that would read it differently (a headerless
    ``qid doc integer`` table: MS MARCO ranks, or scores?), where its format was not given."""


class OptionError(CranfieldError, ValueError, TypeError):
    """An option given a value it cannot take.

    Every such message has one shape, ``The 'depth' option must be an integer >= 0, got -1.``;
    the command line words the same error with its flag (``The --depth option must be ...``).

    Attributes
    ----------
    option:
        The option's Python name (``"depth"``, ``"relevance_level"``).
    expected:
        What the option takes (``"an integer >= 0"``, ``"one of 'zero', 'skip', 'error'"``).
    value:
        The value given.
    """

    def __init__(self, option: str, expected: str, value: object, *, note: str = ""):
        self.option = option
        self.expected = expected
        self.value = value
        self.note = note
        super().__init__(self.worded(f"'{option}'"))

    def worded(self, label: str, *, expected: str | None = None) -> str:
        """The message with the option called ``label`` (``'depth'`` or ``--depth``, or a
        command's positional argument such as ``OUT``, which is not called an option)."""
        tail = f" {self.note}" if self.note else ""
        what = self.expected if expected is None else expected
        shown = repr(self.value)
        if len(shown) > 120:  # a long list or mapping: its start says enough
            shown = shown[:117] + "..."
        subject = label if label[:1].isalpha() else f"The {label} option"
        return f"{subject} must be {what}, got {shown}.{tail}"

    def for_command_line(self, flag: str | None = None) -> str:
        """The message with the option named by its flag: ``The --depth option ...``.

        ``flag`` is the command's flag for the option when it is not the option's name
        spelled as a flag (``--test`` for ``tests``). A flag left out is the default, so
        "or None" is not said of it.

        Examples
        --------
        >>> OptionError("depth", "an integer >= 0 or None", -1).for_command_line()
        'The --depth option must be an integer >= 0, got -1.'
        >>> OptionError("n_resamples", "an integer >= 1", 0).for_command_line("--resamples")
        'The --resamples option must be an integer >= 1, got 0.'
        """
        label = flag or "--" + self.option.replace("_", "-")
        return self.worded(label, expected=self.expected.removesuffix(" or None"))


class MeasureError(CranfieldError, ValueError):
    """An unknown measure name or an invalid measure parameter."""


class EvaluationError(CranfieldError):
    """Well-formed inputs that cannot be evaluated as requested."""


class MissingTopicError(EvaluationError):
    """A topic judged in the qrels has no line in the run and the policy is ``"error"``."""

    def __init__(self, topics: list[str]):
        self.topics = topics
        shown = ", ".join(repr(t) for t in topics[:5])
        more = f" and {len(topics) - 5} more" if len(topics) > 5 else ""

        def message(command_line: bool) -> str:
            zero = spelled("missing", "zero", command_line=command_line)
            skip = spelled("missing", "skip", command_line=command_line)
            return (
                f"{len(topics)} judged topic(s) have no line in the run: {shown}{more}; "
                f"use {zero} to score them 0 or {skip} to leave them out."
            )

        super().__init__(message(False), command_line=message(True))


class EngineError(CranfieldError):
    """A system under test failed: an engine error, an HTTP error or an unreadable answer."""


class WorkdirInUseError(CranfieldError):
    """Another process runs an experiment in the same work directory (:mod:`cranfield.lab`)."""


class CranfieldWarning(UserWarning):
    """Base class of every warning cranfield issues: the inputs could be read and evaluated,
    but the numbers are likely not what was meant. ``cranfield ... --strict`` (or
    ``warnings.simplefilter("error", CranfieldWarning)`` in Python) makes each an error."""


class QueryOverlapWarning(CranfieldWarning):
    """A run answers fewer than half of the queries judged in the qrels."""


class StoreWarning(CranfieldWarning):
    """The result store (``--store``) held a damaged entry, which was computed again, or could
    not keep what was computed (a read-only or full disk). The numbers given are computed,
    so ``--strict`` prints it without failing the command."""


class QrelsNoteWarning(CranfieldWarning):
    """Reading the qrels changed what they say: repeated judgments merged, decimal labels
    read as levels and gains. The message is one of the qrels' notes
    (:attr:`Qrels.notes <cranfield.data.qrels.Qrels.notes>`), issued once as they are read."""
