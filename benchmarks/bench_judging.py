"""Time to replay every adjudication strategy over Robust03's 17 runs (issue 31; on demand).

    .venv/bin/python benchmarks/bench_judging.py                        # budget 2000, depth 100
    .venv/bin/python benchmarks/bench_judging.py --pool-depth 1000 --repeat 3

Each repeat is a fresh process per strategy, the strategies in a rotated order every repeat
(so that no strategy always runs on a warm or a cold machine): it loads the 17 runs and the
qrels, builds the pools once (timed apart: ``pools``), then asks the strategy for documents
topic by topic through ``Strategy.propose`` with the qrels answering, until each topic's
budget is spent or its pool exhausted (``replay``: what ``cranfield pool simulate
--checkpoints 0`` does). The medians over the repeats are printed with the judgments made and
the relevant documents found, and the CPU time of the replay (``time.process_time``: on a
shared machine the wall time also counts the waits for a core). No other Python tool
implements these strategies (Losada et al.'s are R code), so the ratio is to the depth-k order
measured in the same processes. The machine may be shared with other work: take the medians
as indications.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROBUST03 = Path(__file__).resolve().parents[2] / "shared" / "data" / "real" / "robust03"

CHILD = """
import json, sys, time
from pathlib import Path
from cranfield.io.load import load_qrels, load_run
from cranfield.judging.pools import run_lists
from cranfield.judging.strategies import strategy
name, depth, budget, root = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
runs = {p.name: load_run(p) for p in sorted((root / "runs").glob("input.*.gz"))}
truth = load_qrels(root / "qrels.robust03.txt.gz").to_dict()
t0 = time.perf_counter()
lists = run_lists(runs, pool_depth=depth)
t1 = time.perf_counter()
c1 = time.process_time()
policy = strategy(name, lists, budget=budget)
judgments = found = 0
for qid in lists.topics:
    grades = truth.get(qid, {})
    judged = {}
    while (doc := policy.propose(qid, judged)) is not None:
        g = max(grades.get(doc, 0), 0)
        judged[doc] = g
        found += g > 0
    judgments += len(judged)
t2 = time.perf_counter()
c2 = time.process_time()
times = {"pools": t1 - t0, "replay": t2 - t1, "cpu": c2 - c1}
print(json.dumps({**times, "judgments": judgments, "found": found}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--pool-depth", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=ROBUST03)
    args = parser.parse_args()
    from cranfield.judging.strategies import STRATEGIES

    times: dict[str, list[dict[str, float]]] = {s: [] for s in STRATEGIES}
    for r in range(args.repeat):
        order = STRATEGIES[r % len(STRATEGIES) :] + STRATEGIES[: r % len(STRATEGIES)]
        for name in order:
            done = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    CHILD,
                    name,
                    str(args.pool_depth),
                    str(args.budget),
                    str(args.data),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            times[name].append(json.loads(done.stdout))
    print(
        f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}"
    )
    print(
        f"Robust03, 17 runs, 100 topics, pool depth {args.pool_depth}, budget {args.budget} per "
        f"topic, {args.repeat} fresh processes per strategy (medians)\n"
    )
    base = statistics.median(t["replay"] for t in times["depth"])
    print(
        "| strategy | replay (s) | CPU (s) | µs CPU per judgment | × depth-k | pools (s) "
        "| judgments | relevant found |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    total = cpu_total = 0.0
    for name in STRATEGIES:
        replay = statistics.median(t["replay"] for t in times[name])
        cpu = statistics.median(t["cpu"] for t in times[name])
        pools = statistics.median(t["pools"] for t in times[name])
        total += replay
        cpu_total += cpu
        last = times[name][-1]
        per = cpu / max(last["judgments"], 1) * 1e6
        print(
            f"| {name} | {replay:.2f} | {cpu:.2f} | {per:.0f} | {replay / base:.1f} | "
            f"{pools:.2f} | {int(last['judgments']):,} | {int(last['found']):,} |"
        )
    print(f"\nevery strategy, replays summed: {total:.1f} s wall, {cpu_total:.1f} s CPU")


if __name__ == "__main__":
    main()
