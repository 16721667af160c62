"""Curves (:mod:`cranfield.curves`): tidy columns, gain curves ending at the measures, and
option errors in one sentence."""

from __future__ import annotations

import re

import polars as pl
import pytest

import cranfield
from cranfield import curves
from cranfield.errors import EvaluationError
from tests.conftest import one_sentence

QRELS = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 1}}
RUN = {"1": {"a": 3.0, "b": 2.0, "x": 1.0}, "2": {"e": 1.0, "y": 0.5}}


def test_curves_have_tidy_columns() -> None:
    assert curves.pr_points(QRELS, RUN).columns == ["query_id", "rank", "recall", "precision"]
    assert curves.interpolated_pr(QRELS, RUN).height == 2 * 11
    assert curves.mean_interpolated_pr(QRELS, RUN, rule="trec_eval").columns == [
        "recall",
        "precision",
    ]
    g = curves.gain_curves(QRELS, RUN, max_rank=4)
    assert g.columns == [
        "query_id",
        "rank",
        "gain",
        "cg",
        "dcg",
        "ideal_gain",
        "icg",
        "idcg",
        "ncg",
        "ndcg",
    ]
    assert g.height == 2 * 4
    assert curves.mean_gain_curves(QRELS, RUN, max_rank=4).columns == [
        "rank",
        "cg",
        "dcg",
        "icg",
        "idcg",
        "ncg",
        "ndcg",
    ]


def test_gain_curves_end_at_the_measures() -> None:
    g = curves.gain_curves(QRELS, RUN, max_rank=3, exp=True)
    res = cranfield.evaluate(QRELS, RUN, ["nDCGx(exp=True)@3", "CG(exp=True)@3", "nCG(exp=True)@3"])
    last = g.filter(pl.col("rank") == 3)
    assert last["ndcg"].to_list() == pytest.approx(
        list(res.per_query("nDCGx(exp=True)@3").values())
    )
    assert last["cg"].to_list() == pytest.approx(list(res.per_query("CG(exp=True)@3").values()))
    assert last["ncg"].to_list() == pytest.approx(list(res.per_query("nCG(exp=True)@3").values()))


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (
            lambda: curves.interpolated_pr(QRELS, RUN, levels=(0.5, 1.5)),
            "The 'levels' option must be a number >= 0 and <= 1, got 1.5.",
        ),
        (
            lambda: curves.interpolated_pr(QRELS, RUN, rule="nearest"),
            "The 'rule' option must be one of 'exact', 'trec_eval', got 'nearest'.",
        ),  # type: ignore[arg-type]
        (
            lambda: curves.gain_curves(QRELS, RUN, max_rank=0),
            "The 'max_rank' option must be an integer >= 1 or None, got 0.",
        ),
        (
            lambda: curves.gain_curves({"q": {"a": 1}}, {"x": {"a": 1.0}}, missing="skip"),
            "The run ranks no document of a judged query, so its gain curves need max_rank.",
        ),
        (
            lambda: curves.mean_gain_curves(QRELS, RUN, normalise="max"),
            "The 'normalise' option must be one of 'ratio_of_means', 'mean_of_ratios', got 'max'.",
        ),  # type: ignore[arg-type]
    ],
)
def test_curve_option_errors(call, fragment: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=re.escape(fragment)) as exc:
        call()
    one_sentence(exc)


def test_precision_histogram_needs_shared_topics() -> None:
    a = cranfield.evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, ["Rprec"])
    b = cranfield.evaluate({"2": {"a": 1}}, {"2": {"a": 1.0}}, ["Rprec"])
    with pytest.raises(EvaluationError, match="share no evaluated topic"):
        curves.precision_histogram(a, b)
