"""Properties over the whole registry, driven by each spec's tags and fields.

* ``bounded``: per-topic values in [0, 1];
* ``perfect_is_one``: a ranking of every judged document by level scores 1 where R > 0;
* ``set`` measures: retrieving exactly the relevant documents is perfect;
* every measure is invariant to the input order of queries and of tie-free run lines;
* ``micro`` = macro when every query has the same contingency counts;
* AP@k with k >= depth equals the appropriate full AP variant;
* the DCG variants with default parameters are trec_eval's nDCG/DCG/IDCG bit for bit.

Measures that need ``known`` or ``intents`` get them from the generated collection.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cranfield
from cranfield.measures import Measure, MeasureSpec, all_specs
from cranfield.measures._spec import make
from tests.measures.strategies import Collection, collections, options

SETTINGS = settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])


def concrete(spec: MeasureSpec, cut: int = 3) -> list[Measure]:
    if spec.at == "cutoff_required":
        return [make(spec.name, None, cut)]
    if spec.at == "recall_required":
        return [make(spec.name, None, 0.5)]
    if spec.at == "cutoff":
        return [make(spec.name), make(spec.name, None, cut)]
    return [make(spec.name)]


def every(tag: str | None = None) -> list[Measure]:
    return [m for s in all_specs() if tag is None or tag in s.tags for m in concrete(s)]


def _evaluate(data: Collection, measures: list[Measure], **opts: Any) -> cranfield.Results:
    qrels, run, known, intents = data
    return cranfield.evaluate(qrels, run, measures, known=known, intents=intents, **opts)


@SETTINGS
@given(data=collections(), opts=options())
def test_bounded_measures_stay_in_the_unit_interval(data: Collection, opts: dict[str, Any]) -> None:
    res = _evaluate(data, every("bounded"), **opts)
    for m, values in res.values.items():
        v = values[~np.isnan(values)]
        assert np.all((v >= 0.0) & (v <= 1.0)), f"{m}: {values}"


@st.composite
def perfect(draw: st.DrawFn) -> Collection:
    """Graded judgments; a run ranking every judged document by level, distinct scores."""
    qrels, _, known, intents = draw(collections())
    rng = random.Random(draw(st.integers(0, 2**16)))
    run = {}
    for q, docs in qrels.items():
        judged = [d for d, lv in docs.items() if lv >= 0]
        if judged:
            run[q] = {d: docs[d] * 10.0 + rng.random() for d in judged}
    if not run:
        first = next(iter(qrels))
        qrels[first]["zz_rel"] = 1
        run[first] = {"zz_rel": 1.0}
    return qrels, run, known, intents


@SETTINGS
@given(data=perfect())
def test_a_perfect_ranking_scores_one(data: Collection) -> None:
    measures = [m for s in all_specs() if "perfect_is_one" in s.tags for m in concrete(s, 5)[:1]]
    res = _evaluate(data, measures, relevance_level=1)
    qrels = data[0]
    for m in measures:
        for q, v in zip(res.topics, res.values[m], strict=True):
            if sum(1 for lv in qrels[q].values() if lv >= 1) > 0:
                assert v == 1.0 or abs(v - 1.0) < 1e-12, f"{m} on {q}: {v}"


SET_PERFECT = {"SetFallout": 0.0, "SetE": 0.0}


@SETTINGS
@given(data=collections())
def test_retrieving_exactly_the_relevant_set_is_perfect(data: Collection) -> None:
    qrels, _, _known, _intents = data
    run = {q: {d: 1.0 for d, lv in docs.items() if lv >= 1} for q, docs in qrels.items()}
    run = {q: docs for q, docs in run.items() if docs}
    if not run:
        return
    measures = [
        m
        for s in all_specs()
        if "set" in s.tags and s.name not in ("T11U",)
        for m in concrete(s, 100)
    ]
    res = cranfield.evaluate(qrels, run, measures, missing="skip")
    for m in measures:
        assert np.allclose(res.values[m], SET_PERFECT.get(m.name, 1.0)), f"{m}: {res.values[m]}"


@SETTINGS
@given(data=collections(), opts=options(), seed=st.integers(0, 2**16))
def test_input_order_of_queries_and_tie_free_lines_does_not_matter(
    data: Collection, opts: dict[str, Any], seed: int
) -> None:
    qrels, run, known, intents = data
    rng = random.Random(seed)
    # make scores tie-free, then shuffle topics and lines
    run = {
        q: {d: s + 0.001 * i for i, (d, s) in enumerate(sorted(docs.items()))}
        for q, docs in run.items()
    }

    def shuffled(mapping: dict[str, Any]) -> dict[str, Any]:
        items = list(mapping.items())
        rng.shuffle(items)
        return {k: shuffled(v) if isinstance(v, dict) else v for k, v in items}

    measures = every()
    a = _evaluate((qrels, run, known, intents), measures, **opts)
    b = _evaluate(
        (shuffled(qrels), shuffled(run), shuffled(known), shuffled(intents)), measures, **opts
    )
    assert a.topics == b.topics
    for m in measures:
        assert np.array_equal(a.values[m], b.values[m], equal_nan=True), m
        if m in a.micro:
            assert a.micro[m] == b.micro[m] or (np.isnan(a.micro[m]) and np.isnan(b.micro[m]))


@SETTINGS
@given(data=collections(), copies=st.integers(2, 4), opts=options())
def test_micro_equals_macro_when_every_query_has_the_same_counts(
    data: Collection, copies: int, opts: dict[str, Any]
) -> None:
    qrels, run, _, _ = data
    q0 = next(iter(run))
    qrels = {f"t{i}": dict(qrels[q0]) for i in range(copies)}
    run = {f"t{i}": dict(run[q0]) for i in range(copies)}
    measures = [m for s in all_specs() if s.micro is not None for m in concrete(s)]
    res = cranfield.evaluate(qrels, run, measures, **opts)
    for m in measures:
        assert abs(res.aggregate(m, "micro") - res.aggregate(m, "mean")) < 1e-12, m


@SETTINGS
@given(data=collections(), opts=options())
def test_ap_at_k_beyond_the_depth_is_the_full_ap(data: Collection, opts: dict[str, Any]) -> None:
    qrels, run, _, _ = data
    deepest = max(len(d) for d in run.values())
    most_relevant = max(len(d) for d in qrels.values())
    k = max(deepest, most_relevant)
    names = ["AP", f"AP@{deepest}", "AP_min", f"AP_min@{k}", "AP_ret", f"AP_ret@{deepest}"]
    res = cranfield.evaluate(qrels, run, names, **opts)
    assert np.array_equal(res.values[res._key("AP")], res.values[res._key(f"AP@{deepest}")])
    assert np.array_equal(res.values[res._key("AP")], res.values[res._key(f"AP_min@{k}")])
    assert np.array_equal(res.values[res._key("AP")], res.values[res._key("AP_min")])
    assert np.array_equal(res.values[res._key("AP_ret")], res.values[res._key(f"AP_ret@{deepest}")])


@SETTINGS
@given(data=collections(), opts=options())
def test_dcg_variants_with_defaults_are_trec_eval(data: Collection, opts: dict[str, Any]) -> None:
    qrels, run, _, _ = data
    pairs = [(f"{m}{c}", f"{m}x{c}") for m in ("nDCG", "DCG", "IDCG") for c in ("", "@1", "@3")]
    pairs.append(("nDCG(gains={1:0,2:3})@3", "nDCGx(gains={1:0,2:3})@3"))
    names = [n for pair in pairs for n in pair]
    res = cranfield.evaluate(qrels, run, names, **opts)
    for trec, variant in pairs:
        assert np.array_equal(res.values[res._key(trec)], res.values[res._key(variant)]), variant
