"""``diff_runs``: per-query deltas, the tests of ``compare``, wins and losses, the ranks of the
relevant documents by the ranking rule, RBO and the unjudged documents entering the top k."""

from __future__ import annotations

import gzip
import json
import math

import pytest

from cranfield.errors import OptionError
from cranfield.evaluation.evaluator import Evaluator
from cranfield.stats import compare, diff_runs, rbo
from tests.conftest import require
from tests.unit.conftest import ROBUST03

QRELS = {
    "q1": {"d1": 2, "d2": 1, "d3": 0, "d9": -1},
    "q2": {"d4": 1, "d5": 0},
    "q3": {"d6": 1},
    "q4": {"d7": 1},
}
# A: q1 all judged first; q2 the relevant document first; q3 misses; q4 absent.
RUN_A = {
    "q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
    "q2": {"d4": 2.0, "d5": 1.0},
    "q3": {"x1": 2.0, "x2": 1.0},
}
# B: q1 an unjudged document and a pooled-unjudged one on top; q2 loses; q3 wins; q4 absent.
RUN_B = {
    "q1": {"new": 5.0, "d9": 4.0, "d2": 3.0, "d1": 2.0},
    "q2": {"d5": 2.0, "d4": 1.0},
    "q3": {"d6": 2.0, "x1": 1.0},
}


def _diff(**kwargs: object) -> object:
    return diff_runs(QRELS, RUN_A, RUN_B, ["AP", "P@1"], names=["a", "b"], **kwargs)


def test_per_query_scores_and_deltas_are_the_evaluated_ones() -> None:
    d = diff_runs(QRELS, RUN_A, RUN_B, ["AP", "P@1"], names=["a", "b"])
    ev = Evaluator(QRELS, ["AP", "P@1"])
    a, b = ev.evaluate(RUN_A).per_query("AP"), ev.evaluate(RUN_B).per_query("AP")
    assert [q.query_id for q in d.queries] == ["q1", "q2", "q3", "q4"]
    for q in d.queries:
        assert q.scores_a["AP"] == a[q.query_id]
        assert q.scores_b["AP"] == b[q.query_id]
        assert q.delta("AP") == b[q.query_id] - a[q.query_id]


def test_the_tests_are_compares_with_a_as_baseline() -> None:
    d = diff_runs(QRELS, RUN_A, RUN_B, ["AP", "P@1"], names=["a", "b"], tests=["t-test", "sign"])
    c = compare(
        QRELS, {"a": RUN_A, "b": RUN_B}, ["AP", "P@1"], baseline="a", tests=["t-test", "sign"]
    )
    for m in ("AP", "P@1"):
        assert d.pair(m).control == "a"
        assert d.pair(m).tests == c.pair("a", "b", m).tests
        assert d.pair(m).mean_difference == c.pair("a", "b", m).mean_difference


def test_wins_and_losses_are_sorted_by_delta_and_cut_at_top() -> None:
    d = diff_runs(QRELS, RUN_A, RUN_B, ["AP"], names=["a", "b"], top=1)
    assert d.wins["AP"] == ("q3",)  # 0 -> 1
    assert d.losses["AP"] == ("q1",)  # 1 -> 0.4167 (q2 loses less: 1 -> 0.5)
    d = diff_runs(QRELS, RUN_A, RUN_B, ["AP"], names=["a", "b"], top=5)
    assert d.losses["AP"] == ("q1", "q2")
    assert d.detailed == ("q3", "q1", "q2")  # wins then losses, by default
    assert d.query("q4").relevant is None  # not detailed


def test_ranks_of_the_relevant_documents_with_their_grades() -> None:
    d = diff_runs(QRELS, RUN_A, RUN_B, ["AP"], names=["a", "b"], queries=["q1", "q3", "q4"])
    moves = {m.doc_id: (m.grade, m.rank_a, m.rank_b) for m in d.query("q1").relevant}
    assert moves == {"d1": (2, 1, 4), "d2": (1, 2, 3)}  # judged 0 and -1 are not relevant
    assert [(m.doc_id, m.rank_a, m.rank_b) for m in d.query("q3").relevant] == [("d6", None, 1)]
    # q4: judged, retrieved by neither run (missing="zero": placeholder rankings, no document)
    assert [(m.doc_id, m.rank_a, m.rank_b) for m in d.query("q4").relevant] == [("d7", None, None)]
    assert d.detailed == ("q1", "q3", "q4")
    assert _diff(queries="q1").detailed == ("q1",)  # one id, not its characters
    every = _diff(every_query=True)
    assert every.detailed == ("q1", "q2", "q3", "q4")
    assert all(q.relevant is not None for q in every.queries)


def test_ranks_follow_the_ranking_rule_ties_by_doc_id_descending_and_depth() -> None:
    qrels = {"q1": {"a": 1, "b": 1, "c": 1}, "q2": {"a": 1}}
    tied = {"q1": {"a": 1.0, "b": 1.0, "c": 1.0}, "q2": {"a": 1.0}}  # ties: c, b, a
    other = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"a": 1.0}}
    d = diff_runs(qrels, tied, other, ["AP"], names=["t", "o"], queries=["q1"])
    assert {m.doc_id: (m.rank_a, m.rank_b) for m in d.query("q1").relevant} == {
        "a": (3, 1),
        "b": (2, 2),
        "c": (1, 3),
    }
    d = diff_runs(qrels, tied, other, ["AP"], names=["t", "o"], queries=["q1"], depth=2)
    assert {m.doc_id: (m.rank_a, m.rank_b) for m in d.query("q1").relevant} == {
        "a": (None, 1),
        "b": (2, 2),
        "c": (1, None),
    }


def test_judged_only_closes_up_the_ranks_and_leaves_nothing_unjudged() -> None:
    d = diff_runs(QRELS, RUN_A, RUN_B, ["AP"], names=["a", "b"], queries=["q1"], judged_only=True)
    assert {m.doc_id: m.rank_b for m in d.query("q1").relevant} == {"d1": 2, "d2": 1}
    assert d.entered_total == 0


def test_rbo_is_that_of_the_two_rankings_and_undefined_without_any() -> None:
    d = _diff()
    assert d.query("q1").rbo == rbo(["d1", "d2", "d3"], ["new", "d9", "d2", "d1"]).ext
    assert d.query("q3").rbo == rbo(["x1", "x2"], ["d6", "x1"]).ext
    assert math.isnan(d.query("q4").rbo)  # neither run answers q4
    defined = [d.query(q).rbo for q in ("q1", "q2", "q3")]
    assert d.rbo_mean == pytest.approx(sum(defined) / 3)
    assert (
        _diff(p=0.5).query("q1").rbo
        == rbo(["d1", "d2", "d3"], ["new", "d9", "d2", "d1"], p=0.5).ext
    )


def test_unjudged_documents_entering_the_top_k() -> None:
    d = _diff()
    # q1: 'new' (no judgment) and 'd9' (pooled, not judged: -1) entered; q3: d6 is judged
    assert d.query("q1").entered == ("new", "d9")
    assert d.query("q3").entered == ()
    assert (d.entered_total, d.entered_queries) == (2, 1)
    assert _diff(k=1).query("q1").entered == ("new",)


def test_a_query_not_compared_and_bad_options_are_refused() -> None:
    with pytest.raises(OptionError, match="The 'query' option must be a query both runs"):
        _diff(queries=["q9"])
    with pytest.raises(OptionError, match="The 'every_query' option must be False when"):
        _diff(queries=["q1"], every_query=True)
    for option, bad in (("top", 0), ("k", 0), ("p", 1.0)):
        with pytest.raises(OptionError, match=f"The '{option}' option must be"):
            _diff(**{option: bad})


def test_json_is_plain_deterministic_data() -> None:
    d = _diff(tests=["randomization"], seed=3, n_resamples=200)
    data = json.loads(d.to_json())
    assert (data["run_a"], data["run_b"], data["queries"]) == ("a", "b", 4)
    assert data["summary"]["AP"]["largest_wins"][0] == {"query_id": "q3", "delta": 1.0}
    assert data["per_query"][3]["rbo"] is None  # q4: NaN as null
    assert data["per_query"][0]["relevant"][0] == {
        "doc_id": "d1",
        "grade": 2,
        "rank_a": 1,
        "rank_b": 4,
    }
    assert data["entered"] == {"k": 10, "documents": 2, "queries": 1}
    assert _diff(tests=["randomization"], seed=3, n_resamples=200).to_json() == d.to_json()


def test_robust03_ranks_agree_with_precision_at_10_on_every_query() -> None:
    """On real runs (heavy ties in MU03rob01): the relevant documents ranked 10 or better are
    exactly what P@10 counted, for every query and both runs."""
    qrels = require(ROBUST03 / "qrels.robust03.txt.gz")
    a, b = ROBUST03 / "runs" / "input.MU03rob01.gz", ROBUST03 / "runs" / "input.pircRBa1.gz"
    with gzip.open(qrels, "rt") as f:
        topics = sorted({line.split()[0] for line in f})
    d = diff_runs(qrels, a, b, ["P@10"], queries=topics, names="tag")
    assert (d.run_a, d.run_b, len(d.queries)) == ("MU03rob01", "pircRBa1", 100)
    for q in d.queries:
        moves = q.relevant or ()
        assert sum(1 for m in moves if m.rank_a is not None and m.rank_a <= 10) / 10 == (
            pytest.approx(q.scores_a["P@10"])
        )
        assert sum(1 for m in moves if m.rank_b is not None and m.rank_b <= 10) / 10 == (
            pytest.approx(q.scores_b["P@10"])
        )
        assert 0.0 <= q.rbo <= 1.0


def test_robust03_ranks_are_trec_evals_sort_of_a_tied_run() -> None:
    """MU03rob01 has integer scores (many ties): each relevant document's rank is its place
    when the lines are sorted as trec_eval sorts them (score descending, doc id descending,
    bytewise), written here from that rule alone."""
    qrels = require(ROBUST03 / "qrels.robust03.txt.gz")
    a, b = ROBUST03 / "runs" / "input.MU03rob01.gz", ROBUST03 / "runs" / "input.pircRBa1.gz"
    lines: dict[str, list[tuple[float, str]]] = {}
    with gzip.open(a, "rt") as f:
        for line in f:
            qid, _, doc, _, score, _ = line.split()
            lines.setdefault(qid, []).append((float(score), doc))
    wanted = sorted(lines)[:10]
    d = diff_runs(qrels, a, b, ["AP"], queries=wanted, names="tag")
    for qid in wanted:
        ranked = sorted(lines[qid], key=lambda x: (x[0], x[1].encode()), reverse=True)
        where = {doc: r for r, (_, doc) in enumerate(ranked, start=1)}
        moves = d.query(qid).relevant or ()
        assert moves
        assert {m.doc_id: m.rank_a for m in moves} == {m.doc_id: where.get(m.doc_id) for m in moves}
