"""Discriminative power (bootstrap, randomised Tukey HSD), ASL curves and swap rates."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from cranfield.errors import EvaluationError, OptionError
from cranfield.evaluation.evaluator import Evaluator
from cranfield.stats.discriminative_power import (
    discriminative_power,
    power_of_scores,
    split_permutations,
    swap_rates,
)
from cranfield.stats.resampling import bootstrap_test, randomized_tukey_hsd
from tests.unit.conftest import ROBUST03, robust03_runs

RNG = np.random.default_rng(11)
TABLE = RNG.uniform(0, 1, size=(12, 5)) + np.linspace(0, 0.8, 5)


def test_the_shares_equal_a_direct_count_of_the_projects_own_pairwise_tests() -> None:
    alpha, seed, resamples = 0.05, 5, 400
    r = power_of_scores(
        {"AP": TABLE}, runs=list("abcde"), alpha=alpha, n_resamples=resamples, trials=0, seed=seed
    )
    pairs = list(itertools.combinations(range(5), 2))
    boot = [
        bootstrap_test(TABLE[:, i], TABLE[:, j], n_resamples=resamples, seed=seed).p_value
        for i, j in pairs
    ]
    hsd = randomized_tukey_hsd(TABLE, n_resamples=resamples, seed=seed).p_value
    tukey = [hsd[i, j] for i, j in pairs]
    m = r.measures["AP"]
    assert m.bootstrap == sum(p < alpha for p in boot) / len(pairs)
    assert m.tukey == sum(p < alpha for p in tukey) / len(pairs)
    assert m.bootstrap_asl == tuple(sorted(boot))
    assert m.tukey_asl == tuple(sorted(tukey))
    assert 0 < m.tukey <= m.bootstrap  # family-wise control is the stricter


def test_a_second_measure_does_not_change_the_first_ones_numbers() -> None:
    one = power_of_scores({"AP": TABLE}, runs=list("abcde"), n_resamples=200, trials=3, seed=2)
    two = power_of_scores(
        {"AP": TABLE, "P@10": TABLE[::-1] * 0.5},
        runs=list("abcde"),
        n_resamples=200,
        trials=3,
        seed=2,
    )
    assert one.measures["AP"] == two.measures["AP"]
    assert json.loads(two.to_json())["measures"]["AP"]["tukey"] == two.measures["AP"].tukey


def test_identical_runs_never_swap() -> None:
    same = np.repeat(RNG.uniform(size=(10, 1)), 4, axis=1)
    s = swap_rates(same, trials=20, seed=1)
    assert sum(map(sum, s.swaps)) == 0
    assert all(p[0] == 20 * 6 for p in s.pairs)  # every pair: |d| = 0, first bin


def _slow_swaps(x: np.ndarray, sizes: tuple[int, ...], orders: np.ndarray) -> list[list[int]]:
    """Voorhees & Buckley's count in plain Python, bin width 0.01, 10 bins."""
    k = x.shape[1]
    out = [[0] * 10 for _ in sizes]
    for order in orders:
        for s, c in enumerate(sizes):
            first, second = list(order[:c]), list(order[c : 2 * c])
            for i in range(k):
                for j in range(i + 1, k):
                    d1 = sum(x[q, i] - x[q, j] for q in first) / c
                    d2 = sum(x[q, i] - x[q, j] for q in second) / c
                    b = min(int(abs(d1) / 0.01), 9)
                    out[s][b] += (d1 > 0 > d2) or (d1 < 0 < d2)
    return out


def test_swaps_of_a_permuted_table_match_a_plain_python_count() -> None:
    x = TABLE[RNG.permutation(12)][:, RNG.permutation(5)]
    s = swap_rates(x, trials=15, sizes=(1, 3, 6), seed=9)
    slow = _slow_swaps(x, (1, 3, 6), split_permutations(12, 15, 9))
    assert [list(r) for r in s.swaps] == slow
    assert all(sum(p) == 15 * 10 for p in s.pairs)


def test_swap_rates_fall_with_the_topic_set_size_on_robust03() -> None:
    runs = robust03_runs()[:6]
    table = Evaluator(ROBUST03 / "qrels.robust03.txt.gz", ["AP"]).many(runs)
    r = discriminative_power(table, ["map"], n_resamples=200, trials=30, seed=4)
    rates = r.measures["AP"].swaps
    assert rates is not None
    total = [sum(s) / sum(p) for s, p in zip(rates.swaps, rates.pairs, strict=True)]
    assert total[-1] < total[0]
    assert r.pairs == 15
    assert r.queries == 100


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        ([[0.1, 0.2]], "1 query(ies): discriminative power needs at least 2."),
        ([[0.1], [0.2]], "1 run(s): discriminative power needs at least 2."),
    ],
)
def test_too_little_data_is_one_sentence(scores: list[list[float]], message: str) -> None:
    runs = [f"r{i}" for i in range(len(scores[0]))]
    with pytest.raises(
        EvaluationError, match=r"^" + message.replace("(", r"\(").replace(")", r"\)") + "$"
    ):
        power_of_scores({"AP": scores}, runs=runs)


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5])
def test_alpha_outside_zero_one_is_refused(alpha: float) -> None:
    with pytest.raises(
        OptionError, match=r"^The 'alpha' option must be a number > 0 and < 1, got "
    ):
        power_of_scores({"AP": TABLE}, runs=list("abcde"), alpha=alpha)


def test_a_size_above_half_the_queries_is_refused() -> None:
    with pytest.raises(OptionError, match=r"^The 'sizes' option must be an integer"):
        swap_rates(TABLE, sizes=(7,))
