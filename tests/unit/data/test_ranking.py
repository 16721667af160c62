"""The two ways :func:`cranfield.data.ranking.rank` orders a run give trec_eval's order.

Run files are almost always grouped by query with scores never increasing, and ``rank``
then moves whole query blocks and sorts only runs of tied scores, found in file order. Any
other input takes the general path (grouping, then a sort by score). Both are compared here
with the per-topic reference of ``tests/reference.py`` on adversarial runs: many ties, tied
lines in any order, queries in any order, queries without judgments between the others.
"""

from __future__ import annotations

import random
from typing import Any
from unittest import mock

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield.data import qrels as qrels_module
from cranfield.data import ranking
from cranfield.data import run as run_module
from cranfield.data.qrels import Qrels
from cranfield.data.run import Run
from tests.reference import rank_topic

# Ids whose bytewise order differs from numeric or case-folded order.
_IDS = ["a", "b", "B", "aa", "a\u00e9", "\u6587", "10", "9", "doc2", "doc10", "zz", "Doc1"]


@st.composite
def grouped_runs(draw: st.DrawFn) -> tuple[dict[str, dict[str, int]], list[tuple[str, str, float]]]:
    """Judgments and run lines grouped by query, scores never increasing inside a query."""
    queries = draw(st.lists(st.sampled_from(_IDS), min_size=1, max_size=6, unique=True))
    judged = draw(st.lists(st.sampled_from(queries), min_size=1, unique=True))
    qrels = {
        q: draw(st.dictionaries(st.sampled_from(_IDS), st.integers(-1, 3), min_size=1, max_size=6))
        for q in judged
    }
    lines: list[tuple[str, str, float]] = []
    for q in queries:  # in the drawn order, not sorted
        docs = draw(st.lists(st.sampled_from(_IDS), min_size=1, max_size=10, unique=True))
        scores = sorted(
            draw(
                st.lists(
                    st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=len(docs), max_size=len(docs)
                )
            ),
            reverse=True,
        )
        lines += [(q, d, s) for d, s in zip(docs, scores, strict=True)]
    return qrels, lines


def _frame(lines: list[tuple[str, str, float]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "query_id": [q for q, _, _ in lines],
            "doc_id": [d for _, d, _ in lines],
            "score": [s for _, _, s in lines],
        },
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64},
    )


def _qrels(qrels: dict[str, dict[str, int]]) -> Qrels:
    rows = [(q, "0", d, lv) for q, docs in qrels.items() for d, lv in docs.items()]
    frame = pl.DataFrame(
        rows, schema=["query_id", "iteration", "doc_id", "relevance"], orient="row"
    )
    return Qrels(frame.sort("query_id", "doc_id"), name="q")


def _ranked(ranked: ranking.Ranking) -> dict[str, tuple[tuple[str, int], ...]]:
    docs = ranked.doc_id.to_list()
    out = {}
    for i, topic in enumerate(ranked.topics):
        lo, hi = ranked.offsets[i], ranked.offsets[i + 1]
        out[topic] = tuple(zip(docs[lo:hi], ranked.rel[lo:hi].tolist(), strict=True))
    return out


def _expected(
    qrels: dict[str, dict[str, int]], lines: list[tuple[str, str, float]], depth: int | None
) -> dict[str, tuple[int, ...]]:
    run: dict[str, dict[str, float]] = {}
    for q, d, s in lines:
        run.setdefault(q, {})[d] = s
    return {
        q: rank_topic(qrels[q], run[q], depth=depth, judged_only=False, float32=False)
        for q in sorted(run)
        if q in qrels
    }


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grouped_runs(), depth=st.none() | st.integers(1, 4), seed=st.integers(0, 2**32))
def test_both_paths_give_the_reference_order(
    case: tuple[dict[str, dict[str, int]], list[tuple[str, str, float]]],
    depth: int | None,
    seed: int,
) -> None:
    qrels, lines = case
    judgments = _qrels(qrels)
    expected = _expected(qrels, lines, depth)
    calls: list[Any] = []
    real = ranking._tie_rows

    def spy(*args: Any) -> Any:
        calls.append(args[-1].size)  # the rows the positions hold
        return real(*args)

    with mock.patch.object(ranking, "_tie_rows", spy):
        grouped = ranking.rank(Run(_frame(lines), name="r"), judgments, depth=depth, missing="skip")
    assert calls in ([], [0])  # the grouped file took the fast path (ties in file order)
    shuffled = lines[:]
    random.Random(seed).shuffle(shuffled)
    general = ranking.rank(Run(_frame(shuffled), name="r"), judgments, depth=depth, missing="skip")
    for got in (_ranked(grouped), _ranked(general)):
        assert list(got) == list(expected)
        for topic, rows in got.items():
            assert tuple(code for _, code in rows) == expected[topic]
    # the two paths agree document by document, not only on the codes
    assert _ranked(grouped) == _ranked(general)
    # large runs filter the judged rows on a second thread, in chunks: the same ranking
    with (
        mock.patch.object(ranking, "_HELPER_ROWS", 0),
        mock.patch.object(ranking, "_FLAG_CHUNK", 3),
    ):
        for lines_in in (lines, shuffled):
            threaded = ranking.rank(
                Run(_frame(lines_in), name="r"), judgments, depth=depth, missing="skip"
            )
            assert _ranked(threaded) == _ranked(grouped)


def test_judgments_are_built_once_per_qrels_and_topic_list() -> None:
    """Many runs against the same qrels (the usual loop) share the judged levels; another
    topic list, or other qrels with the same content, get their own."""
    qrels = _qrels({"1": {"a": 2, "b": 0, "c": -1}, "2": {"a": 1, "d": 3}})
    first = ranking.judgments_for(qrels, ["1", "2"])
    assert ranking.judgments_for(qrels, ["1", "2"]) is first
    assert first.levels.tolist() == [2, 0, 3, 1]
    assert first.pooled_unjudged.tolist() == [1, 0]
    only_two = ranking.judgments_for(qrels, ["2"])
    assert only_two.levels.tolist() == [3, 1]
    assert only_two.offsets.tolist() == [0, 2]
    twin = Qrels(qrels.frame, name="q")
    assert ranking.judgments_for(twin, ["1", "2"]) is not first
    assert ranking.judgments_for(twin, ["1", "2"]).levels.tolist() == [2, 0, 3, 1]
    assert qrels.doc_keys.size == len(qrels)  # one key per judgment


@settings(max_examples=200, deadline=None)
@given(
    keys=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=300),
    picks=st.lists(st.integers(0, 299), max_size=40),
    strangers=st.lists(st.integers(0, 2**32 - 1), max_size=40),
)
def test_the_judged_row_filter_never_loses_a_judged_row(
    keys: list[int], picks: list[int], strangers: list[int]
) -> None:
    """Candidates may include unjudged rows (the join drops them), never miss a judged one."""
    run_keys = np.array(keys, dtype=np.uint32)
    judged = np.array([keys[i % len(keys)] for i in picks] + strangers, dtype=np.uint32)
    qrels = _qrels({"q": {"d": 1}})
    vars(qrels)["doc_keys"] = judged  # stand-in keys for the cached property
    rows = ranking._maybe_judged(run_keys, qrels)
    must = {i for i, k in enumerate(keys) if k in set(judged.tolist())}
    assert must <= set(rows.tolist())
    assert rows.tolist() == sorted(set(rows.tolist()))  # ascending, each row once


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grouped_runs(), depth=st.none() | st.integers(1, 4))
def test_judged_rows_found_by_key_equal_the_join_on_ids(
    case: tuple[dict[str, dict[str, int]], list[tuple[str, str, float]]], depth: int | None
) -> None:
    """Judgments are looked up by (topic, doc key) and confirmed on the ids; when two judged
    documents of a topic share a key (forced here: every key is 7) a join on the ids
    decides. Both give the same codes, and the reference's."""
    qrels, lines = case
    by_key = ranking.rank(Run(_frame(lines), name="r"), _qrels(qrels), depth=depth, missing="skip")

    def seven(ids: pl.Series) -> np.ndarray:
        return np.full(ids.len(), 7, dtype=np.uint32)

    with (
        mock.patch.object(run_module, "doc_keys", seven),
        mock.patch.object(qrels_module, "doc_keys", seven),
    ):
        by_join = ranking.rank(
            Run(_frame(lines), name="r"), _qrels(qrels), depth=depth, missing="skip"
        )
        clash = ranking._pair_codes(_qrels(qrels)) is None
    assert clash == any(len(docs) > 1 for docs in qrels.values())  # the join was used
    assert _ranked(by_key) == _ranked(by_join)
    expected = _expected(qrels, lines, depth)
    assert {t: tuple(c for _, c in rows) for t, rows in _ranked(by_key).items()} == expected


def test_judgment_codes_keep_levels_too_large_for_int32() -> None:
    """Codes are int32 when every level fits, else int64: no level is ever wrapped."""
    lines = [("1", "a", 3.0), ("1", "b", 2.0), ("1", "c", 1.0)]
    for big in (2**31 - 1, 2**31, -(2**31) - 1, 2**40):
        judged = _qrels({"1": {"a": big, "b": 1}})
        ranked = ranking.rank(Run(_frame(lines), name="r"), judged)
        fits = -(2**31) <= big < 2**31
        assert ranked.rel.dtype == (np.int32 if fits else np.int64)
        expected = ranking.UNJUDGED if big < 0 else big
        assert ranked.rel.tolist() == [expected, 1, ranking.NOT_IN_POOL]


def test_tie_order_reads_only_the_tied_ids_through_rows() -> None:
    """``rows``: position i holds row rows[i] of the doc ids; the order equals the one of the
    ids gathered first, and names rows of the column."""
    doc = pl.Series(["d0", "d1", "d2", "d3", "d4"])
    rows = np.array([4, 0, 3, 1, 2])
    scores = np.array([3.0, 2.0, 2.0, 2.0, 1.0])
    lengths = np.array([5])
    gathered = ranking.tie_order(scores, doc.gather(rows), lengths)
    through = ranking.tie_order(scores, doc, lengths, rows=rows)
    assert through.descending
    assert through.positions.tolist() == gathered.positions.tolist() == [1, 2, 3]
    assert gathered.rows.tolist() == [2, 3, 1]  # d3, d1, d0 (doc id descending) as positions
    assert through.rows.tolist() == [3, 1, 0]  # the same, as rows of the doc id column
