"""Real-data comparisons shared by the stats, report and CLI tests (evaluated once per session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cranfield.stats import Comparison, compare
from tests.conftest import REAL, require

ROBUST03 = REAL / "robust03"
DL = REAL / "trec-dl-passage"


def robust03_runs() -> list[Path]:
    runs = sorted(require(ROBUST03 / "runs").glob("input.*.gz"))
    assert len(runs) == 17, runs
    return runs


def dl19_runs() -> list[Path]:
    runs = sorted(require(DL / "runs" / "dl19").glob("*.txt.gz"))
    assert len(runs) == 12, runs
    return runs


@pytest.fixture(scope="session")
def robust03() -> Comparison:
    """All 17 official TREC 2003 Robust runs: MAP and nDCG@10, t-test and randomization, Holm."""
    return compare(
        require(ROBUST03 / "qrels.robust03.txt.gz"),
        robust03_runs(),
        ["map", "ndcg_cut_10"],
        tests=["t-test", "randomization"],
        correction="holm",
        seed=42,
        names="tag",  # the runs' tags: InexpC2, pircRBa1 ... (files: input.InexpC2.gz ...)
    )


@pytest.fixture(scope="session")
def dl19() -> Comparison:
    """The 12 TREC DL 2019 passage systems against BM25, at the NIST passage threshold (-l 2)."""
    return compare(
        require(DL / "qrels" / "qrels.dl19-passage.txt"),
        dl19_runs(),
        ["AP", "nDCG@10"],
        baseline="bm25",
        tests=["randomization", "t-test", "wilcoxon"],
        correction="bh",
        intervals=["t", "bca"],
        relevance_level=2,
        seed=7,
    )
