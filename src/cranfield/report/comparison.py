"""Render a :class:`~cranfield.stats.Comparison` for people.

A terminal table (rich), Markdown and LaTeX (booktabs), each with the baseline or the run
letters marked, significance marks from the primary test, the best mean in bold, and under or
above the table the notes: the comparison's method (:meth:`Comparison.describe
<cranfield.stats.Comparison.describe>`: query set, tests, correction, alpha, seed) and the
legend of the marks. The data exports for programs (dict, JSON, polars, CSV) are methods of
the :class:`~cranfield.stats.Comparison` itself.
"""

from __future__ import annotations

import io
import math
import re
from typing import TYPE_CHECKING, Any, Final, TextIO

from cranfield.report.numbers import best_shown, four_places
from cranfield.stats.plan import TEST_LABELS

if TYPE_CHECKING:
    from cranfield.stats.comparison import Comparison, PairComparison

__all__ = [
    "latex_escape",
    "legend",
    "letters",
    "notes",
    "print_table",
    "to_latex",
    "to_markdown",
    "to_text",
]

_TEST_SHORT: Final = {
    "t-test": "t",
    "wilcoxon": "Wilcoxon",
    "sign": "sign",
    "randomization": "rand.",
    "bootstrap": "boot.",
    "tukey-hsd": "HSD",
    "randomized-tukey-hsd": "rand. HSD",
}
UP: Final = "▲"
DOWN: Final = "▼"
_LATEX_SPECIAL: Final = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_LATEX_SYMBOLS: Final = {
    "≤": r"$\le$",
    "×": r"$\times$",
    "α": r"$\alpha$",
    UP: r"$\uparrow$",
    DOWN: r"$\downarrow$",
    "±": r"$\pm$",
    "†": r"$^\dagger$",
}
_LATEX_RE: Final = re.compile("|".join(re.escape(c) for c in [*_LATEX_SPECIAL, *_LATEX_SYMBOLS]))


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters and map the few symbols the notes use to math."""
    return _LATEX_RE.sub(
        lambda m: _LATEX_SPECIAL.get(m.group(0)) or _LATEX_SYMBOLS[m.group(0)], text
    )


def letters(k: int) -> list[str]:
    """Labels ``a, b, ..., z, aa, ab, ...`` for ``k`` runs.

    Up to 26 runs a cell's marks are written together (``abd``); past 26 they are separated
    by commas (``z,aa``), so that every mark reads one way."""
    out = []
    for i in range(k):
        s = ""
        j = i
        while True:
            s = chr(ord("a") + j % 26) + s
            j = j // 26 - 1
            if j < 0:
                break
        out.append(s)
    return out


# --------------------------------------------------------------------------- the notes


def legend(c: Comparison) -> str:
    """The sentence that explains a table's marks: run letters or ▲/▼, and bold."""
    label = TEST_LABELS[c.primary_test]
    if c.baseline is None:
        return (
            f"Letters mark the runs a run is significantly better than (adjusted p ≤ {c.alpha:g} "
            f"in the {label}); bold: highest mean."
        )
    return (
        f"{UP}/{DOWN}: significantly better/worse than the baseline {c.baseline} (adjusted "
        f"p ≤ {c.alpha:g} in the {label}); bold: highest mean."
    )


def notes(c: Comparison, *, command_line: bool = False) -> list[str]:
    """The sentences under a table: the method (:meth:`Comparison.describe`) and the legend.

    The legend follows the test sentences, before the sentence on intervals.
    ``command_line=True`` names the missing-query policy by its flag (``--missing zero``).
    """
    method = c.describe(command_line=command_line)
    at = len(method) - 1 if c.intervals else len(method)
    return [*method[:at], legend(c), *method[at:]]


# --------------------------------------------------------------------------- cells


def _cells(c: Comparison, *, style: str) -> tuple[list[str], list[list[str]], set[tuple[int, int]]]:  # noqa: PLR0912 -- a table renderer: one branch per column kind
    """Header, rows and best-mean cells of the means table (``text``, ``markdown``, ``latex``).

    Markdown and LaTeX cells carry their own bold markup; the ``(row, column)`` set tells the
    terminal renderer which cells to embolden.
    """
    labels = letters(len(c.runs))
    all_pairs = c.baseline is None
    header = (["", "run"] if all_pairs else ["run"]) + list(c.measures)
    esc = latex_escape if style == "latex" else (_md_escape if style == "markdown" else str)
    rows: list[list[str]] = []
    bold: set[tuple[int, int]] = set()
    by_pair: dict[tuple[str, str, str], PairComparison] = {
        (p.measure, p.control, p.treatment): p for p in c.pairs
    }
    widths = {m: max(len(four_places(v)) for v in c.means[m].values()) for m in c.measures}
    best = {m: best_shown(c.means[m].values()) for m in c.measures}  # ties: all bold
    for i, run in enumerate(c.runs):
        name = esc(run)
        if not all_pairs and run == c.baseline:
            name += " (baseline)"
        if run in c.missing_topics:
            name += " †" if style != "latex" else r"$^\dagger$"
        row = [labels[i], name] if all_pairs else [name]
        for m in c.measures:
            v = c.means[m][run]
            text = four_places(v)
            is_best = text == best[m]
            if style == "text":
                text = text.rjust(widths[m])
            if is_best:
                bold.add((i, len(row)))
                if style == "markdown":
                    text = f"**{text}**"
                elif style == "latex":
                    text = rf"\textbf{{{text}}}"
            mark = ""
            if all_pairs:
                beaten = c.better_than(run, m)
                # past 26 runs labels have two letters: commas keep "z,aa" from reading "zaa"
                mark = ("," if len(labels) > 26 else "").join(
                    labels[c.runs.index(r)] for r in beaten
                )
            elif run != c.baseline:
                p = by_pair[(m, c.baseline or "", run)]
                base = p.control_mean
                if p.tests[c.primary_test].significant:
                    mark = UP if p.mean_difference > 0 else DOWN
                if style != "latex" and base != 0 and math.isfinite(base):
                    rel = f"{(v - base) / abs(base) * 100:+.1f}%"
                    text = f"{text} {rel}"
            if style == "latex":  # marks get their own column so the numbers stay aligned
                text += " & " + (rf"\textsuperscript{{{latex_escape(mark)}}}" if mark else "")
            elif mark:
                text += f"<sup>{mark}</sup>" if style == "markdown" else f" {mark}"
            row.append(text)
        rows.append(row)
    return header, rows, bold


def _md_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")


# --------------------------------------------------------------------------- people


def print_table(
    c: Comparison,
    file: TextIO,
    *,
    width: int | None = None,
    details: bool = False,
    command_line: bool = False,
) -> None:
    """Print the means table (and the pair details) with rich; colour only on a terminal.

    ``command_line=True`` words the notes for the command line (:func:`notes`).
    """
    from rich.console import Console
    from rich.table import Table

    header, rows, bold = _cells(c, style="text")
    table = Table(show_edge=False, header_style="bold", pad_edge=False)
    for h in header:
        table.add_column(h, justify="left", no_wrap=True)
    for i, row in enumerate(rows):
        table.add_row(
            *(
                f"[bold]{_rich_escape(cell)}[/bold]" if (i, j) in bold else _rich_escape(cell)
                for j, cell in enumerate(row)
            )
        )
    need = _width(header, rows)
    if details:
        d_header, d_rows = _details_rows(c)
        need = max(need, _width(d_header, d_rows))
    console = Console(file=file, width=width or max(80, need), highlight=False, soft_wrap=False)
    console.print(table)
    if details:
        console.print()
        console.print(_table(d_header, d_rows, 3))
        console.print("mean diff = treatment - control; p adj. = adjusted p-value, * significant.")
    console.print()
    for line in notes(c, command_line=command_line):
        console.print(_rich_escape(line), soft_wrap=True)


def _rich_escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def _details_rows(c: Comparison) -> tuple[list[str], list[list[str]]]:
    header = ["measure", "control", "treatment", "mean diff"]
    unadjusted = " unadj." if c.p_values_adjusted else ""  # beside adjusted p-values
    header += [f"{kind} CI{unadjusted}" for kind in c.intervals]
    header += [f"{_TEST_SHORT[t]} p adj." for t in c.tests]
    header += ["W/T/L", "d_z", "URisk"]
    rows = []
    for p in c.pairs:
        row = [p.measure, p.control, p.treatment, f"{p.mean_difference:+.4f}"]
        row += [f"[{lo:+.4f}, {hi:+.4f}]" for lo, hi in (p.intervals[i] for i in c.intervals)]
        for test in c.tests:
            o = p.tests[test]
            row.append(_p(o.p_adjusted) + ("*" if o.significant else " "))
        row += [f"{p.wins}/{p.ties}/{p.losses}", f"{p.cohens_dz:+.2f}", f"{p.urisk:+.4f}"]
        rows.append(row)
    return header, rows


def _table(header: list[str], rows: list[list[str]], left: int) -> Any:
    from rich.table import Table

    t = Table(show_edge=False, header_style="bold", pad_edge=False)
    for j, h in enumerate(header):
        t.add_column(h, justify="left" if j < left else "right", no_wrap=True)
    for row in rows:
        t.add_row(*(_rich_escape(x) for x in row))
    return t


def _width(header: list[str], rows: list[list[str]]) -> int:
    return sum(max(len(h), *(len(r[j]) for r in rows)) + 3 for j, h in enumerate(header))


def _p(v: float) -> str:
    if v < 1e-4:
        return "<0.0001"
    return f"{v:.4f}"


def to_text(c: Comparison, *, width: int | None = None, details: bool = False) -> str:
    """The terminal table and notes as plain text (no colour)."""
    buf = io.StringIO()
    print_table(c, buf, width=width, details=details)
    return buf.getvalue()


def to_markdown(c: Comparison) -> str:
    """A Markdown (GFM) table with significance superscripts, followed by the notes.

    Examples
    --------
    >>> from cranfield.report.comparison import to_markdown
    >>> from cranfield.stats import compare_scores
    >>> c = compare_scores({"bm25": {"AP": [0.20, 0.30, 0.10, 0.40, 0.25, 0.35]},
    ...                     "dense": {"AP": [0.35, 0.45, 0.20, 0.60, 0.40, 0.50]}})
    >>> for line in to_markdown(c).splitlines()[:4]:
    ...     print(line)
    |  | run | AP |
    | --- | --- | ---: |
    | a | bm25 | 0.2667 |
    | b | dense | **0.4167**<sup>a</sup> |
    """
    header, rows, _ = _cells(c, style="markdown")
    align = ["---"] * (len(header) - len(c.measures)) + ["---:"] * len(c.measures)
    table = [
        "| " + " | ".join(_md_escape(h) for h in header) + " |",
        "| " + " | ".join(align) + " |",
        *("| " + " | ".join(r) + " |" for r in rows),
    ]
    sentences = [_md_escape(s) for s in notes(c)]
    return "\n\n".join(["\n".join(table), *sentences]) + "\n"


def to_latex(
    c: Comparison, *, caption: str | None = None, label: str | None = "tab:comparison"
) -> str:
    r"""A ``table`` with a booktabs ``tabular``: best mean bold, significance superscripts.

    Needs ``\usepackage{booktabs}``. Each measure takes two columns, ``r@{}l``: the mean,
    right-aligned, and its superscript marks, so the numbers align on the decimal point. The
    caption states the query set, the test, the correction, :math:`\alpha` and the seed unless
    ``caption`` replaces it.
    """
    header, rows, _ = _cells(c, style="latex")
    first = len(header) - len(c.measures)
    spec = "l" * first + "r@{}l" * len(c.measures)
    titles = [latex_escape(h) for h in header[:first]]
    titles += [rf"\multicolumn{{2}}{{c}}{{{latex_escape(h)}}}" for h in header[first:]]
    if caption is None:
        caption = latex_escape(" ".join(_latex_notes(c)))
    out = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{caption}}}",
    ]
    if label:
        out.append(rf"\label{{{label}}}")
    out += [
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        " & ".join(titles) + r" \\",
        r"\midrule",
    ]
    out += [" & ".join(r) + r" \\" for r in rows]
    out += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(out) + "\n"


def _latex_notes(c: Comparison) -> list[str]:
    sentences = notes(c)
    measures = ", ".join(c.measures)
    first = f"Mean {measures} of {len(c.runs)} runs. {sentences[0]}"
    return [first, *sentences[1:]]
