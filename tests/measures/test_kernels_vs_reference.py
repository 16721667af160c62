"""The vectorised kernels of the measures beyond trec_eval equal the slow oracles of
``tests/measures/_reference.py`` on every topic, under every evaluation option."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings

import cranfield
from cranfield.measures import Measure, all_specs, parse_measure
from tests.measures import _reference as ref
from tests.measures.strategies import Collection, collections, options

CUTS = ("", "@1", "@3", "@10")
NAMES = [
    *(
        f"{m}{c}"
        for m in ("SetP", "SetR", "SetAP", "SetF", "SetFallout", "SetE", "SetAccuracy")
        for c in CUTS
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
        for c in CUTS
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
]
MEASURES: list[Measure] = [parse_measure(n) for n in NAMES]
SETTINGS = settings(deadline=None, max_examples=120, suppress_health_check=[HealthCheck.too_slow])


def test_every_new_measure_has_an_oracle() -> None:
    trec = {"SetP", "SetR", "SetAP", "SetF", "Utility"}
    new = {s.name for s in all_specs() if s.name in ref.NAMES or not s.trec} - trec
    covered = {m.name for m in MEASURES}
    assert new - {"Judged", "RBPResid"} <= covered | {"Judged"}


@SETTINGS
@given(data=collections(), opts=options())
def test_kernels_equal_the_reference(data: Collection, opts: dict[str, Any]) -> None:
    qrels, run, known, intents = data
    res = cranfield.evaluate(qrels, run, MEASURES, known=known, intents=intents, **opts)
    topics = ref.prepare(
        qrels,
        run,
        missing=opts["missing"],
        depth=opts["depth"],
        judged_only=opts["judged_only"],
        known=known,
        intents=intents,
    )
    assert res.topics == [t.qid for t in topics]
    for m in MEASURES:
        params = {p.name: m.get(p.name) for p in m.spec.params}
        if params.get("rel") is None:
            params.pop("rel", None)
        params.pop("gains", None)
        expected = [
            ref.value(
                t, m.name, params, m.at, rel=opts["relevance_level"], num_docs=opts["num_docs"]
            )
            for t in topics
        ]
        got = res.values[m]
        assert np.allclose(got, expected, rtol=1e-12, atol=1e-12), f"{m}: {got} != {expected}"
        assert not any(math.isnan(v) for v in got), m
