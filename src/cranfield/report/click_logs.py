"""Plain text of what the ``cranfield logs`` commands compute: click metrics
(:func:`click_metrics_text`), an A/B test (:func:`ab_test_text`) and click models fitted and
scored (:func:`click_models_text`).

Presentation only: the numbers come from the result objects of :mod:`cranfield.logs`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from cranfield.logs.fitted_click_model import DEFINITIONS
from cranfield.logs.fitted_click_model import ignored_clicks as _ignored_clicks
from cranfield.logs.fitted_click_model import unseen_pairs as _unseen_pairs
from cranfield.report.agreement import _grid

if TYPE_CHECKING:
    from cranfield.data.sessions import Sessions
    from cranfield.logs.ab_test import ABTest
    from cranfield.logs.click_metrics import ClickMetrics
    from cranfield.logs.fitted_click_model import ClickModelComparison

__all__ = ["ab_test_text", "click_metrics_text", "click_models_text"]


def _number(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.4f}"


def click_metrics_text(sessions: Sessions, metrics: ClickMetrics) -> str:
    """The metrics as text: the log, the overall values, CTR by rank, the groups' table, the
    definitions (``cranfield logs metrics``)."""
    lines = [
        f"log {sessions.source}: {len(sessions)} sessions, {sessions.num_queries} queries, "
        f"depth {sessions.depth}, {sessions.num_clicks} clicks",
        "",
    ]
    names = list(metrics.overall)
    width = max(len(n) for n in names)
    lines += [f"{name:<{width}}  {_number(metrics.overall[name])}" for name in names]
    lines += ["", "CTR by rank:"]
    lines += [f"  {rank:>3}  {_number(v)}" for rank, v in enumerate(metrics.rank_ctr.tolist(), 1)]
    if metrics.by is not None:
        header = [metrics.by, "sessions", *metrics.values]
        rows = [
            [
                group,
                str(int(metrics.sessions[i])),
                *(_number(v[i]) for v in metrics.values.values()),
            ]
            for i, group in enumerate(metrics.groups)
        ]
        lines.append("")
        lines += _grid(header, rows)
    lines += ["", "Definitions:"]
    lines += [f"  {note}" for note in metrics.notes]
    return "\n".join(lines) + "\n"


def ab_test_text(metric: str, t: ABTest, needed: dict[float, int], power: float) -> str:
    """The test as a few aligned lines (``cranfield logs ab``): the buckets, the difference
    with its interval and p-value, and the units needed for each effect in ``needed``."""
    unit = "each row (no --unit)" if t.unit == "row" else t.unit
    lines = [
        f"A/B test of {metric}: {t.treatment.name} against {t.control.name}",
        f"unit of randomisation: {unit}",
        "",
    ]
    rows = []
    for b, role in ((t.control, "control"), (t.treatment, "treatment")):
        se = math.sqrt(b.variance)
        rows.append([f"{b.name} ({role})", str(b.units), str(b.rows), f"{b.mean:.6g}", f"{se:.4g}"])
    lines += _grid(["bucket", "units", "rows", "mean", "std. error"], rows)
    relative = t.relative_difference
    rel = "" if math.isnan(relative) else f" ({relative:+.2%})"
    lo, hi = t.interval
    df = f"df {t.df:.1f}" if math.isfinite(t.df) else "no variance"
    lines += [
        "",
        f"difference {t.difference:+.6g}{rel}, {1 - t.alpha:.0%} interval [{lo:.6g}, {hi:.6g}]",
        f"p = {t.p_value:.4g} (Welch's t, {df}; delta-method variance over units)",
    ]
    if needed:
        lines += [
            "",
            f"units per bucket to detect a difference (alpha {t.alpha:g}, power {power:g}):",
        ]
        lines += [f"  {mde:g}: {n}" for mde, n in needed.items()]
    return "\n".join(lines) + "\n"


def _log_line(role: str, s: Sessions) -> str:
    return (
        f"{role} {s.source}: {len(s)} sessions, {s.num_queries} queries, depth {s.depth}, "
        f"{s.num_clicks} clicks"
    )


def _parameters(fit_parameters: dict[str, float | int]) -> str:
    parts = []
    if "continuation" in fit_parameters:
        parts.append(f"continuation {fit_parameters['continuation']:.4f}")
    if "iterations" in fit_parameters:
        parts.append(f"{fit_parameters['iterations']} EM iterations")
    return ", ".join(parts)


def click_models_text(c: ClickModelComparison) -> str:
    """One row per model, the lowest perplexity first: log-likelihood, perplexity, conditional
    perplexity, perplexity at each rank; the models' scalar parameters; the definitions
    (``cranfield logs fit``).

    Examples
    --------
    >>> from cranfield.data.sessions import Sessions
    >>> from cranfield.logs.fitted_click_model import compare_click_models
    >>> log = Sessions.from_clicked(query_ids=("q",), doc_ids=("a", "b"), query=[0, 0],
    ...     shown=[[0, 1], [1, 0]], clicked=[[True, False], [True, True]], source="log")
    >>> text = click_models_text(compare_click_models(log, models=["RankCTR"]))
    >>> print(text.split("Definitions:")[0].rstrip())
    fitted on log: 2 sessions, 1 queries, depth 2, 3 clicks
    scored on the training sessions (no test log), which flatters the models with more parameters
    <BLANKLINE>
    model    log-likelihood  perplexity  conditional      @1      @2
    RankCTR         -1.9617      1.6667       1.6667  1.3333  2.0000
    """
    lines = [_log_line("fitted on", c.train)]
    if c.test is None:
        lines.append(
            "scored on the training sessions (no test log), which flatters the models with "
            "more parameters"
        )
    else:
        lines.append(_log_line("scored on", c.test))
        u = _unseen_pairs(c.train, c.test)
        if u["pairs"]:
            lines.append(
                f"not in the training log, so given the prior: {u['pairs']} of its "
                f"{u['of_pairs']} (query, document) pairs, {u['results']} of its "
                f"{u['of_results']} results shown"
            )
    unshown, repeated = _ignored_clicks(c.scored)
    if unshown or repeated:
        lines.append(
            f"clicks of the scored log not seen by the models: {unshown} on documents not "
            f"shown, {repeated} repeated (a result clicked again counts once)"
        )
    depth = max((f.score.perplexity_at_rank.size for f in c.fits), default=0)
    header = [
        "model",
        "log-likelihood",
        "perplexity",
        "conditional",
        *(f"@{r}" for r in range(1, depth + 1)),
    ]
    rows = [
        [
            f.fitted.name,
            f"{f.score.log_likelihood:.4f}",
            _number(f.score.perplexity),
            _number(f.score.conditional_perplexity),
            *(_number(float(v)) for v in f.score.perplexity_at_rank),
        ]
        for f in c.fits
    ]
    lines.append("")
    lines += _grid(header, rows)
    parameters = [(f.fitted.name, _parameters(f.fitted.parameters())) for f in c.fits]
    if any(text for _, text in parameters):
        lines += ["", "Parameters:"]
        lines += [f"  {name}: {text}" for name, text in parameters if text]
    lines += ["", "Definitions:"]
    lines += [f"  {note}" for note in (*DEFINITIONS, *c.estimation())]
    lines.append("  rows: the lowest perplexity first; @r: the perplexity at rank r")
    return "\n".join(lines) + "\n"
