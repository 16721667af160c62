"""Properties of measures, driven by the tags on each ``MeasureSpec``.

Every registered spec is turned into a concrete measure (a cutoff for
``cutoff_required``, a recall level for ``recall_required``), so a new measure is
tested as soon as it is declared (except measures whose ``spec.needs`` asks for inputs
beyond qrels and run, which these strategies do not generate):

* ``bounded``: every per-topic value lies in [0, 1] (NaN ignored);
* ``count``: every per-topic value is an integer;
* ``perfect_is_one``: a run ranking every judged document by its level scores 1 on
  each topic with R > 0 (relevance level 1).

Plus invariances that hold for every measure (order of queries, depth equal to the
longest list, judged_only on a fully judged run) and identities between measures.

A second part covers every registered spec, with ``known`` and ``intents`` drawn for the
measures that need them (:func:`tests.properties.strategies.extended_collections`):

* ``bounded`` and ``perfect_is_one`` as above;
* ``set`` measures: retrieving exactly the relevant documents is perfect;
* every measure is invariant to the input order of queries and of tie-free run lines;
* ``micro`` = macro when every query has the same contingency counts;
* AP@k with k >= depth equals the appropriate full AP variant;
* the DCG variants with default parameters are trec_eval's nDCG/DCG/IDCG bit for bit.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield import evaluate
from cranfield.evaluation.results import Results
from cranfield.measures import Measure, MeasureSpec, all_specs
from cranfield.measures._spec import make
from tests.properties.strategies import (
    DOCS,
    Collection,
    ExtendedCollection,
    collections,
    extended_collections,
    extended_options,
    integer_gains,
    options,
)

# The collections leave judged queries out of the run on purpose (the missing policies are
# part of the arithmetic), so a run may answer fewer than half of them: the warning that
# says so is tested in tests/unit/evaluation/test_overlap.py, not here.
pytestmark = pytest.mark.filterwarnings("ignore::cranfield.errors.QueryOverlapWarning")

SETTINGS = settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])


def concrete(spec: MeasureSpec) -> Measure:
    """The measure with default parameters; @5 or @0.5 where the spec needs a value."""
    if spec.at == "cutoff_required":
        return make(spec.name, None, 5)
    if spec.at == "recall_required":
        return make(spec.name, None, 0.5)
    return make(spec.name)


def variants(spec: MeasureSpec) -> list[Measure]:
    """The concrete measure, and for an optional cutoff the same measure at 1 and 3."""
    out = [concrete(spec)]
    if spec.at == "cutoff":
        out += [make(spec.name, None, 1), make(spec.name, None, 3)]
    return out


def plain_specs() -> list[MeasureSpec]:
    """Every registered spec that needs no input beyond qrels and run (``spec.needs``)."""
    return [s for s in all_specs() if not getattr(s, "needs", frozenset())]


def tagged(tag: str) -> list[Measure]:
    return [m for s in plain_specs() if tag in s.tags for m in variants(s)]


def every_measure() -> list[Measure]:
    return [m for s in plain_specs() for m in variants(s)]


def test_every_spec_builds_a_concrete_measure() -> None:
    specs = all_specs()
    assert specs
    for spec in specs:
        assert concrete(spec).spec is spec
    assert {"AP", "nDCG", "P", "Bpref"} <= {s.name for s in plain_specs()}


# --------------------------------------------------------------------------- tags


@SETTINGS
@given(data=collections(), opts=options())
def test_bounded_measures_stay_in_unit_interval(data: Collection, opts: dict[str, Any]) -> None:
    qrels, run = data
    measures = tagged("bounded")
    res = evaluate(qrels, run, measures, **opts)
    for m in measures:
        v = res.values[m]
        v = v[~np.isnan(v)]
        # 1e-12 of slack: sums that are 1 mathematically may round to 1 + 2**-52
        # (RBPResid on an all-unjudged list: p^n + (1 - p)·Σ p^i)
        assert np.all((v >= 0.0) & (v <= 1.0 + 1e-12)), f"{m}: {res.values[m]}"


@SETTINGS
@given(data=collections(), opts=options())
def test_count_measures_are_integers(data: Collection, opts: dict[str, Any]) -> None:
    qrels, run = data
    measures = tagged("count")
    res = evaluate(qrels, run, measures, **opts)
    for m in measures:
        v = res.values[m]
        assert np.all(np.isfinite(v)), f"{m}: {v}"
        assert np.all(v == np.round(v)), f"{m}: {v}"


@st.composite
def perfect_collections(draw: st.DrawFn) -> Collection:
    """Graded qrels and a run ranking every judged document by level (ties any order).

    Unjudged documents (not in the qrels, or with a negative label) may follow below.
    """
    qids = draw(
        st.lists(st.sampled_from(("10", "2", "9", "a")), min_size=1, max_size=3, unique=True)
    )
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in qids:
        judged = draw(
            st.dictionaries(st.sampled_from(DOCS), st.integers(-2, 4), min_size=1, max_size=15)
        )
        seed = draw(st.integers(0, 2**16))
        rng = random.Random(seed)
        judged_docs = [d for d, lv in judged.items() if lv >= 0]
        # distinct scores within a level, or one score per level (docno breaks the tie)
        distinct = draw(st.booleans())
        ranked = {d: judged[d] * 10.0 + (rng.random() if distinct else 0.0) for d in judged_docs}
        tail = draw(st.lists(st.sampled_from(DOCS), max_size=5, unique=True))
        for i, d in enumerate(tail):
            if d not in ranked and judged.get(d, -1) < 0:
                ranked[d] = -1.0 - i
        qrels[q] = judged
        if ranked:
            run[q] = dict(rng.sample(list(ranked.items()), len(ranked)))
    return qrels, run


@SETTINGS
@given(data=perfect_collections())
def test_perfect_ranking_scores_one(data: Collection) -> None:
    qrels, run = data
    measures = [concrete(s) for s in plain_specs() if "perfect_is_one" in s.tags]
    assert measures
    res = evaluate(qrels, run, measures, relevance_level=1)
    big_r = {q: sum(1 for lv in docs.values() if lv >= 1) for q, docs in qrels.items()}
    for m in measures:
        for q, v in zip(res.topics, res.values[m], strict=True):
            if big_r[q] > 0:
                assert v == pytest.approx(1.0, abs=1e-12), f"{m} topic {q!r}: {v}"


# --------------------------------------------------------------------------- invariances


def _equal(a: np.ndarray, b: np.ndarray, what: str) -> None:
    np.testing.assert_array_equal(a, b, err_msg=what)


def column(res: Results, name: str) -> np.ndarray:
    """Per-topic values of one measure, aligned with ``res.topics``."""
    return np.array([res.per_query(name)[t] for t in res.topics])


@SETTINGS
@given(data=collections(), opts=options(), seed=st.integers(0, 2**32 - 1))
def test_order_of_queries_never_matters(data: Collection, opts: dict[str, Any], seed: int) -> None:
    qrels, run = data
    rng = random.Random(seed)
    measures = every_measure()
    first = evaluate(qrels, run, measures, **opts)
    q_items = list(qrels.items())
    r_items = list(run.items())
    rng.shuffle(q_items)
    rng.shuffle(r_items)
    second = evaluate(dict(q_items), dict(r_items), measures, **opts)
    assert first.topics == second.topics == sorted(first.topics)
    for m in measures:
        _equal(first.values[m], second.values[m], str(m))


@SETTINGS
@given(data=collections(), opts=options(), extra=st.integers(0, 10))
def test_cutoff_at_or_beyond_depth_is_no_cutoff(
    data: Collection, opts: dict[str, Any], extra: int
) -> None:
    qrels, run = data
    depth = opts["depth"] or max(len(d) for d in run.values())
    opts = {**opts, "depth": depth}
    k = depth + extra
    pairs = [(make(n), make(n, None, k)) for n in ("AP", "RR", "R", "DCG", "Judged")]
    res = evaluate(qrels, run, [m for p in pairs for m in p], **opts)
    for whole, cut in pairs:
        _equal(res.values[whole], res.values[cut], f"{cut} vs {whole}")


@st.composite
def covering_collections(draw: st.DrawFn) -> Collection:
    """Every qrels topic retrieved, each run holding at least every positive judged doc."""
    qrels, run = draw(collections())
    run = {q: dict(docs) for q, docs in run.items()}
    for q, judged in qrels.items():
        docs = run.setdefault(q, {})
        for d, lv in judged.items():
            if lv > 0 and d not in docs:
                docs[d] = draw(st.sampled_from((0.0, 1.0, 2.0)))
        if not docs:
            docs[DOCS[0]] = 1.0
    return qrels, run


@SETTINGS
@given(data=covering_collections(), gains=integer_gains(), extra=st.integers(0, 5))
def test_ndcg_at_k_covering_every_list_is_ndcg(
    data: Collection, gains: dict[int, int], extra: int
) -> None:
    qrels, run = data
    k = max(len(d) for d in run.values()) + extra
    # custom gains may put level-0 documents in the ideal: cover every judged document too
    k_gains = max(k, *(len(d) for d in qrels.values()))
    pairs = [
        (make("nDCG"), make("nDCG", None, k)),
        (make("nDCG", {"gains": gains}), make("nDCG", {"gains": gains}, k_gains)),
    ]
    res = evaluate(qrels, run, [m for p in pairs for m in p])
    for whole, cut in pairs:
        np.testing.assert_allclose(res.values[cut], res.values[whole], rtol=1e-12, atol=1e-15)


@SETTINGS
@given(data=collections(), opts=options())
def test_depth_equal_to_the_longest_list_is_a_no_op(data: Collection, opts: dict[str, Any]) -> None:
    qrels, run = data
    measures = every_measure()
    a = evaluate(qrels, run, measures, **{**opts, "depth": None})
    b = evaluate(qrels, run, measures, **{**opts, "depth": max(len(d) for d in run.values())})
    for m in measures:
        _equal(a.values[m], b.values[m], str(m))


@SETTINGS
@given(data=collections(), opts=options())
def test_judged_only_on_a_fully_judged_run_is_a_no_op(
    data: Collection, opts: dict[str, Any]
) -> None:
    qrels, run = data
    run = {
        q: {d: s for d, s in docs.items() if qrels.get(q, {}).get(d, -1) >= 0}
        for q, docs in run.items()
    }
    run = {q: docs for q, docs in run.items() if docs}
    if not any(q in qrels for q in run):
        return
    opts = {**opts, "missing": "skip"}  # a placeholder ranking is unjudged by construction
    measures = every_measure()
    a = evaluate(qrels, run, measures, **{**opts, "judged_only": False})
    b = evaluate(qrels, run, measures, **{**opts, "judged_only": True})
    for m in measures:
        _equal(a.values[m], b.values[m], str(m))


# --------------------------------------------------------------------------- identities


@SETTINGS
@given(data=collections(), opts=options())
def test_identities_between_measures(data: Collection, opts: dict[str, Any]) -> None:
    qrels, run = data
    ks = (1, 3, 10)
    cut = ("Judged", "Unjudged", "R", "Success", "P", "Hits")
    names = ["AP", "GMAP", "Bpref", "GMBpref", *(f"{n}@{k}" for n in cut for k in ks)]
    res = evaluate(qrels, run, names, **opts)
    v = {n: column(res, n) for n in names}
    # geometric-mean measures store the plain per-topic value
    _equal(v["GMAP"], v["AP"], "GMAP vs AP")
    _equal(v["GMBpref"], v["Bpref"], "GMBpref vs Bpref")
    lengths = np.array(
        [0 if t not in run else min(len(run[t]), opts["depth"] or math.inf) for t in res.topics]
    )
    for k in ks:
        full = (lengths >= k) & np.array([t in run for t in res.topics])
        if not opts["judged_only"]:  # Judged and Unjudged see the same first k documents
            np.testing.assert_allclose(
                (v[f"Judged@{k}"] + v[f"Unjudged@{k}"])[full], 1.0, rtol=1e-12
            )
    for small, large in itertools.pairwise(ks):
        assert np.all(v[f"R@{small}"] <= v[f"R@{large}"])
        assert np.all(v[f"Success@{small}"] <= v[f"Success@{large}"])
        assert np.all(v[f"P@{small}"] * small <= v[f"P@{large}"] * large + 1e-12)
    for k in ks:  # Hits counts what P@k divides by k
        np.testing.assert_allclose(v[f"Hits@{k}"], v[f"P@{k}"] * k, rtol=1e-12)


@SETTINGS
@given(data=collections(), opts=options())
def test_infap_is_ap_without_pooled_unjudged_documents(
    data: Collection, opts: dict[str, Any]
) -> None:
    qrels, run = data
    qrels = {q: {d: max(lv, 0) for d, lv in docs.items()} for q, docs in qrels.items()}
    res = evaluate(qrels, run, ["AP", "infAP"], **opts)
    np.testing.assert_allclose(column(res, "infAP"), column(res, "AP"), rtol=0, atol=2e-5)


@SETTINGS
@given(data=collections(), opts=options())
def test_default_gains_on_binary_qrels_are_gain_one(data: Collection, opts: dict[str, Any]) -> None:
    qrels, run = data
    qrels = {q: {d: min(lv, 1) for d, lv in docs.items()} for q, docs in qrels.items()}
    names = ("nDCG", "DCG", "IDCG", "nDCG_rel", "RnDCG", "G", "RBP")
    pairs = [(make(n), make(n, {"gains": {1: 1}})) for n in names]
    pairs += [(make(n, None, 3), make(n, {"gains": {1: 1}}, 3)) for n in ("nDCG", "DCG", "IDCG")]
    res = evaluate(qrels, run, [m for p in pairs for m in p], **opts)
    for default, explicit in pairs:
        np.testing.assert_allclose(
            res.values[explicit], res.values[default], rtol=1e-12, atol=0, err_msg=str(explicit)
        )


# --------------------------------------------------------------------------- every spec, extra inputs
# The same promises over every registered spec, the measures that need ``known`` or
# ``intents`` included (they get them from the extended collections), and more: a set
# measure retrieving exactly the relevant documents is perfect, micro equals macro when every
# query has the same counts, AP@k beyond the depth is the full AP, and the DCG variants with
# default parameters are trec_eval's nDCG/DCG/IDCG bit for bit.


def cut_variants(spec: MeasureSpec, cut: int = 3) -> list[Measure]:
    if spec.at == "cutoff_required":
        return [make(spec.name, None, cut)]
    if spec.at == "recall_required":
        return [make(spec.name, None, 0.5)]
    if spec.at == "cutoff":
        return [make(spec.name), make(spec.name, None, cut)]
    return [make(spec.name)]


def every_with_extras(tag: str | None = None) -> list[Measure]:
    return [m for s in all_specs() if tag is None or tag in s.tags for m in cut_variants(s)]


def _evaluate_extended(data: ExtendedCollection, measures: list[Measure], **opts: Any) -> Results:
    qrels, run, known, intents = data
    return evaluate(qrels, run, measures, known=known, intents=intents, **opts)


@SETTINGS
@given(data=extended_collections(), opts=extended_options())
def test_bounded_measures_stay_in_the_unit_interval_with_extra_inputs(
    data: ExtendedCollection, opts: dict[str, Any]
) -> None:
    res = _evaluate_extended(data, every_with_extras("bounded"), **opts)
    for m, values in res.values.items():
        v = values[~np.isnan(values)]
        assert np.all((v >= 0.0) & (v <= 1.0)), f"{m}: {values}"


@st.composite
def perfect_extended_collections(draw: st.DrawFn) -> ExtendedCollection:
    """Graded judgments; a run ranking every judged document by level, distinct scores."""
    qrels, _, known, intents = draw(extended_collections())
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
@given(data=perfect_extended_collections())
def test_a_perfect_ranking_scores_one_with_extra_inputs(data: ExtendedCollection) -> None:
    measures = [
        m for s in all_specs() if "perfect_is_one" in s.tags for m in cut_variants(s, 5)[:1]
    ]
    res = _evaluate_extended(data, measures, relevance_level=1)
    qrels = data[0]
    for m in measures:
        for q, v in zip(res.topics, res.values[m], strict=True):
            if sum(1 for lv in qrels[q].values() if lv >= 1) > 0:
                assert v == 1.0 or abs(v - 1.0) < 1e-12, f"{m} on {q}: {v}"


SET_PERFECT = {"SetFallout": 0.0, "SetE": 0.0}


@SETTINGS
@given(data=extended_collections())
def test_retrieving_exactly_the_relevant_set_is_perfect(data: ExtendedCollection) -> None:
    qrels, _, _known, _intents = data
    run = {q: {d: 1.0 for d, lv in docs.items() if lv >= 1} for q, docs in qrels.items()}
    run = {q: docs for q, docs in run.items() if docs}
    if not run:
        return
    measures = [
        m
        for s in all_specs()
        if "set" in s.tags and s.name not in ("T11U",)
        for m in cut_variants(s, 100)
    ]
    res = evaluate(qrels, run, measures, missing="skip")
    for m in measures:
        assert np.allclose(res.values[m], SET_PERFECT.get(m.name, 1.0)), f"{m}: {res.values[m]}"


@SETTINGS
@given(data=extended_collections(), opts=extended_options(), seed=st.integers(0, 2**16))
def test_input_order_of_queries_and_tie_free_lines_does_not_matter(
    data: ExtendedCollection, opts: dict[str, Any], seed: int
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

    measures = every_with_extras()
    a = _evaluate_extended((qrels, run, known, intents), measures, **opts)
    b = _evaluate_extended(
        (shuffled(qrels), shuffled(run), shuffled(known), shuffled(intents)), measures, **opts
    )
    assert a.topics == b.topics
    for m in measures:
        assert np.array_equal(a.values[m], b.values[m], equal_nan=True), m
        if m in a.micro:
            assert a.micro[m] == b.micro[m] or (np.isnan(a.micro[m]) and np.isnan(b.micro[m]))


@SETTINGS
@given(data=extended_collections(), copies=st.integers(2, 4), opts=extended_options())
def test_micro_equals_macro_when_every_query_has_the_same_counts(
    data: ExtendedCollection, copies: int, opts: dict[str, Any]
) -> None:
    qrels, run, _, _ = data
    q0 = next(iter(run))
    qrels = {f"t{i}": dict(qrels[q0]) for i in range(copies)}
    run = {f"t{i}": dict(run[q0]) for i in range(copies)}
    measures = [m for s in all_specs() if s.micro is not None for m in cut_variants(s)]
    res = evaluate(qrels, run, measures, **opts)
    for m in measures:
        assert abs(res.aggregate(m, "micro") - res.aggregate(m, "mean")) < 1e-12, m


@SETTINGS
@given(data=extended_collections(), opts=extended_options())
def test_ap_at_k_beyond_the_depth_is_the_full_ap(
    data: ExtendedCollection, opts: dict[str, Any]
) -> None:
    qrels, run, _, _ = data
    deepest = max(len(d) for d in run.values())
    most_relevant = max(len(d) for d in qrels.values())
    k = max(deepest, most_relevant)
    names = ["AP", f"AP@{deepest}", "AP_min", f"AP_min@{k}", "AP_ret", f"AP_ret@{deepest}"]
    res = evaluate(qrels, run, names, **opts)
    assert np.array_equal(res.values[res._key("AP")], res.values[res._key(f"AP@{deepest}")])
    assert np.array_equal(res.values[res._key("AP")], res.values[res._key(f"AP_min@{k}")])
    assert np.array_equal(res.values[res._key("AP")], res.values[res._key("AP_min")])
    assert np.array_equal(res.values[res._key("AP_ret")], res.values[res._key(f"AP_ret@{deepest}")])


@SETTINGS
@given(data=extended_collections(), opts=extended_options())
def test_dcg_variants_with_defaults_are_trec_eval(
    data: ExtendedCollection, opts: dict[str, Any]
) -> None:
    qrels, run, _, _ = data
    pairs = [(f"{m}{c}", f"{m}x{c}") for m in ("nDCG", "DCG", "IDCG") for c in ("", "@1", "@3")]
    pairs.append(("nDCG(gains={1:0,2:3})@3", "nDCGx(gains={1:0,2:3})@3"))
    names = [n for pair in pairs for n in pair]
    res = evaluate(qrels, run, names, **opts)
    for trec, variant in pairs:
        assert np.array_equal(res.values[res._key(trec)], res.values[res._key(variant)]), variant
