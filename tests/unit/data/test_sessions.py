"""``data/sessions.py``: the session arrays, their checks, selections and the polars frame."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cranfield.data.sessions import Sessions, vocabulary
from cranfield.errors import InputError


def small(**changes: Any) -> Sessions:
    """Three sessions over two queries; the third shows two results; the first clicks b twice
    and d, which it did not show."""
    base: dict[str, Any] = {
        "query_ids": ("q1", "q2"),
        "doc_ids": ("a", "b", "c", "d"),
        "query": np.array([0, 1, 0]),
        "shown": np.array([[0, 1, 2], [2, 1, 0], [1, 0, -1]]),
        "click_session": np.array([0, 0, 0, 2]),
        "click_doc": np.array([1, 3, 1, 0]),
    }
    base.update(changes)
    return Sessions(**base)


def test_derived_arrays() -> None:
    s = small()
    assert len(s) == 3
    assert s.depth == 3
    assert s.num_queries == 2
    assert s.num_clicks == 4
    assert s.click_rank.tolist() == [1, -1, 1, 1]
    assert s.clicked.tolist() == [[False, True, False], [False] * 3, [False, True, False]]
    assert s.num_shown.tolist() == [3, 3, 2]
    assert s.clicks_per_session.tolist() == [3, 0, 1]
    assert s.click_start.tolist() == [0, 3, 3, 4]
    assert not s.shown.flags.writeable
    assert not s.clicked.flags.writeable


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"query": np.array([0, 2, 0])}, r"<sessions>:2: query holds the code 2, outside 0\.\.1"),
        ({"query": np.array([0.0, 1.0, 0.0])}, "query must hold integer codes"),
        ({"shown": np.array([[0, 1, 2], [2, 1, 0]])}, "shown has 2 rows for 3 sessions"),
        (
            {"shown": np.array([[0, 1, 2], [2, -1, 0], [1, 0, -1]])},
            ":2: shows a document after an empty rank",
        ),
        ({"shown": np.array([[0, 1, 2], [2, 1, 2], [1, 0, -1]])}, ":2: shows a document twice"),
        (
            {"shown": np.array([[0, 1, 4], [2, 1, 0], [1, 0, -1]])},
            r":1: shown holds the code 4, outside -1\.\.3",
        ),
        (
            {"click_session": np.array([0, 0, 2, 0])},
            ":1: has a click after a click of a later session",
        ),
        ({"click_session": np.array([0, 0, 0, 3])}, r"click 4 is in session 3, outside 0\.\.2"),
        ({"click_doc": np.array([1, 3, 1])}, "click_doc has 3 values for 4 clicks"),
        ({"click_doc": np.array([1, 3, 9, 0])}, r":1: click_doc holds the code 9"),
        ({"doc_ids": ("a", "b", "c", "a")}, "doc_ids repeats an id"),
        ({"click_time": np.array([1.0, 2.0])}, "click_time must be 4 real numbers"),
        ({"dwell": np.array([1.0, np.inf, 2.0, 3.0])}, r"dwell\[1\] is infinite"),
        ({"user": np.array([0, 0, 1]), "user_ids": ("u",)}, r":3: user holds the code 1"),
        ({"bucket": np.array([0, 0]), "bucket_ids": ("A",)}, "bucket has 2 values for 3 sessions"),
    ],
)
def test_invalid_arrays(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        small(**changes)


def test_empty_sessions() -> None:
    s = Sessions(
        query_ids=(),
        doc_ids=(),
        query=np.array([], dtype=np.int64),
        shown=np.zeros((0, 0), dtype=np.int64),
        click_session=np.array([], dtype=np.int64),
        click_doc=np.array([], dtype=np.int64),
    )
    assert (len(s), s.depth, s.num_queries, s.num_clicks) == (0, 0, 0, 0)
    assert s.to_polars().height == 0


def test_select_by_mask_and_indices_keeps_clicks_and_codes() -> None:
    s = small(click_time=np.array([1.0, 2.0, 3.0, 4.0]), time=np.array([10.0, 20.0, 30.0]))
    picked = s.select(np.array([True, False, True]))
    assert picked.query.tolist() == [0, 0]
    assert picked.click_session.tolist() == [0, 0, 0, 1]
    assert picked.click_time is not None
    assert picked.click_time.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert picked.doc_ids == s.doc_ids
    reordered = s.select([2, 0])
    assert reordered.click_session.tolist() == [0, 1, 1, 1]
    assert reordered.click_doc.tolist() == [0, 1, 3, 1]
    assert reordered.time is not None
    assert reordered.time.tolist() == [30.0, 10.0]
    assert len(s.select([])) == 0


@pytest.mark.parametrize(
    ("which", "message"),
    [
        (np.array([True, False]), r"a selection mask must have shape \(3,\)"),
        ([0, 0], "distinct session indices"),
        ([3], "distinct session indices"),
    ],
)
def test_select_refuses(which: Any, message: str) -> None:
    with pytest.raises(InputError, match=message):
        small().select(which)


def test_for_queries() -> None:
    s = small()
    assert s.for_queries(["q1"]).query.tolist() == [0, 0]
    assert len(s.for_queries(["q2", "nope"])) == 1
    assert len(s.for_queries([])) == 0
    assert s.for_queries("q2").query.tolist() == [1]


def test_to_polars_layout() -> None:
    s = small(
        click_time=np.array([1.0, np.nan, 3.0, 4.0]),
        bucket=np.array([0, 1, 0]),
        bucket_ids=("A", "B"),
    )
    frame = s.to_polars()
    assert frame.columns == ["query_id", "shown", "clicks", "click_times", "bucket"]
    assert frame.row(0) == ("q1", ["a", "b", "c"], ["b", "d", "b"], [1.0, None, 3.0], "A")
    assert frame.row(1) == ("q2", ["c", "b", "a"], [], [], "B")
    assert frame.row(2) == ("q1", ["b", "a"], ["a"], [4.0], "A")


def test_arrays_for_the_models() -> None:
    arrays = small().arrays()
    assert sorted(arrays) == ["click_rank", "click_session", "clicked", "query", "shown"]


def test_vocabulary_in_order_of_first_appearance() -> None:
    ids, codes = vocabulary(["x", "y", "x", "z"])
    assert ids == ("x", "y", "z")
    assert codes.tolist() == [0, 1, 0, 2]


def test_from_clicked_orders_clicks_by_rank() -> None:
    s = Sessions.from_clicked(
        query_ids=("q1", "q2"),
        doc_ids=("a", "b", "c"),
        query=np.array([0, 1, 0]),
        shown=np.array([[0, 1, 2], [2, 1, -1], [1, 0, 2]]),
        clicked=np.array([[True, False, True], [False, False, False], [False, True, False]]),
        bucket=np.array([0, 0, 1]),
        bucket_ids=("A", "B"),
    )
    assert s.click_session.tolist() == [0, 0, 2]
    assert s.click_doc.tolist() == [0, 2, 0]
    assert s.clicked.tolist() == [[True, False, True], [False] * 3, [False, True, False]]
    assert s.bucket_ids == ("A", "B")


@pytest.mark.parametrize(
    ("clicked", "message"),
    [
        (np.array([[1, 0]]), "clicked must be booleans of shape"),
        (np.array([[True, False, False]]), "clicked must be booleans of shape"),
        (np.array([[False, True]]), ":1: clicks a rank where nothing was shown"),
    ],
)
def test_from_clicked_refuses(clicked: Any, message: str) -> None:
    with pytest.raises(InputError, match=message):
        Sessions.from_clicked(
            query_ids=("q",), doc_ids=("a",), query=[0], shown=np.array([[0, -1]]), clicked=clicked
        )


def test_recoded_puts_a_second_log_on_the_first_ones_codes() -> None:
    """A test log coded as the training log: shared ids get the training codes, new ids come
    after the training vocabulary, and the sessions (ids, clicks, times) are unchanged."""
    train = small()
    test = Sessions(
        query_ids=("q3", "q1"),
        doc_ids=("e", "b", "a"),
        query=np.array([1, 0]),
        shown=np.array([[2, 1, 0], [0, -1, -1]]),
        click_session=np.array([0, 0, 1]),
        click_doc=np.array([0, 2, 0]),
        click_time=np.array([1.0, 2.0, 3.0]),
    )
    r = test.recoded(train.query_ids, train.doc_ids)
    assert r.query_ids == ("q1", "q2", "q3")
    assert r.doc_ids == ("a", "b", "c", "d", "e")
    assert r.query.tolist() == [0, 2]
    assert r.shown.tolist() == [[0, 1, 4], [4, -1, -1]]
    assert r.click_doc.tolist() == [4, 0, 4]
    assert r.clicked.tolist() == test.clicked.tolist()
    assert r.to_polars().equals(test.to_polars())
    assert test.recoded().doc_ids == test.doc_ids


def test_recoded_refuses_a_repeated_id() -> None:
    with pytest.raises(InputError, match="repeats the id 'a'"):
        small().recoded(doc_ids=["a", "b", "a"])
