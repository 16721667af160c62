"""Plain text of a :class:`~cranfield.stats.reproducibility.Reproducibility`
(``cranfield repro``).

Presentation only: the numbers come from the result, four decimals as
:func:`cranfield.report.numbers.four_places` prints them, ``-`` for an undefined one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cranfield.report.agreement import _grid, _num

if TYPE_CHECKING:
    from cranfield.stats.reproducibility import ReproducedRun, Reproducibility

__all__ = ["reproducibility_text"]


def _per_query_lines(run: ReproducedRun) -> list[str]:
    header = ["query", *(f"KTU@{k}" for k in run.ktu_per_query), "RBO"]
    rows = [
        [q, *(_num(values[q]) for values in run.ktu_per_query.values()), _num(v)]
        for q, v in run.rbo_per_query.items()
    ]
    return _grid(header, rows)


def _run_lines(r: Reproducibility, run: ReproducedRun, *, per_query: bool) -> list[str]:
    paired = r.kind == "reproducibility"
    header = ["measure", "original", "reproduced" if paired else "replicated"]
    header += ["RMSE", "nRMSE", "p-value"] if paired else ["p-value"]
    rows = []
    for m in r.measures:
        row = [m, _num(run.means_original[m]), _num(run.means_reproduced[m])]
        if paired:
            row += [_num(run.rmse[m]), _num(run.nrmse[m])]
        rows.append([*row, _num(run.p_values[m])])
    lines = [f"{run.role}: {run.original} -> {run.reproduced}", *_grid(header, rows)]
    if run.ktu_per_query:
        ktus = "  ".join(f"KTU@{k} {_num(v)}" for k, v in run.ktu.items())
        lines.append(f"rankings: {ktus}  RBO {_num(run.rbo)}")
        if per_query:
            lines += ["", *_per_query_lines(run)]
    return lines


def reproducibility_text(r: Reproducibility, *, per_query: bool = False) -> str:
    """Each run pair (means, RMSE, nRMSE, p-value; KTU and RBO, with ``per_query`` for every
    query too), then ER and ΔRI.

    Examples
    --------
    >>> from cranfield.evaluation.evaluator import Evaluator
    >>> from cranfield.stats import reproducibility
    >>> qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}}
    >>> ev = Evaluator(qrels, ["AP"])
    >>> base = {"q1": {"d1": 2.0, "d9": 1.0}, "q2": {"d3": 1.0}}
    >>> adv = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}}
    >>> rep_base = {"q1": {"d9": 2.0, "d1": 1.0}, "q2": {"d3": 1.0}}
    >>> rep_adv = {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d3": 1.0}}
    >>> r = reproducibility(ev.many({"bm25": base, "rm3": adv}),
    ...                     ev.many({"bm25-r": rep_base, "rm3-r": rep_adv}))
    >>> print(reproducibility_text(r), end="")
    Reproduction on 2 queries (paired t-test).
    <BLANKLINE>
    baseline: bm25 -> bm25-r
    measure  original  reproduced    RMSE   nRMSE  p-value
    AP         0.7500      0.6250  0.1768  0.2236   0.5000
    <BLANKLINE>
    advanced: rm3 -> rm3-r
    measure  original  reproduced    RMSE   nRMSE  p-value
    AP         1.0000      1.0000  0.0000  0.0000   1.0000
    <BLANKLINE>
    Effect of the advanced run over the baseline, reproduced:
    measure      ER      ΔRI
    AP       1.5000  -0.2667
    ER: reproduced mean improvement / original (1: the same effect); ΔRI: original relative
    improvement - reproduced (0: the same).
    """
    paired = r.kind == "reproducibility"
    if paired:
        lines = [f"Reproduction on {r.queries_original} queries ({r.test})."]
    else:
        lines = [
            f"Replication: {r.queries_original} original queries, {r.queries_reproduced} "
            f"replicated queries ({r.test})."
        ]
    for run in r.runs:
        lines += ["", *_run_lines(r, run, per_query=per_query)]
    if any(run.ktu_per_query for run in r.runs):
        lines += [
            "",
            f"KTU: Kendall's tau Union of the top k documents; RBO: rank-biased overlap (p "
            f"{r.rbo_p:g}, depth {r.rbo_depth});",
            f"means over the {r.ranked_queries} queries both runs answer.",
        ]
    if r.effect_ratio:
        verb = "reproduced" if paired else "replicated"
        rows = [[m, _num(r.effect_ratio[m]), _num(r.delta_ri[m])] for m in r.measures]
        lines += [
            "",
            f"Effect of the advanced run over the baseline, {verb}:",
            *_grid(["measure", "ER", "ΔRI"], rows),
            f"ER: {verb} mean improvement / original (1: the same effect); ΔRI: original relative",
            f"improvement - {verb} (0: the same).",
        ]
    lines += list(r.notes)
    return "\n".join(lines) + "\n"
