"""Figures of evaluation results with matplotlib (the optional extra ``cranfield[plot]``).

Public as :mod:`cranfield.plot`. Every function computes its data with :mod:`cranfield.curves`
or takes it from :mod:`cranfield.stats`, draws on a new :class:`matplotlib.figure.Figure`
(or on the ``ax`` given) and returns the figure; none calls ``pyplot.show()`` or touches
pyplot's global state, so they work in scripts, notebooks and servers alike:

* :func:`pr_curve`: interpolated precision–recall curves of several runs, averaged over
  queries (11 standard recall levels, or any levels);
* :func:`gain_curve`: nDCG@k, DCG@k, nCG@k or CG@k for k = 1..max_rank with the ideal ranking's
  curve;
* :func:`difference_bars`: one bar per query, the difference of a measure between two runs
  sorted by difference (the "precision histogram");
* :func:`score_distribution`: box and strip plots of the per-query scores of each run;
* :func:`query_pr_curve`: the precision–recall points of one query, with the interpolated
  step curve;
* :func:`ranking_scatter`: the system means under two measures or two qrels (a
  :class:`~cranfield.stats.rank_correlation.RankCorrelation`), the swapped pairs joined;
* :func:`judging_curves`: a judging simulation, relevant found per judgment spent and τ_AP
  against the full qrels as the budget grows.

matplotlib is imported only when a figure is drawn; without it the functions raise
:class:`ModuleNotFoundError` naming the install command. Run names and query ids are drawn
as literal text: a ``$`` never starts mathtext.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Final, Literal, Unpack, get_args

import numpy as np

from cranfield._deprecation import renamed_parameters
from cranfield._lazy import install_hint
from cranfield._validate import check_choice, check_float, check_int
from cranfield.curves import (
    INTERPOLATIONS,
    NORMALISATIONS,
    STANDARD_LEVELS,
    Interpolation,
    Normalisation,
    gain_curves,
    mean_gain_curves,
    mean_interpolated_pr,
    pr_points,
)
from cranfield.errors import OptionError
from cranfield.evaluation.evaluator import load_judgments
from cranfield.evaluation.options import EvalOptions, options_from
from cranfield.io.load import QrelsLike, RunLike
from cranfield.io.runset import RunSet

if TYPE_CHECKING:
    import polars as pl
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from numpy.typing import NDArray

    from cranfield._types import FileFormat, RunNaming
    from cranfield.data.run import Run
    from cranfield.evaluation.options import EvalKwargs
    from cranfield.evaluation.results import Results
    from cranfield.judging.simulation import Simulation
    from cranfield.stats.comparison import Comparison
    from cranfield.stats.discriminative_power import DiscriminativePower
    from cranfield.stats.histogram import QueryDifferences, SortBy
    from cranfield.stats.rank_correlation import RankCorrelation

__all__ = [
    "INSTALL_HINT",
    "asl_curves",
    "difference_bars",
    "gain_curve",
    "judging_curves",
    "pr_curve",
    "query_pr_curve",
    "ranking_scatter",
    "score_distribution",
    "topic_set_curves",
]

INSTALL_HINT: Final = install_hint("plot")
GainKind = Literal["ndcg", "dcg", "ncg", "cg"]
DistributionKind = Literal["box", "strip", "both"]
GAIN_KINDS: Final[tuple[str, ...]] = get_args(GainKind)
DISTRIBUTION_KINDS: Final[tuple[str, ...]] = get_args(DistributionKind)
RunsLike = RunLike | Sequence[RunLike] | Mapping[str, RunLike]

_LINESTYLES: Final = ("-", "--", ":", "-.")
_GAIN_LABELS: Final = {"ndcg": "nDCG@k", "dcg": "DCG@k", "ncg": "nCG@k", "cg": "CG@k"}
_IDEAL_COLUMNS: Final = {"dcg": "idcg", "cg": "icg", "ndcg": "idcg", "ncg": "icg"}
_GOLDEN: Final = 0.6180339887498949
_GAIN: Final = "#0072B2"  # Okabe–Ito blue: the second run is better
_LOSS: Final = "#D55E00"  # Okabe–Ito vermillion: the second run is worse
_TIE: Final = "#999999"
_BOX_PARTS: Final = {
    "boxes": "box",
    "medians": "median",
    "means": "mean",
    "whiskers": "whisker",
    "caps": "cap",
    "fliers": "flier",
}


# --------------------------------------------------------------------------- helpers


def require_matplotlib() -> None:
    """Raise :class:`ModuleNotFoundError` with the install command if matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise ModuleNotFoundError(
            f"cranfield.plot needs matplotlib, which is not installed; {INSTALL_HINT}",
            name="matplotlib",
        ) from exc


def _figure(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    """A new figure with one axes, or the root figure of ``ax``."""
    require_matplotlib()
    from matplotlib.figure import Figure

    if ax is None:
        fig = Figure(figsize=figsize, layout="constrained")
        return fig, fig.add_subplot()
    parent = ax.figure
    return (parent if isinstance(parent, Figure) else parent.figure), ax


def literal(text: str) -> str:
    """``text`` for a matplotlib label: ``$`` escaped so that it never starts mathtext.

    Examples
    --------
    >>> literal("cost $5 and $10")
    'cost \\\\$5 and \\\\$10'
    """
    return text.replace("$", r"\$")


def _style(i: int) -> tuple[str, str]:
    """Colour and line style of the ``i``-th run: ten colours, then dashed variants."""
    return f"C{i % 10}", _LINESTYLES[(i // 10) % len(_LINESTYLES)]


def _legend(ax: Axes, handles: list[Artist], labels: list[str]) -> None:
    """A legend with explicit labels (a run named ``_x`` is not dropped as a private artist)."""
    if handles:
        ax.legend(handles, [literal(x) for x in labels], loc="best", fontsize="small")


def named_runs(
    runs: RunsLike, names: RunNaming | Sequence[str] = "file", *, format: FileFormat | None = None
) -> list[tuple[str, Run]]:
    """Load one or several runs, named by the one run-naming rule (:mod:`cranfield.io.run_names`).

    Parameters
    ----------
    runs:
        One run (a path, ``Run`` or DataFrame), a list of runs, or a ``{name: run}``
        mapping (anything :func:`cranfield.load_run` accepts). A dict is always read as
        named runs: put a single ``{query_id: {doc_id: score}}`` run in a list.
    names:
        For a list: ``"file"`` (default), ``"tag"`` or one name per run.
    format:
        The format of run files (:mod:`cranfield.io.formats`); ``None`` detects it.

    Returns
    -------
    list of (str, Run)
        The runs in the order given, with their names.

    Examples
    --------
    >>> [name for name, _ in named_runs({"bm25": {"q": {"d": 1.0}}})]
    ['bm25']
    """
    run_set = RunSet.of(runs, names)
    return [(name, run_set.load(i, format=format)) for i, name in enumerate(run_set.names)]


def _finish(fig: Figure, ax: Axes, title: str | None, default: str) -> Figure:
    """Title (``default`` unless given), a light grid behind the data; returns ``fig``."""
    ax.set_title(literal(default if title is None else title))
    ax.grid(True, color="0.9", linewidth=0.6)
    ax.set_axisbelow(True)
    return fig


# --------------------------------------------------------------------------- curves


def pr_curve(  # noqa: PLR0913 -- a figure: inputs, curve options, title/ax/figsize
    qrels: QrelsLike,
    runs: RunsLike,
    *,
    levels: Sequence[float] = STANDARD_LEVELS,
    rule: Interpolation = "exact",
    names: RunNaming | Sequence[str] = "file",
    options: EvalOptions | None = None,
    title: str | None = None,
    ax: Axes | None = None,
    figsize: tuple[float, float] = (6.4, 4.8),
    **kwargs: Unpack[EvalKwargs],
) -> Figure:
    """Interpolated precision–recall curves of one or more runs, averaged over queries.

    Parameters
    ----------
    qrels:
        Judgments (anything :func:`cranfield.evaluate` accepts).
    runs:
        One run, a list of runs or a ``{name: run}`` mapping.
    levels:
        Recall levels in [0, 1]; the 11 standard levels 0, 0.1, …, 1 by default.
    rule:
        ``"exact"`` (textbook interpolation, measure ``IntPrec``) or ``"trec_eval"``
        (measure ``IPrec``), as in :func:`cranfield.curves.interpolated_pr`.
    names:
        How to name runs given as a list (see :func:`cranfield.compare`).
    options, **kwargs:
        The evaluation options of :func:`cranfield.evaluate`, whole or as keywords.
    title:
        Axes title (default: says what is plotted).
    ax:
        Draw on these axes instead of a new figure.
    figsize:
        Size in inches of a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        One line per run; the points are :func:`cranfield.curves.mean_interpolated_pr`.

    Raises
    ------
    ModuleNotFoundError
        If matplotlib is not installed.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    >>> run = {"q1": {"a": 2.0, "x": 1.5, "b": 1.0}, "q2": {"y": 2.0, "c": 1.0}}
    >>> fig = pr_curve(qrels, {"bm25": run})
    >>> fig.axes[0].lines[0].get_ydata().round(3).tolist()[-3:]
    [0.583, 0.583, 0.583]
    """
    levels = tuple(check_float("levels", p, minimum=0, maximum=1) for p in levels)
    check_choice("rule", rule, INTERPOLATIONS)
    opts = options_from(options, kwargs, caller="pr_curve")
    fig, axes = _figure(ax, figsize)
    judgments = load_judgments(qrels, opts)
    handles: list[Artist] = []
    labels: list[str] = []
    for i, (name, run) in enumerate(named_runs(runs, names, format=opts.run_format)):
        curve = mean_interpolated_pr(judgments, run, levels=levels, rule=rule, options=opts)
        color, style = _style(i)
        (line,) = axes.plot(
            curve.get_column("recall").to_numpy(),
            curve.get_column("precision").to_numpy(),
            color=color,
            linestyle=style,
            marker="o",
            markersize=3.5,
            linewidth=1.5,
        )
        handles.append(line)
        labels.append(name)
    axes.set_xlim(0.0, 1.0)
    axes.set_ylim(0.0, 1.02)
    axes.set_xlabel("Recall")
    axes.set_ylabel("Interpolated precision")
    _legend(axes, handles, labels)
    how = "exact" if rule == "exact" else "trec_eval"
    return _finish(
        fig,
        axes,
        title,
        f"Interpolated precision at {len(levels)} recall levels ({how}), mean over queries",
    )


@renamed_parameters(k="max_rank")
def gain_curve(  # noqa: PLR0913 -- a figure: inputs, curve options, title/ax/figsize
    qrels: QrelsLike,
    runs: RunsLike,
    *,
    max_rank: int = 20,
    kind: GainKind = "ndcg",
    ideal: bool = True,
    normalise: Normalisation = "mean_of_ratios",
    gains: Mapping[int, float] | None = None,
    exp: bool = False,
    names: RunNaming | Sequence[str] = "file",
    options: EvalOptions | None = None,
    title: str | None = None,
    ax: Axes | None = None,
    figsize: tuple[float, float] = (6.4, 4.8),
    **kwargs: Unpack[EvalKwargs],
) -> Figure:
    """nDCG@k (or DCG@k, nCG@k, CG@k) for k = 1..``max_rank``, averaged over queries, with
    the ideal.

    Parameters
    ----------
    qrels, runs:
        Judgments and one run, a list of runs or a ``{name: run}`` mapping.
    max_rank:
        Last rank plotted.
    kind:
        ``"ndcg"`` (default), ``"dcg"``, ``"ncg"`` or ``"cg"``: a column of
        :func:`cranfield.curves.mean_gain_curves`.
    ideal:
        Also draw the ideal ranking's curve (dashed black): the mean ideal DCG (CG) for
        ``dcg`` (``cg``); for the normalised kinds, the best value reachable (1 wherever
        the queries have a relevant document).
    normalise:
        ``"mean_of_ratios"`` (default: the curve at k is the mean per-query nDCG@k, the
        number :func:`cranfield.evaluate` reports) or ``"ratio_of_means"`` (Järvelin &
        Kekäläinen: mean DCG over mean ideal DCG).
    gains, exp:
        Gain of each relevance level and exponential gain, as in
        :func:`cranfield.curves.gain_curves` (default: the level itself, discount
        ``log2(i + 1)``).
    names, options, **kwargs:
        As in :func:`pr_curve`.
    title, ax, figsize:
        As in :func:`pr_curve`.

    Returns
    -------
    matplotlib.figure.Figure
        One line per run, plus the ideal; the points are the ``kind`` column of
        :func:`cranfield.curves.mean_gain_curves`.

    Raises
    ------
    ModuleNotFoundError
        If matplotlib is not installed.
    cranfield.errors.OptionError
        If ``kind``, ``normalise`` or ``max_rank`` (an integer >= 1) is not one it can take.

    Notes
    -----
    When every run is scored on the same queries the ideal curve is the same for all runs
    and is drawn once; with ``missing="skip"`` runs may cover different queries, and each
    run's ideal is drawn dashed in its colour.

    Examples
    --------
    >>> qrels = {"q1": {"a": 2, "b": 1}, "q2": {"c": 1}}
    >>> run = {"q1": {"b": 2.0, "a": 1.0}, "q2": {"y": 2.0, "c": 1.0}}
    >>> fig = gain_curve(qrels, {"bm25": run}, max_rank=3, kind="dcg")
    >>> [line.get_label() for line in fig.axes[0].lines]
    ['bm25', 'ideal']
    """
    max_rank = check_int("max_rank", max_rank, minimum=1)
    check_choice("kind", kind, GAIN_KINDS)
    check_choice("normalise", normalise, NORMALISATIONS)
    opts = options_from(options, kwargs, caller="gain_curve")
    fig, axes = _figure(ax, figsize)
    judgments = load_judgments(qrels, opts)
    curve_options: dict[str, Any] = {
        "max_rank": max_rank,
        "gains": gains,
        "exp": exp,
        "options": opts,
    }
    handles: list[Artist] = []
    labels: list[str] = []
    ideals: list[tuple[str, str, NDArray[np.float64], NDArray[np.float64]]] = []
    for i, (name, run) in enumerate(named_runs(runs, names, format=opts.run_format)):
        curve = mean_gain_curves(judgments, run, normalise=normalise, **curve_options)
        ranks = curve.get_column("rank").to_numpy()
        color, style = _style(i)
        (line,) = axes.plot(
            ranks,
            curve.get_column(kind).to_numpy(),
            color=color,
            linestyle=style,
            marker="o" if max_rank <= 30 else None,
            markersize=3,
            linewidth=1.5,
            label=name,
        )
        handles.append(line)
        labels.append(name)
        if ideal:
            per_topic = None
            if normalise == "mean_of_ratios":
                per_topic = partial(gain_curves, judgments, run, **curve_options)
            ideals.append((name, color, ranks, _ideal_curve(curve, kind, per_topic)))
    if ideals:
        same = all(np.array_equal(ideals[0][3], other[3]) for other in ideals[1:])
        for name, color, ranks, values in ideals[:1] if same else ideals:
            label = "ideal" if same else f"ideal ({name})"
            (line,) = axes.plot(
                ranks,
                values,
                color="black" if same else color,
                linestyle="--",
                linewidth=1.2,
                label=label,
            )
            handles.append(line)
            labels.append(label)
    from matplotlib.ticker import MaxNLocator

    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlim(0.5, max_rank + 0.5)
    axes.set_ylim(bottom=0.0)
    axes.set_xlabel("Rank k")
    axes.set_ylabel(_GAIN_LABELS[kind])
    _legend(axes, handles, labels)
    how = "" if kind in ("dcg", "cg") else f" ({normalise.replace('_', ' ')})"
    return _finish(fig, axes, title, f"{_GAIN_LABELS[kind]}, mean over queries{how}")


def _ideal_curve(
    curve: pl.DataFrame, kind: GainKind, per_topic: Callable[[], pl.DataFrame] | None
) -> NDArray[np.float64]:
    """The ideal ranking's curve on the queries of ``curve`` (a mean gain curve).

    ``per_topic`` gives the per-query gain curves when the normalised ideal is a mean of
    ratios (the share of queries whose ideal gain is positive at each rank).
    """
    import polars as pl

    column = _IDEAL_COLUMNS[kind]
    ideal = curve.get_column(column).to_numpy().astype(np.float64)
    if kind in ("dcg", "cg"):
        return ideal
    if per_topic is None:
        return (ideal > 0).astype(np.float64)
    share = (
        per_topic()
        .group_by("rank", maintain_order=True)
        .agg((pl.col(column) > 0).mean().alias("share"))
        .sort("rank")
    )
    return share.get_column("share").to_numpy().astype(np.float64)


# --------------------------------------------------------------------------- per query


def difference_bars(
    differences: QueryDifferences,
    *,
    sort: SortBy = "difference",
    max_labels: int = 60,
    title: str | None = None,
    ax: Axes | None = None,
    figsize: tuple[float, float] = (8.0, 4.0),
) -> Figure:
    """One bar per query: the difference of a measure between two runs (a precision histogram).

    Parameters
    ----------
    differences:
        Per-query scores of two runs, from ``Comparison.differences(control, treatment,
        measure)`` or :func:`cranfield.stats.query_differences`; bars show
        ``treatment - control``.
    sort:
        ``"difference"`` (default: largest gain first, ties by query id), ``"topic"`` or
        ``"none"``.
    max_labels:
        Label each bar with its query id when there are at most this many queries.
    title, ax, figsize:
        As in :func:`pr_curve`.

    Returns
    -------
    matplotlib.figure.Figure
        Bars above the axis (blue) where the treatment is better, below (vermillion)
        where it is worse.

    Raises
    ------
    ModuleNotFoundError
        If matplotlib is not installed.

    Examples
    --------
    >>> from cranfield.stats import query_differences
    >>> q = query_differences(["q1", "q2", "q3"], [0.2, 0.5, 0.3], [0.4, 0.5, 0.2],
    ...                       measure="AP", control_name="bm25", treatment_name="dense")
    >>> fig = difference_bars(q)
    >>> [round(float(bar.get_height()), 2) for bar in fig.axes[0].patches]
    [0.2, 0.0, -0.1]
    """
    from cranfield.stats.histogram import SORTS  # the data's module, loaded with the data

    check_choice("sort", sort, SORTS)
    check_int("max_labels", max_labels, minimum=0)
    fig, axes = _figure(ax, figsize)
    rows = differences.sorted(sort)
    d = rows.differences
    x = np.arange(d.size)
    colors = [_GAIN if v > 0 else (_LOSS if v < 0 else _TIE) for v in d.tolist()]
    axes.bar(x, d, width=0.8, color=colors, linewidth=0)
    axes.axhline(0.0, color="black", linewidth=0.8)
    if d.size <= max_labels:
        axes.set_xticks(x, [literal(t) for t in rows.topics], rotation=90, fontsize="x-small")
        axes.set_xlabel("Query")
    else:
        axes.set_xticks([])
        order = {"difference": "sorted by difference", "topic": "by query id", "none": ""}
        axes.set_xlabel(f"{d.size:,} queries {order.get(sort, '')}".rstrip())
    axes.set_xlim(-0.6, max(d.size, 1) - 0.4)
    top = float(np.abs(d).max()) if d.size else 0.0
    top = top if top > 0 else 1.0
    axes.set_ylim(-top * 1.05, top * 1.05)
    axes.set_ylabel(
        literal(f"{differences.measure}: {differences.treatment} − {differences.control}")
    )
    default = (
        f"{differences.measure} per query, {differences.treatment} vs {differences.control}: "
        f"{rows.wins} better, {rows.ties} tied, {rows.losses} worse"
    )
    return _finish(fig, axes, title, default)


def score_distribution(
    scores: Comparison | Sequence[Results],
    measure: str | None = None,
    *,
    kind: DistributionKind = "both",
    title: str | None = None,
    ax: Axes | None = None,
    figsize: tuple[float, float] = (6.4, 4.8),
) -> Figure:
    """Box and strip plots of the per-query scores of each run on one measure.

    Parameters
    ----------
    scores:
        A :class:`cranfield.Comparison` (every run on the same queries) or a list of
        :class:`cranfield.Results`.
    measure:
        The measure (default: the first compared or evaluated).
    kind:
        ``"box"`` (quartiles, whiskers at 1.5 IQR, mean as a triangle), ``"strip"`` (one
        point per query, spread sideways by a fixed, reproducible jitter) or ``"both"``
        (default).
    title, ax, figsize:
        As in :func:`pr_curve`.

    Returns
    -------
    matplotlib.figure.Figure
        Runs along the x axis, in the order given.

    Raises
    ------
    ModuleNotFoundError
        If matplotlib is not installed.
    cranfield.errors.OptionError
        If ``kind`` is unknown.
    cranfield.errors.MeasureError
        If ``measure`` was not compared or evaluated.
    ValueError
        If ``scores`` is empty.

    Examples
    --------
    >>> from cranfield.stats import compare_scores
    >>> c = compare_scores({"bm25": {"AP": [0.2, 0.3, 0.1, 0.4]},
    ...                     "dense": {"AP": [0.3, 0.5, 0.1, 0.6]}})
    >>> fig = score_distribution(c, "AP", kind="strip")
    >>> fig.axes[0].collections[1].get_offsets()[:, 1].tolist()
    [0.3, 0.5, 0.1, 0.6]
    """
    check_choice("kind", kind, DISTRIBUTION_KINDS)
    names, values, label = _per_query(scores, measure)
    fig, axes = _figure(ax, figsize)
    positions = np.arange(1, len(names) + 1, dtype=np.float64)
    if kind in ("box", "both"):
        parts = axes.boxplot(
            values,
            positions=positions,
            widths=0.55,
            showmeans=True,
            showfliers=kind == "box",
            medianprops={"color": "black"},
            meanprops={"marker": "^", "markerfacecolor": "white", "markeredgecolor": "black"},
        )
        for part, gid in _BOX_PARTS.items():  # named, so a test or a caller can find them
            for artist in parts[part]:
                artist.set_gid(gid)
    if kind in ("strip", "both"):
        for i, v in enumerate(values):
            jitter = ((np.arange(v.size) * _GOLDEN) % 1.0 - 0.5) * 0.3
            axes.scatter(
                positions[i] + jitter,
                v,
                s=9,
                alpha=0.55,
                color=_style(i)[0],
                linewidths=0,
                zorder=3,
            )
    long_names = max((len(n) for n in names), default=0) > 12 or len(names) > 6
    axes.set_xticks(
        positions,
        [literal(n) for n in names],
        rotation=30 if long_names else 0,
        ha="right" if long_names else "center",
    )
    axes.set_xlim(0.4, len(names) + 0.6)
    axes.set_ylabel(literal(label))
    n = max((v.size for v in values), default=0)
    return _finish(fig, axes, title, f"{label} per query ({n:,} queries)")


def ranking_scatter(
    correlation: RankCorrelation,
    *,
    max_labels: int = 30,
    title: str | None = None,
    ax: Axes | None = None,
    figsize: tuple[float, float] = (6.4, 4.8),
) -> Figure:
    """The systems' means under two settings, one point each, the swapped pairs joined.

    Parameters
    ----------
    correlation:
        Two rankings of the same systems, from
        :func:`~cranfield.stats.rank_correlation.correlate_measures`,
        :func:`~cranfield.stats.rank_correlation.correlate_tables` or ``agree(...).rankings``.
    max_labels:
        Name each point when there are at most this many systems.
    title, ax, figsize:
        As in :func:`pr_curve`.

    Returns
    -------
    matplotlib.figure.Figure
        ``setting_a`` across, ``setting_b`` up; a system in a swapped pair is drawn in
        vermillion and each swapped pair is joined by a line (gid ``"swap"``).

    Raises
    ------
    ModuleNotFoundError
        If matplotlib is not installed.

    Examples
    --------
    >>> from cranfield.stats import correlate_scores
    >>> r = correlate_scores([[0.1, 0.5, 0.3]], [[0.2, 0.4, 0.5]], systems=["x", "y", "z"],
    ...                      settings=("AP", "nDCG@10"), n_resamples=0)
    >>> fig = ranking_scatter(r)
    >>> [line.get_gid() for line in fig.axes[0].lines]
    ['swap']
    """
    check_int("max_labels", max_labels, minimum=0)
    fig, axes = _figure(ax, figsize)
    x = np.asarray(correlation.means_a)
    y = np.asarray(correlation.means_b)
    where = {name: i for i, name in enumerate(correlation.systems)}
    swapped = {name for pair in correlation.swaps for name in pair}
    for a, b in correlation.swaps:
        i, j = where[a], where[b]
        axes.plot([x[i], x[j]], [y[i], y[j]], color=_LOSS, linewidth=0.8, alpha=0.6, gid="swap")
    colors = [_LOSS if n in swapped else _GAIN for n in correlation.systems]
    axes.scatter(x, y, s=24, color=colors, zorder=3, linewidths=0)
    if len(x) <= max_labels:
        for name, u, v in zip(correlation.systems, x.tolist(), y.tolist(), strict=True):
            axes.annotate(
                literal(name),
                (u, v),
                textcoords="offset points",
                xytext=(4, 3),
                fontsize="x-small",
            )
    axes.set_xlabel(literal(correlation.setting_a))
    axes.set_ylabel(literal(correlation.setting_b))
    tau = correlation.coefficients["kendall_tau_b"].value
    tau_ap = correlation.coefficients["tau_ap"].value
    default = (
        f"{correlation.setting_a} vs {correlation.setting_b}\nKendall's τ {tau:.3f}, "
        f"τ_AP {tau_ap:.3f}, {len(correlation.swaps)} of {correlation.n_pairs} pairs swapped"
    )
    return _finish(fig, axes, title, default)


def asl_curves(
    power: DiscriminativePower,
    *,
    test: Literal["bootstrap", "tukey"] = "bootstrap",
    title: str | None = None,
    ax: Axes | None = None,
    figsize: tuple[float, float] = (6.4, 4.8),
) -> Figure:
    """Sakai's ASL curves: each measure's achieved significance levels of all run pairs.

    Parameters
    ----------
    power:
        From :func:`~cranfield.stats.discriminative_power.discriminative_power`.
    test:
        ``"bootstrap"`` (the paired bootstrap test) or ``"tukey"`` (the randomised Tukey
        HSD).
    title, ax, figsize:
        As in :func:`pr_curve`.

    Returns
    -------
    matplotlib.figure.Figure
        One line per measure: the run pairs sorted by ASL across, the ASL up, and α as a
        dashed line (gid ``"alpha"``). The lower a measure's curve, the more pairs it tells
        apart; its discriminative power is the share of pairs left of where the curve
        crosses α.

    Examples
    --------
    >>> from cranfield.stats.discriminative_power import power_of_scores
    >>> s = [[0.5, 0.4, 0.1], [0.7, 0.5, 0.2], [0.2, 0.3, 0.1], [0.9, 0.6, 0.3], [0.6, 0.6, 0.2]]
    >>> p = power_of_scores({"AP": s}, runs=["a", "b", "c"], n_resamples=500, trials=0, seed=3)
    >>> fig = asl_curves(p)
    >>> [line.get_label() for line in fig.axes[0].lines]
    ['AP (67% of pairs)', 'alpha']
    """
    check_choice("test", test, ("bootstrap", "tukey"))
    fig, axes = _figure(ax, figsize)
    n_pairs = 0
    for i, (name, m) in enumerate(power.measures.items()):
        asl = np.asarray(m.bootstrap_asl if test == "bootstrap" else m.tukey_asl)
        share = m.bootstrap if test == "bootstrap" else m.tukey
        n_pairs = max(n_pairs, asl.size)
        color, style = _style(i)
        axes.plot(
            np.arange(1, asl.size + 1),
            asl,
            color=color,
            linestyle=style,
            label=literal(f"{name} ({share:.0%} of pairs)"),
        )
    axes.axhline(power.alpha, color=_TIE, linestyle="--", linewidth=0.8, label="alpha", gid="alpha")
    handles, labels = axes.get_legend_handles_labels()
    _legend(axes, handles[:-1], [str(x) for x in labels[:-1]])
    axes.set_xlabel("run pairs, sorted by ASL")
    axes.set_ylabel("achieved significance level")
    axes.set_xlim(0.5, max(n_pairs, 1) + 0.5)
    axes.set_ylim(0.0, None)
    what = "paired bootstrap" if test == "bootstrap" else "randomised Tukey HSD"
    default = (
        f"ASL curves ({what}, {n_pairs} pairs of {len(power.runs)} runs, "
        f"{power.queries} queries), alpha {power.alpha:g}"
    )
    return _finish(fig, axes, title, default)


def topic_set_curves(  # noqa: PLR0913 -- a figure: data, the design's four settings, title/ax/figsize
    variances: Mapping[str, float],
    *,
    design: Literal["paired_t", "anova", "interval"] = "paired_t",
    differences: Sequence[float] | None = None,
    alpha: float = 0.05,
    beta: float = 0.2,
    systems: int = 2,
    title: str | None = None,
    ax: Axes | None = None,
    figsize: tuple[float, float] = (6.4, 4.8),
) -> Figure:
    """Topics needed against the minimum detectable difference, one line per measure.

    Parameters
    ----------
    variances:
        Per-query variance of each measure, by name
        (:func:`~cranfield.stats.topic_set_size.residual_variance`).
    design:
        Which of Sakai's designs: ``"paired_t"``, ``"anova"`` (``systems`` runs) or
        ``"interval"`` (the difference read as the interval width).
    differences:
        The minimum detectable differences drawn; default 0.02 to 0.20 in steps of 0.01.
    alpha, beta, systems:
        As in :func:`~cranfield.stats.topic_set_size.topic_set_size`.
    title, ax, figsize:
        As in :func:`pr_curve`.

    Returns
    -------
    matplotlib.figure.Figure
        The difference across, the topics (log scale) up; a difference that would need more
        topics than :data:`~cranfield.stats.topic_set_size.MAX_TOPICS` is left out.

    Examples
    --------
    >>> fig = topic_set_curves({"AP": 0.02, "P@10": 0.04})
    >>> [line.get_label() for line in fig.axes[0].lines]
    ['AP', 'P@10']
    """
    from cranfield.stats.topic_set_size import DESIGNS, topic_set_size  # scipy: with the data

    check_choice("design", design, DESIGNS)
    ds = [0.02 + 0.01 * i for i in range(19)] if differences is None else list(differences)
    if not ds:
        raise OptionError("differences", "at least one difference", "none")
    fig, axes = _figure(ax, figsize)
    for i, (name, variance) in enumerate(variances.items()):
        topics = [
            topic_set_size(variance, min_d=d, alpha=alpha, beta=beta, systems=systems).topics[
                design
            ]
            for d in ds
        ]
        ys = np.array([np.nan if t is None else float(t) for t in topics])
        color, style = _style(i)
        axes.plot(ds, ys, color=color, linestyle=style, marker=".", label=literal(name))
    handles, labels = axes.get_legend_handles_labels()
    _legend(axes, handles, [str(x) for x in labels])
    axes.set_yscale("log")
    axes.set_xlabel("minimum detectable difference" if design != "interval" else "interval width")
    axes.set_ylabel("topics needed")
    words = {
        "paired_t": "paired t-test",
        "anova": f"one-way ANOVA of {systems} runs",
        "interval": "confidence interval",
    }
    power = "" if design == "interval" else f", power {1 - beta:g}"
    default = f"Topics needed ({words[design]}, alpha {alpha:g}{power})"
    return _finish(fig, axes, title, default)


def _per_query(
    scores: Comparison | Sequence[Results], measure: str | None
) -> tuple[list[str], list[NDArray[np.float64]], str]:
    """Run names, per-query score vectors and the measure name."""
    from cranfield.stats.comparison import Comparison

    if isinstance(scores, Comparison):
        m = scores.measures[0] if measure is None else scores._measure(measure)
        matrix = scores.scores[m]
        return list(scores.runs), [matrix[:, j].copy() for j in range(matrix.shape[1])], m
    results = list(scores)
    if not results:
        raise ValueError("scores must hold at least one Results, got none.")
    m_name = str(results[0].measures[0]) if measure is None else measure
    vectors = [np.asarray(list(r.per_query(m_name).values()), dtype=np.float64) for r in results]
    return [r.run_name for r in results], vectors, str(results[0]._key(m_name))


def query_pr_curve(  # noqa: PLR0913 -- a figure: inputs, curve options, title/ax/figsize
    qrels: QrelsLike,
    runs: RunsLike,
    query_id: str,
    *,
    interpolated: bool = True,
    names: RunNaming | Sequence[str] = "file",
    options: EvalOptions | None = None,
    title: str | None = None,
    ax: Axes | None = None,
    figsize: tuple[float, float] = (6.4, 4.8),
    **kwargs: Unpack[EvalKwargs],
) -> Figure:
    """The precision–recall points of one query for one or more runs.

    Parameters
    ----------
    qrels, runs:
        Judgments and one run, a list of runs or a ``{name: run}`` mapping.
    query_id:
        The query; it must be judged.
    interpolated:
        Join each run's points with its interpolated step curve (precision at recall r =
        the best precision at any rank with recall >= r; 0 past the last relevant document
        retrieved). ``False`` joins the points in rank order.
    names, options, **kwargs:
        As in :func:`pr_curve` (the query is scored whatever ``missing`` says).
    title, ax, figsize:
        As in :func:`pr_curve`.

    Returns
    -------
    matplotlib.figure.Figure
        Per run: a marker at each retrieved relevant document (the rows of
        :func:`cranfield.curves.pr_points` for the query) and the line through them.

    Raises
    ------
    ModuleNotFoundError
        If matplotlib is not installed.
    ValueError
        If ``query_id`` has no judgments (the qrels decide, not the option's type).

    Examples
    --------
    >>> qrels = {"q": {"d3": 1, "d56": 1, "d129": 1}}
    >>> run = {"q": {"d123": 3, "d84": 2, "d56": 1}}
    >>> fig = query_pr_curve(qrels, {"bm25": run}, "q")
    >>> fig.axes[0].lines[0].get_xydata().tolist()
    [[0.3333333333333333, 0.3333333333333333]]
    """
    import polars as pl

    opts = options_from(options, kwargs, caller="query_pr_curve").replace(missing="zero")
    relevance_level = opts.relevance_level
    judgments = load_judgments(qrels, opts)
    if query_id not in set(judgments.topics):
        raise ValueError(f"Query {query_id!r} has no judgments in the qrels.")
    n_rel = int(
        judgments.frame.filter(
            (pl.col("query_id") == query_id) & (pl.col("relevance") >= relevance_level)
        ).height
    )
    fig, axes = _figure(ax, figsize)
    handles: list[Artist] = []
    labels: list[str] = []
    for i, (name, run) in enumerate(named_runs(runs, names, format=opts.run_format)):
        points = pr_points(judgments, run, options=opts).filter(pl.col("query_id") == query_id)
        recall = points.get_column("recall").to_numpy()
        precision = points.get_column("precision").to_numpy()
        color, style = _style(i)
        (marks,) = axes.plot(
            recall, precision, color=color, marker="o", markersize=4, linestyle="none"
        )
        if interpolated and recall.size:
            best = np.maximum.accumulate(precision[::-1])[::-1]
            xs = np.concatenate(([0.0], recall))
            ys = np.concatenate(([best[0]], best))
            if recall[-1] < 1.0:
                xs = np.append(xs, 1.0)
                ys = np.append(ys, 0.0)
            axes.step(xs, ys, where="pre", color=color, linestyle=style, linewidth=1.3)
        elif recall.size:
            axes.plot(recall, precision, color=color, linestyle=style, linewidth=1.3)
        handles.append(marks)
        labels.append(f"{name} ({recall.size} of {n_rel} relevant retrieved)")
    axes.set_xlim(0.0, 1.0)
    axes.set_ylim(0.0, 1.02)
    axes.set_xlabel("Recall")
    axes.set_ylabel("Precision")
    _legend(axes, handles, labels)
    return _finish(fig, axes, title, f"Precision–recall of query {query_id}")


# --------------------------------------------------------------------------- judging


def judging_curves(
    simulation: Simulation,
    *,
    title: str | None = None,
    figsize: tuple[float, float] = (10.0, 4.2),
) -> Figure:
    """A judging simulation (:func:`cranfield.judging.simulation.simulate`) in two panels.

    Left: relevant documents found against judgments spent per topic, one line per
    strategy (the curves of Losada et al.); right: τ_AP of the runs' ranking under the
    judgments made against the full qrels, at each checkpoint (left empty without
    checkpoints).

    Examples
    --------
    >>> from cranfield.judging.simulation import simulate
    >>> sim = simulate({"a": {"q": {"d1": 2.0, "d2": 1.0}}, "b": {"q": {"d2": 1.0}}},
    ...                {"q": {"d2": 1}}, ["depth", "mtf"], budget=2, checkpoints=[])
    >>> [line.get_label() for line in judging_curves(sim).axes[0].lines]
    ['depth', 'mtf', 'relevant in the pool']
    """
    require_matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    left, right = fig.subplots(1, 2)
    x = np.arange(1, simulation.budget + 1)
    for i, name in enumerate(simulation.strategies):
        color, style = _style(i)
        left.plot(x, simulation.found[name], color=color, linestyle=style, label=name)
        if simulation.checkpoints:
            right.plot(
                simulation.checkpoints,
                simulation.tau_ap[name],
                color=color,
                linestyle=style,
                marker="o",
                markersize=3,
                label=name,
            )
    left.set_xlabel(simulation.unit)
    left.set_ylabel(f"relevant found ({len(simulation.topics)} topics)")
    left.axhline(
        simulation.pooled_relevant,
        color="0.6",
        linewidth=0.8,
        linestyle=":",
        label="relevant in the pool",
    )
    left.legend(loc="lower right", fontsize="small")
    right.set_xlabel(simulation.unit)
    right.set_ylabel(f"τ_AP of the runs' {literal(simulation.measure)} ranking")
    _finish(fig, right, None, "ranking vs full qrels")
    default = f"judging on a budget: pool depth {simulation.pool_depth}"
    return _finish(fig, left, title, default)
