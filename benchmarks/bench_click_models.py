"""Time to fit each click model on a large synthetic click log (issue 20; on demand, not in CI).

    .venv/bin/python benchmarks/bench_click_models.py                       # 10^6 sessions
    .venv/bin/python benchmarks/bench_click_models.py --sessions 100000 --repeat 5
    .venv/bin/python benchmarks/bench_click_models.py --rankings 0          # every ranking new

The log: ``--queries`` queries (popularity Zipf-like, exponent 1), each with 30 candidate
documents of which 10 are shown, in one of ``--rankings`` fixed rankings per query (the ranker
changing over time, as in a real log; ``0``: every session a fresh random ranking, the worst
case for the EM fits, which work per distinct ranking). Clicks are simulated from a PBM
(examination 1/r^0.7) for the CTR, PBM, UBM, cascade and DCM fits and from a DBN (γ = 0.8) for
the DBN and SDBN fits, attractiveness and satisfaction uniform in [0.05, 0.9].

Each model is fitted ``--repeat`` times (defaults: at most 100 EM iterations, tolerance 1e-6);
the medians are reported with the EM iterations run, from arrays in memory (no file reading).
The machine may be shared with other work: take the medians as indications.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np

from cranfield.logs.click_models import (
    DBN,
    DCM,
    PBM,
    SDBN,
    UBM,
    Cascade,
    DocumentCTR,
    GlobalCTR,
    PairTable,
    RankCTR,
)

CANDIDATES, DEPTH = 30, 10


def synthetic_log(
    sessions: int, queries: int, rankings: int, seed: int
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Query codes, shown documents, and clicks simulated from a PBM and from a DBN."""
    rng = np.random.default_rng(seed)
    popularity = 1.0 / np.arange(1, queries + 1)
    query = rng.choice(queries, size=sessions, p=popularity / popularity.sum())
    if rankings:
        pool = np.argsort(rng.random((queries, rankings, CANDIDATES)), axis=2)[:, :, :DEPTH]
        shown = pool[query, rng.integers(0, rankings, sessions)]
    else:
        shown = np.argsort(rng.random((sessions, CANDIDATES)), axis=1)[:, :DEPTH]
    alpha = PairTable.from_matrix(rng.uniform(0.05, 0.9, (queries, CANDIDATES)), prior=0.5)
    sigma = PairTable.from_matrix(rng.uniform(0.05, 0.9, (queries, CANDIDATES)), prior=0.5)
    gamma = 1.0 / np.arange(1, DEPTH + 1) ** 0.7
    clicks = {
        "PBM": PBM(alpha, gamma).simulate(query, shown, seed=seed + 1),
        "DBN": DBN(alpha, sigma, 0.8).simulate(query, shown, seed=seed + 2),
    }
    return query.astype(np.int64), shown.astype(np.int64), clicks


MODELS = [
    ("GlobalCTR", GlobalCTR, "PBM"),
    ("RankCTR", RankCTR, "PBM"),
    ("DocumentCTR", DocumentCTR, "PBM"),
    ("PBM", PBM, "PBM"),
    ("UBM", UBM, "PBM"),
    ("Cascade", Cascade, "PBM"),
    ("DCM", DCM, "PBM"),
    ("DBN", DBN, "DBN"),
    ("SDBN", SDBN, "DBN"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--rankings", type=int, default=10, help="per query; 0: all new")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", default=",".join(name for name, _, _ in MODELS))
    args = parser.parse_args()
    print(f"# {platform.platform()}, Python {platform.python_version()}, numpy {np.__version__}")
    start = time.perf_counter()
    query, shown, clicks = synthetic_log(args.sessions, args.queries, args.rankings, args.seed)
    distinct = np.unique(np.column_stack([query, shown]), axis=0).shape[0]
    print(
        f"# {args.sessions:,} sessions x {DEPTH} ranks, {args.queries:,} queries, "
        f"{distinct:,} distinct rankings; generated in {time.perf_counter() - start:.1f} s"
    )
    print("| model | clicks from | median fit (s) | min (s) | EM iterations | runs |")
    print("|---|---|---:|---:|---:|---:|")
    wanted = set(args.models.split(","))
    for name, cls, source in MODELS:
        if name not in wanted:
            continue
        times = []
        iterations = "closed form"
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            model = cls.fit(query, shown, clicks[source])  # type: ignore[attr-defined]
            times.append(time.perf_counter() - t0)
            if hasattr(model, "iterations"):
                iterations = str(model.iterations)
        print(
            f"| {name} | {source} | {statistics.median(times):.2f} | {min(times):.2f} "
            f"| {iterations} | {args.repeat} |"
        )


if __name__ == "__main__":
    main()
