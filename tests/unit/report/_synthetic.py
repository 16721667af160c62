"""Synthetic qrels and runs of any size, as polars frames (a report of many runs and queries)."""

from __future__ import annotations

import numpy as np
import polars as pl


def synthetic(
    n_runs: int, n_queries: int, *, depth: int = 100, judged: int = 12, seed: int = 0
) -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    """Qrels with ``judged`` graded documents per query and ``n_runs`` runs ``depth`` deep.

    Query ids look like MS MARCO's (numbers of varying length); run ``i`` ranks the relevant
    documents a little better than run ``i - 1``, so the runs differ on average.
    """
    rng = np.random.default_rng(seed)
    qids = np.array([str(1000 + 37 * i) for i in range(n_queries)], dtype=object)
    q = np.repeat(np.arange(n_queries), judged)
    j = np.tile(np.arange(judged), n_queries)
    rel = rng.choice([0, 0, 0, 1, 1, 2, 3], size=q.size)
    qrels = pl.DataFrame(
        {
            "query_id": qids[q].tolist(),
            "doc_id": [f"d{a}-{b}" for a, b in zip(q.tolist(), j.tolist(), strict=True)],
            "relevance": rel,
        }
    )
    runs: dict[str, pl.DataFrame] = {}
    rq = np.repeat(np.arange(n_queries), depth)
    rj = np.tile(np.arange(depth), n_queries)
    doc = [f"d{a}-{b}" for a, b in zip(rq.tolist(), rj.tolist(), strict=True)]
    gain = np.zeros(rq.size)
    inside = rj < judged
    gain[inside] = rel[rq[inside] * judged + rj[inside]]
    for i in range(n_runs):
        score = rng.random(rq.size) + gain * (0.15 + 0.08 * i)
        runs[f"run{i + 1}"] = pl.DataFrame(
            {"query_id": qids[rq].tolist(), "doc_id": doc, "score": score}
        )
    return qrels, runs
