"""Every fusion method and normalisation agrees with ranx 0.3's ``fuse`` on real runs, and
ranx's weight grid misses weightings that cranfield's exact simplex grid tries.

The runs are three TREC DL 2019 passage runs (BM25, TAS-B, SPLADE++). ranx sorts each run
with numba's unstable quicksort, so the order of tied scores is not defined there; the runs
are first stripped of their tied documents (a document whose score another document of the
query shares), leaving real scores and one ranking both tools agree on. Then for every
method and normalisation (ranx's ``norm=None`` is cranfield's ``"none"``): the same queries,
the same documents per query, every score within 1e-9, and cranfield's order never puts a
document above one ranx scores higher by more than 1e-9.

Not compared: a rank method after ``borda`` normalisation, which cranfield refuses and ranx
ranks in the order of a Python set (random from one process to the next).
"""

from __future__ import annotations

import itertools
from typing import Any

import polars as pl
import pytest

import cranfield
from cranfield.data.run import Run
from cranfield.fusion import METHODS, NORMALIZATIONS, fuse
from cranfield.fusion.methods import CONDORCET
from cranfield.fusion.tuning import simplex_grid
from tests.conftest import REAL, require

pytestmark = pytest.mark.slow

DL19 = REAL / "trec-dl-passage" / "runs" / "dl19"
NAMES = ("bm25", "tasb", "splade-pp-ed")
PARAMS: dict[str, dict[str, float]] = {
    "gmnz": {"gamma": 0.5},
    "rbc": {"phi": 0.8},
    "rrf": {"k": 60},
    "logn_isr": {"sigma": 0.01},
}
WEIGHTS = [0.2, 0.5, 0.3]


def _untied(run: Run) -> Run:
    frame = run.frame.filter(pl.len().over(["query_id", "score"]) == 1)
    return Run(frame, name=run.name)


@pytest.fixture(scope="module")
def both() -> tuple[list[Run], list[Any]]:
    import ranx

    ours = [_untied(cranfield.load_run(require(DL19 / f"{n}.txt.gz"), name=n)) for n in NAMES]
    theirs = [ranx.Run(r.to_dict(), name=r.name) for r in ours]
    return ours, theirs


def _cases() -> list[tuple[str, str]]:
    return [
        (m, n)
        for m, spec in METHODS.items()
        for n in NORMALIZATIONS
        if not (spec.kind == "rank" and n == "borda")
        # compared in test_fusion_ranx_trained.py: Condorcet needs ranx's entry order fixed,
        # the trained methods qrels
        and not spec.trained
        and m not in CONDORCET
    ]


@pytest.mark.parametrize(("method", "norm"), _cases())
def test_fusion_equals_ranx(both: tuple[list[Run], list[Any]], method: str, norm: str) -> None:
    import ranx

    ours_in, theirs_in = both
    params = dict(PARAMS.get(method, {}))
    weights = WEIGHTS if METHODS[method].weighted else None
    ranx_params: dict[str, Any] = {**params, **({"weights": weights} if weights else {})}
    theirs = ranx.fuse(
        theirs_in, norm=None if norm == "none" else norm, method=method, params=ranx_params
    ).to_dict()
    ours = fuse(ours_in, method, norm=norm, weights=weights, params=params).to_dict()  # type: ignore[arg-type]
    assert set(ours) == set(theirs)
    assert len(ours) == 43
    for q, docs in ours.items():
        assert set(docs) == set(theirs[q])
        for d, s in docs.items():
            assert s == pytest.approx(theirs[q][d], abs=1e-9, rel=0)
        ranx_scores = [theirs[q][d] for d in docs]  # in cranfield's order
        assert all(x >= y - 1e-9 for x, y in itertools.pairwise(ranx_scores))


def test_ranx_weight_grid_misses_weightings() -> None:
    """ranx keeps ``sum(w) == 1.0`` of a floating-point product; the exact grid has all."""
    from ranx.fusion_optimization.optimize_weights import (
        get_possible_weights,
        get_trial_configs,
    )

    for n_runs, exact, ranx_count in ((3, 66, 62), (4, 286, 256)):
        ranx_grid = get_trial_configs(get_possible_weights(0.1), n_runs)
        ours = simplex_grid(n_runs, 0.1)
        assert len(ours) == exact
        assert len(ranx_grid) == ranx_count
        missed = set(ours) - {tuple(w) for w in ranx_grid}
        assert len(missed) == exact - ranx_count
        if n_runs == 3:  # 0.2 + 0.7 + 0.1 == 1.0000000000000002 in floating point
            assert missed == {(0.2, 0.7, 0.1), (0.3, 0.6, 0.1), (0.6, 0.3, 0.1), (0.7, 0.2, 0.1)}
