"""The metric table of ``cranfield logs ab`` (cranfield.io.metric_table) on generated tables,
clean and damaged: a clean table reads as the plain reference parse below; a damaged one reads
or fails with one InputError naming the file, never another exception."""

from __future__ import annotations

import csv
import io
import json
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cranfield.errors import InputError
from cranfield.io.metric_table import read_metric_table
from tests.fuzz.checks import attempt, one_line_error
from tests.fuzz.conftest import fuzz

if TYPE_CHECKING:
    from pathlib import Path

ROW = st.tuples(
    st.sampled_from(["u1", "u2", "user 3", "ü4"]),
    st.sampled_from(["A", "B", "control"]),
    st.one_of(
        st.integers(-5, 50).map(str),
        st.floats(-1e6, 1e6, allow_nan=False).map(repr),
    ),
)


def _text(rows: list[tuple[str, str, str]], kind: str) -> bytes:
    if kind == "jsonl":
        lines = [json.dumps({"user": u, "bucket": b, "clicks": float(c)}) for u, b, c in rows]
        return ("\n".join(lines) + "\n").encode()
    out = io.StringIO()
    writer = csv.writer(out, delimiter="," if kind == "csv" else "\t", lineterminator="\n")
    writer.writerow(["user", "bucket", "clicks"])
    writer.writerows(rows)
    return out.getvalue().encode()


@fuzz(60)
@given(rows=st.lists(ROW, min_size=1, max_size=12), kind=st.sampled_from(["csv", "tsv", "jsonl"]))
def test_a_clean_table_reads_as_the_reference(
    tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[str, str, str]], kind: str
) -> None:
    path = tmp_path_factory.mktemp("t") / f"s.{kind}"
    path.write_bytes(_text(rows, kind))
    t = read_metric_table(path, metric="clicks", bucket="bucket", unit="user")
    assert t.values.tolist() == [float(c) for _, _, c in rows]
    assert t.buckets.tolist() == [b for _, b, _ in rows]
    assert t.units is not None
    assert t.units.tolist() == [u.strip() for u, _, _ in rows]


@fuzz(150)
@given(
    rows=st.lists(ROW, min_size=1, max_size=8),
    kind=st.sampled_from(["csv", "tsv", "jsonl"]),
    edits=st.lists(
        st.tuples(st.integers(0, 10_000), st.binary(min_size=0, max_size=3)),
        min_size=1,
        max_size=4,
    ),
)
def test_a_damaged_table_reads_or_fails_with_one_input_error(
    tmp_path_factory: pytest.TempPathFactory,
    rows: list[tuple[str, str, str]],
    kind: str,
    edits: list[tuple[int, bytes]],
) -> None:
    data = bytearray(_text(rows, kind))
    for at, new in edits:
        k = at % (len(data) + 1)
        data[k : k + 1] = new
    path: Path = tmp_path_factory.mktemp("t") / f"s.{kind}"
    path.write_bytes(bytes(data))
    outcome = attempt(
        lambda: read_metric_table(path, metric="clicks", bucket="bucket", unit="user")
    )
    if isinstance(outcome, InputError):
        one_line_error(outcome, path)
    else:
        assert len(outcome.values) == len(outcome.buckets)
        assert all(b.strip() for b in outcome.buckets.tolist())
