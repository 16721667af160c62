"""Corrupt Parquet files (cranfield.io.columnar): each gives a one-line InputError naming the
file, or, where the corruption cannot be seen (a changed byte inside a data page of a file
without page checksums), a read that raises nothing else; never a panic, never an abort.

The corrupt files are made from small files written here with fixed options, by changing the
bytes of one field of the footer (Thrift compact protocol: a field header byte, then a
zigzag varint) or of a page; every helper checks that the bytes it changes occur exactly
where expected, and the tests check the effect with pyarrow's own reading of the footer.
"""

from __future__ import annotations

import io
import struct
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield.data.run import Run
from cranfield.errors import InputError
from cranfield.io import load_qrels, load_run
from cranfield.io.columnar import write_parquet

if TYPE_CHECKING:
    from collections.abc import Callable

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

GROUPS = (100, 101, 99)  # rows of the three row groups


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(delta: int, kind: int, value: int) -> bytes:
    """A Thrift compact field: header (id delta, type: 5 = i32, 6 = i64), zigzag varint."""
    return bytes([delta << 4 | kind]) + _varint((value << 1) ^ (value >> 63))


def _replaced(data: bytes, old: bytes, new: bytes, *, start: int = 0, last: bool = False) -> bytes:
    """``data`` with one occurrence of ``old`` after ``start`` (the only one, or the last) made
    ``new`` (of the same length, so that no offset moves)."""
    assert len(old) == len(new)
    found = data.count(old, start)
    assert found == 1 or (last and found > 1), f"{old!r} occurs {found} times"
    at = data.rfind(old, start) if last else data.find(old, start)
    return data[:at] + new + data[at + len(old) :]


def _plain_run(extra: dict[str, Any] | None = None) -> bytes:
    """A run of 300 rows in three row groups, uncompressed, plain, no page checksums."""
    n = sum(GROUPS)
    columns = {
        "query_id": [f"q{i % 7}" for i in range(n)],
        "doc_id": [f"d{i}" for i in range(n)],
        "score": [i + 0.25 for i in range(n)],
        **(extra or {}),
    }
    table = pa.table(columns)
    sink = io.BytesIO()
    with pq.ParquetWriter(
        sink, table.schema, compression="none", use_dictionary=False, data_page_version="1.0"
    ) as writer:
        start = 0
        for rows in GROUPS:
            writer.write_table(table.slice(start, rows))
            start += rows
    return sink.getvalue()


def _footer_start(data: bytes) -> int:
    return len(data) - 8 - int.from_bytes(data[-8:-4], "little")


def _put(tmp_path: Path, data: bytes, name: str = "run.parquet") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _one_line_error(read: Callable[[Path], object], path: Path) -> str:
    with pytest.raises(InputError) as info:
        read(path)
    _check_message(info.value, path)
    return str(info.value)


def _check_message(exc: InputError, path: Path) -> None:
    """One line that starts with the file (and, for a bad value, its row)."""
    assert exc.source == str(path)
    assert str(exc).startswith(f"{path}: " if exc.line is None else f"{path}:{exc.line}: ")
    assert "\n" not in str(exc)


def _read_or_error(path: Path) -> pl.DataFrame | InputError:
    try:
        return load_run(path).frame
    except InputError as exc:
        return exc


# --------------------------------------------------------------------------- the footer


def test_the_plain_file_reads(tmp_path: Path) -> None:
    run = load_run(_put(tmp_path, _plain_run()))
    assert run.frame.height == 300
    assert run.frame.get_column("score")[299] == 299.25


@pytest.mark.parametrize("cut", [1, 4, 8, 12, 100])
def test_a_truncated_footer(tmp_path: Path, cut: int) -> None:
    path = _put(tmp_path, _plain_run()[:-cut])
    assert "cannot read Parquet file" in _one_line_error(load_run, path)


@pytest.mark.parametrize("where", ["start", "end"])
def test_bad_magic_bytes(tmp_path: Path, where: str) -> None:
    data = _plain_run()
    data = b"PAR2" + data[4:] if where == "start" else data[:-4] + b"PAR2"
    message = _one_line_error(load_run, _put(tmp_path, data))
    assert "cannot read Parquet file" in message


def test_the_footer_counts_more_rows_than_its_row_groups(tmp_path: Path) -> None:
    data = _plain_run()
    # FileMetaData.num_rows: field 3 of the footer, right after the schema list (field 2).
    bad = _replaced(data, _field(1, 6, 300), _field(1, 6, 301), start=_footer_start(data))
    path = _put(tmp_path, bad)
    meta = pq.read_metadata(path)
    assert (meta.num_rows, [meta.row_group(g).num_rows for g in range(3)]) == (301, [*GROUPS])
    message = _one_line_error(load_run, path)
    assert message.endswith("its footer counts 301 rows, but its row groups hold 300")


def test_a_row_group_counts_more_rows_than_its_columns_hold(tmp_path: Path) -> None:
    data = _plain_run()
    # RowGroup.num_rows (field 3, after total_byte_size) follows the group's column chunks,
    # whose num_values carry the same number: the last occurrence is the row group's.
    bad = _replaced(
        data, _field(1, 6, 101), _field(1, 6, 102), start=_footer_start(data), last=True
    )
    path = _put(tmp_path, bad)
    assert pq.read_metadata(path).row_group(1).num_rows == 102
    message = _one_line_error(load_run, path)
    assert message.endswith("row group 2 of 3 holds 101 query_id values for 102 rows")


def test_a_column_chunk_beyond_the_end_of_the_file(tmp_path: Path) -> None:
    data = _plain_run()
    chunk = pq.read_metadata(io.BytesIO(data)).row_group(2).column(2)
    # ColumnMetaData.data_page_offset: field 9, after total_compressed_size (field 7).
    offset = chunk.data_page_offset
    bad = _replaced(
        data, _field(2, 6, offset), _field(2, 6, offset + 2000), start=_footer_start(data)
    )
    path = _put(tmp_path, bad)
    moved = pq.read_metadata(path).row_group(2).column(2)
    assert moved.data_page_offset + moved.total_compressed_size > len(bad)
    assert "cannot read Parquet file" in _one_line_error(load_run, path)


def _negative_page(data: bytes, column: int) -> bytes:
    """``data`` with the first data page of ``column`` (row group 1) counting -100 values."""
    start = pq.read_metadata(io.BytesIO(data)).row_group(0).column(column).data_page_offset
    # PageHeader field 5 (a struct after field 3) is the DataPageHeader; its field 1 is
    # num_values.
    good = b"\x2c" + _field(1, 5, GROUPS[0])
    at = data.index(good, start)
    assert at < start + 20  # in this page's header
    bad = b"\x2c" + _field(1, 5, -100)
    return data[:at] + bad + data[at + len(bad) :]


_EVALUATE = "import sys; from cranfield.cli.main import main; sys.exit(main(sys.argv[1:]))"


def test_a_page_counting_negative_values_is_an_error_not_an_abort(tmp_path: Path) -> None:
    # polars 2.1 aborts the whole process on this page (an allocation of 2**61 bytes);
    # cranfield decodes with pyarrow, which refuses it. In a subprocess, should that change.
    path = _put(tmp_path, _negative_page(_plain_run(), 1))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q0 0 d0 1\n")
    done = subprocess.run(
        [sys.executable, "-c", _EVALUATE, "evaluate", str(qrels), str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        f"cranfield evaluate: {path}: cannot read Parquet file "
        "(Invalid page header (negative number of values))\n"
    )


def test_only_the_needed_columns_are_decoded(tmp_path: Path) -> None:
    data = _plain_run({"junk": [f"x{i}" for i in range(300)]})
    bad = _replaced(data, b"x150", b"x\xff50")  # not UTF-8: a column that cannot be decoded
    assert load_run(_put(tmp_path, bad)).frame.equals(
        load_run(_put(tmp_path, data, "good.parquet")).frame
    )


def test_a_value_outside_the_footers_range(tmp_path: Path) -> None:
    data = _plain_run()
    bad = _replaced(data, struct.pack("<d", 150.25), struct.pack("<d", 1e300))
    path = _put(tmp_path, bad)
    message = _one_line_error(load_run, path)
    assert message.endswith(
        "row group 2 of 3: the score values run from 100.25 to 1e+300, outside the footer's "
        "100.25 to 200.25 (a corrupt data page)"
    )


def test_text_that_is_not_utf8(tmp_path: Path) -> None:
    data = _replaced(_plain_run(), b"d150", b"d\xff50")
    assert "Invalid UTF8" in _one_line_error(load_run, _put(tmp_path, data))


def test_schema_metadata_that_is_not_utf8(tmp_path: Path) -> None:
    # polars panics on such metadata; cranfield never hands it over.
    table = pa.table({"qid": ["1"], "docno": ["a"], "score": [1.0]})
    table = table.replace_schema_metadata({b"note": b"caf\xe9"})
    pq.write_table(table, tmp_path / "meta.parquet")
    assert load_run(tmp_path / "meta.parquet").frame.rows() == [("1", "a", 1.0)]


def test_a_wrong_type_is_refused_from_the_footer(tmp_path: Path) -> None:
    data = _plain_run({"relevance": [[1]] * 300})
    message = _one_line_error(load_qrels, _put(tmp_path, data))
    assert message.endswith(
        "the relevance column has type List(Int64); relevance must be an integer"
    )


def test_a_null_names_the_column_and_row(tmp_path: Path) -> None:
    pq.write_table(pa.table({"qid": ["1", None], "docno": ["a", "b"], "score": [1.0, 2.0]}),
                   tmp_path / "null.parquet")  # fmt: skip
    message = _one_line_error(load_run, tmp_path / "null.parquet")
    assert (
        message
        == f"{tmp_path / 'null.parquet'}:2: query_id is missing (a null in the 'qid' column)"
    )


def test_a_file_cranfield_wrote_carries_page_checksums(tmp_path: Path) -> None:
    run = load_run({"1": {f"d{i}": i / 3 for i in range(50)}})
    write_parquet(run, tmp_path / "run.parquet")
    data = (tmp_path / "run.parquet").read_bytes()
    chunk = pq.read_metadata(io.BytesIO(data)).row_group(0).column(2)  # the scores
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    last = start + chunk.total_compressed_size - 1  # inside the last page's data
    bad = data[:last] + bytes([data[last] ^ 1]) + data[last + 1 :]
    message = _one_line_error(load_run, _put(tmp_path, bad, "bad.parquet"))
    assert "CRC checksum verification failed" in message


# --------------------------------------------------------------------------- without pyarrow


@pytest.fixture
def no_pyarrow(monkeypatch: pytest.MonkeyPatch) -> None:
    """``import pyarrow.parquet`` fails, as where the ``arrow`` extra is not installed."""
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)


@pytest.mark.usefixtures("no_pyarrow")
def test_without_pyarrow_polars_reads_and_checks_the_row_count(tmp_path: Path) -> None:
    data = _plain_run()
    assert load_run(_put(tmp_path, data)).frame.height == 300
    bad = _replaced(data, _field(1, 6, 300), _field(1, 6, 301), start=_footer_start(data))
    message = _one_line_error(load_run, _put(tmp_path, bad))
    assert message.endswith("holds 300 rows, but its footer says 301")


@pytest.mark.usefixtures("no_pyarrow")
def test_without_pyarrow_a_polars_panic_is_an_input_error(tmp_path: Path) -> None:
    data = _plain_run()
    bad = _replaced(
        data, _field(1, 6, 101), _field(1, 6, 102), start=_footer_start(data), last=True
    )
    assert "cannot read Parquet file" in _one_line_error(load_run, _put(tmp_path, bad))


@pytest.mark.usefixtures("no_pyarrow")
def test_without_pyarrow_cranfield_writes_without_checksums(tmp_path: Path) -> None:
    run = load_run({"1": {"a": 1.0}})
    write_parquet(run, tmp_path / "r.parquet")
    assert load_run(tmp_path / "r.parquet").frame.equals(run.frame)


# --------------------------------------------------------------------------- mutations

_Mutation = tuple[str, int, int]
mutations = st.one_of(
    st.tuples(st.just("xor"), st.integers(0, 10**6), st.integers(1, 255)),
    st.tuples(st.just("cut"), st.integers(0, 10**6), st.just(0)),
    st.tuples(st.just("insert"), st.integers(0, 10**6), st.integers(0, 255)),
    st.tuples(st.just("delete"), st.integers(0, 10**6), st.just(0)),
)


def _mutated(data: bytes, mutation: _Mutation) -> tuple[bytes, int]:
    """The mutated bytes and the first position they differ at."""
    kind, at, value = mutation
    at %= len(data)
    if kind == "xor":
        return data[:at] + bytes([data[at] ^ value]) + data[at + 1 :], at
    if kind == "cut":
        return data[:at], at
    if kind == "insert":
        return data[:at] + bytes([value]) + data[at:], at
    return data[:at] + data[at + 1 :], at


def _data_pages(data: bytes) -> list[tuple[int, int]]:
    """The byte ranges of the column chunks (pages and their headers)."""
    meta = pq.read_metadata(io.BytesIO(data))
    ranges = []
    for g in range(meta.num_row_groups):
        for c in range(meta.num_columns):
            chunk = meta.row_group(g).column(c)
            start = min(
                chunk.dictionary_page_offset or chunk.data_page_offset, chunk.data_page_offset
            )
            ranges.append((start, start + chunk.total_compressed_size))
    return ranges


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[bytes, Any]]:
    """Small files as cranfield writes them (page checksums) and as polars does (none)."""
    folder = tmp_path_factory.mktemp("parquet")
    frame = pl.DataFrame(
        {
            "query_id": [str(301 + i // 8) for i in range(40)],
            "doc_id": [f"doc{(i * 7919) % 1000}" for i in range(40)],
            "score": [(i * 37 % 101) / 7 for i in range(40)],
        }
    )
    run = Run(frame, name="r", tag="t")
    write_parquet(run, folder / "cranfield.parquet")
    frame.write_parquet(folder / "polars.parquet")
    return {
        name: ((folder / f"{name}.parquet").read_bytes(), run.frame)
        for name in ("cranfield", "polars")
    }


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(mutation=mutations)
def test_a_mutated_file_with_checksums_reads_exactly_or_is_refused(
    written: dict[str, tuple[bytes, Any]], tmp_path: Path, mutation: _Mutation
) -> None:
    data, frame = written["cranfield"]
    bad, _ = _mutated(data, mutation)
    path = _put(tmp_path, bad, "mutated.parquet")
    got = _read_or_error(path)
    if isinstance(got, InputError):
        _check_message(got, path)
    else:
        assert got.equals(frame)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(mutation=mutations)
def test_a_mutated_file_without_checksums_differs_only_inside_a_page(
    written: dict[str, tuple[bytes, Any]], tmp_path: Path, mutation: _Mutation
) -> None:
    data, frame = written["polars"]
    bad, at = _mutated(data, mutation)
    path = _put(tmp_path, bad, "mutated.parquet")
    got = _read_or_error(path)
    if isinstance(got, InputError):
        _check_message(got, path)
    elif not got.equals(frame):
        # Without checksums a changed byte inside a page can decode to other values.
        assert any(start <= at < end for start, end in _data_pages(data)), mutation
