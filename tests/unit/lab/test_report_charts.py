"""The lab page's charts: effectiveness against median latency, and latency per system."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

import pytest

from cranfield.lab.report import to_html, to_markdown, to_text
from tests.unit.lab._results import result, system

if TYPE_CHECKING:
    from cranfield.lab.result import ExperimentResult

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = "<script>alert(1)</script>"


def _figure(page: str, key: str) -> ET.Element:
    match = re.search(rf'<figure id="{key}">.*?</figure>', page, re.S)
    assert match is not None, f"no figure {key}"
    return ET.fromstring(match.group(0))


def _points(figure: ET.Element) -> dict[str, tuple[float, float, float]]:
    out = {}
    for g in figure.iter(f"{SVG}g"):
        if g.get("class") == "point":
            c = g.find(f"{SVG}circle")
            assert c is not None
            out[g.get("data-label", "")] = (
                float(c.get("cx", "nan")),
                float(c.get("cy", "nan")),
                float(c.get("r", "nan")),
            )
    return out


@pytest.fixture
def three() -> ExperimentResult:
    return result(
        [
            system("bm25", 1_000_000, [1.0, 2.0, 3.0, 4.0]),
            system("dense", 4_000_000, [5.0, 6.0, 7.0, 30.0]),
            system("oracle", None, [0.5, 0.5, 0.6, 0.7]),
            system("precomputed", None, None),
        ],
        {
            "P@1": {"bm25": 0.2, "dense": 0.4, "oracle": 1.0, "precomputed": 0.1},
            "AP": {"bm25": 0.3, "dense": 0.5, "oracle": 0.9, "precomputed": 0.2},
        },
    )


def test_map_against_median_latency_sized_by_index(three: ExperimentResult) -> None:
    page = to_html(three)
    figure = _figure(page, "tradeoff-chart")
    svg = figure.find(f"{SVG}svg")
    assert svg is not None
    assert svg.get("role") == "img"
    # AP is the drawn measure even though P@1 comes first; the axis says MAP.
    assert [t.text for t in svg.iter(f"{SVG}text") if t.get("class") == "y-label"] == ["MAP"]
    points = _points(figure)
    assert set(points) == {"bm25", "dense", "oracle"}  # no latency, no point
    bm25, dense, oracle = points["bm25"], points["dense"], points["oracle"]
    assert dense[0] > bm25[0] > oracle[0]  # medians 6.5 > 2.5 > 0.55 ms
    assert oracle[1] < dense[1] < bm25[1]  # MAP 0.9 > 0.5 > 0.3
    assert dense[2] == pytest.approx(2 * bm25[2], abs=0.01)  # 4x the index, 4x the area
    caption = figure.find("figcaption")
    assert caption is not None
    assert "MAP" in (caption.text or "")
    assert "index size" in (caption.text or "")
    assert "index size unknown (no index of its own): oracle." in page
    assert "Not drawn, no latency measured: precomputed." in page


def test_latency_distribution_per_system(three: ExperimentResult) -> None:
    figure = _figure(to_html(three), "latency-chart")
    boxes = [g.get("data-label") for g in figure.iter(f"{SVG}g") if g.get("class") == "box"]
    assert boxes == ["bm25", "dense", "oracle"]
    caption = figure.find("figcaption")
    assert caption is not None
    assert "1.5 times" in (caption.text or "")


def test_first_measure_when_there_is_no_ap_and_a_single_system() -> None:
    res = result([system("only", 10, [2.0, 2.0])], {"nDCG@10": {"only": 0.5}})
    figure = _figure(to_html(res), "tradeoff-chart")
    texts = [t.text for t in figure.iter(f"{SVG}text") if t.get("class") == "y-label"]
    assert texts == ["nDCG@10"]
    assert set(_points(figure)) == {"only"}


def test_no_latency_no_empty_axes() -> None:
    res = result(
        [system("a", None, None), system("b", None, None)],
        {"AP": {"a": 0.1, "b": 0.2}},
    )
    page = to_html(res)
    assert "<svg" not in page
    assert "No latency was measured" in page


def test_hostile_names_stay_text_and_the_page_stays_offline(three: ExperimentResult) -> None:
    res = result(
        [system(HOSTILE, 100, [1.0, 2.0]), system("b", 200, [3.0, 4.0])],
        {"AP": {HOSTILE: 0.1, "b": 0.2}},
    )
    page = to_html(res)
    assert "<script" not in page
    assert re.search(r"https?://(?!www\.w3\.org/2000/svg)", page) is None
    points = _points(_figure(page, "tradeoff-chart"))
    assert HOSTILE in points
    assert to_html(res) == page  # same input, same bytes
    assert "<script" not in to_html(three)


def test_text_and_markdown_have_no_charts(three: ExperimentResult) -> None:
    assert "svg" not in to_text(three)
    assert "svg" not in to_markdown(three)


def test_a_mean_that_is_not_a_number_is_left_out_and_said() -> None:
    res = result(
        [system("a", 10, [1.0]), system("b", 20, [2.0])],
        {"AP": {"a": float("nan"), "b": 0.2}},
    )
    page = to_html(res)
    assert set(_points(_figure(page, "tradeoff-chart"))) == {"b"}
    assert "Left out of the first chart, MAP not a number: a." in page
    boxes = _figure(page, "latency-chart").iter(f"{SVG}g")
    assert [g.get("data-label") for g in boxes if g.get("class") == "box"] == ["a", "b"]
    only_nan = result([system("a", 10, [1.0])], {"AP": {"a": float("nan")}})
    page = to_html(only_nan)
    assert 'id="tradeoff-chart"' not in page
    assert 'id="latency-chart"' in page
