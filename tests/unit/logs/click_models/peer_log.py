"""The small simulated log on which cranfield's fits are compared with the clickmodels package.

Two queries, five documents each, four shown in one of six fixed rankings per query; clicks
from a DBN (γ = 0.7); 3,000 training and 2,000 test sessions, all from fixed seeds (numpy's
PCG64 streams are stable across numpy versions).
"""

from __future__ import annotations

import numpy as np

from cranfield.logs.click_models import DBN, PairTable

QUERIES, DOCS, DEPTH = 2, 5, 4


def peer_log() -> dict[str, np.ndarray]:
    """``train_query``, ``train_shown``, ``train_clicked`` and the same for ``test``."""
    rng = np.random.default_rng(42)
    alpha = PairTable.from_matrix(rng.uniform(0.1, 0.9, (QUERIES, DOCS)), prior=0.5)
    sigma = PairTable.from_matrix(rng.uniform(0.2, 0.8, (QUERIES, DOCS)), prior=0.5)
    rankings = np.argsort(rng.random((QUERIES, 6, DOCS)), axis=2)[:, :, :DEPTH]
    truth = DBN(alpha, sigma, 0.7)
    out: dict[str, np.ndarray] = {}
    for part, n, seed in (("train", 3000, 1), ("test", 2000, 2)):
        draw = np.random.default_rng(seed)
        query = draw.integers(0, QUERIES, n)
        shown = rankings[query, draw.integers(0, 6, n)]
        out[f"{part}_query"] = query
        out[f"{part}_shown"] = shown
        out[f"{part}_clicked"] = truth.simulate(query, shown, seed=seed + 10)
    return out
