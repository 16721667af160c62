"""Where a peer implements the same variant, cranfield agrees with it on real TREC data.

* ir_measures' gdeval.pl provider: nDCG with exponential gain (``nDCG(dcg='exp-log2')``)
  and ERR@k (gdeval prints 5 decimals, hence the 5e-6 tolerance);
* ir_measures' pyndeval provider (ndeval): α-nDCG@k on the TREC 2013 Web track diversity
  qrels, exactly;
* ranx: ``ndcg_burges`` (exponential gain) and ``ndcg`` (linear gain; ranx calls it
  "Järvelin", although Järvelin & Kekäläinen's discount is ``jk=True``), exactly;
* scikit-learn's ``ndcg_score``: with the retrieved labels only it is ``retrieved_ideal=True``,
  with every judged label it is the default (trec_eval) nDCG;
* trec_eval: its own output for a custom gain table (its test fixture) and trec_eval 9's
  nDCG on DL-HARD, reproduced through the variant kernel; ``exp=True`` is the gain map
  ``1=1,2=3,3=7`` bit for bit. (pytrec_eval aborts the interpreter on a gain-table measure
  name, so it is not used.)

Peers sort tied scores differently, so each run is first made tie-free in cranfield's
order (score descending, docno descending), and both sides see the same ranking.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import cranfield
from cranfield.data.ranking import ranked_doc_ids
from cranfield.io.intents import read_intents
from tests.conftest import CONFORMANCE, REAL, require

# Parity with peer tools on real TREC data: slow, left out by scripts/check --fast.
pytestmark = pytest.mark.slow

DL19 = REAL / "trec-dl-passage"


def tie_free(run: cranfield.Run, topics: list[str]) -> dict[str, dict[str, float]]:
    wanted = set(topics)
    order = ranked_doc_ids(run)
    return {
        q: {d: float(len(ds) - i) for i, d in enumerate(ds)}
        for q, ds in order.items()
        if q in wanted
    }


@pytest.fixture(scope="module")
def dl19() -> tuple[cranfield.Qrels, dict[str, dict[str, float]]]:
    qrels = cranfield.load_qrels(require(DL19 / "qrels" / "qrels.dl19-passage.txt"))
    run = cranfield.load_run(require(DL19 / "runs" / "dl19" / "bm25.txt.gz"))
    return qrels, tie_free(run, qrels.topics)


def _max_diff(ours: dict[str, float], theirs: dict[str, float], *, topics: int = 20) -> float:
    assert set(theirs) <= set(ours)
    assert len(theirs) >= topics
    return max(abs(ours[q] - v) for q, v in theirs.items())


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [("nDCGx(exp=True)@20", "nDCG(dcg='exp-log2')@20"), ("ERR@20", "ERR@20"), ("ERR@5", "ERR@5")],
)
def test_gdeval_through_ir_measures(
    dl19: tuple[cranfield.Qrels, dict], ours: str, theirs: str
) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = dl19
    q = [ir_measures.Qrel(t, d, r) for t, docs in qrels.to_dict().items() for d, r in docs.items()]
    s = [ir_measures.ScoredDoc(t, d, v) for t, docs in run.items() for d, v in docs.items()]
    measure = ir_measures.parse_measure(theirs)
    peer = {r.query_id: r.value for r in ir_measures.iter_calc([measure], q, s)}
    res = cranfield.evaluate(qrels, run, [ours], missing="skip")
    assert _max_diff(res.per_query(ours), peer) < 5e-6


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        ("alpha_nDCG@5", "alpha_nDCG@5"),
        ("alpha_nDCG@20", "alpha_nDCG@20"),
        ("alpha_nDCG(alpha=0.3)@10", "alpha_nDCG(alpha=0.3)@10"),
    ],
)
def test_ndeval_alpha_ndcg_through_ir_measures(ours: str, theirs: str) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")
    intents = read_intents(
        require(REAL / "qrels-misc" / "anserini-tools" / "qrels.web.201-250.ndeval.txt.gz")
    )
    qrels = intents.to_qrels()
    run = tie_free(
        cranfield.load_run(require(REAL / "trec-web-2009-2014" / "runs" / "test.wt13.run.gz")),
        qrels.topics,
    )
    q = [ir_measures.Qrel(t, d, r, s) for t, s, d, r in intents.frame.iter_rows()]
    s = [ir_measures.ScoredDoc(t, d, v) for t, docs in run.items() for d, v in docs.items()]
    # one measure per call: ir_measures mislabels results when several alphas share a call
    peer = {
        r.query_id: r.value
        for r in ir_measures.iter_calc([ir_measures.parse_measure(theirs)], q, s)
    }
    res = cranfield.evaluate(qrels, run, [ours], intents=intents, missing="skip")
    assert _max_diff(res.per_query(ours), peer) < 1e-12


RANX_SCRIPT = """
import json, sys
import ranx
data = json.load(sys.stdin)
out = ranx.evaluate(ranx.Qrels(data["qrels"]), ranx.Run(data["run"]), data["metrics"], return_mean=False)
print(json.dumps({m: dict(zip(sorted(data["run"]), map(float, v))) for m, v in out.items()}))
"""


def test_ranx_ndcg_variants(dl19: tuple[cranfield.Qrels, dict]) -> None:
    pytest.importorskip("ranx")
    qrels, run = dl19
    # ranx compiles with numba (tens of seconds); run its pure-Python code in a subprocess
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore")
    payload = json.dumps(
        {
            "qrels": qrels.to_dict(),
            "run": run,
            "metrics": ["ndcg_burges@10", "ndcg@10", "dcg_burges@10", "hits@10", "hits"],
        }
    )
    done = subprocess.run(
        [sys.executable, "-c", RANX_SCRIPT],
        input=payload,
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    peer = json.loads(done.stdout)
    res = cranfield.evaluate(qrels, run, ["nDCGx(exp=True)@10", "nDCG@10"], missing="skip")
    assert _max_diff(res.per_query("nDCGx(exp=True)@10"), peer["ndcg_burges@10"]) < 1e-12
    assert _max_diff(res.per_query("nDCG@10"), peer["ndcg@10"]) < 1e-12
    # ranx's own names, as typed, give ranx's values
    names = ["ndcg_burges@10", "ndcg@10", "dcg_burges@10", "hits@10", "hits"]
    typed = cranfield.evaluate(qrels, run, names, missing="skip")
    for name in names:
        assert _max_diff(typed.per_query(name), peer[name]) < 1e-12


def test_scikit_learn_ndcg_score(dl19: tuple[cranfield.Qrels, dict]) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    qrels, run = dl19
    judged = qrels.to_dict()
    names = ["nDCGx(retrieved_ideal=True)@10", "nDCG@10"]
    res = cranfield.evaluate(qrels, run, names, missing="skip")
    retrieved_only: dict[str, float] = {}
    all_labels: dict[str, float] = {}
    for q, docs in run.items():
        ranked = list(docs)
        labels = [max(judged[q].get(d, 0), 0) for d in ranked]
        scores = [docs[d] for d in ranked]
        retrieved_only[q] = float(metrics.ndcg_score([labels], [scores], k=10))
        others = [d for d, v in judged[q].items() if d not in docs and v > 0]
        labels_all = labels + [judged[q][d] for d in others]
        scores_all = scores + [-1.0 - i for i in range(len(others))]
        all_labels[q] = float(metrics.ndcg_score([labels_all], [scores_all], k=10))
    assert _max_diff(res.per_query("nDCGx(retrieved_ideal=True)@10"), retrieved_only) < 1e-12
    assert _max_diff(res.per_query("nDCG@10"), all_labels) < 1e-12


def _trec_eval_rows(text: str, label: str) -> dict[str, float]:
    rows = (line.split() for line in text.splitlines())
    return {q: float(v) for name, q, v in rows if name == label and q != "all"}


def test_trec_eval_custom_gain_table() -> None:
    """trec_eval's own output for ``ndcg.1=3,2=9,4=4.5`` (its test fixture), reproduced by the
    variant kernel (a non-default base forces it; the base cancels in nDCG)."""
    fixture = require(CONFORMANCE / "out.test.meas_params").read_text()
    expected = _trec_eval_rows(fixture, "ndcg_1=3,2=9,4=4.5")
    m = "nDCGx(base=4,gains={1:3,2:9,4:4.5})"
    res = cranfield.evaluate(
        CONFORMANCE / "qrels.test", CONFORMANCE / "results.test", [m], missing="skip"
    )
    assert (
        _max_diff({q: round(v, 4) for q, v in res.per_query(m).items()}, expected, topics=3) == 0.0
    )


def test_exponential_gain_is_the_trec_eval_gain_map(dl19: tuple[cranfield.Qrels, dict]) -> None:
    """``nDCGx(exp=True)`` is trec_eval's ``ndcg.1=1,2=3,3=7`` on 0–3 judgments, bit for bit."""
    qrels, run = dl19
    res = cranfield.evaluate(qrels, run, ["nDCGx(exp=True)@10", "nDCG(gains={1:1,2:3,3:7})@10"])
    assert np.array_equal(
        res.values[res._key("nDCGx(exp=True)@10")],
        res.values[res._key("nDCG(gains={1:1,2:3,3:7})@10")],
    )


@pytest.mark.parametrize(
    ("ours", "label"), [("nDCGx(base=10)@10", "ndcg_cut_10"), ("nDCGx(base=3)", "ndcg")]
)
def test_variant_kernel_reproduces_trec_eval_9_on_dl_hard(ours: str, label: str) -> None:
    """DL-HARD ships trec_eval 9.x ``-c -M1000 -q -m all_trec`` output for its runs."""
    import gzip

    base = REAL / "dl-hard"
    qrels = require(base / "qrels" / "dl_hard-passage.qrels")
    for name in ("bm25.run", "bm25+rm3+t5(zs).run"):
        run = require(base / "runs" / "passage" / f"{name}.gz")
        text = gzip.decompress(
            require(base / "trec_eval-9.x-outputs" / "passage" / f"{name}.eval.gz").read_bytes()
        )
        expected = _trec_eval_rows(text.decode(), label)
        res = cranfield.evaluate(qrels, run, [ours], float32=True, depth=1000)
        got = {q: v for q, v in res.per_query(ours).items() if q in expected}
        assert _max_diff(got, expected) <= 5e-5 + 1e-12


def test_data_is_where_the_tests_expect_it() -> None:
    assert Path(require(DL19)).is_dir()
