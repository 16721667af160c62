"""Seed 004, "Bpref": the three published definitions on the lecture's example.

S = {D1, D2•, D3*, D4*, D5•, D6, D7•, D8, D9, D10}: D2, D5, D7 relevant (R = 3), D3 and D4
unjudged, the others judged non-relevant. Original: 1/3·[(1 − 1/3) + (1 − 1/3) + (1 − 2/3)]
= 5/9; bpref-10 divides by 10 + R = 13: 35/39; trec_eval's min(R, N) form (N = 5 judged
non-relevant) equals the original here, and differs when N < R.
"""

from __future__ import annotations

from fractions import Fraction

import cranfield
from tests.golden._helpers import ranked_run

RUN = {"q": ranked_run([f"D{i}" for i in range(1, 11)])}
RELEVANT = {"D2": 1, "D5": 1, "D7": 1}


def frac(x: float) -> Fraction:
    return Fraction(x).limit_denominator(1000)


def test_three_bpref_definitions() -> None:
    qrels = {"q": RELEVANT | dict.fromkeys(("D1", "D6", "D8", "D9", "D10"), 0)}
    res = cranfield.evaluate(qrels, RUN, ["BprefR", "Bpref10", "Bpref"])
    assert frac(res["BprefR"]) == Fraction(5, 9)
    assert frac(res["Bpref10"]) == Fraction(35, 39)
    assert frac(res["Bpref"]) == Fraction(5, 9)


def test_min_r_n_form_with_few_judged_non_relevant() -> None:
    """Only D1 and D6 judged non-relevant (N = 2 < R = 3): trec_eval's form divides by 2."""
    qrels = {"q": RELEVANT | {"D1": 0, "D6": 0}}
    res = cranfield.evaluate(qrels, RUN, ["BprefR", "Bpref"])
    assert frac(res["Bpref"]) == Fraction(1, 3)  # ((1 − 1/2) + (1 − 1/2) + (1 − 2/2)) / 3
    assert frac(res["BprefR"]) == Fraction(5, 9)
