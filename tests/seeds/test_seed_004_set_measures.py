"""Seed 004 (Zhang Rong, ECNU, "检索评价"): precision, recall, F, accuracy, R-precision on
the lecture's examples."""

from __future__ import annotations

import pytest

import cranfield
from tests.seeds._helpers import printed, ranked_run

ANSWERS_Q1 = {"d3", "d4", "d6", "d9"}


def _q1_qrels() -> dict[str, dict[str, int]]:
    return {"1": dict.fromkeys(ANSWERS_Q1, 1)}


def test_seed_004_systems_on_query_1() -> None:
    """System 1 (d3 d6 d8 d10 d11): P = 2/5, R = 2/4; system 2 (d6 d7 d2 d9): P = 2/4, R = 2/4;
    R-precision 2/4 for both."""
    s1 = {"1": ranked_run(["d3", "d6", "d8", "d10", "d11"])}
    s2 = {"1": ranked_run(["d6", "d7", "d2", "d9"])}
    r1 = cranfield.evaluate(_q1_qrels(), s1, ["SetP", "SetR", "Rprec"])
    r2 = cranfield.evaluate(_q1_qrels(), s2, ["SetP", "SetR", "Rprec"])
    assert (r1["SetP"], r1["SetR"], r1["Rprec"]) == (2 / 5, 2 / 4, 2 / 4)
    assert (r2["SetP"], r2["SetR"], r2["Rprec"]) == (2 / 4, 2 / 4, 2 / 4)


def test_seed_004_hundred_relevant_two_hundred_returned() -> None:
    """100 relevant documents, 200 returned of which 80 relevant: R = 0.8, P = 0.4."""
    qrels = {"q": {f"r{i}": 1 for i in range(100)} | {f"n{i}": 0 for i in range(120)}}
    run = {"q": ranked_run([f"r{i}" for i in range(80)] + [f"n{i}" for i in range(120)])}
    res = cranfield.evaluate(qrels, run, ["SetP", "SetR"])
    assert (res["SetP"], res["SetR"]) == (0.4, 0.8)


def test_seed_004_harmonic_mean_ordering() -> None:
    """(P, R) = (0.4, 0.4), (0.6, 0.2), (0.5, 0.3): F1 > F3 > F2."""

    def f(p: float, r: float) -> float:
        return 2 * p * r / (p + r)

    f1, f2, f3 = f(0.4, 0.4), f(0.6, 0.2), f(0.5, 0.3)
    assert f1 > f3 > f2
    assert (f1, f2, f3) == pytest.approx((0.4, 0.3, 0.375))


def _exercise(returned: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """The in-class exercise: 100 relevant documents, 2 judged non-relevant; the run returns
    ``returned`` of the relevant ones and both non-relevant ones (or, returned = 0, nothing)."""
    qrels = {"q": {f"r{i:03d}": 1 for i in range(100)} | {"n1": 0, "n2": 0}, "other": {"o": 1}}
    docs = [f"r{i:03d}" for i in range(returned)] + (["n1", "n2"] if returned else [])
    run = {"other": {"o": 1.0}} | ({"q": ranked_run(docs)} if docs else {})
    return qrels, run


def test_seed_004_exercise_precision_recall_f1_accuracy() -> None:
    """Returned 18 relevant + 2 non-relevant, missed 82, 10⁹ other documents: P = 0.9, R = 0.18,
    F1 = 0.3, accuracy = (18 + 10⁹)/(10⁹ + 102) ≈ 0.99999992."""
    n = 1_000_000_000 + 102
    res = cranfield.evaluate(*_exercise(18), ["SetP", "SetR", "SetF", "SetAccuracy"], num_docs=n)
    q = {m: res.per_query(m)["q"] for m in res.means()}
    assert q["SetP"] == pytest.approx(0.9)
    assert q["SetR"] == pytest.approx(0.18)
    assert q["SetF"] == pytest.approx(0.3)
    assert q["SetAccuracy"] == pytest.approx((18 + 1_000_000_000) / n, rel=1e-15)
    assert printed(q["SetAccuracy"], "0.99999992")


def test_seed_004_returning_nothing_has_high_accuracy() -> None:
    """An engine that always returns nothing: accuracy ≈ 0.9999999, P = R = F = 0 — why
    accuracy is not used in IR."""
    n = 1_000_000_000 + 102
    res = cranfield.evaluate(*_exercise(0), ["SetP", "SetR", "SetF", "SetAccuracy"], num_docs=n)
    q = {m: res.per_query(m)["q"] for m in res.means()}
    assert (q["SetP"], q["SetR"], q["SetF"]) == (0.0, 0.0, 0.0)
    assert q["SetAccuracy"] == pytest.approx((n - 100) / n, rel=1e-15)
    assert q["SetAccuracy"] > 0.9999998


def test_seed_004_e_measure_weights_precision_with_b() -> None:
    """Seed 004 writes E = 1 − (1 + b²)/(b²/P + 1/R) (b > 1 weighs P, b² = 1/β²), the mirror
    of van Rijsbergen's/seed 002's form: seed 004's E(b) is SetE(b=1/b) = 1 − F_{1/b}."""
    qrels = {"q": {f"r{i}": 1 for i in range(4)} | {f"n{i}": 0 for i in range(6)}}
    run = {"q": ranked_run(["r0", "n0", "r1", "n1", "n2"])}
    p, r = 2 / 5, 2 / 4
    for b in (0.5, 2.0, 3.0):
        seed_004 = 1 - (1 + b * b) / (b * b / p + 1 / r)
        res = cranfield.evaluate(qrels, run, [f"SetE(b={1 / b})", f"SetF(beta={1 / b})"])
        assert res[f"SetE(b={1 / b})"] == pytest.approx(seed_004)
        assert res[f"SetE(b={1 / b})"] == pytest.approx(1 - res[f"SetF(beta={1 / b})"])
