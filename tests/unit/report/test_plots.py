"""``cranfield.plot``: figures of the real TREC DL 2019 runs, checked by their data, not pixels.

Every figure is rendered to PNG, SVG and PDF with warnings as errors (pytest's setting), and
the data of the drawn artists (line vertices, bar heights, scatter offsets, box medians) is
compared with the values :mod:`cranfield.curves` and :func:`cranfield.evaluate` compute.
"""

from __future__ import annotations

import io
import subprocess
import sys
from typing import TYPE_CHECKING

import numpy as np
import polars as pl
import pytest

import cranfield
from cranfield import plot
from cranfield.curves import interpolated_pr, mean_gain_curves, mean_interpolated_pr, pr_points
from cranfield.errors import OptionError
from cranfield.stats import query_differences
from tests.conftest import REAL, require

if TYPE_CHECKING:
    from pathlib import Path

    from matplotlib.figure import Figure

DL19 = REAL / "trec-dl-passage"
RUNS = ("bm25", "tasb", "splade-pp-ed", "repllama", "rankgpt35-on-bm25")


@pytest.fixture(scope="module")
def qrels() -> cranfield.Qrels:
    return cranfield.load_qrels(require(DL19 / "qrels" / "qrels.dl19-passage.txt"))


@pytest.fixture(scope="module")
def runs() -> dict[str, cranfield.Run]:
    return {
        name: cranfield.load_run(require(DL19 / "runs" / "dl19" / f"{name}.txt.gz"))
        for name in RUNS
    }


@pytest.fixture(scope="module")
def comparison(qrels: cranfield.Qrels, runs: dict[str, cranfield.Run]) -> cranfield.Comparison:
    return cranfield.compare(qrels, runs, ["nDCG@10", "AP"], relevance_level=2)


def _render(fig: Figure) -> None:
    """Draw the figure in every supported format (warnings fail the test)."""
    for fmt in ("png", "svg", "pdf"):
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, dpi=60)
        assert buf.tell() > 1000, fmt


def test_pr_curve_points_are_the_mean_interpolated_precision(
    qrels: cranfield.Qrels, runs: dict[str, cranfield.Run]
) -> None:
    fig = plot.pr_curve(qrels, runs, relevance_level=2)
    _render(fig)
    lines = fig.axes[0].get_lines()
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == list(RUNS)
    assert len(lines) == len(RUNS)
    for line, (name, run) in zip(lines, runs.items(), strict=True):
        expected = mean_interpolated_pr(qrels, run, relevance_level=2)
        np.testing.assert_array_equal(line.get_xdata(), expected["recall"].to_numpy(), name)
        np.testing.assert_array_equal(line.get_ydata(), expected["precision"].to_numpy(), name)


def test_pr_curve_any_levels_and_trec_eval_rule(
    qrels: cranfield.Qrels, runs: dict[str, cranfield.Run]
) -> None:
    levels = (0.0, 0.25, 0.5, 0.75, 1.0)
    fig = plot.pr_curve(qrels, {"bm25": runs["bm25"]}, levels=levels, rule="trec_eval")
    (line,) = fig.axes[0].get_lines()
    expected = mean_interpolated_pr(qrels, runs["bm25"], levels=levels, rule="trec_eval")
    np.testing.assert_array_equal(line.get_xydata(), expected.select("recall", "precision"))


@pytest.mark.parametrize("kind", ["ndcg", "dcg", "ncg", "cg"])
def test_gain_curve_points_and_ideal(
    qrels: cranfield.Qrels, runs: dict[str, cranfield.Run], kind: str
) -> None:
    subset = {name: runs[name] for name in RUNS[:3]}
    fig = plot.gain_curve(qrels, subset, max_rank=15, kind=kind)  # type: ignore[arg-type]
    lines = fig.axes[0].get_lines()
    assert [x.get_label() for x in lines] == [*subset, "ideal"]
    for line, run in zip(lines[:-1], subset.values(), strict=True):
        expected = mean_gain_curves(qrels, run, max_rank=15, normalise="mean_of_ratios")
        np.testing.assert_array_equal(line.get_xdata(), np.arange(1, 16))
        np.testing.assert_array_equal(line.get_ydata(), expected[kind].to_numpy())
    ideal = lines[-1].get_ydata()
    if kind in ("dcg", "cg"):
        column = "idcg" if kind == "dcg" else "icg"
        expected_ideal = mean_gain_curves(qrels, runs["bm25"], max_rank=15)[column].to_numpy()
        np.testing.assert_array_equal(ideal, expected_ideal)
    else:
        np.testing.assert_array_equal(ideal, np.ones(15))  # every DL19 query has a relevant doc


def test_ndcg_curve_passes_through_evaluate(
    qrels: cranfield.Qrels, runs: dict[str, cranfield.Run]
) -> None:
    fig = plot.gain_curve(qrels, {"tasb": runs["tasb"]}, max_rank=10)
    _render(fig)
    y = fig.axes[0].get_lines()[0].get_ydata()
    res = cranfield.evaluate(qrels, runs["tasb"], ["nDCG@5", "nDCG@10"])
    assert y[4] == pytest.approx(res["nDCG@5"], abs=1e-12)
    assert y[9] == pytest.approx(0.7210, abs=5e-5)  # trec_eval 10.0 on DL19 (shared README)


def test_gain_curve_ratio_of_means_and_skip_policy(
    qrels: cranfield.Qrels, runs: dict[str, cranfield.Run]
) -> None:
    fig = plot.gain_curve(qrels, runs["bm25"], max_rank=5, normalise="ratio_of_means")
    (line, ideal) = fig.axes[0].get_lines()
    expected = mean_gain_curves(qrels, runs["bm25"], max_rank=5, normalise="ratio_of_means")
    np.testing.assert_array_equal(line.get_ydata(), expected["ndcg"].to_numpy())
    np.testing.assert_array_equal(ideal.get_ydata(), np.ones(5))
    short = runs["tasb"].frame.filter(pl.col("query_id") != qrels.topics[0])
    both = {"bm25": runs["bm25"], "short": short}
    fig = plot.gain_curve(qrels, both, max_rank=5, kind="dcg", missing="skip")
    labels = [x.get_label() for x in fig.axes[0].get_lines()]
    assert labels == ["bm25", "short", "ideal (bm25)", "ideal (short)"]


def test_difference_bars_are_the_sorted_differences(
    comparison: cranfield.Comparison,
) -> None:
    diffs = comparison.differences("bm25", "tasb", "nDCG@10")
    fig = plot.difference_bars(diffs)
    _render(fig)
    ax = fig.axes[0]
    heights = np.array([bar.get_height() for bar in ax.patches])
    expected = diffs.sorted("difference")
    np.testing.assert_array_equal(heights, expected.differences)
    assert np.all(np.diff(heights) <= 0)
    assert [t.get_text() for t in ax.get_xticklabels()] == expected.topics
    assert "34 better, 0 tied, 9 worse" in ax.get_title()


def test_difference_bars_many_queries_drop_labels() -> None:
    ids = [f"q{i}" for i in range(200)]
    rng = np.random.default_rng(3)
    q = query_differences(ids, rng.random(200), rng.random(200), measure="AP")
    fig = plot.difference_bars(q, sort="topic")
    ax = fig.axes[0]
    assert ax.get_xticks().size == 0
    assert ax.get_xlabel() == "200 queries by query id"
    heights = [bar.get_height() for bar in ax.patches]
    np.testing.assert_array_equal(heights, q.sorted("topic").differences)


@pytest.mark.parametrize("kind", ["box", "strip", "both"])
def test_score_distribution_draws_every_query(comparison: cranfield.Comparison, kind: str) -> None:
    fig = plot.score_distribution(comparison, "nDCG@10", kind=kind)  # type: ignore[arg-type]
    _render(fig)
    ax = fig.axes[0]
    matrix = comparison.scores["nDCG@10"]
    assert [t.get_text() for t in ax.get_xticklabels()] == list(RUNS)
    if kind != "box":
        offsets = [c.get_offsets() for c in ax.collections]
        assert len(offsets) == len(RUNS)
        for j, points in enumerate(offsets):
            np.testing.assert_array_equal(points[:, 1], matrix[:, j])
            assert np.all(np.abs(points[:, 0] - (j + 1)) <= 0.15 + 1e-12)
    if kind != "strip":
        medians = [line.get_ydata()[0] for line in ax.get_lines() if line.get_gid() == "median"]
        np.testing.assert_allclose(medians, np.median(matrix, axis=0))


def test_score_distribution_from_results(
    qrels: cranfield.Qrels, runs: dict[str, cranfield.Run]
) -> None:
    results = [
        cranfield.evaluate(qrels, run, ["RR"], run_name=name, relevance_level=2)
        for name, run in list(runs.items())[:2]
    ]
    fig = plot.score_distribution(results, kind="strip")
    ax = fig.axes[0]
    assert ax.get_ylabel() == "RR"
    for coll, res in zip(ax.collections, results, strict=True):
        np.testing.assert_array_equal(coll.get_offsets()[:, 1], res.values[res.measures[0]])


def test_query_pr_curve_points_and_interpolation(
    qrels: cranfield.Qrels, runs: dict[str, cranfield.Run]
) -> None:
    qid = "1037798"
    subset = {name: runs[name] for name in RUNS[:3]}
    fig = plot.query_pr_curve(qrels, subset, qid, relevance_level=2)
    _render(fig)
    ax = fig.axes[0]
    lines = ax.get_lines()
    assert len(lines) == 2 * len(subset)  # points, then the interpolated step, per run
    for i, run in enumerate(subset.values()):
        points = pr_points(qrels, run, relevance_level=2).filter(pl.col("query_id") == qid)
        marks, step = lines[2 * i], lines[2 * i + 1]
        np.testing.assert_array_equal(marks.get_xydata(), points.select("recall", "precision"))
        # The step curve sampled at the 11 levels is the per-query interpolated precision.
        xs, ys = step.get_xdata(), step.get_ydata()
        levels = np.linspace(0.0, 1.0, 11)
        where = np.searchsorted(xs, levels, side="left")
        sampled = np.where(levels == 0, ys[0], ys[np.minimum(where, len(ys) - 1)])
        expected = interpolated_pr(qrels, run, relevance_level=2).filter(pl.col("query_id") == qid)
        np.testing.assert_allclose(sampled, expected["precision"].to_numpy())
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0] == "bm25 (7 of 7 relevant retrieved)"


def test_query_pr_curve_unknown_query(
    qrels: cranfield.Qrels, runs: dict[str, cranfield.Run]
) -> None:
    with pytest.raises(ValueError, match="Query 'nope' has no judgments in the qrels"):
        plot.query_pr_curve(qrels, runs["bm25"], "nope")


def test_labels_are_literal_text(tmp_path: Path) -> None:
    qrels = {"q$1$": {"a": 1}, "q2": {"b": 1}}
    run = {"q$1$": {"a": 2.0, "x": 1.0}, "q2": {"x": 2.0, "b": 1.0}}
    runs = {"$x^2$ <b>": run, "_hidden": run, "cost $5": run}
    fig = plot.pr_curve(qrels, runs, title="$\\alpha$")
    _render(fig)
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert texts == [r"\$x^2\$ <b>", "_hidden", r"cost \$5"]
    fig = plot.query_pr_curve(qrels, runs, "q$1$")
    _render(fig)
    assert fig.axes[0].get_title() == r"Precision–recall of query q\$1\$"
    fig.savefig(tmp_path / "query.png")


def test_draws_on_given_axes() -> None:
    from matplotlib.figure import Figure

    fig = Figure()
    left, right = fig.subplots(1, 2)
    q = query_differences(["a", "b"], [0.1, 0.4], [0.3, 0.2])
    assert plot.difference_bars(q, ax=right) is fig
    assert len(right.patches) == 2
    assert len(left.patches) == 0


def test_never_touches_pyplot() -> None:
    code = (
        "import sys\n"
        "from cranfield import plot\n"
        "from cranfield.stats import query_differences\n"
        "q = query_differences(['a', 'b'], [0.1, 0.4], [0.3, 0.2])\n"
        "plot.difference_bars(q).savefig(sys.stdout.buffer, format='svg')\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
    )
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", code], capture_output=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.startswith(b"<?xml")


def test_missing_matplotlib_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    q = query_differences(["a", "b"], [0.1, 0.4], [0.3, 0.2])
    with pytest.raises(
        ModuleNotFoundError,
        match=r"install the 'plot' extra from cranfield's clone: pip install '\.\[plot\]'",
    ):
        plot.difference_bars(q)


def test_bad_options() -> None:
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.0}}
    with pytest.raises(OptionError, match="The 'kind' option must be one of 'ndcg', 'dcg'"):
        plot.gain_curve(qrels, [run], kind="err")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="The 'max_rank' option must be an integer >= 1, got 0"):
        plot.gain_curve(qrels, [run], max_rank=0)
    with pytest.raises(ValueError, match=r"The .runs. option must be at least one run"):
        plot.pr_curve(qrels, [])
    q = query_differences(["a", "b"], [0.1, 0.4], [0.3, 0.2])
    with pytest.raises(OptionError, match="The 'kind' option must be one of 'box', 'strip'"):
        plot.score_distribution([], kind="violin")  # type: ignore[arg-type]
    del q


def test_ranking_scatter_draws_the_means_and_joins_the_swapped_pairs(
    comparison: cranfield.Comparison,
) -> None:
    from cranfield.stats import correlate_measures

    assert comparison.table is not None
    r = correlate_measures(comparison.table, "AP", "nDCG@10", n_resamples=0)
    fig = plot.ranking_scatter(r)
    _render(fig)
    ax = fig.axes[0]
    offsets = ax.collections[0].get_offsets()
    np.testing.assert_array_equal(offsets[:, 0], r.means_a)
    np.testing.assert_array_equal(offsets[:, 1], r.means_b)
    assert sum(line.get_gid() == "swap" for line in ax.lines) == len(r.swaps)
    assert [t.get_text() for t in ax.texts] == list(r.systems)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("AP", "nDCG@10")
    assert f"{len(r.swaps)} of 10 pairs swapped" in ax.get_title()


def test_asl_curves_draw_each_measures_sorted_asls_under_alpha() -> None:
    from cranfield.stats import power_of_scores

    scores = {
        "AP": [[0.5, 0.4, 0.1], [0.7, 0.5, 0.2], [0.2, 0.3, 0.1], [0.9, 0.6, 0.3]],
        "P@10": [[0.5, 0.5, 0.4], [0.6, 0.5, 0.6], [0.2, 0.3, 0.1], [0.8, 0.7, 0.6]],
    }
    power = power_of_scores(scores, runs=["a", "b", "c"], n_resamples=200, trials=0, seed=3)
    for test in ("bootstrap", "tukey"):
        fig = plot.asl_curves(power, test=test)
        _render(fig)
        ax = fig.axes[0]
        curves = [line for line in ax.lines if line.get_gid() != "alpha"]
        assert len(curves) == 2
        for line, m in zip(curves, power.measures.values(), strict=True):
            asl = m.bootstrap_asl if test == "bootstrap" else m.tukey_asl
            np.testing.assert_array_equal(line.get_ydata(), asl)
            np.testing.assert_array_equal(line.get_xdata(), [1, 2, 3])
        (alpha,) = [line for line in ax.lines if line.get_gid() == "alpha"]
        assert list(alpha.get_ydata()) == [0.05, 0.05]
        assert ax.get_legend().get_texts()[0].get_text().startswith("AP (")
        assert "3 pairs of 3 runs, 4 queries" in ax.get_title()


def test_topic_set_curves_draw_the_topics_of_each_difference() -> None:
    from cranfield.stats import topic_set_size

    fig = plot.topic_set_curves({"AP": 0.02, "P@10": 0.05}, differences=[0.05, 0.1], systems=5)
    _render(fig)
    ax = fig.axes[0]
    assert [line.get_label() for line in ax.lines] == ["AP", "P@10"]
    for line, variance in zip(ax.lines, (0.02, 0.05), strict=True):
        expected = [topic_set_size(variance, min_d=d).topics["paired_t"] for d in (0.05, 0.1)]
        assert list(line.get_ydata()) == expected
    assert ax.get_yscale() == "log"
    anova = plot.topic_set_curves({"AP": 0.02}, design="anova", systems=5, differences=[0.05])
    assert (
        anova.axes[0].lines[0].get_ydata()[0]
        == (topic_set_size(0.02, min_d=0.05, systems=5).topics["anova"])
    )
    assert "ANOVA of 5 runs" in anova.axes[0].get_title()
