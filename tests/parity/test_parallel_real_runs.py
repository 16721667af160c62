"""The official TREC runs scored by worker processes and on a Dask cluster print what the
serial command prints, byte for byte: the 26 TREC DL passage runs (one command a year, against
that year's qrels) and the 17 TREC 2003 Robust runs, through ``cranfield evaluate`` and
``cranfield trec-eval`` with several runs."""

from __future__ import annotations

from typing import Any

import pytest

from cranfield.cli.main import main
from tests.conftest import REAL, require

# Parity with peer tools on real TREC data: slow, left out by scripts/check --fast.
pytestmark = pytest.mark.slow

DL = require(REAL / "trec-dl-passage")
ROBUST = require(REAL / "robust03")
SETS = {
    **{
        year: (DL / "qrels" / f"qrels.{year}-passage.txt", sorted((DL / "runs" / year).glob("*")))
        for year in ("dl19", "dl20", "dl21")
    },
    "robust03": (ROBUST / "qrels.robust03.txt.gz", sorted((ROBUST / "runs").glob("input.*"))),
}
WHERE = ["--jobs 2", "--scheduler"]


@pytest.fixture
def cranfield(capsys: pytest.CaptureFixture[str]) -> Any:
    def run(*argv: str) -> tuple[int, str, str]:
        code = main([*argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def test_the_run_sets_are_the_official_ones() -> None:
    assert [len(runs) for _, runs in SETS.values()] == [12, 12, 2, 17]


def _where(where: str, cluster: Any) -> list[str]:
    return ["--jobs", "2"] if where == "--jobs 2" else ["--scheduler", cluster.scheduler_address]


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("name", list(SETS))
def test_evaluate_prints_the_serial_output_byte_for_byte(
    name: str, where: str, dask_cluster: Any, cranfield: Any
) -> None:
    qrels, runs = SETS[name]
    argv = ["evaluate", str(qrels), *map(str, runs), "-q", "-f", "tsv", "--quiet"]
    argv += ["-m", "AP", "nDCG@10", "P@10", "RR", "R@1000", "bpref", "Rprec"]
    serial = cranfield(*argv)
    parallel = cranfield(*argv, *_where(where, dask_cluster))
    assert serial[0] == 0, serial[2]
    assert parallel[:2] == serial[:2]
    assert len(serial[1].splitlines()) > 40 * len(runs)  # per query: every run, every query
    scored = "worker processes" if where == "--jobs 2" else "Dask workers"
    assert f"Scored by 2 {scored}" in parallel[2]


@pytest.mark.parametrize("where", ["serial", *WHERE])
def test_trec_eval_prints_each_runs_output_in_turn(
    where: str, dask_cluster: Any, cranfield: Any
) -> None:
    qrels, runs = SETS["dl19"]
    options = ["-q", "-m", "official", "-m", "ndcg_cut.10"]
    alone = [cranfield("trec-eval", *options, str(qrels), str(run)) for run in runs]
    assert {code for code, _, _ in alone} == {0}
    more = [] if where == "serial" else _where(where, dask_cluster)
    together = cranfield("trec-eval", *options, *more, str(qrels), *map(str, runs))
    assert together == (0, "".join(out for _, out, _ in alone), "".join(e for _, _, e in alone))
