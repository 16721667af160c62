"""The promise every reader keeps on any input, checked against a reference verdict: exactly
the reference's values, or one :class:`~cranfield.errors.InputError` of one line naming the
file and a line the reference finds wrong; never another exception."""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from cranfield.errors import InputError
from tests.fuzz.reference_formats import Verdict

T = TypeVar("T")


def attempt(read: Callable[[], T]) -> T | InputError:
    """What ``read()`` returns, or the InputError it raises (any other exception escapes and
    fails the test with its traceback)."""
    try:
        return read()
    except InputError as exc:
        return exc


def one_line_error(outcome: object, path: Path | str) -> InputError:
    """``outcome`` is an InputError of one line naming ``path``."""
    assert isinstance(outcome, InputError), f"expected an InputError, got {outcome!r}"
    message = str(outcome)
    assert outcome.source == str(path), message
    assert message.startswith(str(path)), message
    assert "\n" not in message, message
    assert "\r" not in message, message
    return outcome


def refused_as_the_reference(outcome: object, path: Path | str, verdict: Verdict) -> None:
    """An invalid input was refused, naming a line the reference finds wrong (no line: a
    file without data lines)."""
    error = one_line_error(outcome, path)
    if verdict.bad:
        assert error.line in verdict.bad, (str(error), verdict.bad)
        assert str(error).startswith(f"{path}:{error.line}: "), str(error)
    else:
        assert verdict.empty
        assert error.line is None, str(error)
        assert "contains no" in error.problem, str(error)


def exact(value: float) -> bytes:
    """A float's bits: equal numbers with different signs of zero or payloads differ."""
    return struct.pack("<d", value)


def exact_rows(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Rows with every float replaced by its bits."""
    return [tuple(exact(v) if isinstance(v, float) else v for v in row) for row in rows]
