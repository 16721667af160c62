"""Condorcet fusion and the methods trained on qrels agree with ranx 0.3 on real runs, and
ranx's Condorcet fusion changes with the process's string hash seed.

The runs are three TREC DL 2019 passage runs (BM25, TAS-B, SPLADE++), stripped of their
tied scores as in ``test_fusion_ranx.py`` (ranx's unstable sort leaves the order of ties
undefined). The trained methods learn from the NIST qrels: once on all 43 queries, and once
on 30 training queries only, then fuse all 43 (ranx trains on runs and qrels cut to the same
queries; it lines the hit lists up by position, not by query id). Condorcet sorts with a
comparison that depends on the order the documents enter the sort: cranfield enters them in
doc id descending order, ranx in the order of a Python ``set`` of strings; to compare the
arithmetic, ranx's ``get_candidates`` is given cranfield's order, and then the two agree to
the document. A subprocess shows that unpatched ranx gives different orders under two hash
seeds and the same order under one.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from typing import Any

import polars as pl
import pytest

import cranfield
from cranfield.data.run import Run
from cranfield.fusion import fuse, train
from tests.conftest import REAL, require

pytestmark = pytest.mark.slow

DL19 = REAL / "trec-dl-passage" / "runs" / "dl19"
QRELS = REAL / "trec-dl-passage" / "qrels" / "qrels.dl19-passage.txt"
NAMES = ("bm25", "tasb", "splade-pp-ed")
WEIGHTS = [0.2, 0.5, 0.3]


def _untied(run: Run) -> Run:
    frame = run.frame.filter(pl.len().over(["query_id", "score"]) == 1)
    return Run(frame, name=run.name)


@pytest.fixture(scope="module")
def ours() -> list[Run]:
    return [_untied(cranfield.load_run(require(DL19 / f"{n}.txt.gz"), name=n)) for n in NAMES]


@pytest.fixture(scope="module")
def theirs(ours: list[Run]) -> list[Any]:
    import ranx

    return [ranx.Run(r.to_dict(), name=r.name) for r in ours]


def _same(ours: Run, theirs: dict[str, dict[str, float]], *, exact_order: bool) -> None:
    got = ours.to_dict()
    assert set(got) == set(theirs)
    assert len(got) == 43
    for q, docs in got.items():
        assert set(docs) == set(theirs[q]), q
        for d, s in docs.items():
            assert s == pytest.approx(theirs[q][d], abs=1e-9, rel=0)
        if exact_order:
            assert list(docs) == sorted(theirs[q], key=lambda d: -theirs[q][d])
        ranx_scores = [theirs[q][d] for d in docs]  # in cranfield's order
        assert all(x >= y - 1e-9 for x, y in itertools.pairwise(ranx_scores))


def _in_our_order(runs: list[Any]) -> Any:
    """ranx's candidate lists, in the order cranfield's sort takes them: doc id descending
    (Python compares strings by code point: UTF-8's byte order)."""
    from numba.typed import List as TypedList

    out = TypedList()
    for q in runs[0]:
        docs = {d for run in runs for d in run[q]}
        out.append(TypedList(sorted(docs, reverse=True)))
    return out


@pytest.mark.parametrize("method", ["condorcet", "w_condorcet"])
def test_condorcet_equals_ranx_given_the_same_entry_order(
    ours: list[Run], theirs: list[Any], method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    import ranx

    # the modules (ranx.fusion's attributes of these names are the functions)
    plain = importlib.import_module("ranx.fusion.condorcet")
    weighted = importlib.import_module("ranx.fusion.weighted_condorcet")
    monkeypatch.setattr(plain, "get_candidates", _in_our_order)
    monkeypatch.setattr(weighted, "get_candidates", _in_our_order)
    weights = WEIGHTS if method == "w_condorcet" else None
    params = {"weights": WEIGHTS} if weights else {}
    expected = ranx.fuse(theirs, method=method, params=params).to_dict()
    _same(fuse(ours, method, weights=weights), expected, exact_order=True)  # type: ignore[arg-type]


_HASH_PROBE = """
import hashlib, json, sys
runs = json.load(open(sys.argv[1]))
if sys.argv[2] == "ranx":
    import ranx
    named = [ranx.Run(r, name=str(i)) for i, r in enumerate(runs)]
    fused = ranx.fuse(named, method="condorcet").to_dict()
else:
    import cranfield
    from cranfield.fusion import fuse
    fused = fuse([cranfield.load_run(r, name=str(i)) for i, r in enumerate(runs)], "condorcet")
    fused = fused.to_dict()
order = {q: sorted(d, key=lambda x: -d[x]) for q, d in fused.items()}
print(hashlib.sha256(json.dumps(order, sort_keys=True).encode()).hexdigest())
"""


def test_ranx_condorcet_changes_with_the_string_hash_seed(ours: list[Run], tmp_path: Any) -> None:
    """The cause of ranx's irreproducible Condorcet fusion: its candidates are a Python set
    of strings, whose order follows ``PYTHONHASHSEED``; with one seed it is reproducible.
    cranfield's order is the same under every seed."""
    import json

    small = [{q: dict(list(docs.items())[:20]) for q, docs in r.to_dict().items()} for r in ours]
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(small))

    def digest(tool: str, seed: str) -> str:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", _HASH_PROBE, str(path), tool],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    seed_1 = digest("ranx", "1")
    assert digest("ranx", "1") == seed_1
    assert digest("ranx", "2") != seed_1
    assert digest("cranfield", "1") == digest("cranfield", "2")


TRAINED = ["bayesfuse", "posfuse", "probfuse", "segfuse", "slidefuse", "mapfuse"]


def _ranx_params(method: str, qrels: Any, runs: list[Any]) -> dict[str, Any]:
    from ranx import fusion as rf

    if method == "bayesfuse":
        return {"log_odds": rf.bayesfuse_train(qrels, runs)}
    if method == "mapfuse":
        return {"map_scores": rf.mapfuse_train(qrels, runs)}
    if method == "probfuse":
        return {"probs": rf.probfuse_train(qrels, runs, 7)}
    if method == "slidefuse":
        return {"probs": rf.slidefuse_train(qrels, runs), "w": 3}
    trainer = {"posfuse": rf.posfuse_train, "segfuse": rf.segfuse_train}[method]
    return {"probs": trainer(qrels, runs)}


OUR_PARAMS = {"probfuse": {"n_segments": 7}, "slidefuse": {"w": 3}}


@pytest.mark.parametrize("method", TRAINED)
@pytest.mark.parametrize("n_train", [43, 30])
def test_trained_methods_equal_ranx(
    ours: list[Run], theirs: list[Any], method: str, n_train: int
) -> None:
    import ranx

    qrels = cranfield.load_qrels(require(QRELS))
    topics = sorted(ours[0].topics)[:n_train]
    judged = {q: d for q, d in qrels.to_dict().items() if q in topics}
    ranx_runs = [
        ranx.Run({q: d for q, d in r.to_dict().items() if q in topics}, name=r.name) for r in ours
    ]
    params = _ranx_params(method, ranx.Qrels(judged), ranx_runs)
    expected = ranx.fuse(theirs, method=method, params=params).to_dict()
    training = train(qrels, ours, queries=topics)
    assert training.queries == tuple(topics)
    got = fuse(ours, method, training=training, params=OUR_PARAMS.get(method))  # type: ignore[arg-type]
    _same(got, expected, exact_order=False)


@pytest.mark.parametrize(
    ("method", "norm"),
    [
        ("segfuse", "none"),
        ("segfuse", "zmuv"),
        ("segfuse", "rank"),
        ("segfuse", "min-max-inverted"),
        ("posfuse", "min-max-inverted"),
        ("probfuse", "min-max-inverted"),
    ],
)
def test_trained_methods_after_other_normalisations_equal_ranx(
    ours: list[Run], theirs: list[Any], method: str, norm: str
) -> None:
    """SegFuse reads the normalised scores; ``min-max-inverted`` ranks each run by score
    ascending, for the training (ranx trains on the normalised runs, as its
    ``optimize_fusion`` does) and for the fusion."""
    import ranx
    from ranx.normalization import norm_switch

    qrels = cranfield.load_qrels(require(QRELS))
    trained_on = theirs if norm == "none" else [norm_switch(norm)(r) for r in theirs]
    params = _ranx_params(method, ranx.Qrels(qrels.to_dict()), trained_on)
    expected = ranx.fuse(
        theirs, norm=None if norm == "none" else norm, method=method, params=params
    ).to_dict()
    training = train(qrels, ours, norm=norm)  # type: ignore[arg-type]
    got = fuse(ours, method, norm=norm, training=training, params=OUR_PARAMS.get(method))  # type: ignore[arg-type]
    _same(got, expected, exact_order=False)
