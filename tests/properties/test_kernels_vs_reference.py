"""Every per-topic value of every measure equals the slow oracle in ``tests/reference.py``.

Inputs are adversarial collections (see :mod:`tests.properties.strategies`); options cover the
relevance level, ``judged_only``, ``depth``, both missing-topic policies, both compat
versions and the collection size; custom gains are drawn per example (integers only, the
oracle's documented limit). Also checked: the input order of run lines (ties included)
never matters, and ``float32=True`` is the oracle on float32-rounded scores.

The measures beyond trec_eval are compared the same way with the extended oracle
(:func:`tests.reference.extended_value`), on collections that also carry the documents the
user knows and subtopic judgments (:func:`tests.properties.strategies.extended_collections`).

Deviations found by this comparison and since fixed are kept in :data:`REGRESSIONS`, each a
minimal reproduction asserted against both the oracle and the library.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any
from unittest import mock

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield import evaluate
from cranfield.kernels import graded, incomplete
from cranfield.measures import Measure, all_specs, parse_measure
from cranfield.measures._spec import make
from tests import reference
from tests.properties.strategies import (
    Collection,
    ExtendedCollection,
    collections,
    extended_collections,
    extended_options,
    integer_gains,
    options,
    same_values,
)

# The collections leave judged queries out of the run on purpose (the missing policies are
# part of the arithmetic), so a run may answer fewer than half of them: the warning that
# says so is tested in tests/unit/evaluation/test_overlap.py, not here.
pytestmark = pytest.mark.filterwarnings("ignore::cranfield.errors.QueryOverlapWarning")

CUTOFF_MEASURES = (
    "AP", "RR", "P", "R", "RelP", "Success", "Hits", "nDCG", "DCG", "IDCG", "Judged",
    "Unjudged", "SetP", "SetR", "SetAP", "SetF",
)  # fmt: skip
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 0.25, 0.75, 1 / 3, 2 / 3)
GAIN_MEASURES = ("nDCG", "DCG", "IDCG", "nDCG_rel", "RnDCG", "G", "RBP")


def supported(
    name: str, params: dict[str, Any] | None = None, at: float | None = None
) -> list[Measure]:
    """``[make(...)]`` if this version of the measure has these parameters and cutoff, else ``[]``.

    The oracle knows parameters that not every version of a measure has (set measures
    at k, ``SetF(alpha=)``, ``RBPResid(tail=)``); those variants are compared where they exist.
    """
    spec = next(s for s in all_specs() if s.name == name)
    if any(p not in {q.name for q in spec.params} for p in params or {}):
        return []
    if at is not None and spec.at == "none":
        return []
    return [make(name, params, at)]


FIXED: list[Measure] = [
    *(
        make(s.name)
        for s in all_specs()
        if s.at in ("none", "cutoff") and s.name in reference.NAMES
    ),
    make("P", {"rel": 1}, 5),
    make("P", {"rel": 2}, 5),
    make("AP", {"rel": 3}),
    make("NumRel", {"rel": 2}),
    make("SetP", {"relative": True}),
    make("SetF", {"beta": 0.5}),
    make("SetF", {"beta": 0.0}),
    make("SetF", {"beta": 2.0}),
    *supported("SetF", {"alpha": 0.25}),
    *supported("SetF", {"alpha": 1.0}),
    *supported("SetP", {"relative": True}, 3),
    *supported("SetF", {"beta": 0.5}, 4),
    make("Utility", {"a": 2.0, "b": -0.5, "c": -1.0, "d": 0.25}),
    *(make("Rprec", {"mult": m}) for m in (0.0, 0.2, 0.5, 0.6, 1.5, 2.0)),
    make("IPrecAvg", {"levels": (0.25, 0.5, 0.75)}),
    make("IPrecAvg", {"levels": (0.5,)}),
    *(make("IPrec", None, p) for p in RECALL_LEVELS),
    make("RBP", {"p": 0.5}),
    make("RBP", {"p": 1.0}),
    make("RBPResid", {"p": 0.5}),
    make("RBPResid", {"p": 1.0}),
    *supported("RBPResid", {"tail": True}),
    *supported("RBPResid", {"p": 0.5, "tail": True}),
    make("RnDCG", {"rel": 2}),
    make("Bpref", {"rel": 2}),
    make("infAP", {"rel": 2}),
]


def measures_for(k: int, gains: dict[int, int]) -> list[Measure]:
    """FIXED, every cutoff measure at 1, 2, 5, 10 and k, and the gain-table measures with ``gains``."""
    out = list(FIXED)
    for name in CUTOFF_MEASURES:
        out += [m for c in sorted({1, 2, 5, 10, k}) for m in supported(name, None, c)]
    out += [make(name, {"gains": gains}) for name in GAIN_MEASURES]
    out += [make(name, {"gains": gains}, k) for name in ("nDCG", "DCG", "IDCG")]
    out.append(make("RBP", {"p": 0.5, "gains": gains}))
    out.append(make("RnDCG", {"rel": 2, "gains": gains}))
    return list(dict.fromkeys(out))


# --------------------------------------------------------------------------- regressions


@dataclass(frozen=True)
class KnownBug:
    """A (fixed) deviation of the library from trec_eval's semantics, minimally reproduced."""

    id: str
    reason: str
    qrels: dict[str, dict[str, int]]
    run: dict[str, dict[str, float]]
    measure: Measure
    options: dict[str, Any]
    expected: dict[str, float]  # per topic, what trec_eval (and the oracle) give


REGRESSIONS = [
    KnownBug(
        "rbp-rescales-unmatched-levels",
        "RBP with custom gains outside [0, 1] rescales (g - min)/(max - min) also the gain 0 of "
        "documents whose level has no gain-table entry (e.g. unjudged documents); trec_eval "
        "rescales the table entries only, so such documents keep gain 0",
        {"q": {"a": 1, "b": 0}},
        {"q": {"x": 3.0, "a": 2.0}},
        make("RBP", {"gains": {0: -1}}),
        {},
        {"q": 0.1 * 0.9},  # kernel: 0.14 (x gets (0 + 1) / 2)
    ),
    KnownBug(
        "rbp-rescales-unmatched-levels-degenerate",
        "same cause, degenerate table: the only entry has gain 2, so max == min; trec_eval "
        "leaves the unjudged document at gain 0 (RBP 0), the kernel computes (0 - 2) / 0 = -inf",
        {"q": {"a": 0}},
        {"q": {"x": 1.0}},
        make("RBP", {"gains": {0: 2}}),
        {},
        {"q": 0.0},
    ),
    KnownBug(
        "iprec-lround-just-below-half",
        "lround(x) is computed as floor(|x| + 0.5), which gives 1 for x = 0.49999999999999994 "
        "(x + 0.5 rounds to 1.0); C lround gives 0. On an empty ranking IPrec@p is then 0 "
        "(c = 1 > rr) instead of trec_eval's NaN (c = 0)",
        {"q": {"a": 1}},
        {"q": {"x": 3.0}},
        make("IPrec", None, 0.49999999999999994),
        {"judged_only": True},
        {"q": float("nan")},
    ),
]


@pytest.mark.parametrize("bug", [pytest.param(b, id=b.id) for b in REGRESSIONS])
def test_fixed_deviation_stays_fixed(bug: KnownBug) -> None:
    ref = reference.values(
        bug.qrels,
        bug.run,
        bug.measure.name,
        dict(bug.measure.params),
        bug.measure.at,
        **bug.options,
    )
    assert all(same_values(ref[q], want) for q, want in bug.expected.items()), (
        "the oracle disagrees"
    )
    got = evaluate(bug.qrels, bug.run, [bug.measure], **bug.options).per_query(bug.measure)
    assert got.keys() == bug.expected.keys()
    for q, want in bug.expected.items():
        assert same_values(got[q], want), (
            f"{bug.measure} topic {q!r}: got {got[q]!r}, want {want!r}"
        )


# --------------------------------------------------------------------------- comparison


def mismatches(
    qrels: dict[str, dict[str, int]],
    run: dict[str, dict[str, float]],
    measures: list[Measure],
    opts: dict[str, Any],
    *,
    float32: bool = False,
    exact: bool = False,
) -> list[str]:
    """Human-readable differences between ``evaluate`` and the oracle (empty if none);
    ``exact``: the same bits, not only the same value within 1e-9."""
    res = evaluate(qrels, run, measures, float32=float32, **opts)
    topics = reference.prepare(
        qrels,
        run,
        missing=opts["missing"],
        depth=opts["depth"],
        judged_only=opts["judged_only"],
        float32=float32,
    )
    if res.topics != [t.qid for t in topics]:
        return [f"topics {res.topics} != {[t.qid for t in topics]}"]
    out = []
    for m in measures:
        got = res.values[m]
        for i, t in enumerate(topics):
            want = reference.value(
                t,
                m.name,
                dict(m.params),
                m.at,
                relevance_level=opts["relevance_level"],
                compat=opts["compat"],
                num_docs=opts["num_docs"],
            )
            if not (same_bits if exact else same_values)(float(got[i]), want):
                out.append(f"{m} topic {t.qid!r}: kernel {got[i]!r}, reference {want!r}")
    return out


def same_bits(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def sparse_measures(k: int, gains: dict[int, int]) -> list[Measure]:
    """The measures computed from the rows with a gain, a judgment or a relevant document."""
    out = [make(name, {"gains": gains}) for name in GAIN_MEASURES]
    out += [make(name) for name in GAIN_MEASURES]
    out += [make(name, {"gains": gains}, at) for name in ("nDCG", "DCG") for at in (1, k)]
    out += [
        make(name, None, at)
        for name in ("AP", "RR", "P", "R", "RelP", "Success", "Hits")
        for at in (1, k)
    ]
    out += [make("IPrec", None, p) for p in RECALL_LEVELS]
    out += [make("RBPResid"), make("RBPResid", {"p": 0.5}), make("RBP", {"p": 0.5, "gains": gains})]
    out += [make(name, None, at) for name in ("Judged", "Unjudged") for at in (1, k)]
    out += [make("Judged"), make("NumNonRelJudgedRet"), make("NumNonRelJudgedRet", {"rel": 2})]
    out += [make("Bpref"), make("infAP"), make("GMBpref")]
    return out


@settings(deadline=None, max_examples=120, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), opts=options(), k=st.integers(1, 35), gains=integer_gains())
def test_sparse_kernels_give_the_references_bits(
    data: Collection, opts: dict[str, Any], k: int, gains: dict[int, int]
) -> None:
    """Skipping the rows that add zero changes no bit: the oracle adds every row in order."""
    qrels, run = data
    bad = mismatches(qrels, run, sparse_measures(k, gains), opts, exact=True)
    assert not bad, "\n".join(bad[:20])


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), opts=options(), gains=integer_gains())
def test_row_by_row_fallbacks_give_the_same_bits(
    data: Collection, opts: dict[str, Any], gains: dict[int, int]
) -> None:
    """G with fractional gains and RBPResid on very uneven rankings sum every row; on
    whole-number gains and even rankings they must agree with the shortcuts exactly."""
    qrels, run = data
    measures = [
        make("G"),
        make("G", {"gains": gains}),
        make("RBPResid"),
        make("RBPResid", {"p": 0.5}),
    ]
    fast = evaluate(qrels, run, measures, **opts)
    with (
        mock.patch.object(graded, "_whole_numbers", return_value=False),
        mock.patch.object(incomplete, "_PADDED_SLACK", -(10**12)),
    ):
        slow = evaluate(qrels, run, measures, **opts)
    for m in measures:
        np.testing.assert_array_equal(fast.values[m], slow.values[m], err_msg=str(m))


def test_every_oracle_is_a_registered_measure() -> None:
    """The oracle never drifts from the registry (a renamed measure fails here).

    Measures registered after the oracle was written are not compared until a function
    is added to ``tests/reference.py``; the tag-driven tests in
    ``test_measure_properties.py`` cover them meanwhile.
    """
    assert {s.name for s in all_specs()} >= reference.NAMES


@pytest.mark.slow
@settings(deadline=None, max_examples=120, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), opts=options(), k=st.integers(1, 35), gains=integer_gains())
def test_every_measure_equals_the_reference(
    data: Collection, opts: dict[str, Any], k: int, gains: dict[int, int]
) -> None:
    qrels, run = data
    bad = mismatches(qrels, run, measures_for(k, gains), opts)
    assert not bad, "\n".join(bad[:20])


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), opts=options(), gains=integer_gains())
def test_float32_is_the_reference_on_rounded_scores(
    data: Collection, opts: dict[str, Any], gains: dict[int, int]
) -> None:
    qrels, run = data
    bad = mismatches(qrels, run, measures_for(3, gains), opts, float32=True)
    assert not bad, "\n".join(bad[:20])


def _shuffled_frame(run: dict[str, dict[str, float]], rng: random.Random) -> pl.DataFrame:
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    rng.shuffle(rows)
    return pl.DataFrame(
        {
            "query_id": [r[0] for r in rows],
            "doc_id": [r[1] for r in rows],
            "score": [r[2] for r in rows],
        },
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64},
    )


@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), opts=options(), seed=st.integers(0, 2**32 - 1))
def test_input_order_of_run_lines_never_matters(
    data: Collection, opts: dict[str, Any], seed: int
) -> None:
    qrels, run = data
    rng = random.Random(seed)
    measures = measures_for(7, {1: 2, 2: 5, -1: 1})
    first = evaluate(qrels, run, measures, **opts)
    # the same lines as a frame, interleaved across topics in a random order
    second = evaluate(qrels, _shuffled_frame(run, rng), measures, **opts)
    # and as a dict whose topics and documents come in another order
    items = list(run.items())
    rng.shuffle(items)
    third = evaluate(
        qrels, {q: dict(rng.sample(list(d.items()), len(d))) for q, d in items}, measures, **opts
    )
    assert first.topics == second.topics == third.topics
    for m in measures:
        np.testing.assert_array_equal(first.values[m], second.values[m], err_msg=str(m))
        np.testing.assert_array_equal(first.values[m], third.values[m], err_msg=str(m))


# --------------------------------------------------------------------------- beyond trec_eval
# The measures beyond trec_eval (set and utility measures with every option, AP variants,
# ERR, DCG variants, user-oriented and diversity measures) against the extended oracle,
# on collections with known documents and subtopic judgments.

EXTENDED_CUTS = ("", "@1", "@3", "@10")
EXTENDED_MEASURE_NAMES = [
    *(
        f"{m}{c}"
        for m in ("SetP", "SetR", "SetAP", "SetF", "SetFallout", "SetE", "SetAccuracy")
        for c in EXTENDED_CUTS
    ),
    "SetP(relative=True)@3",
    "SetF(beta=0.5)",
    "SetF(beta=0)",
    "SetF(alpha=0.25)@3",
    "SetE(b=2)",
    "T11U",
    "T11SU",
    "T11F",
    *(
        f"{m}{c}"
        for m in ("AP_min", "AP_ret", "ERR", "CG", "nCG", "DCGx", "IDCGx", "nDCGx")
        for c in EXTENDED_CUTS
    ),
    "AP_min(rel=2)@3",
    "ERR(max_level=2)@3",
    "AP11",
    "AP11(levels=(0.25,0.5))",
    *(f"IntPrec@{p}" for p in (0, 0.1, 0.25, 1 / 3, 0.5, 0.6, 2 / 3, 1)),
    "BprefR",
    "Bpref10",
    "BprefR(rel=2)",
    "RBPResid(tail=True)",
    "RBPResid(p=0.5,tail=True)",
    "nDCGx(exp=True)@3",
    "nDCGx(jk=True)",
    "nDCGx(base=3,jk=True)@3",
    "nDCGx(retrieved_ideal=True)@3",
    "nDCGx(base=10)",
    "nDCGx(exp=True,jk=True,retrieved_ideal=True)",
    "nCG(exp=True,retrieved_ideal=True)@3",
    "DCGx(exp=True,jk=True)@3",
    "IDCGx(retrieved_ideal=True)",
    *(f"{m}{c}" for m in ("Coverage", "Novelty", "RelRecall", "RecallEffect") for c in ("", "@2")),
    "alpha_nDCG",
    "alpha_nDCG@1",
    "alpha_nDCG@3",
    "alpha_nDCG(alpha=0)@5",
    "alpha_nDCG(alpha=1)",
    "alpha_nDCG(rel=2)@3",
    "ERR_IA@1",
    "ERR_IA@3",
    "ERR_IA(alpha=0)@5",
    "nERR_IA@1",
    "nERR_IA(alpha=1,rel=2)@3",
    "NRBP",
    "NRBP(alpha=0.2,beta=0.9)",
    "nNRBP",
    "nNRBP(alpha=1,beta=0)",
    "P_IA@1",
    "P_IA(rel=2)@4",
    "AP_IA",
    "AP_IA(rel=2)",
    "StRecall",
    "StRecall@2",
    *(f"Hits{c}" for c in EXTENDED_CUTS),
    "Hits(rel=2)@3",
]
EXTENDED_MEASURES: list[Measure] = [parse_measure(n) for n in EXTENDED_MEASURE_NAMES]
EXTENDED_SETTINGS = settings(
    deadline=None, max_examples=120, suppress_health_check=[HealthCheck.too_slow]
)


def test_every_measure_beyond_trec_eval_has_an_oracle() -> None:
    trec = {"SetP", "SetR", "SetAP", "SetF", "Utility"}
    new = {s.name for s in all_specs() if s.name in reference.EXTENDED_NAMES or not s.trec} - trec
    covered = {m.name for m in EXTENDED_MEASURES}
    assert new - {"Judged", "RBPResid"} <= covered | {"Judged"}


@pytest.mark.slow
@EXTENDED_SETTINGS
@given(data=extended_collections(), opts=extended_options())
def test_measures_beyond_trec_eval_equal_the_reference(
    data: ExtendedCollection, opts: dict[str, Any]
) -> None:
    qrels, run, known, intents = data
    res = evaluate(qrels, run, EXTENDED_MEASURES, known=known, intents=intents, **opts)
    topics = reference.prepare_extended(
        qrels,
        run,
        missing=opts["missing"],
        depth=opts["depth"],
        judged_only=opts["judged_only"],
        known=known,
        intents=intents,
    )
    assert res.topics == [t.qid for t in topics]
    for m in EXTENDED_MEASURES:
        params = {p.name: m.get(p.name) for p in m.spec.params}
        if params.get("rel") is None:
            params.pop("rel", None)
        params.pop("gains", None)
        expected = [
            reference.extended_value(
                t, m.name, params, m.at, rel=opts["relevance_level"], num_docs=opts["num_docs"]
            )
            for t in topics
        ]
        got = res.values[m]
        assert np.allclose(got, expected, rtol=1e-12, atol=1e-12), f"{m}: {got} != {expected}"
        assert not any(math.isnan(v) for v in got), m
