"""Evaluating again with a result store: how much a warm ``--store`` saves (issue 19).

Usage::

    .venv/bin/python benchmarks/store.py [--repeat 5]

The 17 official TREC 2003 Robust runs of ``../shared/data/real/robust03`` (gzip TREC files)
against their qrels, five measures, ``cranfield evaluate ... -f tsv`` in fresh processes:
without a store, with a warm store (every entry present: the runs and the qrels are hashed,
nothing is read as text or scored), and with a store that lacks one run (16 read back, 1
computed, as after adding a run). Alternated round-robin, medians of ``--repeat`` rounds
after one warm-up round, ratios against the run without a store; the three tables are
checked byte-identical. A report, never a pass/fail test.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
ROBUST = REPO.parent / "shared" / "data" / "real" / "robust03"
FIVE = ["AP", "nDCG@10", "RR@10", "R@1000", "P@10"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    runs = sorted((ROBUST / "runs").glob("input.*.gz"))
    base = [str(REPO / ".venv" / "bin" / "cranfield"), "evaluate"]
    base += [str(ROBUST / "qrels.robust03.txt.gz"), *map(str, runs), "-m", *FIVE, "-f", "tsv"]
    with tempfile.TemporaryDirectory() as tmp:
        warm, partial = Path(tmp) / "warm", Path(tmp) / "partial"
        subprocess.run([*base, "--store", str(warm)], capture_output=True, check=True)
        subprocess.run(
            [*base[:3], *map(str, runs[:-1]), *base[3 + len(runs) :], "--store", str(partial)],
            capture_output=True,
            check=True,
        )
        modes = {
            "no store": [],
            "warm store (17 of 17 read back)": ["--store", str(warm)],
            "store missing 1 run (16 read back)": ["--store", str(Path(tmp) / "p")],
        }
        times: dict[str, list[float]] = {m: [] for m in modes}
        outputs: dict[str, str] = {}
        names = list(modes)
        for round_ in range(1 + args.repeat):
            for mode in names[round_ % 3 :] + names[: round_ % 3]:
                if mode.startswith("store missing"):  # fresh copy: the missing run stays missing
                    shutil.rmtree(Path(tmp) / "p", ignore_errors=True)
                    shutil.copytree(partial, Path(tmp) / "p")
                start = time.perf_counter()
                done = subprocess.run(
                    [*base, *modes[mode]], capture_output=True, text=True, check=True
                )
                wall = time.perf_counter() - start
                outputs[mode] = done.stdout
                if round_:
                    times[mode].append(wall)
        if len(set(outputs.values())) != 1:
            raise SystemExit("the tables differ between the modes")
    first = statistics.median(times["no store"])
    for mode, t in times.items():
        median = statistics.median(t)
        print(f"{mode}: median {median:.2f} s, {first / median:.1f}x faster than no store")


if __name__ == "__main__":
    main()
