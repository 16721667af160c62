"""The text of the ``cranfield judges`` commands (presentation only: the judges render their
own results, as the lab does, :mod:`cranfield.report` being below them)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cranfield.judges.aggregation import Combined

__all__ = ["combined_text"]


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
    header = ["worker", "labels", "agree", skill] + (["gold", "gold acc"] if gold else [])
    rows = [
        [w.worker, str(w.labels), _num(w.agreement), _num(w.skill)]
        + ([str(w.gold), _num(w.gold_accuracy)] if gold else [])
        for w in result.workers
    ]
    notes = "".join(f"  {n}\n" for n in result.notes)
    return "\n".join(head) + "\n\n" + _table(header, rows) + "\nnotes:\n" + notes
