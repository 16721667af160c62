"""Preference judgments: the reader and the 14 ``prefs_*`` measures of trec_eval."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from cranfield.errors import EvaluationError, InputError
from cranfield.io.prefs import (
    PREFS_SCHEMA,
    prefs_from_qrels,
    read_prefs,
    read_qrels_jg,
    read_qrels_prefs,
)
from cranfield.io.trec import read_qrels, read_run
from cranfield.kernels.prefs import PREFS_MEASURES, PREFS_SUMMARY, evaluate_prefs
from tests.conftest import CONFORMANCE, require

DATA = require(CONFORMANCE)


# --------------------------------------------------------------------------- helpers


def rank(run_path: Path, *, ties: str) -> dict[str, list[str]]:
    """Rank a run: score descending, equal scores by doc id bytewise ``ties`` order."""
    frame = read_run(run_path).frame
    ranked: dict[str, list[str]] = {}
    for (qid,), group in frame.group_by(["query_id"]):
        rows = group.select("doc_id", "score").rows()
        rows.sort(key=lambda r: r[0].encode(), reverse=ties == "descending")
        rows.sort(key=lambda r: -r[1])  # stable: keeps the doc id order within a score
        ranked[str(qid)] = [doc for doc, _ in rows]
    return ranked


def trec_eval_lines(prefs: pl.DataFrame, ranked: dict[str, list[str]]) -> list[str]:
    """The measure lines ``trec_eval -q -m all_prefs`` prints (without runid / num_q)."""
    topics, values = evaluate_prefs(prefs, ranked)

    def line(name: str, qid: str, value: float) -> str:
        # C: "%-22s\t%s\t%ld" for the counts (truncated), "%-22s\t%s\t%6.4f" otherwise
        shown = f"{int(value)}" if PREFS_SUMMARY[name] == "sum" else f"{value:6.4f}"
        return f"{name:<22}\t{qid}\t{shown}"

    lines = [line(n, q, values[n][i]) for i, q in enumerate(topics) for n in PREFS_MEASURES]
    for name in PREFS_MEASURES:
        total = 0.0
        for v in values[name]:  # topic order, one division at the end, as trec_eval
            total += float(v)
        summary = total if PREFS_SUMMARY[name] == "sum" else total / len(topics)
        lines.append(line(name, "all", summary))
    return lines


def expected_lines(name: str) -> list[str]:
    text = (DATA / name).read_text()
    return [ln for ln in text.splitlines() if not ln.startswith(("runid ", "num_q "))]


def prefs_frame(rows: list[tuple[str, str, str, str, float]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=PREFS_SCHEMA, orient="row")


def one_topic(rows: list[tuple[str, str, str, float]], ranking: list[str]) -> dict[str, float]:
    """Evaluate rows ``(jg, jsg, doc, level)`` of topic "q" against ``ranking``."""
    topics, values = evaluate_prefs(prefs_frame([("q", *r) for r in rows]), {"q": ranking})
    assert topics == ["q"]
    return {name: float(v[0]) for name, v in values.items()}


# --------------------------------------------------------------------------- golden files


@pytest.mark.parametrize("prefs_file", ["prefs.test", "prefs.comment.test"])
def test_out_test_prefs(prefs_file: str) -> None:
    # trec_eval -m all_prefs -q -R prefs <prefs_file> prefs.results.test
    got = trec_eval_lines(
        read_prefs(DATA / prefs_file), rank(DATA / "prefs.results.test", ties="ascending")
    )
    assert got == expected_lines("out.test.prefs")


def test_out_test_qrels_prefs() -> None:
    # trec_eval -m all_prefs -q -R qrels_prefs qrels.test results.test
    prefs = prefs_from_qrels(read_qrels(DATA / "qrels.test").frame)
    got = trec_eval_lines(prefs, rank(DATA / "results.test", ties="ascending"))
    assert got == expected_lines("out.test.qrels_prefs")


def test_read_qrels_prefs_is_the_same_table() -> None:
    via_qrels = prefs_from_qrels(read_qrels(DATA / "qrels.test"))
    direct = read_qrels_prefs(DATA / "qrels.test")
    assert direct.sort(pl.all()).equals(via_qrels.sort(pl.all()))


def test_prefs_ranking_breaks_ties_by_doc_id_ascending() -> None:
    # form_prefs_counts.c sorts equal scores by docno ascending, unlike the rest of
    # trec_eval. results.test has ties among judged documents of topic 301: the usual
    # descending order changes prefs_num_prefs_ful there (81606 instead of 81605).
    prefs = prefs_from_qrels(read_qrels(DATA / "qrels.test"))
    wrong = trec_eval_lines(prefs, rank(DATA / "results.test", ties="descending"))
    assert "prefs_num_prefs_ful   \t301\t81606" in wrong
    assert wrong != expected_lines("out.test.qrels_prefs")


# --------------------------------------------------------------------------- measures


def test_complete_ranking_of_one_subgroup() -> None:
    # The get_prefs.c example: 6 docs, levels 3 2 0 6 0 2 -> 13 preferences.
    rows = [
        ("u", "s", d, lv)
        for d, lv in [("d1", 3.0), ("d2", 2.0), ("d3", 0.0), ("d4", 6.0), ("d5", 0.0), ("d6", 2.0)]
    ]
    perfect = one_topic(rows, ["d4", "d1", "d2", "d6", "d3", "d5"])
    assert perfect["prefs_num_prefs_poss"] == 13
    assert perfect["prefs_num_prefs_ful"] == 13
    assert perfect["prefs_simp"] == perfect["prefs_pair"] == perfect["prefs_avgjg"] == 1.0
    reversed_ = one_topic(rows, ["d5", "d3", "d6", "d2", "d1", "d4"])
    assert reversed_["prefs_num_prefs_ful"] == 0
    assert reversed_["prefs_simp"] == 0.0


def test_subgroups_are_closed_under_transitivity() -> None:
    # get_prefs.c: 1>2>3 in s1 and 2>4 in s2 imply 1>4: 5 preferences, none between 3 and 4.
    rows = [
        ("u", "s1", "d1", 3.0),
        ("u", "s1", "d2", 2.0),
        ("u", "s1", "d3", 1.0),
        ("u", "s2", "d2", 5.0),
        ("u", "s2", "d4", 4.0),
    ]
    v = one_topic(rows, ["d1", "d2", "d3", "d4"])
    assert v["prefs_num_prefs_poss"] == 5
    assert v["prefs_num_prefs_ful_ret"] == 5
    v = one_topic(rows, ["d4", "d1"])  # d4 above d1 breaks the implied 1 > 4
    assert v["prefs_num_prefs_ful_ret"] == 0
    assert v["prefs_simp_ret"] == 0.0
    # implied (one retrieved): d1>d2, d1>d3 fulfilled; d2>d4 not (d4 retrieved, d2 not);
    # plus the failed retrieved d1>d4: (0 + 2) / (1 + 3)
    assert v["prefs_simp_imp"] == 0.5


def test_retrieved_implied_and_not_occurring_preferences() -> None:
    rows = [("u", "s", "a", 2.0), ("u", "s", "b", 1.0), ("u", "s", "c", 0.0)]
    v = one_topic(rows, ["b", "x", "y"])  # only b retrieved; a, c not
    # a>b: implied, not fulfilled; a>c: neither retrieved; b>c: implied, fulfilled
    assert v["prefs_num_prefs_poss"] == 3
    assert v["prefs_num_prefs_ful"] == 1
    assert v["prefs_num_prefs_ful_ret"] == 0
    assert v["prefs_simp"] == pytest.approx(1 / 3)
    assert v["prefs_simp_imp"] == pytest.approx(1 / 2)
    assert v["prefs_simp_ret"] == 0.0
    assert v["prefs_pair"] == pytest.approx(1 / 3)  # the a,c pair counts, with ratio 0
    assert v["prefs_pair_imp"] == pytest.approx(1 / 2)


def test_pair_averages_conflicting_groups_per_document_pair() -> None:
    rows = [
        ("u1", "s", "a", 1.0),
        ("u1", "s", "b", 0.0),
        ("u2", "s", "a", 0.0),
        ("u2", "s", "b", 1.0),
        ("u3", "s", "a", 1.0),
        ("u3", "s", "b", 0.0),
    ]
    v = one_topic(rows, ["a", "b"])
    assert v["prefs_simp"] == pytest.approx(2 / 3)
    assert v["prefs_pair"] == pytest.approx(2 / 3)
    assert v["prefs_avgjg"] == pytest.approx(2 / 3)


def test_avgjg_counts_groups_without_preferences_in_the_denominator() -> None:
    rows = [("u1", "s", "a", 1.0), ("u1", "s", "b", 0.0), ("u2", "s", "a", 1.0)]
    v = one_topic(rows, ["a", "b"])
    assert v["prefs_avgjg"] == 0.5
    assert v["prefs_simp"] == 1.0


def test_rnonrel_pads_groups_with_few_nonrelevant_documents() -> None:
    # R = 3 relevant, N = 1 non-relevant: R - N = 2 perfect non-relevant documents are
    # imagined below every relevant one.
    rows = [("u", "s", d, lv) for d, lv in [("a", 1.0), ("b", 1.0), ("c", 1.0), ("z", 0.0)]]
    v = one_topic(rows, ["z", "a", "b"])  # c not retrieved
    # real prefs: a>z, b>z not fulfilled (z first), c>z not (c unretrieved): 0 of 3;
    # added: ful += R_ret * 2 = 4, poss += R * 2 = 6
    assert v["prefs_avgjg_Rnonrel"] == pytest.approx(4 / 9)
    # retrieved only: R_ret = 2, N_ret = 1: ful = 0 + 2*1, poss = 2 + R*1 = 5
    assert v["prefs_avgjg_Rnonrel_ret"] == pytest.approx(2 / 5)


def test_rnonrel_keeps_only_r_nonrelevant_documents() -> None:
    rows = [("u", "s", d, lv) for d, lv in [("a", 1.0), ("m", 0.0), ("n", 0.0), ("o", 0.0)]]
    # R = 1 < N = 3: recount with the first R non-relevant documents in rank order (m),
    # and (a trec_eval quirk) the lowest class against them as well: pairs a-m, m-m, n-m,
    # o-m, of which only a>m is fulfilled.
    v = one_topic(rows, ["a", "m", "n", "o"])
    assert v["prefs_avgjg_Rnonrel"] == pytest.approx(1 / 4)
    assert v["prefs_avgjg_Rnonrel_ret"] == pytest.approx(1 / 4)
    assert v["prefs_avgjg"] == 1.0


def test_group_with_only_nonrelevant_documents_zeroes_rnonrel() -> None:
    # The 0/0 of such a group is NaN in trec_eval, which makes the whole topic 0.
    rows = [
        ("u1", "s", "a", 1.0),
        ("u1", "s", "b", 0.0),
        ("u2", "s", "a", 0.0),
        ("u2", "s", "b", 0.0),
    ]
    v = one_topic(rows, ["a", "b"])
    assert v["prefs_avgjg_Rnonrel"] == 0.0
    assert v["prefs_avgjg"] == 0.5


def test_topics_are_the_judged_topics_present_in_ranked() -> None:
    prefs = prefs_frame(
        [
            ("b", "u", "s", "x", 1.0),
            ("b", "u", "s", "y", 0.0),
            ("a", "u", "s", "x", 1.0),
            ("a", "u", "s", "y", 0.0),
            ("10", "u", "s", "x", 1.0),
            ("10", "u", "s", "y", 0.0),
        ]
    )
    topics, values = evaluate_prefs(prefs, {"b": ["x"], "a": [], "10": ["y", "x"], "z": ["x"]})
    assert topics == ["10", "a", "b"]  # bytewise; "z" has no judgments
    np.testing.assert_array_equal(values["prefs_simp"], [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(values["prefs_num_prefs_poss"], [1.0, 1.0, 1.0])
    assert list(values) == list(PREFS_MEASURES)
    assert all(v.dtype == np.float64 for v in values.values())


def test_nothing_to_evaluate() -> None:
    prefs = prefs_frame([("a", "u", "s", "x", 1.0)])
    topics, values = evaluate_prefs(prefs, {"other": ["x"]})
    assert topics == []
    assert all(v.shape == (0,) for v in values.values())


def test_input_frame_is_not_modified() -> None:
    prefs = prefs_frame([("a", "u", "s", "y", 0.0), ("a", "u", "s", "x", 1.0)])
    before = prefs.clone()
    evaluate_prefs(prefs, {"a": ["y", "x"]})
    assert prefs.equals(before)


def test_summary_rules() -> None:
    assert set(PREFS_SUMMARY) == set(PREFS_MEASURES)
    assert {n for n, how in PREFS_SUMMARY.items() if how == "sum"} == {
        "prefs_num_prefs_poss",
        "prefs_num_prefs_ful",
        "prefs_num_prefs_ful_ret",
    }


# --------------------------------------------------------------------------- errors


def test_document_at_two_levels_of_one_subgroup_is_an_error() -> None:
    with pytest.raises(EvaluationError, match=r"'d1' has two different rel_levels"):
        one_topic([("u", "s", "d1", 1.0), ("u", "s", "d1", 0.0), ("u", "s", "d2", 0.5)], [])


def test_contradiction_inside_a_group_is_an_error() -> None:
    rows = [
        ("u", "s1", "a", 2.0),
        ("u", "s1", "b", 1.0),
        ("u", "s2", "b", 2.0),
        ("u", "s2", "c", 1.0),
        ("u", "s3", "c", 2.0),
        ("u", "s3", "a", 1.0),
    ]
    with pytest.raises(EvaluationError, match="and the reverse"):
        one_topic(rows, ["a"])
    # the same preferences in different groups are fine
    v = one_topic([(f"u{r[1]}", *r[1:]) for r in rows], ["a", "b", "c"])
    assert v["prefs_num_prefs_poss"] == 3


def test_zero_and_positive_level_in_one_group_is_an_error() -> None:
    rows = [
        ("u", "s1", "a", 0.0),
        ("u", "s1", "b", -1.0),
        ("u", "s2", "a", 1.0),
        ("u", "s2", "c", 0.5),
    ]
    with pytest.raises(EvaluationError, match="both level 0 and a positive level"):
        one_topic(rows, [])


def test_document_ranked_twice_is_an_error() -> None:
    with pytest.raises(EvaluationError, match="'x' is ranked twice"):
        one_topic([("u", "s", "x", 1.0), ("u", "s", "y", 0.0)], ["x", "y", "x"])


def test_frame_without_a_column_is_an_error() -> None:
    with pytest.raises(InputError, match="missing the column"):
        evaluate_prefs(prefs_frame([("a", "u", "s", "x", 1.0)]).drop("jsg"), {"a": []})


# --------------------------------------------------------------------------- reader


def write(tmp_path: Path, text: str, name: str = "prefs.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode())
    return path


def test_read_prefs_skips_comments_and_blank_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "# header\n\n  q2\tu  s d#1   1.5\r\n   # indented comment\n"
        "q1 u s d2 -0\nq10 F:x,y G d3 1e1",
    )
    frame = read_prefs(path)
    assert frame.schema == pl.Schema(PREFS_SCHEMA)
    assert frame.rows() == [
        ("q1", "u", "s", "d2", 0.0),
        ("q10", "F:x,y", "G", "d3", 10.0),
        ("q2", "u", "s", "d#1", 1.5),
    ]


def test_read_prefs_compressed(tmp_path: Path) -> None:
    path = tmp_path / "prefs.gz"
    path.write_bytes(gzip.compress(b"q u s d 1\n"))
    assert read_prefs(path).rows() == [("q", "u", "s", "d", 1.0)]


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("q u s d 1\nq u s d2\n", 2, "expected 5 fields (qid jg jsg docno rel_level), got 4"),
        ("q u s d 1 extra\n", 1, "expected 5 fields (qid jg jsg docno rel_level), got 6"),
        ("# c\n\nq u s d high\n", 3, "rel_level must be a number, got 'high'"),
        ("q u s d nan\n", 1, "rel_level is NaN"),
        (
            "q u s d 1\nq u s e 0\nq u s d 2\n",
            3,
            "duplicate document 'd' in sub-group 's' of judgment group 'u' for query 'q' "
            "(first seen on line 1)",
        ),
    ],
)
def test_malformed_prefs_line(tmp_path: Path, text: str, line: int, problem: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        read_prefs(path)
    err = info.value
    assert (err.source, err.line, err.problem) == (str(path), line, problem)
    assert str(err).startswith(f"{path}:{line}: {problem}: ")


def test_invalid_utf8_prefs_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.prefs"
    path.write_bytes(b"q u s d 1\nq u s \xff 1\n")
    with pytest.raises(InputError, match=r"bad\.prefs:2: is not valid UTF-8"):
        read_prefs(path)


def test_prefs_file_without_data(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="contains no prefs lines"):
        read_prefs(write(tmp_path, "# only a comment\n\n"))


def test_read_qrels_jg_allows_a_document_once_per_group(tmp_path: Path) -> None:
    frame = read_qrels_jg(write(tmp_path, "1 b d 1\n1 a d 0\n1 a c -1\n"))
    assert frame.rows() == [("1", "a", "c", -1), ("1", "a", "d", 0), ("1", "b", "d", 1)]


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        (
            "1 a d 1\n1 a d 0\n",
            2,
            "duplicate document 'd' in judgment group 'a' for query '1' (first seen on line 1)",
        ),
        ("1 a d 1.5\n", 1, "relevance must be an integer, got '1.5'"),
        ("1 a d\n", 1, "expected 4 fields (qid jg docno rel), got 3"),
    ],
)
def test_malformed_qrels_jg_line(tmp_path: Path, text: str, line: int, problem: str) -> None:
    path = write(tmp_path, text, "qrels.jg")
    with pytest.raises(InputError) as info:
        read_qrels_jg(path)
    assert (info.value.source, info.value.line, info.value.problem) == (str(path), line, problem)


def test_prefs_from_qrels_keeps_negative_levels() -> None:
    qrels = pl.DataFrame(
        {
            "query_id": ["1", "1", "1"],
            "iteration": ["0", "0", "7"],
            "doc_id": ["a", "b", "a"],
            "relevance": [1, -1, 0],
        }
    )
    assert prefs_from_qrels(qrels).rows() == [
        ("1", "0", "0", "a", 1.0),
        ("1", "0", "0", "b", -1.0),
        ("1", "7", "0", "a", 0.0),
    ]
    with pytest.raises(InputError, match="missing the column"):
        prefs_from_qrels(qrels.drop("iteration"))
