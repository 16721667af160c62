"""``logs/click_metrics.py`` on a small log computed by hand (see the comments)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cranfield.data.sessions import Sessions
from cranfield.errors import OptionError
from cranfield.logs.click_metrics import click_metrics, session_metrics

NAN = float("nan")


def log(*, times: bool = True) -> Sessions:
    """Four sessions, depth 3 (docs a=0 b=1 c=2 d=3 x=4):

    s0 q1 A shows a b c; clicks b (t 5, dwell 40), a (t 20, dwell 10), c (t 60, dwell ?)
    s1 q1 B shows a b c; no click
    s2 q2 A shows c d;   clicks x (not shown; t 1, dwell 100), d (t 8, dwell 31)
    s3 q2 B shows d c;   clicks d (t 2, dwell 30)
    """
    return Sessions(
        query_ids=("q1", "q2"),
        doc_ids=("a", "b", "c", "d", "x"),
        query=np.array([0, 0, 1, 1]),
        shown=np.array([[0, 1, 2], [0, 1, 2], [2, 3, -1], [3, 2, -1]]),
        click_session=np.array([0, 0, 0, 2, 2, 3]),
        click_doc=np.array([1, 0, 2, 4, 3, 3]),
        click_time=np.array([5.0, 20.0, 60.0, 1.0, 8.0, 2.0]) if times else None,
        dwell=np.array([40.0, 10.0, NAN, 100.0, 31.0, 30.0]) if times else None,
        bucket=np.array([0, 1, 0, 1]),
        bucket_ids=("A", "B"),
    )


def test_per_session_values() -> None:
    values = session_metrics(log(), k=(1, 3))
    assert values["ctr"].tolist() == [1, 0, 1, 1]
    assert values["ctr@1"].tolist() == [1, 0, 0, 1]  # s2 clicked d at rank 2
    assert values["clicks"].tolist() == [3, 0, 1, 1]  # the click on x is not on a result
    assert values["unshown_clicks"].tolist() == [0, 0, 1, 0]
    assert values["rr_first"].tolist() == [0.5, 0, 0.5, 1]  # first in time: b; d
    assert values["rr_last"].tolist() == [1 / 3, 0, 0.5, 1]  # last in time: c
    assert values["rr_max"].tolist() == [1, 0, 0.5, 1]
    np.testing.assert_array_equal(values["time_to_first_click"], [5, NAN, 8, 2])
    np.testing.assert_array_equal(values["time_to_last_click"], [60, NAN, 8, 2])
    assert values["sat_clicks"].tolist() == [1, 0, 1, 1]  # dwell >= 30: b, d, d; c unknown


def test_overall() -> None:
    m = click_metrics(log(), k=(1, 3))
    o = m.overall
    assert m.num_sessions == 4
    assert o["ctr"] == o["ctr@3"] == 0.75
    assert o["ctr@1"] == 0.5
    assert o["abandonment"] == 0.25
    assert o["clicks"] == 1.25
    assert o["unshown_clicks"] == 0.25
    assert o["rr_first"] == 0.5
    assert o["rr_last"] == pytest.approx(11 / 24)
    assert o["rr_max"] == 0.625
    assert o["time_to_first_click"] == 5.0  # (5 + 8 + 2) / 3: s1 has no click
    assert o["time_to_last_click"] == pytest.approx(70 / 3)
    assert o["sat_ctr"] == 0.75
    assert o["sat_clicks"] == 0.75
    # rank 3 was shown by s0 and s1 only
    assert m.rank_ctr.tolist() == [0.5, 0.5, 0.5]
    assert m.by is None
    assert m.groups == ()
    assert any("dwell is >= 30 s" in n for n in m.notes)


def test_dwell_threshold() -> None:
    o = click_metrics(log(), dwell=35).overall
    assert o["sat_ctr"] == 0.25  # only b's 40 s
    assert any("35 s" in n for n in click_metrics(log(), dwell=35).notes)


def test_by_query() -> None:
    m = click_metrics(log(), by="query", k=1)
    assert m.groups == ("q1", "q2")
    assert m.sessions.tolist() == [2, 2]
    assert m.values["ctr"].tolist() == [0.5, 1.0]
    assert m.values["ctr@1"].tolist() == [0.5, 0.5]
    assert m.values["time_to_first_click"].tolist() == [5.0, 5.0]
    np.testing.assert_array_equal(m.group_rank_ctr, [[0.5, 0.5, 0.5], [0.5, 0.5, NAN]])
    frame = m.to_polars()
    assert frame.columns[:3] == ["query", "sessions", "ctr"]
    assert frame.height == 2


def test_by_bucket() -> None:
    m = click_metrics(log(), by="bucket")
    assert m.groups == ("A", "B")
    assert m.values["ctr"].tolist() == [1.0, 0.5]
    assert m.values["clicks"].tolist() == [2.0, 0.5]
    data = m.to_dict()
    assert data["groups"][1]["bucket"] == "B"
    assert data["groups"][0]["rank_ctr"] == [0.5, 1.0, 1.0]  # s0 clicks all; s2 rank 2
    assert data["groups"][1]["rank_ctr"] == [0.5, 0.0, 0.0]  # s3 rank 1; s1 shows rank 3


def test_without_times_there_are_no_time_metrics() -> None:
    m = click_metrics(log(times=False))
    assert "time_to_first_click" not in m.overall
    assert "sat_ctr" not in m.overall
    assert tuple(m.overall) == (
        "ctr",
        "ctr@1",
        "ctr@3",
        "ctr@5",
        "ctr@10",
        "abandonment",
        "clicks",
        "unshown_clicks",
        "rr_first",
        "rr_last",
        "rr_max",
    )


def test_to_dict_turns_nan_into_none() -> None:
    data = click_metrics(log(), by="query").to_dict()
    assert data["groups"][1]["rank_ctr"][2] is None
    assert data["sessions"] == 4


def test_empty_log() -> None:
    empty = Sessions(
        query_ids=(),
        doc_ids=(),
        query=np.zeros(0, dtype=np.int64),
        shown=np.zeros((0, 0), dtype=np.int64),
        click_session=np.zeros(0, dtype=np.int64),
        click_doc=np.zeros(0, dtype=np.int64),
    )
    m = click_metrics(empty, by="query")
    assert m.num_sessions == 0
    assert math.isnan(m.overall["ctr"])
    assert m.groups == ()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"k": 0}, r"The 'k' option must be an integer >= 1, got 0\."),
        ({"k": [1, 2.5]}, "'k' option must be an integer"),
        ({"dwell": -1}, r"The 'dwell' option must be a number >= 0, got -1\."),
        ({"by": "user"}, "'by' option must be one of"),
    ],
)
def test_bad_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        click_metrics(log(), **options)  # type: ignore[arg-type]


def test_by_bucket_needs_buckets() -> None:
    plain = log().select([0, 1])
    without = Sessions(
        query_ids=plain.query_ids,
        doc_ids=plain.doc_ids,
        query=plain.query,
        shown=plain.shown,
        click_session=plain.click_session,
        click_doc=plain.click_doc,
    )
    with pytest.raises(OptionError, match="'by' option must be 'query' for a log without buckets"):
        click_metrics(without, by="bucket")


def test_the_package_exports_the_function_not_its_module() -> None:
    import importlib

    importlib.import_module("cranfield.logs.click_metrics")
    import cranfield.logs

    assert callable(cranfield.logs.click_metrics)
    assert cranfield.logs.click_metrics is click_metrics
