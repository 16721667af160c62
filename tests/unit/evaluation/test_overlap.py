"""``evaluation/overlap.py``: a run and qrels that share no query are an error, a run that
answers fewer than half of the judged queries a warning and a policy note; checked once per
run by every evaluation (whole or streamed), never by trec_eval's compatible path."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import cranfield
from cranfield.errors import EvaluationError, QueryOverlapWarning
from cranfield.evaluation.evaluator import Evaluator
from cranfield.evaluation.overlap import partial_overlap

QRELS = {f"q{i}": {"d1": 1} for i in range(1, 5)}  # q1 .. q4


def _run(*queries: str) -> dict[str, dict[str, float]]:
    return {q: {"d1": 1.0, "d2": 0.5} for q in queries}


@pytest.mark.parametrize("missing", ["zero", "skip", "error"])
def test_no_shared_query_is_an_error_naming_both_sides(missing: str) -> None:
    with pytest.raises(EvaluationError) as caught:
        cranfield.evaluate(QRELS, _run("x1", "x2"), ["AP"], missing=missing)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "run 'run' and <in memory> share no query id: the run has 2 queries ('x1', 'x2'), "
        "the qrels 4 ('q1', 'q2', 'q3', ...). Wrong qrels file?"
    )


def test_no_shared_query_names_the_files(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 1\n")
    run.write_text("x1 Q0 d1 1 1.0 t\n")
    with pytest.raises(EvaluationError, match=r"run\.txt and .*qrels\.txt share no query id"):
        cranfield.evaluate(qrels, run, ["AP"])
    with pytest.raises(EvaluationError, match="Wrong qrels file"):
        cranfield.evaluate_stream(qrels, run, ["AP"], block_bytes=8)


def test_an_empty_run_is_no_overlap_error() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cranfield.evaluate(QRELS, {}, ["AP"])["AP"] == 0.0


def test_fewer_than_half_answered_warns_and_is_noted() -> None:
    with pytest.warns(QueryOverlapWarning) as caught:
        res = cranfield.evaluate(QRELS, _run("q1", "x9"), ["AP"])
    sentence = "The run answers only 1 of the 4 judged queries (25%): wrong qrels file?"
    assert [str(w.message) for w in caught] == [f"run 'run' against <in memory>: {sentence}"]
    assert res.policy_note().endswith(f"). {sentence}")


def test_missing_skip_asks_for_a_partial_overlap_so_it_is_quiet() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = cranfield.evaluate(QRELS, _run("q1", "x9"), ["AP"], missing="skip")
    assert "wrong qrels" not in res.policy_note()
    with pytest.raises(EvaluationError, match="share no query id"):
        cranfield.evaluate(QRELS, _run("x8", "x9"), ["AP"], missing="skip")


def test_half_answered_is_quiet() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = cranfield.evaluate(QRELS, _run("q1", "q2"), ["AP"])
    assert "wrong qrels" not in res.policy_note()


def test_a_stream_warns_once_not_per_block(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"q{i} 0 d1 1\n" for i in range(1, 9)))
    run.write_text("q1 Q0 d1 1 1.0 t\nq2 Q0 d1 1 1.0 t\nx3 Q0 d1 1 1.0 t\n")
    with pytest.warns(QueryOverlapWarning) as caught:
        cranfield.evaluate_stream(qrels, run, ["AP"], block_bytes=8)
    assert len(caught) == 1
    assert "only 2 of the 8 judged queries (25%)" in str(caught[0].message)


def test_the_trec_eval_path_is_exempt() -> None:
    """``cranfield trec-eval`` (and the curves) rank through ``Evaluator.ranking``, which
    leaves the check to the evaluations."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prep = Evaluator(QRELS, ["AP"], missing="skip").ranking(_run("x1"))
    assert prep.ranking.topics == []


def test_warnings_can_be_made_errors_in_python() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", cranfield.errors.CranfieldWarning)
        with pytest.raises(QueryOverlapWarning):
            cranfield.evaluate(QRELS, _run("q1"), ["AP"])


@pytest.mark.parametrize(
    ("judged", "answered", "noted"), [(4, 0, False), (4, 1, True), (5, 2, True), (4, 2, False)]
)
def test_below_half_is_the_rule(judged: int, answered: int, noted: bool) -> None:
    assert (partial_overlap(judged, answered) is not None) is noted
