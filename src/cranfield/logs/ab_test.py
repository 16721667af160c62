"""A/B tests: the difference of a metric between two buckets, with an interval that respects
the unit of randomisation, and the units needed to detect an effect.

The data are one row per session (or impression): the metric's value, the bucket (A/B) and
the unit that was randomised (a user; by default each row is its own unit). The metric of a
bucket is the mean over its rows, ``R = Σ_u S_u / Σ_u N_u``, where ``S_u`` sums the values of
unit ``u`` and ``N_u`` counts its rows (or sums a denominator: with ``denominators``, a
ratio metric such as CTR = clicks / impressions per user).

Units, not rows, are independent, so ``R`` is a ratio of two means over units and its
variance is the delta method's (Deng, Knoblich & Lu 2018), the cluster-robust variance of a
mean:

    Var(R) = Σ_u (S_u - R N_u)^2 / (n (n - 1) N̄^2),    N̄ = Σ_u N_u / n,

for a bucket of ``n`` units. With one row per unit it is the familiar ``s^2 / n``. When the
rows of a unit are positively correlated (a user's sessions), it is larger than the naive
per-row variance, as it should be: treating sessions as independent when users were
randomised understates the uncertainty.

The difference ``d = R_B - R_A`` (treatment minus control) has standard error
``se = sqrt(Var_A + Var_B)`` (the buckets are independent); the interval is
``d ± t_{1-α/2, ν} se`` and the p-value two-sided, with Welch–Satterthwaite's
``ν = se^4 / (Var_A^2 / (n_A - 1) + Var_B^2 / (n_B - 1))``.

The units needed per bucket to detect a difference ``δ`` with a two-sided test at level ``α``
and power ``1 - β`` (the normal approximation of the two-sample test, equal buckets):

    n = (z_{1-α/2} + z_{1-β})^2 (σ_A^2 + σ_B^2) / δ^2,

where ``σ^2 = n Var(R)`` is a bucket's variance per unit (of the linearised metric
``(S_u - R N_u) / N̄``) estimated from the data (Kohavi, Tang & Xu 2020, ch. 17).

References
----------
A. Deng, U. Knoblich and J. Lu, "Applying the delta method in metric analytics: a practical
guide with novel ideas", KDD 2018.
R. Kohavi, D. Tang and Y. Xu, *Trustworthy Online Controlled Experiments*, Cambridge
University Press, 2020.
B. L. Welch, "The generalization of 'Student's' problem when several different population
variances are involved", Biometrika 34, 1947.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from cranfield._validate import check_float
from cranfield.errors import InputError, OptionError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike, NDArray

__all__ = ["ABTest", "Bucket", "ab_test", "sample_size"]


@dataclass(frozen=True)
class Bucket:
    """One bucket of an A/B test.

    Attributes
    ----------
    name:
        The bucket's name.
    units, rows:
        Its units of randomisation and its rows (sessions).
    mean:
        ``R``, the metric over its rows (``Σ S_u / Σ N_u``).
    variance:
        ``Var(R)`` by the delta method over units.
    """

    name: str
    units: int
    rows: int
    mean: float
    variance: float

    @property
    def unit_variance(self) -> float:
        """``σ^2 = units * Var(R)``, the variance per unit that sizes an experiment."""
        return self.units * self.variance

    def to_dict(self) -> dict[str, Any]:
        """The bucket as plain JSON-ready values."""
        return {
            "name": self.name,
            "units": self.units,
            "rows": self.rows,
            "mean": self.mean,
            "standard_error": math.sqrt(self.variance),
        }


@dataclass(frozen=True)
class ABTest:
    """The outcome of :func:`ab_test`.

    Attributes
    ----------
    control, treatment:
        The two buckets.
    difference:
        ``treatment.mean - control.mean``.
    standard_error, df:
        Its standard error and Welch–Satterthwaite degrees of freedom.
    interval:
        The ``1 - alpha`` confidence interval of the difference.
    p_value:
        Two-sided p-value of no difference.
    alpha:
        The level.
    unit:
        What was randomised (the unit column's name, or ``"row"``).
    """

    control: Bucket
    treatment: Bucket
    difference: float
    standard_error: float
    df: float
    interval: tuple[float, float]
    p_value: float
    alpha: float
    unit: str

    @property
    def relative_difference(self) -> float:
        """``difference / control.mean`` (NaN when the control's mean is 0)."""
        return self.difference / self.control.mean if self.control.mean else math.nan

    def units_needed(self, mde: float, *, power: float = 0.8) -> int:
        """Units per bucket to detect a difference of ``mde`` at this test's ``alpha`` and
        ``power``, with the variances per unit of these data (:func:`sample_size`)."""
        return sample_size(
            self.control.unit_variance + self.treatment.unit_variance,
            mde,
            alpha=self.alpha,
            power=power,
        )

    def to_dict(self) -> dict[str, Any]:
        """The test as plain JSON-ready values."""
        relative = self.relative_difference
        return {
            "control": self.control.to_dict(),
            "treatment": self.treatment.to_dict(),
            "unit": self.unit,
            "difference": self.difference,
            "relative_difference": None if math.isnan(relative) else relative,
            "standard_error": self.standard_error,
            "df": self.df if math.isfinite(self.df) else None,
            "interval": list(self.interval),
            "confidence": 1.0 - self.alpha,
            "p_value": self.p_value,
        }


def _bucket(
    name: str, values: NDArray[np.float64], weights: NDArray[np.float64], unit: NDArray[np.int64]
) -> Bucket:
    """A bucket's mean and delta-method variance over its units."""
    _, code = np.unique(unit, return_inverse=True)
    code = code.ravel()
    s = np.bincount(code, weights=values)
    w = np.bincount(code, weights=weights)
    n = s.size
    total = w.sum()
    if total <= 0:
        raise OptionError("denominators", f"a positive total in bucket {name!r}", total)
    mean = s.sum() / total
    if n < 2:
        variance = math.nan
    else:
        mean_w = total / n
        residual = s - mean * w
        variance = float((residual @ residual) / (n * (n - 1) * mean_w**2))
    return Bucket(name, n, int(values.size), float(mean), variance)


def ab_test(  # noqa: PLR0913 -- the data, its source for errors, then settings
    values: ArrayLike,
    buckets: Sequence[str] | ArrayLike,
    *,
    units: ArrayLike | None = None,
    denominators: ArrayLike | None = None,
    control: str | None = None,
    alpha: float = 0.05,
    unit_name: str | None = None,
    source: str = "<data>",
    lines: Sequence[int] | None = None,
) -> ABTest:
    """The difference of a metric between two buckets, its interval and p-value.

    Parameters
    ----------
    values:
        The metric of each row (session or impression).
    buckets:
        The bucket of each row; exactly two distinct buckets.
    units:
        The unit of randomisation of each row (a user id); ``None``: each row is its own unit.
        A unit must stay in one bucket.
    denominators:
        Optional denominator of each row for a ratio metric (``Σ values / Σ denominators``
        per bucket, e.g. clicks over impressions); default 1 per row (the mean of the rows).
    control:
        The control bucket's name (default: the first in sorted order); the difference is
        the other bucket minus the control.
    alpha:
        The interval covers ``1 - alpha``.
    unit_name:
        What the unit is called in the result (default ``"row"`` without ``units``, else
        ``"unit"``).
    source, lines:
        How errors about rows name them: the file and the line of each row (default
        ``<data>`` and the 1-based row).

    Raises
    ------
    InputError
        If a unit is in both buckets (naming the first row that moves it).

    Examples
    --------
    >>> clicks = [1, 0, 1, 1, 0, 1, 1, 1]
    >>> bucket = ["A", "A", "A", "A", "B", "B", "B", "B"]
    >>> t = ab_test(clicks, bucket)
    >>> t.control.mean, t.treatment.mean, t.difference
    (0.75, 0.75, 0.0)
    >>> t = ab_test([0.2, 0.4, 0.3, 0.5, 0.6, 0.7], ["A", "A", "A", "B", "B", "B"])
    >>> round(t.difference, 4), round(t.standard_error, 4), round(t.p_value, 4)
    (0.3, 0.0816, 0.0213)
    """
    v = np.asarray(values, dtype=np.float64)
    b = np.asarray(buckets)
    if v.ndim != 1 or v.size == 0 or not np.isfinite(v).all():
        raise OptionError("values", "a non-empty 1-d array of finite numbers", f"shape {v.shape}")
    if b.shape != v.shape:
        raise OptionError("buckets", f"one bucket per value ({v.size})", f"shape {b.shape}")
    a = check_float("alpha", alpha, minimum=0.0, maximum=1.0, above=True, below=True)
    names, bucket_code = np.unique(b.astype(str), return_inverse=True)
    if names.size != 2:
        raise OptionError("buckets", "exactly two distinct buckets", names.tolist()[:5])
    first = 0 if control is None else _index(names, control)
    unit = _units(units, v.size, bucket_code.ravel(), source, lines)
    w = np.ones_like(v) if denominators is None else np.asarray(denominators, dtype=np.float64)
    if w.shape != v.shape or not np.isfinite(w).all() or (w < 0).any():
        raise OptionError("denominators", f"{v.size} finite numbers >= 0", f"shape {w.shape}")
    code = bucket_code.ravel()
    c, t = (
        _bucket(str(names[j]), v[code == j], w[code == j], unit[code == j])
        for j in (first, 1 - first)
    )
    return _compare(c, t, a, unit_name or ("row" if units is None else "unit"))


def _index(names: NDArray[np.str_], control: str) -> int:
    hits = np.flatnonzero(names == str(control))
    if hits.size == 0:
        raise OptionError("control", "one of " + ", ".join(map(repr, names.tolist())), control)
    return int(hits[0])


def _units(
    units: ArrayLike | None,
    n: int,
    bucket: NDArray[np.intp],
    source: str,
    lines: Sequence[int] | None,
) -> NDArray[np.int64]:
    """Unit codes of the rows; a unit in two buckets is an error naming its first move."""
    if units is None:
        return np.arange(n, dtype=np.int64)
    u = np.asarray(units)
    if u.shape != (n,):
        raise OptionError("units", f"one unit per value ({n})", f"shape {u.shape}")
    _, code = np.unique(u, return_inverse=True)
    code = code.ravel().astype(np.int64)
    home = np.full(int(code.max()) + 1, -1)
    home[code[::-1]] = bucket[::-1]  # the bucket of each unit's first row
    moved = np.flatnonzero(home[code] != bucket)
    if moved.size:
        row = int(moved[0])
        where = "" if lines is not None else f"row {row + 1}: "
        raise InputError(
            source,
            None if lines is None else int(lines[row]),
            f"{where}unit {str(u[row])!r} is in two buckets, the unit of randomisation must "
            "stay in one",
        )
    return code


def _compare(c: Bucket, t: Bucket, alpha: float, unit: str) -> ABTest:
    from scipy import stats

    d = t.mean - c.mean
    var = c.variance + t.variance
    if not math.isfinite(var):
        raise OptionError("units", "at least two units in each bucket", (c.units, t.units))
    se = math.sqrt(var)
    if se == 0.0:
        p = 1.0 if d == 0 else 0.0
        return ABTest(c, t, d, 0.0, math.inf, (d, d), p, alpha, unit)
    df = var**2 / (c.variance**2 / (c.units - 1) + t.variance**2 / (t.units - 1))
    q = float(stats.t.ppf(1.0 - alpha / 2.0, df))
    p = float(2.0 * stats.t.sf(abs(d) / se, df))
    return ABTest(c, t, d, se, float(df), (d - q * se, d + q * se), p, alpha, unit)


def sample_size(variance: float, mde: float, *, alpha: float = 0.05, power: float = 0.8) -> int:
    """Units per bucket for a two-sided two-sample test to detect a difference ``mde``.

    ``n = ceil((z_{1-α/2} + z_power)^2 * variance / mde^2)``, ``variance`` the sum of the two
    buckets' variances per unit (``2 σ^2`` for equal variances).

    Examples
    --------
    >>> sample_size(2 * 0.25, 0.05)          # a rate near 1/2, 5 points: ~ 16 σ^2 / δ^2
    1570
    """
    var = check_float("variance", variance, minimum=0.0)
    delta = check_float("mde", mde, minimum=0.0, above=True)
    a = check_float("alpha", alpha, minimum=0.0, maximum=1.0, above=True, below=True)
    pw = check_float("power", power, minimum=0.0, maximum=1.0, above=True, below=True)
    from scipy import special

    z = float(special.ndtri(1.0 - a / 2.0) + special.ndtri(pw))
    return max(1, math.ceil(z * z * var / (delta * delta)))
