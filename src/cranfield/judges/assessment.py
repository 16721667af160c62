"""Judging a judge before trusting it: a model's (or a crowd's) qrels against people's.

:func:`assess` compares one or more judges' qrels with human qrels on the (query, document)
pairs both judged (:func:`cranfield.stats.judge_agreement.agree` does the counting): Cohen's κ
over the grades (unweighted and linear), κ of each grade against the others (one grade versus
the rest, so a judge that never says "3" shows it), κ of the labels binarised at a level
(``label >= level`` is relevant; 2 for TREC DL passages), Krippendorff's α (ordinal) of the
judge and the humans, and the confusion matrix. Given runs, it also ranks them under each
judge's qrels and compares that with their ranking under the humans' (τ-b, τ_AP, RBO:
:mod:`cranfield.stats.rank_correlation`) over all runs and among the ``top`` runs by the
humans' ranking — where model judges are said to fail (Clarke & Dietz 2024) — and ends with a
plain verdict sentence with the numbers.

Words for κ follow Landis & Koch (1977): below 0 poor, to 0.2 slight, to 0.4 fair, to 0.6
moderate, to 0.8 substantial, above almost perfect. Two rankings are called equivalent from
τ = 0.9 (Voorhees 2000).

Negative labels (trec_eval's "in the pool, not judged") are not judgments and are left out, as
in :func:`~cranfield.stats.judge_agreement.agree`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cranfield._validate import check_int
from cranfield.errors import OptionError
from cranfield.stats.judge_agreement import agree, kappa_of_confusion
from cranfield.stats.plain_data import finite_or_none

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import NDArray

    from cranfield.evaluation.options import EvalOptions
    from cranfield.io.load import QrelsLike
    from cranfield.stats.rank_correlation import RankCorrelation

__all__ = ["Assessment", "JudgeAssessment", "TopAgreement", "assess", "kappa_word"]


def kappa_word(kappa: float) -> str:
    """Landis & Koch's word for a κ.

    Examples
    --------
    >>> kappa_word(0.35), kappa_word(0.61)
    ('fair', 'substantial')
    """
    if math.isnan(kappa):
        return "undefined"
    for bound, word in ((0.0, "poor"), (0.2, "slight"), (0.4, "fair"), (0.6, "moderate")):
        if kappa < bound or (bound > 0 and kappa <= bound):
            return word
    return "substantial" if kappa <= 0.8 else "almost perfect"


_ADVERB = {
    "undefined": "to an undefined degree",
    "poor": "poorly",
    "slight": "slightly",
    "fair": "fairly",
    "moderate": "moderately",
    "substantial": "substantially",
    "almost perfect": "almost perfectly",
}


@dataclass(frozen=True)
class TopAgreement:
    """The runs the humans rank highest, ranked again under the judge.

    Attributes
    ----------
    k:
        How many runs (the humans' top ``k``).
    runs:
        Those runs, best first by the humans.
    kendall_tau_b:
        τ-b of their means under the humans and under the judge.
    overlap:
        The share of the humans' top ``k`` that is also the judge's top ``k``.
    same_best:
        Whether both put the same run first.
    """

    k: int
    runs: tuple[str, ...]
    kendall_tau_b: float
    overlap: float
    same_best: bool


@dataclass(frozen=True)
class JudgeAssessment:
    """One judge against the humans.

    Attributes
    ----------
    judge:
        The judge's name.
    shared:
        Pairs judged by both (the rest is not compared).
    labels, confusion:
        The grades seen and ``confusion[i][j]``: pairs the humans labelled ``labels[i]`` and the
        judge ``labels[j]``.
    kappa, kappa_linear:
        Cohen's κ over the grades, unweighted and linear.
    kappa_per_grade:
        ``{grade: κ}`` of "this grade" against "another grade".
    kappa_binary:
        κ of the labels binarised at :attr:`Assessment.level`.
    alpha:
        Krippendorff's α (ordinal) of the judge and the humans.
    ranking:
        The runs ranked under the humans against under the judge (``None`` without runs).
    top:
        The same among the humans' top runs (``None`` without runs).
    verdict:
        One plain sentence with the numbers.
    """

    judge: str
    shared: int
    labels: tuple[int, ...]
    confusion: tuple[tuple[int, ...], ...]
    kappa: float
    kappa_linear: float
    kappa_per_grade: dict[int, float]
    kappa_binary: float
    alpha: float
    ranking: RankCorrelation | None
    top: TopAgreement | None
    verdict: str

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready; NaN as ``None``)."""
        top = None
        if self.top is not None:
            top = {
                "k": self.top.k,
                "runs": list(self.top.runs),
                "kendall_tau_b": finite_or_none(self.top.kendall_tau_b),
                "overlap": finite_or_none(self.top.overlap),
                "same_best": self.top.same_best,
            }
        return {
            "judge": self.judge,
            "shared": self.shared,
            "labels": list(self.labels),
            "confusion": [list(r) for r in self.confusion],
            "kappa": finite_or_none(self.kappa),
            "kappa_linear": finite_or_none(self.kappa_linear),
            "kappa_per_grade": {str(g): finite_or_none(v) for g, v in self.kappa_per_grade.items()},
            "kappa_binary": finite_or_none(self.kappa_binary),
            "alpha_ordinal": finite_or_none(self.alpha),
            "ranking": None if self.ranking is None else self.ranking.to_dict(),
            "top": top,
            "verdict": self.verdict,
        }


@dataclass(frozen=True, eq=False)
class Assessment:
    """What :func:`assess` returns: each judge against the humans.

    Attributes
    ----------
    humans:
        The human qrels' name.
    level:
        The binarisation level: ``label >= level`` is relevant.
    measure:
        The measure the runs were ranked by (``None`` without runs).
    judges:
        One :class:`JudgeAssessment` per judge, in the order given.
    """

    humans: str
    level: int
    measure: str | None
    judges: tuple[JudgeAssessment, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready)."""
        return {
            "humans": self.humans,
            "binary_level": self.level,
            "measure": self.measure,
            "judges": [j.to_dict() for j in self.judges],
            "notes": [
                "Negative labels (trec_eval's 'in the pool, not judged') are not judgments and "
                "are left out.",
                f"Binarised: a label >= {self.level} is relevant.",
                "Kappa words after Landis & Koch (1977); rankings equivalent from tau 0.9 "
                "(Voorhees 2000).",
            ],
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text."""
        check_int("indent", indent, minimum=0, none=True)
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False) + "\n"


def _binary_kappa(labels: tuple[int, ...], confusion: NDArray[np.int64], level: int) -> float:
    hi = np.array([g >= level for g in labels])
    folded = np.array(
        [
            [confusion[np.ix_(~hi, ~hi)].sum(), confusion[np.ix_(~hi, hi)].sum()],
            [confusion[np.ix_(hi, ~hi)].sum(), confusion[np.ix_(hi, hi)].sum()],
        ],
        dtype=np.int64,
    )
    return kappa_of_confusion(folded)


def _grade_kappas(labels: tuple[int, ...], confusion: NDArray[np.int64]) -> dict[int, float]:
    out = {}
    total = confusion.sum()
    for i, g in enumerate(labels):
        both = confusion[i, i]
        human_only = confusion[i].sum() - both
        judge_only = confusion[:, i].sum() - both
        folded = np.array(
            [[both, human_only], [judge_only, total - both - human_only - judge_only]],
            dtype=np.int64,
        )
        out[int(g)] = kappa_of_confusion(folded)
    return out


def _top(ranking: RankCorrelation, k: int) -> TopAgreement:
    from scipy import stats

    names = list(ranking.systems)
    a = np.array(ranking.means_a)
    b = np.array(ranking.means_b)
    order_a = sorted(range(len(names)), key=lambda i: (-a[i], names[i]))
    order_b = sorted(range(len(names)), key=lambda i: (-b[i], names[i]))
    k = min(k, len(names))
    top_a = order_a[:k]
    tau = math.nan
    if k >= 2 and np.ptp(a[top_a]) > 0 and np.ptp(b[top_a]) > 0:
        tau = float(stats.kendalltau(a[top_a], b[top_a], variant="b").statistic)
    overlap = len(set(top_a) & set(order_b[:k])) / k
    return TopAgreement(
        k=k,
        runs=tuple(names[i] for i in top_a),
        kendall_tau_b=tau,
        overlap=overlap,
        same_best=order_a[0] == order_b[0],
    )


def _verdict(judge: str, j: dict[str, Any], level: int) -> str:
    parts = [
        f"{judge} agrees with the humans {_ADVERB[kappa_word(j['kappa_binary'])]} on relevance "
        f"(kappa {j['kappa_binary']:.2f} binarised at {level}; {j['kappa']:.2f} over the "
        f"grades; alpha {j['alpha']:.2f}; {j['shared']} pairs)"
    ]
    ranking: RankCorrelation | None = j["ranking"]
    top: TopAgreement | None = j["top"]
    if ranking is not None and top is not None:
        tau = ranking.coefficients["kendall_tau_b"].value
        tau_ap = ranking.coefficients["tau_ap"].value
        alike = "ranks the runs as the humans do" if tau >= 0.9 else "ranks the runs differently"
        parts.append(
            f"{alike} (tau {tau:.2f}, tau_AP {tau_ap:.2f} over {len(ranking.systems)} runs)"
        )
        top_ok = not math.isnan(top.kendall_tau_b) and top.kendall_tau_b >= 0.9
        best = "the same best run" if top.same_best else "another best run"
        tau_top = "undefined" if math.isnan(top.kendall_tau_b) else f"{top.kendall_tau_b:.2f}"
        parts.append(
            f"{'and' if top_ok else 'but not'} among the humans' top {top.k} "
            f"(tau {tau_top}, {top.overlap:.0%} of them in its own top {top.k}, {best})"
        )
        usable = tau >= 0.9 and top_ok
        advice = (
            "usable to rank these systems"
            if usable
            else "not a substitute for the humans when the best systems are compared"
        )
    else:
        advice = (
            "worth checking on runs before use"
            if j["kappa_binary"] > 0.4
            else "not a substitute for the humans"
        )
    return ", ".join(parts) + f": {advice}."


def assess(  # noqa: PLR0913 -- the qrels, their names, and the ranking settings
    humans: QrelsLike,
    judges: Sequence[QrelsLike],
    *,
    names: Sequence[str] | None = None,
    human_name: str | None = None,
    level: int = 2,
    runs: Sequence[Any] | None = None,
    measure: str = "nDCG@10",
    top: int = 5,
    options: EvalOptions | None = None,
    run_names: Any = "file",
    seed: int | None = 0,
) -> Assessment:
    """Each judge's qrels against the humans' (module documentation).

    Parameters
    ----------
    humans:
        The human qrels (the reference).
    judges:
        One or more judges' qrels (a model's, a crowd's).
    names, human_name:
        Their names (default: the file names).
    level:
        Binarisation: ``label >= level`` is relevant (2 for TREC DL passages).
    runs:
        Runs to rank under the humans' and each judge's qrels (optional).
    measure:
        The measure the runs are ranked by.
    top:
        How many of the humans' best runs the top agreement looks at.
    options, run_names, seed:
        The evaluation options, how runs are named, the seed of the rankings' intervals.

    Examples
    --------
    >>> people = {"q1": {"d1": 3, "d2": 0, "d3": 2, "d4": 1}}
    >>> model = {"q1": {"d1": 2, "d2": 0, "d3": 2, "d4": 2}}
    >>> a = assess(people, [model], names=["model"], human_name="people")
    >>> j = a.judges[0]
    >>> round(j.kappa_binary, 4), j.kappa_per_grade[3]
    (0.5, 0.0)
    """
    check_int("level", level)
    check_int("top", top, minimum=2)
    if isinstance(judges, (str, Path)) or len(judges) == 0:
        raise OptionError("judges", "one or more qrels", judges)
    if names is None:
        names = [
            Path(q).name if isinstance(q, (str, Path)) else f"judge{i + 1}"
            for i, q in enumerate(judges)
        ]
    human = human_name or (Path(humans).name if isinstance(humans, (str, Path)) else "humans")
    out = []
    for q, name in zip(judges, names, strict=True):
        extra: dict[str, Any] = {}
        if runs is not None:
            extra = {"runs": runs, "measure": measure, "n_resamples": 0, "seed": seed}
        agreement = agree(
            [humans, q],
            names=[human, name],
            options=options,
            run_names=run_names,
            **extra,
        )
        pair = agreement.pairs[0]
        labels = pair.labels
        confusion = np.array(pair.confusion, dtype=np.int64)
        ranking = agreement.rankings[0] if agreement.rankings else None
        j: dict[str, Any] = {
            "kappa": pair.kappa,
            "kappa_binary": _binary_kappa(labels, confusion, level),
            "alpha": agreement.alpha_ordinal,
            "shared": pair.shared,
            "ranking": ranking,
            "top": None if ranking is None else _top(ranking, top),
        }
        out.append(
            JudgeAssessment(
                judge=name,
                shared=pair.shared,
                labels=labels,
                confusion=pair.confusion,
                kappa=pair.kappa,
                kappa_linear=pair.kappa_linear,
                kappa_per_grade=_grade_kappas(labels, confusion),
                kappa_binary=j["kappa_binary"],
                alpha=agreement.alpha_ordinal,
                ranking=ranking,
                top=j["top"],
                verdict=_verdict(name, j, level),
            )
        )
    return Assessment(
        humans=human, level=level, measure=None if runs is None else measure, judges=tuple(out)
    )
