"""The metric table of ``cranfield logs ab`` (cranfield.io.metric_table): the same rows from
CSV, TSV, JSON Lines, Parquet and gzip, and every bad row named by file, line and column."""

from __future__ import annotations

import gzip
from typing import TYPE_CHECKING

import polars as pl
import pytest

from cranfield.errors import InputError
from cranfield.io.formats import table_format_of_name
from cranfield.io.metric_table import read_metric_table

if TYPE_CHECKING:
    from pathlib import Path

ROWS = [("u1", "A", "2", "10"), ("u1", "A", "0", "10"), ("u2", "B", "1.5", "8")]


def _write(path: Path, kind: str) -> Path:
    header = ("user", "bucket", "clicks", "shown")
    if kind in ("csv", "tsv"):
        sep = "," if kind == "csv" else "\t"
        path.write_text("\n".join(sep.join(r) for r in [header, *ROWS]) + "\n")
    elif kind == "jsonl":
        lines = [
            f'{{"user": "{u}", "bucket": "{b}", "clicks": {c}, "shown": {s}}}'
            for u, b, c, s in ROWS
        ]
        path.write_text("\n".join(lines) + "\n")
    else:
        pl.DataFrame(
            {
                "user": [r[0] for r in ROWS],
                "bucket": [r[1] for r in ROWS],
                "clicks": [float(r[2]) for r in ROWS],
                "shown": [int(r[3]) for r in ROWS],
            }
        ).write_parquet(path)
    return path


@pytest.mark.parametrize("kind", ["csv", "tsv", "jsonl", "parquet"])
def test_every_format_reads_the_same_rows(tmp_path: Path, kind: str) -> None:
    path = _write(tmp_path / f"s.{kind}", kind)
    t = read_metric_table(path, metric="clicks", bucket="bucket", unit="user", denominator="shown")
    assert t.values.tolist() == [2.0, 0.0, 1.5]
    assert t.buckets.tolist() == ["A", "A", "B"]
    assert t.units is not None
    assert t.units.tolist() == ["u1", "u1", "u2"]
    assert t.denominators is not None
    assert t.denominators.tolist() == [10.0, 10.0, 8.0]


def test_compressed_and_unsuffixed_files_are_recognised(tmp_path: Path) -> None:
    plain = _write(tmp_path / "s.tsv", "tsv")
    packed = tmp_path / "s.tsv.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert table_format_of_name(packed) == "tsv"
    assert read_metric_table(packed, metric="clicks", bucket="bucket").values.tolist()[0] == 2.0
    bare = tmp_path / "sessions"
    bare.write_bytes(_write(tmp_path / "x.jsonl", "jsonl").read_bytes())
    assert read_metric_table(bare, metric="clicks", bucket="bucket").buckets.tolist()[2] == "B"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "user,bucket\nu1,A\n",
            r"s\.csv:1: has no column 'clicks' \(its columns: 'user', 'bucket'\)",
        ),
        (
            "user,bucket,clicks\n\nu1,A,2\nu2,B,x\n",
            r"s\.csv:4: column 'clicks' is not a finite number: 'x'",
        ),
        ("user,bucket,clicks\nu1,A,2\nu2,,3\n", r"s\.csv:3: column 'bucket' is empty"),
        ("user,bucket,clicks\nu1,A,inf\n", r"s\.csv:2: column 'clicks' is not a finite number"),
        ("user,bucket,clicks\n", r"s\.csv: has no rows"),
        ("", r"s\.csv: is empty; expected a CSV header line"),
    ],
)
def test_bad_rows_name_the_file_line_and_column(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "s.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_metric_table(path, metric="clicks", bucket="bucket", unit="user")


def test_json_lines_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"bucket": "A", "clicks": 1}\n[1, 2]\n')
    with pytest.raises(InputError, match=r"s\.jsonl:2: is not a JSON object"):
        read_metric_table(path, metric="clicks", bucket="bucket")
    path.write_text('{"bucket": "A", "clicks": 1}\n{"bucket": "B", "clicks": true}\n')
    with pytest.raises(InputError, match=r"s\.jsonl:2: column 'clicks' is not a finite number"):
        read_metric_table(path, metric="clicks", bucket="bucket")


def test_negative_denominators_and_bad_parquet(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("bucket,clicks,shown\nA,1,2\nB,1,-1\n")
    with pytest.raises(InputError, match=r"s\.csv:3: column 'shown' is negative"):
        read_metric_table(path, metric="clicks", bucket="bucket", denominator="shown")
    fake = tmp_path / "s.parquet"
    fake.write_text("bucket,clicks\n")
    with pytest.raises(InputError, match="is not Parquet"):
        read_metric_table(fake, metric="clicks", bucket="bucket")
    with pytest.raises(InputError, match="missing"):
        read_metric_table(tmp_path / "missing.csv", metric="clicks", bucket="bucket")
