"""Render a :class:`~cranfield.stats.Comparison` for people and for programs.

People: a terminal table (rich), Markdown and LaTeX (booktabs), each with the baseline or the
run letters marked, significance marks from the primary test, the best mean in bold and the
method (query set, test, correction, alpha, seed) stated under or above the table.
Programs: a flat table (polars / CSV) and JSON with every number.
"""

from __future__ import annotations

import io
import math
import re
from typing import TYPE_CHECKING, Any, Final, TextIO

from cranfield.report.numbers import best_shown, four_places
from cranfield.stats.comparison import FAMILYWISE, TEST_LABELS
from cranfield.stats.corrections import correction_label

if TYPE_CHECKING:
    import polars as pl

    from cranfield.stats.comparison import Comparison, PairComparison

__all__ = [
    "describe",
    "print_table",
    "to_csv",
    "to_dict",
    "to_json",
    "to_latex",
    "to_markdown",
    "to_polars",
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


def _num(v: float) -> float | None:
    return v if math.isfinite(v) else None


def letters(k: int) -> list[str]:
    """Labels ``a, b, ..., z, aa, ab, ...`` for ``k`` runs."""
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


# --------------------------------------------------------------------------- the method


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _test_sentence(c: Comparison, test: str) -> str:
    n = len(c.topics)
    B = c.n_resamples
    label = TEST_LABELS[test]
    if test == "t-test":
        how = f"{label} (two-sided, {n - 1} degrees of freedom)"
    elif test == "wilcoxon":
        how = f"{label} (two-sided; queries with equal scores dropped, as scipy)"
    elif test == "sign":
        how = f"{label} (two-sided exact binomial; queries with equal scores dropped)"
    elif test == "randomization":
        if c.exact_randomization:
            how = f"{label} (two-sided; exact, all {2**n:,} sign assignments)"
        else:
            how = (
                f"{label} (two-sided; {B:,} random sign assignments, p = (1 + count) / "
                f"{B + 1:,}; seed {c.seed})"
            )
    elif test == "bootstrap":
        how = f"{label} (two-sided shift method; {B:,} resamples of the queries; seed {c.seed})"
    elif test == "tukey-hsd":
        how = f"{label} (two-way ANOVA of {len(c.runs)} runs blocked by query)"
    else:
        how = f"{label} ({B:,} permutations of the runs within each query; seed {c.seed})"
    k = len(c.runs)
    if test in FAMILYWISE:
        corr = f"adjusted for all {k * (k - 1) // 2:,} pairs of runs within each measure"
    else:
        npairs = len(c.pairs) // max(1, len(c.measures))
        family = (
            f"{_count(len(c.pairs), 'comparison')} ({_count(npairs, 'pair')} × "
            f"{_count(len(c.measures), 'measure')})"
        )
        corr = (
            f"no correction for the {family}"
            if c.correction == "none"
            else f"{correction_label(c.correction)} over {family}"
        )
    return f"Test: {how}; {corr}."


def describe(c: Comparison, *, command_line: bool = False) -> list[str]:
    """Sentences stating the query set, flagged runs, tests, correction, marks and intervals.

    ``command_line=True`` names the missing-query policy by its flag (``--missing zero``).
    """
    n = len(c.topics)
    out: list[str] = []
    policy = f"--missing {c.missing_policy}" if command_line else f"missing={c.missing_policy}"
    if c.missing_policy == "zero":
        out.append(
            f"{n:,} {'query' if n == 1 else 'queries'}: every judged query, "
            f"a run missing a query scores 0 on it ({policy})."
        )
    elif c.missing_policy == "skip":
        out.append(
            f"{n:,} queries: the judged queries every run retrieved ({policy}); "
            f"{len(c.dropped_topics):,} judged queries left out."
        )
    elif c.missing_policy == "error":
        out.append(f"{n:,} queries: every judged query, retrieved by every run ({policy}).")
    else:
        out.append(f"{n:,} queries, scores as given.")
    judged = n + len(c.dropped_topics)
    for run, miss in c.missing_topics.items():
        fate = "scored 0" if c.missing_policy == "zero" else "left out of every comparison"
        out.append(
            f"† {run} has no ranking for {len(miss):,} of the {judged:,} judged queries ({fate})."
        )
    for test in c.tests:
        out.append(_test_sentence(c, test))
    primary = TEST_LABELS[c.primary_test]
    if c.baseline is None:
        out.append(
            f"Letters mark the runs a run is significantly better than (adjusted p ≤ {c.alpha:g} "
            f"in the {primary}); bold: highest mean."
        )
    else:
        out.append(
            f"{UP}/{DOWN}: significantly better/worse than the baseline {c.baseline} (adjusted "
            f"p ≤ {c.alpha:g} in the {primary}); bold: highest mean."
        )
    conf = f"{(1 - c.alpha) * 100:g}%"
    kinds = {"t": "t", "percentile": "bootstrap percentile", "bca": "bootstrap BCa"}
    if c.intervals:
        names = ", ".join(kinds[i] for i in c.intervals)
        boot = any(i != "t" for i in c.intervals)
        extra = f" ({c.n_resamples:,} resamples; seed {c.seed})" if boot else ""
        out.append(f"Mean differences have {conf} confidence intervals: {names}{extra}.")
    return out


# --------------------------------------------------------------------------- cells


def _cells(c: Comparison, *, style: str) -> tuple[list[str], list[list[str]], set[tuple[int, int]]]:
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
                mark = "".join(labels[c.runs.index(r)] for r in beaten)
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

    ``command_line=True`` words the notes for the command line (:func:`describe`).
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
    for line in describe(c, command_line=command_line):
        console.print(_rich_escape(line), soft_wrap=True)


def _rich_escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def _details_rows(c: Comparison) -> tuple[list[str], list[list[str]]]:
    header = ["measure", "control", "treatment", "mean diff"]
    header += [f"{kind} CI" for kind in c.intervals]
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
    """A Markdown (GFM) table with significance superscripts, followed by the method notes."""
    header, rows, _ = _cells(c, style="markdown")
    align = ["---"] * (len(header) - len(c.measures)) + ["---:"] * len(c.measures)
    table = [
        "| " + " | ".join(_md_escape(h) for h in header) + " |",
        "| " + " | ".join(align) + " |",
        *("| " + " | ".join(r) + " |" for r in rows),
    ]
    notes = [_md_escape(s) for s in describe(c)]
    return "\n\n".join(["\n".join(table), *notes]) + "\n"


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
    notes = describe(c)
    measures = ", ".join(c.measures)
    first = f"Mean {measures} of {len(c.runs)} runs. {notes[0]}"
    return [first, *notes[1:]]


# --------------------------------------------------------------------------- programs


_TEST_COLUMNS: Final = {
    "t-test": "t_test",
    "wilcoxon": "wilcoxon",
    "sign": "sign",
    "randomization": "randomization",
    "bootstrap": "bootstrap",
    "tukey-hsd": "tukey_hsd",
    "randomized-tukey-hsd": "randomized_tukey_hsd",
}


def _pair_record(c: Comparison, p: PairComparison) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "measure": p.measure,
        "control": p.control,
        "treatment": p.treatment,
        "control_mean": p.control_mean,
        "treatment_mean": p.treatment_mean,
        "mean_difference": p.mean_difference,
    }
    for kind in c.intervals:
        lo, hi = p.intervals[kind]
        rec[f"ci_{kind}_low"] = lo
        rec[f"ci_{kind}_high"] = hi
    rec.update(
        cohens_dz=p.cohens_dz,
        wins=p.wins,
        ties=p.ties,
        losses=p.losses,
        improved=p.improved,
        hurt=p.hurt,
        urisk=p.urisk,
        trisk=p.trisk,
    )
    for test in c.tests:
        o = p.tests[test]
        col = _TEST_COLUMNS[test]
        rec[f"{col}_statistic"] = o.statistic
        rec[f"{col}_p"] = o.p_value
        rec[f"{col}_p_adjusted"] = o.p_adjusted
        rec[f"{col}_significant"] = o.significant
    return rec


def to_polars(c: Comparison) -> pl.DataFrame:
    """One row per compared pair and measure (see :func:`to_csv` for the columns)."""
    import polars as pl

    records = [_pair_record(c, p) for p in c.pairs]
    return pl.DataFrame(records, infer_schema_length=None)


def to_csv(c: Comparison) -> str:
    """CSV of :func:`to_polars`: measure, control, treatment, means, difference, intervals,
    effects, and per test ``<test>_statistic, _p, _p_adjusted, _significant``."""
    return to_polars(c).write_csv()


def to_dict(c: Comparison, *, per_query: bool = False) -> dict[str, Any]:
    """Every number and the method as plain JSON-ready data (non-finite numbers as ``None``)."""
    k = len(c.runs)
    family = {t: (k * (k - 1) // 2 if t in FAMILYWISE else len(c.pairs)) for t in c.tests}
    method: dict[str, Any] = {
        "queries": len(c.topics),
        "missing_policy": c.missing_policy,
        "tests": list(c.tests),
        "primary_test": c.primary_test,
        "correction": c.correction,
        "correction_family_size": family,
        "alpha": c.alpha,
        "confidence": 1.0 - c.alpha,
        "intervals": list(c.intervals),
        "n_resamples": c.n_resamples,
        "seed": c.seed,
        "randomization": (
            None
            if "randomization" not in c.tests
            else ("exact" if c.exact_randomization else "monte-carlo")
        ),
        "risk_aversion": c.risk_aversion,
        "notes": describe(c),
    }
    comparisons = []
    for p in c.pairs:
        comparisons.append(
            {
                "measure": p.measure,
                "control": p.control,
                "treatment": p.treatment,
                "control_mean": _num(p.control_mean),
                "treatment_mean": _num(p.treatment_mean),
                "mean_difference": _num(p.mean_difference),
                "intervals": {kind: [_num(lo), _num(hi)] for kind, (lo, hi) in p.intervals.items()},
                "cohens_dz": _num(p.cohens_dz),
                "wins": p.wins,
                "ties": p.ties,
                "losses": p.losses,
                "improved": p.improved,
                "hurt": p.hurt,
                "urisk": _num(p.urisk),
                "trisk": _num(p.trisk),
                "tests": {
                    t: {
                        "statistic": _num(o.statistic),
                        "p_value": o.p_value,
                        "p_adjusted": o.p_adjusted,
                        "significant": o.significant,
                    }
                    for t, o in p.tests.items()
                },
            }
        )
    out: dict[str, Any] = {
        "method": method,
        "runs": list(c.runs),
        "baseline": c.baseline,
        "measures": list(c.measures),
        "means": {m: {r: _num(v) for r, v in c.means[m].items()} for m in c.measures},
        "missing_topics": {r: list(t) for r, t in c.missing_topics.items()},
        "dropped_topics": list(c.dropped_topics),
        "comparisons": comparisons,
    }
    if per_query:
        out["per_query"] = {
            "topics": list(c.topics),
            "scores": {
                m: {r: [float(v) for v in c.scores[m][:, j]] for j, r in enumerate(c.runs)}
                for m in c.measures
            },
        }
    return out


def to_json(c: Comparison, *, per_query: bool = False, indent: int | None = 2) -> str:
    """:func:`to_dict` as JSON text."""
    return c.to_json(per_query=per_query, indent=indent)
