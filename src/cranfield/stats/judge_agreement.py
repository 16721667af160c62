"""How much judges agree: Cohen's κ, Fleiss' κ, Krippendorff's α between qrels files.

:func:`agree` reads two or more qrels files (NIST's assessors, a second assessor, an LLM judge)
and measures their agreement on the (query, document) pairs they both judged: Cohen's κ
(unweighted, linear and quadratic weights) with the confusion matrix and the agreement per
query for every pair of judges, Fleiss' κ and Krippendorff's α (nominal and ordinal) over all of
them; given runs, it also ranks the runs under each qrels and compares the rankings as
:mod:`cranfield.stats.rank_correlation` does. Its result is a :class:`JudgeAgreement`.

The coefficients are usable alone on label arrays: :func:`cohen_kappa`, :func:`fleiss_kappa`,
:func:`krippendorff_alpha`.

A negative relevance label is trec_eval's "in the pool, not judged": it is not a judgment, so
such rows are left out before anything is compared, and counted (``JudgeAgreement.unjudged``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import numpy as np

from cranfield._validate import check_choice, check_int
from cranfield.errors import EvaluationError, OptionError
from cranfield.stats.plain_data import finite_or_none as _finite

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from numpy.typing import ArrayLike, NDArray

    from cranfield.evaluation.options import EvalOptions
    from cranfield.io.load import QrelsLike
    from cranfield.stats.rank_correlation import RankCorrelation

__all__ = [
    "JudgeAgreement",
    "JudgePair",
    "QueryAgreement",
    "agree",
    "cohen_kappa",
    "fleiss_kappa",
    "kappa_of_confusion",
    "krippendorff_alpha",
]

KappaWeights = Literal["linear", "quadratic"] | None
KappaDistance = Literal["position", "value"]
AlphaLevel = Literal["nominal", "ordinal"]
_WEIGHTS: Final = (None, "linear", "quadratic")
_DISTANCES: Final = ("position", "value")

# --------------------------------------------------------------------------- coefficients


def confusion_matrix(
    a: ArrayLike, b: ArrayLike, labels: Sequence[int] | None = None
) -> tuple[list[int], NDArray[np.int64]]:
    """The labels (sorted) and the ``labels × labels`` counts: row = ``a``'s label, column =
    ``b``'s."""
    x = np.asarray(a, dtype=np.int64)
    y = np.asarray(b, dtype=np.int64)
    if x.shape != y.shape or x.ndim != 1:
        raise OptionError("b", f"{x.size} labels, one per label of a", y.shape)
    grades = sorted(set(x.tolist()) | set(y.tolist())) if labels is None else list(labels)
    index = {g: i for i, g in enumerate(grades)}
    k = len(grades)
    flat = np.array([index[u] * k + index[v] for u, v in zip(x.tolist(), y.tolist(), strict=True)])
    counts = np.bincount(flat, minlength=k * k).reshape(k, k) if flat.size else np.zeros((k, k))
    return grades, counts.astype(np.int64)


def cohen_kappa(
    a: ArrayLike,
    b: ArrayLike,
    *,
    weights: KappaWeights = None,
    distance: KappaDistance = "position",
) -> float:
    """Cohen's κ between two judges' labels of the same items.

    ``κ = 1 - Σ w·O / Σ w·E`` with ``O`` the observed and ``E`` the chance confusion matrix
    (the product of the margins); ``w`` is 1 off the diagonal (unweighted), ``|i - j|``
    (``"linear"``) or ``(i - j)²`` (``"quadratic"``). With ``distance="position"`` (the
    default) ``i`` and ``j`` are the positions of the two labels among the sorted labels seen,
    as scikit-learn's ``cohen_kappa_score`` weighs them; with ``distance="value"`` they are the
    labels themselves. The two differ when the labels seen are not consecutive: with labels
    {0, 1, 3}, 0 against 3 is 2 apart by position (a third label between them) but 3 apart by
    value, and 1 against 3 is 1 apart by position, 2 by value. Unweighted κ is the same
    either way. NaN when chance agreement is perfect (every label the same).

    Examples
    --------
    >>> cohen_kappa([0, 1, 2, 2], [0, 1, 2, 1])
    0.6363636363636364
    >>> round(cohen_kappa([0, 1, 2, 2], [0, 1, 2, 1], weights="quadratic"), 4)
    0.8
    >>> a, b = [0, 1, 3, 3, 0, 1], [0, 3, 3, 1, 1, 0]
    >>> round(cohen_kappa(a, b, weights="quadratic"), 4)  # by position, as scikit-learn
    0.5
    >>> round(cohen_kappa(a, b, weights="quadratic", distance="value"), 4)
    0.4643
    """
    check_choice("weights", weights, _WEIGHTS)
    check_choice("distance", distance, _DISTANCES)
    grades, counts = confusion_matrix(a, b)
    return _kappa(counts, weights, grades if distance == "value" else None)


def kappa_of_confusion(counts: ArrayLike, *, weights: KappaWeights = None) -> float:
    """Cohen's κ of a square confusion matrix of counts (rows one judge, columns the other),
    as :func:`cohen_kappa` computes it from the labels.

    Examples
    --------
    >>> kappa_of_confusion([[2, 0], [1, 1]])
    0.5
    """
    check_choice("weights", weights, _WEIGHTS)
    matrix = np.asarray(counts, dtype=np.int64)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise OptionError("counts", "a square matrix of counts", matrix.shape)
    return _kappa(matrix, weights)


def _kappa(
    counts: NDArray[np.int64], weights: KappaWeights, values: Sequence[int] | None = None
) -> float:
    """κ from a confusion matrix; ``values``: the labels of its rows, to weigh by value
    (``None``: by position)."""
    k = counts.shape[0]
    total = counts.sum()
    if total == 0:
        return math.nan
    observed = counts / total
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    i, j = np.indices((k, k))
    if values is not None:
        label = np.asarray(values, dtype=np.int64)
        i, j = label[i], label[j]
    if weights is None:
        w = (i != j).astype(np.float64)
    elif weights == "linear":
        w = np.abs(i - j).astype(np.float64)
    else:
        w = ((i - j) ** 2).astype(np.float64)
    chance = float((w * expected).sum())
    if chance == 0.0:
        return math.nan
    return 1.0 - float((w * observed).sum()) / chance


def fleiss_kappa(ratings: ArrayLike) -> float:
    """Fleiss' κ of an ``items × judges`` label matrix (every item labelled by every judge).

    With ``n_ij`` the judges giving item ``i`` label ``j`` and ``m`` judges:
    ``P_i = (Σ_j n_ij² - m) / (m(m-1))``, ``p_j`` the share of label ``j`` overall, and
    ``κ = (mean P_i - Σ p_j²) / (1 - Σ p_j²)`` (Fleiss 1971). NaN when every label is the same.

    Examples
    --------
    >>> fleiss_kappa([[1, 1, 1], [0, 0, 0], [1, 0, 1], [0, 0, 0]])
    0.6571428571428571
    """
    r = np.asarray(ratings, dtype=np.int64)
    if r.ndim != 2 or r.shape[1] < 2 or r.shape[0] == 0:
        raise OptionError("ratings", "an items × judges matrix with 2 or more judges", r.shape)
    m = r.shape[1]
    _, inverse = np.unique(r, return_inverse=True)
    codes = inverse.reshape(r.shape)
    counts = np.stack([(codes == c).sum(axis=1) for c in range(int(codes.max()) + 1)], axis=1)
    per_item = ((counts**2).sum(axis=1) - m) / (m * (m - 1))
    shares = counts.sum(axis=0) / (r.shape[0] * m)
    chance = float((shares**2).sum())
    if chance == 1.0:
        return math.nan
    return (float(per_item.mean()) - chance) / (1.0 - chance)


def krippendorff_alpha(ratings: ArrayLike, *, level: AlphaLevel = "nominal") -> float:
    """Krippendorff's α of a ``judges × items`` label matrix, NaN where a judge gave no label.

    ``α = 1 - D_o / D_e`` from the coincidence matrix ``o_ck`` (each item with ``m_u >= 2``
    labels adds ``1 / (m_u - 1)`` for every ordered pair of its labels by different judges;
    items with one label are not pairable and are left out), ``n_c`` its margins and ``n`` their
    sum: ``D_o = Σ o_ck δ²_ck / n`` and ``D_e = Σ n_c n_k δ²_ck / (n(n-1))``. ``δ²`` is 1 for
    different labels (``"nominal"``) or, ``"ordinal"``, ``(Σ_{g=c..k} n_g - (n_c + n_k)/2)²``
    (Krippendorff 2011, "Computing Krippendorff's alpha-reliability"). NaN when fewer than
    two labels are pairable or all pairable labels are equal.

    Examples
    --------
    >>> nan = float("nan")
    >>> round(krippendorff_alpha([[1, 2, 3, 3], [1, 2, 3, 2], [nan, 2, 3, 3]]), 4)
    0.7368
    """
    check_choice("level", level, ("nominal", "ordinal"))
    r = np.asarray(ratings, dtype=np.float64)
    if r.ndim != 2:
        raise OptionError("ratings", "a judges × items matrix", r.shape)
    present = np.isfinite(r)
    values = np.unique(r[present])
    k = values.size
    # counts[u, c]: the labels of item u equal to value c; items with fewer than 2 left out
    judge_of, item_of = np.nonzero(present)
    counts = np.zeros((r.shape[1], k))
    np.add.at(counts, (item_of, np.searchsorted(values, r[judge_of, item_of])), 1.0)
    m_u = counts.sum(axis=1)
    pairable = counts[m_u >= 2]
    weighted = pairable / (m_u[m_u >= 2] - 1.0)[:, None]
    coincidence = weighted.T @ pairable - np.diag(weighted.sum(axis=0))
    margins = coincidence.sum(axis=1)
    n = float(margins.sum())
    if n < 2:
        return math.nan
    if level == "nominal":
        delta = 1.0 - np.eye(k)
    else:
        cum = np.concatenate(([0.0], np.cumsum(margins)))
        c, g = np.indices((k, k))
        lo, hi = np.minimum(c, g), np.maximum(c, g)
        delta = (cum[hi + 1] - cum[lo] - (margins[c] + margins[g]) / 2.0) ** 2
    expected = float((np.outer(margins, margins) * delta).sum()) / (n * (n - 1))
    if expected == 0.0:
        return math.nan
    return 1.0 - float((coincidence * delta).sum()) / n / expected


# --------------------------------------------------------------------------- the result


@dataclass(frozen=True)
class QueryAgreement:
    """Two judges on one query: the pairs both judged, the share labelled alike, Cohen's κ."""

    pairs: int
    observed: float
    kappa: float


@dataclass(frozen=True)
class JudgePair:
    """Two judges compared on the (query, document) pairs both judged.

    Attributes
    ----------
    judge_a, judge_b:
        The two judges (qrels names).
    shared:
        Pairs both judged.
    only_a, only_b:
        Pairs judged by one of the two only (not compared).
    labels:
        The grades seen in the shared pairs, sorted; the confusion matrix's rows and columns.
    confusion:
        ``confusion[i][j]``: shared pairs ``judge_a`` labelled ``labels[i]`` and ``judge_b``
        ``labels[j]``.
    observed:
        The share of shared pairs labelled alike.
    kappa, kappa_linear, kappa_quadratic:
        Cohen's κ, unweighted and weighted by the labels' positions (:func:`cohen_kappa`, as
        scikit-learn).
    kappa_linear_by_value, kappa_quadratic_by_value:
        Weighted κ by the labels' values (``distance="value"``): different from the above
        when the labels seen are not consecutive ({0, 1, 3}).
    per_query:
        ``{query: QueryAgreement}`` for every query with a shared pair, bytewise order.
    """

    judge_a: str
    judge_b: str
    shared: int
    only_a: int
    only_b: int
    labels: tuple[int, ...]
    confusion: tuple[tuple[int, ...], ...]
    observed: float
    kappa: float
    kappa_linear: float
    kappa_quadratic: float
    per_query: dict[str, QueryAgreement]
    kappa_linear_by_value: float = math.nan
    kappa_quadratic_by_value: float = math.nan


@dataclass(frozen=True, eq=False)
class JudgeAgreement:
    """What :func:`agree` returns: the agreement of two or more judges and its downstream effect.

    Attributes
    ----------
    judges:
        The qrels' names, in the order given; the first is the reference of the rankings.
    judged:
        ``{judge: pairs judged}`` (labels >= 0).
    unjudged:
        ``{judge: rows with a negative label}``, left out: trec_eval reads them as "in the pool,
        not judged", not as a judgment.
    pairs:
        One :class:`JudgePair` per pair of judges, in the order given.
    shared_by_all:
        Pairs every judge labelled (Fleiss' κ is computed on these).
    fleiss_kappa:
        Fleiss' κ on :attr:`shared_by_all` (NaN if none).
    alpha_nominal, alpha_ordinal:
        Krippendorff's α on every pair labelled by at least two judges.
    measure:
        The measure the runs were ranked by (``None`` without runs).
    rankings:
        Without runs, empty; with runs, one :class:`~cranfield.stats.rank_correlation.RankCorrelation`
        per judge after the first: the runs ranked under the first judge's qrels (the
        reference) against under that judge's.
    relevance_level:
        The level graded labels were binarised at (a label at or above it is 1, relevant, a
        lower one 0), or ``None``: the labels compared as they are.
    """

    judges: tuple[str, ...]
    judged: dict[str, int]
    unjudged: dict[str, int]
    pairs: tuple[JudgePair, ...]
    shared_by_all: int
    fleiss_kappa: float
    alpha_nominal: float
    alpha_ordinal: float
    measure: str | None = None
    rankings: tuple[RankCorrelation, ...] = field(default=())
    relevance_level: int | None = None

    @property
    def notes(self) -> list[str]:
        """What was done to the labels before they were compared, in sentences."""
        out = [
            "Negative labels (trec_eval's 'in the pool, not judged') are not judgments "
            "and are left out."
        ]
        if self.relevance_level is not None:
            out.append(
                f"Labels binarised at relevance level {self.relevance_level}: a label of "
                f"{self.relevance_level} or more is 1 (relevant), a lower one 0."
            )
        return out

    def __repr__(self) -> str:
        return (
            f"JudgeAgreement(judges={list(self.judges)}, shared_by_all={self.shared_by_all}, "
            f"alpha_ordinal={self.alpha_ordinal:.4f}, rankings={len(self.rankings)})"
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready, non-finite numbers as ``None``)."""
        return {
            "judges": list(self.judges),
            "judged": dict(self.judged),
            "unjudged": dict(self.unjudged),
            "shared_by_all": self.shared_by_all,
            "fleiss_kappa": _finite(self.fleiss_kappa),
            "krippendorff_alpha": {
                "nominal": _finite(self.alpha_nominal),
                "ordinal": _finite(self.alpha_ordinal),
            },
            "pairs": [_pair_dict(p) for p in self.pairs],
            "measure": self.measure,
            "rankings": [r.to_dict() for r in self.rankings],
            "notes": self.notes,
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text."""
        check_int("indent", indent, minimum=0, none=True)
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False) + "\n"


def _pair_dict(p: JudgePair) -> dict[str, Any]:
    return {
        "judge_a": p.judge_a,
        "judge_b": p.judge_b,
        "shared": p.shared,
        "only_a": p.only_a,
        "only_b": p.only_b,
        "labels": list(p.labels),
        "confusion": [list(row) for row in p.confusion],
        "observed": _finite(p.observed),
        "kappa": _finite(p.kappa),
        "kappa_linear": _finite(p.kappa_linear),
        "kappa_quadratic": _finite(p.kappa_quadratic),
        "kappa_linear_by_value": _finite(p.kappa_linear_by_value),
        "kappa_quadratic_by_value": _finite(p.kappa_quadratic_by_value),
        "per_query": {
            q: {"pairs": a.pairs, "observed": _finite(a.observed), "kappa": _finite(a.kappa)}
            for q, a in p.per_query.items()
        },
    }


# --------------------------------------------------------------------------- computing it

Labels = dict[tuple[str, str], int]


def _labels(frame: Any, level: int | None = None) -> tuple[Labels, int]:
    """``{(query, doc): label}`` of the judgments (label >= 0), binarised at ``level`` when
    given, and the number of negative rows."""
    rows = frame.select("query_id", "doc_id", "relevance").rows()
    if level is not None:
        judged = {(q, d): int(r >= level) for q, d, r in rows if r >= 0}
    else:
        judged = {(q, d): int(r) for q, d, r in rows if r >= 0}
    return judged, len(rows) - len(judged)


def _pair(name_a: str, a: Labels, name_b: str, b: Labels) -> JudgePair:
    keys = sorted((k for k in a if k in b), key=lambda k: (k[0].encode(), k[1].encode()))
    if not keys:
        raise EvaluationError(
            f"{name_a} and {name_b} share no judged (query, document) pair: there is no "
            "agreement to measure (negative labels are not judgments)."
        )
    x = np.array([a[k] for k in keys])
    y = np.array([b[k] for k in keys])
    grades, counts = confusion_matrix(x, y)
    per_query: dict[str, QueryAgreement] = {}
    queries = np.array([k[0] for k in keys], dtype=object)
    for q in dict.fromkeys(k[0] for k in keys):
        sel = queries == q
        xs, ys = x[sel], y[sel]
        _, c = confusion_matrix(xs, ys, grades)
        per_query[q] = QueryAgreement(int(sel.sum()), float((xs == ys).mean()), _kappa(c, None))
    return JudgePair(
        judge_a=name_a,
        judge_b=name_b,
        shared=len(keys),
        only_a=len(a) - len(keys),
        only_b=len(b) - len(keys),
        labels=tuple(grades),
        confusion=tuple(tuple(int(v) for v in row) for row in counts),
        observed=float((x == y).mean()),
        kappa=_kappa(counts, None),
        kappa_linear=_kappa(counts, "linear"),
        kappa_quadratic=_kappa(counts, "quadratic"),
        per_query=per_query,
        kappa_linear_by_value=_kappa(counts, "linear", grades),
        kappa_quadratic_by_value=_kappa(counts, "quadratic", grades),
    )


def _judge_names(qrels: Sequence[QrelsLike], names: Sequence[str] | None) -> list[str]:
    if names is not None:
        if len(names) != len(qrels) or len(set(names)) != len(names):
            raise OptionError("names", f"{len(qrels)} different names, one per qrels", list(names))
        return list(names)
    out: list[str] = []
    for i, q in enumerate(qrels):
        base = Path(q).name if isinstance(q, (str, Path)) else f"qrels{i + 1}"
        out.append(base if base not in out else f"{base}#{i + 1}")
    return out


def agree(
    qrels: Sequence[QrelsLike],
    *,
    names: Sequence[str] | None = None,
    runs: Sequence[Any] | Mapping[str, Any] | None = None,
    measure: str = "AP",
    options: EvalOptions | None = None,
    run_names: Any = "file",
    relevance_level: int | None = None,
    **correlate: Any,
) -> JudgeAgreement:
    """The agreement of two or more qrels on the (query, document) pairs they judged.

    Parameters
    ----------
    qrels:
        Two or more judgments (paths, ``Qrels``, DataFrames, dicts); the first is the
        reference of the rankings.
    names:
        One name per qrels (default: the file names).
    runs:
        Runs to rank under each qrels (paths, ``Run``s ... as :meth:`Evaluator.many`); none by
        default.
    measure:
        The measure the runs are ranked by.
    options:
        The evaluation options of the runs' scores; its ``duplicates`` policy also reads the
        qrels compared (a document judged on several lines of one file).
    run_names:
        How runs are named (``"file"``, ``"tag"``, or names).
    relevance_level:
        Binarise the labels first: a label of this level or more is 1 (relevant), a lower one
        0, as κ is often reported on graded judgments (``--relevance-level`` on the command
        line, which also sets the runs' evaluation option). ``None`` (default): the labels
        as they are.
    **correlate:
        :func:`~cranfield.stats.rank_correlation.correlate_scores`'s ``p``, ``n_resamples``,
        ``alpha``, ``seed``.

    Raises
    ------
    OptionError
        Fewer than two qrels.
    EvaluationError
        Two qrels that share no judged (query, document) pair.

    Examples
    --------
    >>> nist = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1, "d5": 0, "d6": -1}}
    >>> llm = {"q1": {"d1": 2, "d2": 1, "d3": 1}, "q2": {"d4": 1, "d5": 0, "d6": 1}}
    >>> a = agree([nist, llm], names=["nist", "llm"])
    >>> p = a.pairs[0]
    >>> p.shared, p.only_b, a.unjudged["nist"], round(p.kappa, 4)
    (5, 1, 1, 0.6875)
    """
    from cranfield.evaluation.evaluator import load_judgments
    from cranfield.evaluation.options import EvalOptions

    if isinstance(qrels, (str, Path)) or len(qrels) < 2:
        raise OptionError(
            "qrels", "two or more qrels", qrels if isinstance(qrels, str) else len(qrels)
        )
    judges = _judge_names(qrels, names)
    read_as = EvalOptions() if options is None else options
    loaded = [load_judgments(q, read_as, name=n) for q, n in zip(qrels, judges, strict=True)]
    check_int("relevance_level", relevance_level, minimum=1, none=True)
    labels, unjudged = zip(*(_labels(q.frame, relevance_level) for q in loaded), strict=True)
    pairs = tuple(
        _pair(judges[i], labels[i], judges[j], labels[j])
        for i, j in combinations(range(len(judges)), 2)
    )
    every = sorted(set.union(*(set(lab) for lab in labels)))
    matrix = np.array([[lab.get(k, np.nan) for k in every] for lab in labels], dtype=np.float64)
    complete = np.isfinite(matrix).all(axis=0)
    fleiss = fleiss_kappa(matrix[:, complete].T) if complete.any() else math.nan
    rankings: tuple[RankCorrelation, ...] = ()
    if runs is not None:
        rankings = _rankings(qrels, judges, runs, measure, options, run_names, correlate)
    return JudgeAgreement(
        judges=tuple(judges),
        judged={n: len(lab) for n, lab in zip(judges, labels, strict=True)},
        unjudged=dict(zip(judges, unjudged, strict=True)),
        pairs=pairs,
        shared_by_all=int(complete.sum()),
        fleiss_kappa=fleiss,
        alpha_nominal=krippendorff_alpha(matrix, level="nominal"),
        alpha_ordinal=krippendorff_alpha(matrix, level="ordinal"),
        measure=None if runs is None else measure,
        rankings=rankings,
        relevance_level=relevance_level,
    )


def _rankings(
    qrels: Sequence[QrelsLike],
    judges: Sequence[str],
    runs: Any,
    measure: str,
    options: EvalOptions | None,
    run_names: Any,
    correlate: dict[str, Any],
) -> tuple[RankCorrelation, ...]:
    from cranfield.evaluation.evaluator import Evaluator
    from cranfield.io.runset import RunSet
    from cranfield.stats.rank_correlation import correlate_tables

    run_set = RunSet.of(runs, run_names)
    tables = [Evaluator(q, [measure], options).many(run_set) for q in qrels]
    return tuple(
        correlate_tables(
            tables[0], tables[i], measure, settings=(judges[0], judges[i]), **correlate
        )
        for i in range(1, len(tables))
    )
