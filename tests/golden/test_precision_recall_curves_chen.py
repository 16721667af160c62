"""Seed 002 (Chen, "Retrieval Evaluation - Measures"), examples 3.2–3.4: precision–recall
points, interpolation at the 11 standard recall levels, and the curve averaged over queries.
The ranking itself is printed in seed 004 (same example, same document ids)."""

from __future__ import annotations

import polars as pl
import pytest

from cranfield import curves
from tests.golden._collection import binary
from tests.golden._helpers import assert_printed


def test_example_3_2_points() -> None:
    """Ten relevant documents, five in the top 15: (R, P) = (0.1, 1), (0.2, 0.67), (0.3, 0.5),
    (0.4, 0.4), (0.5, 0.33)."""
    pts = curves.pr_points(*binary()).filter(pl.col("query_id") == "q1")
    assert pts["rank"].to_list() == [1, 3, 6, 10, 15]
    assert_printed(pts["recall"].to_list(), "0.1 0.2 0.3 0.4 0.5")
    assert_printed(pts["precision"].to_list(), "1 0.67 0.5 0.4 0.33")


def test_example_3_2_interpolated() -> None:
    """Levels above 50% drop to 0 (no further relevant document); 0% is interpolated (1.0)."""
    curve = curves.interpolated_pr(*binary()).filter(pl.col("query_id") == "q1")
    assert curve["recall"].to_list() == pytest.approx([i / 10 for i in range(11)])
    assert_printed(curve["precision"].to_list(), "1 1 0.67 0.5 0.4 0.33 0 0 0 0 0")


def test_example_3_3_interpolated() -> None:
    """R_q = {d3, d56, d129}: points (0.33, 0.33), (0.67, 0.25), (1.0, 0.2); interpolated 0.33
    at 0–30%, 0.25 at 40–60%, 0.2 at 70–100%."""
    pts = curves.pr_points(*binary()).filter(pl.col("query_id") == "q2")
    assert pts["rank"].to_list() == [3, 8, 15]
    assert_printed(pts["recall"].to_list(), "0.33 0.67 1.0")
    assert_printed(pts["precision"].to_list(), "0.33 0.25 0.2")
    curve = curves.interpolated_pr(*binary()).filter(pl.col("query_id") == "q2")
    assert_printed(curve["precision"].to_list(), ("0.33 " * 4 + "0.25 " * 3 + "0.2 " * 4))


def test_averaged_curve_over_queries() -> None:
    """P̄(r_j) = (1/N_q) Σ_i P̄_i(r_j)."""
    mean = curves.mean_interpolated_pr(*binary())
    q1 = [1, 1, 2 / 3, 1 / 2, 2 / 5, 1 / 3, 0, 0, 0, 0, 0]
    q2 = [1 / 3] * 4 + [1 / 4] * 3 + [1 / 5] * 4
    assert mean["precision"].to_list() == pytest.approx(
        [(a + b) / 2 for a, b in zip(q1, q2, strict=True)]
    )


def test_trec_eval_rounding_is_available_and_differs() -> None:
    """trec_eval rounds p·R: with R = 3 the 40% level uses the 1st relevant document (0.33)."""
    curve = curves.interpolated_pr(*binary(), rule="trec_eval").filter(pl.col("query_id") == "q2")
    assert curve["precision"].to_list()[4] == pytest.approx(1 / 3)
