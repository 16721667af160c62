"""The API added for the seed measures: aggregation options, extra inputs, intent qrels,
curves, and their errors (one sentence each)."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest

import cranfield
from cranfield import curves
from cranfield.errors import EvaluationError, InputError, MeasureError
from cranfield.io.intents import IntentQrels, load_intents, read_intents

QRELS = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 1}}
RUN = {"1": {"a": 3.0, "b": 2.0, "x": 1.0}, "2": {"e": 1.0, "y": 0.5}}


def one_sentence(exc: pytest.ExceptionInfo[BaseException]) -> None:
    msg = str(exc.value)
    assert "\n" not in msg
    assert msg[0].isupper()
    assert msg.endswith(".")


@pytest.mark.parametrize("how", ["mean", "sum", "gmean", "median"])
def test_aggregate_applies_to_every_measure(how: str) -> None:
    res = cranfield.evaluate(QRELS, RUN, ["AP", "P@2"], aggregate=how)
    for m in ("AP", "P@2"):
        assert res.how(m) == how
        assert res[m] == res.aggregate(m, how)


def test_default_aggregates_are_the_declared_ones() -> None:
    res = cranfield.evaluate(QRELS, RUN, ["AP", "GMAP", "NumRet"])
    assert (res.how("AP"), res.how("GMAP"), res.how("NumRet")) == ("mean", "gmean", "sum")
    assert res["NumRet"] == 5
    assert res.aggregate("AP", "median") == float(np.median(res.values[res._key("AP")]))


def test_micro_for_a_ranked_measure_is_refused() -> None:
    with pytest.raises(MeasureError, match="cannot be micro-averaged") as exc:
        cranfield.evaluate(QRELS, RUN, ["SetP", "AP"], aggregate="micro")
    one_sentence(exc)
    res = cranfield.evaluate(QRELS, RUN, ["SetP", "AP"])
    with pytest.raises(MeasureError, match="cannot be micro-averaged"):
        res.aggregate("AP", "micro")


def test_unknown_aggregation_and_measure_in_mapping() -> None:
    with pytest.raises(cranfield.OptionError, match="The 'aggregate' option must be one of") as e:
        cranfield.evaluate(QRELS, RUN, ["AP"], aggregate="harmonic")  # type: ignore[arg-type]
    one_sentence(e)
    with pytest.raises(MeasureError, match="not among the measures evaluated"):
        cranfield.evaluate(QRELS, RUN, ["AP"], aggregate={"P@5": "median"})
    with pytest.raises(ValueError, match="epsilon"):
        cranfield.evaluate(QRELS, RUN, ["GMAP"], epsilon=0.0)
    res = cranfield.evaluate(QRELS, RUN, ["GMAP"])
    with pytest.raises(cranfield.OptionError, match="The 'how' option must be one of 'mean'") as e:
        res.aggregate("GMAP", "harmonic")  # type: ignore[arg-type]
    one_sentence(e)
    with pytest.raises(cranfield.OptionError, match="The 'epsilon' option must be a number > 0"):
        res.aggregate("GMAP", "gmean", epsilon=0.0)


def test_epsilon_reaches_the_geometric_mean() -> None:
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    run = {"1": {"a": 1.0}, "2": {"z": 1.0}}
    assert cranfield.evaluate(qrels, run, ["GMAP"])["GMAP"] == pytest.approx(np.sqrt(1e-5))
    assert cranfield.evaluate(qrels, run, ["GMAP"], epsilon=0.01)["GMAP"] == pytest.approx(0.1)


def test_set_measure_with_cutoff_keeps_its_name_in_trec_eval_text() -> None:
    res = cranfield.evaluate(QRELS, RUN, ["SetP", "SetP@2", "P@2"])
    text = res.to_trec_eval()
    assert "set_P " in text
    assert "SetP@2" in text
    assert "P_2 " in text


def test_setf_alpha_and_beta_together_are_refused() -> None:
    with pytest.raises(MeasureError, match="beta or alpha") as exc:
        cranfield.evaluate(QRELS, RUN, ["SetF(alpha=0.5,beta=2)"])
    one_sentence(exc)


def test_alpha_ndcg_alpha_above_one_is_refused() -> None:
    intents = {"1": {"s1": {"a": 1}}}
    with pytest.raises(MeasureError, match="must be <= 1") as exc:
        cranfield.evaluate(QRELS, RUN, ["alpha_nDCG(alpha=2)"], intents=intents)
    one_sentence(exc)


def test_collection_size_smaller_than_the_documents_is_an_error() -> None:
    with pytest.raises(EvaluationError, match="collection size") as exc:
        cranfield.evaluate(QRELS, RUN, ["SetFallout"], num_docs=2)
    one_sentence(exc)


def test_needs_are_declared_and_enforced() -> None:
    from cranfield.measures import all_specs

    needs = {s.name: s.needs for s in all_specs() if s.needs}
    assert needs == {
        "Coverage": {"known"},
        "Novelty": {"known"},
        "RelRecall": {"known"},
        "RecallEffect": {"known"},
        "alpha_nDCG": {"intents"},
    }
    with pytest.raises(EvaluationError, match="intents") as exc:
        cranfield.evaluate(QRELS, RUN, ["alpha_nDCG@5"])
    one_sentence(exc)


# --------------------------------------------------------------------------- intent qrels


def test_read_intents(tmp_path) -> None:
    path = tmp_path / "intents.txt"
    path.write_text("# comment\n1 1 a 1\n1 2 a 1\n1 2 b 0\n2 1 d 2\n")
    intents = read_intents(path)
    assert isinstance(intents, IntentQrels)
    assert intents.frame.columns == ["query_id", "subtopic", "doc_id", "relevance"]
    assert intents.frame.height == 4
    assert intents.to_qrels().to_dict() == {"1": {"a": 1, "b": 0}, "2": {"d": 2}}
    assert repr(intents) == "IntentQrels(name='intents.txt', topics=2, judgments=4)"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (
            "1 1 a 1\n1 1 a 0\n",
            ":2: duplicate judgment of document 'a' for query '1', subtopic '1' (first seen on line 1)",
        ),
        ("1 1 a 1\n1 1 b\n", ":2: expected 4 fields (qid subtopic docno rel), got 3"),
        ("1 1 a x\n", ":1: relevance must be a 64-bit integer, got 'x'"),
        ("# only a comment\n", "contains no"),
    ],
)
def test_read_intents_errors_name_file_and_line(tmp_path, text: str, fragment: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(InputError) as exc:
        read_intents(path)
    assert fragment in str(exc.value)


def test_load_intents_from_frames_and_dicts() -> None:
    nested = {"1": {"s1": {"a": 1, "b": 0}, "s2": {"a": 1}}}
    from_dict = load_intents(nested)
    frame = pl.DataFrame(
        {
            "query_id": ["1", "1", "1"],
            "iteration": ["s1", "s1", "s2"],
            "doc_id": ["a", "b", "a"],
            "relevance": [1, 0, 1],
        }
    )
    from_frame = load_intents(frame)
    assert from_dict.frame.equals(from_frame.frame)
    with pytest.raises(InputError, match="judged twice"):
        load_intents(pl.concat([frame, frame]))
    with pytest.raises(InputError, match="need the column"):
        load_intents(frame.drop("relevance"))


# --------------------------------------------------------------------------- curves


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
