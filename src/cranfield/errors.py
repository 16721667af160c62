"""The one exception tree of cranfield.

::

    CranfieldError                 base of everything cranfield raises on purpose
    ├── InputError                 a file or in-memory object cannot be read as qrels/run
    ├── OptionError                an option with a value it cannot take (also ValueError/TypeError)
    ├── MeasureError               an unknown measure name or an invalid parameter
    ├── EvaluationError            inputs are well formed but cannot be evaluated as asked
    │   └── MissingTopicError      a judged topic is absent from the run (policy "error")
    └── EngineError                a system under test failed (cranfield.lab.systems)

Every message is one sentence that says what was wrong and where:
``qrels.txt:12: expected 4 fields (qid iter docno rel), got 3: '301 0 DOC1'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "CranfieldError",
    "EngineError",
    "EvaluationError",
    "InputError",
    "MeasureError",
    "MissingTopicError",
    "OptionError",
]


class CranfieldError(Exception):
    """Base class of every error cranfield raises on purpose."""


class InputError(CranfieldError, ValueError):
    """Malformed input; the message names the source, the line and the offending text.

    Attributes
    ----------
    source:
        File name (or a description such as ``"<DataFrame>"``) of the bad input.
    line:
        1-based physical line number (or row number for in-memory data), if known.
    """

    def __init__(self, source: str, line: int | None, problem: str, text: str | None = None):
        self.source = source
        self.line = line
        self.problem = problem
        self.text = text
        where = f"{source}:{line}" if line is not None else source
        msg = f"{where}: {problem}"
        if text is not None:
            shown = text if len(text) <= 120 else text[:117] + "..."
            msg += f": {shown!r}"
        super().__init__(msg)


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

    def worded(self, label: str) -> str:
        """The message with the option called ``label`` (``'depth'`` or ``--depth``)."""
        tail = f" {self.note}" if self.note else ""
        shown = repr(self.value)
        if len(shown) > 120:  # a long list or mapping: its start says enough
            shown = shown[:117] + "..."
        return f"The {label} option must be {self.expected}, got {shown}.{tail}"

    def for_command_line(self, flags: Mapping[str, str] | None = None) -> str:
        """The message with the option named by its flag: ``The --depth option ...``.

        ``flags`` names the flag of an option whose flag is not ``--`` and its name with
        dashes: ``{"k": "-k", "query_id": "--query"}`` (argparse: ``dest`` to flag).

        >>> OptionError("k", "an integer >= 1", 0).for_command_line({"k": "-k"})
        'The -k option must be an integer >= 1, got 0.'
        """
        flag = (flags or {}).get(self.option) or "--" + self.option.replace("_", "-")
        return self.worded(flag)


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
        super().__init__(
            f"{len(topics)} judged topic(s) have no line in the run: {shown}{more}; "
            "use missing='zero' to score them 0 or missing='skip' to leave them out."
        )


class EngineError(CranfieldError):
    """A system under test failed: an engine error, an HTTP error or an unreadable answer."""
