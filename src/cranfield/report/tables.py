"""Results as tables for people (rich) and for programs (TSV, CSV, JSON, JSON lines).

The table for people is rich's (names never cut, best means in bold on a terminal). Written
to a file or a pipe it has no style, only characters; when its cells are plain printable
ASCII (every number, and nearly every run name and query id) those characters are written
here without importing rich, which costs a short ``cranfield evaluate`` a tenth of its time
(BENCHMARKS.md, issue 29). Both ways give the same bytes: a test compares them.
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING, Any, TextIO

from cranfield.report.numbers import best_shown, four_places

if TYPE_CHECKING:
    from collections.abc import Sequence

    from cranfield.evaluation.results import Results
    from cranfield.measures import Measure


def _num(v: float) -> Any:
    return None if math.isnan(v) else v


def _rows(
    results: Sequence[Results], measures: Sequence[Measure], per_query: bool
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for r in results:
        if per_query:
            for i, t in enumerate(r.topics):
                row: dict[str, Any] = {"run": r.run_name, "query_id": t}
                row.update({str(m): _num(float(r.values[m][i])) for m in measures})
                rows.append(row)
        else:
            row = {"run": r.run_name, "num_queries": len(r.topics)}
            row.update({summary_label(r, m): _num(r[m]) for m in measures})
            rows.append(row)
    return rows


def summary_label(result: Results, measure: Measure) -> str:
    """Column name of a summary: the measure, plus the aggregation when it is not the
    measure's usual one (``AP [median]``, ``SetP [micro]``)."""
    how = result.how(measure)
    return str(measure) if how == measure.spec.aggregate else f"{measure} [{how}]"


def render(
    results: Sequence[Results],
    measures: Sequence[Measure],
    *,
    fmt: str,
    per_query: bool,
    out: TextIO,
) -> None:
    """Write ``results`` to ``out`` as a table, TSV, CSV, JSON or JSON lines."""
    rows = _rows(results, measures, per_query)
    if fmt == "json":
        import json

        from cranfield.evaluation.results import provenance_of

        doc = {
            "results": rows,
            "policy": {
                r.run_name: {"missing": r.missing_policy, "missing_queries": r.missing_topics}
                for r in results
            },
            "provenance": provenance_of(results, measures).to_dict(),
        }
        out.write(json.dumps(doc, indent=2) + "\n")
        return
    if fmt == "jsonl":
        import json

        for row in rows:
            out.write(json.dumps(row) + "\n")
        return
    if fmt in ("tsv", "csv"):
        import csv

        writer = csv.DictWriter(
            out,
            fieldnames=list(rows[0]) if rows else ["run"],
            delimiter="\t" if fmt == "tsv" else ",",
            lineterminator="\n",
        )
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
        return
    _rich_table(rows, measures, out)


def _shown(value: object) -> str:
    """A cell's text as the table shows it."""
    if isinstance(value, float):
        return four_places(value)
    return "" if value is None else str(value)


def _table_cells(rows: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """The header and the cells' text of the table of ``rows``, as shown (unstyled)."""
    keys = list(rows[0]) if rows else ["run"]
    cells = [[_shown(row[key]) for key in keys] for row in rows]
    return keys, cells


_PLAIN = frozenset(map(chr, range(0x20, 0x7F))) - set("[]\\:")


def _plain_table(keys: list[str], cells: list[list[str]]) -> str | None:
    """rich's table of ``keys`` and ``cells`` as written to a file (no style), or ``None``
    when a cell is not plain: empty table, a character outside printable ASCII (wide or
    combining characters, controls), or one rich's markup or emoji codes read (``[``,
    ``]``, a backslash, ``:``), or a text that starts or ends with a space (rich trims it
    when it aligns). Columns as :func:`_rich_table` draws them: each as wide as
    its widest text plus a space either side, run and query ids left-aligned and the rest
    right-aligned, ``┃`` between header cells, ``│`` between the others, no outer edge."""
    if not cells or sys.platform == "win32":  # rich may draw other boxes on Windows
        return None
    if not all(
        _PLAIN.issuperset(text) and text == text.strip() for row in (keys, *cells) for text in row
    ):
        return None
    widths = [max(len(row[k]) for row in (keys, *cells)) for k in range(len(keys))]
    left = [key in ("run", "query_id") for key in keys]

    def line(row: list[str], bar: str) -> str:
        return bar.join(
            f" {t.ljust(w) if is_left else t.rjust(w)} "
            for t, w, is_left in zip(row, widths, left, strict=True)
        )

    rule = "╇".join("━" * (w + 2) for w in widths)
    return "\n".join([line(keys, "┃"), rule, *(line(row, "│") for row in cells), ""])


def _rich_table(rows: list[dict[str, Any]], measures: Sequence[Measure], out: TextIO) -> None:
    """The rows as a table, names never cut and every best mean (as shown) in bold."""
    if not out.isatty():
        plain = _plain_table(*_table_cells(rows))
        if plain is not None:
            out.write(plain)
            return
    _drawn_by_rich(rows, out)


def _drawn_by_rich(rows: list[dict[str, Any]], out: TextIO) -> None:
    """:func:`_rich_table` drawn by rich (on a terminal, or cells that are not plain)."""
    import io

    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(show_edge=False, header_style="bold")
    keys = list(rows[0]) if rows else ["run"]
    for key in keys:
        table.add_column(
            escape(key), justify="left" if key in ("run", "query_id") else "right", no_wrap=True
        )
    best: dict[str, str | None] = {}
    if len(rows) > 1 and "query_id" not in keys:
        for key in keys[2:]:
            best[key] = best_shown(row[key] for row in rows if row[key] is not None)
    for row in rows:
        cells = []
        for key in keys:
            v = row[key]
            if isinstance(v, float):
                text = four_places(v)
                cells.append(f"[bold]{text}[/bold]" if best.get(key) == text else text)
            else:
                cells.append("" if v is None else escape(str(v)))
        table.add_row(*cells)
    # As wide as the table: a terminal wraps a long line, but a cut name would leave rows
    # that cannot be told apart. Bold only on a terminal. Written at once, so that a closed
    # pipe is a BrokenPipeError here (rich would end the process itself).
    buffer = io.StringIO()
    wide = Console(file=buffer, width=1 << 20, force_terminal=False)
    width = max(80, wide.measure(table).maximum)
    console = Console(file=buffer, width=width, force_terminal=out.isatty(), highlight=False)
    console.print(table)
    out.write(buffer.getvalue())
