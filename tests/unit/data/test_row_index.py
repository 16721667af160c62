"""A run's row indexes (:mod:`cranfield.data.row_index`): handed to the run by its reader,
through :meth:`Run.indexed`, or computed once; the data modules import one way."""

from __future__ import annotations

import ast
import dataclasses
import gc
import importlib.util
from pathlib import Path
from unittest import mock

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cranfield.data import ranking
from cranfield.data.row_index import TieOrder, block_rows, doc_keys, mixed_keys, stretches
from cranfield.data.run import Run
from cranfield.io import trec
from cranfield.io.trec import read_run

FRAME = pl.DataFrame(
    {
        "query_id": ["1", "1", "1", "2", "2"],
        "doc_id": ["a", "b", "c", "a", "d"],
        "score": [3.0, 2.0, 2.0, 1.0, 0.5],
    }
)


def _imported(module: str) -> set[str]:
    """Every cranfield module ``module`` imports: at the top, in functions or for typing."""
    path = Path(importlib.util.find_spec(module).origin)  # type: ignore[arg-type, union-attr]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("cranfield.")}


@pytest.mark.parametrize(
    ("module", "below"),
    [
        ("cranfield.data.run", {"cranfield.data.row_index"}),
        ("cranfield.data.qrels", {"cranfield.data.row_index"}),
        ("cranfield.data.row_index", set()),
        ("cranfield.data.columns", set()),
    ],
)
def test_the_containers_do_not_import_the_ranking(module: str, below: set[str]) -> None:
    """data.ranking builds on runs and qrels (and io on all three), never the other way."""
    assert _imported(module) == below


def test_indexed_hands_on_what_the_reader_learnt() -> None:
    queries = (["1", "2"], np.array([3, 2], dtype=np.int64))
    keys = doc_keys(FRAME.get_column("doc_id"))
    ties = ranking.tie_order(FRAME.get_column("score").to_numpy(), FRAME["doc_id"], queries[1])
    run = Run.indexed(
        FRAME, name="r", tag="t", query_stretches=queries, doc_keys=keys, tie_order=ties
    )
    with (
        mock.patch("cranfield.data.run.stretches", side_effect=AssertionError),
        mock.patch("cranfield.data.run.doc_keys", side_effect=AssertionError),
        mock.patch.object(ranking, "tie_order", side_effect=AssertionError),
    ):
        assert run.query_stretches is queries
        assert run.doc_keys is keys
        assert ranking.tie_order_of(run) is ties
        assert run.topics == ["1", "2"]
    assert (run.name, run.tag, run.known_tie_order) == ("r", "t", ties)
    # Another frame is another run: nothing known is carried over.
    other = dataclasses.replace(run, frame=FRAME.head(2))
    assert other.known_tie_order is None
    assert other.query_stretches[1].tolist() == [2]


def test_a_tie_order_is_computed_once_per_run() -> None:
    run = Run(FRAME)
    assert run.known_tie_order is None
    first = ranking.tie_order_of(run)
    assert isinstance(first, TieOrder)
    assert first.descending
    assert ranking.tie_order_of(run) is first  # kept
    assert first.positions.tolist() == [1, 2]  # b and c tie: c first (doc id descending)
    assert first.rows.tolist() == [2, 1]
    assert stretches(FRAME.get_column("query_id"))[0] == ["1", "2"]
    count = len(ranking._TIE_ORDERS)
    del run
    gc.collect()
    assert len(ranking._TIE_ORDERS) == count - 1  # not kept beyond the run's life


@pytest.mark.parametrize("float32", [False, True])
def test_the_block_reader_hands_its_indexes_to_the_run(
    tmp_path: Path, float32: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.txt"
    path.write_text(
        "".join(f"{q} Q0 d{i} {i} {1 + i % 3}.0000001 t\n" for q in "12" for i in range(9))
    )
    monkeypatch.setattr(trec, "BLOCK_BYTES", 64)
    run = read_run(path, float32=float32)
    assert "query_stretches" in vars(run)  # handed on, not computed
    assert "doc_keys" in vars(run)
    # The tie order read off the blocks is that of the scores as read; not after rounding.
    assert (run.known_tie_order is None) is float32
    whole = Run(run.frame)
    mine, theirs = ranking.tie_order_of(run), ranking.tie_order_of(whole)
    assert mine.descending == theirs.descending
    assert sorted(zip(mine.positions.tolist(), mine.rows.tolist(), strict=True)) == sorted(
        zip(theirs.positions.tolist(), theirs.rows.tolist(), strict=True)
    )


def test_keys_of_stretches_are_the_keys_of_their_rows() -> None:
    rng = np.random.default_rng(7)
    lengths = rng.integers(0, 5, size=30).astype(np.int64)
    group = rng.permutation(30).astype(np.uint64)
    hashes = rng.integers(0, 2**63, size=int(lengths.sum()), dtype=np.uint64)
    by_stretch = mixed_keys(group, hashes, lengths)
    by_row = mixed_keys(np.repeat(group, lengths), hashes)
    assert by_stretch.dtype == by_row.dtype == np.uint64
    assert by_stretch.tolist() == by_row.tolist()


@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 50)), max_size=30))
def test_block_rows_are_the_blocks_rows_in_order(blocks: list[tuple[int, int]]) -> None:
    starts = np.array([s for s, _ in blocks], dtype=np.int64)
    lengths = np.array([n for _, n in blocks], dtype=np.int64)
    rows = block_rows(starts, lengths)
    expected = [r for s, n in blocks for r in range(s, s + n)]
    assert rows.tolist() == expected
    assert rows.dtype == (np.int32 if blocks else np.int64)  # rows below 2**31: half the bytes


def test_block_rows_past_2_to_the_31_are_int64() -> None:
    rows = block_rows(np.array([5, 2**31 - 1], dtype=np.int64), np.array([2, 3], dtype=np.int64))
    assert rows.dtype == np.int64
    assert rows.tolist() == [5, 6, 2**31 - 1, 2**31, 2**31 + 1]
