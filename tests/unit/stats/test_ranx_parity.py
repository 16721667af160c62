"""Uncorrected t-test p-values equal ranx's (ranx is a test-only dependency).

ranx computes its "student" test as ``scipy.stats.ttest_rel`` on its own per-query scores.
Where its scores equal trec_eval's, cranfield's p-values must be bit-identical; ranx breaks
score ties in its own way, so runs with tied scores (DL19 ``repllama``, most Robust 2003 runs)
can get different per-query values, and are compared at the statistics layer instead.
"""

from __future__ import annotations

import gzip

import pytest

from cranfield.stats import Comparison
from tests.unit.conftest import DL, dl19_runs

# Parity with ranx on real TREC data (the end-to-end test takes minutes): slow.
pytestmark = pytest.mark.slow


def test_ranx_student_test_on_our_per_query_scores(robust03: Comparison) -> None:
    from ranx.statistical_tests import paired_student_t_test

    for p in robust03.pairs:
        X = robust03.scores[p.measure]
        control = X[:, robust03.runs.index(p.control)]
        treatment = X[:, robust03.runs.index(p.treatment)]
        ranx_p, _ = paired_student_t_test(control, treatment, max_p=0.05)
        assert ranx_p == p.tests["t-test"].p_value


def _read(path: str, *, qrels: bool) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            fields = line.split()
            q, doc = fields[0], fields[2]
            value = fields[3] if qrels else fields[4]
            out.setdefault(q, {})[doc] = int(value) if qrels else float(value)
    return out


def test_ranx_compare_end_to_end_on_dl19() -> None:
    from ranx import Qrels, Run
    from ranx import compare as ranx_compare

    from cranfield.stats import compare

    qrels_path = str(DL / "qrels" / "qrels.dl19-passage.txt")
    paths = [p for p in dl19_runs() if p.name.split(".")[0] in ("bm25", "bm25-rm3", "tasb")]
    ours = compare(qrels_path, paths, ["AP", "nDCG@10"], relevance_level=2, correction="none")
    qrels = Qrels(_read(qrels_path, qrels=True))
    runs = [Run(_read(str(p), qrels=False), name=p.name.split(".")[0]) for p in paths]
    report = ranx_compare(qrels, runs, ["map-l2", "ndcg@10"], stat_test="student", max_p=0.05)
    for ranx_name, ours_name in (("map-l2", "AP"), ("ndcg@10", "nDCG@10")):
        for j, run in enumerate(runs):
            assert list(run.scores[ranx_name].values()) == pytest.approx(
                ours.scores[ours_name][:, j].tolist(), abs=1e-12
            )
        for p in (q for q in ours.pairs if q.measure == ours_name):
            theirs = report.comparisons[p.control, p.treatment][ranx_name]["p_value"]
            assert theirs == p.tests["t-test"].p_value
