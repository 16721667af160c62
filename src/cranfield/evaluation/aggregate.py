"""Combining per-topic values into one number.

``mean``, ``sum`` and ``gmean`` are exactly trec_eval's (sequential sums; the geometric mean
clamps each value at ``epsilon`` = 1e-5 before the logarithm, as ``gm_map``). ``median`` is
the middle value (the mean of the two middle values for an even count): the right summary
for ordinal scales such as reciprocal rank (Fuhr, 'Some common mistakes in IR evaluation',
SIGIR Forum 2017). ``micro`` is not a function of per-topic values: set measures compute it
from contingency counts pooled over topics (see :mod:`cranfield.kernels.contingency`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

import numpy as np

from cranfield._types import Aggregation
from cranfield.kernels.binary import MIN_GEO_MEAN

if TYPE_CHECKING:
    from numpy.typing import NDArray

Aggregate = Literal["mean", "sum", "gmean", "median"]
How = Aggregation  # the option's vocabulary, declared once in cranfield._types


def sequential_sum(values: NDArray[np.float64]) -> float:
    """Sum in topic order, one addition at a time (numpy's pairwise sum rounds differently)."""
    if values.size == 0:
        return 0.0
    return float(np.cumsum(values)[-1])


def aggregate(
    values: NDArray[np.float64], how: Aggregate, *, epsilon: float = MIN_GEO_MEAN
) -> float:
    """Combine per-topic ``values``; NaN for no topics (except ``sum``, 0).

    Parameters
    ----------
    values:
        One value per topic, in topic order.
    how:
        ``"mean"`` (sum then one division), ``"sum"``, ``"gmean"`` (exp of the mean of
        ``ln(max(x, epsilon))``, GMAP) or ``"median"``.
    epsilon:
        Floor applied before the logarithm of ``gmean`` (trec_eval: 1e-5), so a topic
        scoring 0 does not send the geometric mean to 0.

    Examples
    --------
    >>> import numpy as np
    >>> round(aggregate(np.array([0.02, 0.03, 0.29]), "gmean"), 3)
    0.056
    >>> aggregate(np.array([1.0, 0.5, 0.25]), "median")
    0.5
    """
    n = values.size
    if how == "sum":
        return sequential_sum(values)
    if n == 0:
        return math.nan
    if how == "gmean":  # epsilon > 0: checked where it enters (EvalOptions, Results.aggregate)
        return math.exp(sequential_sum(np.log(np.maximum(values, epsilon))) / n)
    if how == "median":
        return float(np.median(values))
    return sequential_sum(values) / n
