"""The HTML report in headless Debian Chromium, opened from disk with networking off.

Each test fails on a JavaScript error, a console error (a Content-Security-Policy refusal
included), any network request or a dialog (see ``conftest.watched``). Screenshots are kept
in ``test-artifacts/report/``.
"""

from __future__ import annotations

import gzip
import json
from typing import TYPE_CHECKING

import numpy as np
import pytest

import cranfield
from cranfield.report.html import comparison_html, html_report
from cranfield.stats import compare_scores
from tests.conftest import REAL, require
from tests.unit.report._synthetic import synthetic

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Page

    from tests.unit.report.conftest import Watched

# A real browser (Chromium through Playwright): slow, left out by scripts/check --fast.
pytestmark = pytest.mark.slow

DL19 = REAL / "trec-dl-passage"
RUNS = ("bm25", "tasb", "splade-pp-ed")
EXPECTED = {  # trec_eval 10.0 -l 2 on DL19 passage: nDCG@10, MAP (the shared data's README)
    "bm25": ["0.5058", "0.2476"],
    "tasb": ["0.7210", "0.4050"],
    "splade-pp-ed": ["0.7308", "0.4464"],
}


def _rows(page: Page) -> list[list[str]]:
    """The visible rows of the per-query table, as text: query id, then every cell."""
    return page.eval_on_selector_all(
        "#query-table tbody tr",
        "rows => rows.map(r => Array.from(r.cells, c => c.textContent))",
    )


def _order(values: np.ndarray, descending: bool) -> list[int]:
    """Row order of a stable sort, ties by position (the page's rule)."""
    keys = -values if descending else values
    return sorted(range(values.size), key=lambda i: (keys[i], i))


def test_report_of_real_runs(watched: Watched, artifacts: Path, tmp_path: Path) -> None:
    qrels = require(DL19 / "qrels" / "qrels.dl19-passage.txt")
    runs = {n: require(DL19 / "runs" / "dl19" / f"{n}.txt.gz") for n in RUNS}
    c = cranfield.compare(qrels, runs, ["nDCG@10", "AP"], relevance_level=2)
    path = tmp_path / "dl19 report.html"
    path.write_text(
        html_report(qrels, list(runs.values()), ["nDCG@10", "AP"], relevance_level=2),
        encoding="utf-8",
    )
    watched.open(path)
    page = watched.page

    # The summary table holds trec_eval's numbers.
    summary = page.eval_on_selector_all(
        "#summary-table tbody tr",
        "rows => rows.map(r => [r.querySelector('th').textContent,"
        " ...Array.from(r.querySelectorAll('.value'), v => v.textContent)])",
    )
    assert summary == [[run, *values] for run, values in EXPECTED.items()]

    # Sort by a run's nDCG@10: best first, then worst first.
    topics = np.array(c.topics, dtype=object)
    tasb = np.round(c.scores["nDCG@10"][:, 1], 6)
    header = page.locator("#query-table thead th", has=page.locator("button[data-key='s1']"))
    page.click("#query-table button[data-key='s1']")
    assert header.get_attribute("aria-sort") == "descending"
    rows = _rows(page)
    assert [r[0] for r in rows] == topics[_order(tasb, descending=True)].tolist()
    assert [float(r[2]) for r in rows] == pytest.approx(sorted(tasb, reverse=True), abs=5e-5)
    page.click("#query-table button[data-key='s1']")
    assert header.get_attribute("aria-sort") == "ascending"
    assert [r[0] for r in _rows(page)] == topics[_order(tasb, descending=False)].tolist()

    # Another measure keeps the sort column; a difference column sorts by the difference.
    page.select_option("#measure-select", "1")
    ap = np.round(c.scores["AP"][:, 1], 6)
    assert [r[0] for r in _rows(page)] == topics[_order(ap, descending=False)].tolist()
    page.click("#query-table button[data-key='d2']")
    diff = np.round(c.scores["AP"][:, 2], 6) - np.round(c.scores["AP"][:, 0], 6)
    rows = _rows(page)
    assert [r[0] for r in rows] == topics[_order(diff, descending=True)].tolist()
    assert rows[0][-1] == f"+{diff.max():.4f}"
    shaded = page.eval_on_selector("#query-table tbody tr td:last-child", "td => td.className")
    assert "up3" in shaded

    # Filter by query id, then page through all queries.
    page.fill("#query-filter", "1037798")
    assert [r[0] for r in _rows(page)] == ["1037798"]
    assert "Queries 1–1 of 1 (filtered from 43)" in page.inner_text("#page-status")
    page.fill("#query-filter", "")
    page.select_option("#page-size", "25")
    assert len(_rows(page)) == 25
    page.click("#page-next")
    assert len(_rows(page)) == 18
    assert page.inner_text("#page-status").startswith("Queries 26–43 of 43")
    assert page.locator("#pr-chart polyline").count() == len(RUNS)

    page.screenshot(path=str(artifacts / "dl19-report.png"), full_page=True)
    watched.check()


# Payloads without spaces, so that they fit in the whitespace-separated TREC formats.
QIDS = [
    "<script>alert(1)</script>",
    '"><img/src=x/onerror=alert(2)>',
    "'-alert(3)-'",
    "</script><script>window.__pwned=1</script>",
    "<!--",
    "&amp;<b>5</b>",
    "q7",
]
DOCS = ["<img/src=x/onerror=alert(4)>", "</script>", "d'\"3"]
TAGS = ["<script>alert(5)</script>", '<b>tag</b>"onmouseover=alert(6)']
FILES = ["<svg onload=alert(7)>.run", "\"'&amp;.run.gz"]
TITLE = "<script>alert(8)</script> & <i>report</i>"


def _write_inputs(tmp_path: Path) -> tuple[Path, list[Path]]:
    qrels = tmp_path / "<iframe>qrels.txt"
    lines = [f"{q} 0 {d} {(i + k) % 2}" for i, q in enumerate(QIDS) for k, d in enumerate(DOCS)]
    qrels.write_text("\n".join(lines) + "\n", encoding="utf-8")
    runs = []
    for r, (name, tag) in enumerate(zip(FILES, TAGS, strict=True)):
        text = "".join(
            f"{q} Q0 {d} {k + 1} {10 - k - r * ((i + k) % 2)} {tag}\n"
            for i, q in enumerate(QIDS)
            for k, d in enumerate(DOCS)
        )
        path = tmp_path / name
        data = text.encode()
        path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
        runs.append(path)
    return qrels, runs


def test_injected_markup_renders_as_text(watched: Watched, artifacts: Path, tmp_path: Path) -> None:
    qrels, runs = _write_inputs(tmp_path)
    path = tmp_path / "report.html"
    page_text = html_report(qrels, runs, ["AP", "P@2"], names="tag", title=TITLE, seed=1)
    path.write_text(page_text, encoding="utf-8")
    watched.open(path)
    page = watched.page

    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("script").count() == 2
    assert page.locator("img, iframe, svg[onload], b, i").count() == 0
    assert page.title() == TITLE
    assert page.inner_text("h1") == TITLE
    names = page.eval_on_selector_all(
        "#summary-table tbody th", "cells => cells.map(c => c.textContent)"
    )
    assert names == TAGS
    options = page.eval_on_selector_all(
        "#reference-select option", "opts => opts.map(o => o.textContent)"
    )
    assert options == TAGS
    headers = page.eval_on_selector_all(
        "#query-table thead button", "bs => bs.map(b => b.textContent)"
    )
    assert headers == ["query", *TAGS, f"Δ {TAGS[1]}"]
    shown = [r[0] for r in _rows(page)]
    assert sorted(shown) == sorted(QIDS)
    for qid in QIDS[:4]:
        page.fill("#query-filter", qid)
        assert [r[0] for r in _rows(page)] == [qid]
    sources = page.eval_on_selector_all(
        "#runs-table tbody tr td:first-of-type", "cells => cells.map(c => c.textContent)"
    )
    assert sources == FILES
    assert "<iframe>qrels.txt" in page.inner_text("#parameters-table")
    page.hover("#summary-table tbody th")  # an onmouseover, if any, would fire here
    page.fill("#query-filter", "")
    page.screenshot(path=str(artifacts / "injection-report.png"), full_page=True)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    watched.check()


def test_five_runs_of_250_queries_load_at_once(watched: Watched, tmp_path: Path) -> None:
    qrels, runs = synthetic(5, 250, depth=50, seed=5)
    path = tmp_path / "small.html"
    path.write_text(html_report(qrels, runs, ["AP", "nDCG@10", "P@10"], seed=2), encoding="utf-8")
    assert path.stat().st_size < 400_000
    watched.open(path)
    ready = watched.page.evaluate("performance.getEntriesByName('cranfield-ready')[0].startTime")
    assert ready < 2000, f"{ready:.0f} ms from navigation to the rendered table"
    assert len(_rows(watched.page)) == 50
    watched.check()


def test_ten_runs_of_7000_queries_stay_usable(watched: Watched, tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    n, k = 7000, 10
    base = rng.random(n)
    scores = {
        f"system-{j}": {
            "AP": np.clip(base + rng.normal(0.01 * j, 0.1, n), 0, 1),
            "nDCG@10": np.clip(base + rng.normal(0.02 * j, 0.1, n), 0, 1),
        }
        for j in range(k)
    }
    topics = [str(100_000 + 13 * i) for i in range(n)]
    c = compare_scores(scores, topics=topics)
    path = tmp_path / "large.html"
    path.write_text(comparison_html(c), encoding="utf-8")
    watched.open(path)
    page = watched.page
    assert len(_rows(page)) == 50
    ms = page.evaluate(
        "() => { const t = performance.now();"
        " document.querySelector(\"#query-table button[data-key='d9']\").click();"
        " return performance.now() - t; }"
    )
    assert ms < 1000, f"sorting 7,000 rows took {ms:.0f} ms"
    diff = np.round(c.scores["AP"][:, 9], 6) - np.round(c.scores["AP"][:, 0], 6)
    first = _rows(page)[0]
    assert first[0] == topics[int(np.argmax(diff))]
    page.click("#page-last")
    assert page.inner_text("#page-status").startswith("Queries 6,951–7,000 of 7,000")
    page.fill("#query-filter", "100013 100026")
    assert {r[0] for r in _rows(page)} == {"100013", "100026"}
    data = json.loads(page.eval_on_selector("#cranfield-data", "e => e.textContent"))
    assert len(data["topics"]) == n
    watched.check()


def test_lab_page_draws_its_charts_offline(
    watched: Watched, artifacts: Path, tmp_path: Path
) -> None:
    from cranfield.lab.report import to_html
    from tests.unit.lab._results import result, system

    hostile = "<img src=x onerror=window.__pwned=1>"
    res = result(
        [
            system("bm25", 2_000_000, [1.0, 1.5, 2.0, 2.5, 9.0]),
            system(hostile, 8_000_000, [4.0, 5.0, 6.0, 7.0, 8.0]),
            system("precomputed", None, None),
        ],
        {"AP": {"bm25": 0.3, hostile: 0.5, "precomputed": 0.2}},
    )
    path = tmp_path / "lab report.html"
    path.write_text(to_html(res), encoding="utf-8")
    page = watched.page
    page.goto(path.resolve().as_uri(), wait_until="load")
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("script, img").count() == 0
    for key in ("tradeoff-chart", "latency-chart"):
        box = page.locator(f"#{key} svg").bounding_box()
        assert box is not None
        assert box["width"] > 300
        assert box["height"] > 100
    labels = page.eval_on_selector_all(
        "#tradeoff-chart g.point", "gs => gs.map(g => g.dataset.label)"
    )
    assert sorted(labels) == sorted(["bm25", hostile])
    page.locator("div.charts").screenshot(path=str(artifacts / "lab-charts.png"))
    watched.check()


def test_the_run_diff_section_opens_offline(
    watched: Watched, artifacts: Path, tmp_path: Path
) -> None:
    """``--diff A B``: the section is static HTML under the same strict policy; each detailed
    query opens to the ranks of its relevant documents."""
    qrels = require(DL19 / "qrels" / "qrels.dl19-passage.txt")
    runs = [require(DL19 / "runs" / "dl19" / f"{n}.txt.gz") for n in ("bm25", "tasb")]
    path = tmp_path / "diff.html"
    text = html_report(qrels, runs, ["nDCG@10", "AP"], relevance_level=2, diff=["bm25", "tasb"])
    path.write_text(text, encoding="utf-8")
    watched.open(path)
    page = watched.page
    assert page.inner_text("#run-diff h2") == "Run diff: tasb against bm25"
    means = page.eval_on_selector_all(
        "#diff-table tbody tr", "rows => rows.map(r => Array.from(r.cells, c => c.textContent))"
    )
    assert [row[:3] for row in means] == [
        ["nDCG@10", *(EXPECTED[r][0] for r in ("bm25", "tasb"))],
        ["AP", *(EXPECTED[r][1] for r in ("bm25", "tasb"))],
    ]
    first = page.locator("#run-diff details").first
    assert not first.locator("table").is_visible()
    first.locator("summary").click()
    assert first.locator("table").is_visible()
    assert page.locator("script").count() == 2
    page.screenshot(path=str(artifacts / "dl19-run-diff.png"), full_page=True)
    watched.check()


def test_the_judging_section_draws_its_charts_offline(
    watched: Watched, artifacts: Path, tmp_path: Path
) -> None:
    """``--strategy``: the judging section's three inline charts under the page's strict
    policy, each with one line per strategy, and its numbers."""
    from cranfield.judging.simulation import simulate

    qrels = require(DL19 / "qrels" / "qrels.dl19-passage.txt")
    runs = [require(DL19 / "runs" / "dl19" / f"{n}.txt.gz") for n in RUNS]
    sim = simulate(runs, qrels, ["depth", "mtf", "maxmean"], budget=30, checkpoints=[5, 10, 30])
    path = tmp_path / "judging.html"
    text = html_report(qrels, runs, ["nDCG@10", "AP"], relevance_level=2, judging=sim)
    path.write_text(text, encoding="utf-8")
    watched.open(path)
    page = watched.page
    assert page.inner_text("#judging h2") == "Judging on a budget"
    for key in ("judging-found", "judging-tau", "judging-tau-ap"):
        assert page.locator(f"#{key}-svg").is_visible()
        assert page.locator(f"#{key}-svg polyline").count() == 3
    numbers = page.inner_text("#judging pre")
    found = sim.found["depth"]
    assert f"{'depth':<11} {found[9]:>7} {found[19]:>7} {found[29]:>7}" in numbers
    page.screenshot(path=str(artifacts / "dl19-judging.png"), full_page=True)
    watched.check()


def test_the_logs_page_draws_its_charts_offline(
    watched: Watched, artifacts: Path, tmp_path: Path
) -> None:
    from cranfield.report.logs_page import logs_html
    from tests.unit.report.test_logs_page import _log, _simulation

    hostile = "<img src=x onerror=window.__pwned=1>"
    path = tmp_path / "logs page.html"
    page_html = logs_html(_log(query_ids=(hostile, "q2")), simulation=_simulation((hostile, "b")))
    path.write_text(page_html, encoding="utf-8")
    page = watched.page
    page.goto(path.resolve().as_uri(), wait_until="load")
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("script, img").count() == 0
    for key in ("ctr-by-rank", "perplexity-by-rank", "agreement-by-n"):
        box = page.locator(f"#{key} svg").bounding_box()
        assert box is not None
        assert box["width"] > 300
        assert box["height"] > 100
    assert hostile in page.locator("#interleaving p").first.inner_text()
    page.locator("#ctr").screenshot(path=str(artifacts / "logs-ctr.png"))
    watched.check()


# Everything right of the window's edge, and every box that scrolls sideways (the page's own
# width included): what a reader at 1400 px would have to scroll to see.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const found = [];
  if (document.documentElement.scrollWidth > width) found.push('the page');
  for (const el of document.querySelectorAll('body *')) {
    const box = el.getBoundingClientRect();
    const label = el.tagName + (el.id ? '#' + el.id : '');
    if (box.width > 0 && box.right > width + 0.5) found.push(label + ' ends at ' + box.right);
    if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible')
      found.push(label + ' scrolls: ' + el.scrollWidth + ' > ' + el.clientWidth);
  }
  return found;
}"""


def test_ten_runs_fit_a_1400_pixel_window(
    watched: Watched, artifacts: Path, tmp_path: Path
) -> None:
    """The per-query table of 10 runs (20 columns) ran to 4,900 px; the pairwise tests (their
    intervals and adjusted p-values) were behind a click; the nDCG@k chart drew an "ideal"
    line at 1."""
    qrels, runs = synthetic(10, 60, depth=30, seed=5)
    named = {f"team-{i:02d}-system-long-name": r for i, r in enumerate(runs.values())}
    path = tmp_path / "ten.html"
    path.write_text(html_report(qrels, named, ["AP", "nDCG@10", "P@10"], seed=2), encoding="utf-8")
    page = watched.page
    page.set_viewport_size({"width": 1400, "height": 900})
    watched.open(path)
    assert page.evaluate(OVERFLOW) == []
    assert page.locator("#query-table thead th").count() == 1 + 10 + 9
    assert page.locator("#pairs-table").is_visible()  # no click needed
    header = page.eval_on_selector_all(
        "#pairs-table thead th", "ths => ths.map(t => t.textContent)"
    )
    assert header[4:6] == ["t CI unadj.", "t p adj."]
    assert page.locator("#pairs-table tbody tr").count() == 45 * 3
    assert page.locator("#gain-chart polyline").count() == 10  # one per run, no "ideal"
    svg_text = page.eval_on_selector("#gain-chart svg", "s => s.textContent")
    assert "ideal" not in svg_text  # no such legend entry
    page.screenshot(path=str(artifacts / "ten-runs-1400.png"), full_page=True)
    watched.check()


def test_lab_page_fits_a_1400_pixel_window(
    watched: Watched, artifacts: Path, tmp_path: Path
) -> None:
    """The lab's table of 8 systems with long names and its provenance (hashes, paths and the
    options on one line) needed sideways scrolling."""
    import dataclasses

    from cranfield.evaluation.options import EvalOptions
    from cranfield.evaluation.provenance import Provenance
    from cranfield.lab.report import to_html
    from tests.unit.lab._results import result, system

    names = [f"bm25-k1-{i}-b-0.{i}-stemmer-porter-stopwords-english" for i in range(8)]
    res = result(
        [system(n, 2_000_000 * (i + 1), [1.0, 1.5, 2.0, 2.5, 9.0]) for i, n in enumerate(names)],
        {m: {n: 0.1 * i for i, n in enumerate(names)} for m in ("AP", "nDCG@10", "P@10", "RR")},
    )
    deep = tmp_path.joinpath(*[f"folder-{i}-with-a-long-name" for i in range(8)])
    deep.mkdir(parents=True)
    config = deep / "experiment-configuration-file-with-a-long-name.toml"
    config.write_text("[experiment]\n")
    prov = Provenance.of({"config": config, "qrels": config}, ["AP", "nDCG@10"], EvalOptions())
    res = dataclasses.replace(res, provenance=prov)
    path = tmp_path / "lab.html"
    path.write_text(to_html(res), encoding="utf-8")
    page = watched.page
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(path.resolve().as_uri(), wait_until="load")
    assert page.locator("#provenance").is_visible()
    assert str(config) in page.inner_text("#provenance")
    assert page.evaluate(OVERFLOW) == []
    page.screenshot(path=str(artifacts / "lab-1400.png"), full_page=True)
    watched.check()
