"""Condorcet fusion (``condorcet``, ``w_condorcet``): each query's documents sorted by
pairwise majority votes of the runs.

Montague & Aslam (2002) rank the documents of a query by sorting them with a comparison
that asks the runs to vote: ``x`` goes before ``y`` when the runs that rank ``x`` above
``y`` outvote the others. The result is a Hamiltonian path through the majority graph; when
the majority relation has a cycle (the Condorcet paradox) no order satisfies every vote, and
which path the sort finds depends on the sort and on the order the documents enter it.

The comparison is ranx 0.3's, so that the same input order gives ranx's result to the
document: ``x`` goes before ``y`` when the weight of the runs that rank ``x`` strictly above
``y`` is at least the weight of all the other runs (those that rank ``y`` above ``x`` and
those that rank neither). A run ranks ``x`` above ``y`` when it retrieved both and ``x`` at a
better position, or retrieved ``x`` and not ``y``; a run that retrieved neither votes against
the document compared first, so the comparison is not antisymmetric for such pairs. The sort
is Python's (a stable merge sort), and the documents enter it in doc id descending order
(bytewise): the project's tie order. ranx lets them enter in the order of a Python ``set`` of
strings, which changes with the string hash seed of each process (``PYTHONHASHSEED``), so
ranx's Condorcet fusion changes from one process to the next wherever the votes cycle or
tie; given the same entry order, the two agree (``tests/parity/test_fusion_ranx.py``).

The fused score of the document at position ``i`` (from 0) of a query's order is ``c - i``,
``c`` the number of documents any run retrieved for the query: no two documents tie.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Final

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import polars as pl

__all__ = ["condorcet_order", "condorcet_scores"]

_UNRANKED: Final = sys.maxsize
"""The position of a document a run did not retrieve: below every position it has (ranx
uses 1,000,000)."""


def _voter(weights: Sequence[float]) -> Callable[[tuple[int, ...]], Any]:
    """A sort key whose ``<`` is the vote: ``a < b`` when the runs ranking ``a`` above ``b``
    weigh at least as much as the others (summed in the order of the runs, as ranx sums)."""
    n = len(weights)
    unit = all(w == 1.0 for w in weights)
    runs = tuple(weights)

    class Key:
        __slots__ = ("pos",)

        def __init__(self, pos: tuple[int, ...]) -> None:
            self.pos = pos

        def __lt__(self, other: Key) -> bool:
            if unit:  # whole votes: exact integers
                ahead = sum(1 for p, q in zip(self.pos, other.pos, strict=True) if p < q)
                return ahead >= n - ahead
            ahead_w = 0.0
            rest_w = 0.0
            for p, q, w in zip(self.pos, other.pos, runs, strict=True):
                if p < q:
                    ahead_w += w
                else:
                    rest_w += w
            return ahead_w >= rest_w

    return Key


def condorcet_order(positions: Sequence[tuple[int, ...]], weights: Sequence[float]) -> list[int]:
    """The Condorcet order of one query's documents.

    Parameters
    ----------
    positions:
        One tuple per document, in the order they enter the sort: its 0-based position in
        each run's ranking, or ``sys.maxsize`` where the run did not retrieve it.
    weights:
        One weight per run (1 each for ``condorcet``).

    Returns
    -------
    list[int]
        Indices into ``positions``, the first document first.

    Examples
    --------
    Three runs over documents 0, 1, 2: two runs put 1 above 0, all put 2 last.

    >>> condorcet_order([(0, 1, 1), (1, 0, 0), (2, 2, 2)], [1.0, 1.0, 1.0])
    [1, 0, 2]
    """
    key = _voter(weights)
    return sorted(range(len(positions)), key=lambda i: key(positions[i]))


def condorcet_scores(table: pl.DataFrame, weights: Sequence[float]) -> pl.DataFrame:
    """``qc, doc_id, score``: every query's documents in Condorcet order, scored ``c - i``
    (``c`` documents, ``i`` the 0-based position), from the stacked runs' ``table``
    (:class:`~cranfield.fusion.fuse.FusionInputs`: ``qc`` a row's query code, ``r`` its run,
    ``rank`` its position in the run's ranking)."""
    import polars as pl

    n_runs = len(weights)
    table = (
        table.select("qc", "doc_id", "r", "rank")
        .group_by(["qc", "doc_id"])
        .agg(pl.col("r"), pl.col("rank"))
        .sort(["qc", "doc_id"], descending=[False, True])
    )
    qcs = table.get_column("qc").to_numpy()
    docs = table.get_column("doc_id").to_list()
    run_lists = table.get_column("r").to_list()
    rank_lists = table.get_column("rank").to_list()
    bounds = np.flatnonzero(np.diff(qcs)) + 1
    starts = np.concatenate(([0], bounds)).tolist()
    ends = [*bounds.tolist(), len(docs)]
    out_q: list[int] = []
    out_d: list[str] = []
    out_s: list[float] = []
    for start, end in zip(starts, ends, strict=True):
        positions = []
        for rs, ks in zip(run_lists[start:end], rank_lists[start:end], strict=True):
            pos = [_UNRANKED] * n_runs
            for r, k in zip(rs, ks, strict=True):
                pos[r] = k
            positions.append(tuple(pos))
        order = condorcet_order(positions, weights)
        c = float(end - start)
        out_q.extend([int(qcs[start])] * (end - start))
        out_d.extend(docs[start + i] for i in order)
        out_s.extend(c - i for i in range(end - start))
    return pl.DataFrame(
        {"qc": out_q, "doc_id": out_d, "score": out_s},
        schema={"qc": pl.Int64, "doc_id": pl.String, "score": pl.Float64},
    )
