"""Indexes of the rows of qrels and runs, worked out once from their columns.

Three kinds, each computed by whoever first needs it (a reader that learns it while reading
hands it to :meth:`Run.indexed <cranfield.data.run.Run.indexed>`):

* the **query stretches** of a run: its query column run-length encoded (:func:`stretches`);
* **keys of ids**: hashes that find equal doc ids, or equal (query, doc id) pairs, with
  numpy alone (:func:`doc_keys`, :func:`id_hashes`, :func:`mixed_keys`); equal ids always
  give equal keys, different ones rarely do, so a key match is confirmed on the ids;
* the **tie order** of a run (:class:`TieOrder`): where trec_eval's sort moves the rows of
  each stretch, computed by :func:`cranfield.data.ranking.tie_order` (the rule lives there).

Only numpy is needed here (the polars columns are handed in), so the small-file path that
never imports polars uses this module too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
    from numpy.typing import NDArray

__all__ = [
    "MIX",
    "TieOrder",
    "block_rows",
    "doc_keys",
    "hashed_keys",
    "id_hashes",
    "mixed_keys",
    "pairs_differ_by_hash",
    "stretches",
]


def block_rows(
    starts: NDArray[np.int64], lengths: NDArray[np.int64]
) -> NDArray[np.signedinteger[Any]]:
    """Rows ``starts[b] .. starts[b] + lengths[b] - 1`` of each block ``b`` (of one row at
    least), concatenated: the rows of some stretches of a table, in the blocks' order.

    Built as steps of one with a jump at each block's start, summed in place, so no
    temporary as long as the result is needed; ``int32`` (half the memory) when every row
    fits, as it does below 2**31 rows.
    """
    size = int(lengths.sum())
    if size == 0:
        return np.zeros(0, dtype=np.int64)
    fits = int((starts + lengths).max()) <= 2**31
    rows: NDArray[np.signedinteger[Any]] = np.ones(size, dtype=np.int32 if fits else np.int64)
    rows[0] = starts[0]
    rows[np.cumsum(lengths[:-1])] = starts[1:] - (starts[:-1] + lengths[:-1] - 1)
    np.cumsum(rows, out=rows)
    return rows


def pairs_differ_by_hash(frame: pl.DataFrame) -> bool:
    """Whether the (query_id, doc_id) pairs of ``frame`` all have different hashes, which
    proves them all different; ``False`` says only that an exact check is needed.

    The two columns are hashed separately and mixed (about twice as fast as hashing a struct),
    so the common case, no repeat, costs one hash pass.
    """
    import polars as pl

    mixed = pl.col("query_id").hash() * int(MIX) ^ pl.col("doc_id").hash()
    return bool(frame.select(mixed.n_unique()).item() == frame.height)


def stretches(column: pl.Series) -> tuple[list[str], NDArray[np.int64]]:
    """Run-length encoding of a string column: the value of each stretch and its length."""
    runs = column.rle()
    return runs.struct.field("value").to_list(), runs.struct.field("len").to_numpy().astype(
        np.int64
    )


def doc_keys(doc_id: pl.Series) -> NDArray[np.uint32]:
    """The low 32 bits of polars' hash of each doc id: equal ids give equal keys, in any
    series and any process; different ids rarely do."""
    return hashed_keys(doc_id.hash().to_numpy())


def hashed_keys(hashes: NDArray[np.uint64]) -> NDArray[np.uint32]:
    """:func:`doc_keys` from hashes already computed with ``Series.hash()``."""
    return hashes.astype(np.uint32)  # the low 32 bits (unsigned casts wrap around)


MIX = np.uint64(0x9E3779B97F4A7C15)
"""An odd 64-bit constant (2**64 divided by the golden ratio) that spreads a number's bits
over a hash: multiplied into a group number before it is mixed with an id's hash."""


def id_hashes(ids: NDArray[np.bytes_]) -> NDArray[np.uint64]:
    """A 64-bit hash of each id of a bytes column (see :mod:`cranfield.data.columns`): equal
    ids hash equal, whatever the width of their arrays; different ids rarely do.

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


def mixed_keys(
    group: NDArray[np.integer],
    hashes: NDArray[np.uint64],
    lengths: NDArray[np.int64] | None = None,
) -> NDArray[np.uint64]:
    """One number per (group, id hash) pair: equal pairs give equal keys.

    ``group`` holds the group of each row of ``hashes``; or, with ``lengths``, the group
    of each stretch of ``lengths[k]`` consecutive rows (mixed before it is repeated, so
    that no other array of the rows' size is made).
    """
    keys = group.astype(np.uint64)
    keys *= MIX
    if lengths is not None:
        keys = np.repeat(keys, lengths)
    keys ^= hashes
    return keys


@dataclass(frozen=True, eq=False)
class TieOrder:
    """trec_eval's order inside each stretch of one query of a run, judgments aside.

    When ``descending`` (scores never increase inside any stretch of
    :attr:`~cranfield.data.run.Run.query_stretches`), trec_eval's order within a stretch is
    the file order except inside runs of equal scores, which go by doc id descending: row
    ``rows[k]`` of the frame goes to row ``positions[k]``. Otherwise both arrays are empty.
    """

    descending: bool
    positions: NDArray[np.int64]
    rows: NDArray[np.int64]
