"""Same seed, same bytes: across calls, processes and thread counts."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from cranfield.stats import compare_scores
from cranfield.stats.resampling import fixed_order_sums
from tests.unit.conftest import DL, dl19_runs

THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "POLARS_MAX_THREADS",
)
SCRIPT = "import sys; from cranfield.cli.compare import main; sys.exit(main(sys.argv[1:]))"


def _cli_json(threads: int) -> bytes:
    env = {**os.environ, **dict.fromkeys(THREAD_VARIABLES, str(threads))}
    argv = [
        str(DL / "qrels" / "qrels.dl19-passage.txt"),
        *map(str, dl19_runs()[:5]),
        "-l", "2", "-m", "AP", "nDCG@10", "P@10",
        "-t", "randomization", "bootstrap", "randomized-tukey-hsd", "t-test",
        "--ci", "t", "percentile", "bca", "-B", "3000", "-s", "20260101",
        "-f", "json", "--per-query",
    ]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *argv], env=env, capture_output=True, check=True
    )
    return done.stdout


@pytest.mark.slow
def test_identical_json_with_one_or_two_threads_in_separate_processes() -> None:
    one = _cli_json(1)
    two = _cli_json(2)
    assert b'"seed": 20260101' in one
    assert one == two


def test_identical_output_for_repeated_calls_and_generators() -> None:
    rng = np.random.default_rng(0)
    scores = {
        f"r{i}": {"AP": rng.random(60), "P@10": rng.integers(0, 11, 60) / 10} for i in range(5)
    }
    options = {
        "tests": ["randomization", "bootstrap", "randomized-tukey-hsd"],
        "intervals": ["t", "percentile", "bca"],
        "n_resamples": 2_000,
    }
    first = compare_scores(scores, seed=5, **options)  # type: ignore[arg-type]
    assert compare_scores(scores, seed=5, **options).to_json() == first.to_json()  # type: ignore[arg-type]
    from_gen = compare_scores(scores, seed=np.random.default_rng(1), **options)  # type: ignore[arg-type]
    assert from_gen.seed is not None
    assert compare_scores(scores, seed=from_gen.seed, **options).to_json() == from_gen.to_json()  # type: ignore[arg-type]


def test_fixed_order_sums_are_sequential_sums() -> None:
    # The resampled statistics are plain left-to-right sums: no BLAS, no pairwise kernels.
    rng = np.random.default_rng(2)
    W = rng.integers(-1, 3, (7, 300)).astype(np.float64)
    X = rng.random((300, 4))
    got = fixed_order_sums(W, X)
    for b in range(7):
        for j in range(4):
            acc = 0.0
            for i in range(300):
                acc += W[b, i] * X[i, j]
            assert got[b, j] == acc
