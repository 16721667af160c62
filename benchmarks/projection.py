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
* per partition of a Parquet dataset (the first run written as one Parquet file of its
  200,000 rows): the CPU time of the pass that reads its query column alone (to find the
  queries cut between files), the CPU time to read it and score it as a dataset's partition
  is scored on a worker, its size, and the size of what comes back (per-query values);

then projected, with the assumptions printed beside the numbers: 10,000 runs on ``--workers``
workers, and 10^9 rows as a Parquet dataset (the per-row cost of its partitions) on the same
workers.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from parallel import FIVE, ensure_data  # noqa: E402 -- the same data as the parallel benchmark

TASK_OVERHEAD = 0.001
"""Assumed scheduler cost per task, seconds (Dask's documentation: about 1 ms per task)."""
BANDWIDTH = 125e6
"""Assumed network bandwidth per worker, bytes a second (1 Gbit/s)."""


def span(seconds: float) -> str:
    """A duration as people say it: seconds below two minutes, minutes above."""
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def partition_work(qrels: Path, run: Path) -> dict[str, Any]:
    """One partition's work: ``run`` written as a Parquet file, its query column read, then
    the file read (as dask reads a partition, into pandas) and scored by
    :func:`~cranfield.evaluation.evaluator.score_partition`, each in CPU time."""
    import pyarrow.parquet as pq

    from cranfield import Evaluator
    from cranfield.evaluation.evaluator import score_partition
    from cranfield.io.load import load_run
    from cranfield.io.parquet_dataset import query_ids

    evaluator = Evaluator(qrels, FIVE, missing="skip").prepare()  # as evaluate_dataset's
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "part.0.parquet"
        frame = load_run(run).frame.select("query_id", "doc_id", "score")
        frame.write_parquet(path)
        start = time.process_time()
        query_ids(str(path), "query_id")
        ids = time.process_time() - start
        start = time.process_time()
        rows = pq.read_table(path).to_pandas()
        scores = score_partition(evaluator, (rows, 0, 1, str(path), run.stem))
        work = time.process_time() - start
        return {
            "rows": frame.height,
            "bytes": path.stat().st_size,
            "ids": ids,
            "cpu": work,
            "back": len(pickle.dumps(scores)),
        }


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
        f"{span(wall)} of wall time ({each} runs a worker, each read from shared "
        f"storage); {n * back_bytes / 1e6:.0f} MB of results gathered, "
        f"{shipped * w / 1e9:.2f} GB of evaluator broadcast"
    )
    part = min((partition_work(qrels, runs[0]) for _ in range(3)), key=lambda p: p["cpu"])
    print(
        f"measured: per Parquet partition of {part['rows']:,} rows ({part['bytes']:,} bytes): "
        f"its query column read in {part['ids']:.3f} s CPU, read and scored in "
        f"{part['cpu']:.3f} s CPU, {part['back']:,} bytes of per-query values back"
    )
    billion = 1e9
    partitions = billion / part["rows"]
    per_worker = partitions / w
    parquet_bytes = billion * part["bytes"] / part["rows"]
    local = per_worker * (part["ids"] + part["cpu"] + 2 * part["bytes"] / BANDWIDTH)
    local += partitions * TASK_OVERHEAD * 2 / w
    shuffle = parquet_bytes / (w * BANDWIDTH)
    print(
        f"10^9 rows as {partitions:,.0f} Parquet partitions on {w} workers: "
        f"{partitions * (part['ids'] + part['cpu']) / 3600:.1f} CPU hours, about "
        f"{span(local)} when no query is cut between files (counting each file read twice: "
        f"its query column, then the whole), plus about {span(shuffle)} to shuffle "
        f"{parquet_bytes / 1e9:.0f} GB of Parquet when the queries are spread over the files; "
        f"{partitions * part['back'] / 1e9:.1f} GB of per-query values gathered"
    )
    print(
        f"assumptions: {TASK_OVERHEAD * 1e3:.0f} ms of scheduling per task, "
        f"{BANDWIDTH * 8 / 1e9:.0f} Gbit/s per worker, work spread evenly, the per-row cost "
        "of these runs (1,000 documents a query), files read where they lie"
    )


if __name__ == "__main__":
    main()
