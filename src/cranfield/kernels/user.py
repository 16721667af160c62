"""User-oriented measures: the retrieved set against the relevant documents the user knows.

Per topic, with ``A`` the retrieved documents (the first ``k`` with a cutoff), ``U`` the
relevant documents known to the user (``known`` qrels at level ``>= rel``), ``Rk = A ∩ U``
(retrieved and known) and ``Ru`` the retrieved documents relevant by the main qrels that
the user did not know (Baeza-Yates & Ribeiro-Neto's notation; some texts swap the letters).
A known document counts as relevant whatever the main qrels say about it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cranfield.kernels.context import EvalContext, safe_divide
from cranfield.kernels.extras import extended

if TYPE_CHECKING:
    from numpy.typing import NDArray


def _counts(
    ctx: EvalContext, rel: int, cutoff: int | None
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(|U|, |Rk|, |Ru|, |A|) per topic."""
    known_row, known_count = extended(ctx).known_at(rel)
    inside = ~ctx.ranking.missing[ctx.topic_of]
    if cutoff is not None:
        inside = inside & (ctx.position < cutoff)
    rk = ctx.per_topic_sum(known_row & inside)
    ru = ctx.per_topic_sum(ctx.is_rel(rel) & ~known_row & inside)
    n = ctx.per_topic_sum(inside)
    return known_count.astype(np.float64), rk, ru, n


def coverage(ctx: EvalContext, *, rel: int, cutoff: int | None = None) -> NDArray[np.float64]:
    """|Rk| / |U|: share of the known relevant documents that were retrieved (0 if U = ∅)."""
    u, rk, _, _ = _counts(ctx, rel, cutoff)
    return safe_divide(rk, u)


def novelty(ctx: EvalContext, *, rel: int, cutoff: int | None = None) -> NDArray[np.float64]:
    """|Ru| / (|Ru| + |Rk|): share of the retrieved relevant documents new to the user."""
    _, rk, ru, _ = _counts(ctx, rel, cutoff)
    return safe_divide(ru, ru + rk)


def relative_recall(
    ctx: EvalContext, *, rel: int, cutoff: int | None = None
) -> NDArray[np.float64]:
    """(|Rk| + |Ru|) / |U|: relevant documents found per relevant document expected."""
    u, rk, ru, _ = _counts(ctx, rel, cutoff)
    return safe_divide(rk + ru, u)


def recall_effect(ctx: EvalContext, *, rel: int, cutoff: int | None = None) -> NDArray[np.float64]:
    """|U| / |A|: relevant documents expected per document the system returned."""
    u, _, _, n = _counts(ctx, rel, cutoff)
    return safe_divide(u, n)
