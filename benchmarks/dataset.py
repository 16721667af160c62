"""A run that lives in a data lake: a Parquet dataset on Dask against the single-process
``cranfield evaluate --stream`` of the same rows as TREC text (issue 19).

Usage::

    .venv/bin/python benchmarks/dataset.py [--rows 100000000] [--files 64] [--workers 2]
                                           [--repeat 3] [--warmup 1] [--markdown]

The data: the ``huge`` profile of ``generate.py`` (1,000 documents per query; ``--rows``
rows, so ``--rows / 1000`` queries; 100M rows by default, the issue's scale target), its
``run.txt`` generated if missing, then written once as ``--files`` Parquet files of about
equal row counts (``query_id`` and ``doc_id`` strings, ``score`` float64, a row group per
block of pyarrow's CSV reader, about 32,000 rows), cut by row position: the rows of a query
may lie in two files, so cranfield gathers the queries cut between files into one more
partition (after a pass over each file's query column). Both are kept in ``benchmarks/data/huge-Q`` and
``benchmarks/data/huge-Q-parquet-F``.

Three ways, alternated round-robin over ``--repeat`` timed rounds after ``--warmup`` rounds,
medians reported with their ratio to ``--stream``:

``--stream``
    ``cranfield evaluate QRELS run.txt --stream -m AP nDCG@10 RR@10 R@1000 P@10 -q -f tsv``,
    a fresh process, as a user runs it.
``LocalCluster``
    In one Python process, ``Evaluator.evaluate_dataset(folder, scheduler=client)`` on a
    ``LocalCluster`` of ``--workers`` single-threaded worker processes started once before
    timing; after the rounds, each worker's peak resident memory (``ru_maxrss``) is reported.
``synchronous``
    ``Evaluator.evaluate_dataset(folder)`` in the same process: dask's synchronous scheduler,
    one partition at a time (what ``cranfield evaluate QRELS FOLDER`` does without
    ``--jobs`` or ``--scheduler``).

Every timed result is checked: the per-query values of both dataset evaluations equal those
``--stream`` prints (its TSV prints each float exactly), query by query. Timings are a
report, never a pass/fail test.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
FIVE = ["AP", "nDCG@10", "RR@10", "R@1000", "P@10"]
DEPTH = 1000
"""Documents per query in the huge profile."""
ROW_GROUP = 1_000_000


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def ensure_text(rows: int) -> Path:
    """The huge profile's folder with ``rows // 1000`` queries (generated once)."""
    queries = max(rows // DEPTH, 1)
    base = DATA / f"huge-{queries}"
    if not (base / "run.txt").exists():
        log(f"generating the huge profile with {queries} queries ...")
        subprocess.run(
            [
                sys.executable,
                str(HERE / "generate.py"),
                "huge",
                str(base),
                "--queries",
                str(queries),
            ],
            check=True,
        )
    return base


def ensure_parquet(base: Path, files: int) -> Path:
    """``base/run.txt`` written as ``files`` Parquet files cut by row position (once),
    streamed through pyarrow: memory bounded by one block of the CSV reader."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyarrow import csv

    folder = base.parent / f"{base.name}-parquet-{files}"
    if folder.exists():
        return folder
    log(f"writing {base / 'run.txt'} as {files} Parquet files ...")
    lines = sum(1 for _ in (base / "run.txt").open("rb"))
    per_file = -(-lines // files)
    tmp = folder.with_name(folder.name + ".partial")
    tmp.mkdir(parents=True, exist_ok=True)
    schema = pa.schema(
        [("query_id", pa.string()), ("doc_id", pa.string()), ("score", pa.float64())]
    )
    reader = csv.open_csv(
        base / "run.txt",
        read_options=csv.ReadOptions(
            column_names=["query_id", "q0", "doc_id", "rank", "score", "tag"]
        ),
        parse_options=csv.ParseOptions(delimiter=" "),
        convert_options=csv.ConvertOptions(
            column_types={"query_id": pa.string(), "doc_id": pa.string(), "score": pa.float64()},
            include_columns=["query_id", "doc_id", "score"],
        ),
    )
    index, written, writer = 0, 0, None
    for batch in reader:
        table = pa.Table.from_batches([batch]).select(["query_id", "doc_id", "score"])
        while table.num_rows:
            if writer is None:
                writer = pq.ParquetWriter(tmp / f"part.{index:03d}.parquet", schema)
            take = min(per_file - written, table.num_rows)
            writer.write_table(table.slice(0, take), row_group_size=ROW_GROUP)
            table, written = table.slice(take), written + take
            if written == per_file:
                writer.close()
                writer, index, written = None, index + 1, 0
    if writer is not None:
        writer.close()
    tmp.rename(folder)
    return folder


def stream_values(qrels: Path, run: Path) -> tuple[float, dict[tuple[str, str], float]]:
    """One timed ``--stream`` command and its per-query values ``{(query, measure): value}``."""
    argv = [str(Path(sys.executable).parent / "cranfield"), "evaluate", str(qrels), str(run)]
    argv += ["--stream", "-m", *FIVE, "-q", "-f", "tsv", "--quiet"]
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    header, *rows = (line.split("\t") for line in proc.stdout.splitlines())
    values = {
        (row[1], measure): float(value)
        for row in rows
        for measure, value in zip(header[2:], row[2:], strict=True)
    }
    return wall, values


def check(label: str, results: Any, expected: dict[tuple[str, str], float]) -> None:
    """``results``' per-query values are those ``--stream`` printed, bit for bit."""
    got = {
        (query, str(m)): value
        for m in results.measures
        for query, value in results.per_query(m).items()
    }
    if got != expected:
        wrong = next(k for k in expected if got.get(k) != expected[k])
        raise SystemExit(f"{label} differs from --stream at {wrong}: {got.get(wrong)}")


def worker_peaks(client: Any) -> list[float]:
    """Each worker's peak resident memory in GiB (``ru_maxrss``, KiB on Linux)."""
    peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return sorted(kib / 2**20 for kib in peaks.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--files", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()

    from distributed import Client, LocalCluster

    from cranfield import Evaluator

    base = ensure_text(args.rows)
    folder = ensure_parquet(base, args.files)
    qrels, run = base / "qrels.txt", base / "run.txt"
    cluster_label = f"LocalCluster, {args.workers} workers"
    labels = ["--stream", cluster_label, "synchronous"]
    times: dict[str, list[float]] = {label: [] for label in labels}
    notes: dict[str, str] = {}
    expected: dict[tuple[str, str], float] = {}  # set by round 1, which starts with --stream
    with (
        LocalCluster(  # this machine only, no fixed port (None still serves 8787)
            n_workers=args.workers,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
        ) as cluster,
        Client(cluster) as client,
    ):
        for round_ in range(args.warmup + args.repeat):
            shift = round_ % len(labels)
            for label in labels[shift:] + labels[:shift]:
                if label == "--stream":
                    wall, expected = stream_values(qrels, run)
                else:
                    where = {"scheduler": client} if label == cluster_label else {}
                    evaluator = Evaluator(qrels, FIVE)
                    start = time.perf_counter()
                    results = evaluator.evaluate_dataset(folder, **where)
                    wall = time.perf_counter() - start
                    notes[label] = results.notes[-1]
                    check(label, results, expected)
                log(f"  round {round_ + 1}: {label}: {wall:.2f} s")
                if round_ >= args.warmup:
                    times[label].append(wall)
        peaks = worker_peaks(client)
    medians = {label: statistics.median(t) for label, t in times.items()}
    base_time = medians["--stream"]
    lines = [f"{args.rows:,} rows as {args.files} Parquet files ({folder.name}), the huge profile"]
    for label, t in medians.items():
        lines.append(f"{label}: median {t:.2f} s, {t / base_time:.2f}x the --stream time")
    lines.append("peak RSS per worker: " + ", ".join(f"{p:.2f} GiB" for p in peaks))
    lines += [f"{label}: {note}" for label, note in notes.items()]
    joiner = "\n- " if args.markdown else "\n"
    print(("- " if args.markdown else "") + joiner.join(lines))


if __name__ == "__main__":
    main()
