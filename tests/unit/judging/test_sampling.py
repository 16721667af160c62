"""Stratified samples of a pool, and the estimators' bias by simulation from complete qrels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cranfield.errors import EvaluationError, OptionError
from cranfield.evaluation.evaluator import Evaluator
from cranfield.io.load import load_qrels, load_run
from cranfield.io.sampled_judgments import Prel, StratifiedJudgment, read_prels
from cranfield.judging.estimators import inferred, statistical
from cranfield.judging.pools import run_lists
from cranfield.judging.sampling import Stratum, parse_strata, prior_sample, stratified_sample
from tests.unit.conftest import ROBUST03, robust03_runs

RUNS = {
    "a": {"q1": {f"d{i}": float(100 - i) for i in range(20)}},
    "b": {"q1": {f"e{i}": float(100 - i) for i in range(10)}, "q2": {"x": 1.0, "y": 0.5}},
}


def test_strata_by_best_rank_with_fixed_sizes() -> None:
    sample = stratified_sample(RUNS, "1-2:1,3-10:0.5,11-:0.25", seed=4)
    # q1: best ranks 1 (d0, e0), 2 (d1, e1), ... 10 (d9, e9), then d10..d19 alone
    # q2: x at 1, y at 2
    assert sample.sizes() == {"1-2": (6, 6), "3-10": (16, 8), "11-": (10, 2)}
    assert sample.probabilities[("q1", "3-10")] == 0.5
    assert sample.probabilities[("q1", "11-")] == 0.2  # 0.25 × 10 rounds half to even: 2
    again = stratified_sample(RUNS, "1-2:1,3-10:0.5,11-:0.25", seed=4)
    assert again.rows == sample.rows


def test_written_for_judging(tmp_path: Path) -> None:
    sample = stratified_sample(RUNS, [Stratum(1, 2, 1.0), Stratum(3, None, 0.5)], seed=0)
    sample.write_stratified(tmp_path / "design.txt")
    lines = (tmp_path / "design.txt").read_text().splitlines()
    assert lines[0].split()[3:] == ["1-2", "-2"]
    assert {line.split()[4] for line in lines} == {"-1", "-2"}
    sample.write_prels(tmp_path / "prels.txt", relevance=0)
    prels = read_prels(tmp_path / "prels.txt")
    assert len(prels) == sum(n for _, n in sample.sizes().values())


def test_bad_designs() -> None:
    with pytest.raises(EvaluationError, match=r"^stratum 500- holds no pooled document"):
        stratified_sample(RUNS, "1-10:1,500-:0.1")
    with pytest.raises(OptionError, match="'strata'"):
        stratified_sample(RUNS, "1-10:1.5")
    with pytest.raises(OptionError, match="'strata'"):
        parse_strata("1to10:1")


@pytest.mark.slow
def test_estimators_are_unbiased_by_simulation_on_robust03() -> None:
    """Sample the depth-100 pool of Robust03 (first 15 topics) at 1 then 1/2 over 10 seeds,
    judge the sample from the complete qrels and estimate MAP of three runs: the mean of the
    estimates is within 3 standard errors of the true MAP (the qrels restricted to the pool);
    a complete sample gives the true MAP exactly. (Lower rates show the ratio estimators'
    small-sample bias: see the docs page.)"""
    paths = robust03_runs()
    runs = {p.name.removeprefix("input.").removesuffix(".gz"): load_run(p) for p in paths}
    qrels = load_qrels(ROBUST03 / "qrels.robust03.txt.gz").to_dict()
    lists = run_lists(runs, pool_depth=100)
    topics = sorted(lists.topics)[:15]
    names = ["pircRBa1", "uwmtCR0", "InexpC2"]
    sub = {n: {q: d for q, d in runs[n].to_dict().items() if q in topics} for n in names}
    pooled = {q: {d: max(qrels[q].get(d, 0), 0) for d in lists.topics[q].docs} for q in topics}
    true = Evaluator(pooled, "AP").many(sub).means()

    def estimates(strata: str, seed: int) -> dict[str, tuple[float, float]]:
        sample = stratified_sample(lists, strata, seed=seed)
        rows, prels = [], []
        for i, (t, d, name, sampled) in enumerate(sample.rows):
            if t in pooled:
                g = pooled[t][d]
                rel = float(g) if sampled else -1.0
                rows.append(StratifiedJudgment(t, d, name, str(int(rel)), rel, i))
                if sampled:
                    prels.append(Prel(t, d, float(g), 1, sample.probabilities[(t, name)], i))
        return {
            n: (
                inferred(rows, sub[n]).summary["infAP"],
                statistical(prels, sub[n]).summary["statMAP"],
            )
            for n in names
        }

    complete = estimates("1-:1", 0)
    for n in names:
        assert complete[n][0] == pytest.approx(true[n]["AP"], abs=1e-6)  # the ε of infAP
        assert complete[n][1] == pytest.approx(true[n]["AP"], abs=1e-12)
    draws = [estimates("1-10:1,11-:0.5", seed) for seed in range(10)]
    for n in names:
        for k in (0, 1):
            values = np.array([d[n][k] for d in draws])
            se = values.std(ddof=1) / np.sqrt(values.size)
            assert abs(values.mean() - true[n]["AP"]) < 3 * se, (n, k, values.mean(), se)


def test_prior_sample_probabilities() -> None:
    # one run of 4: AP prior weights (1 + H_4 - H_r)/8, H_4 = 25/12
    sample = prior_sample({"a": {"q": {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}}}, 3, seed=2)
    h = np.cumsum(1 / np.arange(1, 5))
    p = (1 + h[-1] - h) / 8
    p = p / p.sum()
    expected = 1 - (1 - p) ** 3
    assert [r[2] for r in sample.rows] == pytest.approx(expected.tolist())
    assert 1 <= sample.sampled() <= 3


def test_statap_over_prior_samples_converges_on_a_toy_pool() -> None:
    """statAP is a ratio of two unbiased estimates: with few draws it runs low (on this pool of
    30 documents, 12 draws: 0.227 for a true AP of 0.270), with many it is the true AP."""
    rng = np.random.default_rng(7)
    docs = [f"d{i}" for i in range(40)]
    runs = {
        f"r{k}": {"q": {d: float(s) for d, s in zip(docs, rng.permutation(40)[:30], strict=False)}}
        for k in range(3)
    }
    truth = {d: int(rng.random() < 0.3) for d in docs}
    lists = run_lists(runs)
    pooled = {"q": {d: truth[d] for d in lists.topics["q"].docs}}
    true_ap = Evaluator(pooled, "AP").evaluate(runs["r0"])["AP"]

    def estimates(size: int) -> np.ndarray:
        values = []
        for seed in range(200):
            sample = prior_sample(lists, size, seed=seed)
            prels = [
                Prel("q", d, float(truth[d]), 1, p, i)
                for i, (_, d, p, sampled) in enumerate(sample.rows)
                if sampled
            ]
            if any(truth[p.doc_id] for p in prels):
                values.append(statistical(prels, runs["r0"]).summary["statMAP"])
        return np.array(values)

    few, many = estimates(12), estimates(200)
    assert true_ap == pytest.approx(0.2699, abs=1e-4)
    assert few.mean() == pytest.approx(0.2266, abs=1e-4)
    assert abs(many.mean() - true_ap) < 3 * many.std(ddof=1) / np.sqrt(many.size)


def test_overlapping_strata_are_an_option_error() -> None:
    runs = {"a": {"q": {f"d{i}": float(-i) for i in range(20)}}}
    with pytest.raises(OptionError, match=r"ranges that do not overlap, got '1- and 5-9'"):
        stratified_sample(runs, "5-9:1,1-:0.5")
    with pytest.raises(OptionError, match=r"ranges that do not overlap, got '1-5 and 5-9'"):
        stratified_sample(runs, "1-5:1,5-9:0.5")
    # touching is not overlapping; a gap leaves its documents out of the population
    sample = stratified_sample(runs, "1-5:1,6-9:0.5,12-:1")
    assert sample.sizes() == {
        "1-5": (5, 5),
        "6-9": (4, 2),
        "12-": (9, 9),
    }  # ranks 10 and 11 in no stratum
