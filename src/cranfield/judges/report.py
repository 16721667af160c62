"""The text of the ``cranfield judges`` commands (presentation only: the judges render their
own results, as the lab does, :mod:`cranfield.report` being below them)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cranfield.judges.aggregation import Combined
    from cranfield.judges.asking import Asked
    from cranfield.judges.assessment import Assessment
    from cranfield.judges.probe import Probe

__all__ = ["asked_text", "assessment_text", "combined_text", "probe_text"]


def _num(x: float, digits: int = 4) -> str:
    return "-" if math.isnan(x) else f"{x:.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(r: list[str]) -> str:
        cells = zip(r, widths, strict=True)
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(cells))

    return "\n".join([line(header).rstrip(), *(line(r).rstrip() for r in rows)]) + "\n"


def combined_text(result: Combined, *, skipped: int = 0) -> str:
    """``judges combine``'s table: the labels given, the workers' quality, the policies."""
    counts = ", ".join(f"{g}: {int((result.labels == g).sum())}" for g in result.grades)
    head = [
        f"labels:      {result.source}",
        f"method:      {result.method}"
        + (f" ({result.iterations} EM iterations)" if result.method != "majority" else ""),
        f"pairs:       {result.labels.size} (combined labels {counts})",
        f"ties:        {result.ties} (each took the lowest tied grade)",
    ]
    if skipped:
        head.append(f"left out:    {skipped} labels outside the scale")
    skill = {
        "majority": "agreement",
        "dawid-skene": "accuracy",
        "one-coin": "accuracy",
        "glad": "alpha",
    }[result.method]
    gold = result.gold_pairs > 0
    own = result.method != "majority"  # the majority's skill is its agreement
    header = ["worker", "labels", "agree"] + ([skill] if own else [])
    header += ["gold", "gold acc"] if gold else []
    rows = [
        [w.worker, str(w.labels), _num(w.agreement)]
        + ([_num(w.skill)] if own else [])
        + ([str(w.gold), _num(w.gold_accuracy)] if gold else [])
        for w in result.workers
    ]
    notes = "".join(f"  {n}\n" for n in result.notes)
    return "\n".join(head) + "\n\n" + _table(header, rows) + "\nnotes:\n" + notes


def assessment_text(result: Assessment) -> str:
    """``judges assess``'s table: one row per judge, then one verdict per judge."""
    grades = sorted({g for j in result.judges for g in j.kappa_per_grade})
    header = ["judge", "pairs", "kappa", "linear", f"bin@{result.level}", "alpha"]
    header += [f"k({g})" for g in grades]
    runs = result.measure is not None
    if runs:
        top = result.judges[0].top
        k = 0 if top is None else top.k
        header += ["tau", "tau_AP", "RBO", f"tau@top{k}", f"top{k}"]
    rows = []
    for j in result.judges:
        row = [j.judge, str(j.shared), _num(j.kappa), _num(j.kappa_linear)]
        row += [_num(j.kappa_binary), _num(j.alpha)]
        row += [_num(j.kappa_per_grade.get(g, math.nan)) for g in grades]
        if j.ranking is not None and j.top is not None:
            c = j.ranking.coefficients
            row += [_num(c[n].value) for n in ("kendall_tau_b", "tau_ap", "rbo")]
            row += [_num(j.top.kendall_tau_b), f"{j.top.overlap:.0%}"]
        rows.append(row)
    head = f"humans: {result.humans}"
    if runs:
        head += f"; runs ranked by {result.measure}"
    verdicts = "".join(f"{j.verdict}\n" for j in result.judges)
    if len(result.judges) <= 3:  # a few judges: their confusion matrices too
        for j in result.judges:
            grid = [
                [f"humans {g}", *map(str, row)]
                for g, row in zip(j.labels, j.confusion, strict=True)
            ]
            verdicts += f"\nconfusion (rows: humans, columns: {j.judge}):\n"
            verdicts += _table(["", *map(str, j.labels)], grid)
    notes = (
        f"kappa over the grades (unweighted, linear), k(g): grade g against the rest, "
        f"bin@{result.level}: labels >= {result.level} relevant; alpha: Krippendorff's, "
        "ordinal; negative labels are not judgments.\n"
    )
    return head + "\n\n" + _table(header, rows) + "\n" + verdicts + "\n" + notes


def asked_text(asked: Asked, prices: tuple[float, float] | None = None) -> str:
    """``judges ask``'s summary: what was asked, answered, kept, and what it cost."""
    prompt, completion = asked.tokens()
    cost = asked.cost(prices)
    lines = [
        f"model:      {asked.model} (prompt {asked.template})",
        f"pairs:      {len(asked.pairs)} ({asked.graded} graded, {asked.malformed} malformed "
        f"answers kept without a grade, {asked.failed} failed requests)",
        f"requests:   {asked.requests} sent, {asked.cached} answers from the cache",
        f"tokens:     {prompt} prompt, {completion} completion (this run's requests)",
        f"time:       {asked.seconds:.1f} s",
    ]
    if cost is not None:
        lines.append(f"cost:       {cost:.4f} (at the prices given)")
    return "\n".join(lines) + "\n"


def probe_text(probe: Probe) -> str:
    """``judges ask --probe``'s table: stuffed passages and the grades they got."""
    header = ["repeats", "graded", "mean grade", f">= {probe.level}"]
    rows = [
        [str(r), str(n), _num(m, 2), "-" if math.isnan(s) else f"{s:.0%}"]
        for r, n, m, s in probe.rows
    ]
    return _table(header, rows) + "\n" + probe.verdict + "\n"
