"""Plain text of a :class:`~cranfield.evaluation.check.CheckReport` (``cranfield check``).

Presentation only: one table of what each file holds (rich, at least 80 columns wide and
as wide as the table needs), then the findings, one line each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cranfield.evaluation.check import CheckReport, FileReport

__all__ = ["check_text"]


def check_text(report: CheckReport) -> str:
    """The report for people: one table of what each file holds, then the findings.

    Examples
    --------
    >>> from cranfield.evaluation.check import CheckReport, FileReport, Finding
    >>> run = FileReport("bm25.run", "run", "TREC (a run)", lines=4, queries=2,
    ...                  depth=(1, 2.0, 3), findings=(Finding("rank-zero", "rank 0.", 3),))
    >>> print(check_text(CheckReport((run,))), end="")
     file     ┃ format       ┃ kind ┃ lines ┃ queries ┃ depth min/median/max ┃ levels ┃ ties
    ━━━━━━━━━━╇━━━━━━━━━━━━━━╇━━━━━━╇━━━━━━━╇━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━╇━━━━━━
     bm25.run │ TREC (a run) │ run  │     4 │       2 │                1/2/3 │        │    0
    <BLANKLINE>
    1 finding(s)
      bm25.run:3: rank-zero: rank 0.
    """
    import io

    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(show_edge=False, header_style="bold")
    keys = ["file", "format", "kind", "lines", "queries", "depth min/median/max", "levels", "ties"]
    if report.qrels is not None:
        keys.append("unjudged@10")
    for key in keys:
        table.add_column(
            key, justify="left" if key in ("file", "format", "kind", "levels") else "right"
        )
    for f in report.files:
        table.add_row(*(escape(cell) for cell in _cells(f)[: len(keys)]))
    buffer = io.StringIO()
    width = max(80, Console(file=io.StringIO(), width=1 << 20).measure(table).maximum)
    Console(file=buffer, width=width, force_terminal=False, highlight=False).print(table)
    lines = [buffer.getvalue()]
    if report.qrels is not None:
        lines.append(f"\nqueries and top 10 checked against {report.qrels}\n")
    found = report.findings
    lines.append(f"\n{len(found)} finding(s)\n" if found else "\nnothing found\n")
    for path, finding in found:
        where = f"{path}:{finding.line}" if finding.line is not None else path
        lines.append(f"  {where}: {finding.code}: {finding.message}\n")
    return "".join(lines)


def _cells(f: FileReport) -> list[str]:
    """One file's row, every column (``unjudged@10`` last, cut when no qrels were given)."""
    depth = "" if f.depth is None else f"{f.depth[0]}/{f.depth[1]:g}/{f.depth[2]}"
    levels = " ".join(f"{level}:{count}" for level, count in f.levels.items())
    ties = "" if f.kind != "run" else str(f.queries_with_ties)
    unjudged = "" if f.unjudged_at_10 is None else f"{f.unjudged_at_10:.0%}"
    fmt = f.format or ""
    return [f.path, fmt, f.kind, str(f.lines), str(f.queries), depth, levels, ties, unjudged]
