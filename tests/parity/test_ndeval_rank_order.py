"""ndeval's default order, the rank column, reproduced as NIST's ndeval prints it.

The four TREC Web track runs (wt11-wt14) with each year's diversity judgments: cranfield's
intent-aware measures, with each run read in rank order (:func:`cranfield.io.rank_order.
read_run_in_rank_order`, ``cranfield evaluate --rank-order rank``), equal ndeval's own output
(``ndeval_rank_order/``, made by NIST's ndeval.c; the command is in its README) at the
precision ndeval prints, six decimals, for every topic and the mean, on the 18 columns
cranfield computes (every column but alpha-DCG@k, the unnormalised α-DCG). In score order
(trec_eval's, cranfield's default) every one of the four runs differs from it somewhere (ties
in score that the rank column orders otherwise than by doc id).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import cranfield
from cranfield.cli.main import main
from cranfield.io.intents import read_intents
from cranfield.io.rank_order import read_run_in_rank_order
from tests.conftest import REAL, require

# Parity with a peer tool's output on real TREC data: slow, left out by scripts/check --fast.
pytestmark = pytest.mark.slow

HERE = Path(__file__).parent / "ndeval_rank_order"
WEB = REAL / "trec-web-2009-2014"
YEARS = {
    "valid.wt11": "2011.qrels-for-ndeval.txt.gz",
    "test.wt12": "2012.qrels-for-ndeval.txt.gz",
    "test.wt13": "2013.qrels.ndeval.txt.gz",
    "test.wt14": "2014.qrels.ndeval.txt.gz",
}
COLUMNS = [
    *(f"{m}@{k}" for m in ("ERR-IA", "nERR-IA", "alpha-nDCG") for k in (5, 10, 20)),
    "NRBP",
    "nNRBP",
    "MAP-IA",
    *(f"{m}@{k}" for m in ("P-IA", "strec") for k in (5, 10, 20)),
]


def ndeval(run: str) -> dict[str, dict[str, str]]:
    """``{topic or 'amean': {column: value as printed}}`` of ndeval's output for ``run``."""
    with open(HERE / f"{run}.csv", encoding="ascii") as f:
        return {row["topic"]: row for row in csv.DictReader(f)}


def _printed(value: float) -> str:
    return f"{value:.6f}"


@pytest.mark.parametrize("run", list(YEARS))
def test_rank_order_is_ndevals_default(run: str) -> None:
    intents = read_intents(require(WEB / "diversity" / YEARS[run]))
    path = require(WEB / "runs" / f"{run}.run.gz")
    expected = ndeval(run)
    ranked = read_run_in_rank_order(path)
    res = cranfield.evaluate(intents.to_qrels(), ranked, COLUMNS, intents=intents, missing="skip")
    assert set(res.per_query(COLUMNS[0])) == set(expected) - {"amean"}
    for column in COLUMNS:
        for topic, value in res.per_query(column).items():
            assert _printed(value) == expected[topic][column], (run, topic, column)
        assert _printed(res[column]) == expected["amean"][column], (run, column)
    qrels = intents.to_qrels()
    by_score = cranfield.evaluate(qrels, path, COLUMNS, intents=intents, missing="skip")
    differ = [
        (c, t)
        for c in COLUMNS
        for t, v in by_score.per_query(c).items()
        if _printed(v) != expected[t][c]
    ]
    assert differ  # the order matters on every one of the four runs


def test_the_command_line_orders_by_rank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``cranfield evaluate --rank-order rank`` gives ndeval's mean; the default (score)
    gives the mean in trec_eval's order; the note says which order was used."""
    qrels = require(WEB / "diversity" / "2013.qrels.adhoc.txt.gz")
    intents = require(WEB / "diversity" / YEARS["test.wt13"])
    run = str(require(WEB / "runs" / "test.wt13.run.gz"))
    argv = ["evaluate", str(qrels), run, "--intents", str(intents), "-m", "alpha-nDCG@10"]
    assert main([*argv, "--missing", "skip", "--rank-order", "rank", "-f", "json"]) == 0
    out = capsys.readouterr()
    (row,) = json.loads(out.out)["results"]
    assert _printed(next(v for k, v in row.items() if "nDCG" in k)) == "0.449170"
    assert "rank column" in out.err
    assert main([*argv, "--missing", "skip", "-f", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["results"]
    assert _printed(next(v for k, v in row.items() if "nDCG" in k)) == "0.448756"
