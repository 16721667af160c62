"""Measures users expect beyond the seeds, each with a hand-checked example: RBP with its
residual (Moffat & Zobel 2008), ERR (Chapelle et al. 2009), α-nDCG (Clarke et al. 2008),
and condensed-list (judged-only) evaluation (Sakai 2007) for any measure."""

from __future__ import annotations

import math

import pytest

import cranfield

RUN = {"q": {"r1": 4.0, "u2": 3.0, "r3": 2.0, "n4": 1.0}}


def test_rbp_and_its_residual_by_hand() -> None:
    """p = 0.8; relevant at ranks 1 and 3, rank 2 unjudged, rank 4 judged non-relevant:
    RBP = 0.2·(1 + 0.8²) = 0.328; residual = 0.8⁴ + 0.2·0.8 = 0.5696 (the unjudged rank-2
    document could add 0.16, the unseen tail 0.4096)."""
    qrels = {"q": {"r1": 1, "r3": 1, "n4": 0}}
    res = cranfield.evaluate(
        qrels, RUN, ["RBP(p=0.8)", "RBPResid(p=0.8)", "RBPResid(p=0.8,tail=True)"]
    )
    assert res["RBP(p=0.8)"] == pytest.approx(0.328)
    assert res["RBPResid(p=0.8,tail=True)"] == pytest.approx(0.5696)
    assert res["RBPResid(p=0.8)"] == pytest.approx(
        0.5696
    )  # trec_eval agrees when something is unjudged


def test_rbp_residual_of_a_fully_judged_list() -> None:
    """Everything judged: Moffat & Zobel's residual is the tail 0.8⁴; trec_eval 10 prints 0."""
    qrels = {"q": {"r1": 1, "u2": 0, "r3": 1, "n4": 0}}
    res = cranfield.evaluate(qrels, RUN, ["RBPResid(p=0.8)", "RBPResid(p=0.8,tail=True)"])
    assert res["RBPResid(p=0.8)"] == 0.0
    assert res["RBPResid(p=0.8,tail=True)"] == pytest.approx(0.8**4)


def test_err_by_hand() -> None:
    """Grades 2, 0, 1 on a 0–2 scale: R = 3/4, 0, 1/4; ERR = 3/4 + (1 − 3/4)·(1/4)/3."""
    qrels = {"q": {"r1": 2, "u2": 0, "r3": 1, "n4": 0}}
    res = cranfield.evaluate(qrels, RUN, ["ERR(max_level=2)", "ERR(max_level=2)@2", "ERR"])
    assert res["ERR(max_level=2)"] == pytest.approx(3 / 4 + (1 / 4) * (1 / 4) / 3)
    assert res["ERR(max_level=2)@2"] == pytest.approx(3 / 4)
    assert res["ERR"] == pytest.approx(3 / 16 + (13 / 16) * (1 / 16) / 3)  # gdeval's scale 0–4


def test_alpha_ndcg_by_hand() -> None:
    """Subtopics s1, s2; a covers both, b covers s1, c covers s2; the run ranks b, a, c.
    α = 0.5: gains 1, 0.5 + 1, 0.5; ideal (greedy) a, c, b with gains 2, 0.5, 0.5 (c before
    b: equal gains go to the larger docno)."""
    intents = {"q": {"s1": {"a": 1, "b": 1}, "s2": {"a": 1, "c": 1}}}
    qrels = {"q": {"a": 1, "b": 1, "c": 1}}
    run = {"q": {"b": 3.0, "a": 2.0, "c": 1.0}}
    res = cranfield.evaluate(
        qrels, run, ["alpha_nDCG@3", "alpha_nDCG(alpha=0)@3", "alpha_nDCG@1"], intents=intents
    )
    dcg = 1 + 1.5 / math.log2(3) + 0.5 / 2
    ideal = 2 + 0.5 / math.log2(3) + 0.5 / 2
    assert res["alpha_nDCG@3"] == pytest.approx(dcg / ideal)
    assert res["alpha_nDCG(alpha=0)@3"] == pytest.approx(
        (1 + 2 / math.log2(3) + 1 / 2) / (2 + 1 / math.log2(3) + 1 / 2)
    )
    assert res["alpha_nDCG@1"] == pytest.approx(1 / 2)


def test_condensed_lists_for_any_measure() -> None:
    """judged_only=True removes unjudged documents first (trec_eval -J), for any measure."""
    qrels = {"q": {"r1": 1, "r3": 1, "n4": 0}}
    condensed = {"q": {"r1": 4.0, "r3": 2.0, "n4": 1.0}}
    names = ["AP", "nDCGx(exp=True)@2", "SetP@2", "AP_min@2", "ERR@2", "RR", "Bpref10"]
    a = cranfield.evaluate(qrels, RUN, names, judged_only=True)
    b = cranfield.evaluate(qrels, condensed, names)
    assert a.means() == b.means()
    assert cranfield.evaluate(qrels, RUN, ["AP"])["AP"] < a["AP"]
