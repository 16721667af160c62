"""Issue 29's speed targets, in fresh processes: one or more source trees against the peers.

Usage::

    .venv/bin/python benchmarks/startup.py trecdl  --rounds 15 SRC [SRC ...]
    .venv/bin/python benchmarks/startup.py msmarco --rounds 7  SRC [SRC ...]

``SRC`` is a ``src`` folder of a cranfield checkout (``src`` of this one, and of a ``git
worktree add --detach ../before main`` for a before/after); each is put first on
``PYTHONPATH`` of the current interpreter. Byte-compile every tree first
(``python -m compileall -q SRC/cranfield``): with ``PYTHONDONTWRITEBYTECODE`` set, an
uncompiled tree is recompiled by every process (about 0.15 s), which an installed wheel never
is. The data are ``benchmarks/generate.py``'s (``--data``, by default
``benchmarks/data/PROFILE``).

* ``trecdl``: trec_eval's binary (``--trec-eval``, by default the one on ``PATH``; built as
  BENCHMARKS.md says) with five measures, against ``cranfield trec-eval`` with the same
  flags (its output must be trec_eval's, byte for byte) and ``cranfield evaluate`` with the
  same five measures (a table, written to a pipe).
* ``msmarco``: ``polars.read_csv`` of the run file against ``cranfield evaluate``.

Every command is a fresh process (``python -m cranfield.cli.main``), run round-robin after
one warm-up round; printed: the median and smallest wall time, the median CPU time (user +
system, all threads) and the ratios of the medians to the peer. On a shared machine read
the CPU ratios and the ratios of one session, not the absolute times. A report, never a
pass/fail test.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIVE = ["AP", "nDCG@10", "RR@10", "R@1000", "P@10"]
TREC_FIVE = ["map", "ndcg_cut.10", "recip_rank", "recall.1000", "P.10"]


def _commands(
    profile: str, data: Path, sources: list[str], trec_eval: str | None
) -> dict[str, tuple[list[str], str | None]]:
    qrels, run = str(data / "qrels.txt"), str(data / "run.txt")
    cli = [sys.executable, "-m", "cranfield.cli.main"]
    evaluate = [*cli, "evaluate", qrels, run, *(f for m in FIVE for f in ("-m", m))]
    trec_flags = [f for m in TREC_FIVE for f in ("-m", m)]
    commands: dict[str, tuple[list[str], str | None]] = {}
    if profile == "trecdl":
        if trec_eval is None:
            raise SystemExit("startup.py: no trec_eval binary (--trec-eval, or put it on PATH)")
        commands["trec_eval"] = ([trec_eval, *trec_flags, qrels, run], None)
    else:
        read = f"import polars as pl; pl.read_csv({run!r}, separator=' ', has_header=False)"
        commands["polars"] = ([sys.executable, "-c", read], None)
    for k, src in enumerate(sources):
        commands[f"evaluate[{k}]"] = (evaluate, src)
        if profile == "trecdl":
            commands[f"trec-eval[{k}]"] = ([*cli, "trec-eval", *trec_flags, qrels, run], src)
    return commands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("profile", choices=("trecdl", "msmarco"))
    parser.add_argument("sources", nargs="+", metavar="SRC")
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--trec-eval", default=shutil.which("trec_eval"))
    args = parser.parse_args()
    data = args.data or HERE / "data" / args.profile
    commands = _commands(args.profile, data, args.sources, args.trec_eval)
    wall: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    outputs: dict[str, bytes] = {}
    for round_ in range(args.rounds + 1):  # round 0 warms the caches up
        for name, (argv, src) in commands.items():
            env = dict(os.environ)
            if src is not None:
                env["PYTHONPATH"] = src
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(argv, env=env, capture_output=True, check=True)
            elapsed = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if outputs.setdefault(name, done.stdout) != done.stdout:
                raise SystemExit(f"startup.py: {name} printed something else in round {round_}")
            if round_:
                wall[name].append(elapsed)
                used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                cpu[name].append(used)
    peer = next(iter(commands))
    peer_wall, peer_cpu = statistics.median(wall[peer]), statistics.median(cpu[peer])
    print(f"{args.profile}, {args.rounds} rounds; ratios to {peer}")
    for name in commands:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        print(
            f"{name:14s} wall {w:.3f} s (min {min(wall[name]):.3f})  cpu {c:.3f} s  "
            f"ratio wall {w / peer_wall:.2f}  cpu {c / peer_cpu:.2f}"
        )
    if args.profile == "trecdl":
        same = all(outputs[n] == outputs["trec_eval"] for n in outputs if n.startswith("trec-"))
        print("cranfield trec-eval printed trec_eval's bytes:", same)
    tables = {outputs[n] for n in outputs if n.startswith("evaluate")}
    print("every tree printed the same evaluate table:", len(tables) == 1)


if __name__ == "__main__":
    main()
