"""The readers of MS MARCO, BEIR, CSV, TSV, JSON and JSON Lines text on damaged files: a
``Qrels`` or ``Run``, or one :class:`~cranfield.errors.InputError` naming the file; never
another exception (a ``RecursionError`` from deep JSON, a polars panic, a ``KeyError``).

Each example writes a small valid file in one format (by hand, below), damages it (bytes
changed, cut, repeated, inserted; brackets nested deep), and reads it detected and with the
format named."""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from cranfield.errors import CranfieldWarning, InputError
from cranfield.io.load import load_qrels, load_run
from tests.fuzz.conftest import fuzz

ROWS = [("q1", "d1", 2), ("q1", "d2", 0), ("q2", "d3", 1), ("q10", "d1", 1)]


def _text(format_: str, kind: str) -> bytes:
    """A valid file of ``kind`` in ``format_``, written by hand."""
    value = "relevance" if kind == "qrels" else "score"
    if format_ == "msmarco":
        ranks = [
            sum(q == other for other, _, _ in ROWS[: i + 1]) for i, (q, _, _) in enumerate(ROWS)
        ]
        lines = [
            f"{q}\t{d}" if kind == "qrels" else f"{q}\t{d}\t{rank}"
            for rank, (q, d, _) in zip(ranks, ROWS, strict=True)
        ]
        return ("\n".join(lines) + "\n").encode()
    if format_ in ("csv", "tsv", "beir"):
        sep = "," if format_ == "csv" else "\t"
        head = ["query-id", "corpus-id", "score"] if format_ == "beir" else ["qid", "docno", value]
        lines = [sep.join(head)] + [sep.join(map(str, row)) for row in ROWS]
        return ("\n".join(lines) + "\n").encode()
    if format_ == "jsonl":
        return "".join(
            json.dumps({"query_id": q, "doc_id": d, value: v}) + "\n" for q, d, v in ROWS
        ).encode()
    nested: dict[str, dict[str, int]] = {}
    for q, d, v in ROWS:
        nested.setdefault(q, {})[d] = v
    return json.dumps(nested).encode()


@st.composite
def damaged(draw: st.DrawFn, text: bytes) -> bytes:
    """``text`` with a few random changes."""
    data = bytearray(text)
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.integers(0, len(data)))
        how = draw(st.sampled_from(["flip", "cut", "insert", "repeat", "truncate", "nest"]))
        if how == "flip" and where < len(data):
            data[where] = draw(st.integers(0, 255))
        elif how == "cut":
            del data[where : where + draw(st.integers(1, 8))]
        elif how == "insert":
            data[where:where] = draw(st.binary(min_size=1, max_size=6))
        elif how == "repeat":
            data[where:where] = data[max(0, where - 20) : where]
        elif how == "truncate":
            del data[where:]
        else:
            depth = draw(st.sampled_from([10, 5_000, 100_000]))
            data[where:where] = b"[" * depth + b"]" * depth
    return bytes(data)


KINDS = [
    (format_, kind)
    for format_ in ("msmarco", "beir", "csv", "tsv", "json", "jsonl")
    for kind in ("qrels", "run")
    if not (format_ == "beir" and kind == "run")
]


@pytest.mark.parametrize(("format_", "kind"), KINDS)
def test_the_valid_file_reads(format_: str, kind: str, tmp_path: Path) -> None:
    path = tmp_path / "file"
    path.write_bytes(_text(format_, kind))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CranfieldWarning)
        read = load_qrels(path) if kind == "qrels" else load_run(path)
    assert len(read) == len(ROWS)


@fuzz(60)
@given(data=st.data(), which=st.sampled_from(KINDS), named=st.booleans())
def test_a_damaged_file_reads_or_is_one_input_error(
    data: st.DataObject, which: tuple[str, str], named: bool
) -> None:
    format_, kind = which
    text = data.draw(damaged(_text(format_, kind)))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "file.txt"
        path.write_bytes(text)
        given_format = format_ if named else None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", CranfieldWarning)
                if kind == "qrels":
                    load_qrels(path, format=given_format)  # type: ignore[arg-type]
                else:
                    load_run(path, format=given_format)  # type: ignore[arg-type]
        except InputError as exc:
            event("input error")
            message = str(exc)
            assert message.startswith(str(path)), message
            assert "\n" not in message, message
        else:
            event("read")
