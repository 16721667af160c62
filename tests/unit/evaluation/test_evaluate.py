"""``cranfield.evaluate`` and ``Results``: inputs, policies and hand-computed values.

The collection below is small enough to compute every number by hand; the comments show the
arithmetic (trec_eval's rules: ties broken by document id descending, unjudged documents
are non-relevant, nDCG gain = judged level, discount log2(rank + 1)).
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pytest

import cranfield
from cranfield import MeasureError, MissingTopicError, Results, evaluate, parse_measure

QRELS: dict[str, dict[str, int]] = {
    "q1": {"d1": 1, "d2": 0, "d3": 2, "d4": 1, "d5": 0},
    "q2": {"d1": 0, "d2": 1},
    "q3": {"a": 1, "b": 0},
    "q4": {"x": 1},  # judged but absent from the run
}
RUN: dict[str, dict[str, float]] = {
    "q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7, "d6": 0.6, "d5": 0.5},
    "q2": {"d1": 0.5, "d3": 0.4, "d2": 0.3},
    "q3": {"a": 1.0, "b": 1.0},  # a tie: broken by doc id descending, so b ranks first
    "q9": {"z": 1.0},  # not judged: ignored
}
MEASURES = ["AP", "P@2", "P@5", "RR", "nDCG@3", "P(rel=2)@5"]

# Ranked judgments (- = unjudged):
#   q1: d1=1, d2=0, d3=2, d6=-, d5=0      R(rel>=1) = 3 (d1, d3, d4; d4 not retrieved)
#   q2: d1=0, d3=-, d2=1                  R = 1
#   q3: b=0, a=1                          R = 1
#   q4: nothing retrieved                 R = 1
LOG2_3 = math.log2(3)
EXPECTED: dict[str, dict[str, float]] = {
    # AP = sum of precision at each relevant rank / R
    "AP": {
        "q1": (1 / 1 + 2 / 3) / 3,  # relevant at ranks 1 and 3 -> 5/9
        "q2": (1 / 3) / 1,  # relevant at rank 3
        "q3": (1 / 2) / 1,  # relevant at rank 2 (after the tie-break)
        "q4": 0.0,
    },
    "P@2": {"q1": 1 / 2, "q2": 0 / 2, "q3": 1 / 2, "q4": 0.0},
    "P@5": {"q1": 2 / 5, "q2": 1 / 5, "q3": 1 / 5, "q4": 0.0},  # always divided by 5
    "RR": {"q1": 1 / 1, "q2": 1 / 3, "q3": 1 / 2, "q4": 0.0},
    # nDCG@3 = DCG@3 / IDCG@3; the ideal list is built from every judged document
    "nDCG@3": {
        # DCG = 1/log2(2) + 0/log2(3) + 2/log2(4) = 2; ideal 2,1,1 -> 2 + 1/log2(3) + 1/2
        "q1": 2 / (2 + 1 / LOG2_3 + 1 / 2),
        # DCG = 1/log2(4) = 1/2; ideal 1 -> 1
        "q2": 0.5,
        # DCG = 1/log2(3); ideal 1 -> 1
        "q3": 1 / LOG2_3,
        "q4": 0.0,
    },
    # only d3 (level 2) is relevant at rel=2
    "P(rel=2)@5": {"q1": 1 / 5, "q2": 0.0, "q3": 0.0, "q4": 0.0},
}


def _mean(values: dict[str, float], topics: list[str]) -> float:
    return sum(values[t] for t in topics) / len(topics)


# --------------------------------------------------------------------------- helpers


def qrels_frame() -> pl.DataFrame:
    rows = [(q, d, r) for q, docs in QRELS.items() for d, r in docs.items()]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "relevance"], orient="row")


def run_frame() -> pl.DataFrame:
    rows = [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")


def write_trec(tmp_path: Path) -> tuple[Path, Path]:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, docs in QRELS.items() for d, r in docs.items())
    )
    run = tmp_path / "run.txt"
    lines = []
    for q, docs in RUN.items():
        # the rank column is deliberately wrong: it must be ignored
        for rank, (d, s) in enumerate(reversed(docs.items()), start=1):
            lines.append(f"{q} Q0 {d} {rank} {s!r} mytag\n")
    run.write_text("".join(lines))
    return qrels, run


@pytest.fixture(scope="module")
def res() -> Results:
    return evaluate(QRELS, RUN, MEASURES)


# --------------------------------------------------------------------------- hand-computed values


@pytest.mark.parametrize("measure", MEASURES)
def test_hand_computed_per_topic(res: Results, measure: str) -> None:
    got = res.per_query(measure)
    assert list(got) == ["q1", "q2", "q3", "q4"]
    assert got == pytest.approx(EXPECTED[measure], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("measure", MEASURES)
def test_hand_computed_mean(res: Results, measure: str) -> None:
    topics = ["q1", "q2", "q3", "q4"]
    assert res[measure] == pytest.approx(_mean(EXPECTED[measure], topics), rel=1e-12)


def test_hand_computed_single_topic() -> None:
    # relevant: a, c.  ranking: a(1) b(0) c(1) -> AP = (1/1 + 2/3) / 2 = 5/6
    qrels = {"t": {"a": 1, "b": 0, "c": 1}}
    run = {"t": {"a": 3.0, "b": 2.0, "c": 1.0}}
    res = evaluate(qrels, run, ["AP", "P@1", "P@2", "P@3", "P@10", "RR", "nDCG@2"])
    assert res["AP"] == pytest.approx(5 / 6, rel=1e-15)
    assert (res["P@1"], res["P@2"], res["P@3"]) == pytest.approx((1.0, 0.5, 2 / 3))
    assert res["P@10"] == pytest.approx(2 / 10)  # trec_eval divides by k, not by min(k, n)
    assert res["RR"] == 1.0
    # DCG@2 = 1/log2(2) + 0 = 1; IDCG@2 = 1 + 1/log2(3)
    assert res["nDCG@2"] == pytest.approx(1 / (1 + 1 / LOG2_3), rel=1e-12)


def test_perfect_ranking_scores_one() -> None:
    qrels = {"t": {"a": 2, "b": 1, "c": 0}}
    run = {"t": {"a": 3.0, "b": 2.0, "c": 1.0}}
    res = evaluate(qrels, run, ["AP", "RR", "nDCG@3", "nDCG"])
    assert res.means() == {"AP": 1.0, "RR": 1.0, "nDCG@3": 1.0, "nDCG": 1.0}


def test_no_relevant_document_retrieved_scores_zero() -> None:
    res = evaluate({"t": {"a": 1}}, {"t": {"b": 1.0, "c": 0.5}}, ["AP", "RR", "P@2", "nDCG@2"])
    assert res.means() == {"AP": 0.0, "RR": 0.0, "P@2": 0.0, "nDCG@2": 0.0}


# --------------------------------------------------------------------------- input kinds


def _all_numbers(r: Results) -> dict[str, dict[str, float]]:
    return {str(m): r.per_query(m) for m in r.measures}


def test_paths_frames_and_dicts_agree(tmp_path: Path) -> None:
    qrels_path, run_path = write_trec(tmp_path)
    reference = _all_numbers(evaluate(QRELS, RUN, MEASURES))
    inputs: list[tuple[Any, Any]] = [
        (qrels_path, run_path),
        (str(qrels_path), str(run_path)),
        (qrels_frame(), run_frame()),
        (qrels_frame().to_pandas(), run_frame().to_pandas()),
        (qrels_frame().to_arrow(), run_frame().to_arrow()),
        (cranfield.load_qrels(qrels_path), cranfield.load_run(run_path)),
        (QRELS, run_path),
        (qrels_frame(), RUN),
    ]
    for qrels, run in inputs:
        assert _all_numbers(evaluate(qrels, run, MEASURES)) == reference, (type(qrels), type(run))


def test_alternative_column_names_in_pandas() -> None:
    qrels = (
        qrels_frame()
        .to_pandas()
        .rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    )
    run = run_frame().to_pandas().rename(columns={"query_id": "qid", "doc_id": "docno"})
    assert _all_numbers(evaluate(qrels, run, MEASURES)) == _all_numbers(
        evaluate(QRELS, RUN, MEASURES)
    )


def test_run_name() -> None:
    assert evaluate(QRELS, RUN, "AP", run_name="bm25").run_name == "bm25"


def test_run_name_follows_the_naming_rule(tmp_path: Path) -> None:
    qrels_path, run_path = write_trec(tmp_path)
    assert evaluate(qrels_path, run_path, "AP").run_name == "run"  # run.txt, suffix dropped


def test_measures_argument_forms(res: Results) -> None:
    ap = parse_measure("AP")
    assert evaluate(QRELS, RUN, "AP").measures == [ap]
    assert evaluate(QRELS, RUN, ap).measures == [ap]
    assert evaluate(QRELS, RUN, ("AP", ap, "MAP", "map")).measures == [ap]  # repeats dropped
    assert evaluate(QRELS, RUN, ["P.2,5"]).measures == [parse_measure("P@2"), parse_measure("P@5")]
    assert evaluate(QRELS, RUN, iter(["RR", "AP"])).measures == [parse_measure("RR"), ap]


def test_unknown_measure_raises_before_any_work() -> None:
    with pytest.raises(MeasureError, match="Did you mean"):
        evaluate(QRELS, RUN, ["AP", "nDGC@10"])


# --------------------------------------------------------------------------- no mutation


def test_dict_inputs_are_not_mutated() -> None:
    qrels, run = copy.deepcopy(QRELS), copy.deepcopy(RUN)
    before_q, before_r = copy.deepcopy(qrels), copy.deepcopy(run)
    for missing in ("zero", "skip"):
        evaluate(qrels, run, MEASURES, missing=missing, depth=2, judged_only=True, float32=True)
    assert qrels == before_q
    assert run == before_r
    # same insertion order too
    assert [list(d) for d in run.values()] == [list(d) for d in before_r.values()]


def test_frame_inputs_are_not_mutated() -> None:
    qp, rp = qrels_frame(), run_frame()
    qp_before, rp_before = qp.clone(), rp.clone()
    qd, rd = qp.to_pandas(), rp.to_pandas()
    qd_before, rd_before = qd.copy(deep=True), rd.copy(deep=True)
    evaluate(qp, rp, MEASURES)
    evaluate(qd, rd, MEASURES)
    assert qp.equals(qp_before)
    assert rp.equals(rp_before)
    pd.testing.assert_frame_equal(qd, qd_before)
    pd.testing.assert_frame_equal(rd, rd_before)


def test_loaded_objects_are_reusable(tmp_path: Path) -> None:
    qrels_path, run_path = write_trec(tmp_path)
    qrels, run = cranfield.load_qrels(qrels_path), cranfield.load_run(run_path)
    q_frame, r_frame = qrels.frame.clone(), run.frame.clone()
    first = _all_numbers(evaluate(qrels, run, MEASURES, depth=1))
    assert qrels.frame.equals(q_frame)
    assert run.frame.equals(r_frame)
    assert _all_numbers(evaluate(qrels, run, MEASURES, depth=1)) == first


# --------------------------------------------------------------------------- missing topics


def test_missing_zero_counts_the_topic(res: Results) -> None:
    assert res.missing_policy == "zero"
    assert res.topics == ["q1", "q2", "q3", "q4"]
    assert res.missing_topics == ["q4"]
    assert all(res.per_query(m)["q4"] == 0.0 for m in MEASURES)
    assert res["AP"] == pytest.approx(_mean(EXPECTED["AP"], ["q1", "q2", "q3", "q4"]))


def test_missing_zero_is_the_default() -> None:
    explicit = evaluate(QRELS, RUN, MEASURES, missing="zero")
    assert _all_numbers(explicit) == _all_numbers(evaluate(QRELS, RUN, MEASURES))


def test_missing_skip_drops_the_topic() -> None:
    res = evaluate(QRELS, RUN, MEASURES, missing="skip")
    assert res.missing_policy == "skip"
    assert res.topics == ["q1", "q2", "q3"]
    assert res.missing_topics == ["q4"]
    for m in MEASURES:
        assert "q4" not in res.per_query(m)
        assert res[m] == pytest.approx(_mean(EXPECTED[m], ["q1", "q2", "q3"]), rel=1e-12)


def test_missing_error_raises() -> None:
    with pytest.raises(MissingTopicError, match="'q4'") as exc:
        evaluate(QRELS, RUN, MEASURES, missing="error")
    assert exc.value.topics == ["q4"]
    assert isinstance(exc.value, cranfield.EvaluationError)
    assert isinstance(exc.value, cranfield.CranfieldError)
    assert "\n" not in str(exc.value)


def test_missing_error_is_fine_when_nothing_is_missing() -> None:
    qrels = {q: d for q, d in QRELS.items() if q != "q4"}
    res = evaluate(qrels, RUN, MEASURES, missing="error")
    assert res.missing_topics == []
    assert res.topics == ["q1", "q2", "q3"]


def test_topics_only_in_the_run_are_ignored() -> None:
    for missing in ("zero", "skip"):
        res = evaluate(QRELS, RUN, MEASURES, missing=missing)
        assert "q9" not in res.topics
        assert "q9" not in res.missing_topics
    without = {q: d for q, d in RUN.items() if q != "q9"}
    assert _all_numbers(evaluate(QRELS, without, MEASURES)) == _all_numbers(
        evaluate(QRELS, RUN, MEASURES)
    )


def test_empty_run_scores_every_topic_zero() -> None:
    res = evaluate(QRELS, {}, ["AP", "P@5"])
    assert res.topics == ["q1", "q2", "q3", "q4"]
    assert res.missing_topics == ["q1", "q2", "q3", "q4"]
    assert res.means() == {"AP": 0.0, "P@5": 0.0}


def test_skip_with_no_common_topic_is_an_error() -> None:
    # A run sharing no query with the qrels was meant for other qrels (issue 18); the
    # message's wording is tested in test_overlap.py.
    with pytest.raises(cranfield.EvaluationError, match="share no query id"):
        evaluate(QRELS, {"q9": {"z": 1.0}}, ["AP"], missing="skip")


def test_empty_qrels_is_a_cranfield_error() -> None:
    with pytest.raises(cranfield.CranfieldError):
        evaluate({}, RUN, ["AP"])


def test_unknown_missing_policy_is_rejected() -> None:
    with pytest.raises((ValueError, cranfield.CranfieldError)):
        evaluate(QRELS, RUN, ["AP"], missing="bogus")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- relevance level


def test_relevance_level_applies_to_measures_without_rel() -> None:
    res = evaluate(QRELS, RUN, ["AP", "P@5", "P(rel=2)@5", "nDCG@3"], relevance_level=2)
    # at level 2 only q1/d3 is relevant: AP(q1) = (1/3) / 1; other topics have R = 0
    assert res.per_query("AP") == pytest.approx({"q1": 1 / 3, "q2": 0.0, "q3": 0.0, "q4": 0.0})
    assert res.per_query("P@5") == pytest.approx(EXPECTED["P(rel=2)@5"])
    # an explicit rel keeps its value
    assert res.per_query("P(rel=2)@5") == pytest.approx(EXPECTED["P(rel=2)@5"])
    # nDCG has no rel parameter: unchanged
    assert res.per_query("nDCG@3") == pytest.approx(EXPECTED["nDCG@3"])


def test_explicit_rel_wins_over_relevance_level() -> None:
    res = evaluate(QRELS, RUN, ["P(rel=2)@5"], relevance_level=3)
    assert res.per_query("P(rel=2)@5") == pytest.approx(EXPECTED["P(rel=2)@5"])
    assert evaluate(QRELS, RUN, ["P@5"], relevance_level=3)["P@5"] == 0.0


def test_explicit_default_rel_wins_over_relevance_level() -> None:
    res = evaluate(QRELS, RUN, ["P(rel=1)@5", "P@5"], relevance_level=2)
    assert len(res.measures) == 2
    assert res.per_query("P(rel=1)@5") == pytest.approx(EXPECTED["P@5"])


# --------------------------------------------------------------------------- Results API


def test_getitem_by_string_alias_and_measure(res: Results) -> None:
    expected = _mean(EXPECTED["AP"], ["q1", "q2", "q3", "q4"])
    for key in ("AP", "MAP", "map", parse_measure("AP"), parse_measure("MAP")):
        assert res[key] == pytest.approx(expected, rel=1e-12)
    assert res["P_5"] == res["P@5"] == res[parse_measure("P@5")]
    assert isinstance(res["AP"], float)


@pytest.mark.parametrize("key", ["P@10", "AP(rel=2)", parse_measure("RR@10"), "P.2,5"])
def test_getitem_not_evaluated(res: Results, key: Any) -> None:
    with pytest.raises(MeasureError):
        res[key]


def test_getitem_unknown_name(res: Results) -> None:
    with pytest.raises(MeasureError, match="Unknown measure"):
        res["nonsense"]


def test_per_topic(res: Results) -> None:
    assert res.per_query("RR") == pytest.approx(EXPECTED["RR"])
    assert res.per_query(parse_measure("RR")) == res.per_query("MRR")
    assert all(isinstance(v, float) for v in res.per_query("RR").values())


def test_means(res: Results) -> None:
    means = res.means()
    assert list(means) == MEASURES
    for m in MEASURES:
        assert means[m] == res[m]


def test_measures_property(res: Results) -> None:
    assert res.measures == [parse_measure(m) for m in MEASURES]


def test_to_polars(res: Results) -> None:
    frame = res.to_polars()
    assert frame.columns == ["query_id", *MEASURES]
    assert frame.get_column("query_id").to_list() == ["q1", "q2", "q3", "q4"]
    assert frame.schema["query_id"] == pl.String
    for m in MEASURES:
        assert frame.schema[m] == pl.Float64
        assert dict(zip(frame["query_id"], frame[m], strict=True)) == res.per_query(m)


def test_to_pandas(res: Results) -> None:
    frame = res.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert frame.index.name == "query_id"
    assert list(frame.index) == ["q1", "q2", "q3", "q4"]
    assert list(frame.columns) == MEASURES
    for m in MEASURES:
        assert frame[m].to_dict() == res.per_query(m)


def test_to_dict(res: Results) -> None:
    d = res.to_dict()
    assert d == {
        "run": "run",
        "missing_policy": "zero",
        "missing_topics": ["q4"],
        "num_queries": 4,
        "means": res.means(),
        "per_query": {m: res.per_query(m) for m in MEASURES},
    }
    d["missing_topics"].append("zz")  # a copy, not the Results' own list
    assert res.missing_topics == ["q4"]


def test_to_trec_eval_summary(res: Results) -> None:
    text = res.to_trec_eval()
    lines = text.splitlines()
    assert text.endswith("\n")
    assert len(lines) == len(MEASURES)
    labels = [line.split("\t")[0].rstrip() for line in lines]
    assert labels[:5] == ["map", "P_2", "P_5", "recip_rank", "ndcg_cut_3"]
    for line, m in zip(lines, MEASURES, strict=True):
        label, qid, value = line.split("\t")
        assert len(label) >= 22
        assert qid == "all"
        assert value == f"{res[m]:6.4f}"
    ap_line = lines[0]
    assert ap_line == f"{'map':<22}\tall\t{res['AP']:6.4f}"


def test_to_trec_eval_per_query(res: Results) -> None:
    lines = res.to_trec_eval(per_query=True).splitlines()
    assert len(lines) == len(MEASURES) * (len(res.topics) + 1)
    qids = [line.split("\t")[1] for line in lines]
    # per-topic blocks in topic order, then the summary
    expected = [t for t in res.topics for _ in MEASURES] + ["all"] * len(MEASURES)
    assert qids == expected
    assert f"{'recip_rank':<22}\tq2\t{1 / 3:6.4f}" in lines
    assert f"{'ndcg_cut_3':<22}\tq4\t0.0000" in lines
    assert lines[-len(MEASURES) :] == res.to_trec_eval().splitlines()


def test_to_trec_eval_counts_print_as_integers() -> None:
    res = evaluate(QRELS, RUN, ["NumRet", "NumRelRet"])
    lines = res.to_trec_eval(per_query=True).splitlines()
    # retrieved: q1 5, q2 3, q3 2, q4 0 (missing) -> 10
    assert f"{'num_ret':<22}\tall\t10" in lines
    assert f"{'num_ret':<22}\tq4\t0" in lines
    assert f"{'num_rel_ret':<22}\tall\t4" in lines  # 2 + 1 + 1 + 0


def test_to_trec_eval_labels_are_distinct(res: Results) -> None:
    labels = [line.split("\t")[0].rstrip() for line in res.to_trec_eval().splitlines()]
    assert len(labels) == len(set(labels))


def test_policy_note() -> None:
    zero = evaluate(QRELS, RUN, "AP")
    assert zero.policy_note() == (
        "4 queries; 1 judged query(ies) absent from the run scored 0 (missing='zero')."
    )
    skip = evaluate(QRELS, RUN, "AP", missing="skip")
    assert skip.policy_note() == (
        "3 queries; 1 judged query(ies) absent from the run left out (missing='skip')."
    )
    complete = {q: d for q, d in QRELS.items() if q != "q4"}
    assert evaluate(complete, RUN, "AP").policy_note() == (
        "3 queries, every judged query retrieved."
    )
