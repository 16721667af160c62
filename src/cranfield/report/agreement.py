"""Plain-text tables of :class:`~cranfield.stats.rank_correlation.RankCorrelation` (``cranfield
correlate``) and :class:`~cranfield.stats.judge_agreement.JudgeAgreement` (``cranfield agree``).

Presentation only: the numbers come from the result objects, four decimals as
:func:`cranfield.report.numbers.four_places` prints them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

from cranfield.report.numbers import four_places

if TYPE_CHECKING:
    from collections.abc import Sequence

    from cranfield.stats.judge_agreement import JudgeAgreement, JudgePair
    from cranfield.stats.rank_correlation import RankCorrelation

__all__ = ["agreement_text", "correlation_text"]

COEFFICIENT_LABELS: Final = {
    "kendall_tau_b": "Kendall's tau-b",
    "tau_ap": "tau_AP",
    "spearman_rho": "Spearman's rho",
    "pearson_r": "Pearson's r",
    "rbo": "RBO",
}


def _num(v: float) -> str:
    return four_places(v) if math.isfinite(v) else "-"


def _grid(header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    """Columns padded to their widest cell: the first ``left`` to the left, the rest right."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [line(header), *(line(r) for r in rows)]


def correlation_text(r: RankCorrelation, *, max_swaps: int = 20, per_query: bool = False) -> str:
    """The means of every system under both settings, the coefficients with their intervals,
    the swapped pairs, how alike the per-query scores are (with ``per_query``, for every
    system) and the notes.

    Examples
    --------
    >>> from cranfield.stats import correlate_scores
    >>> r = correlate_scores([[0.1, 0.5, 0.3]], [[0.2, 0.4, 0.5]], systems=["x", "y", "z"],
    ...                      settings=("AP", "nDCG@10"), n_resamples=0)
    >>> print(correlation_text(r), end="")
    system      AP  nDCG@10
    y       0.5000   0.4000
    z       0.3000   0.5000
    x       0.1000   0.2000
    <BLANKLINE>
    coefficient       value  95% interval
    Kendall's tau-b  0.3333             -
    tau_AP           0.0000             -
    Spearman's rho   0.5000             -
    Pearson's r      0.6547             -
    RBO (p=0.9)      0.9000             -
    <BLANKLINE>
    1 of 3 system pairs swapped ('x > y': x ahead under AP, y under nDCG@10): y > z.
    Per-query scores (AP vs nDCG@10): tau-b 0.3333, r 0.6547 over 3 (query, system) pairs.
    3 systems ranked by their mean over 1 query; AP is the reference (tau_AP's truth).
    RBO residual 0.4775. No bootstrap interval (0 resamples).
    """
    order = sorted(range(len(r.systems)), key=lambda i: (-r.means_a[i], r.systems[i].encode()))
    rows = [[r.systems[i], _num(r.means_a[i]), _num(r.means_b[i])] for i in order]
    lines = _grid(["system", r.setting_a, r.setting_b], rows)
    level = f"{round(100 * (1 - r.alpha), 6):g}%"
    coeff_rows = []
    for name, c in r.coefficients.items():
        label = COEFFICIENT_LABELS[name] + (f" (p={r.p:g})" if name == "rbo" else "")
        interval = "-" if math.isnan(c.low) else f"[{_num(c.low)}, {_num(c.high)}]"
        coeff_rows.append([label, _num(c.value), interval])
    lines += ["", *_grid(["coefficient", "value", f"{level} interval"], coeff_rows)]
    first = f"{len(r.swaps)} of {r.n_pairs} system pairs swapped"
    if r.swaps:
        shown = ", ".join(f"{a} > {b}" for a, b in r.swaps[:max_swaps])
        more = f" and {len(r.swaps) - max_swaps} more" if len(r.swaps) > max_swaps else ""
        first += f" ('x > y': x ahead under {r.setting_a}, y under {r.setting_b}): {shown}{more}."
    else:
        first += "."
    queries = len(r.topics)
    lines += ["", first, *_query_scores(r, per_query=per_query)]
    lines += [
        f"{len(r.systems)} systems ranked by their mean over {queries} "
        f"quer{'y' if queries == 1 else 'ies'}; {r.setting_a} is the reference (tau_AP's truth).",
        f"RBO residual {_num(r.rbo_residual)}. "
        + (
            f"Bootstrap over queries: {r.n_resamples} resamples, percentile intervals, "
            f"seed {r.seed}."
            if r.n_resamples
            else "No bootstrap interval (0 resamples)."
        ),
        *r.notes,
    ]
    return "\n".join(lines) + "\n"


def _query_scores(r: RankCorrelation, *, per_query: bool) -> list[str]:
    """The per-query scores compared: pooled over the systems, the range over the systems,
    and with ``per_query`` a table of every system."""
    q = r.query_scores
    line = (
        f"Per-query scores ({r.setting_a} vs {r.setting_b}): tau-b {_num(q.kendall_tau_b)}, "
        f"r {_num(q.pearson_r)} over {q.pairs:,} (query, system) pairs"
    )
    each = [
        (a.kendall_tau_b, name)
        for name, a in zip(r.systems, r.system_query_scores, strict=True)
        if math.isfinite(a.kendall_tau_b)
    ]
    if len(each) > 1 and not per_query:
        (low, low_name), (high, high_name) = min(each), max(each)
        line += (
            f"; each system's own tau-b from {_num(low)} ({low_name}) to {_num(high)} ({high_name})"
        )
    lines = [line + "."]
    if per_query:
        rows = [
            [name, _num(a.kendall_tau_b), _num(a.pearson_r), f"{a.pairs:,}"]
            for name, a in zip(r.systems, r.system_query_scores, strict=True)
        ]
        lines += ["", *_grid(["system", "tau-b", "r", "queries"], rows), ""]
    return lines


def _confusion(p: JudgePair) -> list[str]:
    header = [f"{p.judge_a} \\ {p.judge_b}", *(str(g) for g in p.labels)]
    rows = [[str(g), *(str(v) for v in row)] for g, row in zip(p.labels, p.confusion, strict=True)]
    return _grid(header, rows)


def agreement_text(a: JudgeAgreement, *, per_query: bool = False) -> str:
    """Every pair of judges (pairs compared, κ, the confusion matrix), the agreement of all of
    them, and the rankings of the runs under each qrels when there are runs."""
    lines: list[str] = []
    for p in a.pairs:
        lines += [
            f"{p.judge_a} vs {p.judge_b}: {p.shared} pairs judged by both, "
            f"{p.only_a} by {p.judge_a} only, {p.only_b} by {p.judge_b} only.",
            f"  agreement {_num(p.observed)}  Cohen's kappa {_num(p.kappa)}  "
            f"linear {_num(p.kappa_linear)}  quadratic {_num(p.kappa_quadratic)}",
            "",
            *("  " + line for line in _confusion(p)),
            "",
        ]
        if per_query:
            rows = [
                [q, str(qa.pairs), _num(qa.observed), _num(qa.kappa)]
                for q, qa in p.per_query.items()
            ]
            lines += [
                *("  " + line for line in _grid(["query", "pairs", "agreement", "kappa"], rows)),
                "",
            ]
    lines += [
        f"All {len(a.judges)} judges: Krippendorff's alpha {_num(a.alpha_ordinal)} (ordinal), "
        f"{_num(a.alpha_nominal)} (nominal), on the pairs judged at least twice; "
        f"Fleiss' kappa {_num(a.fleiss_kappa)} on the {a.shared_by_all} pairs every judge "
        "labelled.",
    ]
    if a.relevance_level is not None:
        lines.append(a.notes[-1])
    skipped = {n: k for n, k in a.unjudged.items() if k}
    if skipped:
        told = ", ".join(f"{k} in {n}" for n, k in skipped.items())
        lines.append(
            f"Negative labels (trec_eval's 'in the pool, not judged') are not judgments and "
            f"were left out: {told}."
        )
    for r in a.rankings:
        lines += ["", f"Runs ranked by {a.measure} under {r.setting_a} and {r.setting_b}:", ""]
        lines.append(correlation_text(r).rstrip("\n"))
    return "\n".join(lines) + "\n"
