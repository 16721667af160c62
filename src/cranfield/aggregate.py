"""Combining per-topic values into one number, exactly as trec_eval does."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

import numpy as np

from cranfield.kernels.binary import log_clamped

if TYPE_CHECKING:
    from numpy.typing import NDArray

Aggregate = Literal["mean", "sum", "gmean"]


def sequential_sum(values: NDArray[np.float64]) -> float:
    """Sum in topic order, one addition at a time (numpy's pairwise sum rounds differently)."""
    if values.size == 0:
        return 0.0
    return float(np.cumsum(values)[-1])


def aggregate(values: NDArray[np.float64], how: Aggregate) -> float:
    """``mean`` (sum then one division), ``sum``, or ``gmean`` (trec_eval's clamped geometric mean)."""
    n = values.size
    if how == "sum":
        return sequential_sum(values)
    if n == 0:
        return math.nan
    if how == "gmean":
        return math.exp(sequential_sum(log_clamped(values)) / n)
    return sequential_sum(values) / n
