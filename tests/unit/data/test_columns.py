"""Bytes id columns sorted and compared 64-bit word at a time agree with numpy's bytes order."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.data.columns import bytewise_keys, changes, distinct

# Ids as the clean reader makes them: UTF-8 text without NUL, padded to a multiple of 8 bytes.
_ID = st.text(alphabet=st.characters(min_codepoint=1, max_codepoint=0x2FF), min_size=1).map(
    str.encode
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_ID, max_size=30), st.sampled_from([8, 16, 24]))
def test_distinct_ids_and_changes_are_numpys(ids: list[bytes], width: int) -> None:
    """Distinct ids and their inverse index, bytewise order and neighbour changes: the same
    as numpy's own on the bytes, for 8-byte ids (read as integers) and wider ones."""
    column = np.array([i for i in ids if len(i) <= width], dtype=f"S{width}")
    values, inverse = distinct(column)
    expected_values, expected_inverse = np.unique(column, return_inverse=True)
    assert values.dtype == column.dtype
    assert values.tolist() == expected_values.tolist()
    assert inverse.tolist() == expected_inverse.tolist()
    assert changes(column).tolist() == (column[1:] != column[:-1]).tolist()
    keys = bytewise_keys(column)
    if width == 8:
        assert keys is not None
        stable = np.argsort(column, kind="stable")
        assert np.argsort(keys, kind="stable").tolist() == stable.tolist()
    else:
        assert keys is None


def test_bytewise_keys_order_shorter_ids_first() -> None:
    """``b"ab"`` before ``b"ab0"`` before ``b"b"``: the padding NUL is the smallest byte."""
    column = np.array([b"b", b"ab0", b"ab", b"\xc3\xa9", b"zzzzzzzz"], dtype="S8")
    keys = bytewise_keys(column)
    assert keys is not None
    assert column[np.argsort(keys)].tolist() == [b"ab", b"ab0", b"b", b"zzzzzzzz", b"\xc3\xa9"]
