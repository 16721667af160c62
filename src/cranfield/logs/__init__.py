"""Evaluation from what users do: interaction logs, click metrics, click models, online tests.

The fourth part of evaluation next to laboratory experiments, measures and training/testing:
sessions read from logs (:class:`Sessions`, :func:`read_sessions`; the formats in
:mod:`cranfield.io.click_logs`), click metrics per query, per bucket and overall
(:func:`click_metrics`, the definitions in :mod:`cranfield.logs.click_metrics`), click models
fitted to sessions (:func:`fit_click_model`; the models in :mod:`cranfield.logs.click_models`:
the CTR baselines, :class:`PBM`, :class:`Cascade`, :class:`DCM`, :class:`UBM`, :class:`DBN`,
:class:`SDBN`) and their estimated relevance as qrels (:func:`click_judgments`), online
experiments (team-draft, balanced and probabilistic interleaving and team-draft
multileaving, :func:`preference`, :func:`interleaving_experiment`; A/B tests with intervals
over the unit of randomisation, :func:`ab_test`, :func:`sample_size`), and users simulated
over a run and its qrels.

Examples
--------
>>> import pathlib, tempfile
>>> from cranfield.logs import click_metrics, read_sessions
>>> path = pathlib.Path(tempfile.mkdtemp()) / "log.txt"
>>> _ = path.write_text("q1\\ta,b,c : b , a;q1\\ta,b,c :;q2\\tc,d : c;\\n")
>>> sessions = read_sessions(path)
>>> metrics = click_metrics(sessions, k=1)
>>> round(metrics.overall["ctr"], 3), round(metrics.overall["ctr@1"], 3)
(0.667, 0.667)
"""

from __future__ import annotations

import typing

from cranfield._lazy import lazy_names as _lazy_names

# numpy only, imported now: the function click_metrics must be bound after its module of the
# same name, or importing the module later would leave the module in its place
from cranfield.data.sessions import Sessions
from cranfield.logs.ab_test import ABTest, Bucket, ab_test, sample_size
from cranfield.logs.click_judgments import click_judgments
from cranfield.logs.click_metrics import ClickMetrics, click_metrics, session_metrics
from cranfield.logs.click_models import (
    DBN,
    DCM,
    PBM,
    SDBN,
    UBM,
    Cascade,
    ClickModel,
    DocumentCTR,
    GlobalCTR,
    ModelScore,
    RankCTR,
    simulate,
)
from cranfield.logs.fitted_click_model import FittedClickModel, fit_click_model
from cranfield.logs.interleaving import (
    Balanced,
    Probabilistic,
    TeamDraft,
    balanced,
    click_matrix,
    multileave,
    probabilistic,
    team_draft,
)
from cranfield.logs.interleaving_experiment import (
    ClickFunction,
    InterleavingExperiment,
    independent_clicks,
    interleaving_experiment,
)
from cranfield.logs.preference import Preference, pairwise_preferences, preference
from cranfield.logs.simulation import (
    Agreement,
    ModelClicks,
    RecordedClicks,
    SimulatedABTest,
    graded_model,
    run_rankings,
    simulate_ab_test,
    simulate_interleaving,
    simulate_log,
)

if typing.TYPE_CHECKING:
    from cranfield.io.click_logs import read_sessions, sessions_from_frame, write_sessions

__all__ = [
    "DBN",
    "DCM",
    "PBM",
    "SDBN",
    "UBM",
    "ABTest",
    "Agreement",
    "Balanced",
    "Bucket",
    "Cascade",
    "ClickFunction",
    "ClickMetrics",
    "ClickModel",
    "DocumentCTR",
    "FittedClickModel",
    "GlobalCTR",
    "InterleavingExperiment",
    "ModelClicks",
    "ModelScore",
    "Preference",
    "Probabilistic",
    "RankCTR",
    "RecordedClicks",
    "Sessions",
    "SimulatedABTest",
    "TeamDraft",
    "ab_test",
    "balanced",
    "click_judgments",
    "click_matrix",
    "click_metrics",
    "fit_click_model",
    "graded_model",
    "independent_clicks",
    "interleaving_experiment",
    "multileave",
    "pairwise_preferences",
    "preference",
    "probabilistic",
    "read_sessions",
    "run_rankings",
    "sample_size",
    "session_metrics",
    "sessions_from_frame",
    "simulate",
    "simulate_ab_test",
    "simulate_interleaving",
    "simulate_log",
    "team_draft",
    "write_sessions",
]

# Imported on first use: the readers need polars.
_LAZY = {
    "read_sessions": "cranfield.io.click_logs",
    "sessions_from_frame": "cranfield.io.click_logs",
    "write_sessions": "cranfield.io.click_logs",
}


__getattr__, __dir__ = _lazy_names(__name__, _LAZY, globals())
