"""The examination chain of the cascade family (cascade, DCM, DBN, SDBN), vectorised.

In these models a user examines rank 1, clicks an examined result with its attractiveness
``α_r``, and goes on to examine rank ``r + 1`` with a probability that depends only on whether
rank ``r`` was clicked: ``after_click_r`` after a click, ``after_skip`` after a skip.

=========  ===================  ==========
model      after_click_r        after_skip
=========  ===================  ==========
cascade    0                    1
DCM        λ_r                  1
DBN        γ (1 - σ_r)          γ
SDBN       1 - σ_r              1
=========  ===================  ==========

With ``ε_r = P(E_r = 1 | clicks above r)``: ``P(C_r = 1 | clicks above) = ε_r α_r``, and
``ε_{r+1}`` is ``after_click_r`` after a click, ``after_skip · ε_r (1 - α_r) / (1 - ε_r α_r)``
after a skip (Bayes: examined and not attracted, among not clicked). Without clicks given,
``P(E_{r+1}) = P(E_r) (α_r after_click_r + (1 - α_r) after_skip)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["chain_conditional", "chain_marginal", "chain_simulate"]


def chain_marginal(
    attractiveness: NDArray[np.float64], after_click: NDArray[np.float64], after_skip: float
) -> NDArray[np.float64]:
    """``P(C_r = 1)`` per cell, ``(n, depth)`` arrays in (attractiveness 0 where no result)."""
    n, depth = attractiveness.shape
    out = np.empty((n, depth))
    exam = np.ones(n)
    for r in range(depth):
        a = attractiveness[:, r]
        out[:, r] = exam * a
        exam = exam * (a * after_click[:, r] + (1.0 - a) * after_skip)
    return out


def chain_conditional(
    attractiveness: NDArray[np.float64],
    after_click: NDArray[np.float64],
    after_skip: float,
    clicked: NDArray[np.bool_],
) -> NDArray[np.float64]:
    """``P(C_r = 1 | clicks above r)`` per cell."""
    n, depth = attractiveness.shape
    out = np.empty((n, depth))
    exam = np.ones(n)
    for r in range(depth):
        a = attractiveness[:, r]
        p = exam * a
        out[:, r] = p
        skip = 1.0 - p
        with np.errstate(invalid="ignore", divide="ignore"):
            after = np.where(skip > 0, after_skip * exam * (1.0 - a) / skip, 0.0)
        exam = np.where(clicked[:, r], after_click[:, r], after)
    return out


def chain_simulate(
    attractiveness: NDArray[np.float64],
    after_click: NDArray[np.float64],
    after_skip: float,
    rng: np.random.Generator,
) -> NDArray[np.bool_]:
    """Clicks drawn from the chain: per rank, one uniform for the click, one for going on."""
    n, depth = attractiveness.shape
    out = np.empty((n, depth), dtype=np.bool_)
    exam = np.ones(n, dtype=np.bool_)
    for r in range(depth):
        u = rng.random((2, n))
        click = exam & (u[0] < attractiveness[:, r])
        out[:, r] = click
        exam = exam & np.where(click, u[1] < after_click[:, r], u[1] < after_skip)
    return out
