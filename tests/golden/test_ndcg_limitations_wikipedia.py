"""Seed 001 (Wikipedia), "Limitations" of nDCG, each shown on a small example."""

from __future__ import annotations

import cranfield


def test_bad_documents_are_not_penalised() -> None:
    """Results 1,1,1 and 1,1,1,0 score the same nDCG; mapping the grades Excellent/Fair/Bad
    (2/1/0) to 1/0/−1 makes the bad document cost something, and can go negative."""
    qrels = {"q": {"a": 2, "b": 2, "c": 2, "bad": 0}}
    good = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    with_bad = {"q": {"a": 3.0, "b": 2.0, "c": 1.0, "bad": 0.5}}
    assert cranfield.evaluate(qrels, good, "nDCGx")["nDCGx"] == 1.0
    assert cranfield.evaluate(qrels, with_bad, "nDCGx")["nDCGx"] == 1.0
    signed = "nDCGx(gains={0:-1,1:0,2:1})"
    assert cranfield.evaluate(qrels, good, signed)[signed] == 1.0
    assert cranfield.evaluate(qrels, with_bad, signed)[signed] < 1.0
    only_bad = {"q": {"bad": 1.0}}
    assert cranfield.evaluate(qrels, only_bad, signed)[signed] < 0.0


def test_missing_documents_are_not_penalised() -> None:
    """1,1,1 and 1,1,1,1,1 are 'equally good' when each ideal is cut at its own list length
    (what an ideal from the retrieved documents does); padding to a fixed size, nDCG@5,
    separates them."""
    qrels = {"q": {f"d{i}": 1 for i in range(5)}}
    three = {"q": {f"d{i}": 5.0 - i for i in range(3)}}
    five = {"q": {f"d{i}": 5.0 - i for i in range(5)}}
    for m in ("nDCGx(retrieved_ideal=True)", "nDCG@3"):
        assert (
            cranfield.evaluate(qrels, three, m)[m] == cranfield.evaluate(qrels, five, m)[m] == 1.0
        )
    assert cranfield.evaluate(qrels, three, "nDCG@5")["nDCG@5"] < 1.0
    assert cranfield.evaluate(qrels, five, "nDCG@5")["nDCG@5"] == 1.0


def test_equally_good_results_at_a_small_cutoff() -> None:
    """nDCG@1 cannot tell one nearby restaurant from five."""
    qrels = {"q": {f"r{i}": 1 for i in range(5)} | {f"n{i}": 0 for i in range(5)}}
    one = {"q": {"r0": 10.0} | {f"n{i}": 5.0 - i for i in range(5)}}
    five = {"q": {f"r{i}": 10.0 - i for i in range(5)}}
    a = cranfield.evaluate(qrels, one, ["nDCG@1", "nDCG@5"])
    b = cranfield.evaluate(qrels, five, ["nDCG@1", "nDCG@5"])
    assert a["nDCG@1"] == b["nDCG@1"] == 1.0
    assert a["nDCG@5"] < b["nDCG@5"]
