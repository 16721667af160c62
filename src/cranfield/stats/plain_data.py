"""THE rule for numbers in plain data (the ``to_dict`` of every statistics result, written as
JSON): a NaN or an infinity is ``None``, since JSON has neither."""

from __future__ import annotations

import math

__all__ = ["finite_or_none"]


def finite_or_none(v: float) -> float | None:
    """``v``, or ``None`` when it is not a finite number.

    Examples
    --------
    >>> finite_or_none(0.25), finite_or_none(float("nan")), finite_or_none(float("inf"))
    (0.25, None, None)
    """
    return v if math.isfinite(v) else None
