"""Inline SVG charts for the offline HTML pages: line charts, scatter plots and box plots.

The one owner of chart drawing in the HTML reports: :mod:`cranfield.report.html` draws its
precision–recall and nDCG@k curves with :func:`line_chart`, and the lab's page
(:mod:`cranfield.lab.report`) its effectiveness-against-efficiency :func:`scatter_chart` and
its latency :func:`box_plot`. Each function returns one ``<figure>``: an ``<svg>`` element
with ``role="img"`` and a ``<title>`` that names it (the accessible name), every data mark
with a ``<title>`` of its own (a tooltip with the exact values), and a ``<figcaption>`` that
says what is drawn.

Design: the SVG is written here as text rather than by matplotlib (the optional ``plot``
extra, which :mod:`cranfield.report.plots` uses for files to print). The offline pages must
work without the extra installed; matplotlib's SVG is not the same bytes from one run to the
next unless its metadata, ids and hash salt are pinned, it writes text as glyph paths or
with its own fonts, and it is ten times the size. A page drawn here uses the reader's
``system-ui`` font, fetches nothing, needs no script, and the same input gives the same
bytes (every coordinate is printed with a fixed number of decimals).

Escaping: every caller-supplied string (titles, labels, group names, ids) goes through
:func:`html.escape` with quotes, so a name such as ``<script>`` is text, never markup.

Scales: an axis is linear, or logarithmic when the caller asks or, with ``log=None``,
when its values are all positive and span a factor of :data:`LOG_RATIO` or more; a
logarithmic axis says so in its label.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "LOG_RATIO",
    "LineChart",
    "LineSeries",
    "ScatterPoint",
    "box_plot",
    "int_ticks",
    "line_chart",
    "log_ticks",
    "nice_ticks",
    "scatter_chart",
    "series_style",
]

LOG_RATIO: Final = 100.0
"""With ``log=None``, an axis whose positive values span this factor or more is logarithmic."""

_COLORS: Final = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
_DASHES: Final = (None, "6 3", "2 3", "8 3 2 3")
_FONT: Final = 'font-size="12" font-family="system-ui, sans-serif"'
_R_MAX: Final = 18.0  # radius of the largest sized point
_R_MIN: Final = 2.5  # no sized point is drawn smaller, so a tiny index stays visible
_R_UNKNOWN: Final = 5.0  # hollow point of unknown size


def _e(text: object) -> str:
    """``text`` escaped for SVG element content and quoted attribute values."""
    return html.escape(str(text), quote=True)


def _short(text: str, width: int = 26) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def series_style(i: int) -> tuple[str, str | None]:
    """Colour and dash pattern of the ``i``-th series (ten colours, then dashed)."""
    return _COLORS[i % len(_COLORS)], _DASHES[(i // len(_COLORS)) % len(_DASHES)]


def int_ticks(lo: int, hi: int) -> list[float]:
    """At most about ten whole-number ticks from ``lo`` to ``hi`` (``lo`` always one).

    Examples
    --------
    >>> int_ticks(1, 20)
    [1.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0, 18.0, 20.0]
    """
    span = max(1, hi - lo)
    step = next(
        s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 10**9) if span / s <= 10
    )
    first = math.ceil(lo / step) * step
    ticks = [float(t) for t in range(first, hi + 1, step)]
    return ticks if float(lo) in ticks else [float(lo), *ticks]


def nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """Ticks at a round step (1, 2, 2.5 or 5 times a power of ten) that enclose ``[lo, hi]``.

    The first tick is at or below ``lo`` and the last at or above ``hi``; equal ends are
    widened first, so there are always at least two ticks.

    Examples
    --------
    >>> nice_ticks(0.23, 0.71)
    [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    >>> nice_ticks(3.0, 3.0)
    [2.6, 2.8, 3.0, 3.2, 3.4]
    """
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi < lo:
        raise ValueError(f"nice_ticks needs finite lo <= hi, got {lo!r} and {hi!r}.")
    if hi == lo:
        pad = abs(lo) * 0.1 if lo else 1.0
        lo, hi = lo - pad, hi + pad
    raw = (hi - lo) / max(1, target)
    magnitude = 10.0 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * magnitude >= raw)
    first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    digits = max(0, 1 - math.floor(math.log10(step))) + 1
    return [round(i * step, digits) for i in range(first, last + 1)]


def log_ticks(lo: float, hi: float) -> list[float]:
    """Ticks at the powers of ten that enclose ``[lo, hi]`` (both positive), with 2 and 5
    between them when there are three decades or fewer.

    Examples
    --------
    >>> log_ticks(0.3, 40.0)
    [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
    """
    if not (0 < lo <= hi) or not math.isfinite(hi):
        raise ValueError(f"log_ticks needs 0 < lo <= hi, finite, got {lo!r} and {hi!r}.")
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    last = max(last, first + 1)
    between = (1.0, 2.0, 5.0) if last - first <= 3 else (1.0,)
    ticks = [float(f"{m}e{d}") for d in range(first, last) for m in between]
    return [*ticks, float(f"1e{last}")]


def _tick_text(v: float) -> str:
    return f"{v:g}"


@dataclass(frozen=True)
class _Scale:
    """A value axis mapped onto ``[start, end]`` pixels."""

    lo: float
    hi: float
    log: bool
    ticks: tuple[float, ...]
    start: float
    end: float

    def __call__(self, v: float) -> float:
        if self.log:
            f = (math.log10(v) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        else:
            f = (v - self.lo) / (self.hi - self.lo)
        return self.start + f * (self.end - self.start)


def _scale(
    values: Sequence[float], start: float, end: float, *, log: bool | None, pad: float = 0.05
) -> _Scale:
    """The axis of ``values``: log when asked (or, with ``None``, when they span LOG_RATIO)."""
    lo, hi = min(values), max(values)
    if log is None:
        log = lo > 0 and hi / lo >= LOG_RATIO
    if log:
        if lo <= 0:
            raise ValueError(f"a logarithmic axis needs positive values, got {lo!r}.")
        ticks = log_ticks(lo, hi)
    else:
        span = hi - lo
        padded_lo, padded_hi = lo - pad * span, hi + pad * span
        if lo >= 0 > padded_lo:
            padded_lo = 0.0
        ticks = nice_ticks(padded_lo, padded_hi)
    return _Scale(ticks[0], ticks[-1], log, tuple(ticks), start, end)


def _finite(name: str, values: Sequence[float]) -> None:
    bad = [v for v in values if not math.isfinite(v)]
    if bad:
        raise ValueError(f"{name} must be finite numbers, got {bad[0]!r}.")


def _open_svg(key: str, title: str, width: float, height: float) -> list[str]:
    tid = f"{key}-title"
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'role="img" aria-labelledby="{_e(tid)}" id="{_e(key)}-svg" {_FONT}>',
        f'<title id="{_e(tid)}">{_e(title)}</title>',
        f'<text x="16" y="18" font-size="14" font-weight="600">{_e(title)}</text>',
    ]


def _figure(key: str, svg: list[str], caption: str) -> str:
    return (
        f'<figure id="{_e(key)}">'
        + "".join(svg)
        + f"<figcaption>{_e(caption)}</figcaption></figure>"
    )


def _x_axis(out: list[str], x: _Scale, top: float, bottom: float, label: str) -> None:
    for t in x.ticks:
        xx = x(t)
        out.append(
            f'<line x1="{xx:.1f}" y1="{top:.1f}" x2="{xx:.1f}" y2="{bottom:.1f}" stroke="#f0f2f4"/>'
            f'<text class="x-tick" x="{xx:.1f}" y="{bottom + 16:.1f}" text-anchor="middle">'
            f"{_e(_tick_text(t))}</text>"
        )
    mid = (x.start + x.end) / 2
    out.append(
        f'<text class="x-label" x="{mid:.1f}" y="{bottom + 36:.1f}" text-anchor="middle">'
        f"{_e(label)}</text>"
    )


def _y_axis(out: list[str], y: _Scale, left: float, right: float, label: str) -> None:
    for t in y.ticks:
        yy = y(t)
        out.append(
            f'<line x1="{left:.1f}" y1="{yy:.1f}" x2="{right:.1f}" y2="{yy:.1f}" stroke="#e5e8eb"/>'
            f'<text class="y-tick" x="{left - 6:.1f}" y="{yy + 4:.1f}" text-anchor="end">'
            f"{_e(_tick_text(t))}</text>"
        )
    mid = (y.start + y.end) / 2
    out.append(
        f'<text class="y-label" transform="translate(16 {mid:.1f}) rotate(-90)" '
        f'text-anchor="middle">{_e(label)}</text>'
    )


def _scale_label(label: str, scale: _Scale) -> str:
    return f"{label}, log scale" if scale.log else label


# --------------------------------------------------------------------------- line chart


@dataclass(frozen=True)
class LineSeries:
    """One line of a :class:`LineChart`: its points, colour, dash pattern and markers."""

    label: str
    x: Sequence[float]
    y: Sequence[float]
    color: str
    dash: str | None
    markers: bool = True


@dataclass(frozen=True)
class LineChart:
    """A line chart over a fixed x range with the given ticks; y in [0, 1] unless ``y_range``
    says otherwise (its ticks then from :func:`nice_ticks`)."""

    key: str
    title: str
    caption: str
    x_label: str
    y_label: str
    x_range: tuple[float, float]
    x_ticks: Sequence[float]
    series: Sequence[LineSeries]
    x_format: str = "{:g}"
    y_range: tuple[float, float] = (0.0, 1.0)


def line_chart(chart: LineChart) -> str:
    """An inline SVG line chart: axes, grid, one polyline per series and a legend."""
    n = len(chart.series)
    left, top, plot_w, legend_w = 58.0, 30.0, 460.0, 230.0
    plot_h = 300.0
    height = max(top + plot_h + 50.0, top + 22.0 * n + 20.0)
    width = left + plot_w + legend_w
    x0, x1 = chart.x_range

    def px(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * plot_w

    y0, y1 = chart.y_range
    unit = (y0, y1) == (0.0, 1.0)
    if not y1 > y0:
        raise ValueError(f"a line chart's y range must grow, got {chart.y_range}")

    def py(y: float) -> float:
        share = y if unit else (y - y0) / (y1 - y0)
        return top + (1.0 - min(max(share, 0.0), 1.0)) * plot_h

    key = _e(chart.key)
    tid = f"{key}-title"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'role="img" aria-labelledby="{tid}" id="{key}-svg" font-size="12" '
        f'font-family="system-ui, sans-serif">',
        f'<title id="{tid}">{_e(chart.title)}</title>',
        f'<text x="{left:.0f}" y="18" font-size="14" font-weight="600">{_e(chart.title)}</text>',
    ]
    y_ticks = (
        (0.0, 0.2, 0.4, 0.6, 0.8, 1.0) if unit else [t for t in nice_ticks(y0, y1) if y0 <= t <= y1]
    )
    for y in y_ticks:
        yy = py(y)
        tick = f"{y:.1f}" if unit else _tick_text(y)
        out.append(
            f'<line x1="{left:.1f}" y1="{yy:.1f}" x2="{left + plot_w:.1f}" y2="{yy:.1f}" '
            f'stroke="#e5e8eb"/>'
            f'<text x="{left - 6:.1f}" y="{yy + 4:.1f}" text-anchor="end">{_e(tick)}</text>'
        )
    for x in chart.x_ticks:
        xx = px(x)
        out.append(
            f'<line x1="{xx:.1f}" y1="{top:.1f}" x2="{xx:.1f}" y2="{top + plot_h:.1f}" '
            f'stroke="#f0f2f4"/>'
            f'<text x="{xx:.1f}" y="{top + plot_h + 16:.1f}" text-anchor="middle">'
            f"{_e(chart.x_format.format(x))}</text>"
        )
    out.append(
        f'<rect x="{left:.1f}" y="{top:.1f}" width="{plot_w:.1f}" height="{plot_h:.1f}" '
        f'fill="none" stroke="#5b6570"/>'
        f'<text x="{left + plot_w / 2:.1f}" y="{top + plot_h + 36:.1f}" '
        f'text-anchor="middle">{_e(chart.x_label)}</text>'
        f'<text transform="translate(16 {top + plot_h / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle">{_e(chart.y_label)}</text>'
    )
    for i, s in enumerate(chart.series):
        dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
        points = " ".join(f"{px(x):.2f},{py(y):.2f}" for x, y in zip(s.x, s.y, strict=True))
        out.append(f'<g class="series" data-series="{i}"><title>{_e(s.label)}</title>')
        out.append(
            f'<polyline points="{points}" fill="none" stroke="{s.color}" stroke-width="1.8"{dash}/>'
        )
        if s.markers:
            for x, y in zip(s.x, s.y, strict=True):
                out.append(
                    f'<circle cx="{px(x):.2f}" cy="{py(y):.2f}" r="2.6" fill="{s.color}">'
                    f"<title>{_e(s.label)}: {_e(chart.x_format.format(x))}, {y:.4f}</title>"
                    f"</circle>"
                )
        out.append("</g>")
        ly = top + 8 + 22.0 * i
        lx = left + plot_w + 16
        out.append(
            f'<g class="legend-item"><title>{_e(s.label)}</title>'
            f'<line x1="{lx:.1f}" y1="{ly:.1f}" x2="{lx + 24:.1f}" y2="{ly:.1f}" '
            f'stroke="{s.color}" stroke-width="2.5"{dash}/>'
            f'<text x="{lx + 30:.1f}" y="{ly + 4:.1f}">{_e(_short(s.label))}</text></g>'
        )
    out.append("</svg>")
    return (
        f'<figure id="{key}">' + "".join(out) + f"<figcaption>{_e(chart.caption)}"
        "</figcaption></figure>"
    )


# --------------------------------------------------------------------------- scatter


@dataclass(frozen=True)
class ScatterPoint:
    """One labelled point of :func:`scatter_chart`.

    Attributes
    ----------
    label:
        Written beside the point (shortened to 26 characters; whole in its tooltip).
    x, y:
        Position, finite.
    size:
        The value the point's area shows (non-negative), or ``None`` when unknown: the
        point is then drawn hollow at a fixed size.
    """

    label: str
    x: float
    y: float
    size: float | None = None


def _known(size: float | None) -> float:
    return -1.0 if size is None else size


def _radius(size: float, largest: float) -> float:
    """Radius of a point whose area is proportional to ``size`` (at least _R_MIN)."""
    if largest <= 0:
        return _R_MIN
    return max(_R_MIN, _R_MAX * math.sqrt(size / largest))


def scatter_chart(  # noqa: PLR0913 -- one chart: data, names of its parts, formats
    points: Sequence[ScatterPoint],
    *,
    key: str,
    title: str,
    caption: str,
    x_label: str,
    y_label: str,
    size_label: str = "size",
    size_format: Callable[[float], str] = _tick_text,
    x_format: Callable[[float], str] = _tick_text,
    y_format: Callable[[float], str] = "{:.4f}".format,
    x_log: bool | None = None,
) -> str:
    """An inline SVG scatter plot of labelled points, each point's area showing its size.

    The area of a point is proportional to its ``size`` (radius 18 px for the largest, at
    least 2.5 px so that a tiny one stays visible); a legend beside the plot draws the
    smallest and the largest size with their values, and says that a hollow point has an
    unknown size. The x axis is logarithmic as :data:`LOG_RATIO` says unless ``x_log`` is
    given; the y axis is linear.

    Parameters
    ----------
    points:
        At least one point.
    key:
        Prefix of the element ids (the ``<figure>`` has ``id=key``).
    title, caption:
        The chart's title (its accessible name) and the one-line caption under it.
    x_label, y_label, size_label:
        What the axes and the sizes are.
    size_format, x_format, y_format:
        How a size and a coordinate print in the legend and the tooltips.
    x_log:
        Logarithmic x axis (``None``: decided from the values).

    Returns
    -------
    str
        A ``<figure>`` holding the ``<svg>`` and a ``<figcaption>``.

    Raises
    ------
    ValueError
        No points, a coordinate that is not finite, or a negative or non-finite size.
    """
    if not points:
        raise ValueError("scatter_chart needs at least one point.")
    _finite("x", [p.x for p in points])
    _finite("y", [p.y for p in points])
    sizes = [p.size for p in points if p.size is not None]
    if any(not math.isfinite(s) or s < 0 for s in sizes):
        raise ValueError(f"sizes must be finite and non-negative, got {sizes}.")
    left, top, plot_w, plot_h, legend_w = 64.0, 36.0, 440.0, 300.0, 180.0
    width, height = left + plot_w + legend_w, top + plot_h + 52.0
    x = _scale([p.x for p in points], left, left + plot_w, log=x_log, pad=0.08)
    y = _scale([p.y for p in points], top + plot_h, top, log=False, pad=0.08)
    out = _open_svg(key, title, width, height)
    _y_axis(out, y, left, left + plot_w, y_label)
    _x_axis(out, x, top, top + plot_h, _scale_label(x_label, x))
    out.append(
        f'<rect x="{left:.1f}" y="{top:.1f}" width="{plot_w:.1f}" height="{plot_h:.1f}" '
        'fill="none" stroke="#5b6570"/>'
    )
    largest = max(sizes, default=0.0)
    # The biggest points first, so that a small one on top of a big one stays visible.
    order = sorted(range(len(points)), key=lambda i: (-_known(points[i].size), i))
    for i in order:
        p = points[i]
        color, _ = series_style(i)
        cx, cy = x(p.x), y(p.y)
        tip = f"{p.label}: {x_label} {x_format(p.x)}, {y_label} {y_format(p.y)}"
        if p.size is None:
            r = _R_UNKNOWN
            paint = f'fill="#ffffff" stroke="{color}" stroke-width="1.8"'
            tip += f", {size_label} unknown"
        else:
            r = _radius(p.size, largest)
            paint = f'fill="{color}" fill-opacity="0.55" stroke="{color}"'
            tip += f", {size_label} {size_format(p.size)}"
        # Right of the point, or left of it in the right part of the plot, so it stays inside.
        if cx > left + 0.6 * plot_w:
            label = f'<text x="{cx - r - 3:.1f}" y="{cy + 4:.1f}" text-anchor="end">'
        else:
            label = f'<text x="{cx + r + 3:.1f}" y="{cy + 4:.1f}">'
        label += f"{_e(_short(p.label))}</text>"
        out.append(
            f'<g class="point" data-label="{_e(p.label)}">'
            f'<circle cx="{cx:.2f}" cy="{cy:.2f}" r="{r:.2f}" {paint}><title>{_e(tip)}</title>'
            f"</circle>{label}</g>"
        )
    lx = left + plot_w + 24
    legend = [f'<text x="{lx - 8:.1f}" y="{top + 4:.1f}">{_e(_short(size_label))}</text>']
    ly = top + 20
    shown = sorted({min(sizes), largest}) if sizes else []
    for s in reversed(shown):
        r = _radius(s, largest)
        legend.append(
            f'<circle class="size-key" cx="{lx + _R_MAX:.1f}" cy="{ly + r:.1f}" r="{r:.2f}" '
            'fill="#9aa5b1" fill-opacity="0.55" stroke="#5b6570"/>'
            f'<text x="{lx + 2 * _R_MAX + 8:.1f}" y="{ly + r + 4:.1f}">{_e(size_format(s))}</text>'
        )
        ly += 2 * r + 10
    if len(sizes) < len(points):
        legend.append(
            f'<circle cx="{lx + _R_MAX:.1f}" cy="{ly + _R_UNKNOWN:.1f}" r="{_R_UNKNOWN:.2f}" '
            'fill="#ffffff" stroke="#5b6570" stroke-width="1.8"/>'
            f'<text x="{lx + 2 * _R_MAX + 8:.1f}" y="{ly + _R_UNKNOWN + 4:.1f}">unknown</text>'
        )
    out.append('<g class="size-legend">' + "".join(legend) + "</g></svg>")
    return _figure(key, out, caption)


# --------------------------------------------------------------------------- box plot


def _tukey(
    values: NDArray[np.float64],
) -> tuple[float, float, float, float, float, NDArray[np.float64]]:
    """(lower whisker, Q1, median, Q3, upper whisker, outliers) of Tukey's box plot."""
    q1, median, q3 = (float(v) for v in np.percentile(values, (25, 50, 75)))
    fence = 1.5 * (q3 - q1)
    inside = values[(values >= q1 - fence) & (values <= q3 + fence)]
    low, high = float(inside.min()), float(inside.max())
    outliers = np.sort(values[(values < q1 - fence) | (values > q3 + fence)])
    return low, q1, median, q3, high, outliers


def box_plot(
    groups: Mapping[str, Sequence[float]],
    *,
    key: str,
    title: str,
    caption: str,
    value_label: str,
    value_format: Callable[[float], str] = "{:.3g}".format,
    log: bool | None = None,
) -> str:
    """An inline SVG of horizontal box plots, one row per group, on a shared value axis.

    Tukey's box plot: the box runs from the first to the third quartile (NumPy's linear
    interpolation, Hyndman and Fan's type 7) with a line at the median; the whiskers reach
    the most extreme values within 1.5 times the interquartile range of the box; every
    value beyond them is drawn as a hollow circle. The axis is logarithmic as
    :data:`LOG_RATIO` says unless ``log`` is given, and its label says so.

    Parameters
    ----------
    groups:
        ``{name: values}``, in the order drawn; each group has at least one finite value.
    key:
        Prefix of the element ids (the ``<figure>`` has ``id=key``).
    title, caption:
        The chart's title (its accessible name) and the one-line caption under it.
    value_label:
        What the values are (the axis label).
    value_format:
        How a value prints in the tooltips.
    log:
        Logarithmic value axis (``None``: decided from the values).

    Returns
    -------
    str
        A ``<figure>`` holding the ``<svg>`` and a ``<figcaption>``.

    Raises
    ------
    ValueError
        No groups, an empty group, or a value that is not finite.
    """
    if not groups:
        raise ValueError("box_plot needs at least one group.")
    arrays: dict[str, NDArray[np.float64]] = {}
    for name, given in groups.items():
        if len(given) == 0:
            raise ValueError(f"box_plot: group {name!r} has no values.")
        _finite(f"the values of {name!r}", list(given))
        arrays[name] = np.asarray(given, dtype=np.float64)
    left, top, plot_w, row_h = 200.0, 36.0, 440.0, 30.0
    plot_h = row_h * len(arrays)
    width, height = left + plot_w + 24.0, top + plot_h + 52.0
    everything = np.concatenate(list(arrays.values()))
    x = _scale([float(everything.min()), float(everything.max())], left, left + plot_w, log=log)
    out = _open_svg(key, title, width, height)
    _x_axis(out, x, top, top + plot_h, _scale_label(value_label, x))
    out.append(
        f'<rect x="{left:.1f}" y="{top:.1f}" width="{plot_w:.1f}" height="{plot_h:.1f}" '
        'fill="none" stroke="#5b6570"/>'
    )
    for i, (name, values) in enumerate(arrays.items()):
        color, _ = series_style(i)
        low, q1, median, q3, high, outliers = _tukey(values)
        mid = top + row_h * (i + 0.5)
        y0, y1 = mid - 8, mid + 8
        f = value_format
        tip = (
            f"{name}: {values.size} values, median {f(median)}, quartiles {f(q1)}–{f(q3)}, "
            f"whiskers {f(low)}–{f(high)}, {outliers.size} beyond them"
        )
        parts = [
            f'<g class="box" data-label="{_e(name)}"><title>{_e(tip)}</title>',
            f'<text class="group" x="{left - 8:.1f}" y="{mid + 4:.1f}" text-anchor="end">'
            f"{_e(_short(name, 24))}</text>",
            f'<line class="whisker" x1="{x(low):.2f}" y1="{mid:.1f}" x2="{x(q1):.2f}" '
            f'y2="{mid:.1f}" stroke="#5b6570"/>',
            f'<line class="whisker" x1="{x(q3):.2f}" y1="{mid:.1f}" x2="{x(high):.2f}" '
            f'y2="{mid:.1f}" stroke="#5b6570"/>',
        ]
        for end in (low, high):
            parts.append(
                f'<line class="cap" x1="{x(end):.2f}" y1="{mid - 5:.1f}" x2="{x(end):.2f}" '
                f'y2="{mid + 5:.1f}" stroke="#5b6570"/>'
            )
        parts.append(
            f'<rect class="iqr" x="{x(q1):.2f}" y="{y0:.1f}" width="{x(q3) - x(q1):.2f}" '
            f'height="{y1 - y0:.1f}" fill="{color}" fill-opacity="0.35" stroke="{color}"/>'
            f'<line class="median" x1="{x(median):.2f}" y1="{y0:.1f}" x2="{x(median):.2f}" '
            f'y2="{y1:.1f}" stroke="#1f2328" stroke-width="2"/>'
        )
        parts.extend(
            f'<circle class="outlier" cx="{x(float(v)):.2f}" cy="{mid:.1f}" r="2.5" '
            f'fill="none" stroke="{color}"/>'
            for v in outliers
        )
        parts.append("</g>")
        out.append("".join(parts))
    out.append("</svg>")
    return _figure(key, out, caption)
