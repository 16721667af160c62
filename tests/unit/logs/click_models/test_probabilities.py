"""Click probabilities, log-likelihood, perplexity and simulation of every model."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from cranfield.logs.click_models import (
    DBN,
    DCM,
    PBM,
    PROBABILITY_FLOOR,
    SDBN,
    UBM,
    Cascade,
    ClickModel,
    DocumentCTR,
    GlobalCTR,
    PairTable,
    RankCTR,
    simulate,
)

DEPTH = 3
RNG = np.random.default_rng(7)
ALPHA = PairTable.from_matrix(RNG.uniform(0.1, 0.9, (2, 5)), prior=0.5)
SIGMA = PairTable.from_matrix(RNG.uniform(0.1, 0.9, (2, 5)), prior=0.5)

MODELS: dict[str, ClickModel] = {
    "GlobalCTR": GlobalCTR(0.3),
    "RankCTR": RankCTR(np.array([0.6, 0.3, 0.2])),
    "DocumentCTR": DocumentCTR(ALPHA),
    "PBM": PBM(ALPHA, np.array([1.0, 0.6, 0.3])),
    "Cascade": Cascade(ALPHA),
    "DCM": DCM(ALPHA, np.array([0.7, 0.4, 0.5])),
    "UBM": UBM(ALPHA, np.array([[1.0, np.nan, np.nan], [0.5, 0.8, np.nan], [0.3, 0.6, 0.9]])),
    "DBN": DBN(ALPHA, SIGMA, 0.8),
    "SDBN": SDBN(ALPHA, SIGMA),
}
PATTERNS = np.array(list(itertools.product((0, 1), repeat=DEPTH)), dtype=bool)


@pytest.mark.parametrize("name", MODELS)
def test_conditional_probabilities_make_a_distribution_whose_marginals_are_the_marginals(
    name: str,
) -> None:
    model = MODELS[name]
    k = len(PATTERNS)
    query = np.repeat([0, 1], k)
    shown = np.concatenate([np.tile([3, 0, 4], (k, 1)), np.tile([2, 4, 1], (k, 1))])
    clicked = np.concatenate([PATTERNS, PATTERNS])
    conditional = model.click_probabilities(query, shown, clicked)
    each = np.where(clicked, conditional, 1.0 - conditional).prod(axis=1)
    for half in (slice(0, k), slice(k, 2 * k)):
        assert each[half].sum() == pytest.approx(1.0)
        implied = (each[half, None] * clicked[half]).sum(axis=0)
        marginal = model.click_probabilities(query[half], shown[half])
        assert np.allclose(marginal, implied[None, :])


def _chain_pattern_probability(
    alpha: list[float], after_click: list[float], after_skip: float, clicks: list[int]
) -> float:
    """P(clicks) by enumerating attractiveness and going-on draws of the cascade family."""
    depth = len(alpha)
    total = 0.0
    for attractive, going in itertools.product(itertools.product((0, 1), repeat=depth), repeat=2):
        weight, exam, seen = 1.0, 1, []
        for r in range(depth):
            weight *= alpha[r] if attractive[r] else 1 - alpha[r]
            c = exam * attractive[r]
            seen.append(c)
            p_on = after_click[r] if c else after_skip
            weight *= p_on if going[r] else 1 - p_on
            exam = exam * going[r]
        if seen == clicks:
            total += weight
    return total


@pytest.mark.parametrize(
    ("model", "after_click", "after_skip"),
    [
        (Cascade(ALPHA), lambda s: [0.0] * 3, 1.0),
        (DCM(ALPHA, np.array([0.7, 0.4, 0.5])), lambda s: [0.7, 0.4, 0.5], 1.0),
        (DBN(ALPHA, SIGMA, 0.8), lambda s: [0.8 * (1 - x) for x in s], 0.8),
        (SDBN(ALPHA, SIGMA), lambda s: [1 - x for x in s], 1.0),
    ],
)
def test_cascade_family_session_probabilities_by_enumeration(
    model: ClickModel, after_click: object, after_skip: float
) -> None:
    docs = [3, 0, 4]
    alpha = ALPHA.lookup([1], [docs])[0].tolist()
    sigma = SIGMA.lookup([1], [docs])[0].tolist()
    for clicks in PATTERNS:
        conditional = model.click_probabilities([1], [docs], [clicks])[0]
        ours = float(np.where(clicks, conditional, 1 - conditional).prod())
        expected = _chain_pattern_probability(
            alpha,
            after_click(sigma),  # type: ignore[operator]
            after_skip,
            clicks.astype(int).tolist(),
        )
        assert ours == pytest.approx(expected, abs=1e-12)


def test_global_ctr_of_one_half_has_perplexity_two() -> None:
    score = GlobalCTR(0.5).score([0, 0], [[1, 2, 3], [1, -1, -1]], [[1, 0, 0], [0, 0, 0]])
    assert score.sessions == 2
    assert score.perplexity_at_rank.tolist() == [2.0, 2.0, 2.0]
    assert score.perplexity == 2.0
    assert score.log_likelihood == pytest.approx(4 * math.log(0.5))
    assert score.mean_log_likelihood == pytest.approx(math.log(0.5))


def test_rank_ctr_perplexity_by_hand() -> None:
    # p_r = 2 ** (-(1/|S_r|) Σ log2 P(C_r = c_r)); rank 1: clicks 1, 1, 0 with ρ = 0.8;
    # rank 2: 0, 1 with ρ = 0.25 (the third session shows one result).
    model = RankCTR(np.array([0.8, 0.25]))
    score = model.score([0, 0, 0], [[1, 2], [1, 2], [1, -1]], [[1, 0], [1, 1], [0, 0]])
    rank1 = 2 ** (-(2 * math.log2(0.8) + math.log2(0.2)) / 3)
    rank2 = 2 ** (-(math.log2(0.75) + math.log2(0.25)) / 2)
    assert score.perplexity_at_rank.tolist() == pytest.approx([rank1, rank2])
    assert score.perplexity == pytest.approx((rank1 + rank2) / 2)
    expected_ll = 2 * math.log(0.8) + math.log(0.2) + math.log(0.75) + math.log(0.25)
    assert score.log_likelihood == pytest.approx(expected_ll)
    assert score.conditional_perplexity == pytest.approx(score.perplexity)


def test_a_click_the_cascade_model_forbids_costs_the_floor() -> None:
    model = Cascade(PairTable.from_matrix([[0.5, 0.5]], prior=0.5))
    conditional = model.click_probabilities([0], [[0, 1]], [[1, 1]])
    assert conditional.tolist() == [[0.5, 0.0]]
    score = model.score([0], [[0, 1]], [[1, 1]])
    assert score.log_likelihood == pytest.approx(math.log(0.5) + math.log(PROBABILITY_FLOOR))
    # the marginal probability of the second click is (1 - 0.5) * 0.5
    assert score.perplexity_at_rank.tolist() == pytest.approx([2.0, 4.0])


def test_unseen_pairs_and_ranks_get_the_prior() -> None:
    model = PBM.fit([0, 0], [[1, 2], [2, 1]], [[1, 0], [0, 0]], prior=0.2)
    # doc 9 and query 5 are new; rank 3 is deeper than any training session (examination 0.2)
    probabilities = model.click_probabilities([0, 5], [[9, 1, 2], [1, 2, -1]])
    g1, g2 = model.examination
    a1, a2 = model.attractiveness.lookup([0, 0], [[1], [2]])[:, 0]
    assert probabilities.tolist() == [
        pytest.approx([0.2 * g1, a1 * g2, a2 * 0.2]),
        pytest.approx([0.2 * g1, 0.2 * g2, 0.0]),
    ]


@pytest.mark.parametrize("name", MODELS)
def test_simulation_is_seeded_and_never_clicks_a_missing_result(name: str) -> None:
    query = np.zeros(500, dtype=np.int64)
    shown = np.tile([3, 0, -1], (500, 1))
    first = simulate(MODELS[name], query, shown, seed=3)
    assert np.array_equal(first, MODELS[name].simulate(query, shown, seed=3))
    assert not first[:, 2].any()
    assert first.any()


@pytest.mark.parametrize("name", MODELS)
def test_sessions_with_fewer_results_are_scored_on_the_shown_ranks(name: str) -> None:
    model = MODELS[name]
    shown = [[3, 0, 4], [2, 4, -1], [1, -1, -1]]
    clicked = [[1, 0, 1], [0, 1, 0], [0, 0, 0]]
    score = model.score([0, 1, 0], shown, clicked)
    conditional = model.click_probabilities([0, 1, 0], shown, clicked)
    marginal = model.click_probabilities([0, 1, 0], shown)
    assert conditional[2, 1:].tolist() == marginal[2, 1:].tolist() == [0.0, 0.0]
    full = model.score([0], [[3, 0, 4]], [[1, 0, 1]])
    short = model.score([1, 0], [[2, 4, -1], [1, -1, -1]], [[0, 1, 0], [0, 0, 0]])
    assert score.log_likelihood == pytest.approx(full.log_likelihood + short.log_likelihood)
    assert np.isfinite(score.perplexity_at_rank).all()


@pytest.mark.parametrize("name", MODELS)
def test_an_empty_log_fits_to_the_prior_and_scores_nothing(name: str) -> None:
    query, shown = np.zeros(0, dtype=np.int64), np.zeros((0, 3), dtype=np.int64)
    clicked = np.zeros((0, 3), dtype=bool)
    model = type(MODELS[name]).fit(query, shown, clicked)  # type: ignore[attr-defined]
    assert model.click_probabilities([0], [[1, 2, 3]]).shape == (1, 3)
    score = model.score(query, shown, clicked)
    assert score.sessions == 0
    assert np.isnan(score.perplexity)
    assert score.log_likelihood == 0.0


@pytest.mark.parametrize("name", MODELS)
def test_a_fit_is_deterministic(name: str) -> None:
    query = np.repeat([0, 1], 300)
    shown = np.tile([[3, 0, 4], [0, 4, 3]], (300, 1))
    clicked = MODELS[name].simulate(query, shown, seed=5)
    cls = type(MODELS[name])
    first, second = cls.fit(query, shown, clicked), cls.fit(query, shown, clicked)  # type: ignore[attr-defined]
    assert np.array_equal(
        first.click_probabilities(query, shown, clicked),
        second.click_probabilities(query, shown, clicked),
    )
