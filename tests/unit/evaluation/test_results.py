"""``Results`` and ``ScoreTable`` as data a notebook shows and pandas reads."""

from __future__ import annotations

import re

import pandas as pd
import pytest

import cranfield

QRELS = {"q1": {"a": 1, "b": 1}, "q2": {"c": 2}}
RUNS = {
    "<img src=x onerror=alert(1)>": {"q1": {"a": 2.0, "x": 1.0}, "q2": {"c": 1.0}},
    "plain": {"q1": {"x": 2.0, "b": 1.0}, "q2": {"y": 1.0}},
}


def _cells(html: str) -> list[str]:
    return re.findall(r"<t[dh]>(.*?)</t[dh]>", html)


def test_results_show_their_means_as_an_inert_table() -> None:
    res = cranfield.evaluate_many(QRELS, {"<b>plain</b>": RUNS["plain"]}, ["AP", "P@1"])[0]
    html = res._repr_html_()
    assert "<b>" not in html
    assert _cells(html) == [
        *("run", "queries", "AP", "P@1", "str", "i64", "f64", "f64"),
        *("&quot;&lt;b&gt;plain&lt;/b&gt;&quot;", "2", "0.125", "0.0"),
    ]


def test_a_score_table_shows_one_row_per_run_and_reads_into_pandas() -> None:
    table = cranfield.evaluate_many(QRELS, RUNS, ["AP"])
    html = table._repr_html_()
    assert "<img" not in html
    assert _cells(html)[-6:] == [
        "&quot;&lt;img src=x onerror=alert(1)&gt;&quot;",
        "2",
        "0.75",
        "&quot;plain&quot;",
        "2",
        "0.125",
    ]
    frame = table.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.index.names) == ["run", "query_id"]
    assert frame.loc[("plain", "q1"), "AP"] == pytest.approx(0.25)
    assert frame.loc[("plain", "q2"), "AP"] == 0.0
    assert frame["AP"].to_dict() == {
        (name, q): v for name, q, v in table.to_polars().select("run", "query_id", "AP").rows()
    }
