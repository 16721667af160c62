"""The reproducibility measures of Breuer et al. (2020): KTU, RBO, RMSE, nRMSE, ER, ΔRI and the
t-tests, against plain-Python transcriptions of their definitions, hand-computed cases, and
the numbers repro_eval 0.5 gives on TREC DL runs (fixed below: CI has no repro_eval)."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from cranfield.data.ranking import ranked_doc_ids
from cranfield.errors import EvaluationError, OptionError
from cranfield.evaluation.evaluator import Evaluator
from cranfield.evaluation.execution import Execution
from cranfield.io.load import load_run
from cranfield.stats.reproducibility import (
    delta_ri,
    effect_ratio,
    ktu,
    nrmse,
    reproduce,
    reproducibility,
    rmse,
    student_t_p_value,
)
from tests.conftest import REPO
from tests.unit.conftest import DL

RNG = np.random.default_rng(21)

# --------------------------------------------------------------------------- transcriptions


def ktu_by_pairs(original: list[str], reproduced: list[str]) -> float:
    """Breuer et al.'s KTU as repro_eval computes it, pair by pair: number the documents of
    both lists by their place in the sorted union, then Kendall's τ of the numbers rank by
    rank."""
    n = min(len(original), len(reproduced))
    union = sorted(set(original[:n]) | set(reproduced[:n]))
    o = [union.index(d) for d in original[:n]]
    r = [union.index(d) for d in reproduced[:n]]
    agree = disagree = 0
    for i, j in itertools.combinations(range(n), 2):
        s = (o[i] - o[j]) * (r[i] - r[j])
        agree += s > 0
        disagree += s < 0
    return (agree - disagree) / (n * (n - 1) / 2)


def rbo_normalised_truncated(run: list[str], ideal: list[str], p: float, depth: int) -> float:
    """repro_eval 0.5's RBO: the truncated sum of the overlaps, over the sum of the weights."""
    seen_run: set[str] = set()
    seen_ideal: set[str] = set()
    score = norm = 0.0
    for d in range(depth):
        if d < len(run):
            seen_run.add(run[d])
        if d < len(ideal):
            seen_ideal.add(ideal[d])
        score += p**d * len(seen_run & seen_ideal) / (d + 1)
        norm += p**d
    return score / norm


def random_ranking(pool: int, length: int) -> list[str]:
    return [f"d{i}" for i in RNG.choice(pool, size=length, replace=False)]


# --------------------------------------------------------------------------- KTU


def test_ktu_hand_computed() -> None:
    assert ktu(list("abc"), list("abc")) == 1.0
    assert ktu(list("abc"), list("cba")) == -1.0
    # one adjacent swap among 3: 2 pairs agree, 1 disagrees
    assert ktu(list("abc"), list("bac")) == pytest.approx(1 / 3)
    # different documents: union a < b < c < x, so o = (0, 1, 2) and r = (3, 0, 1); the
    # ranks 1-2 and 1-3 disagree, 2-3 agree
    assert ktu(list("abc"), list("xab")) == pytest.approx(-1 / 3)


def test_ktu_on_random_rankings_equals_the_pairwise_transcription() -> None:
    for _ in range(50):
        n = int(RNG.integers(2, 30))
        a, b = random_ranking(40, n), random_ranking(40, n)
        assert ktu(a, b) == pytest.approx(ktu_by_pairs(a, b), abs=1e-12)


def test_ktu_cuts_the_longer_ranking_and_is_undefined_below_two() -> None:
    assert ktu(list("abcd"), list("ab")) == ktu(list("ab"), list("ab")) == 1.0
    assert math.isnan(ktu(["a"], ["a"]))
    assert math.isnan(ktu([], list("ab")))
    with pytest.raises(OptionError, match="The 'reproduced' option must be a ranking"):
        ktu(list("ab"), list("aa"))


# --------------------------------------------------------------------------- scores


def test_rmse_and_nrmse_equal_their_formulas_on_random_scores() -> None:
    for _ in range(20):
        o, r = RNG.uniform(0, 1, 15), RNG.uniform(0, 1, 15)
        expected = math.sqrt(sum((x - y) ** 2 for x, y in zip(o, r, strict=True)) / 15)
        worst = math.sqrt(sum(max(x, 1 - x) ** 2 for x in o) / 15)
        assert rmse(o, r) == pytest.approx(expected, rel=1e-12)
        assert nrmse(o, r) == pytest.approx(expected / worst, rel=1e-12)


def test_rmse_hand_computed_and_zero_for_a_perfect_reproduction() -> None:
    # differences 0 and 0.4: sqrt(0.16 / 2); the worst possible: sqrt((0.25 + 0.64) / 2)
    assert rmse([0.5, 0.2], [0.5, 0.6]) == pytest.approx(math.sqrt(0.08))
    assert nrmse([0.5, 0.2], [0.5, 0.6]) == pytest.approx(math.sqrt(0.08 / 0.445))
    assert rmse([0.3, 0.7], [0.3, 0.7]) == nrmse([0.3, 0.7], [0.3, 0.7]) == 0.0
    with pytest.raises(OptionError, match="scores of the same 2 queries"):
        rmse([0.1, 0.2], [0.1])
    with pytest.raises(EvaluationError, match="empty"):
        rmse([], [])


# --------------------------------------------------------------------------- effects


def test_effect_ratio_and_delta_ri_hand_computed() -> None:
    # original: B = 0.3, A = 0.5 (mean Δ 0.2, RI 2/3); reproduced: B = 0.25, A = 0.35
    args = ([0.2, 0.4], [0.4, 0.6], [0.2, 0.3], [0.3, 0.4])
    assert effect_ratio(*args) == pytest.approx(0.1 / 0.2)
    assert delta_ri(*args) == pytest.approx(0.2 / 0.3 - 0.1 / 0.25)
    same = ([0.2, 0.4], [0.4, 0.6], [0.2, 0.4], [0.4, 0.6])
    assert effect_ratio(*same) == 1.0
    assert delta_ri(*same) == 0.0


def test_effects_on_random_scores_of_different_query_counts() -> None:
    ob, oa = RNG.uniform(0, 1, 12), RNG.uniform(0, 1, 12)
    rb, ra = RNG.uniform(0, 1, 20), RNG.uniform(0, 1, 20)
    er = (sum(ra - rb) / 20) / (sum(oa - ob) / 12)
    ri = (sum(oa) - sum(ob)) / sum(ob) - (sum(ra) - sum(rb)) / sum(rb)
    assert effect_ratio(ob, oa, rb, ra) == pytest.approx(er, rel=1e-12)
    assert delta_ri(ob, oa, rb, ra) == pytest.approx(ri, rel=1e-12)


def test_no_original_effect_and_a_zero_baseline_give_nan() -> None:
    assert math.isnan(effect_ratio([0.2, 0.4], [0.4, 0.2], [0.1, 0.2], [0.3, 0.4]))
    assert math.isnan(delta_ri([0.0, 0.0], [0.4, 0.2], [0.1, 0.2], [0.3, 0.4]))
    with pytest.raises(OptionError, match="The 'original_advanced' option"):
        effect_ratio([0.1, 0.2], [0.1], [0.1], [0.1])


# --------------------------------------------------------------------------- tests


def test_student_t_is_scipys_with_equal_variances() -> None:
    x, y = RNG.uniform(0, 1, 9), RNG.uniform(0, 1, 14)
    assert student_t_p_value(x, y) == stats.ttest_ind(x, y, equal_var=True).pvalue
    assert student_t_p_value([0.2, 0.2], [0.2, 0.2, 0.2]) == 1.0
    assert student_t_p_value([0.2, 0.2], [0.3, 0.3]) == 0.0
    with pytest.raises(EvaluationError, match="1 and 1 queries: the unpaired t-test needs"):
        student_t_p_value([0.2], [0.3])


# --------------------------------------------------------------------------- the front door

QRELS = {"q1": {"d1": 1, "d2": 1, "d5": 1}, "q2": {"d3": 1, "d4": 1}, "q3": {"d6": 1}}
BASE = {"q1": {"d1": 3.0, "d9": 2.0, "d2": 1.0}, "q2": {"d3": 2, "d8": 1}, "q3": {"d7": 1.0}}
ADV = {"q1": {"d1": 3.0, "d2": 2.0, "d5": 1.0}, "q2": {"d3": 2, "d4": 1}, "q3": {"d6": 1.0}}
BASE_R = {"q1": {"d9": 3.0, "d1": 2.0, "d2": 1.0}, "q2": {"d3": 2, "d8": 1}, "q3": {"d7": 1.0}}
ADV_R = {"q1": {"d1": 3.0, "d5": 2.0, "d2": 1.0}, "q2": {"d4": 2, "d3": 1}, "q3": {"d6": 1.0}}


def _rankings(run: dict[str, dict[str, float]]) -> dict[str, list[str]]:
    return {q: sorted(docs, key=lambda d: -docs[d]) for q, docs in run.items()}


def test_reproducibility_puts_the_measures_together() -> None:
    ev = Evaluator(QRELS, ["AP", "P@1"])
    orig = ev.many({"base": BASE, "adv": ADV})
    rep = ev.many({"base-r": BASE_R, "adv-r": ADV_R})
    pairs = [(_rankings(BASE), _rankings(BASE_R)), (_rankings(ADV), _rankings(ADV_R))]
    r = reproducibility(orig, rep, rankings=pairs, cutoffs=(2, 3), p=0.9, rbo_depth=3)
    assert r.kind == "reproducibility"
    assert r.test == "paired t-test"
    base, adv = r.runs
    assert (base.role, base.original, base.reproduced) == ("baseline", "base", "base-r")
    (ob, oa), (rb, ra) = orig.matrix("AP").T, rep.matrix("AP").T
    assert base.rmse["AP"] == rmse(ob, rb)
    assert adv.nrmse["AP"] == nrmse(oa, ra)
    assert r.effect_ratio["AP"] == effect_ratio(ob, oa, rb, ra)
    assert r.delta_ri["AP"] == delta_ri(ob, oa, rb, ra)
    # q1 of the baseline: d1 d9 against d9 d1 at cutoff 2
    assert (base.ktu_per_query[2]["q1"], base.ktu_per_query[2]["q2"]) == (-1.0, 1.0)
    assert math.isnan(base.ktu_per_query[2]["q3"])
    assert base.ktu[2] == 0.0  # the mean of -1 and 1; q3 (one document) is undefined
    assert adv.rbo_per_query["q3"] == pytest.approx(
        rbo_normalised_truncated(["d6"], ["d6"], 0.9, 3), abs=0.9**3
    )
    data = json.loads(r.to_json())
    assert data["runs"]["baseline"]["per_query"]["ktu"]["2"]["q3"] is None
    assert set(data["runs"]["advanced"]["measures"]["AP"]) == {
        "original",
        "reproduced",
        "p_value",
        "rmse",
        "nrmse",
    }


def test_rbo_is_repro_evals_within_p_to_the_depth() -> None:
    ev = Evaluator(QRELS, ["AP"])
    for depth, p in ((5, 0.9), (50, 0.95), (1000, 0.95)):
        ranks = {f"q{i}": random_ranking(30, int(RNG.integers(1, 25))) for i in range(8)}
        other = {f"q{i}": random_ranking(30, int(RNG.integers(1, 25))) for i in range(8)}
        r = reproducibility(
            ev.many([BASE]), ev.many([BASE_R]), rankings=[(ranks, other)], p=p, rbo_depth=depth
        )
        for q, value in r.runs[0].rbo_per_query.items():
            expected = rbo_normalised_truncated(other[q], ranks[q], p, depth)
            assert abs(value - expected) <= p**depth + 1e-12


def test_one_pair_has_no_effects_and_a_replication_no_rankings() -> None:
    ev = Evaluator(QRELS, ["AP"])
    other = Evaluator({"x1": {"d1": 1}, "x2": {"d2": 1}}, ["AP"])
    replicated = other.many([{"x1": {"d1": 1.0}, "x2": {"d9": 1.0}}])
    r = reproducibility(ev.many([BASE]), replicated, replicated=True)
    assert (r.kind, r.test) == ("replicability", "Student's unpaired t-test")
    assert r.effect_ratio == r.delta_ri == {}
    assert r.runs[0].rmse == r.runs[0].ktu == {}
    assert (r.queries_original, r.queries_reproduced) == (3, 2)
    assert r.runs[0].p_values["AP"] == student_t_p_value(
        ev.many([BASE]).matrix("AP")[:, 0], replicated.matrix("AP")[:, 0]
    )
    with pytest.raises(EvaluationError, match="no query in common"):
        reproducibility(ev.many([BASE]), replicated)


def test_bad_inputs_are_refused() -> None:
    ev = Evaluator(QRELS, ["AP"])
    one, two = ev.many([BASE]), ev.many([BASE, ADV])
    with pytest.raises(OptionError, match="as many runs as the original, 1 or 2"):
        reproducibility(one, two)
    with pytest.raises(OptionError, match="as many runs as the original, 1 or 2"):
        reproducibility(ev.many([BASE, ADV, BASE_R]), ev.many([BASE, ADV, BASE_R]))
    with pytest.raises(OptionError, match="The 'cutoffs' option must be an integer >= 1"):
        reproducibility(one, one, cutoffs=[0])
    with pytest.raises(OptionError, match="The 'rankings' option must be one pair"):
        reproducibility(one, one, rankings=[])
    with pytest.raises(OptionError, match="The 'measure' option"):
        reproducibility(one, Evaluator(QRELS, ["P@5"]).many([BASE]))


# --------------------------------------------------------------------------- one call

EXAMPLES = REPO / "examples"


def test_reproduce_is_reproducibility_on_the_tables_and_rankings_it_replaced() -> None:
    """What ``cranfield repro`` composed by hand before: one naming, two tables, rankings."""
    original = [str(EXAMPLES / "bm25.run"), str(EXAMPLES / "neural.run")]
    reproduced = original[::-1]
    qrels = str(EXAMPLES / "qrels.txt")
    r = reproduce(qrels, original, reproduced, ["AP", "P@5"], cutoffs=(3, 5), rbo_depth=4)
    ev = Evaluator(qrels, ["AP", "P@5"])
    ranked = {run: ranked_doc_ids(load_run(run)) for run in original}
    by_hand = reproducibility(
        ev.many(original),
        ev.many(reproduced),
        rankings=[(ranked[a], ranked[b]) for a, b in zip(original, reproduced, strict=True)],
        cutoffs=(3, 5),
        rbo_depth=4,
    )
    assert r.to_dict() == by_hand.to_dict()
    assert [(run.original, run.reproduced) for run in r.runs] == [
        ("bm25", "neural"),
        ("neural", "bm25"),
    ]


def test_reproduce_ranks_as_trec_eval_and_names_the_runs_given() -> None:
    r = reproduce(
        QRELS,
        [BASE, ADV],
        [BASE_R, ADV_R],
        ["AP", "P@1"],
        names=["base", "adv", "base-r", "adv-r"],
        cutoffs=(2, 3),
        p=0.9,
        rbo_depth=3,
    )
    ev = Evaluator(QRELS, ["AP", "P@1"])
    pairs = [(_rankings(BASE), _rankings(BASE_R)), (_rankings(ADV), _rankings(ADV_R))]
    by_hand = reproducibility(
        ev.many({"base": BASE, "adv": ADV}),
        ev.many({"base-r": BASE_R, "adv-r": ADV_R}),
        rankings=pairs,
        cutoffs=(2, 3),
        p=0.9,
        rbo_depth=3,
    )
    assert r.to_dict() == by_hand.to_dict()
    assert (r.runs[0].ktu_per_query[2]["q1"], r.runs[0].ktu_per_query[2]["q2"]) == (-1.0, 1.0)


def test_a_run_that_is_its_own_reproduction_is_named_and_read_once() -> None:
    run = str(EXAMPLES / "bm25.run")
    r = reproduce(str(EXAMPLES / "qrels.txt"), [run], [run], "AP")
    same = r.runs[0]
    assert (same.original, same.reproduced) == ("bm25", "bm25")
    assert same.rmse["AP"] == 0.0
    assert same.p_values["AP"] == 1.0
    assert set(same.ktu.values()) == {1.0}
    # in-memory runs are named by their place among the runs of both experiments
    r = reproduce(QRELS, [BASE], [BASE_R], "AP", names="file")
    assert (r.runs[0].original, r.runs[0].reproduced) == ("run1", "run2")


def test_a_replication_is_scored_on_its_own_qrels_without_rankings() -> None:
    qrels_b = {"x1": {"d1": 1}, "x2": {"d2": 1}}
    replica = {"x1": {"d1": 1.0}, "x2": {"d9": 1.0}}
    r = reproduce(QRELS, [BASE], [replica], "AP", reproduced_qrels=qrels_b, names=["a", "b"])
    by_hand = reproducibility(
        Evaluator(QRELS, "AP").many({"a": BASE}),
        Evaluator(qrels_b, "AP").many({"b": replica}),
        replicated=True,
    )
    assert r.to_dict() == by_hand.to_dict()
    assert r.kind == "replicability"
    assert r.runs[0].ktu == {}


def test_reproduce_passes_where_the_runs_are_scored_on_unchanged(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: list[dict[str, Any]] = []
    many = Evaluator.many

    def spy(self: Evaluator, runs: Any, **kwargs: Any) -> Any:
        seen.append(kwargs)
        return many(self, runs, **kwargs)

    monkeypatch.setattr(Evaluator, "many", spy)
    reproduce(QRELS, [BASE], [BASE_R], "AP", names=["a", "b"], store=tmp_path, progress=None)
    where = {"execution": Execution(store=tmp_path, progress=None)}
    assert seen == [where, where]


def test_reproduce_refuses_bad_arguments_before_reading_anything() -> None:
    missing = ["no/such/run"]
    with pytest.raises(OptionError, match="The 'cutoffs' option must be an integer >= 1"):
        reproduce("no/such/qrels", missing, missing, cutoffs=[0])
    with pytest.raises(OptionError, match="The 'p' option must be a number > 0 and < 1"):
        reproduce("no/such/qrels", missing, missing, p=1.0)
    with pytest.raises(OptionError, match="The 'original' option must be a baseline run and"):
        reproduce("no/such/qrels", ["a", "b", "c"], ["d", "e", "f"])
    with pytest.raises(OptionError, match="The 'reproduced' option must be as many runs as"):
        reproduce("no/such/qrels", ["a", "b"], ["c"])
    with pytest.raises(OptionError, match="The 'original' option must be a list of runs"):
        reproduce("no/such/qrels", "a.run", ["c"])
    with pytest.raises(OptionError, match="The 'original' option must be two different runs"):
        reproduce("no/such/qrels", ["a", "a"], ["b", "c"])
    with pytest.raises(OptionError, match="The 'names' option must be one name per run"):
        reproduce(QRELS, [BASE], [BASE_R], names=["only-one"])


# --------------------------------------------------------------------------- repro_eval

# repro_eval 0.5.0 (pip install repro_eval, with numpy 2.4, scipy 1.17, ir_measures 0.4.3),
# on TREC DL 2019 passage (../shared/data/real/trec-dl-passage), the runs ungzipped:
#   RpdEvaluator(qrels_orig_path=qrels.dl19-passage.txt,
#       run_b_orig_path=bm25, run_a_orig_path=rankgpt35-on-bm25,
#       run_b_rep_path=bm25-rm3, run_a_rep_path=rankvicuna7b-on-bm25)
#   .trim(); .evaluate(); then .rmse(), .nrmse(), .er(), .dri(), .ttest(), .rbo() (p 0.95,
#   depth 1000), and .ktu() of evaluators trimmed with .trim(10) and .trim(100);
#   RplEvaluator with the DL 2020 bm25 and rankvicuna7b-on-bm25 and qrels.dl20-passage.txt
#   for ER, ΔRI and the unpaired t-test.
# The runs stand in for a reproduction (they are different systems), which is why the numbers
# are far from a good one. cranfield agrees with every value to within 5e-15.
REPRO_EVAL = {
    "baseline": {
        "ktu@10": 0.06873385012919977,
        "ktu@100": 0.020380549682874883,
        "rbo": 0.6910785855221897,
        "rmse": {"AP": 0.08256922775815329, "nDCG@10": 0.11235595459064812, "P@10": 0.12199885626608374},
        "nrmse": {"AP": 0.10457777857603757, "nDCG@10": 0.15754179173760566, "P@10": 0.15272070966424253},
        "p": {"AP": 0.0006255171823101338, "nDCG@10": 0.3641204381661354, "P@10": 0.07991390843959204},
    },
    "advanced": {
        "ktu@10": 0.1390180878552972,
        "ktu@100": 0.06495654216584464,
        "rbo": 0.7411687850796295,
        "rmse": {"AP": 0.02492243941139394, "nDCG@10": 0.09850390428249393, "P@10": 0.09883036912035248},
        "nrmse": {"AP": 0.03331905809337777, "nDCG@10": 0.13063679607508033, "P@10": 0.11558018266966967},
        "p": {"AP": 0.7748572628250127, "nDCG@10": 0.2190461359870246, "P@10": 0.2210553813476704},
    },
    "er": {"AP": 0.35052700353315797, "nDCG@10": 0.8100475943811019, "P@10": 0.7027027027027025},
    "dri": {"AP": 0.14165607663290447, "nDCG@10": 0.07670206339562724, "P@10": 0.09248120300751866},
}  # fmt: skip
REPRO_EVAL_REPLICATION = {
    "er": {"AP": 1.2254919254193286, "nDCG@10": 1.0797091351536778, "P@10": 1.0617283950617287},
    "dri": {"AP": -0.04416194830648454, "nDCG@10": -0.04450299288248133, "P@10": -0.054285197529907264},
    "p": {
        "baseline": {"AP": 0.945248704319432, "nDCG@10": 0.6208806142600496, "P@10": 0.23353736054637908},
        "advanced": {"AP": 0.7422294006336668, "nDCG@10": 0.7882059877564281, "P@10": 0.22664132755337793},
    },
}  # fmt: skip
MEASURES = ["AP", "nDCG@10", "P@10"]


def _dl(year: str, name: str) -> str:
    return str(DL / "runs" / year / f"{name}.txt.gz")


def test_agrees_with_repro_eval_on_a_dl19_reproduction() -> None:
    ev = Evaluator(DL / "qrels" / "qrels.dl19-passage.txt", MEASURES)
    original = [_dl("dl19", "bm25"), _dl("dl19", "rankgpt35-on-bm25")]
    reproduced = [_dl("dl19", "bm25-rm3"), _dl("dl19", "rankvicuna7b-on-bm25")]
    rankings = [
        (ranked_doc_ids(load_run(a)), ranked_doc_ids(load_run(b)))
        for a, b in zip(original, reproduced, strict=True)
    ]
    r = reproducibility(
        ev.many(original), ev.many(reproduced), rankings=rankings, cutoffs=(10, 100)
    )
    assert r.ranked_queries == r.queries_original == 43
    for run in r.runs:
        want = REPRO_EVAL[run.role]
        assert run.ktu[10] == pytest.approx(want["ktu@10"], abs=1e-14)
        assert run.ktu[100] == pytest.approx(want["ktu@100"], abs=1e-14)
        assert run.rbo == pytest.approx(want["rbo"], abs=1e-14)
        for m in MEASURES:
            assert run.rmse[m] == pytest.approx(want["rmse"][m], abs=1e-14)
            assert run.nrmse[m] == pytest.approx(want["nrmse"][m], abs=1e-14)
            assert run.p_values[m] == pytest.approx(want["p"][m], rel=1e-12)
    for m in MEASURES:
        assert r.effect_ratio[m] == pytest.approx(REPRO_EVAL["er"][m], abs=1e-14)
        assert r.delta_ri[m] == pytest.approx(REPRO_EVAL["dri"][m], abs=1e-14)


def test_agrees_with_repro_eval_on_a_dl20_replication() -> None:
    original = Evaluator(DL / "qrels" / "qrels.dl19-passage.txt", MEASURES).many(
        [_dl("dl19", "bm25"), _dl("dl19", "rankvicuna7b-on-bm25")]
    )
    replicated = Evaluator(DL / "qrels" / "qrels.dl20-passage.txt", MEASURES).many(
        [_dl("dl20", "bm25"), _dl("dl20", "rankvicuna7b-on-bm25")]
    )
    r = reproducibility(original, replicated, replicated=True)
    assert (r.queries_original, r.queries_reproduced) == (43, 54)
    want = REPRO_EVAL_REPLICATION
    for m in MEASURES:
        assert r.effect_ratio[m] == pytest.approx(want["er"][m], abs=1e-14)
        assert r.delta_ri[m] == pytest.approx(want["dri"][m], abs=1e-14)
        for run in r.runs:
            assert run.p_values[m] == pytest.approx(want["p"][run.role][m], rel=1e-12)


def test_reproduce_agrees_with_repro_eval_on_the_dl19_reproduction_and_dl20_replication() -> None:
    """The numbers of repro_eval above, from the files in one call each."""
    r = reproduce(
        DL / "qrels" / "qrels.dl19-passage.txt",
        [_dl("dl19", "bm25"), _dl("dl19", "rankgpt35-on-bm25")],
        [_dl("dl19", "bm25-rm3"), _dl("dl19", "rankvicuna7b-on-bm25")],
        MEASURES,
        cutoffs=(10, 100),
    )
    for run in r.runs:
        want = REPRO_EVAL[run.role]
        assert run.ktu[10] == pytest.approx(want["ktu@10"], abs=1e-14)
        assert run.rbo == pytest.approx(want["rbo"], abs=1e-14)
        for m in MEASURES:
            assert run.rmse[m] == pytest.approx(want["rmse"][m], abs=1e-14)
    for m in MEASURES:
        assert r.effect_ratio[m] == pytest.approx(REPRO_EVAL["er"][m], abs=1e-14)
    r = reproduce(
        DL / "qrels" / "qrels.dl19-passage.txt",
        [_dl("dl19", "bm25"), _dl("dl19", "rankvicuna7b-on-bm25")],
        [_dl("dl20", "bm25"), _dl("dl20", "rankvicuna7b-on-bm25")],
        MEASURES,
        reproduced_qrels=DL / "qrels" / "qrels.dl20-passage.txt",
    )
    assert [(run.original, run.reproduced) for run in r.runs] == [
        ("dl19/bm25", "dl20/bm25"),
        ("dl19/rankvicuna7b-on-bm25", "dl20/rankvicuna7b-on-bm25"),
    ]
    for m in MEASURES:
        assert r.delta_ri[m] == pytest.approx(REPRO_EVAL_REPLICATION["dri"][m], abs=1e-14)


def test_identical_scores_give_p_one_where_scipy_and_repro_eval_give_nan() -> None:
    """What the notes of ``reproducibility`` say of the paired p-values: the same scores give
    1 (scipy's ``ttest_rel``, repro_eval's test, gives NaN); an exactly constant shift 0, as
    scipy; otherwise scipy's value."""
    import warnings

    from scipy.stats import ttest_rel

    from cranfield.stats import paired_t_test

    same = [0.1, 0.5, 0.3]
    shifted = ([1.0, 2.0, 3.0], [2.0, 3.0, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns of the 0/0 and of the constant shift
        assert math.isnan(ttest_rel(same, same).pvalue)
        assert ttest_rel(*shifted).pvalue == 0.0
    assert paired_t_test(same, same).p_value == 1.0
    assert paired_t_test(*shifted).p_value == 0.0
    x, y = [0.1, 0.5, 0.3, 0.9], [0.2, 0.4, 0.35, 0.7]
    assert paired_t_test(x, y).p_value == pytest.approx(ttest_rel(x, y).pvalue)
