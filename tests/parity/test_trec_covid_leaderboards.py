"""NIST's official TREC-COVID leaderboards, reproduced for every run kept in the shared data.

NIST scored each round with that round's qrels only and ``trec_eval -c``::

    trec_eval -c -m ndcg_cut.10 -m P.5 -m bpref -m map qrels.covid-roundN.txt <run>   # rounds 1-3
    trec_eval -c -m ndcg_cut.20 -m P.20 -m bpref -m map qrels.covid-roundN.txt <run>  # rounds 4-5

The leaderboards print 4 decimals, so that is the precision compared. The RBP and J@k columns
do not come from trec_eval and are left out. A leaderboard row names its run by the run tag
(column ``run`` in rounds 1 and 3, ``tag`` in rounds 2, 4 and 5), which is also the 6th column
of every line of the run file and the file name without ``.gz``.

NIST used trec_eval 9.x, which keeps scores as C ``float``: four runs here
(:data:`NEED_FLOAT32`) match the official numbers only with float32 scores, and that is
checked too, so the float32 cases stay real test cases.
"""

from __future__ import annotations

import csv
import functools
import gzip
import io
from pathlib import Path

import pytest

import cranfield
from cranfield.cli.trec_eval import main as trec_eval
from tests.conftest import REAL, require

# Parity with peer tools on real TREC data: slow, left out by scripts/check --fast.
pytestmark = pytest.mark.slow

COVID = require(REAL / "trec-covid")
RUNS = sorted((COVID / "runs").glob("round*/*.gz"))

# Runs whose official numbers need trec_eval 9.x's float32 scores (trec-covid/README.md).
NEED_FLOAT32 = frozenset({"BERT", "UIowaS_Run2", "udel_fang_ltr_nobert", "uw_crowd1"})


def round_of(run: Path) -> int:
    return int(run.parent.name.removeprefix("round"))


def official_measures(rnd: int) -> dict[str, str]:
    """``{trec_eval output label: leaderboard column}`` for one round."""
    k, p = (10, 5) if rnd <= 3 else (20, 20)
    cols = {
        1: ("ndcg@10", "p@5", "bpref", "MAP"),
        2: ("NDCG@10", "P@5", "bpref", "MAP"),
        3: ("ndcg@10", "P@5", "bpref", "map"),
        4: ("ndcg@20", "P@20", "bpref", "map"),
        5: ("ndcg@20", "P@20", "bpref", "map"),
    }[rnd]
    return dict(zip((f"ndcg_cut_{k}", f"P_{p}", "bpref", "map"), cols, strict=True))


def measure_names(rnd: int) -> list[str]:
    """trec_eval ``-m`` arguments, in the order of :func:`official_measures`."""
    k, p = (10, 5) if rnd <= 3 else (20, 20)
    return [f"ndcg_cut.{k}", f"P.{p}", "bpref", "map"]


def trec_eval_args(rnd: int) -> list[str]:
    return ["-c", *(arg for name in measure_names(rnd) for arg in ("-m", name))]


def qrels_of(rnd: int) -> Path:
    return COVID / "qrels" / f"qrels.covid-round{rnd}.txt"


@functools.cache
def run_tag(run: Path) -> str:
    with gzip.open(run, "rt") as fh:
        tags = {line.split()[5] for line in fh if line.strip()}
    assert len(tags) == 1, f"{run} mixes run tags {sorted(tags)}"
    return tags.pop()


@functools.cache
def leaderboard(rnd: int) -> dict[str, dict[str, str]]:
    """``{run tag: row}`` of NIST's leaderboard for one round."""
    path = COVID / "leaderboards" / f"round{rnd}-leaderboard.csv"
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    name_column = "run" if "run" in rows[0] else "tag"
    board = {row[name_column]: row for row in rows}
    assert len(board) == len(rows), f"{path} names a run twice"
    return board


def official(run: Path) -> dict[str, str]:
    """``{trec_eval label: official value as printed}`` for one run."""
    rnd = round_of(run)
    row = leaderboard(rnd)[run_tag(run)]
    return {label: row[col] for label, col in official_measures(rnd).items()}


def cli_values(run: Path, *, compat: str) -> dict[str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = trec_eval(
        [
            "--compat",
            compat,
            *trec_eval_args(round_of(run)),
            str(qrels_of(round_of(run))),
            str(run),
        ],
        out,
        err,
    )
    assert code == 0, err.getvalue()
    values: dict[str, str] = {}
    for line in out.getvalue().splitlines():
        label, qid, value = line.split("\t")
        assert qid == "all"
        values[label.strip()] = value
    return values


def api_values(run: Path, *, float32: bool) -> dict[str, str]:
    """The API's means, printed as the leaderboard prints them."""
    rnd = round_of(run)
    names = measure_names(rnd)
    res = cranfield.evaluate(
        qrels_of(rnd), run, names, float32=float32, compat=9 if float32 else 10, missing="zero"
    )
    assert len(res.topics) == 25 + 5 * rnd  # every judged topic of the round counts (-c)
    return {
        label: f"{res[name]:.4f}" for label, name in zip(official_measures(rnd), names, strict=True)
    }


def test_every_run_is_on_its_leaderboard() -> None:
    assert len(RUNS) == 24
    for run in RUNS:
        assert run_tag(run) == run.name.removesuffix(".gz")
        assert run_tag(run) in leaderboard(round_of(run)), run


@pytest.mark.parametrize("run", RUNS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_cli_compat9_reproduces_leaderboard(run: Path) -> None:
    """``cranfield trec-eval --compat 9`` prints NIST's numbers for every run."""
    assert cli_values(run, compat="9") == official(run)


@pytest.mark.parametrize("run", RUNS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_api_float32_reproduces_leaderboard(run: Path) -> None:
    """``evaluate(float32=True, missing="zero")`` (trec_eval ``-c``) gives NIST's numbers."""
    assert api_values(run, float32=True) == official(run)


@pytest.mark.parametrize("run", RUNS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_float64_scores_match_except_the_known_float32_runs(run: Path) -> None:
    """trec_eval 10 semantics (float64 scores) reproduce NIST except exactly :data:`NEED_FLOAT32`."""
    matches = cli_values(run, compat="10") == official(run)
    assert matches == (run_tag(run) not in NEED_FLOAT32)
    assert (api_values(run, float32=False) == official(run)) == (run_tag(run) not in NEED_FLOAT32)
