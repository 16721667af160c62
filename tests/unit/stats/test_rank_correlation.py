"""System-ranking correlation: scipy's τ-b, ρ and r, τ_AP, RBO, swaps and the bootstrap."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import cranfield
from cranfield.errors import EvaluationError, OptionError
from cranfield.evaluation.evaluator import Evaluator
from cranfield.evaluation.execution import Execution
from cranfield.stats.rank_correlation import (
    correlate,
    correlate_measures,
    correlate_scores,
    correlate_tables,
    rbo,
    score_agreement,
    swapped_pairs,
    tau_ap,
)
from tests.unit.conftest import ROBUST03, robust03_runs

# --------------------------------------------------------------------------- scipy's coefficients

scores = st.integers(min_value=3, max_value=12).flatmap(
    lambda k: st.tuples(
        st.lists(st.integers(0, 5), min_size=k, max_size=k),  # small ranges: many ties
        st.lists(st.floats(0, 1, allow_nan=False), min_size=k, max_size=k),
    )
)


@settings(max_examples=60, deadline=None)
@given(scores)
def test_tau_b_rho_and_r_equal_scipy_on_random_and_tied_data(
    data: tuple[list[int], list[float]],
) -> None:
    tied, smooth = data
    a = np.array([tied], dtype=np.float64)  # one query: the means are the values
    b = np.array([smooth])
    names = [f"s{i}" for i in range(a.shape[1])]
    r = correlate_scores(a, b, systems=names, n_resamples=0)
    c = r.coefficients
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        assert math.isnan(c["kendall_tau_b"].value)
        return
    assert c["kendall_tau_b"].value == pytest.approx(stats.kendalltau(a[0], b[0]).statistic)
    assert c["spearman_rho"].value == pytest.approx(stats.spearmanr(a[0], b[0]).statistic)
    assert c["pearson_r"].value == pytest.approx(stats.pearsonr(a[0], b[0]).statistic)
    r2 = correlate_scores(a, a, systems=names, n_resamples=0)
    assert r2.coefficients["kendall_tau_b"].value == pytest.approx(1.0)
    assert r2.swaps == ()


# --------------------------------------------------------------------------- τ_AP


def _tau_ap_paper(truth_order: list[str], estimate_order: list[str]) -> float:
    """Yilmaz, Aslam & Robertson (2008), eq. 2, as printed: go down the estimated list; C(i) is
    how many of the items above position i are also above it in the true list."""
    n = len(estimate_order)
    position = {item: k for k, item in enumerate(truth_order)}
    total = 0.0
    for i in range(2, n + 1):
        item = estimate_order[i - 1]
        c = sum(1 for other in estimate_order[: i - 1] if position[other] < position[item])
        total += c / (i - 1)
    return 2.0 / (n - 1) * total - 1.0


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 15).flatmap(
        lambda n: st.tuples(st.permutations(range(n)), st.permutations(range(n)))
    )
)
def test_tau_ap_equals_the_papers_formula_on_random_rankings(
    perms: tuple[list[int], list[int]],
) -> None:
    truth, estimate = perms
    n = len(truth)
    names = [f"s{i}" for i in range(n)]
    # scores: higher is better, so the item at position 0 gets n
    t_scores = np.empty(n)
    e_scores = np.empty(n)
    for pos, item in enumerate(truth):
        t_scores[item] = n - pos
    for pos, item in enumerate(estimate):
        e_scores[item] = n - pos
    expected = _tau_ap_paper([names[i] for i in truth], [names[i] for i in estimate])
    assert tau_ap(t_scores, e_scores) == pytest.approx(expected)


def test_tau_ap_is_asymmetric_and_top_weighted() -> None:
    truth = [4, 3, 2, 1]
    top_swap = [3, 4, 2, 1]
    bottom_swap = [4, 3, 1, 2]
    # Kendall's τ sees one swap either way; τ_AP punishes the one at the top more.
    assert (
        stats.kendalltau(truth, top_swap).statistic
        == stats.kendalltau(truth, bottom_swap).statistic
    )
    assert tau_ap(truth, top_swap) < tau_ap(truth, bottom_swap)
    a, b = [5, 4, 3, 2, 1], [4, 1, 5, 3, 2]
    assert tau_ap(a, b) != pytest.approx(tau_ap(b, a))


def test_tau_ap_counts_a_tie_in_the_truth_as_half() -> None:
    assert tau_ap([1, 1], [2, 1]) == 0.0


# --------------------------------------------------------------------------- RBO


def _rbo_series(a: list[str], b: list[str], p: float, depth: int = 20_000) -> tuple[float, float]:
    """RBO's min and ext as the paper's infinite sums, summed term by term to a depth where
    p^d is negligible (the closed forms use a logarithm and a geometric tail instead)."""
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    s, ell = len(short), len(long_)

    def x(d: int) -> int:
        return len(set(short[:d]) & set(long_[:d]))

    xs, xl = x(s), x(ell)
    low = ext = 0.0
    for d in range(1, depth + 1):
        seen = x(min(d, ell))
        low += seen / d * p**d
        if d <= ell:
            extra = xs * (d - s) / s if d > s else 0.0
            ext += (seen + extra) / d * p**d
        else:  # the agreement at depth l, (X_l - X_s)/l + X_s/s, continues
            ext += ((xl - xs) / ell + xs / s) * p**d
    return (1 - p) / p * low, (1 - p) / p * ext


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 12), unique=True, min_size=1, max_size=10),
    st.lists(st.integers(0, 12), unique=True, min_size=1, max_size=10),
    st.sampled_from([0.5, 0.8, 0.9]),
)
def test_rbo_equals_the_papers_sums(a: list[int], b: list[int], p: float) -> None:
    first, second = [f"d{i}" for i in a], [f"d{i}" for i in b]
    r = rbo(first, second, p=p)
    low, ext = _rbo_series(first, second, p, depth=400)
    assert r.min == pytest.approx(low, abs=1e-12)
    assert r.ext == pytest.approx(ext, abs=1e-12)
    assert r.min <= r.ext <= r.max + 1e-12
    assert r.residual == pytest.approx(r.max - r.min)
    assert rbo(second, first, p=p) == r  # RBO is symmetric


@pytest.mark.parametrize(
    ("x", "y", "p", "expected"),
    [
        # Corsi & Urbano's test table (julian-urbano/sigir2024-rbo, rbo/test.csv), rows whose
        # values do not depend on how their ties are ordered: ext, min, max, res.
        (
            "i4 i2 i14 i7 i5 i3",
            "i9 i13 i6 i8 i1 i5 i10 i15 i11",
            0.986650551181127,
            (0.155835200392091, 0.02839705430193, 0.89085092447296, 0.86245387017103),
        ),
        (
            "i21 i20 i1 i16 i19 i5 i10 i4",
            "i12 i17 i2 i3 i8 i11 i15 i18 i6 i13 i7 i14 i9",
            0.930074017489188,
            (0.0, 0.0, 0.38977330351866, 0.38977330351866),
        ),
    ],
)
def test_rbo_reproduces_published_values(
    x: str, y: str, p: float, expected: tuple[float, float, float, float]
) -> None:
    r = rbo(x.split(), y.split(), p=p)
    assert (r.ext, r.min, r.max, r.residual) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("p", "d", "shown"), [(0.9, 10, 0.8556), (0.98, 50, 0.8522)])
def test_rbo_min_of_a_prefix_is_webbers_weight_of_that_prefix(
    p: float, d: int, shown: float
) -> None:
    """Webber et al. (2010), eq. 21 and the text after it: with p = 0.9 the first 10 ranks
    carry 86% of the weight, and p = 0.98 gives the first 50 the same. The weight of the
    first d ranks is RBO_min of two equal lists of length d (no further overlap known)."""
    weight = (
        1
        - p ** (d - 1)
        + (1 - p) / p * d * (math.log(1 / (1 - p)) - sum(p**i / i for i in range(1, d)))
    )
    items = [f"d{i}" for i in range(d)]
    assert rbo(items, items, p=p).min == pytest.approx(weight, abs=1e-12)
    assert round(weight, 4) == shown  # the paper's "86%"


def test_rbo_of_a_permutation_of_the_same_items() -> None:
    r = rbo("abcdefg", "abcdefg", p=0.9)
    assert r.ext == pytest.approx(1.0)
    assert r.max == pytest.approx(1.0)
    assert r.residual == pytest.approx(
        0.9**7 - 0.1 / 0.9 * 7 * sum(0.9**d / d for d in range(8, 2000))
    )
    # permutations of the same items: nothing is unseen, so ext is max
    s = rbo("abcdefg", "gbadcfe", p=0.9)
    assert s.ext == pytest.approx(s.max)


@pytest.mark.parametrize("p", [0, 1, -0.5, 1.5, "x"])
def test_rbo_refuses_a_bad_persistence(p: object) -> None:
    with pytest.raises(OptionError, match="'p' option"):
        rbo("ab", "ba", p=p)  # type: ignore[arg-type]


def test_rbo_refuses_repeated_items() -> None:
    with pytest.raises(OptionError, match="each item at most once"):
        rbo(["d1", "d1"], ["d1"])


# --------------------------------------------------------------------------- swaps and the result


def test_swaps_name_each_pair_ordered_differently() -> None:
    names = ["a", "b", "c", "d"]
    x, y = [4, 3, 2, 1], [1, 3, 2, 4]
    swaps = swapped_pairs(names, x, y)
    assert set(swaps) == {("a", "b"), ("a", "c"), ("a", "d"), ("b", "d"), ("c", "d")}
    k = len(names)
    tau = stats.kendalltau(x, y).statistic
    assert tau == pytest.approx(1 - 4 * len(swaps) / (k * (k - 1)))
    assert swapped_pairs(names, [1, 1, 2, 3], [2, 1, 2, 3]) == []  # a tie is not a swap


def test_bootstrap_is_reproducible_and_brackets_the_value() -> None:
    rng = np.random.default_rng(3)
    base = rng.uniform(size=(30, 6)) + np.linspace(0, 0.5, 6)
    other = base + rng.normal(scale=0.1, size=base.shape)
    names = [f"s{i}" for i in range(6)]
    one = correlate_scores(base, other, systems=names, n_resamples=300, seed=11)
    two = correlate_scores(base, other, systems=names, n_resamples=300, seed=11)
    assert one.to_json() == two.to_json()
    assert one.seed == 11
    for c in one.coefficients.values():
        assert c.low <= c.high
    none = correlate_scores(base, other, systems=names, n_resamples=0)
    assert none.seed is None
    assert math.isnan(none.coefficients["tau_ap"].low)
    assert json.loads(none.to_json())["coefficients"]["tau_ap"]["low"] is None


def test_bad_shapes_and_options_are_refused() -> None:
    with pytest.raises(OptionError, match="'b' option"):
        correlate_scores([[1, 2]], [[1, 2, 3]], systems=["a", "b"])
    with pytest.raises(EvaluationError, match="at least 2"):
        correlate_scores([[1]], [[1]], systems=["a"])
    with pytest.raises(EvaluationError, match="no query"):
        correlate_scores(np.zeros((0, 2)), np.zeros((0, 2)), systems=["a", "b"])
    with pytest.raises(OptionError, match="'alpha' option"):
        correlate_scores([[1, 2]], [[1, 2]], systems=["a", "b"], alpha=2)
    with pytest.raises(OptionError, match="'n_resamples' option"):
        correlate_scores([[1, 2]], [[1, 2]], systems=["a", "b"], n_resamples=-1)


QRELS_A = {"q1": {"d1": 1, "d2": 1, "d3": 0}, "q2": {"d4": 1, "d5": 1}, "q3": {"d6": 1}}
QRELS_B = {"q1": {"d1": 0, "d2": 1, "d3": 1}, "q2": {"d4": 1, "d5": 0}, "q4": {"d7": 1}}
RUNS = {
    "x": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 2.0, "d5": 1.0}, "q3": {"d6": 1.0}},
    "y": {"q1": {"d3": 3.0, "d2": 2.0, "d1": 1.0}, "q2": {"d5": 2.0, "d4": 1.0}, "q3": {"z": 1.0}},
    "z": {"q1": {"d2": 3.0, "z": 2.0}, "q2": {"d4": 1.0}, "q3": {"d6": 1.0}},
}


def test_two_qrels_are_aligned_by_run_and_query_and_say_what_was_dropped() -> None:
    a = Evaluator(QRELS_A, ["AP"]).many(RUNS)
    b = Evaluator(QRELS_B, ["AP"]).many({k: v for k, v in RUNS.items() if k != "z"})
    r = correlate_tables(a, b, "map", settings=("nist", "llm"), n_resamples=0)
    assert r.systems == ("x", "y")
    assert r.topics == ("q1", "q2")
    assert any(n == "1 run(s) scored only under nist left out: z." for n in r.notes)
    assert any("judged only in nist left out: q3" in n for n in r.notes)
    assert any("judged only in llm left out: q4" in n for n in r.notes)
    assert (r.setting_a, r.setting_b) == ("nist", "llm")


def test_two_qrels_without_a_common_query_are_an_error_not_nan() -> None:
    a = Evaluator({"q1": {"d1": 1}}, ["AP"]).many(RUNS)
    b = Evaluator({"q9": {"d1": 1}}, ["AP"]).many({k: {"q9": {"d1": 1.0}} for k in RUNS})
    with pytest.raises(EvaluationError, match="judge no query in common"):
        correlate_tables(a, b, "AP")


def test_an_unknown_measure_names_the_tables_measures() -> None:
    table = Evaluator(QRELS_A, ["AP", "P@1"]).many(RUNS)
    with pytest.raises(OptionError, match=r"one of the table's measures \(AP, P@1\)"):
        correlate_measures(table, "AP", "nDCG@10")


def test_robust03_ap_against_ndcg_at_10() -> None:
    """End to end on 8 official TREC 2003 Robust runs: the coefficients are scipy's on the
    means trec_eval prints, τ-b agrees with the number of swaps."""
    runs = robust03_runs()[:8]
    table = Evaluator(ROBUST03 / "qrels.robust03.txt.gz", ["map", "ndcg_cut_10"]).many(runs)
    r = correlate_measures(table, "map", "ndcg_cut_10", n_resamples=100, seed=5)
    assert (r.setting_a, r.setting_b) == ("AP", "nDCG@10")
    assert len(r.topics) == 100
    means = dict(zip(r.systems, r.means_a, strict=True))
    assert round(means["input.InexpC2"], 4) == 0.2249  # the README's trec_eval value
    assert round(dict(zip(r.systems, r.means_b, strict=True))["input.NLPR03vb10"], 4) == 0.3944
    tau = stats.kendalltau(r.means_a, r.means_b).statistic
    assert r.coefficients["kendall_tau_b"].value == pytest.approx(tau)
    k = len(r.systems)
    assert tau == pytest.approx(1 - 4 * len(r.swaps) / (k * (k - 1)))
    # NLPR03vb10 retrieves about 10 documents per query: last by AP, second by nDCG@10.
    assert ("input.InexpC2", "input.NLPR03vb10") in r.swaps
    for c in r.coefficients.values():
        assert c.low <= c.value <= c.high or c is r.coefficients["rbo"]
    assert all(isinstance(pair, tuple) for pair in itertools.islice(r.swaps, 3))


# --------------------------------------------------------------------------- one call


def test_correlate_two_measures_is_correlate_measures_on_the_runs_table() -> None:
    r = correlate(QRELS_A, RUNS, "AP", "P@1", n_resamples=200, seed=3)
    table = Evaluator(QRELS_A, ["AP", "P@1"]).many(RUNS)
    assert r.to_dict() == correlate_measures(table, "AP", "P@1", n_resamples=200, seed=3).to_dict()
    # the means are each run's mean AP as cranfield.evaluate gives it, run by run
    assert r.means_a == tuple(cranfield.evaluate(QRELS_A, run, "AP")["AP"] for run in RUNS.values())
    assert r.coefficients["kendall_tau_b"].value == pytest.approx(
        stats.kendalltau(r.means_a, r.means_b).statistic
    )


def test_correlate_two_qrels_is_correlate_tables_named_by_the_file_names(tmp_path: Path) -> None:
    files = []
    for name, qrels in (("nist.qrels", QRELS_A), ("llm.qrels", QRELS_B)):
        path = tmp_path / name
        path.write_text(
            "".join(f"{q} 0 {d} {v}\n" for q, docs in qrels.items() for d, v in docs.items())
        )
        files.append(str(path))
    r = correlate(files[0], RUNS, "map", qrels_b=files[1], n_resamples=50, seed=2, p=0.8)
    by_hand = correlate_tables(
        Evaluator(files[0], ["map"]).many(RUNS),
        Evaluator(files[1], ["map"]).many(RUNS),
        "map",
        settings=("nist", "llm"),
        n_resamples=50,
        seed=2,
        p=0.8,
    )
    assert r.to_dict() == by_hand.to_dict()
    assert (r.setting_a, r.setting_b, r.topics) == ("nist", "llm", ("q1", "q2"))
    in_memory = correlate(QRELS_A, RUNS, "AP", qrels_b=QRELS_B, n_resamples=0)
    assert (in_memory.setting_a, in_memory.setting_b) == ("qrels A", "qrels B")
    with pytest.raises(OptionError, match="The 'qrels_b' option must be distinct qrels files"):
        correlate(files[0], RUNS, "AP", qrels_b=files[0])


def test_correlate_passes_where_the_runs_are_scored_on_unchanged(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: list[dict[str, Any]] = []
    many = Evaluator.many

    def spy(self: Evaluator, runs: Any, **kwargs: Any) -> Any:
        seen.append(kwargs)
        return many(self, runs, **kwargs)

    monkeypatch.setattr(Evaluator, "many", spy)
    correlate(QRELS_A, RUNS, "AP", qrels_b=QRELS_B, n_resamples=0, store=tmp_path, progress=None)
    where = {"execution": Execution(store=tmp_path, progress=None)}
    assert seen == [where, where]


def test_correlate_takes_evaluation_options_and_names() -> None:
    r = correlate(QRELS_A, list(RUNS.values()), "P@2", "AP", names=["a", "b", "c"], depth=1)
    by_hand = Evaluator(QRELS_A, ["P@2", "AP"], depth=1).many(RUNS)
    assert r.systems == ("a", "b", "c")
    assert r.means_a == tuple(by_hand.matrix("P@2").mean(axis=0))


def test_correlate_refuses_bad_arguments_before_reading_anything() -> None:
    nowhere = ["no/such/run", "no/such/run2"]
    with pytest.raises(OptionError, match="The 'p' option must be a number in"):
        correlate("no/such/qrels", nowhere, "AP", "P@1", p=1.5)
    with pytest.raises(OptionError, match="The 'seed' option"):
        correlate("no/such/qrels", nowhere, "AP", "P@1", seed=-1)
    with pytest.raises(OptionError, match="The 'qrels_b' option must be None with measure_b"):
        correlate("no/such/qrels", nowhere, "AP", "P@1", qrels_b="other")
    with pytest.raises(OptionError, match="The 'measure_b' option must be a second measure"):
        correlate("no/such/qrels", nowhere, "AP")
    with pytest.raises(OptionError, match="The 'runs' option must be at least 2 runs, got 1"):
        correlate(QRELS_A, [RUNS["x"]], "AP", "P@1")


def test_topics_must_name_every_row() -> None:
    with pytest.raises(OptionError, match="'topics' option must be 2 query ids"):
        correlate_scores([[1, 2], [2, 1]], [[1, 2], [2, 1]], systems=["a", "b"], topics=["q1"])


# --------------------------------------------------------------------------- per-query scores


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda k: st.tuples(
            st.lists(st.lists(st.integers(0, 3), min_size=k, max_size=k), min_size=2, max_size=8),
            st.integers(0, 2**32 - 1),
        )
    )
)
def test_per_query_scores_are_scipys_tau_b_and_r_pooled_and_per_system(
    data: tuple[list[list[int]], int],
) -> None:
    rows, seed = data
    a = np.array(rows, dtype=np.float64) / 3  # few levels: many ties, as P@10 has
    b = np.random.default_rng(seed).random(a.shape)
    names = [f"s{j}" for j in range(a.shape[1])]
    r = correlate_scores(a, b, systems=names, n_resamples=0)

    def expect(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
        if np.ptp(x) == 0 or np.ptp(y) == 0:
            return math.nan, math.nan
        return stats.kendalltau(x, y).statistic, stats.pearsonr(x, y).statistic

    pooled = expect(a.ravel(), b.ravel())
    got = (r.query_scores.kendall_tau_b, r.query_scores.pearson_r)
    assert got == pytest.approx(pooled, nan_ok=True)
    assert r.query_scores.pairs == a.size
    for j, agreement in enumerate(r.system_query_scores):
        assert (agreement.kendall_tau_b, agreement.pearson_r) == pytest.approx(
            expect(a[:, j], b[:, j]), nan_ok=True
        )
        assert agreement.pairs == a.shape[0]


def test_per_query_scores_are_in_the_json_with_nan_as_null() -> None:
    r = correlate_scores(
        [[0.1, 0.5], [0.1, 0.7]], [[0.2, 0.4], [0.3, 0.6]], systems=["x", "y"], n_resamples=0
    )
    data = json.loads(r.to_json())["query_scores"]
    assert data["all"]["pairs"] == 4
    assert data["all"]["kendall_tau_b"] == pytest.approx(
        stats.kendalltau([0.1, 0.5, 0.1, 0.7], [0.2, 0.4, 0.3, 0.6]).statistic
    )
    assert data["systems"]["x"] == {"kendall_tau_b": None, "pearson_r": None, "pairs": 2}
    assert data["systems"]["y"]["kendall_tau_b"] == pytest.approx(1.0)
    assert score_agreement([1.0], [2.0]).pairs == 1
