"""``logs/fitted_click_model.py`` and ``logs/click_judgments.py``: click models on ``Sessions``
(names, options, a test log on its own codes, what clicks a model sees) and their relevance
as qrels."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pytest

from cranfield.data.sessions import Sessions
from cranfield.errors import OptionError
from cranfield.io.formats import read_qrels_file, write
from cranfield.logs import (
    DBN,
    PBM,
    DocumentCTR,
    click_judgments,
    fit_click_model,
)
from cranfield.logs.fitted_click_model import MODELS, click_model_class, ignored_clicks

if TYPE_CHECKING:
    from pathlib import Path


MLE = (0.0, 0.0)
"""No pseudo-counts: the unsmoothed ratios the hand-computed cases below work out."""


def train_log() -> Sessions:
    """Two queries; q1 shows a, b, c in two orders (a clicked 2 of 3 times, b never, c once),
    q2 shows c, d in both orders (c clicked twice, d never)."""
    return Sessions.from_clicked(
        query_ids=("q1", "q2"),
        doc_ids=("a", "b", "c", "d"),
        query=[0, 0, 0, 1, 1],
        shown=[[0, 1, 2], [1, 0, 2], [0, 1, 2], [2, 3, -1], [3, 2, -1]],
        clicked=[
            [True, False, True],
            [False, True, False],
            [False, False, False],
            [True, False, False],
            [False, True, False],
        ],
    )


def test_names_any_case_and_classes() -> None:
    assert list(MODELS) == [
        "GlobalCTR",
        "RankCTR",
        "DocumentCTR",
        "PBM",
        "Cascade",
        "DCM",
        "UBM",
        "DBN",
        "SDBN",
    ]
    assert click_model_class("dbn") is DBN
    assert click_model_class("documentctr") is DocumentCTR
    assert click_model_class(PBM) is PBM
    with pytest.raises(OptionError, match=r"'model' option must be one of GlobalCTR, .*'ctr2'"):
        click_model_class("ctr2")


@pytest.mark.parametrize("name", list(MODELS))
def test_fit_on_sessions_is_the_fit_on_their_arrays(name: str) -> None:
    log = train_log()
    fitted = fit_click_model(name, log)
    direct = MODELS[name].fit(log.query, log.shown, log.clicked)  # type: ignore[attr-defined]
    assert fitted.name == name
    assert fitted.sessions == 5
    assert fitted.query_ids == log.query_ids
    np.testing.assert_array_equal(
        fitted.model.click_probabilities(log.query, log.shown),
        direct.click_probabilities(log.query, log.shown),
    )


def test_options_are_passed_and_checked() -> None:
    log = train_log()
    assert fit_click_model("dbn", log, gamma=0.7).model.continuation == 0.7  # type: ignore[attr-defined]
    fitted = fit_click_model("DocumentCTR", log, prior=0.25)
    assert fitted.model.ctr.prior == 0.25  # type: ignore[attr-defined]
    takes = r"one of PBM's \(prior, pseudo_counts, max_iterations, tolerance\)"
    with pytest.raises(OptionError, match=takes):
        fit_click_model("pbm", log, gamma=0.5)
    with pytest.raises(OptionError, match="'prior' option"):
        fit_click_model("pbm", log, prior=1.5)


def test_a_test_log_from_its_own_file_is_scored_on_the_training_codes() -> None:
    """The test log codes its ids in its own order (b before a, a new query q3 and a new
    document e); scoring puts it on the training codes, and the unseen pairs get the prior."""
    train = train_log()
    fitted = fit_click_model("DocumentCTR", train, prior=0.3, pseudo_counts=MLE)
    test = Sessions.from_clicked(
        query_ids=("q3", "q1"),
        doc_ids=("e", "b", "a", "c"),
        query=[1, 0, 1],
        shown=[[2, 3], [1, 0], [0, 3]],
        clicked=[[True, False], [True, False], [True, True]],
    )
    score = fitted.score(test)
    # q1: a has CTR 2/3, c 1/3; q3/b, q3/e and q1/e are unseen: 0.3
    p = [[2 / 3, 1 / 3], [0.3, 0.3], [0.3, 1 / 3]]
    c = [[1, 0], [1, 0], [1, 1]]
    expected = sum(
        math.log(pi if ci else 1 - pi)
        for prow, crow in zip(p, c, strict=True)
        for pi, ci in zip(prow, crow, strict=True)
    )
    assert score.log_likelihood == pytest.approx(expected)
    assert score.sessions == 3
    same = test.recoded(train.query_ids, train.doc_ids)
    assert fitted.model.score(same.query, same.shown, same.clicked).log_likelihood == (
        score.log_likelihood
    )


def test_repeated_clicks_count_once_and_unshown_clicks_are_left_out() -> None:
    """The first session clicks b twice and x (not shown); a model fitted on it is the model
    fitted on the same session with one click on b."""
    noisy = Sessions(
        query_ids=("q",),
        doc_ids=("a", "b", "x"),
        query=np.array([0, 0]),
        shown=np.array([[0, 1], [1, 0]]),
        click_session=np.array([0, 0, 0, 1]),
        click_doc=np.array([1, 2, 1, 1]),
    )
    clean = Sessions.from_clicked(
        query_ids=("q",),
        doc_ids=("a", "b", "x"),
        query=[0, 0],
        shown=[[0, 1], [1, 0]],
        clicked=[[False, True], [True, False]],
    )
    assert ignored_clicks(noisy) == (1, 1)
    assert ignored_clicks(clean) == (0, 0)
    for name in MODELS:
        a, b = fit_click_model(name, noisy), fit_click_model(name, clean)
        assert a.score(clean).log_likelihood == b.score(clean).log_likelihood


def test_relevance_by_ids() -> None:
    fitted = fit_click_model("DocumentCTR", train_log(), pseudo_counts=MLE)
    assert fitted.relevance().rows() == [
        ("q1", "a", 2 / 3),
        ("q1", "b", 0.0),
        ("q1", "c", 1 / 3),
        ("q2", "c", 1.0),
        ("q2", "d", 0.0),
    ]
    # by default each ratio k / n is (k + 1) / (n + 2)
    smoothed = fit_click_model("DocumentCTR", train_log())
    assert smoothed.pseudo_counts == (1.0, 1.0)
    assert smoothed.relevance().get_column("relevance").to_list() == pytest.approx(
        [3 / 5, 1 / 5, 2 / 5, 3 / 4, 1 / 4]
    )
    assert fit_click_model("SDBN", train_log()).has_relevance
    for name in ("GlobalCTR", "RankCTR"):
        model = fit_click_model(name, train_log())
        assert not model.has_relevance
        with pytest.raises(OptionError, match="a model with a relevance per"):
            model.relevance()


def test_parameters() -> None:
    fitted = fit_click_model("DBN", train_log())
    params = fitted.parameters()
    assert set(params) == {"continuation", "iterations"}
    assert 0.0 <= params["continuation"] <= 1.0
    assert fit_click_model("DocumentCTR", train_log()).parameters() == {}


def test_judgments_graded_by_thresholds() -> None:
    """A relevance equal to a threshold reaches its grade: 1/3 and 1 against 1/3, 1."""
    fitted = fit_click_model("DocumentCTR", train_log(), pseudo_counts=MLE)
    qrels = click_judgments(fitted, levels=[1 / 3, 1.0])
    assert qrels.to_dict() == {"q1": {"a": 1, "b": 0, "c": 1}, "q2": {"c": 2, "d": 0}}
    assert "gain" not in qrels.frame.columns
    assert qrels.name == "DocumentCTR"
    assert click_judgments(fitted, levels=[0.4]).to_dict()["q1"] == {"a": 1, "b": 0, "c": 0}


@pytest.mark.parametrize("levels", [[], [0.5, 0.5], [0.6, 0.2], [1.5], [float("nan")], ["x"]])
def test_judgments_refuse_bad_levels(levels: list[object]) -> None:
    fitted = fit_click_model("DocumentCTR", train_log())
    with pytest.raises(OptionError, match="'levels' option must be increasing thresholds"):
        click_judgments(fitted, levels=levels)  # type: ignore[arg-type]


def test_judgments_as_gains_read_back_unchanged(tmp_path: Path) -> None:
    """Gains are decimal labels: level 0 (their integer part), the gain every digit of the
    relevance, through a TREC qrels file and back."""
    fitted = fit_click_model("DBN", train_log())
    qrels = click_judgments(fitted, name="clicks")
    assert qrels.frame.get_column("relevance").to_list() == [0] * 5
    assert qrels.notes
    assert "are not integers" in qrels.notes[0]
    path = tmp_path / "clicks.qrels"
    write(qrels, path)
    with pytest.warns(UserWarning, match="not integers"):
        back = read_qrels_file(path)
    assert (
        back.frame.get_column("gain").to_list()
        == fitted.relevance().get_column("relevance").to_list()
    )
