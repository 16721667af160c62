"""Training and testing: seeded folds and cross-validated selection."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.errors import EvaluationError, OptionError
from cranfield.lab import (
    SelectionBiasWarning,
    cross_validate,
    cross_validate_scores,
    kfold,
    select,
)

TOPICS = [f"q{i}" for i in range(1, 23)]


def test_folds_are_deterministic_for_a_seed_and_partition_the_topics() -> None:
    a = kfold(TOPICS, 5, seed=42)
    assert a == kfold(list(reversed(TOPICS)) + TOPICS[:3], 5, seed=42)
    assert sorted(t for f in a for t in f) == sorted(TOPICS)
    assert sorted(len(f) for f in a) == [4, 4, 4, 5, 5]
    assert a != kfold(TOPICS, 5, seed=43)
    # Pinned assignment: a change of the algorithm would silently change published splits.
    assert kfold(["a", "b", "c", "d"], 2, seed=0) == kfold(["d", "c", "b", "a"], 2, seed=0)


def test_fold_arguments_are_checked() -> None:
    with pytest.raises(
        OptionError,
        match="The 'n_folds' option must be an integer >= 2 and <= 3, the number of topics, got 4",
    ):
        kfold(["a", "b", "c"], 4, seed=0)
    with pytest.raises(OptionError, match=r"The 'seed' option must be an integer >= 0, got 0\.5"):
        kfold(["a", "b"], 2, seed=0.5)  # type: ignore[arg-type]
    with pytest.raises(EvaluationError, match=r"Cannot split 1 topic.* at least 2 are needed"):
        kfold(["a"], 5, seed=0)  # a data problem (exit 2), not a bound of --folds
    with pytest.raises(OptionError, match="The 'folds' option must be two or more folds that hold"):
        cross_validate_scores({"a": {"x": 1.0, "y": 0.0}}, folds=[["x"], []])


def _scores() -> dict[str, dict[str, float]]:
    folds = kfold(TOPICS, 4, seed=1)
    # "spike" is excellent on fold 0 only, "steady" is decent everywhere.
    spike = {t: (1.0 if t in folds[0] else 0.15) for t in TOPICS}
    steady = dict.fromkeys(TOPICS, 0.3)
    return {"spike": spike, "steady": steady}


def test_held_out_scores_never_use_their_own_fold() -> None:
    scores = _scores()
    folds = kfold(TOPICS, 4, seed=1)
    cv = cross_validate_scores(scores, n_folds=4, seed=1, measure="AP")
    assert [f.test_topics for f in cv.folds] == folds
    for f in cv.folds:
        assert not set(f.train_topics) & set(f.test_topics)
        assert set(f.train_topics) | set(f.test_topics) == set(TOPICS)
    # Held out, fold 0's topics cannot be scored by "spike": it only wins *on* fold 0.
    assert cv.folds[0].chosen == "steady"
    assert all(cv.held_out[t] == 0.3 for t in folds[0])
    # On every other fold "spike" wins on training (thanks to fold 0) and scores 0.15 held out.
    assert [f.chosen for f in cv.folds[1:]] == ["spike"] * 3
    assert all(cv.held_out[t] == 0.15 for f in folds[1:] for t in f)
    n0 = len(folds[0])
    assert cv.score == pytest.approx((0.3 * n0 + 0.15 * (len(TOPICS) - n0)) / len(TOPICS))
    assert cv.all_topics_best == "spike"
    assert cv.all_topics_score > cv.score


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.floats(0, 1), min_size=3 * 12, max_size=3 * 12),
    noise=st.lists(st.floats(0, 1), min_size=12, max_size=12),
    seed=st.integers(0, 2**32 - 1),
)
def test_choice_for_a_fold_ignores_that_folds_scores(
    values: list[float], noise: list[float], seed: int
) -> None:
    topics = [f"t{i:02d}" for i in range(12)]
    scores = {
        name: dict(zip(topics, values[i * 12 : (i + 1) * 12], strict=True))
        for i, name in enumerate(["a", "b", "c"])
    }
    cv = cross_validate_scores(scores, n_folds=3, seed=seed)
    for f in cv.folds:
        changed = {n: dict(s) for n, s in scores.items()}
        for j, t in enumerate(f.test_topics):
            changed["a"][t] = noise[j]  # rewrite the held-out fold only
        again = cross_validate_scores(changed, n_folds=3, seed=seed)
        assert again.folds[f.fold].chosen == f.chosen


def test_select_warns_when_chosen_on_the_reported_topics() -> None:
    scores = _scores()
    with pytest.warns(SelectionBiasWarning, match="chosen on 22 of the 22 topics"):
        s = select(scores)
    assert s.chosen == "spike"
    assert s.overlap == 22
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        honest = select(scores, train_topics=TOPICS[:10], report_topics=TOPICS[10:])
    assert honest.overlap == 0
    with pytest.raises(
        OptionError, match="The 'report_topics' option must be topics that have scores, got 'nope'"
    ):
        select(scores, train_topics=TOPICS[:2], report_topics=["nope"])
    with pytest.raises(OptionError, match="The 'train_topics' option must be at least one topic"):
        select(scores, train_topics=[])


def test_cross_validate_runs() -> None:
    qrels = {f"q{i}": {"good": 1} for i in range(6)}
    runs = {
        "hit": {f"q{i}": {"good": 2.0, "bad": 1.0} for i in range(6)},
        "miss": {f"q{i}": {"bad": 2.0, "good": 1.0} for i in range(6)},
    }
    cv = cross_validate(qrels, runs, "AP", n_folds=3, seed=0)
    assert cv.measure == "AP"
    assert cv.score == 1.0
    assert {f.chosen for f in cv.folds} == {"hit"}
    assert "held-out AP: 1.0000" in cv.to_text()
    assert cv.to_polars().height == 3
    assert cv.to_dict()["n_folds"] == 3
    with pytest.raises(ValueError, match="every candidate must be scored on the same topics"):
        cross_validate_scores({"a": {"x": 1.0, "y": 0.0}, "b": {"x": 1.0}}, n_folds=2)


def test_cross_validate_in_worker_processes_chooses_as_this_process_does() -> None:
    qrels = {f"q{i}": {"d1": 1, "d2": i % 2} for i in range(10)}
    runs = {
        "a": {f"q{i}": {"d1": 2.0, "d2": 1.0} for i in range(10)},
        "b": {f"q{i}": {"d2": 2.0, "d1": 1.0} for i in range(10)},
    }
    here = cross_validate(qrels, runs, "AP", n_folds=5, seed=3)
    there = cross_validate(qrels, runs, "AP", n_folds=5, seed=3, jobs=2)
    assert there.to_text() == here.to_text()
