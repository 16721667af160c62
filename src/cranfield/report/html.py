"""A self-contained HTML report of runs compared on the same queries (``cranfield report``).

One file that opens offline: no network request, every style and script inline, and a
Content-Security-Policy that forbids anything else. It holds

* the summary table: mean of each measure per run with the significance marks of
  :func:`cranfield.compare` (run letters, or ▲/▼ against a baseline), the method notes and
  a table of every pairwise test;
* the curves (when the runs are at hand): interpolated precision–recall and nDCG@k, drawn
  as inline SVG on the server, so they need no script either;
* the per-query table: a score column per run and a difference column per run against a
  reference run (highlighted by sign and size), sortable by any column, filtered by query
  id and paged, for any of the measures;
* the parameters: measures, missing-query policy, tests, correction, alpha, seed, inputs and
  cranfield's version.

Design: the summary, curves and parameters are rendered here as static HTML; only the
per-query table needs a script, a small hand-written one (``assets/report.js``, no library)
that reads the scores from a ``<script type="application/json">`` block and writes cells
with ``textContent``. A table pre-rendered without a script could not be sorted by every
column nor stay light for 7,000 queries × 10 runs; the JSON block keeps the file at about
the size of the numbers themselves and the page renders only the rows in view.

Escaping: every user-controlled string (run names and tags, query ids, file names, the
title) goes through :func:`html.escape` in HTML, and the JSON block escapes ``<``, ``>``
and ``&`` as ``\\u003c``, ``\\u003e`` and ``\\u0026``, so no input can close the block.
The policy admits only the report's own script and style (by their SHA-256 hashes), so an
injected ``<script>`` would not run even if it reached the page.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Unpack

import numpy as np

from cranfield._deprecation import renamed_parameters
from cranfield._validate import check_choice, check_float, check_int
from cranfield.curves import (
    INTERPOLATIONS,
    STANDARD_LEVELS,
    Interpolation,
    mean_gain_curves,
    mean_interpolated_pr,
)
from cranfield.evaluation.options import EvalOptions, options_from
from cranfield.report.comparison import _details_rows, letters, notes
from cranfield.report.numbers import best_shown, four_places
from cranfield.report.plots import RunsLike, named_runs
from cranfield.report.run_diff import signed
from cranfield.report.svg_charts import (
    LineChart,
    LineSeries,
    int_ticks,
    line_chart,
    series_style,
)
from cranfield.stats.plan import TEST_LABELS

if TYPE_CHECKING:
    import polars as pl

    from cranfield._types import RunNaming
    from cranfield.data.qrels import Qrels
    from cranfield.data.run import Run
    from cranfield.evaluation.evaluator import MeasureLike
    from cranfield.evaluation.execution import Execution
    from cranfield.io.load import QrelsLike
    from cranfield.judging.simulation import Simulation
    from cranfield.stats.comparison import CompareExecutionKwargs, Comparison
    from cranfield.stats.plan import TestPlan
    from cranfield.stats.run_diff import QueryDiff, RunDiff

__all__ = ["comparison_html", "html_report", "simulation_html"]

PAGE_SIZES: Final = (25, 50, 100, 250, 1000)
_MISSING_POLICY: Final = {
    "zero": "zero: a judged query absent from a run scores 0 and counts",
    "skip": "skip: only the judged queries every run retrieved are compared",
    "error": "error: every run must retrieve every judged query",
    "scores": "scores given: per-query scores computed elsewhere",
}
_JSON_ESCAPES: Final = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}


def _e(text: object) -> str:
    """``text`` escaped for HTML element content and quoted attribute values."""
    return html.escape(str(text), quote=True)


@cache
def _asset(name: str) -> str:
    return resources.files("cranfield.report").joinpath("assets", name).read_text("utf-8")


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def json_for_script(value: Any) -> str:
    """``value`` as JSON safe inside ``<script type="application/json">``.

    ``<``, ``>`` and ``&`` are written as JSON ``\\u`` escapes, so the text can neither close
    the script element nor open a comment; ``JSON.parse`` reads the same value back.

    Examples
    --------
    >>> json_for_script({"run": "</script><b>"})
    '{"run":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e"}'
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.translate(_JSON_ESCAPES)


# --------------------------------------------------------------------------- charts


def _charts(
    pr: Mapping[str, pl.DataFrame],
    gain: Mapping[str, pl.DataFrame],
    *,
    rule: Interpolation,
    max_rank: int,
) -> list[LineChart]:
    charts: list[LineChart] = []
    if pr:
        series: list[LineSeries] = []
        for i, (name, frame) in enumerate(pr.items()):
            color, dash = series_style(i)
            series.append(
                LineSeries(
                    name,
                    frame.get_column("recall").to_list(),
                    frame.get_column("precision").to_list(),
                    color,
                    dash,
                )
            )
        levels = len(next(iter(pr.values())))
        charts.append(
            LineChart(
                key="pr-chart",
                title="Interpolated precision–recall",
                caption=(
                    f"Interpolated precision at {levels} recall levels ({rule} interpolation), "
                    "mean over the queries."
                ),
                x_label="Recall",
                y_label="Precision",
                x_range=(0.0, 1.0),
                x_ticks=(0.0, 0.2, 0.4, 0.6, 0.8, 1.0),
                series=series,
                x_format="{:.1f}",
            )
        )
    if gain:
        series = []
        for i, (name, frame) in enumerate(gain.items()):
            color, dash = series_style(i)
            series.append(
                LineSeries(
                    name,
                    frame.get_column("rank").to_list(),
                    frame.get_column("ndcg").to_list(),
                    color,
                    dash,
                    markers=max_rank <= 30,
                )
            )
        charts.append(
            LineChart(
                key="gain-chart",
                title=f"nDCG@k, k = 1…{max_rank}",
                caption=(
                    "Mean over the queries of nDCG@k (linear gain, log2 discount), the number "
                    "evaluate reports for nDCG@k (an ideal ranking scores 1 at every k)."
                ),
                x_label="Rank k",
                y_label="nDCG@k",
                x_range=(0.5, max_rank + 0.5),
                x_ticks=int_ticks(1, max_rank),
                series=series,
            )
        )
    return charts


# --------------------------------------------------------------------------- sections


def _summary(c: Comparison) -> str:
    labels = letters(len(c.runs))
    all_pairs = c.baseline is None
    best = {m: best_shown(c.means[m].values()) for m in c.measures}  # ties: all marked
    by_pair = {(p.measure, p.control, p.treatment): p for p in c.pairs}
    head = ['<th scope="col" class="letter"></th>'] if all_pairs else []
    head.append('<th scope="col">run</th>')
    head += [f'<th scope="col" class="num">{_e(m)}</th>' for m in c.measures]
    body = []
    for i, run in enumerate(c.runs):
        cells = [f'<td class="letter">{labels[i]}</td>'] if all_pairs else []
        name = _e(run)
        if not all_pairs and run == c.baseline:
            name += ' <span class="rel">(baseline)</span>'
        if run in c.missing_topics:
            name += ' <span class="miss" title="has no ranking for some judged queries">†</span>'
        cells.append(f'<th scope="row" class="name">{name}</th>')
        for m in c.measures:
            v = c.means[m][run]
            marks = ""
            rel = ""
            if all_pairs:  # commas past 26 runs, as the text table: "z,aa", never "zaa"
                marks = ("," if len(labels) > 26 else "").join(
                    labels[c.runs.index(r)] for r in c.better_than(run, m)
                )
            elif run != c.baseline:
                p = by_pair[(m, c.baseline or "", run)]
                if p.tests[c.primary_test].significant:
                    marks = "▲" if p.mean_difference > 0 else "▼"
                base = p.control_mean
                if base != 0 and math.isfinite(base):
                    rel = f'<span class="rel">{(v - base) / abs(base) * 100:+.1f}%</span>'
            shown = four_places(v)
            cls = "num best" if shown == best[m] else "num"
            sup = f'<sup class="marks">{_e(marks)}</sup>'
            cells.append(
                f'<td class="{cls}" data-measure="{_e(m)}"><span class="value">{shown}</span>'
                f"{sup}{rel}</td>"
            )
        body.append(f'<tr data-run="{_e(run)}">' + "".join(cells) + "</tr>")
    notes_html = "".join(f"<li>{_e(s)}</li>" for s in notes(c))
    d_head, d_rows = _details_rows(c)
    details = (
        '<details open><summary>Every pairwise test</summary><div class="scroll tall">'
        '<table id="pairs-table"><thead><tr>'
        + "".join(
            f'<th scope="col"{" class=num" if j >= 3 else ""}>{_e(h)}</th>'
            for j, h in enumerate(d_head)
        )
        + "</tr></thead><tbody>"
        + "".join(
            "<tr>"
            + "".join(
                f"<td{' class=num' if j >= 3 else ''}>{_e(x)}</td>" for j, x in enumerate(row)
            )
            + "</tr>"
            for row in d_rows
        )
        + "</tbody></table></div>"
        '<p class="legend">mean diff = treatment − control; p adj. = adjusted p-value, '
        "* significant.</p></details>"
    )
    return (
        '<section id="summary"><h2>Summary</h2><div class="scroll">'
        '<table id="summary-table"><thead><tr>'
        + "".join(head)
        + "</tr></thead><tbody>"
        + "".join(body)
        + f'</tbody></table></div><ul class="notes">{notes_html}</ul>{details}</section>'
    )


def _per_query(c: Comparison, page_size: int) -> str:
    measure_opts = "".join(
        f'<option value="{i}">{_e(m)}</option>' for i, m in enumerate(c.measures)
    )
    ref_opts = "".join(f'<option value="{i}">{_e(r)}</option>' for i, r in enumerate(c.runs))
    sizes = sorted({*PAGE_SIZES, page_size})
    size_opts = "".join(f'<option value="{s}">{s}</option>' for s in sizes)
    return (
        '<section id="per-query"><h2>Per query</h2>'
        "<noscript><p>The per-query table needs JavaScript; the summary, curves and "
        "parameters above and below do not.</p></noscript>"
        '<div id="per-query-controls" hidden>'
        '<div class="controls">'
        f'<label>Measure <select id="measure-select">{measure_opts}</select></label>'
        f'<label>Differences against <select id="reference-select">{ref_opts}</select></label>'
        '<label>Query id <input id="query-filter" type="search" '
        'placeholder="filter: part of an id, or several" autocomplete="off"></label>'
        f'<label>Rows per page <select id="page-size">{size_opts}</select></label>'
        "</div>"
        '<p class="legend">Δ = run − reference. Shading: '
        '<span class="swatch up3">+</span> better than the reference, '
        '<span class="swatch dn3">−</span> worse, darker for larger differences; '
        "† the run has no ranking for the query (scored 0). Click a header to sort.</p>"
        '<div class="pager">'
        '<button type="button" id="page-first">« First</button>'
        '<button type="button" id="page-prev">‹ Previous</button>'
        '<button type="button" id="page-next">Next ›</button>'
        '<button type="button" id="page-last">Last »</button>'
        '<span class="status" id="page-status" aria-live="polite"></span>'
        "</div></div>"
        '<div class="scroll tall"><table id="query-table"><thead></thead><tbody></tbody>'
        "<tfoot></tfoot></table></div></section>"
    )


def _table(key: str, head: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """A plain table of text cells (escaped here): the first ``left`` columns are names."""
    th = "".join(
        f'<th scope="col"{"" if j < left else " class=num"}>{_e(h)}</th>'
        for j, h in enumerate(head)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="{"name" if j < left else "num"}">{_e(x)}</td>' for j, x in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return (
        f'<div class="scroll"><table id="{_e(key)}"><thead><tr>{th}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def _rank(rank: int | None) -> str:
    return "–" if rank is None else str(rank)


def _diff_query(d: RunDiff, q: QueryDiff) -> str:
    scores = "; ".join(
        f"{m} {four_places(q.scores_a[m])} → {four_places(q.scores_b[m])} ({signed(q.delta(m))})"
        for m in d.measures
    )
    rbo = four_places(q.rbo) if math.isfinite(q.rbo) else "–"
    moves = q.relevant or ()
    shown = [m for m in moves if m.rank_a is not None or m.rank_b is not None]
    parts = [f"<details><summary>Query {_e(q.query_id)}: {_e(scores)}; RBO {rbo}</summary>"]
    if shown:
        rows = [[m.doc_id, str(m.grade), _rank(m.rank_a), _rank(m.rank_b)] for m in shown]
        head = ["relevant document", "grade", f"rank in {d.run_a}", f"rank in {d.run_b}"]
        parts.append(_table(f"diff-query-{d.detailed.index(q.query_id)}", head, rows))
    unseen = len(moves) - len(shown)
    if not moves:
        parts.append('<p class="legend">No judged relevant document.</p>')
    elif unseen:
        parts.append(
            f'<p class="legend">{unseen:,} more relevant document(s) retrieved by neither run.</p>'
        )
    if q.entered:
        parts.append(
            f'<p class="legend">Unjudged, entered the top {d.k} of {_e(d.run_b)}: '
            f"{_e(', '.join(q.entered))}</p>"
        )
    return "".join(parts) + "</details>"


def _run_diff(d: RunDiff) -> str:
    """The "run diff" section: the tests of B against A, the largest wins and losses, RBO,
    the unjudged documents entering B's top k, the relevant documents of the detailed
    queries (one ``<details>`` each); static HTML, no script."""
    c = d.comparison
    level = f"{round(100 * (1 - c.alpha), 6):g}%"
    head = ["measure", d.run_a, d.run_b, "B − A"]
    head += [f"{level} {kind}" for kind in c.intervals]
    head += ["wins", "ties", "losses", *(f"p {t}" for t in c.tests)]
    rows = []
    for m in d.measures:
        pc = d.pair(m)
        row = [m, four_places(c.means[m][d.run_a]), four_places(c.means[m][d.run_b])]
        row.append(signed(pc.mean_difference))
        row += [f"[{signed(lo)}, {signed(hi)}]" for lo, hi in pc.intervals.values()]
        row += [str(pc.wins), str(pc.ties), str(pc.losses)]
        row += [f"{o.p_adjusted:.4f}{' *' if o.significant else ''}" for o in pc.tests.values()]
        rows.append(row)
    largest = []
    for m in d.measures:
        for word, ids in (("wins", d.wins[m]), ("losses", d.losses[m])):
            if not ids:
                continue
            cells = [
                [t, four_places(q.scores_a[m]), four_places(q.scores_b[m]), signed(q.delta(m))]
                for t in ids
                for q in (d.query(t),)
            ]
            largest.append(f"<h3>{_e(m)}: largest {word} of {_e(d.run_b)}</h3>")
            key = f"diff-{word}-{d.measures.index(m)}"
            largest.append(_table(key, ["query", d.run_a, d.run_b, "B − A"], cells))
    defined = sum(1 for q in d.queries if math.isfinite(q.rbo))
    rbo = four_places(d.rbo_mean) if math.isfinite(d.rbo_mean) else "–"
    facts = [
        f"RBO (p = {d.p:g}) between the two rankings: mean {rbo} over {defined:,} queries.",
        f"Unjudged documents in the top {d.k} of {d.run_b} and not in the top {d.k} of "
        f"{d.run_a}: {d.entered_total:,} in {d.entered_queries:,} of {len(d.queries):,} "
        "queries.",
    ]
    notes_html = "".join(f"<li>{_e(s)}</li>" for s in [*facts, *d.notes()])
    details = "".join(_diff_query(d, d.query(t)) for t in d.detailed)
    return (
        f'<section id="run-diff"><h2>Run diff: {_e(d.run_b)} against {_e(d.run_a)}</h2>'
        + _table("diff-table", head, rows)
        + '<p class="legend">B − A: the differences of '
        + f"{_e(d.run_b)} over {_e(d.run_a)} (the baseline); p: adjusted p-value, "
        + "* significant.</p>"
        + "".join(largest)
        + f'<ul class="notes">{notes_html}</ul>'
        + (f"<h3>Where the relevant documents moved</h3>{details}" if details else "")
        + "</section>"
    )


def _parameters(c: Comparison, rows: Sequence[tuple[str, str]], runs_table: str) -> str:
    from cranfield._version import __version__

    seed = (
        str(c.seed)
        if c.seed is not None
        else "none (no random procedure: deterministic tests or an exact enumeration)"
    )
    tests = "; ".join(TEST_LABELS[t] for t in c.tests)
    base: list[tuple[str, str]] = [
        ("measures", ", ".join(c.measures)),
        ("queries", f"{len(c.topics):,}"),
        ("missing-query policy", _MISSING_POLICY.get(c.missing_policy, c.missing_policy)),
        ("tests", f"{tests} (the first marks the summary table)"),
        ("correction", c.correction),
        ("alpha", f"{c.alpha:g}"),
        ("intervals", ", ".join(c.intervals) or "none"),
        ("comparison", "all pairs" if c.baseline is None else f"against baseline {c.baseline}"),
        ("seed", seed),
    ]
    if c.seed is not None:
        base.append(("resamples", f"{c.n_resamples:,}"))
    if c.dropped_topics:
        base.append(("judged queries left out", f"{len(c.dropped_topics):,}"))
    base += list(rows)
    base.append(("per-query table", "scores stored rounded to 6 decimals, shown with 4"))
    base.append(("cranfield version", __version__))
    body = "".join(f'<tr><th scope="row">{_e(k)}</th><td>{_e(v)}</td></tr>' for k, v in base)
    return (
        '<section id="parameters"><h2>Parameters</h2>'
        f'<table id="parameters-table" class="params"><tbody>{body}</tbody></table>'
        f"{runs_table}</section>"
    )


def _runs_table(
    c: Comparison, sources: Sequence[str], tags: Sequence[str], retrieved: Sequence[int]
) -> str:
    rows = []
    for i, run in enumerate(c.runs):
        miss = len(c.missing_topics.get(run, []))
        rows.append(
            f'<tr><th scope="row" class="name">{_e(run)}</th><td class="name">{_e(sources[i])}'
            f'</td><td class="name">{_e(tags[i])}</td><td class="num">{retrieved[i]:,}</td>'
            f'<td class="num">{miss:,}</td></tr>'
        )
    return (
        '<h3>Runs</h3><div class="scroll"><table id="runs-table"><thead><tr>'
        '<th scope="col">run</th><th scope="col">source</th><th scope="col">tag</th>'
        '<th scope="col" class="num">queries in run</th>'
        '<th scope="col" class="num">judged queries without a ranking</th>'
        "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>"
    )


def _payload(c: Comparison, page_size: int) -> dict[str, Any]:
    reference = 0 if c.baseline is None else c.runs.index(c.baseline)
    scores: dict[str, list[list[float | None]]] = {}
    for m in c.measures:
        matrix = np.round(c.scores[m], 6)
        cols: list[list[float | None]] = []
        for j in range(matrix.shape[1]):
            col = matrix[:, j]
            if np.isfinite(col).all():
                cols.append(col.tolist())
            else:
                cols.append([float(v) if math.isfinite(v) else None for v in col.tolist()])
        scores[m] = cols
    return {
        "runs": list(c.runs),
        "measures": list(c.measures),
        "topics": list(c.topics),
        "reference": reference,
        "pageSize": page_size,
        "missing": {r: list(t) for r, t in c.missing_topics.items()},
        "scores": scores,
    }


def page_top(heading: str, subtitle: str, nav: list[str], css: str, js: str | None = None) -> str:
    """The top of a report page, up to its ``<main>``: a content-security policy that allows
    nothing but the page's own style (and script, ``js``) by their SHA-256, the title, and the
    header with its navigation links ``nav``."""
    script = "" if js is None else f"script-src 'sha256-{_sha256(js)}'; "
    csp = (
        f"default-src 'none'; {script}style-src 'sha256-{_sha256(css)}'; base-uri 'none'; "
        "form-action 'none'"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_e(csp)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="generator" content="cranfield">'
        f"<title>{_e(heading)}</title><style>{css}</style></head>\n<body>"
        f"<header><h1>{_e(heading)}</h1>"
        f'<p class="subtitle">{_e(subtitle)}</p><nav>{"".join(nav)}</nav></header>\n'
    )


def _document(
    c: Comparison,
    *,
    title: str | None,
    page_size: int,
    charts: Sequence[LineChart],
    parameter_rows: Sequence[tuple[str, str]],
    runs_table: str,
    run_diff: RunDiff | None = None,
    judging: Simulation | None = None,
) -> str:
    check_int("page_size", page_size, minimum=1)
    css = _asset("report.css")
    js = _asset("report.js")
    heading = title or f"Comparison of {len(c.runs)} runs on {len(c.topics):,} queries"
    subtitle = (
        f"{len(c.runs)} runs · {len(c.measures)} "
        f"{'measure' if len(c.measures) == 1 else 'measures'} · {len(c.topics):,} queries · "
        f"{TEST_LABELS[c.primary_test]}, {c.correction} correction, α = {c.alpha:g}"
    )
    nav = ['<a href="#summary">Summary</a>']
    if charts:
        nav.append('<a href="#curves">Curves</a>')
    nav.append('<a href="#per-query">Per query</a>')
    if run_diff is not None:
        nav.append('<a href="#run-diff">Run diff</a>')
    if judging is not None:
        nav.append('<a href="#judging">Judging</a>')
    nav.append('<a href="#parameters">Parameters</a>')
    sections = "" if run_diff is None else f"{_run_diff(run_diff)}\n"
    if judging is not None:
        sections += f"{_judging_section(judging)}\n"
    curves = (
        '<section id="curves"><h2>Curves</h2><div class="charts">'
        + "".join(line_chart(ch) for ch in charts)
        + "</div></section>"
        if charts
        else ""
    )
    return (
        page_top(heading, subtitle, nav, css, js)
        + f"<main>{_summary(c)}\n{curves}\n{_per_query(c, page_size)}\n{sections}"
        f"{_parameters(c, parameter_rows, runs_table)}</main>\n"
        '<script type="application/json" id="cranfield-data">'
        f"{json_for_script(_payload(c, page_size))}</script>\n"
        f"<script>{js}</script>\n</body></html>\n"
    )


def _judging_section(simulation: Simulation) -> str:
    """The "Judging on a budget" section of an HTML page (``id="judging"``): what was
    replayed, :func:`~cranfield.report.judging.simulation_charts` as inline SVG, and
    :func:`~cranfield.report.judging.simulation_text`."""
    from cranfield.report.judging import simulation_charts, simulation_text

    per = "in all, split evenly" if simulation.total else "per topic"
    note = (
        f"{', '.join(simulation.strategies)} replayed on the runs' pools (depth "
        f"{simulation.pool_depth}) with the qrels as the assessor, a budget of "
        f"{simulation.budget} judgments {per}; a document the qrels do not judge is "
        "answered 0 (not relevant)."
    )
    charts = "".join(line_chart(chart) for chart in simulation_charts(simulation))
    return (
        f'<section id="judging"><h2>Judging on a budget</h2><ul class="notes"><li>{_e(note)}</li></ul>'
        f'<div class="charts">{charts}</div><pre>{_e(simulation_text(simulation))}</pre>'
        "</section>"
    )


# --------------------------------------------------------------------------- public API


def comparison_html(
    comparison: Comparison, *, title: str | None = None, page_size: int = 50
) -> str:
    """The HTML report of a :class:`~cranfield.Comparison`, without curves.

    A ``Comparison`` holds per-query scores but not the rankings, so the report has the
    summary, the per-query table and the parameters; :func:`html_report` adds the curves.

    Parameters
    ----------
    comparison:
        What :func:`cranfield.compare` or :func:`cranfield.stats.compare_scores` returned.
    title:
        Heading and window title (default: says how many runs and queries).
    page_size:
        Rows per page of the per-query table when the page opens.

    Returns
    -------
    str
        A complete HTML document.

    Examples
    --------
    >>> from cranfield.stats import compare_scores
    >>> c = compare_scores({"bm25": {"AP": [0.2, 0.3, 0.1]}, "<b>x</b>": {"AP": [0.3, 0.5, 0.1]}})
    >>> page = comparison_html(c)
    >>> "<b>x</b>" in page, "&lt;b&gt;x&lt;/b&gt;" in page
    (False, True)
    """
    k = len(comparison.runs)
    return _document(
        comparison,
        title=title,
        page_size=page_size,
        charts=[],
        parameter_rows=[],
        runs_table=_runs_table(comparison, ["scores"] * k, ["–"] * k, [len(comparison.topics)] * k),
    )


def _source(item: object) -> str:
    """How an input is named in the parameters: a file's name, a run's name, or its type."""
    from cranfield.data.qrels import Qrels
    from cranfield.data.run import Run

    if isinstance(item, (str, Path)):
        return Path(item).name
    if isinstance(item, (Run, Qrels)):
        return item.name
    return f"<{type(item).__name__}>"


def _provenance_rows(
    qrels: object, runs: Sequence[tuple[str, object]], options: EvalOptions
) -> list[tuple[str, str]]:
    """Parameter rows of the provenance: each input's SHA-256, the options, the tie rule."""
    from cranfield.evaluation.provenance import TIE_RULE, InputFile, source_path

    def digest(role: str, item: object) -> str:
        found = InputFile.of(role, source_path(item))
        return found.sha256 or found.source

    rows = [("qrels sha256", digest("qrels", qrels))]
    rows += [(f"run sha256: {name}", digest("run", item)) for name, item in runs]
    shown = "; ".join(f"{k} = {json.dumps(v)}" for k, v in options.to_dict().items())
    rows += [("options", shown), ("ties", TIE_RULE)]
    return rows


@renamed_parameters(rng="seed", gain_depth="max_rank")
def html_report(  # noqa: PLR0913 -- entry point: inputs, the page's own options, **kwargs
    qrels: QrelsLike,
    runs: RunsLike,
    measures: MeasureLike | Iterable[MeasureLike] = ("AP", "nDCG@10"),
    *,
    baseline: str | int | None = None,
    names: RunNaming | Sequence[str] = "file",
    plan: TestPlan | None = None,
    options: EvalOptions | None = None,
    known: QrelsLike | None = None,
    intents: Any = None,
    curves: bool = True,
    levels: Sequence[float] = STANDARD_LEVELS,
    rule: Interpolation = "exact",
    max_rank: int = 20,
    title: str | None = None,
    page_size: int = 50,
    diff: Sequence[str | int | Path] | None = None,
    judging: Simulation | None = None,
    execution: Execution | None = None,
    **kwargs: Unpack[CompareExecutionKwargs],
) -> str:
    """Compare runs and write everything into one self-contained HTML page.

    Parameters
    ----------
    qrels, runs, measures:
        As in :func:`cranfield.compare` (``runs``: a list of runs or a ``{name: run}``
        mapping).
    baseline, names, plan:
        As in :func:`cranfield.compare`; the first test marks the summary table and the
        seed actually used is written in the parameters.
    options, known, intents, **kwargs:
        The evaluation options and extra inputs of :func:`cranfield.evaluate` and the test
        options of :func:`cranfield.compare`, whole or as keywords; the curves use the same
        queries as the tests.
    curves:
        Draw the interpolated precision–recall curve and the nDCG@k curve (default).
    levels, rule:
        Recall levels and interpolation of the precision–recall curve (see
        :func:`cranfield.curves.interpolated_pr`).
    max_rank:
        Last rank k of the nDCG@k curve.
    title:
        Heading and window title.
    page_size:
        Rows per page of the per-query table when the page opens.
    execution, **kwargs:
        Where and how the runs are scored and their results kept, and a progress bar
        (:class:`~cranfield.evaluation.execution.Execution`, whole or as keywords), as in
        :func:`cranfield.compare`.
    diff:
        Two of the runs, A then B (names, paths or positions): add a "run diff" section,
        how B differs from A query by query (:func:`cranfield.stats.diff_runs` with its
        defaults, the report's measures, options and test plan, A the baseline). Without
        it (default) the page has no such section.
    judging:
        A judging simulation (:func:`cranfield.judging.simulation.simulate`, usually of the
        same runs and qrels): add a "Judging on a budget" section with its curves, relevant
        documents found per judgment spent and τ-b and τ_AP of the runs' ranking against the
        full qrels as the budget grows, and its numbers. Without it (default) the page has
        no such section.

    Returns
    -------
    str
        A complete HTML document (UTF-8 text); no part of it is fetched from elsewhere.

    Raises
    ------
    cranfield.errors.OptionError
        As :func:`cranfield.compare`; also for a recall level outside [0, 1], an unknown
        ``rule``, a ``max_rank`` or ``page_size`` below 1, or a ``diff`` that does not name
        two different runs of the report.
    cranfield.errors.CranfieldError
        As :func:`cranfield.compare`.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    >>> bm25 = {"q1": {"a": 2.0, "x": 1.0}, "q2": {"x": 2.0, "b": 1.0}, "q3": {"c": 1.0}}
    >>> dense = {"q1": {"x": 2.0, "a": 1.0}, "q2": {"b": 1.0}, "q3": {"c": 1.0}}
    >>> page = html_report(qrels, {"bm25": bm25, "dense": dense}, ["AP"])
    >>> page.startswith("<!DOCTYPE html>"), "Content-Security-Policy" in page, "https:" in page
    (True, True, False)
    """
    import polars as pl

    from cranfield.data.qrels import Qrels
    from cranfield.evaluation.evaluator import load_judgments
    from cranfield.evaluation.execution import execution_from
    from cranfield.stats.comparison import compare, split_options

    levels = tuple(check_float("levels", p, minimum=0, maximum=1) for p in levels)
    check_choice("rule", rule, INTERPOLATIONS)
    check_int("max_rank", max_rank, minimum=1)
    check_int("page_size", page_size, minimum=1)
    items: list[object]
    if isinstance(runs, Mapping):
        items = list(runs.values())
    elif isinstance(runs, Sequence) and not isinstance(runs, (str, Path)):
        items = list(runs)
    else:
        items = [runs]
    rest: dict[str, Any] = dict(kwargs)
    run_on = execution_from(execution, rest, caller="html_report")
    test_plan, eval_kwargs = split_options(plan, rest, caller="html_report")
    opts = options_from(options, eval_kwargs, caller="html_report")
    judgments = load_judgments(qrels, opts)
    named: list[tuple[str, Run]] = named_runs(runs, names, format=opts.run_format)
    c = compare(
        judgments,
        dict(named),
        measures,
        baseline=baseline,
        plan=test_plan,
        options=opts,
        known=known,
        intents=intents,
        execution=run_on,
    )
    relevance_level, judged_only, depth = opts.relevance_level, opts.judged_only, opts.depth
    charts: list[LineChart] = []
    rows: list[tuple[str, str]] = [
        ("qrels", _source(qrels)),
        ("relevance level", f"{relevance_level} (binary measures count levels ≥ it relevant)"),
        ("judged documents only", "yes" if judged_only else "no"),
        ("depth", "every retrieved document" if depth is None else f"top {depth}"),
        ("float32 scores", "yes" if opts.float32 else "no"),
    ]
    if curves:
        curve_qrels = judgments
        if c.dropped_topics:  # missing="skip": the curves use the compared queries only
            curve_qrels = Qrels(
                judgments.frame.filter(pl.col("query_id").is_in(c.topics)), judgments.name
            )
        curve_opts = opts.replace(aggregate=None)
        pr = {
            name: mean_interpolated_pr(
                curve_qrels, run, levels=levels, rule=rule, options=curve_opts
            )
            for name, run in named
        }
        gain = {
            name: mean_gain_curves(
                curve_qrels, run, max_rank=max_rank, normalise="mean_of_ratios", options=curve_opts
            )
            for name, run in named
        }
        charts = _charts(pr, gain, rule=rule, max_rank=max_rank)
        rows.append(
            (
                "curves",
                f"precision–recall at {len(levels)} recall levels ({rule} "
                f"interpolation); nDCG@k for k = 1…{max_rank} (mean of per-query values)",
            )
        )
    rows += _provenance_rows(
        qrels, [(name, item) for (name, _), item in zip(named, items, strict=True)], opts
    )
    run_diff = None
    if diff is not None:
        run_diff = _diff_of(diff, named, items, c, judgments, measures, test_plan, opts)
        rows.append(
            (
                "run diff",
                f"{run_diff.run_b} against {run_diff.run_a}: the {run_diff.top} largest wins "
                f"and losses per measure, unjudged documents entering the top {run_diff.k}, "
                f"RBO p = {run_diff.p:g}",
            )
        )
    if judging is not None:
        per = "in all, split evenly" if judging.total else "per topic"
        rows.append(
            (
                "judging",
                f"{', '.join(judging.strategies)} replayed at pool depth {judging.pool_depth}, "
                f"a budget of {judging.budget} judgments {per}; the runs' {judging.measure} "
                "ranking compared with the full qrels' after "
                f"{', '.join(map(str, judging.checkpoints)) or 'no'} {judging.unit}",
            )
        )
    sources = [_source(x) for x in items]
    tags = [run.tag for _, run in named]
    retrieved = [len(run.topics) for _, run in named]
    return _document(
        c,
        title=title,
        page_size=page_size,
        charts=charts,
        parameter_rows=rows,
        runs_table=_runs_table(c, sources, tags, retrieved),
        run_diff=run_diff,
        judging=judging,
    )


def _diff_of(
    refs: Sequence[str | int | Path],
    named: Sequence[tuple[str, Run]],
    items: Sequence[object],
    c: Comparison,
    judgments: Qrels,
    measures: MeasureLike | Iterable[MeasureLike],
    plan: TestPlan,
    options: EvalOptions,
) -> RunDiff:
    """The diff of the two runs ``refs`` names (by name, path or position) among the report's
    loaded runs, with the report's measures, options and plan (and its seed once drawn)."""
    import dataclasses

    from cranfield.errors import OptionError
    from cranfield.io.runset import RunSet
    from cranfield.stats.run_diff import diff_runs

    wanted = [refs] if isinstance(refs, (str, Path, int)) else list(refs)
    run_set = RunSet(tuple(name for name, _ in named), tuple(items))
    if len(wanted) != 2:
        raise OptionError("diff", "two runs of the report, A then B", wanted)
    picked = []
    for ref in wanted:
        try:
            picked.append(run_set.find(ref))
        except OptionError:
            shown = ", ".join(run_set.names)
            raise OptionError("diff", f"two of the report's runs ({shown})", ref) from None
    if picked[0] == picked[1]:
        raise OptionError("diff", "two different runs", wanted)
    (name_a, run_a), (name_b, run_b) = named[picked[0]], named[picked[1]]
    seeded = plan if c.seed is None else dataclasses.replace(plan, seed=c.seed)
    return diff_runs(
        judgments, run_a, run_b, measures, names=[name_a, name_b], plan=seeded, options=options
    )


def simulation_html(simulation: Simulation, *, title: str | None = None) -> str:
    """A self-contained HTML page of a judging simulation: the charts of
    :func:`~cranfield.report.judging.simulation_charts` (inline SVG, no extra needed),
    then :func:`~cranfield.report.judging.simulation_text` as a table."""
    from cranfield.report.judging import simulation_charts, simulation_text

    budget = simulation.budget
    charts = [line_chart(chart) for chart in simulation_charts(simulation)]
    heading = title or "Judging on a budget"
    subtitle = (
        f"{len(simulation.topics)} topics · pool depth {simulation.pool_depth} · budget "
        f"{budget} {'in all, split evenly' if simulation.total else 'per topic'}"
    )
    body = (
        f'<section id="curves"><h2>Curves</h2><div class="charts">{"".join(charts)}</div>'
        f'</section><section id="numbers"><h2>Numbers</h2><pre>{_e(simulation_text(simulation))}'
        "</pre></section>"
    )
    nav = ['<a href="#curves">Curves</a>', '<a href="#numbers">Numbers</a>']
    return (
        page_top(heading, subtitle, nav, _asset("report.css"))
        + f"<main>{body}</main>\n</body></html>\n"
    )
