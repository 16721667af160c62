"""Clean, small TREC text split into numpy columns without polars (start-up-bound commands).

Importing polars costs a command more than evaluating a 200,000-line run does. A file of at
most :data:`MAX_BYTES` that is *clean* is therefore split here with numpy alone, into
:mod:`cranfield.data.columns`; anything else returns ``None``, and the caller reads the
file with :mod:`cranfield.io.trec`, whose policy (and error messages) stay the only ones.
Clean means every point below; a file that is not clean is not wrong, only read the
careful way:

* a regular file of 1 to :data:`MAX_BYTES` bytes, or a gzip, bzip2, xz or zstd file of at
  most an eighth of that which decompresses to at most :data:`MAX_BYTES`; valid UTF-8
  without a byte-order mark or a control character other than blanks and newlines;
* fields separated by runs of blanks (space, tab, CR, VT, FF) as in :mod:`cranfield.io.trec`,
  blanks allowed around a line's fields and blank lines allowed, no comment line, the last
  line ending in a newline or not (files separated by single spaces or single tabs, the
  common case, are split fastest);
* exactly 4 fields per qrels line, 6 per run line, none longer than :data:`MAX_FIELD` bytes,
  no line longer than :func:`~cranfield.io.limits.max_line_bytes`;
* relevance ``[+-]?[0-9]{1,18}``; score ``[+-]?`` digits with at most one ``.`` and at least
  one digit, then perhaps an exponent ``[eE][+-]?[0-9]{1,3}`` (no ``inf`` or ``nan``).

Read this way, a clean file gives the same ids, numbers and tag as :mod:`cranfield.io.trec`
(numbers are parsed with correct rounding by both). Repeated pairs are found when ranking
(:func:`cranfield.data.ranking.rank_columns` returns ``None`` for them, and the careful path
reports them).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from cranfield.data.columns import QrelsColumns, RunColumns
from cranfield.errors import InputError
from cranfield.io.limits import max_line_bytes
from cranfield.io.source import MAGIC_BYTES, compression, decompressed, read_bytes

if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from numpy.typing import NDArray

    _Offsets: TypeAlias = NDArray[np.signedinteger[Any]]
    """Offsets into a text: ``int64`` as found, ``int32`` as kept for a column."""

__all__ = [
    "MAX_BYTES",
    "MAX_FIELD",
    "fits",
    "padded",
    "qrels_columns",
    "read_qrels_columns",
    "read_run_columns",
    "run_columns",
    "text_of",
]

# Beyond about this size polars' parallel reader wins back its import time (BENCHMARKS.md,
# "where the time goes on trecdl", has the measurements on 2 cores).
MAX_BYTES = 16 << 20
MAX_FIELD = 256

_TAB, _NEWLINE, _CR, _SPACE = 9, 10, 13, 32
_DOT, _HASH, _PLUS, _MINUS, _ZERO, _E = 46, 35, 43, 45, 48, 101
_U64 = np.uint64


def fits(path: str | Path) -> bool:
    """Whether ``path`` is a regular file of 1 to :data:`MAX_BYTES` bytes (a cheap first test,
    before anything is read)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return False
    return str(path) != "-" and stat.S_ISREG(info.st_mode) and 0 < info.st_size <= MAX_BYTES


def read_run_columns(path: str | Path) -> RunColumns | None:
    """The columns of a clean run file (see the module notes), or ``None``.

    Deprecated (CHANGELOG.md): files are opened in one place; use
    ``cranfield.io.inputs.open_run(path).columns()``.
    """
    from cranfield._deprecation import warn_renamed

    warn_renamed("read_run_columns(path)", "open_run(path).columns() (cranfield.io.inputs)")
    return run_columns(_text_read(path))


def padded(size: int) -> NDArray[np.uint8]:
    """A buffer for a file of ``size`` bytes, with room for the padding the splitting needs:
    read the file into ``buffer[:size]``, then give it to :func:`run_columns` or
    :func:`qrels_columns` with :func:`text_of`."""
    return np.zeros(size + 1 + MAX_FIELD, dtype=np.uint8)


def text_of(buffer: NDArray[np.uint8], size: int, name: str) -> NDArray[np.uint8] | None:
    """The text of a file of ``size`` bytes read into ``buffer`` (:func:`padded`),
    decompressed if need be, padded as the splitting needs; ``None`` if it is not a small
    UTF-8 file without a byte-order mark (see the module notes)."""
    if not 0 < size <= MAX_BYTES:
        return None
    head = buffer[:MAGIC_BYTES].tobytes()
    if compression(head) is not None:
        unpacked = _unpacked(buffer[:size], name)
        if unpacked is None:
            return None
        buffer, size = unpacked, unpacked.size - 1 - MAX_FIELD
        head = buffer[:3].tobytes()
    if head.startswith(b"\xef\xbb\xbf"):
        return None
    text = buffer[:size]
    if text.max() >= 0x80:  # a reduction: no mask as large as the file (its pages are dear)
        try:
            text.tobytes().decode("utf-8")
        except UnicodeDecodeError:
            return None
    buffer[size] = _NEWLINE
    return buffer


def run_columns(buffer: NDArray[np.uint8] | None) -> RunColumns | None:
    """The columns of a clean run's text (:func:`text_of`), or ``None``."""
    fields = None if buffer is None else _fields(buffer, 6)
    if fields is None:
        return None
    text = fields.text
    starts, ends = fields.column(5)
    tag = text[starts[-1] : ends[-1]].tobytes().decode()
    spans = _spans(fields, (2, 0, 4))  # read from the last: score, query, document
    del fields, starts, ends
    score = _number(text, *spans.pop(), integer=False)
    query_id = _ids(text, *spans.pop())
    doc_id = _ids(text, *spans.pop())
    if score is None or query_id is None or doc_id is None:
        return None
    return RunColumns(query_id, doc_id, score.astype(np.float64, copy=False), tag)


def _spans(fields: _Fields, columns: tuple[int, ...]) -> list[tuple[NDArray[np.int32], ...]]:
    """The start and end offsets of these columns of ``fields``, each an array of its own
    (``int32``: a text is at most :data:`MAX_BYTES`), so that the offsets of every field (8
    bytes a field of the file) can be let go before the columns are read, and each column's
    once it is read: the split's peak is the process's peak, and fresh pages cost more than
    the work (BENCHMARKS.md, issue 29)."""
    return [tuple(x.astype(np.int32) for x in fields.column(k)) for k in columns]


def read_qrels_columns(path: str | Path) -> QrelsColumns | None:
    """The columns of a clean qrels file (see the module notes), or ``None``.

    Deprecated (CHANGELOG.md): files are opened in one place; use
    ``cranfield.io.inputs.open_qrels(path).columns()``.
    """
    from cranfield._deprecation import warn_renamed

    warn_renamed("read_qrels_columns(path)", "open_qrels(path).columns() (cranfield.io.inputs)")
    return qrels_columns(_text_read(path))


def _text_read(path: str | Path) -> NDArray[np.uint8] | None:
    """A small regular file's text read by the one opener (:func:`read_bytes`), padded as
    :func:`text_of` gives it; ``None`` for any other file (the deprecated readers)."""
    if not fits(path):
        return None
    try:
        data = read_bytes(path, lines=False)
    except InputError:
        return None
    if not 0 < len(data) <= MAX_BYTES:
        return None
    buffer = padded(len(data))
    buffer[: len(data)] = np.frombuffer(data, dtype=np.uint8)
    return text_of(buffer, len(data), str(path))


def qrels_columns(buffer: NDArray[np.uint8] | None) -> QrelsColumns | None:
    """The columns of clean qrels' text (:func:`text_of`), or ``None``."""
    fields = None if buffer is None else _fields(buffer, 4)
    if fields is None:
        return None
    text = fields.text
    relevance = _number(text, *fields.column(3), integer=True)
    query_id = _ids(text, *fields.column(0))
    doc_id = _ids(text, *fields.column(2))
    if relevance is None or query_id is None or doc_id is None:
        return None
    return QrelsColumns(query_id, doc_id, relevance.astype(np.int64, copy=False))


def _unpacked(packed: NDArray[np.uint8], name: str) -> NDArray[np.uint8] | None:
    """The decompressed text of a compressed file's bytes, padded as by :func:`_small_text`;
    ``None`` if it is larger than :data:`MAX_BYTES` compressed by 8 or decompressed, or is
    not a valid stream (the careful reader then says why)."""
    if packed.size > MAX_BYTES // 8:
        return None
    try:
        data = decompressed(packed.tobytes(), name, limit=MAX_BYTES)
    except InputError:  # too large or not valid (the careful reader says why)
        return None
    if not data:
        return None
    buffer = np.zeros(len(data) + 1 + MAX_FIELD, dtype=np.uint8)
    buffer[: len(data)] = np.frombuffer(data, dtype=np.uint8)
    return buffer


class _Fields(NamedTuple):
    """Where the fields of a clean file are: a row per line, a column per field."""

    text: NDArray[np.uint8]  # the file's text, padded (see _small_text)
    ends: NDArray[np.int64]  # offset of the byte after each field
    # Offset of each field's first byte; None when every field starts right after the
    # separator that ends the field before it (single separators).
    starts: NDArray[np.int64] | None

    def column(self, k: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The start and end offsets of field ``k`` of every line."""
        if self.starts is not None:
            return self.starts[:, k], self.ends[:, k]
        if k:
            return self.ends[:, k - 1] + 1, self.ends[:, k]
        starts = np.empty(self.ends.shape[0], dtype=np.int64)
        starts[0] = 0
        np.add(self.ends[:-1, -1], 1, out=starts[1:])
        return starts, self.ends[:, 0]


def _fields(buffer: NDArray[np.uint8], count: int) -> _Fields | None:
    """The fields of a clean text (:func:`text_of`) of ``count`` fields a line; ``None`` if
    it is not clean."""
    end = buffer.size - MAX_FIELD
    if buffer[end - 2] == _NEWLINE:
        end -= 1  # the file's own last newline ends its last line
    text = buffer[:end]
    ends = _single_separated(text, count)
    fields = _Fields(buffer, ends, None) if ends is not None else None
    if fields is None:
        found = _blank_separated(text, count)
        if found is None:
            return None
        fields = _Fields(buffer, found[1], found[0])
    if (text[fields.column(0)[0]] == _HASH).any():
        return None  # a comment line
    return fields


def _single_separated(text: NDArray[np.uint8], count: int) -> NDArray[np.int64] | None:
    """The field ends of text whose fields are separated by single spaces or single tabs
    and whose lines hold exactly ``count`` fields (the common file, read fastest)."""
    # Every byte up to 32 ends a field: a separator or newline of such a file, or else
    # (NUL, CR, VT, FF, a control character, a second blank) a byte it does not have.
    gap = text <= _SPACE
    gaps = np.flatnonzero(gap)
    if gaps.size % count or gaps[0] == 0 or _adjacent(gap):
        return None  # not a whole number of lines, or an empty field (two gaps in a row)
    del gap  # (a byte per byte of the file: let go before what follows)
    kinds = text[gaps].reshape(-1, count)
    sep = kinds[0, 0]
    if sep not in (_TAB, _SPACE) or not (kinds[:, :-1] == sep).all():
        return None
    if not (kinds[:, -1] == _NEWLINE).all():
        return None
    ends: NDArray[np.int64] = gaps.reshape(-1, count)
    return ends if _short_lines(ends[:, -1]) else None


def _adjacent(flags: NDArray[np.bool_]) -> bool:
    """Whether two neighbouring flags are both set, looked at :data:`_CHUNK` at a time (a
    mask of them all would be as large as the file: fresh pages)."""
    both = np.empty(min(_CHUNK, flags.size), dtype=np.bool_)
    for start in range(0, flags.size - 1, _CHUNK):
        right = flags[start + 1 : start + 1 + _CHUNK]
        if np.logical_and(flags[start : start + right.size], right, out=both[: right.size]).any():
            return True
    return False


_CHUNK = 1 << 18
"""How many flags :func:`_adjacent` looks at a time (their mask stays in the cache)."""


def _blank_separated(
    text: NDArray[np.uint8], count: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]] | None:
    """The field starts and ends of text whose fields are separated by runs of blanks
    (space, tab, CR, VT, FF), with blanks allowed around a line's fields and blank lines
    between lines of exactly ``count`` fields."""
    gap = text <= _SPACE
    controls = text[gap]
    if ((controls < _TAB) | ((controls > _CR) & (controls != _SPACE))).any():
        return None  # a control character that is not a blank: part of a field
    flips = np.flatnonzero(gap[1:] != gap[:-1]) + 1
    if not gap[0]:
        flips = np.concatenate(([0], flips))
    # The text ends with a newline: fields start and end in turn.
    starts, ends = flips[0::2], flips[1::2]
    if starts.size == 0:
        return None
    newlines = np.flatnonzero(text == _NEWLINE)
    per_line = np.diff(np.searchsorted(starts, newlines), prepend=0)
    if not ((per_line == count) | (per_line == 0)).all() or not _short_lines(newlines):
        return None
    return starts.reshape(-1, count), ends.reshape(-1, count)


def _short_lines(newlines: NDArray[np.int64]) -> bool:
    """Whether no line of a text whose line ends are at ``newlines`` is longer than the
    longest line allowed (:func:`~cranfield.io.limits.max_line_bytes`)."""
    lengths = np.diff(newlines, prepend=-1) - 1
    return int(lengths.max(initial=0)) <= max_line_bytes()


def _padded(a: NDArray[np.uint8], starts: _Offsets, ends: _Offsets) -> NDArray[np.uint8] | None:
    """The fields as rows of bytes, NUL-padded to a width that is a multiple of 8."""
    lengths = ends - starts
    longest = int(lengths.max())
    if longest > MAX_FIELD:
        return None
    count = -(-longest // 8)
    # Each field's words put together from the two aligned words it straddles (the text is
    # padded past its end): fewer steps than gathering the bytes; then the bytes past the
    # field's end cleared (little-endian: a word's first bytes are its low ones).
    # In place where it can be: each array of the column is a page per 512 rows, and fresh
    # pages cost more than the work (BENCHMARKS.md, issue 29).
    aligned = a[: a.size // 8 * 8].view(np.uint64)
    at = starts >> 3
    raw = []  # the count + 1 aligned words each field straddles
    for _ in range(count + 1):
        raw.append(aligned.take(at))
        at += 1
    del at
    down = (starts & 7).astype(np.uint64)
    down <<= _U64(3)
    up = _U64(64) - down  # a shift by 64 gives 0 in numpy
    words = []
    for j in range(count):
        # raw[j] is this field's own from here on; raw[j + 1] is shifted into a copy, as it
        # is the next word's too, but for the last.
        high = raw[j + 1]
        word = raw[j]
        word >>= down
        word |= np.left_shift(high, up, out=high if j == count - 1 else None)
        word &= _LOW_BYTES.take(lengths if count == 1 else np.clip(lengths - 8 * j, 0, 8))
        words.append(word)
    rows = words[0][:, None] if count == 1 else np.stack(words, axis=1)
    return rows.view(np.uint8)


_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)


def _per_row(flags: NDArray[np.bool_]) -> NDArray[np.uint64]:
    """How many flags are set in each row (rows of a width that is a multiple of 8)."""
    counts = np.zeros(flags.shape[0], dtype=np.uint64)
    # The bytes of a word of flags (0 or 1 each) summed by one multiply: the top byte.
    for word in flags.view(np.uint64).T:
        counts += (word * _ONES) >> np.uint64(56)
    return counts


_ONES = np.uint64(0x0101010101010101)


def _ids(a: NDArray[np.uint8], starts: _Offsets, ends: _Offsets) -> NDArray[np.bytes_] | None:
    """One column of ids as a fixed-width ``bytes`` array (see :mod:`cranfield.data.columns`)."""
    rows = _padded(a, starts, ends)
    if rows is None:
        return None
    ids: NDArray[np.bytes_] = rows.view(f"S{rows.shape[1]}").reshape(-1)
    return ids


def _number(
    a: NDArray[np.uint8], starts: _Offsets, ends: _Offsets, *, integer: bool
) -> NDArray[np.int64] | NDArray[np.float64] | None:
    """One column of numbers checked against the clean grammar, as ``int64`` (``integer``)
    or ``float64`` values; ``None`` if a field is not a clean number."""
    rows = _padded(a, starts, ends)
    if rows is None:
        return None
    if rows.shape[1] == 8:
        short = _short_numbers(rows, integer=integer)
        if short is not None:
            return short
    digit = (rows - _ZERO) <= 9  # uint8 arithmetic: bytes below '0' wrap around
    sign = (rows == _PLUS) | (rows == _MINUS)
    exponent = None if integer else (rows | 0x20) == _E  # 'e' or 'E'
    if exponent is not None and exponent.any():
        text = _with_exponents(rows, digit, sign, exponent)
        if text is None:
            return None
        with np.errstate(over="ignore", under="ignore"):  # 1e400 is inf, 1e-400 is 0
            floats: NDArray[np.float64] = text.astype(np.float64)
        return floats
    dot = rows == _DOT
    allowed = digit | (rows == 0)  # NUL: the padding
    if not integer:
        allowed |= dot
    allowed[:, 0] |= sign[:, 0]
    # Only allowed bytes, a sign only first, one digit at least, one dot at most.
    if not allowed.all() or sign[:, 1:].any():
        return None
    digits = _per_row(digit)
    if digits.min() < 1 or (integer and digits.max() > 18):
        return None
    if not integer and _per_row(dot).max() > 1:
        return None
    return _values(rows, digit, dot, digits, integer=integer)


def _values(
    rows: NDArray[np.uint8],
    digit: NDArray[np.bool_],
    dot: NDArray[np.bool_],
    digits: NDArray[np.uint64],
    *,
    integer: bool,
) -> NDArray[np.int64] | NDArray[np.float64]:
    """The values of clean numbers without an exponent (rows of :func:`_padded`), exactly
    as a correctly rounded parser gives them.

    The digits of a row, read as one integer ``m`` (the dot left out), with ``k`` digits
    after the dot: the number is ``m / 10**k``. Where ``m <= 2**53`` and ``k <= 22`` both
    are exact doubles, so one IEEE division, itself correctly rounded, gives the correctly
    rounded value (Clinger's fast path, "How to read floating point numbers accurately",
    PLDI 1990). Other rows (17 significant digits and more, most of them) go through
    numpy's own parser, which is correctly rounded too. Integers (18 digits at most) are
    ``m`` with its sign.
    """
    columns = np.ascontiguousarray(rows.T)  # a row of bytes per column: contiguous steps
    m = np.zeros(rows.shape[0], dtype=np.uint64)
    step = np.empty_like(m)
    after_dot = np.zeros(rows.shape[0], dtype=np.int64)
    seen_dot = np.zeros(rows.shape[0], dtype=np.bool_)
    for j, column in enumerate(columns):
        is_digit = digit[:, j]
        np.multiply(m, np.uint64(10), out=step)  # wraps past 19 digits: those rows are redone
        step += column - np.uint8(_ZERO)
        np.copyto(m, step, where=is_digit)
        if not integer:
            if j:
                after_dot += is_digit & seen_dot
            seen_dot |= dot[:, j]
    negative = rows[:, 0] == _MINUS
    if integer:  # 18 digits at most (the grammar): m fits in int64
        whole = m.astype(np.int64)
        np.negative(whole, out=whole, where=negative)
        return whole
    exact = (m <= np.uint64(1 << 53)) & (after_dot <= 22) & (digits <= 19)
    values = m.astype(np.float64)
    values /= _POWERS_OF_TEN[np.minimum(after_dot, 22)]
    np.negative(values, out=values, where=negative)  # -0 stays -0.0, as the parser has it
    if not exact.all():
        redo = np.flatnonzero(~exact)
        text = rows[redo].view(f"S{rows.shape[1]}").reshape(-1)
        values[redo] = text.astype(np.float64)
    return values


_POWERS_OF_TEN = np.array([float(10**k) for k in range(23)])  # each exact in a double


def _short_numbers(
    rows: NDArray[np.uint8], *, integer: bool
) -> NDArray[np.int64] | NDArray[np.float64] | None:
    """:func:`_values` for numbers of at most 8 bytes without an exponent (rows of
    :func:`_padded` 8 bytes wide: the usual score ``43.724``, relevance ``1``), each row
    worked on as one 64-bit word; ``None`` if a row is anything else, or has a dot when
    ``integer`` (:func:`_number` then reads them its way).

    Each row's digits, dot and other bytes become 8-bit masks (a byte per flag, gathered by
    one multiplication); the grammar is checked on them; the dot and the sign are taken out
    of the word and its 1 to 8 digits summed into ``m`` by three multiplications (the
    "eight digits at once" of simdjson and fast_float: Lemire, "Number parsing at a
    gigabyte per second", Software: Practice and Experience 51(8), 2021). With at most 8
    digits ``m`` and ``10**k`` are exact doubles, so ``m / 10**k`` is correctly rounded
    (Clinger's fast path, as in :func:`_values`): the same doubles, bit for bit. An integer
    is ``m`` with its sign.
    """
    digit = (rows - _ZERO) <= 9  # uint8 arithmetic: bytes below '0' wrap around
    digits_at = _bits(digit)
    dot_at = _bits(rows == _DOT)
    other = _bits(rows != 0) & ~digits_at & ~dot_at
    first = rows[:, 0]
    negative = first == _MINUS
    signed = negative | (first == _PLUS)
    before_dot = dot_at - np.uint8(1)  # the bits below the dot (all 8 if there is none)
    if not ((other == 0) | ((other == 1) & signed)).all() or (dot_at & before_dot).any():
        return None  # a byte that is not a digit, a dot or a leading sign; or two dots
    if integer and dot_at.any():
        return None
    digits = _popcount(digits_at)
    if digits.min() < 1:
        return None
    # In place, with one array beside the words (each a page per 512 rows: BENCHMARKS.md).
    words = digit.view(np.uint64).reshape(-1) * _U64(0x30)
    del digit
    np.subtract(rows.view(np.uint64).reshape(-1), words, out=words)
    keep = _spread(before_dot)  # take the dot out: the bytes above it move down one
    beside = words >> _U64(8)
    words &= keep
    beside &= np.invert(keep, out=keep)
    words |= beside
    del keep
    beside[:] = signed
    beside <<= _U64(3)
    words >>= beside
    # The digits (first digit in the lowest byte) moved to the top: zeros lead.
    beside[:] = digits
    beside <<= _U64(3)
    np.subtract(_U64(64), beside, out=beside)
    words <<= beside
    np.right_shift(words, _U64(8), out=beside)
    words *= _U64(10)
    words += beside
    np.right_shift(words, _U64(16), out=beside)
    beside &= _U64(0x000000FF000000FF)
    beside *= _U64(1 + (10000 << 32))
    words &= _U64(0x000000FF000000FF)
    words *= _U64(100 + (1000000 << 32))
    words += beside
    words >>= _U64(32)
    del beside
    if integer:
        whole = words.astype(np.int64)
        np.negative(whole, out=whole, where=negative)
        return whole
    after_dot = digits - _popcount(digits_at & before_dot)
    values = words.astype(np.float64)
    values /= _POWERS_OF_TEN[after_dot]
    np.negative(values, out=values, where=negative)  # -0 stays -0.0, as the parser has it
    return values


def _bits(flags: NDArray[np.bool_]) -> NDArray[np.uint8]:
    """The 8 flags of each row of 8 as the bits of a byte (flag ``j``: bit ``j``)."""
    gathered = (flags.view(np.uint64).reshape(-1) * _U64(0x0102040810204080)) >> _U64(56)
    return gathered.astype(np.uint8)


def _spread(bits: NDArray[np.uint8]) -> NDArray[np.uint64]:
    """Each byte's 8 bits as a 64-bit word of bytes, ``0xFF`` where the bit is set."""
    words = bits.astype(np.uint64)
    words *= _U64(0x0101010101010101)
    words &= _U64(0x8040201008040201)
    words += _U64(0x7F7F7F7F7F7F7F7F)
    words &= _U64(0x8080808080808080)
    words >>= _U64(7)
    words *= _U64(0xFF)
    return words


def _popcount(bits: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """How many bits of each byte are set."""
    bits = bits - ((bits >> np.uint8(1)) & np.uint8(0x55))
    bits = (bits & np.uint8(0x33)) + ((bits >> np.uint8(2)) & np.uint8(0x33))
    return (bits + (bits >> np.uint8(4))) & np.uint8(0x0F)


def _with_exponents(
    rows: NDArray[np.uint8],
    digit: NDArray[np.bool_],
    sign: NDArray[np.bool_],
    exponent: NDArray[np.bool_],
) -> NDArray[np.bytes_] | None:
    """:func:`_number` for scores some of which have an exponent: ``[eE][+-]?[0-9]{1,3}``
    may follow the mantissa (three digits at most: over- and underflow stay clear)."""
    column = np.arange(rows.shape[1])
    if _per_row(exponent).max() > 1:
        return None
    at = np.where(exponent.any(axis=1), exponent.argmax(axis=1), rows.shape[1])[:, None]
    mantissa, power = column < at, column > at
    dot = rows == _DOT
    allowed = digit | dot | sign | exponent | (rows == 0)
    signed_where = (column == 0) | (column == at + 1)
    if not allowed.all() or (sign & ~signed_where).any() or (dot & power).any():
        return None
    if _per_row(dot).max() > 1 or _per_row(digit & mantissa).min() < 1:
        return None
    exponent_digits = _per_row(digit & power)
    has_exponent = at[:, 0] < rows.shape[1]
    if (exponent_digits[has_exponent] < 1).any() or exponent_digits.max() > 3:
        return None
    numbers: NDArray[np.bytes_] = rows.view(f"S{rows.shape[1]}").reshape(-1)
    return numbers
