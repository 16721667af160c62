"""Seed 004, "GMAP": system A (AP 0.02, 0.03, 0.29) has the higher MAP (0.113 vs 0.107) but
system B (0.08, 0.04, 0.20) improves two of three topics (+300%, +33.3%, −31%) and has the
higher geometric mean: GMAP_a = 0.056, GMAP_b = 0.086."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.evaluation.aggregate import aggregate
from cranfield.evaluation.results import Results
from cranfield.measures import parse_measure
from tests.golden._helpers import printed

A = np.array([0.02, 0.03, 0.29])
B = np.array([0.08, 0.04, 0.20])


def _results(values: np.ndarray) -> Results:
    return Results("sys", ["1", "2", "3"], {parse_measure("AP"): values}, "zero")


def test_gmap_example() -> None:
    assert printed(aggregate(A, "mean"), "0.113")
    assert printed(aggregate(B, "mean"), "0.107")
    assert printed(aggregate(A, "gmean"), "0.056")
    assert printed(aggregate(B, "gmean"), "0.086")
    assert [round(100 * (b / a - 1), 1) for a, b in zip(A, B, strict=True)] == [300.0, 33.3, -31.0]
    a, b = _results(A), _results(B)
    assert a["AP"] > b["AP"]
    assert a.aggregate("AP", "gmean") < b.aggregate("AP", "gmean")


def test_gmap_epsilon_is_a_parameter() -> None:
    """A topic scoring 0 is floored at epsilon before the log (trec_eval: 1e-5)."""
    values = np.array([0.0, 0.5])
    assert aggregate(values, "gmean") == pytest.approx(np.sqrt(1e-5 * 0.5))
    assert aggregate(values, "gmean", epsilon=0.01) == pytest.approx(np.sqrt(0.01 * 0.5))
    assert _results(np.array([0.0, 0.5, 0.5])).aggregate(
        "AP", "gmean", epsilon=0.01
    ) == pytest.approx((0.01 * 0.25) ** (1 / 3))
