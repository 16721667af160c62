"""Many runs against one qrels: one process against worker processes and a Dask cluster
(issue 19).

Usage::

    .venv/bin/python benchmarks/parallel.py [--runs 200] [--repeat 5] [--warmup 1] [--markdown]

The data: the ``trecdl`` profile of ``generate.py`` (200 queries x 1,000 documents, graded
qrels), generated if missing, and ``--runs`` variants of its run (``benchmarks/data/
trecdl-runs/run000.txt`` ...): each the same 200,000 lines with its scores moved by a
deterministic noise of its own (seed = its number), so every run ranks differently and costs
the same to read and score. They are written once and kept.

Two comparisons, each alternated round-robin over ``--repeat`` timed rounds after
``--warmup`` rounds, medians reported with their ratio to the one-process time of the same
session:

``cli``
    ``cranfield evaluate QRELS RUNS... -m AP nDCG@10 RR@10 R@1000 P@10 -f tsv`` with
    ``--jobs 1`` and ``--jobs 2`` (and ``--jobs 0`` if the machine has more than two cores),
    each a fresh process, as a user runs it: start-up, reading, scoring and output included.
``dask``
    In one Python process: ``Evaluator.many(runs)`` against ``Evaluator.many(runs,
    scheduler=client)`` on a ``LocalCluster`` of 2 single-threaded worker processes (polars
    on one thread each, ``POLARS_MAX_THREADS=1``) started once before timing (a cluster is
    started once and used for many evaluations).

Every timed output is checked: the ``--jobs`` tables are byte-identical to ``--jobs 1``
(notes aside, which say where the runs were scored), the Dask tables equal the one-process
table bit for bit. Timings are a report, never a pass/fail test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DATA = HERE / "data"
FIVE = ["AP", "nDCG@10", "RR@10", "R@1000", "P@10"]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def ensure_data(n_runs: int) -> tuple[Path, list[Path]]:
    """The trecdl qrels and ``n_runs`` runs of it (written once, then reused)."""
    base = DATA / "trecdl"
    if not (base / "run.txt").exists():
        log("generating the trecdl profile ...")
        subprocess.run([sys.executable, str(HERE / "generate.py"), "trecdl", str(base)], check=True)
    folder = DATA / "trecdl-runs"
    folder.mkdir(parents=True, exist_ok=True)
    runs = [folder / f"run{i:03d}.txt" for i in range(n_runs)]
    missing = [p for p in runs if not p.exists()]
    if missing:
        log(f"writing {len(missing)} runs of the trecdl profile ...")
        fields = [line.split() for line in (base / "run.txt").read_text().splitlines()]
        scores = np.array([float(f[4]) for f in fields])
        for path in missing:
            seed = int(path.stem.removeprefix("run"))
            noisy = scores + np.random.default_rng(seed).uniform(0.0, 3.0, scores.size)
            path.write_text(
                "".join(
                    f"{f[0]} Q0 {f[2]} {f[3]} {s:.3f} run{seed:03d}\n"
                    for f, s in zip(fields, noisy.tolist(), strict=True)
                )
            )
    return base / "qrels.txt", runs


def time_cli(qrels: Path, runs: list[Path], jobs: list[int], warmup: int, repeat: int) -> dict:
    argv = [str(REPO / ".venv" / "bin" / "cranfield"), "evaluate", str(qrels)]
    argv += [*map(str, runs), "-m", *FIVE, "-f", "tsv"]
    times: dict[int, list[float]] = {j: [] for j in jobs}
    outputs: dict[int, str] = {}
    for round_ in range(warmup + repeat):
        order = jobs[round_ % len(jobs) :] + jobs[: round_ % len(jobs)]
        for j in order:
            start = time.perf_counter()
            proc = subprocess.run(
                [*argv, "--jobs", str(j)], capture_output=True, text=True, check=True
            )
            wall = time.perf_counter() - start
            log(f"  round {round_ + 1}: --jobs {j}: {wall:.2f} s")
            outputs[j] = proc.stdout
            if round_ >= warmup:
                times[j].append(wall)
    for j in jobs:
        if outputs[j] != outputs[1]:
            raise SystemExit(f"--jobs {j} printed another table than --jobs 1")
    return {j: statistics.median(t) for j, t in times.items()}


def time_dask(qrels: Path, runs: list[Path], warmup: int, repeat: int) -> dict[str, float]:
    from distributed import Client, LocalCluster

    from cranfield import Evaluator

    times: dict[str, list[float]] = {"one process": [], "LocalCluster, 2 workers": []}
    tables = {}
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            host="127.0.0.1",  # this machine only (":0" alone listens on every interface)
            dashboard_address="127.0.0.1:0",
            env={"POLARS_MAX_THREADS": "1"},  # a core each, as --jobs gives its workers
        ) as cluster,
        Client(cluster) as client,
    ):
        for round_ in range(warmup + repeat):
            for label in list(times)[round_ % 2 :] + list(times)[: round_ % 2]:
                evaluator = Evaluator(qrels, FIVE)
                where = {} if label == "one process" else {"scheduler": client}
                start = time.perf_counter()
                tables[label] = evaluator.many(runs, **where)
                wall = time.perf_counter() - start
                log(f"  round {round_ + 1}: {label}: {wall:.2f} s")
                if round_ >= warmup:
                    times[label].append(wall)
    one, dask = tables.values()
    for m in one.measures:
        if not np.array_equal(one.matrix(m), dask.matrix(m)):
            raise SystemExit(f"the Dask table differs from the one-process table on {m}")
    return {label: statistics.median(t) for label, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--modes", default="cli,dask")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    qrels, runs = ensure_data(args.runs)
    cores = len(os.sched_getaffinity(0))
    lines = [f"{len(runs)} trecdl-profile runs (200k lines each), one qrels; {cores} cores"]
    modes = args.modes.split(",")
    if "cli" in modes:
        jobs = [1, 2] + ([0] if cores > 2 else [])
        medians = time_cli(qrels, runs, jobs, args.warmup, args.repeat)
        for j, t in medians.items():
            lines.append(f"cli --jobs {j}: median {t:.2f} s, speed-up {medians[1] / t:.2f}x")
    if "dask" in modes:
        medians = time_dask(qrels, runs, args.warmup, args.repeat)
        base = medians["one process"]
        for label, t in medians.items():
            lines.append(f"python, {label}: median {t:.2f} s, speed-up {base / t:.2f}x")
    joiner = "\n- " if args.markdown else "\n"
    print(("- " if args.markdown else "") + joiner.join(lines))


if __name__ == "__main__":
    main()
