"""The HTML page of a click log (``cranfield logs report``): one offline file, no script.

It holds

* the log's click metrics over all sessions, with their definitions
  (:func:`cranfield.logs.click_metrics.click_metrics`);
* CTR by rank (the position-bias curve) beside the click probability per rank each fitted
  click model predicts, both on the log the models are scored on (the test log when one is
  given: observed and predicted come from the same sessions), as an inline SVG line chart
  (:mod:`cranfield.report.svg_charts`, data from :func:`rank_ctr_series`);
* with models, the position bias: PBM's examination by rank relative to rank 1 with a
  bootstrap interval over the log's sessions (:func:`cranfield.logs.fitted_click_model.
  examination_curve`), as a table and a chart;
* the click models' fit: each model fitted on the log (``Model.fit(query, shown, clicked)``)
  and scored on the test log when one is given, else on the log itself (said so on the page):
  log-likelihood, perplexity and conditional perplexity, and the perplexity per rank as a
  table and a chart;
* with a simulation (:func:`cranfield.logs.simulation.simulate_interleaving`), the
  interleaving outcomes: the offline difference, Δ_AB, the agreement with the offline sign
  by experiment size (table and chart) and the outcomes of every query;
* the parameters: the inputs with their SHA-256, the models, the seed, cranfield's version.

The page reuses the report's style sheet and escaping (:mod:`cranfield.report.html`): every
id (queries, documents, run and file names, the title) is escaped; the Content-Security-Policy
admits the one inline style sheet and nothing else, so no script runs and nothing is fetched.
The same inputs give the same bytes (fits are deterministic, numbers printed with fixed
decimals, no time stamp).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np

from cranfield.logs.click_metrics import click_metrics
from cranfield.logs.click_models.model import DEFAULT_PSEUDO_COUNTS, estimation_sentence
from cranfield.logs.fitted_click_model import (
    MODELS,
    ExaminationCurve,
    compare_click_models,
    examination_curve,
)
from cranfield.report.html import _asset, _e, _table, page_top
from cranfield.report.numbers import four_places
from cranfield.report.run_diff import signed
from cranfield.report.svg_charts import LineChart, LineSeries, int_ticks, line_chart, series_style

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from numpy.typing import NDArray

    from cranfield.data.sessions import Sessions
    from cranfield.logs.click_models import ModelScore
    from cranfield.logs.simulation import Agreement

__all__ = ["MODEL_NAMES", "fit_models", "logs_html", "rank_ctr_series"]

MODEL_NAMES: Final[tuple[str, ...]] = tuple(MODELS)
"""The click models the page can fit (:data:`cranfield.logs.fitted_click_model.MODELS`)."""


def fit_models(
    train: Sessions, test: Sessions | None = None, models: Sequence[str] = MODEL_NAMES
) -> dict[str, tuple[ModelScore, NDArray[np.float64]]]:
    """``{model: (its score, its mean click probability per rank)}``, each model fitted on
    ``train`` and scored on ``test`` (``train`` itself when ``None``), best perplexity first
    (:func:`~cranfield.logs.fitted_click_model.compare_click_models`).

    Raises
    ------
    OptionError
        An unknown model name.
    """
    comparison = compare_click_models(train, test, list(models))
    scored = train if test is None else test
    return {f.fitted.name: (f.score, f.fitted.predicted_ctr(scored)) for f in comparison.fits}


def rank_ctr_series(
    scored: Sessions, fits: Mapping[str, tuple[ModelScore, NDArray[np.float64]]]
) -> dict[str, NDArray[np.float64]]:
    """The lines of the CTR-by-rank chart: ``"observed CTR"``, the CTR by rank of ``scored``
    (the log the models were scored on, whose sessions their predictions are averaged over:
    :func:`fit_models`), then ``"MODEL (predicted)"`` for each fit."""
    out = {"observed CTR": click_metrics(scored).rank_ctr}
    out.update({f"{m} (predicted)": mean for m, (_, mean) in fits.items()})
    return out


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _number(v: float, digits: int = 4) -> str:
    return "-" if not math.isfinite(v) else f"{v:.{digits}f}"


def _rank_chart(lines: Mapping[str, NDArray[np.float64]], scored_on: str) -> str:
    depth = max(v.size for v in lines.values())
    ranks = [float(r) for r in range(1, depth + 1)]
    series = []
    for i, (label, values) in enumerate(lines.items()):
        color, dash = series_style(i)
        keep = [k for k in range(depth) if math.isfinite(float(values[k]))]
        series.append(
            LineSeries(
                label,
                [ranks[k] for k in keep],
                [float(values[k]) for k in keep],
                color,
                dash,
            )
        )
    return line_chart(
        LineChart(
            key="ctr-by-rank",
            title="CTR by rank",
            caption="The share of sessions showing a result at a rank in which it was clicked, "
            f"and each model's mean click probability there, both on {scored_on}.",
            x_label="rank",
            y_label="CTR",
            x_range=(1.0, float(max(depth, 2))),
            x_ticks=int_ticks(1, max(depth, 2)),
            series=series,
        )
    )


def _perplexity_chart(fits: Mapping[str, tuple[ModelScore, NDArray[np.float64]]]) -> str:
    from cranfield.report.svg_charts import nice_ticks

    values = [v for s, _ in fits.values() for v in s.perplexity_at_rank if math.isfinite(v)]
    depth = max(s.perplexity_at_rank.size for s, _ in fits.values())
    ticks = nice_ticks(1.0, max(values, default=2.0))
    series = []
    for i, (name, (score, _)) in enumerate(fits.items()):
        color, dash = series_style(i + 1)  # the colours of the CTR chart's model lines
        ranks = [
            r
            for r in range(score.perplexity_at_rank.size)
            if math.isfinite(score.perplexity_at_rank[r])
        ]
        series.append(
            LineSeries(
                name,
                [float(r + 1) for r in ranks],
                [float(score.perplexity_at_rank[r]) for r in ranks],
                color,
                dash,
            )
        )
    return line_chart(
        LineChart(
            key="perplexity-by-rank",
            title="Perplexity by rank",
            caption="Each model's perplexity at each rank (1 is a perfect prediction, 2 a coin "
            "flip; lower is better).",
            x_label="rank",
            y_label="perplexity",
            x_range=(1.0, float(max(depth, 2))),
            x_ticks=int_ticks(1, max(depth, 2)),
            series=series,
            y_range=(ticks[0], ticks[-1]),
        )
    )


def _examination_section(curve: ExaminationCurve) -> str:
    depth = curve.propensity.size
    ranks = [float(r) for r in range(1, depth + 1)]
    lines = [
        ("propensity", curve.propensity, 0),
        (f"{1 - curve.alpha:.0%} interval, low", curve.low, 1),
        (f"{1 - curve.alpha:.0%} interval, high", curve.high, 1),
    ]
    series = []
    for label, values, style in lines:
        color, dash = series_style(style)
        keep = [k for k in range(depth) if math.isfinite(float(values[k]))]
        series.append(
            LineSeries(
                label, [ranks[k] for k in keep], [float(values[k]) for k in keep], color, dash
            )
        )
    chart = line_chart(
        LineChart(
            key="examination-by-rank",
            title="Examination by rank (PBM)",
            caption="PBM's examination at each rank over that at rank 1 (the position-bias "
            f"propensities), with a percentile bootstrap interval over {curve.resamples} "
            f"resamples of the sessions (seed {curve.seed}).",
            x_label="rank",
            y_label="propensity",
            x_range=(1.0, float(max(depth, 2))),
            x_ticks=int_ticks(1, max(depth, 2)),
            series=series,
        )
    )
    rows = [
        [
            str(r + 1),
            _number(float(curve.propensity[r])),
            _number(float(curve.low[r])),
            _number(float(curve.high[r])),
        ]
        for r in range(depth)
    ]
    return (
        '<section id="examination"><h2>Position bias</h2>'
        + _table("examination-table", ["rank", "propensity", "low", "high"], rows)
        + f'<div class="charts">{chart}</div></section>'
    )


def _metrics_section(sessions: Sessions) -> str:
    m = click_metrics(sessions)
    rows = [[name, _number(value)] for name, value in m.overall.items()]
    notes = "".join(f"<li>{_e(n)}</li>" for n in m.notes)
    return (
        '<section id="metrics"><h2>Click metrics</h2>'
        + _table("metrics-table", ["metric", "value"], rows)
        + f'<ul class="notes">{notes}</ul></section>'
    )


def _models_section(
    fits: Mapping[str, tuple[ModelScore, NDArray[np.float64]]], scored_on: str
) -> str:
    head = ["model", "sessions", "log-likelihood", "per cell", "perplexity", "conditional"]
    rows = [
        [
            name,
            f"{s.sessions:,}",
            f"{s.log_likelihood:.1f}",
            _number(s.mean_log_likelihood),
            _number(s.perplexity),
            _number(s.conditional_perplexity),
        ]
        for name, (s, _) in fits.items()
    ]
    depth = max(s.perplexity_at_rank.size for s, _ in fits.values())
    per_rank = [
        [name, *(_number(float(v)) for v in s.perplexity_at_rank)]
        + ["-"] * (depth - s.perplexity_at_rank.size)
        for name, (s, _) in fits.items()
    ]
    return (
        '<section id="models"><h2>Click models</h2>'
        f"<p>Each model fitted on the log and scored on {_e(scored_on)}. Perplexity: "
        "2 to the minus mean log₂-probability of the clicks at a rank, averaged over ranks "
        "(Chuklin, Markov &amp; de Rijke 2015); conditional: given the clicks above. "
        f"{_e(_sentence(estimation_sentence(DEFAULT_PSEUDO_COUNTS)))}.</p>"
        + _table("models-table", head, rows)
        + "<h3>Perplexity per rank</h3>"
        + _table("perplexity-table", ["model", *(str(r) for r in range(1, depth + 1))], per_rank)
        + f'<div class="charts">{_perplexity_chart(fits)}</div></section>'
    )


def _simulation_section(a: Agreement, users: str) -> str:
    e = a.experiment
    p = e.preference
    name_a, name_b = a.names
    judged = ~np.isnan(a.per_query).all(axis=1)
    rows = []
    for k, n in enumerate(a.sizes):
        values = a.per_query[judged, k]
        rows.append(
            [
                f"{n:,}",
                _number(float(a.overall[k]), 3),
                _number(float(values.mean()) if values.size else math.nan, 3),
            ]
        )
    xs = [math.log10(n) for n in a.sizes]
    lo, hi = math.floor(min(xs)), math.ceil(max(xs))
    hi = max(hi, lo + 1)
    overall_color, overall_dash = series_style(0)
    query_color, query_dash = series_style(1)
    mean_q = [
        float(a.per_query[judged, k].mean()) if judged.any() else math.nan
        for k in range(len(a.sizes))
    ]
    series = [LineSeries("overall", xs, [float(v) for v in a.overall], overall_color, overall_dash)]
    if judged.any():
        series.append(LineSeries("per query (mean)", xs, mean_q, query_color, query_dash))
    chart = line_chart(
        LineChart(
            key="agreement-by-n",
            title="Agreement with the offline measure",
            caption=f"The share of {a.repetitions:,} simulated experiments of N impressions "
            f"that prefer the run {a.measure} prefers.",
            x_label="impressions N",
            y_label="agreement",
            x_range=(float(lo), float(hi)),
            x_ticks=[float(t) for t in range(lo, hi + 1)],
            series=series,
            x_format="10^{:g}",
        )
    )
    wins = e.per_query()
    per_query = [
        [
            q,
            four_places(float(a.offline[i, 0])),
            four_places(float(a.offline[i, 1])),
            signed(float(a.offline[i, 0] - a.offline[i, 1])),
            str(wins[q][0]),
            str(wins[q][1]),
            str(wins[q][2]),
            *(_number(float(v), 3) for v in a.per_query[i]),
        ]
        for i, q in enumerate(a.query_ids)
    ]
    head = ["query", "A", "B", "A − B", "A won", "B won", "ties", *(f"N={n:,}" for n in a.sizes)]
    lo_i, hi_i = p.interval
    return (
        '<section id="interleaving"><h2>Interleaving (simulated)</h2>'
        f"<p>A = {_e(name_a)}, B = {_e(name_b)}; {_e(e.method)} interleaving, {_e(users)}, "
        f"{len(a.query_ids):,} queries, seed {a.seed}.</p>"
        f"<p>Offline {_e(a.measure)}: A {four_places(float(a.offline[:, 0].mean()))}, "
        f"B {four_places(float(a.offline[:, 1].mean()))}, A − B "
        f"{_e(signed(a.offline_difference))}. Interleaving: Δ_AB {_e(signed(p.delta))}, "
        f"{1 - p.alpha:.0%} bootstrap interval over queries [{_e(signed(lo_i))}, "
        f"{_e(signed(hi_i))}], sign test p = {p.p_value:.4g}; A won {p.wins:,}, B won {p.losses:,}, "
        f"ties {p.ties:,} of the impressions.</p>"
        + _table("agreement-table", ["N", "overall", "per query (mean)"], rows)
        + f'<div class="charts">{chart}</div>'
        + "<h3>Per query</h3>"
        + _table("interleaving-table", head, per_query)
        + "</section>"
    )


def logs_html(
    sessions: Sessions,
    *,
    test: Sessions | None = None,
    models: Sequence[str] = MODEL_NAMES,
    simulation: Agreement | None = None,
    users: str = "",
    inputs: Sequence[tuple[str, str]] = (),
    title: str | None = None,
    seed: int = 0,
) -> str:
    """The HTML page of a click log (module notes).

    Parameters
    ----------
    sessions:
        The log.
    test:
        Held-out sessions to score the click models on (else the log itself).
    models:
        The click models to fit (:data:`MODEL_NAMES`); none for no model section.
    simulation:
        A simulated interleaving experiment to show, and ``users`` who clicked in it.
    inputs:
        ``(role, path)`` of the input files, listed with their SHA-256.
    title:
        The page's heading.
    seed:
        The seed of the bootstrap of the examination curve (shown with models).
    """
    from cranfield._version import __version__
    from cranfield.evaluation.provenance import InputFile

    css = _asset("report.css")
    heading = title or f"Click log {sessions.source}"
    subtitle = (
        f"{len(sessions):,} sessions · {sessions.num_queries:,} queries · depth "
        f"{sessions.depth} · {sessions.num_clicks:,} clicks"
    )
    metrics = _metrics_section(sessions)
    fits = fit_models(sessions, test, models) if models else {}
    scored_on = (
        "the log itself (no test log)"
        if test is None
        else (f"the test log {test.source} ({len(test):,} sessions)")
    )
    lines = rank_ctr_series(sessions if test is None else test, fits)
    nav = ['<a href="#metrics">Click metrics</a>', '<a href="#ctr">CTR by rank</a>']
    body = [
        metrics,
        f'<section id="ctr"><h2>CTR by rank</h2><div class="charts">'
        f"{_rank_chart(lines, scored_on)}</div></section>",
    ]
    if fits:
        nav.append('<a href="#examination">Position bias</a>')
        body.append(_examination_section(examination_curve(sessions, seed=seed)))
        nav.append('<a href="#models">Click models</a>')
        body.append(_models_section(fits, scored_on))
    if simulation is not None:
        nav.append('<a href="#interleaving">Interleaving</a>')
        body.append(_simulation_section(simulation, users))
    nav.append('<a href="#parameters">Parameters</a>')
    params = [
        (f"{role} sha256", f"{Path(path).name}: {InputFile.of(role, path).sha256}")
        for role, path in inputs
    ]
    params += [
        ("log", sessions.source),
        ("models", ", ".join(fits) or "none"),
        ("cranfield version", __version__),
    ]
    rows = "".join(f'<tr><th scope="row">{_e(k)}</th><td>{_e(v)}</td></tr>' for k, v in params)
    body.append(
        '<section id="parameters"><h2>Parameters</h2>'
        f'<table id="parameters-table" class="params"><tbody>{rows}</tbody></table></section>'
    )
    return (
        page_top(heading, subtitle, nav, css)
        + f"<main>{chr(10).join(body)}</main>\n</body></html>\n"
    )
