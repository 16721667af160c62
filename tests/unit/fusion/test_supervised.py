"""The methods trained on qrels (BayesFuse, PosFuse, ProbFuse, SegFuse, SlideFuse,
MAPFuse) on a case worked by hand: trained on q1, fused on q2."""

from __future__ import annotations

import math

import pytest

from cranfield import load_qrels, load_run
from cranfield.data.run import Run
from cranfield.errors import OptionError
from cranfield.fusion import METHODS, fuse, train
from tests.conftest import one_sentence

# a: q1 d1 > d2 > d3, q2 d4 > d5; b: q1 d2 > d1, q2 d5 > d6 > d4
A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 2.0, "d5": 1.0}}
B = {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d5": 3.0, "d6": 2.0, "d4": 1.0}}
# q1: d1 and d3 relevant (d3 at grade 2), d2 judged not relevant; q2 is not a training query
QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}}


def runs() -> list[Run]:
    return [load_run(A, name="a"), load_run(B, name="b")]


@pytest.fixture
def training() -> object:
    return train(load_qrels(QRELS), runs())


def q2(method: str, training: object, **params: float) -> dict[str, float]:
    fused = fuse(runs(), method, training=training, params=params or None)  # type: ignore[arg-type]
    return fused.to_dict()["q2"]


def test_what_is_learnt_is_the_relevance_of_each_position(training: object) -> None:
    t = train(load_qrels(QRELS), runs())
    assert t.queries == ("q1",)
    assert t.relevant == {"q1": 2}
    assert t.position_probs(0).tolist() == [1.0, 0.0, 1.0]  # a: d1, d2, d3
    assert t.position_probs(1).tolist() == [0.0, 1.0]  # b: d2, d1


def test_posfuse(training: object) -> None:
    # a: d4 at 0 (1), d5 at 1 (0); b: d5 at 0 (0), d6 at 1 (1), d4 at 2 (0: past b's list)
    got = q2("posfuse", training)
    assert got == {"d6": 1.0, "d4": 1.0, "d5": 0.0}  # d6, d4 tie: doc id descending


def test_mapfuse(training: object) -> None:
    ap_a = (1 / 1 + 2 / 3) / 2  # relevant at 1 and 3 of 2 relevant
    ap_b = (1 / 2) / 2  # d1 at 2; d3 never retrieved
    got = q2("mapfuse", training)
    assert got == pytest.approx({"d4": ap_a + ap_b / 3, "d5": ap_a / 2 + ap_b, "d6": ap_b / 2})


def test_slidefuse(training: object) -> None:
    # w = 1; a's q2 list has 2 positions, b's 3 (P_b past its training list counts 0)
    # a: d4 mean(P_a[0:2]) = 0.5, d5 mean(P_a[0:2]) = 0.5
    # b: d5 mean(0, 1) = 0.5, d6 mean(0, 1, 0) = 1/3, d4 mean(1, 0) = 0.5
    got = q2("slidefuse", training, w=1)
    assert got == pytest.approx({"d4": 1.0, "d5": 1.0, "d6": 1 / 3})


def test_probfuse(training: object) -> None:
    # 2 segments. q1: a (3 long, segments of 2): [0.5, 1]; b (2 long, of 1): [0, 1]
    # q2: a (2 long, of 1): d4 0.5 / 1, d5 1 / 2; b (3 long, of 2): d5, d6 0 / 1, d4 1 / 2
    got = q2("probfuse", training, n_segments=2)
    assert got == pytest.approx({"d4": 1.0, "d5": 0.5, "d6": 0.0})


def test_bayesfuse(training: object) -> None:
    # the first block is positions 0-4: a found 2 relevant of 5 (0.4), b 1 of 5 (0.2)
    odds_a, odds_b = math.log(0.4 / 0.6), math.log(0.2 / 0.8)
    missing = math.log(0.001 / 0.999)
    got = q2("bayesfuse", training)
    assert got == pytest.approx(
        {"d4": odds_a + odds_b, "d5": odds_a + odds_b, "d6": missing + odds_b}
    )


def test_segfuse(training: object) -> None:
    # first segment (positions 0-4): 0.4 for a, 0.2 for b, times min-max score + 1
    # a q2: d4 1, d5 0; b q2: d5 1, d6 0.5, d4 0
    got = q2("segfuse", training)
    assert got == pytest.approx({"d4": 0.4 * 2 + 0.2 * 1, "d5": 0.4 * 1 + 0.2 * 2, "d6": 0.3})


def test_trained_on_training_queries_only() -> None:
    qrels = load_qrels({**QRELS, "q2": {"d6": 1}})
    only_q1 = train(qrels, runs(), queries=["q1"])
    assert only_q1.queries == ("q1",)
    assert only_q1.position_probs(1).tolist() == [0.0, 1.0]
    both = train(qrels, runs())  # b: q1 d2, d1; q2 d5, d6 (relevant), d4
    assert both.position_probs(1).tolist() == [0.0, 1.0, 0.0]


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: fuse(runs(), "posfuse"), "learns from qrels"),
        (lambda: fuse(runs(), "rrf", training=train(load_qrels(QRELS), runs())), "learns nothing"),
        (
            lambda: fuse(
                [*runs(), load_run(A, name="c")],
                "posfuse",
                training=train(load_qrels(QRELS), runs()),
            ),
            "same 3 runs",
        ),
        (lambda: train(load_qrels(QRELS), runs(), queries=["q9"]), "not judged: q9"),
        (
            lambda: fuse(
                runs(),
                "probfuse",
                training=train(load_qrels(QRELS), runs()),
                params={"n_segments": 0},
            ),
            "n_segments",
        ),
        (lambda: fuse(runs(), "posfuse", norm="borda"), "borda"),
        (
            lambda: fuse(
                runs(),
                "posfuse",
                norm="min-max-inverted",
                training=train(load_qrels(QRELS), runs()),
            ),
            "ranked as they are fused",
        ),
    ],
)
def test_bad_input_is_one_sentence(call: object, words: str) -> None:
    with pytest.raises(OptionError) as exc:
        call()  # type: ignore[operator]
    assert words in str(exc.value)
    one_sentence(exc)


def test_every_trained_method_is_declared_with_its_paper() -> None:
    trained = {n for n, s in METHODS.items() if s.trained}
    assert trained == {"bayesfuse", "posfuse", "probfuse", "segfuse", "slidefuse", "mapfuse"}
