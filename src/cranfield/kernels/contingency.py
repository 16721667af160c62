"""Set retrieval: the per-topic contingency table and every measure computed from it.

For a topic, with the retrieved set cut at ``k`` when a cutoff is given::

                    relevant    not relevant
    retrieved          a             b           a + b = n (documents retrieved)
    not retrieved      c             d           a + c = R (relevant documents)

``d`` needs the size ``N`` of the collection: :func:`cranfield.evaluate`'s ``num_docs``
when given (trec_eval ``-N``), otherwise the topic's universe is taken to be its judged
documents plus the retrieved documents without a judgment, so ``d`` is the number of
judged non-relevant documents that were not retrieved.

Each measure is a function of the four counts (:data:`SetFormula`), so the same formula
gives the per-topic value and, applied to counts summed over topics, the micro average.
A judged topic absent from the run (``missing="zero"``) counts as an empty retrieved set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from cranfield.errors import EvaluationError, MeasureError
from cranfield.kernels.context import EvalContext, safe_divide

if TYPE_CHECKING:
    from numpy.typing import NDArray

T11_MIN_NU = -0.5


@dataclass(frozen=True, eq=False)  # arrays: no field-wise equality (as RunColumns)
class Contingency:
    """Counts of the 2x2 table per topic (float64 arrays of equal length).

    Attributes
    ----------
    a, b, c, d:
        Relevant retrieved, non-relevant retrieved, relevant not retrieved, non-relevant
        not retrieved.
    """

    a: NDArray[np.float64]
    b: NDArray[np.float64]
    c: NDArray[np.float64]
    d: NDArray[np.float64]

    def pooled(self) -> Contingency:
        """The counts summed over topics (one entry): the table of micro-averaging."""

        def total(x: NDArray[np.float64]) -> NDArray[np.float64]:
            return np.array([float(np.cumsum(x)[-1]) if x.size else 0.0])

        return Contingency(total(self.a), total(self.b), total(self.c), total(self.d))


SetFormula = Callable[..., "NDArray[np.float64]"]


def contingency(
    ctx: EvalContext, *, rel: int, cutoff: int | None = None, universe: bool = True
) -> Contingency:
    """The contingency table of every topic of ``ctx`` (see the module notes for ``d``).

    With ``universe=False`` the cell ``d`` is not computed (NaN): for measures that do
    not read it, so the collection size is neither needed nor checked.

    Raises
    ------
    EvaluationError
        If the collection size ``num_docs`` is smaller than the documents a topic
        retrieved or judged relevant (``d`` would be negative).
    """
    in_cut = ctx.is_rel(rel) if cutoff is None else ctx.is_rel(rel) & (ctx.position < cutoff)
    present = ~ctx.ranking.missing
    kept = ctx.lengths if cutoff is None else np.minimum(ctx.lengths, cutoff)
    n = np.where(present, kept, 0).astype(np.float64)
    a = np.where(present, ctx.per_topic_sum(in_cut), 0.0)
    big_r = ctx.num_rel(rel).astype(np.float64)
    b: NDArray[np.float64] = n - a
    c: NDArray[np.float64] = big_r - a
    if not universe:
        d = np.full(a.shape, np.nan)
    elif ctx.num_docs > 0:
        d = float(ctx.num_docs) - a - b - c
        if (d < 0).any():
            t = int(np.flatnonzero(d < 0)[0])
            raise EvaluationError(
                f"The collection size num_docs={ctx.num_docs} is smaller than the "
                f"{int(a[t] + b[t] + c[t])} documents retrieved or relevant for topic "
                f"{ctx.ranking.topics[t]!r}."
            )
    else:
        judged = np.diff(ctx.judgments.offsets).astype(np.float64)
        unjudged_rows = ctx.rel < 0 if cutoff is None else (ctx.rel < 0) & (ctx.position < cutoff)
        unjudged_ret = np.where(present, ctx.per_topic_sum(unjudged_rows), 0.0)
        d = judged + unjudged_ret - a - b - c
    return Contingency(a, b, c, d)


# --------------------------------------------------------------------------- formulas


def precision(t: Contingency, *, relative: bool = False) -> NDArray[np.float64]:
    """a / (a + b), or a / min(a + b, a + c) when ``relative``; 0 for an empty denominator."""
    n = t.a + t.b
    return safe_divide(t.a, np.minimum(n, t.a + t.c) if relative else n)


def recall(t: Contingency) -> NDArray[np.float64]:
    """a / (a + c); 0 when the topic has no relevant document."""
    return safe_divide(t.a, t.a + t.c)


def fallout(t: Contingency) -> NDArray[np.float64]:
    """b / (b + d); 0 when the universe holds no non-relevant document."""
    return safe_divide(t.b, t.b + t.d)


def f_beta(t: Contingency, *, beta: float, alpha: float | None = None) -> NDArray[np.float64]:
    """(1 + β²)·P·R / (β²·P + R), with β² = (1 − α)/α when ``alpha`` is given; 0 if a = 0.

    The operations are those of trec_eval's ``set_F`` so whole-list values are identical.
    """
    if alpha is not None and beta != 1.0:
        raise MeasureError(
            f"SetF takes beta or alpha, not both, got beta={beta} and alpha={alpha}."
        )
    b2 = beta * beta if alpha is None else (1.0 - alpha) / alpha
    p = safe_divide(t.a, t.a + t.b)
    r = safe_divide(t.a, t.a + t.c)
    out: NDArray[np.float64] = safe_divide((b2 + 1.0) * p * r, b2 * p + r) * (t.a > 0)
    return out


def e_measure(t: Contingency, *, b: float) -> NDArray[np.float64]:
    """van Rijsbergen's E = 1 − (1 + b²)·P·R / (b²·P + R) = 1 − F_b; 1 if a = 0."""
    return 1.0 - f_beta(t, beta=b)


def accuracy(t: Contingency) -> NDArray[np.float64]:
    """(a + d) / (a + b + c + d); 0 for an empty universe."""
    return safe_divide(t.a + t.d, t.a + t.b + t.c + t.d)


def set_average_precision(t: Contingency) -> NDArray[np.float64]:
    """P·R = a² / ((a + b)(a + c)) (trec_eval ``set_map``)."""
    return safe_divide(t.a * t.a, (t.a + t.b) * (t.a + t.c))


def t11_utility(t: Contingency) -> NDArray[np.float64]:
    """TREC-11 filtering utility T11U = 2·R⁺ − N⁺ = 2a − b."""
    out: NDArray[np.float64] = 2.0 * t.a - t.b
    return out


def t11_scaled_utility(t: Contingency, *, min_nu: float = T11_MIN_NU) -> NDArray[np.float64]:
    """T11SU = (max(T11U / MaxU, MinNU) − MinNU) / (1 − MinNU), MaxU = 2(a + c); 0 if R = 0."""
    max_u = 2.0 * (t.a + t.c)
    nu = safe_divide(t11_utility(t), max_u)
    out = (np.maximum(nu, min_nu) - min_nu) / (1.0 - min_nu)
    return np.where(max_u > 0, out, 0.0)


def t11_f(t: Contingency) -> NDArray[np.float64]:
    """T11F = F_β with β = 0.5: 1.25 / (0.25/R + 1/P); 0 if nothing relevant is retrieved."""
    return f_beta(t, beta=0.5)


# --------------------------------------------------------------------------- kernels


def set_kernel(
    formula: SetFormula, *, universe: bool = False
) -> Callable[..., NDArray[np.float64]]:
    """The per-topic kernel ``kernel(ctx, *, rel, cutoff=None, **params)`` of a formula.

    ``universe`` says whether the formula reads the cell ``d``.
    """

    def kernel(
        ctx: EvalContext, *, rel: int, cutoff: int | None = None, **params: Any
    ) -> NDArray[np.float64]:
        return formula(contingency(ctx, rel=rel, cutoff=cutoff, universe=universe), **params)

    kernel.__doc__ = f"Per-topic values of ``{formula.__name__}`` on the contingency table."
    return kernel


@dataclass(frozen=True)
class SetMicro:
    """The micro average of a set measure: ``formula`` of the contingency counts pooled over
    topics. Called as ``micro(ctx, *, rel, cutoff=None, **params)``; :meth:`counts` and
    :meth:`of` split it in two, so that counts pooled apart (a dataset's partitions) can be
    summed first (they are whole numbers: the sum is exact in any order)."""

    formula: SetFormula
    universe: bool = False

    def counts(
        self, ctx: EvalContext, *, rel: int, cutoff: int | None = None, **params: Any
    ) -> Contingency:
        """The counts of ``ctx``'s topics pooled (one entry); ``params`` are the formula's."""
        return contingency(ctx, rel=rel, cutoff=cutoff, universe=self.universe).pooled()

    def of(
        self,
        pooled: Contingency,
        *,
        rel: int | None = None,
        cutoff: int | None = None,
        **params: Any,
    ) -> float:
        """The formula of pooled counts (``rel`` and ``cutoff`` were used by :meth:`counts`)."""
        return float(self.formula(pooled, **params)[0])

    def __call__(
        self, ctx: EvalContext, *, rel: int, cutoff: int | None = None, **params: Any
    ) -> float:
        return self.of(self.counts(ctx, rel=rel, cutoff=cutoff), **params)


def set_micro(formula: SetFormula, *, universe: bool = False) -> SetMicro:
    """The micro-average ``micro(ctx, *, rel, cutoff=None, **params)``: counts pooled first."""
    return SetMicro(formula, universe)
