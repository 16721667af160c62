"""cranfield's URisk is the TREC Web track's: ndeval's and gdeval.pl's risk-sensitive means.

Both programs print, for a run relative to a baseline with ``-riskAlpha α``, the mean over
queries of ``Δ`` where the run gains and ``(1 + α) Δ`` where it loses (``Δ`` = run - baseline):
cranfield's URisk (:func:`cranfield.stats.effect_sizes`, ``compare``'s ``urisk`` with
``risk_aversion=α``, run as treatment and baseline as control). The conventions, as the
programs apply them (``risk_web/README.md`` has the commands):

* a query the baseline lacks counts with the baseline at 0 (ndeval's ``ZeroBase``; gdeval
  warns of an undefined value and uses 0); cranfield's default ``missing="zero"`` does the
  same for every judged query either run lacks;
* α defaults to 0 in both programs (URisk is then the mean difference), to 1 in cranfield
  (``risk_aversion``);
* ndeval orders runs by their rank column (``evaluate --rank-order rank``), gdeval by score
  then doc id descending (cranfield's default);
* neither prints TRisk; the track's reports computed it apart.

On test.wt13 against a baseline made from it (its top 10 reversed, two queries left out),
α = 1, every one of ndeval's 18 columns cranfield computes and gdeval's nDCG@20 and ERR@20
agree at the programs' printed precision (6 and 5 decimals).
"""

from __future__ import annotations

import csv
import gzip
from collections import defaultdict
from pathlib import Path

import pytest

from cranfield.io.intents import read_intents
from cranfield.io.rank_order import read_run_in_rank_order
from cranfield.stats import compare
from tests.conftest import REAL, require
from tests.parity.test_ndeval_rank_order import COLUMNS

# Parity with peer tools' output on real TREC data: slow, left out by scripts/check --fast.
pytestmark = pytest.mark.slow

HERE = Path(__file__).parent / "risk_web"
WEB = REAL / "trec-web-2009-2014"
RUN = WEB / "runs" / "test.wt13.run.gz"


def baseline_run(path: Path) -> Path:
    """The baseline of ``risk_web/README.md``: test.wt13 in rank order, each query's top 10
    reversed, queries 201 and 202 left out."""
    rows: dict[str, list[tuple[int, str]]] = defaultdict(list)
    with gzip.open(require(RUN), "rt", encoding="ascii") as f:
        for line in f:
            topic, _, doc, rank, _, _ = line.split()
            rows[topic].append((int(rank), doc))
    with open(path, "w", encoding="ascii") as out:
        for topic, ranked in rows.items():
            if topic in ("201", "202"):
                continue
            docs = [d for _, d in sorted(ranked)]
            docs = docs[:10][::-1] + docs[10:]
            for i, doc in enumerate(docs):
                out.write(f"{topic} Q0 {doc} {i + 1} {len(docs) - i} base\n")
    return path


def _program(name: str) -> dict[str, list[str]]:
    with open(HERE / name, encoding="ascii") as f:
        rows = list(csv.reader(f))
    return {row[1]: row for row in rows}


def test_urisk_is_ndevals(tmp_path: Path) -> None:
    expected = _program("ndeval.wt13.csv")
    header = expected["topic"]
    intents = read_intents(require(WEB / "diversity" / "2013.qrels.ndeval.txt.gz"))
    runs = {
        "run": read_run_in_rank_order(RUN),
        "base": read_run_in_rank_order(baseline_run(tmp_path / "base13.run")),
    }
    c = compare(
        intents.to_qrels(), runs, COLUMNS, baseline="base", intents=intents, risk_aversion=1.0
    )
    for column in COLUMNS:
        pair = c.pair("base", "run", column)
        assert (pair.control, pair.treatment) == ("base", "run")
        assert f"{pair.urisk:.6f}" == expected["amean"][header.index(column)], column


def test_urisk_is_gdevals(tmp_path: Path) -> None:
    expected = _program("gdeval.wt13.csv")["amean"]
    qrels = require(WEB / "diversity" / "2013.qrels.adhoc.txt.gz")
    runs = {"run": str(require(RUN)), "base": str(baseline_run(tmp_path / "base13.run"))}
    measures = ["nDCGx(exp=True)@20", "ERR@20"]
    c = compare(qrels, runs, measures, baseline="base", risk_aversion=1.0)
    for i, measure in enumerate(measures):
        assert f"{c.pair('base', 'run', measure).urisk:.5f}" == expected[2 + i], measure
