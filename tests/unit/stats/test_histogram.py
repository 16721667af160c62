"""Per-query differences between two runs: data and text rendering."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.errors import OptionError
from cranfield.stats import Comparison, query_differences


@pytest.mark.slow
def test_differences_from_a_comparison(robust03: Comparison) -> None:
    q = robust03.differences("InexpC2", "pircRBa1", "AP")
    assert q.topics == robust03.topics
    x = robust03.scores["AP"][:, robust03.runs.index("pircRBa1")]
    y = robust03.scores["AP"][:, robust03.runs.index("InexpC2")]
    np.testing.assert_array_equal(q.differences, x - y)
    p = robust03.pair("InexpC2", "pircRBa1", "AP")
    assert (q.wins, q.ties, q.losses) == (p.wins, p.ties, p.losses)
    frame = q.to_polars()
    assert frame.columns == ["query_id", "control", "treatment", "difference"]
    assert frame.height == 100
    counts, edges = q.histogram(20)
    assert counts.sum() == 100
    assert edges[0] == -edges[-1]
    text = q.to_text()
    lines = text.splitlines()
    assert lines[0].startswith("AP per query, pircRBa1 - InexpC2: ")
    assert len(lines) == 101
    assert all("│" in ln for ln in lines[1:])


def test_sorted_by_difference_then_topic() -> None:
    q = query_differences(["b", "a", "c", "d"], [0.5, 0.5, 0.2, 0.9], [0.7, 0.7, 0.2, 0.1])
    s = q.sorted()
    assert s.topics == ["a", "b", "c", "d"]
    assert s.differences.tolist() == pytest.approx([0.2, 0.2, 0.0, -0.8])
    assert q.sorted("topic").topics == ["a", "b", "c", "d"]
    assert q.sorted("none").topics == ["b", "a", "c", "d"]
    with pytest.raises(
        OptionError, match="The 'by' option must be one of 'difference', 'topic', 'none', got 'x'"
    ):
        q.sorted("x")  # type: ignore[arg-type]


def test_text_bars_are_proportional() -> None:
    q = query_differences(["q1", "q2", "q3"], [0.0, 0.0, 0.5], [0.4, 0.2, 0.1])
    lines = q.to_text(width=20).splitlines()
    assert lines[1].endswith("│" + "█" * 10)  # the largest |difference| fills its half
    assert lines[2].endswith("│" + "█" * 5)
    assert lines[3].split("│")[0].endswith("█" * 10)
    assert lines[3].endswith("│")
    with pytest.raises(OptionError, match="The 'width' option must be an integer >= 10, got 4"):
        q.to_text(width=4)


def test_histogram_text_and_custom_bins() -> None:
    q = query_differences(["a", "b", "c"], [0.1, 0.2, 0.3], [0.1, 0.4, 0.0])
    counts, edges = q.histogram([-1.0, 0.0, 1.0])
    assert counts.tolist() == [1, 2]
    assert edges.tolist() == [-1.0, 0.0, 1.0]
    assert len(q.histogram_text(4).splitlines()) == 4
    with pytest.raises(ValueError, match="increasing bin edges"):
        q.histogram([0.0, 0.0])
    with pytest.raises(ValueError, match="aligned vectors, got 2, 3 and 3 values"):
        query_differences(["a", "b"], [0.1, 0.2, 0.3], [0.1, 0.2, 0.3])


def test_to_dict() -> None:
    q = query_differences(["a", "b"], [0.1, 0.2], [0.3, 0.2], measure="AP", control_name="x")
    d = q.to_dict()
    assert d["measure"] == "AP"
    assert d["control"] == "x"
    assert d["treatment"] == "treatment"
    assert d["queries"][0] == {
        "query_id": "a", "control": 0.1, "treatment": 0.3, "difference": pytest.approx(0.2)
    }  # fmt: skip
    assert (d["wins"], d["ties"], d["losses"]) == (1, 1, 0)
