"""Parameter recovery: logs simulated from known parameters are fitted back (issue 20).

Each log has 10^5 sessions of 2 queries with 8 documents each, shown 5 at a time in one of 20
fixed rankings per query (so every document is seen at several ranks, as in a real log where
the ranker changes), simulated with a fixed seed. With ~30,000 impressions per pair the
standard error of an attractiveness is below 0.01; the tolerances below are 3-5 of those.

PBM and UBM identify attractiveness and examination only up to a common factor (``α c``,
``γ / c`` give the same clicks), so their recovery is checked on the identified quantities:
``α γ_1`` and ``γ_r / γ_1`` (``γ_{r r'} / γ_{1 0}`` for UBM).
"""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.logs.click_models import DBN, PBM, UBM, Cascade, ClickModel, PairTable, RankCTR

QUERIES, DOCS, DEPTH, SESSIONS = 2, 8, 5, 100_000
RNG = np.random.default_rng(2015)
TRUE_ALPHA = RNG.uniform(0.1, 0.9, (QUERIES, DOCS))
TRUE_SIGMA = RNG.uniform(0.2, 0.8, (QUERIES, DOCS))
ALPHA = PairTable.from_matrix(TRUE_ALPHA, prior=0.5)
SIGMA = PairTable.from_matrix(TRUE_SIGMA, prior=0.5)
RANKINGS = np.argsort(RNG.random((QUERIES, 20, DOCS)), axis=2)[:, :, :DEPTH]


def _sessions(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    query = rng.integers(0, QUERIES, SESSIONS)
    shown = RANKINGS[query, rng.integers(0, 20, SESSIONS)]
    return query, shown


QUERY, SHOWN = _sessions(1)
PAIR_Q, PAIR_D = (a.ravel() for a in np.indices((QUERIES, DOCS)))


def _per_pair(table: PairTable) -> np.ndarray:
    return table.lookup(PAIR_Q, PAIR_D[:, None])[:, 0].reshape(QUERIES, DOCS)


def test_pbm_recovery() -> None:
    gamma = np.array([1.0, 0.75, 0.55, 0.4, 0.3])
    clicked = PBM(ALPHA, gamma).simulate(QUERY, SHOWN, seed=11)
    fit = PBM.fit(QUERY, SHOWN, clicked)
    g1 = fit.examination[0]
    assert np.abs(_per_pair(fit.attractiveness) * g1 - TRUE_ALPHA).max() < 0.03
    assert np.abs(fit.examination / g1 - gamma).max() < 0.03


def test_cascade_recovery() -> None:
    clicked = Cascade(ALPHA).simulate(QUERY, SHOWN, seed=12)
    fit = Cascade.fit(QUERY, SHOWN, clicked)
    assert np.abs(_per_pair(fit.attractiveness) - TRUE_ALPHA).max() < 0.03


def test_ubm_recovery() -> None:
    gamma = np.full((DEPTH, DEPTH), np.nan)
    for r in range(DEPTH):
        for j in range(r + 1):
            gamma[r, j] = 1.0 if r == 0 else 0.9 - 0.12 * r + 0.1 * (j > 0) * (j / r)
    clicked = UBM(ALPHA, gamma).simulate(QUERY, SHOWN, seed=13)
    fit = UBM.fit(QUERY, SHOWN, clicked)
    g10 = fit.examination[0, 0]
    assert np.abs(_per_pair(fit.attractiveness) * g10 - TRUE_ALPHA).max() < 0.03
    used = ~np.isnan(gamma)
    assert np.isnan(fit.examination[~used]).all()
    # a (rank, previous click) cell seen rarely is estimated loosely: check the cells seen
    # at least 2,000 times
    well_seen = used & (_seen_per_entry(clicked) >= 2000)
    assert well_seen.sum() >= 10
    assert np.abs((fit.examination / g10 - gamma)[well_seen]).max() < 0.05


def _seen_per_entry(clicked: np.ndarray) -> np.ndarray:
    """How many cells each (rank, previous click) entry has."""
    counts = np.zeros((DEPTH, DEPTH))
    previous = np.zeros(clicked.shape[0], dtype=np.int64)
    for r in range(DEPTH):
        np.add.at(counts[r], previous, 1)
        previous = np.where(clicked[:, r], r + 1, previous)
    return counts


def test_dbn_recovery() -> None:
    clicked = DBN(ALPHA, SIGMA, 0.7).simulate(QUERY, SHOWN, seed=14)
    fit = DBN.fit(QUERY, SHOWN, clicked)
    assert abs(fit.continuation - 0.7) < 0.01
    assert np.abs(_per_pair(fit.attractiveness) - TRUE_ALPHA).max() < 0.03
    assert np.abs(_per_pair(fit.satisfaction) - TRUE_SIGMA).max() < 0.06


@pytest.mark.parametrize(
    "model",
    [
        PBM(ALPHA, np.array([1.0, 0.75, 0.55, 0.4, 0.3])),
        Cascade(ALPHA),
        DBN(ALPHA, SIGMA, 0.7),
        UBM(ALPHA, np.tril(np.linspace(1.0, 0.3, DEPTH)[:, None] + np.zeros(DEPTH))),
    ],
    ids=["PBM", "Cascade", "DBN", "UBM"],
)
def test_the_true_model_and_its_fit_beat_rank_ctr_on_held_out_sessions(model: ClickModel) -> None:
    train = model.simulate(QUERY, SHOWN, seed=21)
    test_query, test_shown = _sessions(2)
    test = model.simulate(test_query, test_shown, seed=22)
    baseline = RankCTR.fit(QUERY, SHOWN, train).score(test_query, test_shown, test)
    fitted = type(model).fit(QUERY, SHOWN, train).score(test_query, test_shown, test)  # type: ignore[attr-defined]
    truth = model.score(test_query, test_shown, test)
    assert truth.perplexity < baseline.perplexity
    assert fitted.perplexity < baseline.perplexity
    assert truth.log_likelihood > baseline.log_likelihood
    assert fitted.log_likelihood > baseline.log_likelihood
    # the fit is as good as the truth up to its estimation error
    assert fitted.perplexity == pytest.approx(truth.perplexity, abs=2e-3)
