"""Option validation: one helper per kind of value, one sentence for every bad value.

Every check raises :class:`~cranfield.errors.OptionError`, whose message reads
``The 'depth' option must be an integer >= 0, got -1.`` (the shape of scikit-learn's
parameter validation). A function checks each of its options with these helpers, once, where
the options enter the library (:class:`cranfield.evaluation.EvalOptions` for the evaluation
options); nothing below that point checks them again.

>>> check_int("depth", -1, minimum=0)
Traceback (most recent call last):
...
cranfield.errors.OptionError: The 'depth' option must be an integer >= 0, got -1.

A value that is not an option (bad data, a measure's parameter, an inconsistency between
inputs) is not checked here: it has its own error (:mod:`cranfield.errors`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Literal, TypeVar, overload

from cranfield.errors import OptionError

__all__ = ["check_bool", "check_choice", "check_choices", "check_float", "check_int"]

T = TypeVar("T")


def _number(x: float) -> str:
    """``x`` as a person writes it: ``15000000``, ``0.5``, ``1e-05``."""
    return str(x) if isinstance(x, int) else f"{x:g}"


def _bounds(
    minimum: float | None, maximum: float | None, *, open_min: bool = False, open_max: bool = False
) -> str:
    low = "" if minimum is None else f"{'>' if open_min else '>='} {_number(minimum)}"
    high = "" if maximum is None else f"{'<' if open_max else '<='} {_number(maximum)}"
    if low and high:
        return f" {low} and {high}"
    return f" {low or high}" if (low or high) else ""


@overload
def check_int(
    option: str,
    value: object,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    none: Literal[False] = False,
) -> int: ...


@overload
def check_int(
    option: str,
    value: object,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    none: bool,
) -> int | None: ...


def check_int(
    option: str,
    value: object,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    none: bool = False,
) -> int | None:
    """``value`` as an ``int`` if it is an integer within the bounds; ``None`` if allowed.

    Any integral number counts (``numpy.int64`` included), never a ``bool``.

    >>> check_int("heap_size", 10, minimum=15_000_000)
    Traceback (most recent call last):
    ...
    cranfield.errors.OptionError: The 'heap_size' option must be an integer >= 15000000, got 10.
    """
    if value is None and none:
        return None
    number = int(value) if isinstance(value, numbers.Integral) else None
    if (
        number is None
        or isinstance(value, bool)
        or (minimum is not None and number < minimum)
        or (maximum is not None and number > maximum)
    ):
        what = "an integer" + _bounds(minimum, maximum) + (" or None" if none else "")
        raise OptionError(option, what, value)
    return number


def check_float(
    option: str,
    value: object,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    above: bool = False,
    below: bool = False,
) -> float:
    """``value`` as a finite ``float`` within the bounds (``above``: strictly above
    ``minimum``; ``below``: strictly below ``maximum``)."""
    number = (
        float(value)
        if isinstance(value, numbers.Real) and not isinstance(value, bool)
        else math.nan
    )
    bad = not math.isfinite(number)
    if not bad and minimum is not None:
        bad = number <= minimum if above else number < minimum
    if not bad and maximum is not None:
        bad = number >= maximum if below else number > maximum
    if bad:
        what = "a number" + _bounds(minimum, maximum, open_min=above, open_max=below)
        raise OptionError(option, what, value)
    return number


def check_bool(option: str, value: object) -> bool:
    """``value`` if it is ``True`` or ``False``."""
    if not isinstance(value, bool):
        raise OptionError(option, "True or False", value)
    return value


def check_choice(option: str, value: T, choices: Iterable[object]) -> T:
    """``value`` if it is one of ``choices``."""
    allowed = list(choices)
    if value not in allowed or isinstance(value, bool) != any(isinstance(c, bool) for c in allowed):
        raise OptionError(option, "one of " + ", ".join(map(repr, allowed)), value)
    return value


def check_choices(option: str, value: T | Iterable[T], choices: Iterable[object]) -> list[T]:
    """One choice or several, in order, without repeats; at least one."""
    allowed = list(choices)
    items: list[T] = [value] if isinstance(value, (str, int)) else list(value)  # type: ignore[arg-type]
    if not items:
        raise OptionError(option, "at least one of " + ", ".join(map(repr, allowed)), items)
    out: list[T] = []
    for item in items:
        check_choice(option, item, allowed)
        if item not in out:
            out.append(item)
    return out
