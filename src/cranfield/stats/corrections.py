"""Multiple-comparison corrections: Bonferroni, Holm, Benjamini–Hochberg.

All three are applied to a whole family of p-values at once and return *adjusted* p-values:
a hypothesis is rejected at level ``alpha`` exactly when its adjusted p-value is ``<= alpha``,
which is the same decision as the step-up/step-down procedure run at ``alpha``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal, get_args

import numpy as np

from cranfield.errors import OptionError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["CORRECTIONS", "Correction", "adjust_p_values", "correction_label"]

Correction = Literal["none", "bonferroni", "holm", "bh"]
CORRECTIONS: Final[tuple[str, ...]] = get_args(Correction)

_LABELS: Final[dict[str, str]] = {
    "none": "no correction",
    "bonferroni": "Bonferroni correction",
    "holm": "Holm correction",
    "bh": "Benjamini–Hochberg (FDR) correction",
}
_ALIASES: Final[dict[str, str]] = {
    "fdr": "bh",
    "fdr_bh": "bh",
    "benjamini-hochberg": "bh",
    "holm-bonferroni": "holm",
}


def check_correction(correction: str, option: str = "correction") -> Correction:
    """The canonical name of ``correction`` (aliases such as ``"fdr"`` accepted), or an
    :class:`~cranfield.errors.OptionError` about ``option``."""
    name = (
        _ALIASES.get(correction.lower(), correction.lower())
        if isinstance(correction, str)
        else None
    )
    if name not in CORRECTIONS:
        raise OptionError(option, "one of " + ", ".join(map(repr, CORRECTIONS)), correction)
    return name  # type: ignore[return-value]


def correction_label(correction: str) -> str:
    """Human name of a correction, e.g. ``"Holm correction"``."""
    return _LABELS[check_correction(correction)]


def adjust_p_values(p_values: ArrayLike, method: Correction = "holm") -> NDArray[np.float64]:
    """Adjusted p-values for one family of hypotheses.

    Parameters
    ----------
    p_values:
        One p-value per hypothesis of the family, any shape; each in ``[0, 1]``.
    method:
        ``"none"`` (returned unchanged), ``"bonferroni"`` (``min(1, m p)``), ``"holm"``
        (step-down Bonferroni; controls the family-wise error rate under any dependence) or
        ``"bh"`` (Benjamini–Hochberg step-up; controls the false discovery rate for
        independent or positively dependent tests).

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, same shape as the input, each in ``[0, 1]``.

    Raises
    ------
    ValueError
        If a p-value is NaN or outside ``[0, 1]``, or the method is unknown.

    Notes
    -----
    With ``m`` hypotheses and p-values sorted ascending, ``p_(1) <= ... <= p_(m)``:

    * Holm: ``adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))`` [1]_;
    * Benjamini–Hochberg: ``adj_(i) = min_{j >= i} min(1, m p_(j) / j)`` [2]_.

    Equal p-values receive equal adjusted values for Bonferroni and BH; for Holm the running
    maximum makes them equal as well. The family is exactly the p-values passed in: call it once
    with every hypothesis a study tests, never once per table column.

    References
    ----------
    .. [1] S. Holm, "A simple sequentially rejective multiple test procedure",
       Scandinavian Journal of Statistics 6(2), 1979.
    .. [2] Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate", JRSS B 57(1), 1995.

    Examples
    --------
    >>> from cranfield.stats import adjust_p_values
    >>> adjust_p_values([0.01, 0.04, 0.03, 0.005], "holm").round(4).tolist()
    [0.03, 0.06, 0.06, 0.02]
    >>> adjust_p_values([0.01, 0.04, 0.03, 0.005], "bh").round(4).tolist()
    [0.02, 0.04, 0.04, 0.02]
    """
    name = check_correction(method, "method")
    p = np.array(p_values, dtype=np.float64)
    if np.isnan(p).any():
        raise ValueError(
            "p_values must not contain NaN; a correction cannot place an undefined test."
        )
    if p.size and (p.min() < 0.0 or p.max() > 1.0):
        bad = p[(p < 0.0) | (p > 1.0)].flat[0]
        raise ValueError(f"p_values must lie in [0, 1], got {float(bad)!r}.")
    flat = p.ravel()
    m = flat.size
    if name == "none" or m == 0:
        return p
    if name == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(flat, kind="stable")
    ranked = flat[order]
    if name == "holm":
        adjusted = np.maximum.accumulate(np.minimum(1.0, ranked * (m - np.arange(m))))
    else:  # bh
        scaled = ranked * m / np.arange(1, m + 1)
        adjusted = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    out = np.empty(m)
    out[order] = adjusted
    return out.reshape(p.shape)
