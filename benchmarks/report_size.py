"""Size and load time of the HTML report for many runs and queries (on demand, not in CI).

    .venv/bin/python benchmarks/report_size.py                 # 10 runs x 7,000 queries
    .venv/bin/python benchmarks/report_size.py --runs 5 --queries 250 --repeat 7

Builds synthetic qrels (12 graded judgments per query) and runs (100 documents per query),
writes the report with ``cranfield.report.html.html_report`` (curves included), then opens
it from disk in headless Debian Chromium (``/usr/bin/chromium``, driven by Playwright, the
network off) ``--repeat`` times, each in a fresh browser context, and reports the medians:

* ``ready``: navigation start to the first render of the per-query table (the page's own
  ``performance.mark("cranfield-ready")``);
* ``load``: navigation start to the end of the ``load`` event;
* ``sort``: one click on a difference column header (sort all rows, render a page);
* ``filter``: typing a query-id filter (match all rows, sort, render);
* ``last page``: a click on "Last".

The machine may be shared with other work: take the medians as indications, and compare
runs made on the same machine at the same time.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def synthetic(
    n_runs: int, n_queries: int, *, depth: int, judged: int = 12, seed: int = 0
) -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    """Qrels and runs as polars frames; run i ranks relevant documents a little better."""
    rng = np.random.default_rng(seed)
    qids = np.array([str(1_000_000 + 37 * i) for i in range(n_queries)], dtype=object)
    q = np.repeat(np.arange(n_queries), judged)
    j = np.tile(np.arange(judged), n_queries)
    rel = rng.choice([0, 0, 0, 1, 1, 2, 3], size=q.size)
    doc_ids = pl.format("d{}-{}", pl.col("q"), pl.col("j"))
    qrels = (
        pl.DataFrame({"q": q, "j": j, "relevance": rel})
        .with_columns(query_id=pl.Series(qids[q].tolist()), doc_id=doc_ids)
        .select("query_id", "doc_id", "relevance")
    )
    rq = np.repeat(np.arange(n_queries), depth)
    rj = np.tile(np.arange(depth), n_queries)
    base = pl.DataFrame({"q": rq, "j": rj}).with_columns(
        query_id=pl.Series(qids[rq].tolist()), doc_id=doc_ids
    )
    gain = np.zeros(rq.size)
    inside = rj < judged
    gain[inside] = rel[rq[inside] * judged + rj[inside]]
    runs = {
        f"system-{i + 1:02d}": base.select(
            "query_id", "doc_id", score=rng.random(rq.size) + gain * (0.15 + 0.05 * i)
        )
        for i in range(n_runs)
    }
    return qrels, runs


def measure_page(path: Path, repeat: int) -> dict[str, list[float]]:
    """Open ``path`` ``repeat`` times in fresh offline contexts; times in milliseconds."""
    from playwright.sync_api import sync_playwright

    times: dict[str, list[float]] = {
        k: [] for k in ("ready", "load", "sort", "filter", "last page", "wall")
    }
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        try:
            for _ in range(repeat):
                context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
                page = context.new_page()
                page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
                page.on("pageerror", lambda e: errors.append(str(e)))
                start = time.perf_counter()
                page.goto(path.resolve().as_uri(), wait_until="load")
                page.wait_for_selector("#query-table[data-ready='true']", state="attached")
                times["wall"].append((time.perf_counter() - start) * 1000)
                times["ready"].append(
                    page.evaluate("performance.getEntriesByName('cranfield-ready')[0].startTime")
                )
                times["load"].append(
                    page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
                )
                times["sort"].append(
                    _timed(
                        page,
                        "document.querySelector(\"#query-table button[data-key^='d']\").click()",
                    )
                )
                times["filter"].append(
                    _timed(
                        page,
                        "const f = document.getElementById('query-filter'); f.value = '10003';"
                        " f.dispatchEvent(new Event('input'))",
                    )
                )
                _timed(
                    page,
                    "const f = document.getElementById('query-filter'); f.value = '';"
                    " f.dispatchEvent(new Event('input'))",
                )
                times["last page"].append(
                    _timed(page, "document.getElementById('page-last').click()")
                )
                context.close()
        finally:
            browser.close()
    if errors:
        raise SystemExit(f"the page logged errors: {errors[:5]}")
    return times


def _timed(page: Any, code: str) -> float:
    return float(
        page.evaluate(
            f"() => {{ const t = performance.now(); {code}; return performance.now() - t; }}"
        )
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--queries", type=int, default=7000)
    ap.add_argument("--depth", type=int, default=100, help="documents per query in each run")
    ap.add_argument("-m", "--measures", nargs="+", default=["AP", "nDCG@10"])
    ap.add_argument("--repeat", type=int, default=5, help="page loads to take the median of")
    ap.add_argument("--keep", type=Path, help="also copy the report here")
    ap.add_argument("--json", type=Path, help="write the numbers here as JSON")
    args = ap.parse_args(argv)
    if not CHROMIUM.exists():
        print(
            f"{CHROMIUM} is missing: apt-get install -y chromium chromium-driver", file=sys.stderr
        )
        return 1

    from cranfield import __version__
    from cranfield.report.html import html_report

    t0 = time.perf_counter()
    qrels, runs = synthetic(args.runs, args.queries, depth=args.depth)
    t1 = time.perf_counter()
    page = html_report(qrels, runs, args.measures, seed=0)
    t2 = time.perf_counter()
    raw = page.encode("utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "report.html"
        path.write_bytes(raw)
        if args.keep:
            args.keep.write_bytes(raw)
        times = measure_page(path, args.repeat)
    data_block = page.split('<script type="application/json" id="cranfield-data">', 1)[1]
    data_bytes = len(data_block.split("</script>", 1)[0].encode("utf-8"))
    result = {
        "cranfield": __version__,
        "runs": args.runs,
        "queries": args.queries,
        "depth": args.depth,
        "measures": args.measures,
        "repeat": args.repeat,
        "generate_inputs_s": round(t1 - t0, 2),
        "html_report_s": round(t2 - t1, 2),
        "bytes": len(raw),
        "json_bytes": data_bytes,
        "gzip_bytes": len(gzip.compress(raw, 6)),
        "median_ms": {k: round(statistics.median(v), 1) for k, v in times.items()},
        "all_ms": {k: [round(x, 1) for x in v] for k, v in times.items()},
    }
    print(
        f"{args.runs} runs x {args.queries:,} queries, {len(args.measures)} measures "
        f"({', '.join(args.measures)}), depth {args.depth}; cranfield {__version__}"
    )
    print(
        f"html_report(): {result['html_report_s']} s (inputs generated in {result['generate_inputs_s']} s)"
    )
    print(
        f"file: {len(raw) / 1e6:.2f} MB ({data_bytes / 1e6:.2f} MB of JSON data), "
        f"{result['gzip_bytes'] / 1e6:.2f} MB gzipped"
    )
    print(f"browser, median of {args.repeat} loads (ms; a shared machine, indicative):")
    for k, v in result["median_ms"].items():
        print(f"  {k:>9}: {v:8.1f}   all: {result['all_ms'][k]}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
