"""Pairs and rankings numbered for fitting: both code-space paths, and hash collisions."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from cranfield.logs.click_models import DocumentCTR, PairTable, click_arrays, pair_table
from cranfield.logs.click_models.pair_table import PairIndex

Numbering = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]


def test_huge_codes_are_numbered_by_sorting() -> None:
    big = 2**31 - 1
    model = DocumentCTR.fit([big, 3], [[5, big], [big, -1]], [[1, 0], [0, 0]], pseudo_counts=(0, 0))
    assert model.relevance().as_dict() == {(3, big): 0.0, (big, 5): 1.0, (big, big): 0.0}


def _sorted_only(number: Numbering) -> Numbering:
    def sorted_path(query: np.ndarray, doc: np.ndarray) -> tuple[np.ndarray, ...]:
        # the same pairs in a code space too large for the dense table
        q, d, n = number(query, doc + (1 << 30))
        return q, d - (1 << 30), n

    return sorted_path  # type: ignore[return-value]


def test_dense_and_sorted_numbering_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    query = rng.integers(0, 40, 2000)
    shown = np.argsort(rng.random((2000, 9)), axis=1)[:, :6]
    shown[::7, 4:] = -1
    log = click_arrays(query, shown, np.zeros(shown.shape, dtype=bool))
    dense = PairIndex.of(log)
    monkeypatch.setattr(pair_table, "_number_pairs", _sorted_only(pair_table._number_pairs))
    by_sort = PairIndex.of(log)
    for field in ("query", "doc", "cell", "ranking", "ranking_cell", "ranking_sessions"):
        assert np.array_equal(getattr(dense, field), getattr(by_sort, field)), field


def test_rankings_survive_hash_collisions(monkeypatch: pytest.MonkeyPatch) -> None:
    query = np.array([0, 1, 0, 0, 1], dtype=np.int64)
    shown = np.array([[1, 2], [1, 2], [2, 1], [1, 2], [1, 2]], dtype=np.int64)
    honest = pair_table.rankings(query, shown)
    monkeypatch.setattr(pair_table, "_ROW_HASH", np.zeros(8, dtype=np.int64))
    colliding = pair_table.rankings(query, shown)
    for ranking, first in (honest, colliding):
        assert np.array_equal(query[first][ranking], query)
        assert np.array_equal(shown[first][ranking], shown)
        assert len(first) == 3


def test_pair_table_from_pairs_rejects_a_pair_given_twice() -> None:
    with pytest.raises(ValueError, match="pair is given twice"):
        PairTable.from_pairs([0, 0], [1, 1], [0.1, 0.2], prior=0.5)
