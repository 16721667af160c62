"""Judgments from clicks: a fitted click model's estimated relevance as qrels.

How click-derived test collections are built (CLEF LongEval, say): fit a click model to a log,
take its estimated relevance per (query, document), a probability, and judge each pair the
training log showed by it. :func:`click_judgments` gives either

* **grades** by thresholds ``levels`` (increasing, in ``[0, 1]``): a pair whose relevance
  ``r`` is below ``levels[0]`` is graded 0, one with ``levels[g - 1] <= r < levels[g]`` is
  graded ``g``, one at or above the last threshold ``len(levels)``; ``levels=(0.2, 0.5,
  0.8)`` gives grades 0 to 3. Every measure reads these as it reads any graded qrels; or
* **gains**: the relevance itself as a decimal label. cranfield reads a decimal label as
  two things (:mod:`cranfield.data.judgments`): its *level* is its integer part, so a
  relevance below 1 is level 0 and the binary measures (AP, P@k, recall ...) find nothing
  relevant; and its *gain*, which nDCG, DCG, CG, G, RBP and ERR use as it is (the ideal
  ranking sorts the positive gains). So gains are for nDCG and its kin; grades for every
  measure.

Written with :func:`cranfield.io.formats.write` (TREC qrels by default), a gain keeps every
digit (the shortest text that reads back the same float), so it reaches nDCG unchanged.

Examples
--------
>>> from cranfield.data.sessions import Sessions
>>> from cranfield.logs.fitted_click_model import fit_click_model
>>> log = Sessions.from_clicked(query_ids=("q",), doc_ids=("a", "b", "c"), query=[0] * 4,
...     shown=[[0, 1, 2]] * 4, clicked=[[True, True, False]] * 3 + [[True, False, False]])
>>> fitted = fit_click_model("DocumentCTR", log)
>>> click_judgments(fitted, levels=(0.2, 0.5, 0.8)).to_dict()
{'q': {'a': 3, 'b': 2, 'c': 0}}
>>> [round(g, 4) for g in click_judgments(fitted).frame.get_column("gain").to_list()]
[0.8333, 0.6667, 0.1667]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from cranfield.data.judgments import decimal_note, with_gains
from cranfield.data.qrels import Qrels
from cranfield.errors import OptionError

if TYPE_CHECKING:
    from cranfield.logs.fitted_click_model import FittedClickModel

__all__ = ["check_levels", "click_judgments"]


def check_levels(levels: Sequence[float]) -> tuple[float, ...]:
    """Grade thresholds: at least one, strictly increasing, each in ``[0, 1]``.

    Raises
    ------
    OptionError
        Otherwise (naming the option ``levels``).
    """
    expected = "increasing thresholds in [0, 1], such as 0.2,0.5,0.8"
    try:
        out = tuple(float(v) for v in levels)
    except (TypeError, ValueError):
        raise OptionError("levels", expected, levels) from None
    if (
        not out
        or any(not (math.isfinite(v) and 0.0 <= v <= 1.0) for v in out)
        or any(b <= a for a, b in itertools.pairwise(out))
    ):
        raise OptionError("levels", expected, levels)
    return out


def click_judgments(
    fitted: FittedClickModel, *, levels: Sequence[float] | None = None, name: str | None = None
) -> Qrels:
    """The pairs of the training sessions judged by the model's estimated relevance (module
    doc): graded by ``levels``, or with the relevance as gain when ``levels`` is None.

    Parameters
    ----------
    fitted:
        A fitted model with a relevance per pair (not the global or rank CTR).
    levels:
        Grade thresholds (:func:`check_levels`); None for gains.
    name:
        The qrels' name (default: the model's name).

    Raises
    ------
    OptionError
        If the model has no relevance per pair, or ``levels`` is not valid.
    """
    thresholds = None if levels is None else check_levels(levels)
    relevance = fitted.relevance()
    value = relevance.get_column("relevance").to_numpy()
    frame = relevance.select("query_id", pl.lit("0", dtype=pl.String).alias("iteration"), "doc_id")
    label = name or fitted.name
    notes: tuple[str, ...] = ()
    if thresholds is not None:
        grades = np.searchsorted(np.asarray(thresholds), value, side="right").astype(np.int64)
        frame = frame.with_columns(pl.Series("relevance", grades, dtype=pl.Int64))
    else:
        level = pl.Series("relevance", np.floor(value).astype(np.int64), dtype=pl.Int64)
        frame = with_gains(frame, level, pl.Series("gain", value, dtype=pl.Float64))
        decimal = value != np.floor(value)
        if decimal.any():
            notes = (decimal_note(label, int(decimal.sum()), float(value[decimal][0])),)
    return Qrels(frame.sort("query_id", "doc_id"), name=label, notes=notes)
