"""How a score is shown to people: four decimals, and the best by what is shown.

A mean of ``-0.00000001`` reads ``0.0000``, not ``-0.0000``; two means that print the same
are equally the best, so both are marked (bold), whatever their last bits.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["best_shown", "four_places"]


def four_places(value: float) -> str:
    """``value`` with four decimals, without a minus sign on a value that reads zero.

    Examples
    --------
    >>> four_places(-0.00000001), four_places(0.31236), four_places(-0.5)
    ('0.0000', '0.3124', '-0.5000')
    """
    text = f"{value:.4f}"
    return "0.0000" if text == "-0.0000" else text


def best_shown(values: Iterable[float]) -> str | None:
    """The text of the highest finite value as :func:`four_places` shows it; every value
    shown as this text is a best one. ``None`` when no value is finite.

    Examples
    --------
    >>> best_shown([0.31240000001, 0.3124, 0.2, math.nan])
    '0.3124'
    """
    finite = [v for v in values if math.isfinite(v)]
    return four_places(max(finite)) if finite else None
