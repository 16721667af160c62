"""Render an :class:`~cranfield.lab.ExperimentResult`: effectiveness and efficiency side by side.

:func:`to_html` writes one self-contained page (inline CSS, no script, no network), with a
row per system: the effectiveness means marked against the baseline by the comparison's
primary test, then indexing time, index size, space overhead, peak indexing memory,
latency percentiles and throughput per concurrency level, and under the table the method
(tests, correction, latency and memory procedure) and the machine. The experiment also
writes the shared comparison report of :mod:`cranfield.report.html` (per-query table,
every pairwise test, curves) beside it, and this page links to it. :func:`to_markdown`
gives the same tables in Markdown and :func:`to_text` as plain text for terminals.

:func:`pool_study_text` prints a :class:`~cranfield.lab.pooling.PoolStudy` (``cranfield lab
pool``): the pool's size, each run's contribution and judged@k, the leave-one-run-out table.
The lab's results are rendered here rather than in :mod:`cranfield.report`, which sits below
the lab and imports nothing of it.
"""

from __future__ import annotations

import html
import json
import math
from typing import TYPE_CHECKING, Final

from cranfield.report.comparison import notes as comparison_notes
from cranfield.report.svg_charts import ScatterPoint, box_plot, scatter_chart

if TYPE_CHECKING:
    from cranfield.lab.pooling import PoolStudy
    from cranfield.lab.result import ExperimentResult

__all__ = [
    "effectiveness_rows",
    "efficiency_rows",
    "pool_study_text",
    "to_html",
    "to_markdown",
    "to_text",
]

UP: Final = "▲"
DOWN: Final = "▼"
_LABELS: Final = {"AP": "MAP", "RR": "MRR"}


def measure_label(measure: str) -> str:
    """Column heading of a measure: the mean of AP is MAP, of RR is MRR."""
    return _LABELS.get(measure, measure)


def _bytes(n: int | None) -> str:
    if n is None:
        return "—"
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} B"


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.3f}" if ms < 10 else f"{ms:.2f}" if ms < 100 else f"{ms:.1f}"


def _sig(result: ExperimentResult, system: str, measure: str) -> tuple[str, str]:
    """(mark, p text) of ``system`` against the baseline on ``measure``."""
    sig = result.significance(system, measure)
    if sig is None:
        return "", ""
    p, significant = sig
    if not significant or result.comparison is None:
        return "", f"p={p:.3g}"
    pair = result.comparison.pair(result.baseline, system, measure)
    better = (
        pair.treatment_mean > pair.control_mean
        if pair.treatment == system
        else (pair.control_mean > pair.treatment_mean)
    )
    return (UP if better else DOWN), f"p={p:.3g}"


def effectiveness_rows(result: ExperimentResult) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the effectiveness table (mean, significance mark, adjusted p)."""
    header = ["system", *[measure_label(m) for m in result.measures]]
    rows: list[list[str]] = []
    for s in result.systems:
        row = [s.name + (" (baseline)" if s.name == result.baseline else "")]
        for m in result.measures:
            mark, p = _sig(result, s.name, m)
            text = f"{result.means[m][s.name]:.4f}{mark}"
            row.append(f"{text} ({p})" if p else text)
        rows.append(row)
    return header, rows


def _levels(result: ExperimentResult) -> list[int]:
    levels: list[int] = []
    for s in result.systems:
        if s.throughput:
            levels.extend(x for x in s.throughput.levels if x not in levels)
    return levels


def efficiency_rows(result: ExperimentResult) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the efficiency table (index, latency in ms, throughput in q/s)."""
    levels = _levels(result)
    header = [
        "system",
        "index time",
        "index size",
        "overhead",
        "peak mem.",
        "mean ms",
        "p50 ms",
        "p90 ms",
        "p95 ms",
        "p99 ms",
        "max ms",
        *[f"q/s @{c}" for c in levels],
    ]
    rows: list[list[str]] = []
    for s in result.systems:
        ix, lat, tp = s.index, s.latency, s.throughput
        row = [s.name]
        if ix:
            row += [
                f"{ix.seconds:.2f} s",
                _bytes(ix.index_bytes),
                f"{ix.overhead:.1%}" if math.isfinite(ix.overhead) else "—",
                _bytes(ix.peak_memory_bytes),
            ]
        else:
            row += ["—"] * 4
        if lat:
            summary = lat.summary()
            row += [_ms(summary[k]) for k in ("mean", "p50", "p90", "p95", "p99", "max")]
        else:
            row += ["—"] * 6
        for c in levels:
            row.append(f"{tp.at(c):.1f}" if tp and c in tp.levels else "—")
        rows.append(row)
    return header, rows


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def _notes(result: ExperimentResult) -> list[str]:
    notes: list[str] = []
    if result.comparison is not None:
        notes.extend(comparison_notes(result.comparison))
        notes.append(f"In brackets: the adjusted p-value against the baseline {result.baseline!r}.")
    searched = [(s.name, s.searched_on) for s in result.systems if s.searched_on is not None]
    notes.extend(f"{name}: topics searched in {on.describe()}." for name, on in searched)
    lat = next((s.latency for s in result.systems if s.latency), None)
    if lat is not None and searched:
        notes.append(
            f"Latency: on each worker {lat.warmup} untimed warm-up queries, then each topic "
            f"searched {_times(lat.repetitions)} in a row, timed on the worker that answered "
            f"it, one query at a time, depth {lat.k}; a topic's latency is the median of its "
            "searches; mean and percentiles over topics."
        )
    elif lat is not None:
        notes.append(
            f"Latency: {lat.warmup} untimed warm-up queries, then {lat.repetitions} timed passes "
            f"over the {len(lat.query_ids)} topics, one query at a time, depth {lat.k}; a "
            "topic's latency is the median of its passes; mean and percentiles over topics."
        )
    tp = next((s.throughput for s in result.systems if s.throughput), None)
    if tp is not None and searched:
        notes.append(
            "Throughput of the workers as a whole (q/s @N: N workers searching at once): every "
            "timed search of the pass / the wall-clock time here from sending the first batch "
            "to receiving the last (loading the index and the warm-up on each worker included)."
        )
    elif tp is not None:
        notes.append(
            f"Throughput: the topics, cycled for at least one pass and a minimum time, answered by "
            f"{', '.join(map(str, tp.levels))} concurrent client threads of one process sharing "
            "the load; queries per second = queries answered / wall-clock time."
        )
    ix = next((s.index for s in result.systems if s.index), None)
    if ix is not None:
        source = (
            "the raw collection file"
            if ix.collection_source == "file"
            else "the document text handed to the engine"
        )
        notes.append(
            f"Index: wall-clock build time; size = bytes of the files in the index directory; "
            f"overhead = index size / {ix.collection_bytes:,} bytes ({source}); peak memory = "
            f"peak resident memory while indexing minus before ({ix.memory_method})."
        )
    reused = [s.name for s in result.systems if any(s.reused.values())]
    if reused:
        parts = []
        for s in result.systems:
            what = [k for k, v in s.reused.items() if v]
            if what:
                parts.append(f"{s.name} ({', '.join(what)})")
        notes.append("Reused from earlier runs of this experiment: " + "; ".join(parts) + ".")
    notes.extend(result.notes)
    notes.append(f"Machine: {result.machine.describe()}. Absolute times only hold on this machine.")
    return notes


def to_text(result: ExperimentResult) -> str:
    """Both tables as aligned plain text, followed by the notes."""

    def table(header: list[str], rows: list[list[str]]) -> list[str]:
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        fmt = [f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths)]
        out = ["  ".join(f.format(c) for f, c in zip(fmt, header, strict=True))]
        out.append("  ".join("-" * w for w in widths))
        out.extend("  ".join(f.format(c) for f, c in zip(fmt, r, strict=True)) for r in rows)
        return out

    lines = [f"{result.name}: {result.collection}, {result.topics} topics", ""]
    lines += ["Effectiveness", *table(*effectiveness_rows(result)), ""]
    lines += ["Efficiency", *table(*efficiency_rows(result)), ""]
    if result.cross_validation is not None:
        lines += [result.cross_validation.to_text(), ""]
    lines += [f"- {n}" for n in _notes(result)]
    return "\n".join(lines) + "\n"


def to_markdown(result: ExperimentResult) -> str:
    """Both tables in Markdown, followed by the notes."""

    def table(header: list[str], rows: list[list[str]]) -> list[str]:
        out = ["| " + " | ".join(header) + " |"]
        out.append("| --- | " + " | ".join("---:" for _ in header[1:]) + " |")
        out.extend("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows)
        return out

    lines = [f"## {result.name}: {result.collection}, {result.topics} topics", ""]
    lines += ["### Effectiveness", "", *table(*effectiveness_rows(result)), ""]
    lines += ["### Efficiency", "", *table(*efficiency_rows(result)), ""]
    if result.cross_validation is not None:
        lines += ["### Cross-validation", "", "```", result.cross_validation.to_text(), "```", ""]
    lines += [f"- {n}" for n in _notes(result)]
    return "\n".join(lines) + "\n"


_CSS: Final = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em 2em; color: #222; }
div.wide { overflow-x: auto; } p, ul { max-width: 75em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { padding: .25em .55em; border-bottom: 1px solid #ddd; text-align: right;
         font-variant-numeric: tabular-nums; white-space: nowrap; }
th { background: #f4f4f4; } td:first-child, th:first-child { text-align: left; }
th.group { text-align: center; border-bottom: 2px solid #999; }
th { white-space: normal; vertical-align: bottom; }
td:first-child { white-space: normal; overflow-wrap: anywhere; min-width: 8em; }
#provenance th { text-align: left; white-space: nowrap; vertical-align: top; }
#provenance td { text-align: left; white-space: normal; overflow-wrap: anywhere; }
td.sep, th.sep { border-left: 2px solid #999; }
.up { color: #1a7f37; } .down { color: #b42318; } .p { color: #777; font-size: .85em; }
.best { font-weight: 600; } ul.notes { color: #444; max-width: 70em; }
div.charts { display: flex; flex-wrap: wrap; gap: 1.5em; }
figure { margin: 0; flex: 1 1 520px; min-width: 320px; max-width: 760px; }
figure svg { width: 100%; height: auto; } figcaption, p.chartnote { color: #444; font-size: .9em; }
"""


def _cell_html(result: ExperimentResult, system: str, measure: str, best: bool) -> str:
    mark, p = _sig(result, system, measure)
    value = f"{result.means[measure][system]:.4f}"
    cls = ' class="best"' if best else ""
    out = f"<span{cls}>{value}</span>"
    if mark:
        out += f'<span class="{"up" if mark == UP else "down"}">{mark}</span>'
    if p:
        out += f' <span class="p">{html.escape(p)}</span>'
    return out


def _provenance_html(result: ExperimentResult) -> str:
    """The provenance as a section: version, inputs and their SHA-256, options, tie rule."""
    prov = result.provenance
    if prov is None:
        return ""
    e = html.escape
    rows = [("cranfield version", prov.version)]
    rows += [(f"{i.role} sha256", f"{i.sha256 or '–'} ({i.source})") for i in prov.inputs]
    rows.append(("measures", ", ".join(prov.measures)))
    rows.append(("options", "; ".join(f"{k} = {json.dumps(v)}" for k, v in prov.options.items())))
    rows.append(("ties", prov.tie_rule))
    body = "".join(f"<tr><th>{e(k)}</th><td><code>{e(v)}</code></td></tr>" for k, v in rows)
    return f'<h2>Provenance</h2><table id="provenance">{body}</table>'


def _primary_measure(result: ExperimentResult) -> str:
    """The measure the charts draw: AP (MAP) when the experiment has it, else the first."""
    return "AP" if "AP" in result.measures else result.measures[0]


def _charts_html(result: ExperimentResult) -> str:
    """The charts section: effectiveness against median latency, and latency per system.

    Systems without latency figures (precomputed runs, efficiency not measured) are named
    under the charts instead of drawn; with none measured there is a sentence, no chart.
    """
    e = html.escape
    timed = [(s, s.latency) for s in result.systems if s.latency is not None]
    untimed = [s.name for s in result.systems if s.latency is None]
    if not timed:
        return (
            '<h2>Charts</h2><p class="nochart">No latency was measured (precomputed runs, or '
            "efficiency not asked for), so there is no chart of effectiveness against "
            "efficiency nor of latency.</p>"
        )
    measure = _primary_measure(result)
    label = measure_label(measure)
    points = [
        ScatterPoint(
            s.name,
            lat.p50 * 1e3,
            result.means[measure][s.name],
            None if s.index is None else float(s.index.index_bytes),
        )
        for s, lat in timed
        if math.isfinite(result.means[measure][s.name])
    ]
    no_mean = [s.name for s, _ in timed if not math.isfinite(result.means[measure][s.name])]
    no_size = [p.label for p in points if p.size is None]
    caption = (
        f"{label} (mean over {result.topics} topics) against median query latency in ms, one "
        "point per system; a point's area is proportional to its index size."
    )
    scatter = (
        scatter_chart(
            points,
            key="tradeoff-chart",
            title=f"{label} against median latency",
            caption=caption,
            x_label="median latency (ms)",
            y_label=label,
            size_label="index size",
            size_format=lambda n: _bytes(int(n)),
            x_format=lambda ms: _ms(ms / 1e3),
        )
        if points
        else ""
    )
    latency = box_plot(
        {s.name: (lat.per_query * 1e3).tolist() for s, lat in timed},
        key="latency-chart",
        title="Latency per query",
        caption=(
            "Each system's per-query latency in ms (the median of a query's timed passes): box "
            "from the first to the third quartile, line at the median, whiskers to the most "
            "extreme latency within 1.5 times the box's width, circles beyond."
        ),
        value_label="latency (ms)",
        value_format=lambda ms: _ms(ms / 1e3),
    )
    notes = []
    if no_size:
        notes.append(
            "Drawn hollow, index size unknown (no index of its own): " + ", ".join(no_size) + "."
        )
    if no_mean:
        notes.append(
            f"Left out of the first chart, {label} not a number: " + ", ".join(no_mean) + "."
        )
    if untimed:
        notes.append("Not drawn, no latency measured: " + ", ".join(untimed) + ".")
    shown = "".join(f'<p class="chartnote">{e(n)}</p>' for n in notes)
    return f'<h2>Charts</h2><div class="charts">{scatter}{latency}</div>{shown}'


def to_html(result: ExperimentResult) -> str:
    """One self-contained HTML page: the combined table, cross-validation and notes."""
    e = html.escape
    eff_header, eff_rows = efficiency_rows(result)
    best = {m: max(result.means[m].values()) for m in result.measures}
    head_groups = (
        f'<tr><th></th><th class="group sep" colspan="{len(result.measures)}">Effectiveness '
        f"(mean over {result.topics} topics)</th>"
        f'<th class="group sep" colspan="4">Indexing</th>'
        f'<th class="group sep" colspan="6">Latency (ms)</th>'
    )
    levels = _levels(result)
    if levels:
        head_groups += f'<th class="group sep" colspan="{len(levels)}">Throughput (q/s)</th>'
    head_groups += "</tr>"
    cols = ["system"]
    cols += [measure_label(m) for m in result.measures]
    cols += eff_header[1:]
    sep_at = {1, 1 + len(result.measures), 5 + len(result.measures), 11 + len(result.measures)}
    header = "".join(
        f"<th{' class=' + chr(34) + 'sep' + chr(34) if i in sep_at else ''}>"
        f"{e(c.replace('q/s @', 'c='))}</th>"
        for i, c in enumerate(cols)
    )
    body: list[str] = []
    for s, eff in zip(result.systems, eff_rows, strict=True):
        name = e(s.name) + (" <small>(baseline)</small>" if s.name == result.baseline else "")
        cells = [f"<td>{name}</td>"]
        for j, m in enumerate(result.measures):
            cls = ' class="sep"' if j == 0 else ""
            cells.append(
                f"<td{cls}>{_cell_html(result, s.name, m, result.means[m][s.name] == best[m])}</td>"
            )
        for i, value in enumerate(eff[1:], start=1 + len(result.measures)):
            cls = ' class="sep"' if i in sep_at else ""
            cells.append(f"<td{cls}>{e(value)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    cv = ""
    if result.cross_validation is not None:
        c = result.cross_validation
        rows = "".join(
            f"<tr><td>{f.fold}</td><td>{len(f.test_topics)}</td><td>{e(f.chosen)}</td>"
            f"<td>{f.train_score:.4f}</td><td>{f.test_score:.4f}</td></tr>"
            for f in c.folds
        )
        cv = (
            f"<h2>Cross-validated selection ({c.n_folds} folds, seed {c.seed}, "
            f"{e(measure_label(c.measure))})</h2>"
            "<table><tr><th>fold</th><th>held-out topics</th><th>chosen on the other folds</th>"
            f"<th>training</th><th>held-out</th></tr>{rows}</table>"
            f"<p>Held-out {e(measure_label(c.measure))}: <b>{c.score:.4f}</b>. Best on all "
            f"topics: {e(c.all_topics_best)} {c.all_topics_score:.4f} (chosen and reported on "
            "the same topics, so optimistic).</p>"
        )
    notes = "".join(f"<li>{e(n)}</li>" for n in _notes(result))
    title = result.name if result.name != result.collection else f"{result.name} experiment"
    shared = ""
    if result.comparison_report is not None:
        shared = (
            f"<p>Per-query scores, every pairwise test and the precision–recall and nDCG@k "
            f'curves: <a href="{e(result.comparison_report.name)}">'
            f"{e(result.comparison_report.name)}</a> (the shared cranfield report).</p>"
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{e(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{e(title)}</h1>"
        f"<p>Collection <b>{e(result.collection)}</b>: {len(result.systems)} systems, "
        f"{result.topics} topics; baseline "
        f"<b>{e(result.baseline)}</b>; run files in <code>{e(str(result.workdir / 'runs'))}</code>.</p>"
        f'<h2>Effectiveness and efficiency</h2><div class="wide"><table>{head_groups}'
        f"<tr>{header}</tr>"
        + "".join(body)
        + f"</table></div>{_charts_html(result)}"
        + f'{shared}{cv}<h2>Method</h2><ul class="notes">{notes}</ul>'
        + _provenance_html(result)
        + "</body></html>\n"
    )


def pool_study_text(study: PoolStudy) -> str:
    """The pool's size over its topics, a row per run (documents contributed, unique ones,
    judged@k with qrels), then the leave-one-run-out table and where the pool was written.

    Examples
    --------
    >>> from cranfield.lab.pooling import pool_study
    >>> runs = {"a": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}},
    ...         "b": {"q1": {"d2": 9.0, "d4": 8.0}}}
    >>> print(pool_study_text(pool_study(runs, 2)), end="")
    depth-2 pool of 2 runs: 3 documents over 1 topics (per topic mean 3.0, min 3, max 3)
    run                      contributed  unique
    a                                  2       1
    b                                  2       1
    """
    p = study.pool
    data = p.to_dict()
    size = data["size_per_topic"]
    lines = [
        f"depth-{p.depth} pool of {len(p.runs)} runs: {len(p):,} documents over {data['topics']} "
        f"topics (per topic mean {size['mean']:.1f}, min {size['min']}, max {size['max']})"
    ]
    judged = study.judged_at_k
    header = f"{'run':<24} {'contributed':>11} {'unique':>7}"
    if judged is not None:
        header += f" {'judged@' + str(study.judged_k):>10}"
    lines.append(header)
    for row in p.statistics().iter_rows(named=True):
        line = f"{row['run']:<24} {row['contributed']:>11} {row['unique']:>7}"
        if judged is not None:
            line += f" {judged[row['run']]:>10.3f}"
        lines.append(line)
    if study.leave_one_out is not None:
        lines += ["", study.leave_one_out.to_text()]
    if study.export is not None:
        lines += [
            "",
            f"pool written to {study.export} (shuffled within topics, seed {study.export_seed})",
        ]
    return "\n".join(lines) + "\n"
