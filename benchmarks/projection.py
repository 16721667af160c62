"""What a cluster would do: the per-run work and the data moved, measured here, projected to
64 workers (issue 19; the page ``docs/scaling.md`` quotes its output).

Usage::

    .venv/bin/python benchmarks/projection.py [--runs 20] [--workers 64]

Measured on the ``trecdl`` profile of ``generate.py`` (200 queries x 1,000 documents, graded
qrels; its run variants of ``benchmarks/parallel.py``), in this process, with CPU time
(``time.process_time``: what a worker spends, whatever else the machine runs):

* the evaluator sent to every worker once: the time to read and index the qrels, and its
  size pickled (what a worker receives);
* per run: the CPU time to read and score it (five measures), the size of its file (what a
  worker reads where the run lies) and of its pickled results (what comes back);

then projected, with the assumptions printed beside the numbers: 10,000 runs on ``--workers``
workers, and 10^9 rows (the same per-row cost) on the same workers.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from parallel import FIVE, ensure_data  # noqa: E402 -- the same data as the parallel benchmark

TASK_OVERHEAD = 0.001
"""Assumed scheduler cost per task, seconds (Dask's documentation: about 1 ms per task)."""
BANDWIDTH = 125e6
"""Assumed network bandwidth per worker, bytes a second (1 Gbit/s)."""


def main() -> None:
    from cranfield import Evaluator

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--workers", type=int, default=64)
    args = parser.parse_args()
    qrels, runs = ensure_data(args.runs)
    start = time.process_time()
    evaluator = Evaluator(qrels, FIVE).prepare()
    prepare = time.process_time() - start
    shipped = len(pickle.dumps(evaluator))
    cpu, back = [], []
    for run in runs:
        start = time.process_time()
        results = evaluator.evaluate(run)
        cpu.append(time.process_time() - start)
        back.append(len(pickle.dumps(results)))
    per_run = statistics.median(cpu)
    run_bytes = int(statistics.median(p.stat().st_size for p in runs))
    back_bytes = int(statistics.median(back))
    rows = 200_000
    w = args.workers
    print(f"measured: qrels read and indexed in {prepare:.3f} s CPU, sent as {shipped:,} bytes")
    print(
        f"measured: per run {per_run:.3f} s CPU to read and score ({run_bytes:,} bytes, "
        f"{rows:,} rows), {back_bytes:,} bytes of results back"
    )
    n = 10_000
    each = -(-n // w)  # runs per worker
    wall = each * (per_run + run_bytes / BANDWIDTH) + n * TASK_OVERHEAD / w + shipped / BANDWIDTH
    print(
        f"10,000 runs on {w} workers: {n * per_run / 3600:.1f} CPU hours, about "
        f"{wall / 60:.1f} min of wall time ({each} runs a worker, each read from shared "
        f"storage); {n * back_bytes / 1e6:.0f} MB of results gathered, "
        f"{shipped * w / 1e9:.2f} GB of evaluator broadcast"
    )
    per_row = per_run / rows
    billion = 1e9
    text_bytes = billion * run_bytes / rows
    local = billion * per_row / w + text_bytes / w / BANDWIDTH
    shuffle = text_bytes / (w * BANDWIDTH)
    print(
        f"10^9 rows on {w} workers: {billion * per_row / 3600:.1f} CPU hours, about "
        f"{local / 60:.1f} min when the data is already partitioned by query, plus about "
        f"{shuffle / 60:.1f} min to shuffle {text_bytes / 1e9:.0f} GB of rows when it is not"
    )
    print(
        f"assumptions: {TASK_OVERHEAD * 1e3:.0f} ms of scheduling per task, "
        f"{BANDWIDTH * 8 / 1e9:.0f} Gbit/s per worker, work spread evenly, the per-row cost "
        "of these runs (1,000 documents a query), rows read where they lie"
    )


if __name__ == "__main__":
    main()
