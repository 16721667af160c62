"""TREC text input and output: the reading policy of :mod:`cranfield.io.trec`, line by line.

Every malformed case must raise :class:`~cranfield.errors.InputError` naming the file, the
1-based physical line and the offending text. The property tests compare the fast columnar
reader with an obvious per-line reading of the documented policy (``reference_rows``).
"""

from __future__ import annotations

import bz2
import functools
import gzip
import io
import lzma
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from unittest import mock

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import cranfield
from cranfield.data import ranking, row_index
from cranfield.data.run import Run
from cranfield.errors import InputError
from cranfield.io import load_qrels, load_run, trec
from cranfield.io.source import compression
from cranfield.io.trec import read_qrels, read_run, write_qrels, write_run

if TYPE_CHECKING:
    from collections.abc import Callable

    from cranfield.data.qrels import Qrels

BOM = b"\xef\xbb\xbf"
BLANKS = " \t\r\x0b\x0c"

QRELS = b"301 0 FBIS3-10082 1\n301 0 FBIS3-10169 0\n302 0 FT921-101 2\n"
RUN = b"301 Q0 FBIS3-10082 1 12.5 runA\n301 Q0 FT921-7 2 11.0 runA\n302 Q0 FT921-101 1 3 runB\n"


def put(tmp_path: Path, data: bytes, name: str = "input.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def check_error(
    exc: InputError, source: Path | str, line: int | None, problem: str, text: str | None
) -> None:
    """The error names ``source:line``, contains ``problem`` and quotes ``text``."""
    assert exc.source == str(source)
    assert exc.line == line
    assert problem in exc.problem
    assert exc.text == text
    message = str(exc)
    where = f"{source}:{line}: " if line is not None else f"{source}: "
    assert message.startswith(where)
    assert problem in message
    if text is not None and len(text) <= 120:
        assert message.endswith(f": {text!r}")


def reference_rows(data: bytes, kind: str) -> list[tuple[Any, ...]]:
    """The documented policy, one line at a time, for valid input."""
    rows: list[tuple[Any, ...]] = []
    for raw in data.removeprefix(BOM).split(b"\n"):
        fields = [f.decode() for f in raw.split()]
        if not fields or fields[0].startswith("#"):
            continue
        if kind == "qrels":
            rows.append((fields[0], fields[1], fields[2], int(fields[3])))
        else:
            rows.append((fields[0], fields[2], float(fields[4])))
    return rows


def qrels_rows(qrels: Qrels) -> list[tuple[Any, ...]]:
    return qrels.frame.select("query_id", "iteration", "doc_id", "relevance").rows()


def run_rows(run: Run) -> list[tuple[Any, ...]]:
    return run.frame.select("query_id", "doc_id", "score").rows()


# --------------------------------------------------------------------------- valid input


def test_read_qrels_table(tmp_path: Path) -> None:
    qrels = read_qrels(put(tmp_path, QRELS, "qrels.robust"))
    assert qrels.name == "qrels.robust"
    assert qrels.frame.schema == pl.Schema(
        {"query_id": pl.String, "iteration": pl.String, "doc_id": pl.String, "relevance": pl.Int64}
    )
    assert qrels_rows(qrels) == [
        ("301", "0", "FBIS3-10082", 1),
        ("301", "0", "FBIS3-10169", 0),
        ("302", "0", "FT921-101", 2),
    ]
    assert qrels.topics == ["301", "302"]


def test_read_qrels_sorts_bytewise(tmp_path: Path) -> None:
    data = b"9 0 b 1\n10 0 b 1\n2 0 Z 1\n2 0 a 1\n2 0 B 1\n10 0 a -1\n"
    qrels = read_qrels(put(tmp_path, data))
    assert [(q, d) for q, _, d, _ in qrels_rows(qrels)] == [
        ("10", "a"),
        ("10", "b"),
        ("2", "B"),
        ("2", "Z"),
        ("2", "a"),
        ("9", "b"),
    ]


def test_read_run_keeps_input_order_and_last_tag(tmp_path: Path) -> None:
    run = read_run(put(tmp_path, RUN, "run.bm25"))
    assert run.name == "run.bm25"
    assert run.tag == "runB"
    assert run.frame.schema == pl.Schema(
        {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}
    )
    assert run_rows(run) == [
        ("301", "FBIS3-10082", 12.5),
        ("301", "FT921-7", 11.0),
        ("302", "FT921-101", 3.0),
    ]


def test_name_argument(tmp_path: Path) -> None:
    assert read_qrels(put(tmp_path, QRELS), name="judgments").name == "judgments"
    assert read_run(put(tmp_path, RUN), name="bm25").name == "bm25"


def test_run_extra_fields_and_rank_ignored(tmp_path: Path) -> None:
    data = b"1 Q0 a 7 2.0 tagA junk more\n1 Q0 b -3 1.0 tagB\n1 Q0 c x 0.5 tagC 1 2 3 4\n"
    run = read_run(put(tmp_path, data))
    assert run_rows(run) == [("1", "a", 2.0), ("1", "b", 1.0), ("1", "c", 0.5)]
    assert run.tag == "tagC"


def test_negative_and_large_relevance(tmp_path: Path) -> None:
    data = b"1 0 a -1\n1 0 b -2\n1 0 c +3\n1 0 d 0007\n1 0 e 9223372036854775807\n"
    qrels = read_qrels(put(tmp_path, data))
    assert qrels.frame.get_column("relevance").to_list() == [-1, -2, 3, 7, 2**63 - 1]


def test_relevance_with_thousands_of_digits(tmp_path: Path) -> None:
    # int() refuses more than 4,300 digits: a ValueError, not the reader's InputError.
    path = put(tmp_path, b"1 0 a 1\n1 0 b " + b"9" * 5000 + b"\n")
    with pytest.raises(InputError, match=r":2: relevance 9+ does not fit in a 64-bit integer"):
        read_qrels(path)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1e3", 1000.0),
        ("-1.5E-2", -0.015),
        (".5", 0.5),
        ("5.", 5.0),
        ("+2", 2.0),
        ("inf", float("inf")),
        ("-inf", float("-inf")),
        ("Infinity", float("inf")),
        ("1e400", float("inf")),
        ("1e-400", 0.0),
        ("-0", -0.0),
        ("0.1", 0.1),
        ("12345678901234567890", 12345678901234567890.0),
    ],
)
def test_score_syntax(tmp_path: Path, text: str, value: float) -> None:
    run = read_run(put(tmp_path, f"1 Q0 a 1 {text} t\n".encode()))
    assert run.frame.get_column("score").to_list() == [value]


def test_hash_inside_a_field_is_data(tmp_path: Path) -> None:
    data = b"1 0 msmarco_doc_00#4 1\n1 0 # 0\n1 #0 #x 2\n"
    qrels = read_qrels(put(tmp_path, data))
    assert [(i, d) for _, i, d, _ in qrels_rows(qrels)] == [
        ("0", "#"),
        ("#0", "#x"),
        ("0", "msmarco_doc_00#4"),
    ]


def test_quotes_commas_and_unicode_blanks_are_data(tmp_path: Path) -> None:
    # Only ASCII blanks separate fields (C isspace); a no-break space belongs to the docno.
    data = "1 0 \"a,b 1\n1 0 d\u00a0e 0\n1 0 f\u2003g\x1ch 2\n1 0 'q' 3\n".encode()
    qrels = read_qrels(put(tmp_path, data))
    assert sorted(d for _, _, d, _ in qrels_rows(qrels)) == sorted(
        ['"a,b', "d\u00a0e", "f\u2003g\x1ch", "'q'"]
    )


@pytest.mark.parametrize(
    "data",
    [
        b"# header\n# two comments in a row\n301 0 a 1\n\n\n   \n302 0 b 0\n# last line comment",
        b"\t301\t\t0  a \t1  \r\n\r\n  # indented comment\r\n302 0\x0bb\x0c0\r\n",
        b"301 0 a 1\n#\n#\n302 0 b 0\n#",
        b"\n\n301 0 a 1\n302 0 b 0",
        BOM + b"301 0 a 1\r\n302 0 b 0\r\n",
        b"301\t0\ta\t1\n302\t0\tb\t0\n",
        b"301 0 a 1\n302 0 b 0\r\n",
    ],
)
def test_decorations_do_not_change_qrels(tmp_path: Path, data: bytes) -> None:
    assert qrels_rows(read_qrels(put(tmp_path, data))) == [
        ("301", "0", "a", 1),
        ("302", "0", "b", 0),
    ]


def test_utf8_ids(tmp_path: Path) -> None:
    data = "q\u00e9 0 \u6587\u66f8 1\nq\u00e9 0 \U0001f600 2\n".encode()
    qrels = read_qrels(put(tmp_path, data))
    assert qrels.topics == ["q\u00e9"]
    assert [d for _, _, d, _ in qrels_rows(qrels)] == ["\u6587\u66f8", "\U0001f600"]


def test_float32_rounding(tmp_path: Path) -> None:
    data = b"1 Q0 a 1 0.1 t\n1 Q0 b 2 16777217 t\n"
    assert run_rows(read_run(put(tmp_path, data), float32=True)) == [
        ("1", "a", float(np.float32(0.1))),
        ("1", "b", 16777216.0),
    ]


# --------------------------------------------------------------------------- malformed input

QRELS_ERRORS = [
    # (data, line, problem, text)
    (b"301 0 a 1\n301 0 b\n", 2, "expected 4 fields (qid iter docno rel), got 3", "301 0 b"),
    (b"301 0 a\n", 1, "expected 4 fields (qid iter docno rel), got 3", "301 0 a"),
    (b"301\n", 1, "expected 4 fields (qid iter docno rel), got 1", "301"),
    (
        b"301 0 a 1\n301 0 b 1 x\n",
        2,
        "expected 4 fields (qid iter docno rel), got 5",
        "301 0 b 1 x",
    ),
    (
        b"301 0 a 1 x\n301 0 b 1\n",
        1,
        "expected 4 fields (qid iter docno rel), got 5",
        "301 0 a 1 x",
    ),
    (
        b"301 Q0 a 1 2.5 tag\n",
        1,
        "expected 4 fields (qid iter docno rel), got 6",
        "301 Q0 a 1 2.5 tag",
    ),
    (
        b"301 0 a 1\n301 0 b rel\n",
        2,
        "relevance must be an integer or a decimal number, got 'rel'",
        "301 0 b rel",
    ),
    # Decimals are labels (test_decimal_labels), but not with an exponent.
    (
        b"301 0 a 1e3\n",
        1,
        "relevance must be an integer or a decimal number, got '1e3'",
        "301 0 a 1e3",
    ),
    (
        b"301 0 a 0x1\n",
        1,
        "relevance must be an integer or a decimal number, got '0x1'",
        "301 0 a 0x1",
    ),
    (
        b"301 0 a 1_0\n",
        1,
        "relevance must be an integer or a decimal number, got '1_0'",
        "301 0 a 1_0",
    ),
    (
        b"301 0 a nan\n",
        1,
        "relevance must be an integer or a decimal number, got 'nan'",
        "301 0 a nan",
    ),
    (
        b"301 0 a 9223372036854775808\n",
        1,
        "relevance 9223372036854775808 does not fit in a 64-bit integer",
        "301 0 a 9223372036854775808",
    ),
    # Duplicates of different relevance name both physical lines (comments and blank
    # lines count); more in test_qrels_duplicates.
    (
        b"301 0 a 1\n# comment\n\n301 0 b 0\n301 9 a 0\n",
        5,
        "duplicate document 'a' for query '301' judged 1 on line 1 and 0 here; keep one with "
        "duplicates='first', 'last' or 'max' (--duplicates)",
        "301 9 a 0",
    ),
    (
        b"301 0 a 1\r\n\r\n\t301  0 b 1 \r\n   301 0 c\r\n",
        4,
        "expected 4 fields (qid iter docno rel), got 3",
        "301 0 c",
    ),
    (
        b"301 0 a 1\n302 0 b x",
        2,
        "relevance must be an integer or a decimal number, got 'x'",
        "302 0 b x",
    ),
    (b"301 0 a 1\n301 0 caf\xe9 1\n", 2, "is not valid UTF-8", "301 0 caf\ufffd 1"),
    (b"# caf\xe9\n301 0 a 1\n", 1, "is not valid UTF-8", "# caf\ufffd"),
    (b"301 0 a 1\n# \xff\xfe\n301 0 b 1\n", 2, "is not valid UTF-8", "# \ufffd\ufffd"),
    (b"301 0 a 1\n301 0 \xed\xa0\x80 1\n", 2, "is not valid UTF-8", "301 0 \ufffd\ufffd\ufffd 1"),
    (b"301 0 a 1\n301 0 b \xc3", 2, "is not valid UTF-8", "301 0 b \ufffd"),
    # Old Mac line ends: CR is a blank, so the file is one line of eight fields.
    (
        b"301 0 a 1\r301 0 b 0\r",
        1,
        "expected 4 fields (qid iter docno rel), got 8",
        "301 0 a 1\r301 0 b 0",
    ),
]


@pytest.mark.parametrize(("data", "line", "problem", "text"), QRELS_ERRORS)
def test_malformed_qrels(tmp_path: Path, data: bytes, line: int, problem: str, text: str) -> None:
    path = put(tmp_path, data, "bad.qrels")
    with pytest.raises(InputError) as info:
        read_qrels(path)
    check_error(info.value, path, line, problem, text)


RUN_ERRORS = [
    (
        b"1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0\n",
        2,
        "expected 6 fields (qid iter docno rank score tag), got 5",
        "1 Q0 b 2 1.0",
    ),
    (
        b"1 Q0 a 1 2.0\n1 Q0 b 2 1.0 t\n",
        1,
        "expected 6 fields (qid iter docno rank score tag), got 5",
        "1 Q0 a 1 2.0",
    ),
    (b"1 0 a 1\n", 1, "expected 6 fields (qid iter docno rank score tag), got 4", "1 0 a 1"),
    (b"1 Q0 a 1 2.0 t\n1 Q0 b 2 abc t\n", 2, "score must be a number, got 'abc'", "1 Q0 b 2 abc t"),
    (b"1 Q0 a 1 1,5 t\n", 1, "score must be a number, got '1,5'", "1 Q0 a 1 1,5 t"),
    (b"1 Q0 a 1 0x10 t\n", 1, "score must be a number, got '0x10'", "1 Q0 a 1 0x10 t"),
    (b"1 Q0 a 1 1.5abc t\n", 1, "score must be a number, got '1.5abc'", "1 Q0 a 1 1.5abc t"),
    (b"1 Q0 a 1 1e t\n", 1, "score must be a number, got '1e'", "1 Q0 a 1 1e t"),
    (b"1 Q0 a 1 2.0 t\n1 Q0 b 2 nan t\n", 2, "score is NaN", "1 Q0 b 2 nan t"),
    (b"1 Q0 a 1 NaN t\n", 1, "score is NaN", "1 Q0 a 1 NaN t"),
    (b"1 Q0 a 1 -nan t\n", 1, "score is NaN", "1 Q0 a 1 -nan t"),
    (
        b"1 Q0 a 1 2.0 t\n# c\n2 Q0 a 1 2.0 t\n1 Q0 a 5 0.1 u\n",
        4,
        "duplicate document 'a' for query '1' (first seen on line 1)",
        "1 Q0 a 5 0.1 u",
    ),
    (b"1 Q0 a 1 2.0 t\n1 Q0 \xff 2 1.0 t\n", 2, "is not valid UTF-8", "1 Q0 \ufffd 2 1.0 t"),
    (
        b"\r\n\r\n  1 Q0 a 1 2.0 t\r\n\t1 Q0 b 2 x t \r\n",
        4,
        "score must be a number, got 'x'",
        "1 Q0 b 2 x t",
    ),
]


@pytest.mark.parametrize(("data", "line", "problem", "text"), RUN_ERRORS)
def test_malformed_run(tmp_path: Path, data: bytes, line: int, problem: str, text: str) -> None:
    path = put(tmp_path, data, "bad.run")
    with pytest.raises(InputError) as info:
        read_run(path)
    check_error(info.value, path, line, problem, text)


@pytest.mark.parametrize("data", [b"", b"\n\n", b"  \t\r\n", b"# only a comment\n#\n", BOM])
@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_no_data_lines(tmp_path: Path, data: bytes, kind: str) -> None:
    path = put(tmp_path, data, "empty.txt")
    reader = read_qrels if kind == "qrels" else read_run
    with pytest.raises(InputError) as info:
        reader(path)
    check_error(info.value, path, None, f"contains no {kind} lines", None)


def test_long_offending_line_is_shortened_in_the_message(tmp_path: Path) -> None:
    line = "301 0 " + "d" * 300
    path = put(tmp_path, f"{line}\n".encode())
    with pytest.raises(InputError) as info:
        read_qrels(path)
    assert info.value.text == line
    assert str(info.value).endswith("...'")
    assert len(str(info.value)) < len(str(path)) + 220


def test_missing_file_and_directory(tmp_path: Path) -> None:
    missing = tmp_path / "nope.qrels"
    with pytest.raises(InputError) as info:
        read_qrels(missing)
    check_error(info.value, missing, None, "cannot read file", None)
    with pytest.raises(InputError) as info:
        read_run(tmp_path)
    check_error(info.value, tmp_path, None, "cannot read file", None)


def test_input_error_is_a_value_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"bad\.qrels:1: expected 4 fields"):
        read_qrels(put(tmp_path, b"1 2 3\n", "bad.qrels"))


# --------------------------------------------------------------------------- compression


def _zstd(data: bytes) -> bytes:
    zstandard = pytest.importorskip("zstandard")
    return bytes(zstandard.ZstdCompressor().compress(data))


COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "zstd": _zstd,
}


@pytest.mark.parametrize("kind", list(COMPRESSORS))
def test_compressed_files_by_magic_not_name(tmp_path: Path, kind: str) -> None:
    packed = COMPRESSORS[kind](QRELS)
    assert compression(packed) == kind
    plain = qrels_rows(read_qrels(put(tmp_path, QRELS, "plain.gz")))
    assert qrels_rows(read_qrels(put(tmp_path, packed, "misnamed.txt"))) == plain
    run = read_run(put(tmp_path, COMPRESSORS[kind](RUN), "run.bin"))
    assert run.tag == "runB"
    assert len(run) == 3


@pytest.mark.parametrize("kind", list(COMPRESSORS))
def test_concatenated_streams_are_all_read(tmp_path: Path, kind: str) -> None:
    more = b"303 0 extra 1\n"
    packed = COMPRESSORS[kind](QRELS) + COMPRESSORS[kind](more)
    assert len(read_qrels(put(tmp_path, packed))) == 4


@pytest.mark.parametrize("kind", list(COMPRESSORS))
@pytest.mark.parametrize("damage", ["truncated", "corrupt", "trailing garbage", "header only"])
def test_damaged_compressed_files(tmp_path: Path, kind: str, damage: str) -> None:
    data = b"".join(b"%d 0 doc%d %d\n" % (i % 7, i, i % 3) for i in range(3000))
    packed = bytearray(COMPRESSORS[kind](data))
    if damage == "truncated":
        packed = packed[: len(packed) // 2]
    elif damage == "corrupt":
        for i in range(24, 64):
            packed[i] ^= 0x5A
    elif damage == "trailing garbage":
        packed += b"garbage"
    else:
        packed = packed[:12]
    path = put(tmp_path, bytes(packed), "damaged.qrels")
    with pytest.raises(InputError) as info:
        read_qrels(path)
    check_error(info.value, path, None, f"is not a valid {kind} file", None)


def test_xz_stream_padding_is_allowed(tmp_path: Path) -> None:
    packed = lzma.compress(QRELS) + b"\x00" * 8 + lzma.compress(b"303 0 x 1\n")
    assert len(read_qrels(put(tmp_path, packed))) == 4


def test_bad_line_inside_compressed_file_names_the_line(tmp_path: Path) -> None:
    path = put(tmp_path, gzip.compress(b"1 0 a 1\n# c\n1 0 b one\n"), "qrels.gz")
    with pytest.raises(InputError) as info:
        read_qrels(path)
    check_error(
        info.value,
        path,
        3,
        "relevance must be an integer or a decimal number, got 'one'",
        "1 0 b one",
    )


def test_empty_compressed_file(tmp_path: Path) -> None:
    path = put(tmp_path, gzip.compress(b""), "empty.gz")
    with pytest.raises(InputError) as info:
        read_run(path)
    check_error(info.value, path, None, "contains no run lines", None)


def test_text_starting_like_bzip2_is_text(tmp_path: Path) -> None:
    # "BZh" alone is not a bzip2 header: the block magic must follow.
    qrels = read_qrels(put(tmp_path, b"BZh9 0 a 1\nBZh 0 b 0\n"))
    assert qrels.topics == ["BZh", "BZh9"]


def test_zstd_without_zstandard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = put(tmp_path, _zstd(QRELS), "qrels.zst")
    monkeypatch.setitem(sys.modules, "zstandard", None)
    with pytest.raises(InputError) as info:
        read_qrels(path)
    check_error(info.value, path, None, "pip install '.[zstd]'", None)


# --------------------------------------------------------------------------- stdin


class FakeStdin:
    """Stands in for ``sys.stdin``: the readers use its binary ``buffer``."""

    def __init__(self, data: bytes):
        self.buffer = io.BytesIO(data)


def test_qrels_from_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", FakeStdin(QRELS))
    qrels = read_qrels("-")
    assert qrels.name == "<stdin>"
    assert len(qrels) == 3


def test_compressed_run_from_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", FakeStdin(gzip.compress(RUN)))
    run = load_run("-", name="piped")
    assert (run.name, run.tag, len(run)) == ("piped", "runB", 3)


def test_stdin_errors_are_named_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", FakeStdin(b"1 Q0 a 1 2 t\n\n1 Q0 b 2 x t\n"))
    with pytest.raises(InputError) as info:
        read_run("-")
    check_error(info.value, "<stdin>", 3, "score must be a number, got 'x'", "1 Q0 b 2 x t")


def test_text_only_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    # Notebooks and some test harnesses give a text stream without a binary buffer.
    monkeypatch.setattr(sys, "stdin", io.StringIO("301 0 caf\u00e9 1\n"))
    assert qrels_rows(read_qrels("-")) == [("301", "0", "caf\u00e9", 1)]


def test_no_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(InputError) as info:
        read_qrels("-")
    check_error(info.value, "<stdin>", None, "cannot read file (there is no standard input)", None)


def test_empty_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", FakeStdin(b""))
    with pytest.raises(InputError) as info:
        load_qrels("-")
    check_error(info.value, "<stdin>", None, "contains no qrels lines", None)


# --------------------------------------------------------------------------- fast path


@pytest.mark.parametrize(
    ("data", "sep"),
    [(b"1 0 a 1\n1 0 b 0\n", " "), (b"1\t0\ta\t1\n1\t0\tb\t0", "\t"), (QRELS, " ")],
)
def test_clean_files_are_handed_to_polars_untouched(data: bytes, sep: str) -> None:
    got_sep, text = trec._canonical(data)
    assert (got_sep, text) == (sep, data)
    assert text is data  # no copy on the common path


@pytest.mark.parametrize(
    "data",
    [
        b"1 0 a 1\r\n",
        b"1 0 a 1\n\n1 0 b 0\n",
        b"1  0 a 1\n",
        b" 1 0 a 1\n",
        b"1 0 a 1 \n",
        b"1\t0 a 1\n",
        b"1 0\x0ba 1\n",
        b"1 0\x0ca 1\n",
        b"\n1 0 a 1\n",
        b"1 0 a 1\n\t\n",
        b"1\t0\ta\t1\t",
        b"1 0 a 1 ",
    ],
)
def test_anything_else_is_collapsed(data: bytes) -> None:
    sep, text = trec._canonical(data)
    assert sep == " "
    assert text.rstrip(b"\n") == b"1 0 a 1" or text.startswith(b"1 0 a 1\n1 0 b 0")


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 1 << 24])
def test_utf8_check_across_chunk_boundaries(chunk: int) -> None:
    text = ("caf\u00e9 \U0001f600 \u6587 " * 5).encode()
    assert trec._is_utf8(text, chunk)
    assert not trec._is_utf8(text + b"\xc3", chunk)
    assert not trec._is_utf8(text[:6] + b"\xff" + text[6:], chunk)


def test_duplicate_detection_helpers() -> None:
    frame = pl.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"]})
    assert not trec._has_duplicates(frame)
    assert trec._has_duplicates(pl.concat([frame, frame.head(1)]))
    assert not trec._sorted_has_repeats(frame)
    assert trec._sorted_has_repeats(pl.concat([frame, frame.head(1)]).sort("query_id", "doc_id"))
    # grouped by query, many lines per query: checked through the stretches
    grouped = pl.DataFrame(
        {"query_id": ["1"] * 20 + ["2"] * 20, "doc_id": [f"d{i}" for i in range(20)] * 2}
    )
    assert not trec._has_duplicates(grouped)
    assert trec._has_duplicates(pl.concat([grouped, grouped.slice(5, 1)]))  # "1" comes back
    assert trec._has_duplicates(grouped.with_columns(pl.col("doc_id").replace("d7", "d3")))


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(st.sampled_from([b"a", b"b", b" ", b"\t", b"\n"]), max_size=40).map(b"".join),
    chunk=st.sampled_from([2, 4, 6, 1 << 19]),
)
def test_separators_are_counted_and_checked_across_chunks(text: bytes, chunk: int) -> None:
    """The byte checks go through a text in chunks; a pair across a cut is still seen."""
    for sep in (b" ", b"\t"):
        misplaced = sep + sep in text or sep + b"\n" in text
        expected = None if misplaced else text.count(sep)
        with mock.patch.object(trec, "_CHECK_BYTES", chunk):
            assert trec._separators(text, sep[0]) == expected


def test_equal_keys_are_only_candidates_for_the_exact_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Forced here: every line gets the same key; the doc ids and queries decide."""
    monkeypatch.setattr(row_index, "MIX", np.uint64(0))
    same = np.zeros(40, dtype=np.uint64)
    twice = [f"d{i}" for i in range(20)] * 2
    for queries, lengths, docs, repeats in [
        (["1", "2"], [20, 20], twice, False),
        (["1", "2"], [20, 20], [d.replace("d7", "d3") for d in twice], True),
        (["1", "1"], [20, 20], twice, True),  # one query, two stretches
        (["1", "2", "1"], [20, 10, 10], [f"d{i}" for i in range(40)], False),
    ]:
        query_id = [q for q, n in zip(queries, lengths, strict=True) for _ in range(n)]
        lines = pl.DataFrame({"query_id": query_id, "doc_id": docs})
        assert trec._repeats_in(lines, queries, np.array(lengths), same) is repeats


# --------------------------------------------------------------------------- block reading

# Plain run files are parsed BLOCK_BYTES at a time; these tests shrink the block so that
# small files are cut in many places (inside a query, right after one, mid-tie).


def _read_in_blocks(path: Path, size: int, monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.setattr(trec, "BLOCK_BYTES", size)
    return read_run(path)


def _whole(path: Path) -> Run:
    """The same file read as one block of bytes."""
    return trec.read_run_bytes(path.read_bytes().removeprefix(BOM), str(path))


@pytest.mark.parametrize("size", [1, 7, 32, 33, 100, 1 << 20])
def test_blocks_read_like_the_whole_file(
    tmp_path: Path, size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [f"q{q} Q0 d{d} {d} {10 - d // 3} tag{q}\n" for q in (3, 1, 2) for d in range(9)]
    path = put(tmp_path, BOM + "".join(lines).encode(), "run.txt")
    assert _blocks_of(path, size) is not None  # the block path is what is tested
    got = _read_in_blocks(path, size, monkeypatch)
    expected = _whole(path)
    assert_frame_equal(got.frame, expected.frame)
    assert got.tag == expected.tag == "tag2"
    assert_same_stretches(got, expected)


def assert_same_stretches(got: Run, expected: Run, *, by_reader: bool = True) -> None:
    """The query stretches the block reader pieced together equal the whole frame's."""
    # filled in by the block reader, not computed afterwards; the careful path leaves them
    assert ("query_stretches" in vars(got)) == by_reader
    queries, lengths = got.query_stretches
    want_queries, want_lengths = expected.query_stretches
    assert queries == want_queries
    assert lengths.tolist() == want_lengths.tolist()


@pytest.mark.parametrize(
    "data",
    [
        b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t",  # no final line end
        b"1 Q0 " + b"x" * 300 + b" 1 2 t\n1 Q0 b 2 1 t\n",  # a line longer than a block
        b"1\tQ0\ta\t1\t2\tt\n" + b"2 Q0 a 1 2 t\n" * 1,  # tabs in one block, spaces later
    ],
)
def test_block_edges(tmp_path: Path, data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    path = put(tmp_path, data, "run.txt")
    got = _read_in_blocks(path, 16, monkeypatch)
    assert run_rows(got) == reference_rows(data, "run")


@pytest.mark.parametrize(
    "odd",
    [
        b"# a comment\n2  Q0 x 1 1 t\r\n",  # all at once
        b"# a comment\n",
        b"#2 Q0 x 1 1 t\n",  # a comment that looks like a query
        b"2 Q0 x 1 1 t\r\n",
        b"2 Q0 x 1 1\x0bt\n",
        b"2 Q0 x 1 1\x0ct\n",
        b"2  Q0 x 1 1 t\n",
        b"2\tQ0 x 1 1 t\n",
        b"\n",
        # a seventh field, whether or not it reads as a boolean (the sentinel column's type)
        b"2 Q0 x 1 1 t true\n",
        b"2 Q0 x 1 1 t 1\n",
        b"2 Q0 x 1 1 t x\n",
    ],
)
def test_an_unclean_block_sends_the_whole_file_down_the_careful_path(
    tmp_path: Path, odd: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean = b"".join(b"1 Q0 d%d %d %d t\n" % (i, i, 50 - i) for i in range(30))
    data = clean + odd + clean.replace(b"1 Q0", b"3 Q0")
    path = put(tmp_path, data, "run.txt")
    got = _read_in_blocks(path, 40, monkeypatch)
    assert run_rows(got) == reference_rows(data, "run")
    assert_same_stretches(got, _whole(path), by_reader=False)


def test_utf8_blocks_stay_on_the_block_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean = b"".join(b"1 Q0 d%d %d %d t\n" % (i, i, 50 - i) for i in range(30))
    data = clean + b"2 Q0 x\xc3\xa9 1 1 t\n" + clean.replace(b"1 Q0", b"3 Q0")
    path = put(tmp_path, data, "run.txt")
    got = _read_in_blocks(path, 40, monkeypatch)
    assert run_rows(got) == reference_rows(data, "run")
    assert_same_stretches(got, _whole(path))


def test_invalid_utf8_in_a_later_block_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean = b"".join(b"1 Q0 d%d %d %d t\n" % (i, i, 50 - i) for i in range(30))
    path = put(tmp_path, clean + b"2 Q0 x\xff 1 1 t\n" + clean, "run.txt")
    with pytest.raises(InputError) as caught:
        _read_in_blocks(path, 40, monkeypatch)
    assert caught.value.line == 31


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("size", [1, 20, 45, 1 << 20])
def test_duplicates_are_found_across_blocks(
    tmp_path: Path, grouped: bool, size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [f"{q} Q0 d{d} 1 {9 - d} t" for q in ("a", "b", "c") for d in range(6)]
    if not grouped:
        lines = lines[::2] + lines[1::2]
    # the first line's pair again, last in the file: far from its twin, in another block
    lines.append(lines[0].replace(" 9 t", " 0.5 t"))
    path = put(tmp_path, "\n".join(lines).encode() + b"\n", "run.txt")
    with pytest.raises(InputError) as caught:
        _read_in_blocks(path, size, monkeypatch)
    check_error(
        caught.value,
        path,
        len(lines),
        "duplicate document 'd0' for query 'a' (first seen on line 1)",
        lines[-1],
    )


def test_errors_in_a_later_block_name_the_physical_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [f"1 Q0 d{d} 1 {d} t" for d in range(20)]
    lines[17] = "1 Q0 d17 1 nan t"
    path = put(tmp_path, "\n".join(lines).encode(), "run.txt")
    with pytest.raises(InputError) as caught:
        _read_in_blocks(path, 30, monkeypatch)
    check_error(caught.value, path, 18, "score is NaN", lines[17])


def test_a_short_line_in_a_later_block_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [f"1 Q0 d{d} 1 {20 - d} t" for d in range(20)]
    lines[15] = "1 Q0 d15 1 5"  # no tag: only the tag column can tell
    path = put(tmp_path, "\n".join(lines).encode() + b"\n", "run.txt")
    with pytest.raises(InputError) as caught:
        _read_in_blocks(path, 30, monkeypatch)
    check_error(
        caught.value,
        path,
        16,
        "expected 6 fields (qid iter docno rank score tag), got 5",
        lines[15],
    )


@pytest.mark.parametrize("sep", [" ", "\t"])
@pytest.mark.parametrize("size", [30, 1 << 20])
def test_a_doubled_separator_cannot_hide_a_missing_field(
    tmp_path: Path, sep: str, size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``1  d15 1 5 t`` has five fields (runs of blanks are one separator), though polars
    reads six, the second empty; in a later block or in the whole file it is an error."""
    lines = [sep.join(["1", "Q0", f"d{d}", "1", str(20 - d), "t"]) for d in range(20)]
    lines[15] = sep.join(["1", "", "d15", "1", "5", "t"])
    path = put(tmp_path, "\n".join(lines).encode() + b"\n", "run.txt")
    for read in (lambda: _read_in_blocks(path, size, monkeypatch), lambda: read_run(path)):
        with pytest.raises(InputError) as caught:
            read()
        check_error(
            caught.value,
            path,
            16,
            "expected 6 fields (qid iter docno rank score tag), got 5",
            lines[15].strip(),
        )
    with pytest.raises(InputError, match="got 5"):
        trec.read_run_bytes(path.read_bytes(), str(path))


@pytest.mark.parametrize("sep", [" ", "\t"])
@pytest.mark.parametrize("size", [40, 1 << 20])
@pytest.mark.parametrize(
    "other",
    [
        "1{s}Q0{s}d3{s}1{s}17{s}t{s}",  # six separators, the last one ending the line
        "1{s}Q0{s}d3{s}1{s}17{s}t{s}x",  # six separators, a seventh field
        "1{s}Q0{s}d3{s}1{s}17{s}t{s}{s}",  # a doubled separator ending the line
        "{s}1{s}Q0{s}d3{s}1{s}17{s}t",  # a separator starting the line
    ],
)
def test_a_short_line_cannot_be_balanced_by_a_long_one(
    tmp_path: Path, sep: str, size: int, other: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tag column is not parsed on the fast path: the separators of a block are counted
    instead (five a line). A line of four separators next to one of six adds up right, so
    neither may pass: only the careful reader's answer counts (here: line 5 is short)."""
    lines = [sep.join(["1", "Q0", f"d{d}", "1", str(20 - d), "t"]) for d in range(8)]
    lines[3] = other.format(s=sep)
    lines[4] = sep.join(["1", "Q0", "d4", "1", "16"])
    path = put(tmp_path, "\n".join(lines).encode() + b"\n", "run.txt")
    expected = "expected 6 fields (qid iter docno rank score tag), got 5"
    for read in (lambda: _read_in_blocks(path, size, monkeypatch), lambda: read_run(path)):
        with pytest.raises(InputError) as caught:
            read()
        check_error(caught.value, path, 5, expected, lines[4])
    assert trec._fast_run(path.read_bytes()) is None


@pytest.mark.parametrize("sep", [" ", "\t"])
@pytest.mark.parametrize("end", ["\n", ""])
def test_the_fast_path_reads_the_tag_off_the_last_line(
    tmp_path: Path, sep: str, end: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [sep.join(["1", "Q0", f"d{d}", "1", str(20 - d), f"tag{d}"]) for d in range(9)]
    data = "\n".join(lines).encode() + end.encode()
    path = put(tmp_path, data, "run.txt")
    fast = trec._fast_run(data)
    assert fast is not None
    assert fast[1] == "tag8"
    assert _read_in_blocks(path, 40, monkeypatch).tag == "tag8"
    assert read_run(path).tag == "tag8"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_read_once_and_whole(tmp_path: Path) -> None:
    """``cranfield evaluate qrels <(zcat run.gz)`` hands over a pipe: no probing read."""
    fifo = tmp_path / "run.pipe"
    os.mkfifo(fifo)
    got: list[Any] = []
    writer = threading.Thread(target=fifo.write_bytes, args=(RUN,), daemon=True)
    reader = threading.Thread(target=lambda: got.append(read_run(fifo)), daemon=True)
    writer.start()
    reader.start()
    reader.join(timeout=20)
    if reader.is_alive():  # waiting for a second writer that will never come: release it
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=5)
    assert got, "the pipe was opened twice: the first bytes went to a probe"
    assert run_rows(got[0]) == reference_rows(RUN, "run")


@pytest.mark.parametrize("kind", list(COMPRESSORS))
def test_compressed_runs_are_not_read_in_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """Known by their first bytes, before any block is parsed (bzip2 needs ten of them)."""
    path = put(tmp_path, COMPRESSORS[kind](RUN), "run.bin")
    with mock.patch.object(trec, "_parse_plain", side_effect=AssertionError("parsed")):
        assert _blocks_of(path, 8) is None
    assert run_rows(_read_in_blocks(path, 8, monkeypatch)) == reference_rows(RUN, "run")


# --------------------------------------------------------------------------- writers


def test_write_run_ranks_like_trec_eval(tmp_path: Path) -> None:
    run = load_run({"q2": {"a": 1.0, "b": 1.0, "c": 2.0, "B": 1.0}, "q10": {"x": 0.5}})
    path = tmp_path / "out.run"
    write_run(run, path, tag="mine")
    assert path.read_text() == (
        "q10 Q0 x 1 0.5 mine\n"
        "q2 Q0 c 1 2.0 mine\n"
        "q2 Q0 b 2 1.0 mine\n"
        "q2 Q0 a 3 1.0 mine\n"
        "q2 Q0 B 4 1.0 mine\n"
    )
    back = read_run(path)
    assert back.tag == "mine"
    assert_frame_equal(back.frame.sort("query_id", "doc_id"), run.frame.sort("query_id", "doc_id"))


def test_a_run_known_to_be_in_trec_eval_order_is_written_without_sorting(tmp_path: Path) -> None:
    """A run whose reader (or maker: a fused run) vouches for trec_eval's order is numbered
    from its stretches; the file is the one the sorting writer makes."""
    frame = pl.DataFrame(
        {
            "query_id": ["q10", "q2", "q2", "q2", "q2"],
            "doc_id": ["x", "c", "b", "a", "B"],
            "score": [0.5, 2.0, 1.0, 1.0, 1.0],
        }
    )
    empty = np.zeros(0, dtype=np.int64)
    ordered = Run.indexed(
        frame,
        tag="mine",
        query_stretches=(["q10", "q2"], np.array([1, 4])),
        doc_keys=row_index.doc_keys(frame.get_column("doc_id")),
        tie_order=row_index.TieOrder(True, empty, empty),
    )
    with mock.patch.object(pl.DataFrame, "sort", side_effect=AssertionError("sorted")):
        write_run(ordered, tmp_path / "fast.run")
    write_run(Run(frame.reverse(), tag="mine"), tmp_path / "sorted.run")
    assert (tmp_path / "fast.run").read_bytes() == (tmp_path / "sorted.run").read_bytes()
    assert (tmp_path / "fast.run").read_text().splitlines()[1:3] == [
        "q2 Q0 c 1 2.0 mine",
        "q2 Q0 b 2 1.0 mine",
    ]
    # queries out of bytewise order, or ties not vouched for: sorted as any run
    assert trec._ranked_lengths(Run(frame)) is None


def test_write_run_keeps_the_run_tag(tmp_path: Path) -> None:
    run = read_run(put(tmp_path, RUN))
    write_run(run, tmp_path / "copy.run")
    assert read_run(tmp_path / "copy.run").tag == "runB"


def test_write_qrels_round_trip(tmp_path: Path) -> None:
    data = b"2 U0 b 3\n10 Q0 a -1\n2 E0 a 0\n"
    qrels = read_qrels(put(tmp_path, data))
    write_qrels(qrels, tmp_path / "copy.qrels")
    assert (tmp_path / "copy.qrels").read_bytes() == b"10 Q0 a -1\n2 E0 a 0\n2 U0 b 3\n"
    assert_frame_equal(read_qrels(tmp_path / "copy.qrels").frame, qrels.frame)


@pytest.mark.parametrize(
    ("run", "tag", "problem", "value"),
    [
        ({"q 1": {"d": 1.0}}, None, "the query_id of row 1 contains a blank", "q 1"),
        (  # query ids are checked once a query: the row is the query's first
            {"q": {"d": 1.0, "e": 0.5}, "q 2": {"d": 1.0, "e": 0.5}},
            None,
            "the query_id of row 3 contains a blank",
            "q 2",
        ),
        ({"q": {"d": 1.0, "d\t2": 0.5}}, None, "the doc_id of row 2 contains a blank", "d\t2"),
        ({"#q": {"d": 1.0}}, None, "the query_id of row 1 starts with '#'", "#q"),
        ({"": {"d": 1.0}}, None, "the query_id of row 1 is empty", ""),
        ({"q": {"d": 1.0}}, "my run", "the tag of row 1 contains a blank", "my run"),
        ({"q": {"d": 1.0}}, "", "the tag of row 1 is empty", ""),
    ],
)
def test_write_run_refuses_what_would_not_read_back(
    tmp_path: Path, run: dict[str, dict[str, float]], tag: str | None, problem: str, value: str
) -> None:
    path = tmp_path / "out.run"
    with pytest.raises(InputError) as info:
        write_run(load_run(run), path, tag=tag)
    check_error(info.value, path, None, problem, value)
    assert not path.exists()


def test_write_qrels_refuses_blank_iteration(tmp_path: Path) -> None:
    qrels = load_qrels(pl.DataFrame({"qid": ["1"], "docno": ["d"], "rel": [1], "iter": ["a b"]}))
    path = tmp_path / "out.qrels"
    with pytest.raises(InputError) as info:
        write_qrels(qrels, path)
    check_error(info.value, path, None, "the iteration of row 1 contains a blank", "a b")
    assert not path.exists()


# --------------------------------------------------------------------------- properties

_ID_CHARS = list("abcXYZ0189_-.:/#\"',\u00e9\u6587\u00a0\u2003\x1c\x85")
ids = st.text(st.sampled_from(_ID_CHARS), min_size=1, max_size=6)
qids = ids.filter(lambda t: not t.startswith("#"))


@st.composite
def relevance_texts(draw: st.DrawFn) -> str:
    value = draw(st.integers(-3, 4) | st.integers(-(2**63), 2**63 - 1))
    sign = "-" if value < 0 else draw(st.sampled_from(["", "+"]))
    return sign + "0" * draw(st.integers(0, 2)) + str(abs(value))


@st.composite
def score_texts(draw: st.DrawFn) -> str:
    value = draw(st.floats(allow_nan=False))
    form = draw(st.sampled_from(["{!r}", "{:.4e}", "{:.17g}", "{:E}", "{:f}"]))
    return form.format(value)


qrels_records = st.lists(
    st.tuples(qids, ids, ids, relevance_texts()),
    min_size=1,
    max_size=25,
    unique_by=lambda r: (r[0], r[2]),
)
run_records = st.lists(
    st.tuples(
        qids,
        ids,
        ids,
        st.integers(-1, 1000).map(str),
        score_texts(),
        ids,
        st.lists(ids, max_size=2),
    ),
    min_size=1,
    max_size=25,
    unique_by=lambda r: (r[0], r[2]),
)

blank_runs = st.text(st.sampled_from(list(BLANKS)), max_size=3)
separators = st.text(st.sampled_from(list(BLANKS)), min_size=1, max_size=3)
comments = st.builds(
    lambda lead, body: f"{lead}#{body}",
    blank_runs,
    st.text(st.characters(exclude_characters="\n", exclude_categories=["Cs"]), max_size=12),
)
noise_lines = st.lists(blank_runs | comments, max_size=2)


def as_fields(record: tuple[Any, ...]) -> list[str]:
    """Flatten a record (the last element of a run record is its list of extra fields)."""
    fields = [f for f in record if isinstance(f, str)]
    extra = [f for f in record if isinstance(f, list)]
    return fields + (extra[0] if extra else [])


def plain_file(records: list[tuple[Any, ...]]) -> bytes:
    return "".join(" ".join(as_fields(r)) + "\n" for r in records).encode()


@st.composite
def decorated_file(
    draw: st.DrawFn, lines: list[list[str] | bytes], target: int | None = None
) -> tuple[bytes, int | None]:
    """``lines`` with random blanks, CR-LF, comments and blank lines around them.

    Returns the file and the physical line number of ``lines[target]``.
    """
    out: list[bytes] = [BOM] if draw(st.booleans()) else []
    number = 1
    where = None
    for index, line in enumerate(lines):
        for noise in draw(noise_lines):
            out.append(noise.encode() + draw(st.sampled_from([b"\n", b"\r\n"])))
            number += 1
        if index == target:
            where = number
        if isinstance(line, bytes):
            out.append(line)
        else:
            text = draw(blank_runs) + "".join(f + draw(separators) for f in line[:-1]) + line[-1]
            out.append((text + draw(blank_runs)).encode())
        last = index == len(lines) - 1
        if not last or draw(st.booleans()):
            out.append(draw(st.sampled_from([b"\n", b"\r\n"])))
            number += 1
    return b"".join(out), where


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("io_trec_properties")


def _fast_only() -> Any:
    """Fail if the per-line slow path runs (it must not on valid input)."""
    return mock.patch.object(
        trec, "_diagnose", side_effect=AssertionError("slow path ran on valid input")
    )


def _always_collapse() -> Any:
    """Force the general path: every run of blanks collapsed by ``_collapse_blanks``."""
    return mock.patch.object(trec, "_canonical", lambda data: (" ", trec._collapse_blanks(data)))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=qrels_records, data=st.data())
def test_decorated_qrels_read_like_plain(
    scratch: Path, records: list[tuple[str, ...]], data: st.DataObject
) -> None:
    plain = plain_file(records)
    fancy, _ = data.draw(decorated_file([as_fields(r) for r in records]))
    put(scratch, plain, "plain.qrels")
    put(scratch, fancy, "fancy.qrels")
    with _fast_only():
        expected = read_qrels(scratch / "plain.qrels")
        got = read_qrels(scratch / "fancy.qrels")
    assert_frame_equal(got.frame, expected.frame)
    assert qrels_rows(got) == sorted(
        reference_rows(fancy, "qrels"), key=lambda r: (r[0].encode(), r[2].encode())
    )
    with _always_collapse():
        assert_frame_equal(read_qrels(scratch / "plain.qrels").frame, expected.frame)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=run_records, data=st.data())
def test_decorated_run_read_like_plain(
    scratch: Path, records: list[tuple[Any, ...]], data: st.DataObject
) -> None:
    plain = plain_file(records)
    fancy, _ = data.draw(decorated_file([as_fields(r) for r in records]))
    put(scratch, plain, "plain.run")
    put(scratch, fancy, "fancy.run")
    with _fast_only():
        expected = read_run(scratch / "plain.run")
        got = read_run(scratch / "fancy.run")
    assert_frame_equal(got.frame, expected.frame)
    assert run_rows(got) == reference_rows(fancy, "run")
    assert got.tag == expected.tag == records[-1][5]
    with _always_collapse():
        assert_frame_equal(read_run(scratch / "plain.run").frame, expected.frame)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=qrels_records, kind=st.sampled_from(list(COMPRESSORS)))
def test_compressed_property(scratch: Path, records: list[tuple[str, ...]], kind: str) -> None:
    plain = plain_file(records)
    put(scratch, plain, "plain.qrels")
    put(scratch, COMPRESSORS[kind](plain), "packed.qrels")
    assert_frame_equal(
        read_qrels(scratch / "packed.qrels").frame, read_qrels(scratch / "plain.qrels").frame
    )


def test_collapse_blanks_matches_line_by_line_reference() -> None:
    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.text(st.sampled_from(list(BLANKS + "\nab#\u00e9")), max_size=40))
    def check(text: str) -> None:
        data = text.encode()
        lines = [b" ".join(raw.split()) for raw in data.split(b"\n")]
        expected = b"\n".join(line for line in lines if line)
        out = trec._collapse_blanks(data)
        assert out in (expected, expected + b"\n") if expected else out == b""

    check()


_BAD_RELEVANCE = ["x", "1e3", "0x1", "1_0", "\u00bd", "\u0661", "--1", "+-1", "1.e3", "inf"]
_BAD_SCORE = ["abc", "1,5", "0x10", "1.5abc", "1e", "e3", "--1", ".", "+", "1..2", "infinit"]
_NAN_SCORE = ["nan", "NaN", "-nan", "+NAN"]


@st.composite
def corrupted(draw: st.DrawFn, kind: str) -> tuple[list[list[str] | bytes], int, str]:
    """Valid records with one line broken: the lines, the broken index, the problem."""
    records = draw(qrels_records if kind == "qrels" else run_records)
    rows = [as_fields(r) for r in records]
    i = draw(st.integers(0, len(rows) - 1))
    fields = list(rows[i])
    hows = ["short", "utf8", "utf8-comment", "duplicate"]
    hows += ["long", "relevance", "overflow"] if kind == "qrels" else ["score", "nan"]
    how = draw(st.sampled_from(hows))
    if how == "duplicate" and i == 0:
        how = "short"
    want = 4 if kind == "qrels" else 6
    lines: list[list[str] | bytes] = list(rows)
    if how == "short":
        fields = fields[: draw(st.integers(1, want - 1))]
        problem = f"expected {want} fields"
    elif how == "long":
        fields.append(draw(ids))
        problem = "expected 4 fields (qid iter docno rel), got 5"
    elif how == "relevance":
        fields[3] = draw(st.sampled_from(_BAD_RELEVANCE))
        problem = f"relevance must be an integer or a decimal number, got {fields[3]!r}"
    elif how == "overflow":
        fields[3] = draw(st.sampled_from([str(2**63), str(-(2**63) - 1), "9" * 30]))
        problem = "does not fit in a 64-bit integer"
    elif how == "score":
        fields[4] = draw(st.sampled_from(_BAD_SCORE))
        problem = f"score must be a number, got {fields[4]!r}"
    elif how == "nan":
        fields[4] = draw(st.sampled_from(_NAN_SCORE))
        problem = "score is NaN"
    elif how == "duplicate":
        earlier = rows[draw(st.integers(0, i - 1))]
        fields[0], fields[2] = earlier[0], earlier[2]
        problem = f"duplicate document {fields[2]!r} for query {fields[0]!r} (first seen on line"
    else:
        problem = "is not valid UTF-8"
        junk = draw(st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\xe2\x82"]))
        if how == "utf8":
            k = draw(st.integers(0, len(fields) - 1))
            lines[i] = b" ".join(
                f.encode() + (junk if n == k else b"") for n, f in enumerate(fields)
            )
        else:
            lines.insert(i, b"# " + junk)
        return lines, i, problem
    lines[i] = fields
    return lines, i, problem


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_any_single_bad_line_is_reported_exactly(scratch: Path, kind: str) -> None:
    # Qrels with trec_eval's policy: any repeat, even of the same relevance, is refused.
    strict_qrels = functools.partial(read_qrels, duplicates="error")
    reader = strict_qrels if kind == "qrels" else read_run

    @settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(case=corrupted(kind), data=st.data())
    def check(case: tuple[list[list[str] | bytes], int, str], data: st.DataObject) -> None:
        lines, index, problem = case
        content, number = data.draw(decorated_file(lines, index))
        assert number is not None
        path = put(scratch, content, f"broken.{kind}")
        with pytest.raises(InputError) as info:
            reader(path)
        raw = content.removeprefix(BOM).split(b"\n")[number - 1]
        check_error(info.value, path, number, problem, raw.strip().decode("utf-8", "replace"))
        if "duplicate" in problem:
            first = info.value.problem.rsplit(" ", 1)[1].rstrip(")")
            assert int(first) < number

    check()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=run_records)
def test_write_read_run_round_trip_is_exact(scratch: Path, records: list[tuple[Any, ...]]) -> None:
    path = put(scratch, plain_file(records), "orig.run")
    run = read_run(path)
    write_run(run, scratch / "copy.run")
    back = read_run(scratch / "copy.run")
    assert back.tag == run.tag
    key = ["query_id", "doc_id"]
    a, b = run.frame.sort(key), back.frame.sort(key)
    assert a.select(key).equals(b.select(key))
    bits_a = a.get_column("score").to_numpy().view(np.int64)
    bits_b = b.get_column("score").to_numpy().view(np.int64)
    assert (bits_a == bits_b).all()  # exact, including -0.0 and subnormals


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scores=st.lists(st.floats(width=64, allow_nan=False), min_size=1, max_size=200))
def test_write_run_writes_each_score_as_its_cast_to_a_string(
    scratch: Path, scores: list[float]
) -> None:
    """polars' writer formats the float column itself; its text must stay the cast's (the
    shortest that reads back the same), which is what the files written before had. (A run
    holds no NaN score: reading one refuses it.)"""
    docs = [f"d{i}" for i in range(len(scores))]
    run = load_run(pl.DataFrame({"query_id": "q", "doc_id": docs, "score": scores}))
    path = scratch / "scores.run"
    write_run(run, path)
    written = {line.split(" ")[2]: line.split(" ")[4] for line in path.read_text().splitlines()}
    cast = pl.Series(scores, dtype=pl.Float64).cast(pl.String).to_list()
    assert [written[d] for d in docs] == cast


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=qrels_records)
def test_write_read_qrels_round_trip_is_exact(
    scratch: Path, records: list[tuple[str, ...]]
) -> None:
    qrels = read_qrels(put(scratch, plain_file(records), "orig.qrels"))
    write_qrels(qrels, scratch / "copy.qrels")
    assert_frame_equal(read_qrels(scratch / "copy.qrels").frame, qrels.frame)


def test_bare_carriage_returns_are_refused_not_glued(tmp_path: Path) -> None:
    """Old Mac line ends would turn the file into one line whose extra fields are ignored."""
    path = tmp_path / "mac.run"
    path.write_bytes(b"301 Q0 d1 1 2.0 t\r301 Q0 d2 2 1.0 t\r")
    with pytest.raises(InputError, match=r"mac\.run:1: holds several run lines separated by"):
        read_run(path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    records=run_records,
    size=st.integers(1, 200),
    order=st.sampled_from(["as drawn", "grouped", "reversed"]),
)
def test_block_reading_property(
    scratch: Path, records: list[tuple[Any, ...]], size: int, order: str
) -> None:
    clean = [(*r[:6], []) for r in records]  # six fields: the files blocks are made for
    if order == "grouped":
        clean.sort(key=lambda r: r[0])
    elif order == "reversed":
        clean.reverse()
    data = plain_file(clean)
    path = put(scratch, data, "blocks.run")
    assert _blocks_of(path, size) is not None
    with mock.patch.object(trec, "BLOCK_BYTES", size):
        got = read_run(path)
    expected = _whole(path)
    assert_frame_equal(got.frame, expected.frame)
    assert got.tag == expected.tag
    assert_same_stretches(got, expected)
    # and a pair repeated anywhere is found, whatever the cut
    twin = (*clean[0][:4], "0", clean[-1][5], [])
    put(scratch, data + plain_file([twin]), "twin.run")
    with mock.patch.object(trec, "BLOCK_BYTES", size), pytest.raises(InputError) as caught:
        read_run(scratch / "twin.run")
    assert caught.value.line == len(clean) + 1
    assert "duplicate document" in caught.value.problem


@st.composite
def ranked_files(draw: st.DrawFn) -> bytes:
    """Run files as engines write them: grouped by query, scores never increasing, many ties.

    Now and then a query's scores rise once (not sorted), so both answers are exercised.
    """
    lines = []
    queries = draw(st.lists(st.sampled_from(["1", "2", "10", "q", "Q"]), min_size=1, unique=True))
    for query in queries:
        docs = draw(st.lists(st.sampled_from(["a", "B", "b", "d10", "d9", "\u00e9"]), unique=True))
        scores = sorted(
            draw(
                st.lists(st.sampled_from([0.0, 1.5, 2.0]), min_size=len(docs), max_size=len(docs))
            ),
            reverse=True,
        )
        if len(scores) > 1 and draw(st.integers(0, 9)) == 0:
            scores[-1] = scores[0] + 1  # rises at the end: this query is not sorted
        lines += [
            f"{query} Q0 {doc} 0 {score} t\n" for doc, score in zip(docs, scores, strict=True)
        ]
    return "".join(lines).encode() or b"1 Q0 a 0 1 t\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=ranked_files(), size=st.integers(1, 120))
def test_tie_orders_pieced_from_blocks_equal_the_whole_files(
    scratch: Path, data: bytes, size: int
) -> None:
    """Runs of ties cut by a block end, whole stretches tied over several blocks, a rise
    right at a cut: the order learnt block by block is the order of the whole frame."""
    path = put(scratch, data, "ranked.run")
    with mock.patch.object(trec, "BLOCK_BYTES", size):
        got = read_run(path)
    mine = got.known_tie_order  # handed on by the block reader
    assert mine is not None
    expected = Run(got.frame, name="whole")  # its own is computed from the frame
    assert expected.known_tie_order is None
    theirs = ranking.tie_order_of(expected)
    assert mine.descending == theirs.descending
    assert dict(zip(mine.positions.tolist(), mine.rows.tolist(), strict=True)) == dict(
        zip(theirs.positions.tolist(), theirs.rows.tolist(), strict=True)
    )


# --------------------------------------------------------------------------- bounded memory

LONG_TAG = "t" * (3 << 20)  # a line of 3 MiB, built here
LINE_TOO_LONG = (
    "is longer than 1 MiB, the longest line cranfield reads "
    "(raise the limit with the environment variable CRANFIELD_MAX_LINE_BYTES)"
)


def _long_line_run() -> bytes:
    """A run whose line 45 (of 60, in the second query) is 3 MiB long."""
    lines = [f"q{q} Q0 d{d} {d} {30 - d} run" for q in (1, 2) for d in range(30)]
    lines[44] = lines[44].replace(" run", f" {LONG_TAG}")
    return "\n".join(lines).encode() + b"\n"


@pytest.mark.parametrize("size", [100, 1 << 20, 8 << 20])
def test_a_long_line_is_an_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    """Wherever the blocks are cut (before, in or after the line), the careful reader names
    it; the blocks never search for a line end further than the longest line."""
    path = put(tmp_path, _long_line_run(), "run.txt")
    with pytest.raises(InputError) as caught:
        _read_in_blocks(path, size, monkeypatch)
    check_error(caught.value, path, 45, LINE_TOO_LONG, None)


@pytest.mark.parametrize("size", [100, 1 << 20, 8 << 20])
def test_a_long_line_is_read_under_a_raised_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    data = _long_line_run() + b"q3 Q0 d 1 1 " + LONG_TAG.encode()  # and last, without \n
    path = put(tmp_path, data, "run.txt")
    monkeypatch.setenv("CRANFIELD_MAX_LINE_BYTES", "4MiB")
    assert _blocks_of(path, size) is not None  # the blocks read it
    run = _read_in_blocks(path, size, monkeypatch)
    assert run_rows(run) == reference_rows(data, "run")
    assert run.tag == LONG_TAG


def _stdin_run(data: bytes, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(sys, "stdin", FakeStdin(data))
    return "-"


@pytest.mark.parametrize("kind", ["plain", *COMPRESSORS])
@pytest.mark.parametrize("where", ["file", "stdin"])
@pytest.mark.parametrize("mode", ["normal", "stream"])
def test_a_long_line_is_the_same_error_in_every_way_a_run_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, where: str, mode: str
) -> None:
    data = _long_line_run()
    packed = data if kind == "plain" else COMPRESSORS[kind](data)
    source = _stdin_run(packed, monkeypatch) if where == "stdin" else put(tmp_path, packed)
    name = "<stdin>" if where == "stdin" else str(source)
    qrels = {"q1": {"d1": 1}, "q2": {"d1": 1}}
    stream = functools.partial(cranfield.evaluate_stream, block_bytes=500)
    evaluate = cranfield.evaluate if mode == "normal" else stream
    with pytest.raises(InputError) as caught:
        evaluate(qrels, source, ["AP"])
    check_error(caught.value, name, 45, LINE_TOO_LONG, None)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_as_qrels_is_a_line_too_long(monkeypatch: pytest.MonkeyPatch) -> None:
    """No line end ever: stopped once the longest line is passed, not grown without end."""
    monkeypatch.setenv("CRANFIELD_MAX_LINE_BYTES", "64KiB")
    with pytest.raises(InputError) as caught:
        read_qrels("/dev/zero")
    check_error(
        caught.value,
        "/dev/zero",
        1,
        "is longer than 64 KiB, the longest line cranfield reads",
        None,
    )


def test_a_decompression_bomb_is_refused_at_the_most_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A few KiB of bzip2 that expand to comment lines only: refused at the limit (lowered
    here; the default, 2 GiB, is too much to build in a test), not read until memory ends."""
    bomb = bz2.compress(b"# nothing but comments\n" * 100_000)
    path = put(tmp_path, bomb, "qrels.txt.bz2")
    monkeypatch.setenv("CRANFIELD_MAX_TEXT_BYTES", "1MiB")
    with pytest.raises(InputError) as caught:
        read_qrels(path)
    assert str(caught.value).startswith(f"{path}: decompresses to more than 1 MiB of text, ")
    monkeypatch.setenv("CRANFIELD_MAX_TEXT_BYTES", "4MiB")
    with pytest.raises(InputError, match="contains no qrels lines"):
        read_qrels(path)


def test_a_qrels_line_of_many_fields_is_refused_with_their_number(tmp_path: Path) -> None:
    line = "301 0 d1 1" + " x" * 300_000
    path = put(tmp_path, QRELS + line.encode() + b"\n", "qrels.txt")
    with pytest.raises(InputError) as caught:
        read_qrels(path)
    check_error(caught.value, path, 4, "expected 4 fields (qid iter docno rel), got 300004", line)


def test_a_run_line_of_many_fields_keeps_its_first_six(tmp_path: Path) -> None:
    """Fields after the sixth are ignored (as trec_eval does), however many."""
    path = put(tmp_path, RUN + b"302 Q0 d9 2 1.5 runB" + b" x" * 300_000 + b"\n", "run.txt")
    assert run_rows(read_run(path))[-1] == ("302", "d9", 1.5)


@pytest.mark.parametrize("reader", [read_qrels, read_run])
def test_running_out_of_memory_is_an_error_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: Callable[[Path], object]
) -> None:
    def no_memory(*_: object) -> NoReturn:
        raise MemoryError

    monkeypatch.setattr(trec, "_parse", no_memory)
    monkeypatch.setattr(trec, "_fast_run", no_memory)
    path = put(tmp_path, b"301 Q0 d1 1 1.0 t\r\n", "input.txt")
    with pytest.raises(InputError) as caught:
        reader(path)
    assert str(caught.value) == (
        f"{path}: does not fit in memory; evaluate a run with --stream (evaluate_stream in Python)"
    )


def _blocks_of(path: Path, size: int) -> object:
    """What the block reader makes of the file ``path`` (opened for it, as its callers do)."""
    with path.open("rb") as handle:
        return trec._fast_run_blocks(handle, size)


def test_write_run_parts_writes_what_write_run_writes_of_the_parts_joined(tmp_path: Path) -> None:
    from cranfield.io.trec import write_run_parts

    first = load_run({"a": {"d1": 1.0, "d2": 2.0}, "b": {"d1": 0.5}}, name="x")
    second = load_run({"c": {"d3": 1.5, "d4": 1.5}}, name="x")
    joined = load_run({"a": {"d1": 1.0, "d2": 2.0}, "b": {"d1": 0.5}, "c": {"d3": 1.5, "d4": 1.5}})
    write_run(joined, tmp_path / "joined.run", tag="t")
    assert write_run_parts(iter([first, second]), tmp_path / "parts.run", tag="t") == (5, 3)
    assert (tmp_path / "parts.run").read_bytes() == (tmp_path / "joined.run").read_bytes()


def test_write_run_parts_names_the_row_of_the_whole_file_and_writes_nothing(
    tmp_path: Path,
) -> None:
    from cranfield.io.trec import write_run_parts

    first = load_run({"a": {"d1": 1.0, "d2": 2.0}, "b": {"d1": 0.5}})
    bad_doc = load_run({"c": {"d3": 1.5, "d 4": 1.0}})
    bad_query = load_run({"d": {"d1": 1.0}, "e f": {"d1": 1.0}})
    path = tmp_path / "parts.run"
    with pytest.raises(InputError) as info:
        write_run_parts([first, bad_doc], path)
    check_error(info.value, path, None, "the doc_id of row 5 contains a blank", "d 4")
    with pytest.raises(InputError) as info:
        write_run_parts([first, bad_query], path)
    check_error(info.value, path, None, "the query_id of row 5 contains a blank", "e f")
    assert not path.exists()
