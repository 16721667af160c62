"""cranfield.fusion.tune on a case worked by hand, and the exact simplex grid.

Two runs of two documents per query: run ``a`` puts the relevant document ``r`` first on q1
and q2 and second on q3 and q4, run ``b`` the reverse. After min-max normalisation a weight
of 1 on one run copies that run; equal weights tie ``r`` with the other run's top document,
and the tie goes to the doc id descending (``y`` and ``x`` above ``r``), so P@1 is 0 there.
"""

from __future__ import annotations

import math

import pytest

import cranfield
from cranfield.errors import OptionError
from cranfield.fusion.tuning import HELD_OUT, OPTIMISTIC, simplex_grid, tune
from cranfield.stats import paired_t_test
from tests.conftest import one_sentence

QRELS = {q: {"r": 1} for q in ("q1", "q2", "q3", "q4")}
GOOD = {"r": 2.0, "x": 1.0}  # r first
BAD = {"y": 2.0, "r": 1.0}  # r second
A = {"q1": GOOD, "q2": GOOD, "q3": BAD, "q4": BAD}
B = {"q1": BAD, "q2": BAD, "q3": GOOD, "q4": GOOD}
FOLDS = [["q1"], ["q2", "q3", "q4"]]


@pytest.fixture(scope="module")
def tuned() -> object:
    runs = {"a": cranfield.load_run(A), "b": cranfield.load_run(B)}
    return tune(QRELS, runs, "wsum", "P@1", folds=FOLDS, step=0.5)


def test_each_fold_chooses_on_the_other_folds(tuned: object) -> None:
    cv = tuned.cross_validation  # type: ignore[attr-defined]
    # fold 0 trains on q2-q4: (0, 1) scores 2/3, (1, 0) 1/3, (0.5, 0.5) 0
    assert [f.chosen for f in cv.folds] == ["w=0,1", "w=1,0"]
    assert cv.folds[0].train_score == pytest.approx(2 / 3)
    assert cv.held_out == {"q1": 0.0, "q2": 1.0, "q3": 0.0, "q4": 0.0}
    assert cv.score == 0.25
    # on all queries (0, 1) and (1, 0) tie at 0.5: the first of the grid is kept
    assert (cv.all_topics_best, cv.all_topics_score) == ("w=0,1", 0.5)
    assert tuned.gap == 0.25  # type: ignore[attr-defined]
    assert tuned.input_means == {"a": 0.5, "b": 0.5}  # type: ignore[attr-defined]


def test_the_held_out_run_scores_what_the_folds_report(tuned: object) -> None:
    run = tuned.run  # type: ignore[attr-defined]
    # every document of either run, weighted 0 or not; ties by doc id descending
    assert list(run.to_dict()["q1"].items()) == [("y", 1.0), ("x", 0.0), ("r", 0.0)]  # b's
    assert list(run.to_dict()["q2"].items()) == [("r", 1.0), ("y", 0.0), ("x", 0.0)]  # a's
    results = cranfield.evaluate(QRELS, run, "P@1")
    assert results.per_query("P@1") == tuned.cross_validation.held_out  # type: ignore[attr-defined]


def test_the_paired_test_compares_the_held_out_run_with_each_input(tuned: object) -> None:
    pair = tuned.comparison.pair(HELD_OUT, "a", "P@1")  # type: ignore[attr-defined]
    expected = paired_t_test([0.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0])
    assert pair.tests["t-test"].p_value == pytest.approx(expected.p_value)
    assert pair.tests["t-test"].p_adjusted == pytest.approx(min(1.0, 2 * expected.p_value))


def test_every_output_calls_the_all_queries_choice_optimistic(tuned: object) -> None:
    text = tuned.to_text()  # type: ignore[attr-defined]
    assert f"tuned on all queries ({OPTIMISTIC}): 0.5000 with w=0,1" in text
    assert "held-out fused P@1: 0.2500" in text
    assert "gap (optimistic - held-out): +0.2500" in text
    assert "held-out fused - a: -0.2500, t-test p=0.391 (holm 0.782)" in text
    data = tuned.to_dict()  # type: ignore[attr-defined]
    assert data["optimistic"]["note"] == OPTIMISTIC
    assert [f["setting"]["weights"] for f in data["held_out"]["folds"]] == [[0, 1], [1, 0]]
    notes = tuned.optimistic_run.notes  # type: ignore[attr-defined]
    assert any("optimistic" in n for n in notes)


def test_tuning_on_all_queries_only_is_labelled_and_has_no_held_out_run() -> None:
    result = tune(QRELS, {"a": A, "b": B}, "rrf", "P@1", n_folds=None)
    assert result.run is None
    assert result.comparison is None
    assert "held-out" not in result.to_text()
    assert OPTIMISTIC in result.to_text()
    assert "held_out" not in result.to_dict()


def test_the_simplex_grid_is_exact() -> None:
    for n_runs, step in ((2, 0.1), (3, 0.1), (4, 0.1), (5, 0.1), (3, 0.05)):
        grid = simplex_grid(n_runs, step)
        units = round(1 / step)
        assert len(grid) == math.comb(units + n_runs - 1, n_runs - 1)
        assert len(set(grid)) == len(grid)
        assert all(math.isclose(sum(w), 1.0) for w in grid)


@pytest.mark.parametrize("step", [0.3, 0.0, 1.5, 0.0001])
def test_a_step_that_does_not_divide_one_is_refused(step: float) -> None:
    with pytest.raises(OptionError) as exc:
        simplex_grid(3, step)
    one_sentence(exc)


def test_a_trained_method_learns_without_the_held_out_fold() -> None:
    """posfuse, folds q1 | q2: q1's relevant document is a's first and b's second, q2's the
    other way round. Trained on the other query, each fold puts the wrong document first
    (P@1 0); trained on both, every position is worth 0.5 in both runs and the tie goes to
    the doc id descending (q1: y, wrong; q2: z, right): 0.5, optimistic."""
    from cranfield import load_qrels, load_run
    from cranfield.fusion.tuning import TRAINED_OPTIMISTIC, held_out_fuse, tune

    a = load_run({"q1": {"x": 2.0, "y": 1.0}, "q2": {"x": 2.0, "z": 1.0}}, name="a")
    b = load_run({"q1": {"y": 2.0, "x": 1.0}, "q2": {"z": 2.0, "x": 1.0}}, name="b")
    qrels = load_qrels({"q1": {"x": 1}, "q2": {"z": 1}})
    folds = [["q1"], ["q2"]]
    t = tune(qrels, [a, b], "posfuse", "P@1", folds=folds)
    cv = t.cross_validation
    assert [f.train_topics for f in cv.folds] == [("q2",), ("q1",)]
    assert cv.score == 0.0
    assert cv.all_topics_score == 0.5
    assert t.gap == 0.5
    assert t.to_dict()["optimistic"]["note"] == TRAINED_OPTIMISTIC
    assert "trained, chosen and scored on the same queries" in t.to_text()
    assert t.run is not None
    assert t.run.to_dict() == held_out_fuse(qrels, [a, b], "posfuse", folds=folds).to_dict()
    assert t.run.to_dict() == {"q1": {"y": 2.0, "x": 0.0}, "q2": {"x": 2.0, "z": 0.0}}
    everything = held_out_fuse(qrels, [a, b], "posfuse", n_folds=None)
    assert "optimistic" in everything.notes[-1]
    assert everything.to_dict()["q2"] == {"z": 1.0, "x": 1.0}


def test_probfuse_chooses_its_segments_on_the_training_folds_only() -> None:
    from cranfield import load_qrels, load_run
    from cranfield.fusion.tuning import tune

    a = load_run({f"q{i}": {"x": 3.0, "y": 2.0, "z": 1.0} for i in range(4)}, name="a")
    b = load_run({f"q{i}": {"z": 3.0, "y": 2.0, "x": 1.0} for i in range(4)}, name="b")
    qrels = load_qrels({f"q{i}": {"x": 1} for i in range(4)})
    t = tune(qrels, [a, b], "probfuse", "P@1", folds=[["q0", "q1"], ["q2", "q3"]])
    assert len(t.settings) == 12  # the n_segments grid
    # a's first is always relevant, b's last. One segment gives every document the same
    # score (z first by doc id: P@1 0); two (a: x y | z, b: z y | x) put x first: 0.5 / 1
    # from a and 1 / 2 from b
    assert t.cross_validation.folds[0].train_means["n_segments=1"] == 0.0
    assert [f.chosen for f in t.cross_validation.folds] == ["n_segments=2"] * 2
    assert t.cross_validation.score == 1.0
