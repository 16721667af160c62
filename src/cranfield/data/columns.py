"""Qrels and runs as bare numpy columns, for the start-up-bound path that never imports polars.

A command evaluating a small run spends most of its time importing polars (0.15-0.3 s,
more than trec_eval's whole run on 200,000 lines). Clean TREC text small enough to be read
in one go is split by :mod:`cranfield.io.trec_numpy` into these columns instead, and
:func:`cranfield.data.ranking.rank_columns` ranks them by the same rules as
:func:`~cranfield.data.ranking.rank`.

Ids are fixed-width ``bytes`` arrays (numpy ``S`` dtype) of UTF-8 text without NUL bytes,
padded with NULs to a multiple of 8 bytes: numpy compares them bytewise, which is C
``strcmp`` order, and :func:`~cranfield.data.row_index.id_hashes` reads them 8 bytes at a
time.
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
    keys = bytewise_keys(ids)
    # With return_inverse, np.unique also leaves numpy.ma unimported (start-up time).
    if keys is None:
        values, inverse = np.unique(ids, return_inverse=True)
        return values, inverse
    distinct_keys, inverse = np.unique(keys, return_inverse=True)
    return distinct_keys.astype(_BIG_ENDIAN).view(ids.dtype), inverse


_BIG_ENDIAN = np.dtype(">u8")


def bytewise_keys(ids: NDArray[np.bytes_]) -> NDArray[np.uint64] | None:
    """For ids of 8 bytes (ids up to 8 bytes long, the usual query ids): one integer per
    id, ordered and equal as the ids are bytewise (their bytes read big-endian); sorting
    them is several times faster than sorting the ids. ``None`` for wider ids."""
    if ids.dtype.itemsize != 8:
        return None
    keys: NDArray[np.uint64] = np.ascontiguousarray(ids).view(_BIG_ENDIAN).astype(np.uint64)
    return keys


def changes(ids: NDArray[np.bytes_]) -> NDArray[np.bool_]:
    """``ids[1:] != ids[:-1]``, compared a 64-bit word at a time (ids are padded with NULs
    to a multiple of 8 bytes, so equal ids have equal words)."""
    width = ids.dtype.itemsize
    if width % 8:
        return np.asarray(ids[1:] != ids[:-1])
    words = np.ascontiguousarray(ids).view(np.uint64)
    if width == 8:
        return np.asarray(words[1:] != words[:-1])
    rows = words.reshape(ids.size, width // 8)
    differ: NDArray[np.bool_] = (rows[1:] != rows[:-1]).any(axis=1)
    return differ


def names(ids: NDArray[np.bytes_]) -> list[str]:
    """The distinct ids as text, in bytewise order."""
    return [value.decode() for value in distinct(ids)[0].tolist()]
