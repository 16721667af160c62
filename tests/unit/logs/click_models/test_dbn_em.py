"""DBN's EM step against the network itself: posteriors by enumerating every hidden state.

Chapelle & Zhang's network for one session of ``depth`` results: ``E_1 = 1``;
``A_r ~ Bernoulli(α)``, ``C_r = E_r A_r``; after a click ``S_r ~ Bernoulli(σ)``;
``E_{r+1} = E_r (1 - C_r S_r) G_r`` with ``G_r ~ Bernoulli(γ)`` (the continuation drawn when
the user was examining and not satisfied). The EM update of each parameter is its expected count
over its expected occasions: ``α`` over all impressions, ``σ`` over clicks, ``γ`` over the
(rank, session) pairs with ``E_r = 1``, ``C_r S_r = 0`` and a next result. Here the expectations
are sums over all ``2^(3 depth)`` assignments of (A, S, G), weighted by their probability and
kept when they give the observed clicks: the slow, obviously right reference of the
forward-backward E-step.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cranfield.logs.click_models import DBN

MLE = (0.0, 0.0)
"""No pseudo-counts: the published maximum-likelihood equations these cases work out."""

Session = tuple[int, list[int], list[int]]


def _em_step(
    sessions: list[Session],
    alpha: dict[tuple[int, int], float],
    sigma: dict[tuple[int, int], float],
    gamma: float,
) -> tuple[dict[tuple[int, int], float], dict[tuple[int, int], float], float]:
    a_num: dict[tuple[int, int], float] = dict.fromkeys(alpha, 0.0)
    a_den = dict.fromkeys(alpha, 0.0)
    s_num = dict.fromkeys(alpha, 0.0)
    s_den = dict.fromkeys(alpha, 0.0)
    g_num = g_den = 0.0
    for query, docs, clicks in sessions:
        depth = len(docs)
        pairs = [(query, d) for d in docs]
        post_a = [0.0] * depth
        post_s = [0.0] * depth
        moves = stays = 0.0
        total = 0.0
        for a, s, g in itertools.product(itertools.product((0, 1), repeat=depth), repeat=3):
            weight = 1.0
            exam = 1
            clicked = []
            here_moves = here_stays = 0
            for r in range(depth):
                pa, ps = alpha[pairs[r]], sigma[pairs[r]]
                weight *= pa if a[r] else 1 - pa
                c = exam * a[r]
                clicked.append(c)
                if c:
                    weight *= ps if s[r] else 1 - ps
                elif s[r]:
                    weight = 0.0  # S is drawn only after a click: count each state once
                going = exam and not (c and s[r])
                if r < depth - 1 and going:
                    weight *= gamma if g[r] else 1 - gamma
                    here_stays += 1
                    here_moves += g[r]
                elif g[r]:
                    weight = 0.0  # G is drawn only when it matters
                exam = int(going and g[r])
            if clicked != clicks or weight == 0.0:
                continue
            total += weight
            for r in range(depth):
                post_a[r] += weight * a[r]
                post_s[r] += weight * (clicks[r] * s[r])
            moves += weight * here_moves
            stays += weight * here_stays
        for r in range(depth):
            a_num[pairs[r]] += post_a[r] / total
            a_den[pairs[r]] += 1
            if clicks[r]:
                s_num[pairs[r]] += post_s[r] / total
                s_den[pairs[r]] += 1
        g_num += moves / total
        g_den += stays / total
    new_alpha = {p: a_num[p] / a_den[p] for p in alpha}
    new_sigma = {p: s_num[p] / s_den[p] if s_den[p] else sigma[p] for p in alpha}
    return new_alpha, new_sigma, g_num / g_den


SESSIONS: list[Session] = [
    (0, [1, 2, 3], [1, 0, 0]),
    (0, [2, 1, 3], [0, 1, 1]),
    (0, [3, 2, 1], [0, 0, 0]),
    (0, [1, 2, 3], [0, 1, 0]),
    (1, [4, 1, 2], [1, 0, 1]),
    (1, [1, 4, 2], [0, 0, 1]),
    (1, [4, 1, 2], [0, 0, 0]),
]


def _arrays(sessions: list[Session]) -> tuple[list[int], list[list[int]], list[list[int]]]:
    return [s[0] for s in sessions], [s[1] for s in sessions], [s[2] for s in sessions]


@pytest.mark.parametrize("iterations", [1, 3])
def test_dbn_em_matches_enumeration(iterations: int) -> None:
    pairs = sorted({(q, d) for q, docs, _ in SESSIONS for d in docs})
    alpha = dict.fromkeys(pairs, 0.5)
    sigma = dict.fromkeys(pairs, 0.5)
    gamma = 0.5
    for _ in range(iterations):
        alpha, sigma, gamma = _em_step(SESSIONS, alpha, sigma, gamma)
    model = DBN.fit(*_arrays(SESSIONS), pseudo_counts=MLE, max_iterations=iterations, tolerance=0.0)
    assert model.iterations == iterations
    assert model.attractiveness.as_dict() == pytest.approx(alpha, abs=1e-12)
    assert model.satisfaction.as_dict() == pytest.approx(sigma, abs=1e-12)
    assert model.continuation == pytest.approx(gamma, abs=1e-12)


def test_dbn_fixed_gamma_stays() -> None:
    model = DBN.fit(*_arrays(SESSIONS), pseudo_counts=MLE, gamma=0.9, max_iterations=5)
    assert model.continuation == 0.9


def test_dbn_stops_at_tolerance() -> None:
    model = DBN.fit(*_arrays(SESSIONS), pseudo_counts=MLE, max_iterations=1000, tolerance=1e-3)
    assert 1 < model.iterations < 1000
    again = DBN.fit(
        *_arrays(SESSIONS), pseudo_counts=MLE, max_iterations=model.iterations + 1, tolerance=0.0
    )
    moved = np.abs(again.attractiveness.value - model.attractiveness.value).max()
    assert moved <= 1e-3
