"""Qrels and runs as bare numpy columns, for the start-up-bound path that never imports polars.

A command evaluating a small run spends most of its time importing polars (0.15-0.3 s,
more than trec_eval's whole run on 200,000 lines). Clean TREC text small enough to be read
in one go is split by :mod:`cranfield.io.trec_numpy` into these columns instead, and
:func:`cranfield.data.ranking.rank_columns` ranks them by the same rules as
:func:`~cranfield.data.ranking.rank`.

Ids are fixed-width ``bytes`` arrays (numpy ``S`` dtype) of UTF-8 text without NUL bytes,
padded with NULs to a multiple of 8 bytes: numpy compares them bytewise, which is C
``strcmp`` order, and :func:`id_hashes` reads them 8 bytes at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray


@dataclass(frozen=True, eq=False)
class RunColumns:
    """One run: a row per line, in file order (see :class:`~cranfield.data.run.Run`)."""

    query_id: NDArray[np.bytes_]
    doc_id: NDArray[np.bytes_]
    score: NDArray[np.float64]
    tag: str  # of the last line


@dataclass(frozen=True, eq=False)
class QrelsColumns:
    """Judgments: a row per line, in file order (see :class:`~cranfield.data.qrels.Qrels`)."""

    query_id: NDArray[np.bytes_]
    doc_id: NDArray[np.bytes_]
    relevance: NDArray[np.int64]


def distinct(ids: NDArray[np.bytes_]) -> tuple[NDArray[np.bytes_], NDArray[np.intp]]:
    """The distinct ids in bytewise order, and the index of each row's id among them."""
    # With return_inverse, np.unique also leaves numpy.ma unimported (8 ms of start-up).
    values, inverse = np.unique(ids, return_inverse=True)
    return values, inverse


def names(ids: NDArray[np.bytes_]) -> list[str]:
    """The distinct ids as text, in bytewise order."""
    return [value.decode() for value in distinct(ids)[0].tolist()]


MIX = np.uint64(0x9E3779B97F4A7C15)
"""An odd 64-bit constant (2**64 divided by the golden ratio) that spreads a number's bits
over a hash: multiplied into a group number before it is mixed with an id's hash."""


def id_hashes(ids: NDArray[np.bytes_]) -> NDArray[np.uint64]:
    """A 64-bit hash of each id: equal ids hash equal, whatever the width of their arrays;
    different ids rarely do.

    The ids' bytes are read as 64-bit words (their width is a multiple of 8) and folded
    with a xor, a multiply and a xor-shift per word. Words of padding alone are skipped (an
    id has no NUL, so only padding makes a zero word): an id hashes the same in a column of
    any width.
    """
    width = ids.dtype.itemsize
    words = np.ascontiguousarray(ids).view(np.uint64).reshape(ids.size, width // 8)
    hashes = np.zeros(ids.size, dtype=np.uint64)
    for j in range(words.shape[1]):
        word = words[:, j]
        folded = (hashes ^ word) * MIX
        folded ^= folded >> np.uint64(29)
        hashes = np.where(word != 0, folded, hashes)
    return hashes


def mixed_keys(group: NDArray[np.integer], hashes: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """One number per (group, id hash) pair: equal pairs give equal keys."""
    keys = group.astype(np.uint64)
    keys *= MIX
    keys ^= hashes
    return keys
