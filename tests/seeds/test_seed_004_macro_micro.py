"""Seed 004, "平均的求法" (macro vs micro averaging) on two systems and two queries.

Per query (unique answers {d3, d4, d6, d9} and {d1, d2, d13}):
system 1 q1: P = 2/5, R = 2/4, F = 4/9, AP = 1/2; q2: P = 2/5, R = 2/3, F = 1/2, AP = 7/15;
system 2 q1: P = 2/4, R = 2/4, F = 1/2, AP = 3/8;  q2: P = 3/5, R = 3/3, F = 3/4, AP = 11/12.
System 1: MacroP = 2/5, MacroR = 7/12, MacroF = 17/36, MAP = 29/60, MicroP = 4/10 (d11 is
counted for both queries: no de-duplication), MicroR = 4/7, MicroF = 8/17.
System 2: MacroP = 11/20, MacroR = 3/4, MacroF = 5/8, MAP = 31/48; the slide leaves the
micro averages blank: MicroP = 5/9, MicroR = 5/7, MicroF = 5/8.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import cranfield
from tests.seeds.test_seed_004_ranked_measures import QRELS, _system

MEASURES = ["SetP", "SetR", "SetF", "AP"]


def frac(x: float) -> Fraction:
    return Fraction(x).limit_denominator(1000)


@pytest.mark.parametrize(
    ("system", "per_query", "macro", "micro"),
    [
        (
            "1",
            {
                "SetP": ("2/5", "2/5"),
                "SetR": ("2/4", "2/3"),
                "SetF": ("4/9", "1/2"),
                "AP": ("1/2", "7/15"),
            },
            {"SetP": "2/5", "SetR": "7/12", "SetF": "17/36", "AP": "29/60"},
            {"SetP": "4/10", "SetR": "4/7", "SetF": "8/17"},
        ),
        (
            "2",
            {
                "SetP": ("2/4", "3/5"),
                "SetR": ("2/4", "3/3"),
                "SetF": ("1/2", "3/4"),
                "AP": ("3/8", "11/12"),
            },
            {"SetP": "11/20", "SetR": "3/4", "SetF": "5/8", "AP": "31/48"},
            {"SetP": "5/9", "SetR": "5/7", "SetF": "5/8"},
        ),
    ],
)
def test_seed_004_macro_and_micro_averages(
    system: str, per_query: dict[str, tuple[str, str]], macro: dict[str, str], micro: dict[str, str]
) -> None:
    res = cranfield.evaluate(QRELS, _system(system), MEASURES)
    for m, (q1, q2) in per_query.items():
        got = res.per_query(m)
        assert (frac(got["1"]), frac(got["2"])) == (Fraction(q1), Fraction(q2)), m
    for m, text in macro.items():
        assert frac(res[m]) == Fraction(text), m  # the default: arithmetic mean over queries
        assert frac(res.aggregate(m, "mean")) == Fraction(text)
    for m, text in micro.items():
        assert frac(res.aggregate(m, "micro")) == Fraction(text), m
        assert res.aggregate(m, "micro") == pytest.approx(float(Fraction(text)), rel=1e-15)


def test_seed_004_micro_through_evaluate_option() -> None:
    res = cranfield.evaluate(
        QRELS, _system("1"), MEASURES, aggregate={"SetP": "micro", "SetR": "micro", "SetF": "micro"}
    )
    assert (frac(res["SetP"]), frac(res["SetR"]), frac(res["SetF"]), frac(res["MAP"])) == (
        Fraction(4, 10),
        Fraction(4, 7),
        Fraction(8, 17),
        Fraction(29, 60),
    )
