"""Inline SVG charts: well-formed, accessible, escaped, deterministic, and drawn where the data say."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from cranfield.report.svg_charts import (
    LineChart,
    LineSeries,
    ScatterPoint,
    box_plot,
    int_ticks,
    line_chart,
    log_ticks,
    nice_ticks,
    scatter_chart,
)

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = "<script>alert(1)</script>&\"'"


def _svg(figure: str) -> ET.Element:
    """The ``<svg>`` of a figure, parsed as XML (the figure itself must parse too)."""
    root = ET.fromstring(figure)
    assert root.tag == "figure"
    svg = root.find(f"{SVG}svg")
    assert svg is not None
    assert svg.get("role") == "img"
    title = svg.find(f"{SVG}title")
    assert title is not None
    assert svg.get("aria-labelledby") == title.get("id")
    assert root.find("figcaption") is not None
    return svg


def _axis(svg: ET.Element, which: str) -> tuple[list[float], list[float]]:
    """(pixel positions, values) of an axis's tick labels."""
    ticks = [t for t in svg.iter(f"{SVG}text") if t.get("class") == f"{which}-tick"]
    attr = "x" if which == "x" else "y"
    return [float(t.get(attr, "nan")) for t in ticks], [float(t.text or "nan") for t in ticks]


def _value_at(svg: ET.Element, px: float, *, log: bool = False) -> float:
    """Invert the x axis from its first and last tick labels."""
    pos, values = _axis(svg, "x")
    f = (px - pos[0]) / (pos[-1] - pos[0])
    if log:
        lo, hi = math.log10(values[0]), math.log10(values[-1])
        return 10 ** (lo + f * (hi - lo))
    return values[0] + f * (values[-1] - values[0])


def _points(svg: ET.Element) -> dict[str, tuple[float, float, float]]:
    """``{label: (cx, cy, r)}`` of a scatter chart."""
    out = {}
    for g in svg.iter(f"{SVG}g"):
        if g.get("class") == "point":
            c = g.find(f"{SVG}circle")
            assert c is not None
            out[g.get("data-label", "")] = (
                float(c.get("cx", "nan")),
                float(c.get("cy", "nan")),
                float(c.get("r", "nan")),
            )
    return out


def _scatter(points: list[ScatterPoint], **kwargs: object) -> str:
    kwargs = {"key": "s", **kwargs}
    return scatter_chart(
        points,
        title="MAP against median latency",
        caption="one point per system",
        x_label="median latency (ms)",
        y_label="MAP",
        size_label="index size",
        **kwargs,  # type: ignore[arg-type]
    )


def test_ticks() -> None:
    assert nice_ticks(0.23, 0.71) == [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    assert nice_ticks(0.0, 1.0) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(5.0, 5.0) == [4.4, 4.6, 4.8, 5.0, 5.2, 5.4, 5.6]
    assert nice_ticks(0.0, 0.0) == [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert nice_ticks(1e-7, 3e-7) == [1e-7, 1.5e-7, 2e-7, 2.5e-7, 3e-7]
    assert nice_ticks(0, 123_456) == [0, 25_000, 50_000, 75_000, 100_000, 125_000]
    assert log_ticks(0.3, 40.0)[0] == 0.1
    assert log_ticks(0.3, 40.0)[-1] == 100.0
    assert log_ticks(1e-3, 1e5) == [1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0, 1e3, 1e4, 1e5]
    assert int_ticks(1, 20)[:3] == [1.0, 2.0, 4.0]
    with pytest.raises(ValueError, match="finite"):
        nice_ticks(0.0, math.inf)
    with pytest.raises(ValueError, match="0 < lo"):
        log_ticks(0.0, 1.0)


def test_scatter_positions_sizes_and_labels() -> None:
    points = [
        ScatterPoint("fast", 1.0, 0.20, 1_000.0),
        ScatterPoint("slow", 4.0, 0.40, 4_000.0),
        ScatterPoint("unknown size", 2.0, 0.30, None),
    ]
    svg = _svg(_scatter(points, size_format=lambda n: f"{n:.0f} B"))
    drawn = _points(svg)
    assert set(drawn) == {"fast", "slow", "unknown size"}
    fast, slow, unknown = drawn["fast"], drawn["slow"], drawn["unknown size"]
    assert slow[0] > unknown[0] > fast[0]  # slower lies further right
    assert slow[1] < unknown[1] < fast[1]  # better lies higher (SVG y grows downwards)
    assert slow[2] == pytest.approx(2 * fast[2], abs=0.01)  # 4x the size: 4x the area
    # Positions on the axes: the x axis maps back to the latencies.
    assert _value_at(svg, fast[0]) == pytest.approx(1.0, abs=0.01)
    assert _value_at(svg, slow[0]) == pytest.approx(4.0, abs=0.01)
    # Every point has its label and a tooltip with its values.
    texts = [t.text for t in svg.iter(f"{SVG}text")]
    assert {"fast", "slow", "unknown size"} <= set(texts)
    tips = [t.text or "" for t in svg.iter(f"{SVG}title")]
    assert any("slow" in t and "4000 B" in t for t in tips)
    assert any("unknown size" in t and "index size unknown" in t for t in tips)
    # The size legend: the smallest and largest size, and the hollow unknown point.
    assert {"1000 B", "4000 B", "unknown", "index size"} <= set(texts)


def test_scatter_of_one_point_equal_values_and_huge_ranges() -> None:
    one = _svg(_scatter([ScatterPoint("only", 3.0, 0.5, 10.0)]))
    (x, y, r) = _points(one)["only"]
    assert math.isfinite(x)
    assert math.isfinite(y)
    assert r == pytest.approx(18.0)
    same = _svg(_scatter([ScatterPoint("a", 2.0, 0.5, 0.0), ScatterPoint("b", 2.0, 0.5, 0.0)]))
    assert _points(same)["a"][:2] == _points(same)["b"][:2]
    assert _points(same)["a"][2] > 0  # a zero size is still visible
    # Latencies four decades apart: a logarithmic axis, which says so.
    wide = _svg(_scatter([ScatterPoint("a", 0.01, 0.1, 1.0), ScatterPoint("b", 100.0, 0.9, 1e9)]))
    labels = [t.text for t in wide.iter(f"{SVG}text") if t.get("class") == "x-label"]
    assert labels == ["median latency (ms), log scale"]
    a, b = _points(wide)["a"], _points(wide)["b"]
    assert _value_at(wide, a[0], log=True) == pytest.approx(0.01, rel=1e-3)
    assert _value_at(wide, b[0], log=True) == pytest.approx(100.0, rel=1e-3)
    assert 2.5 <= a[2] < b[2]
    narrow = _svg(_scatter([ScatterPoint("a", 1.0, 0.1), ScatterPoint("b", 1.5, 0.2)]))
    labels = [t.text for t in narrow.iter(f"{SVG}text") if t.get("class") == "x-label"]
    assert labels == ["median latency (ms)"]


def test_scatter_refuses_what_it_cannot_draw() -> None:
    with pytest.raises(ValueError, match="at least one point"):
        _scatter([])
    with pytest.raises(ValueError, match="finite"):
        _scatter([ScatterPoint("a", math.nan, 0.1)])
    with pytest.raises(ValueError, match="non-negative"):
        _scatter([ScatterPoint("a", 1.0, 0.1, -1.0)])


def test_box_plot_quartiles_whiskers_and_outliers() -> None:
    sample = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 40.0]
    svg = _svg(
        box_plot(
            {"bm25": sample, "dense": [2.0, 2.0, 2.0]},
            key="b",
            title="Latency",
            caption="per query",
            value_label="latency (ms)",
            log=False,
        )
    )
    boxes = {g.get("data-label"): g for g in svg.iter(f"{SVG}g") if g.get("class") == "box"}
    assert list(boxes) == ["bm25", "dense"]
    g = boxes["bm25"]
    q1, median, q3 = np.percentile(sample, (25, 50, 75))  # 3.25, 5.5, 7.75
    box = next(r for r in g.iter(f"{SVG}rect") if r.get("class") == "iqr")
    left = float(box.get("x", "nan"))
    right = left + float(box.get("width", "nan"))
    assert _value_at(svg, left) == pytest.approx(q1, abs=0.01)
    assert _value_at(svg, right) == pytest.approx(q3, abs=0.01)
    line = next(x for x in g.iter(f"{SVG}line") if x.get("class") == "median")
    assert _value_at(svg, float(line.get("x1", "nan"))) == pytest.approx(median, abs=0.01)
    # Whiskers: the extreme values within 1.5 IQR of the box (1 and 9); 40 is beyond.
    caps = sorted(
        _value_at(svg, float(x.get("x1", "nan")))
        for x in g.iter(f"{SVG}line")
        if x.get("class") == "cap"
    )
    assert caps == pytest.approx([1.0, 9.0], abs=0.01)
    outliers = [c for c in g.iter(f"{SVG}circle") if c.get("class") == "outlier"]
    assert [_value_at(svg, float(c.get("cx", "nan"))) for c in outliers] == pytest.approx(
        [40.0], abs=0.01
    )
    # A group whose values are all equal: a box of width zero, no outliers.
    flat = boxes["dense"]
    rect = next(r for r in flat.iter(f"{SVG}rect") if r.get("class") == "iqr")
    assert float(rect.get("width", "nan")) == 0.0


def test_box_plot_log_scale_when_the_spread_demands_it() -> None:
    svg = _svg(
        box_plot(
            {"a": [0.05, 0.1, 0.2], "b": [50.0, 100.0, 900.0]},
            key="b",
            title="Latency",
            caption="per query",
            value_label="latency (ms)",
        )
    )
    labels = [t.text for t in svg.iter(f"{SVG}text") if t.get("class") == "x-label"]
    assert labels == ["latency (ms), log scale"]
    medians = {
        g.get("data-label"): next(
            float(x.get("x1", "nan")) for x in g.iter(f"{SVG}line") if x.get("class") == "median"
        )
        for g in svg.iter(f"{SVG}g")
        if g.get("class") == "box"
    }
    assert _value_at(svg, medians["a"], log=True) == pytest.approx(0.1, rel=1e-3)
    assert _value_at(svg, medians["b"], log=True) == pytest.approx(100.0, rel=1e-3)
    with pytest.raises(ValueError, match="has no values"):
        box_plot({"a": []}, key="b", title="t", caption="c", value_label="v")
    with pytest.raises(ValueError, match="at least one group"):
        box_plot({}, key="b", title="t", caption="c", value_label="v")


def test_hostile_names_are_text_and_output_is_deterministic() -> None:
    scatter = _scatter([ScatterPoint(HOSTILE, 1.0, 0.5, 3.0)], key=HOSTILE)
    boxes = box_plot(
        {HOSTILE: [1.0, 2.0]}, key=HOSTILE, title=HOSTILE, caption=HOSTILE, value_label=HOSTILE
    )
    lines = line_chart(
        LineChart(
            key=HOSTILE,
            title=HOSTILE,
            caption=HOSTILE,
            x_label="x",
            y_label="y",
            x_range=(0.0, 1.0),
            x_ticks=(0.0, 1.0),
            series=[LineSeries(HOSTILE, [0.0, 1.0], [0.5, 0.6], "#000000", None)],
        )
    )
    for figure in (scatter, boxes, lines):
        assert "<script" not in figure
        svg = _svg(figure)  # parses: nothing broke out of its attribute or element
        texts = [t.text or "" for t in svg.iter() if t.text]
        assert any("<script>alert(1)</script>" in t for t in texts)
        assert re.search(r"https?://(?!www\.w3\.org/2000/svg)", figure) is None
    assert _scatter([ScatterPoint(HOSTILE, 1.0, 0.5, 3.0)], key=HOSTILE) == scatter
    assert (
        box_plot(
            {HOSTILE: [1.0, 2.0]}, key=HOSTILE, title=HOSTILE, caption=HOSTILE, value_label=HOSTILE
        )
        == boxes
    )


def test_a_line_chart_with_a_y_range_scales_into_it_with_its_own_ticks() -> None:
    series = [LineSeries("ppl", [1.0, 2.0], [1.0, 2.5], "#000", None)]
    common = {"key": "p", "title": "t", "caption": "c", "x_label": "x", "y_label": "y"}
    svg = line_chart(
        LineChart(
            **common, x_range=(1.0, 2.0), x_ticks=[1.0, 2.0], series=series, y_range=(1.0, 2.5)
        )
    )
    ET.fromstring(svg)
    # the points sit at the bottom (1.0) and the top (2.5) of the plot, 30..330 px
    assert 'points="58.00,330.00 518.00,30.00"' in svg
    ticks = re.findall(r'text-anchor="end">([^<]*)</text>', svg)
    assert ticks == ["1", "1.5", "2", "2.5"]  # nice_ticks(1.0, 2.5)
    with pytest.raises(ValueError, match="y range"):
        line_chart(
            LineChart(
                **common, x_range=(1.0, 2.0), x_ticks=[1.0], series=series, y_range=(2.0, 2.0)
            )
        )
