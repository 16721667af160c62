"""``io/click_logs.py``: the WSCD text of the Yandex logs, the tables of sessions (JSON Lines,
CSV, TSV, Parquet), their errors, and the writers' round trip."""

from __future__ import annotations

import gzip
import io
from typing import TYPE_CHECKING

import numpy as np
import polars as pl
import pytest

from cranfield.data.sessions import Sessions
from cranfield.errors import InputError, OptionError
from cranfield.io.click_logs import (
    detect_log_format,
    read_sessions,
    sessions_from_frame,
    write_sessions,
)
from tests.conftest import SHARED, require

if TYPE_CHECKING:
    from pathlib import Path

CLICKS = SHARED / "data" / "clicks"

WSCD = b"7_0\ta,b,c : b , x , b; 7_0\ta,c,b :;  \n8_1\tc , d :c;\n"


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_wscd_small(tmp_path: Path) -> None:
    s = read_sessions(write(tmp_path, "log.txt", WSCD))
    assert s.query_ids == ("7_0", "8_1")
    assert s.doc_ids == ("a", "b", "c", "d", "x")  # the shown first, then the clicked
    assert s.query.tolist() == [0, 0, 1]
    assert s.shown.tolist() == [[0, 1, 2], [0, 2, 1], [2, 3, -1]]
    assert s.click_session.tolist() == [0, 0, 0, 2]
    assert s.click_rank.tolist() == [1, -1, 1, 0]
    assert s.source.endswith("log.txt")


def test_wscd_gzip_and_stdin_with_format(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "log.gz", gzip.compress(WSCD))
    assert len(read_sessions(path)) == 3
    fake = io.TextIOWrapper(io.BytesIO(WSCD))
    monkeypatch.setattr("sys.stdin", fake)
    assert len(read_sessions("-", format="wscd")) == 3


def test_wscd_without_final_separator_or_line_end(tmp_path: Path) -> None:
    s = read_sessions(write(tmp_path, "log.txt", b"q\ta,b : a;q\tb,a : a"), format="wscd")
    assert s.click_rank.tolist() == [0, 1]


@pytest.mark.parametrize(
    ("data", "where", "problem"),
    [
        (b"q\ta,b : a;\nq a,b : a;", ":2: session 2:", "no tab after the query id"),
        (b"q\ta,b : a;\n\nq\ta,b a;", ":3: session 2:", "expected ' : ' between"),
        (b"q\ta,b : a : b;", ":1: session 1:", "has a second ':'"),
        (b"q\ta,,b : a;", ":1: session 1:", "a document shown has an empty id"),
        (b"q\ta,b : a , ;", ":1: session 1:", "a clicked document has an empty id"),
        (b"q\ta,b c : a;", ":1: session 1:", r"one with a blank inside \('b c'\)"),
        (b"q\ta,b,a : a;", ":1: session 1:", "shows the document 'a' twice"),
        (b"q\ta : a; q\ta :; \xff\ta : a;", ":1: session 3:", "is not UTF-8 text"),
    ],
)
def test_wscd_errors_name_line_and_session(
    tmp_path: Path, data: bytes, where: str, problem: str
) -> None:
    with pytest.raises(InputError, match=problem) as caught:
        read_sessions(write(tmp_path, "log.txt", data), format="wscd")
    assert f"log.txt{where}" in str(caught.value)


def test_wscd_session_longer_than_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRANFIELD_MAX_LINE_BYTES", "64")
    ok = b"q\ta,b : a;" * 100  # a line of 1,000 bytes: sessions are what the limit bounds
    assert len(read_sessions(write(tmp_path, "ok.txt", ok), format="wscd")) == 100
    long = b"q\ta,b : a;\nq\t" + b"d," * 40 + b"e : e;"
    with pytest.raises(InputError, match=r"long\.txt:2: session 2 is longer than 64 bytes"):
        read_sessions(write(tmp_path, "long.txt", long), format="wscd")
    endless = b"q\t" + b"d" * 3_000_000
    with pytest.raises(InputError, match=r"endless\.txt:1: session 1 is longer than"):
        read_sessions(write(tmp_path, "endless.txt", endless), format="wscd")


@pytest.fixture(scope="module")
def yandex() -> dict[str, Sessions]:
    """The two Yandex samples, read once."""
    return {
        split: read_sessions(require(CLICKS / f"yandex-wscd-sample.{split}.txt.gz"))
        for split in ("train", "test")
    }


@pytest.mark.parametrize(
    ("split", "sessions", "with_click", "unshown", "repeated", "clicks"),
    [
        ("train", 35_064, 23_284, 191, 3_701, 50_321),
        ("test", 21_413, 15_295, 133, 2_262, 35_853),
    ],
)
def test_the_yandex_sample(
    yandex: dict[str, Sessions],
    split: str,
    sessions: int,
    with_click: int,
    unshown: int,
    repeated: int,
    clicks: int,
) -> None:
    """The figures of shared/data/clicks/README.md, read with the default limits (the
    files' lines are longer than the longest line allowed; their sessions are not)."""
    s = yandex[split]
    assert len(s) == sessions
    assert s.num_queries == 20
    assert s.depth == 10
    assert (s.num_shown == 10).all()
    assert int((s.clicks_per_session > 0).sum()) == with_click
    assert np.unique(s.click_session[s.click_rank < 0]).size == unshown
    pairs, counts = np.unique(
        np.stack([s.click_session, s.click_doc], axis=1), axis=0, return_counts=True
    )
    assert np.unique(pairs[counts > 1, 0]).size == repeated
    assert s.num_clicks == clicks


def test_yandex_train_and_test_share_queries(yandex: dict[str, Sessions]) -> None:
    assert set(yandex["train"].query_ids) == set(yandex["test"].query_ids)


# -- tables ---------------------------------------------------------------------------

JSONL = (
    b'{"query_id": "q1", "shown": ["a", "b"], "clicks": ["b", "z"], "click_times": [2.5, null],'
    b' "dwell_times": [30, 4], "time": 100, "user": 7, "bucket": "A"}\n'
    b"\n"
    b'{"query_id": "q2", "shown": [1, 2, 3], "clicks": [], "click_times": [], "dwell_times": [],'
    b' "time": null, "user": 8, "bucket": "B"}\n'
)
CSV = (
    b"query_id,shown,clicks,click_times,dwell_times,time,user,bucket\n"
    b"q1,a b,b z,2.5 1,30 4,100,7,A\n"
    b"q2,1 2  3,,,,,8,B\n"
)


def check_two(s: Sessions) -> None:
    assert s.query_ids == ("q1", "q2")
    assert s.shown.tolist() == [[0, 1, -1], [2, 3, 4]]
    assert s.doc_ids == ("a", "b", "1", "2", "3", "z")
    assert s.click_rank.tolist() == [1, -1]
    assert s.user_ids == ("7", "8")
    assert s.bucket_ids == ("A", "B")
    assert s.time is not None
    assert s.time[0] == 100.0
    assert np.isnan(s.time[1])
    assert s.dwell is not None
    assert s.dwell.tolist() == [30.0, 4.0]


def test_json_lines(tmp_path: Path) -> None:
    s = read_sessions(write(tmp_path, "log.jsonl", JSONL))
    check_two(s)
    assert s.click_time is not None
    assert s.click_time[0] == 2.5
    assert np.isnan(s.click_time[1])


def test_json_lines_mixing_integer_and_string_ids(tmp_path: Path) -> None:
    data = (
        b'{"query_id": 1, "shown": [1, 2], "clicks": [2]}\n'
        b'{"query_id": "q", "shown": ["a", 3], "clicks": null, "time": "5"}\n'
    )
    s = read_sessions(write(tmp_path, "log.jsonl", data))
    assert s.query_ids == ("1", "q")
    assert s.doc_ids == ("1", "2", "a", "3")
    assert s.clicks_per_session.tolist() == [1, 0]
    assert s.time is not None
    assert s.time[1] == 5.0
    bad = data.replace(b"[2]}", b"[[2]]}")
    with pytest.raises(InputError, match=r"log\.jsonl:1: the column 'clicks' holds '\[\[2\]\]'"):
        read_sessions(write(tmp_path, "log.jsonl", bad))


def test_csv_and_tsv(tmp_path: Path) -> None:
    s = read_sessions(write(tmp_path, "log.csv", CSV))
    assert s.click_time is not None
    assert s.click_time.tolist() == [2.5, 1.0]
    check_two(s)
    s = read_sessions(write(tmp_path, "log.tsv", CSV.replace(b",", b"\t")))
    check_two(s)


def test_csv_row_with_times_of_the_wrong_length(tmp_path: Path) -> None:
    with pytest.raises(
        InputError, match=r"log\.csv:2: the column 'click_times' has 1 values for 2 clicks"
    ):
        read_sessions(write(tmp_path, "log.csv", CSV.replace(b"2.5 1", b"2.5")))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b'{"query_id": "q", "shown": ["a"], "clicks": []}\n{"query_id": "q", "shown": ["a"]\n',
            r":2: is not a JSON",
        ),
        (b'{"query_id": "q", "shown": ["a"], "clicks": []}\n[1]\n', r":2: is not a JSON object"),
        (b'{"query_id": "q", "shown": ["a"]}\n', "the column 'clicks' is missing"),
        (
            b'{"query_id": "q", "shown": ["a"], "clicks": [], "score": 1}\n',
            "the column 'score' is not a column",
        ),
        (
            b'\n{"query_id": null, "shown": ["a"], "clicks": []}\n',
            r":2: the column 'query_id' is empty",
        ),
        (
            b'{"query_id": "q", "shown": null, "clicks": []}\n',
            r":1: the column 'shown' is empty \(null\)",
        ),
        (
            b'{"query_id": "q", "shown": ["a", ""], "clicks": []}\n',
            r":1: the column 'shown' holds an empty id",
        ),
        (b'{"query_id": "q", "shown": ["a", "a"], "clicks": []}\n', r":1: shows a document twice"),
        (
            b'{"query_id": "q", "shown": ["a"], "clicks": [], "time": "x"}\n',
            r":1: the column 'time' holds 'x'",
        ),
        (
            b'{"query_id": "q", "shown": ["a"], "clicks": ["a"], "dwell_times": [-1]}\n',
            r":1: the column 'dwell_times' holds -1\.0, not a number of seconds >= 0",
        ),
        (
            b'{"query_id": "q", "shown": "a", "clicks": []}\n',
            r":1: the column 'shown' holds 'a', not a list of strings or integers",
        ),
        (
            b'{"query_id": 1.5, "shown": ["a"], "clicks": []}\n',
            r":1: the column 'query_id' holds '1\.5', not a string or an integer",
        ),
    ],
)
def test_json_lines_errors(tmp_path: Path, data: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message):
        read_sessions(write(tmp_path, "log.jsonl", data))


def test_csv_errors_name_the_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"log\.csv:1: the column 'rank' is not a column"):
        read_sessions(write(tmp_path, "log.csv", b"query_id,shown,clicks,rank\nq,a,a,1\n"))
    with pytest.raises(InputError, match=r"log\.csv:3: the column 'time' holds 'soon'"):
        read_sessions(
            write(tmp_path, "log.csv", b"query_id,shown,clicks,time\nq,a,a,1\nq,a,,soon\n")
        )
    with pytest.raises(InputError, match=r"log\.csv:3: the column 'click_times' holds 'x'"):
        read_sessions(
            write(tmp_path, "log.csv", b"query_id,shown,clicks,click_times\nq,a,a,1\nq,a,a,x\n")
        )


def test_parquet_errors_name_the_row(tmp_path: Path) -> None:
    path = tmp_path / "log.parquet"
    pl.DataFrame(
        {"query_id": ["q", "q"], "shown": [["a"], ["b", "b"]], "clicks": [[], []]}
    ).write_parquet(path)
    with pytest.raises(InputError, match=r"log\.parquet: row 2: shows a document twice"):
        read_sessions(path)
    path.write_bytes(b"PAR1 not really")
    with pytest.raises(InputError, match=r"log\.parquet: cannot be read as Parquet"):
        read_sessions(path)


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_round_trip(tmp_path: Path, suffix: str) -> None:
    original = read_sessions(write(tmp_path, "log.jsonl", JSONL))
    path = tmp_path / f"copy{suffix}"
    write_sessions(original, path)
    back = read_sessions(path)
    assert back.to_polars().equals(original.to_polars())
    wscd = read_sessions(write(tmp_path, "log.txt", WSCD))
    write_sessions(wscd, path)
    assert read_sessions(path).to_polars().equals(wscd.to_polars())


def test_write_refuses_an_unknown_format(tmp_path: Path) -> None:
    s = read_sessions(write(tmp_path, "log.txt", WSCD))
    with pytest.raises(OptionError, match="'format'"):
        write_sessions(s, tmp_path / "x", format="wscd")  # type: ignore[arg-type]


@pytest.mark.parametrize(("suffix", "separator"), [(".csv", ","), (".tsv", "\t")])
def test_csv_and_tsv_are_written_as_their_suffix_says(
    tmp_path: Path, suffix: str, separator: str
) -> None:
    """Any name but .parquet used to get JSON Lines: a .csv the CSV reader then refused."""
    original = read_sessions(write(tmp_path, "log.csv", CSV))
    path = tmp_path / f"copy{suffix}"
    write_sessions(original, path)
    assert path.read_text().splitlines()[:2] == [
        separator.join(["query_id", "shown", "clicks", "click_times", "dwell_times", "time"])
        + separator
        + separator.join(["user", "bucket"]),
        separator.join(["q1", "a b", "b z", "2.5 1.0", "30.0 4.0", "100.0", "7", "A"]),
    ]
    assert read_sessions(path).to_polars().equals(original.to_polars())


def test_what_csv_cannot_hold_is_refused_naming_the_session(tmp_path: Path) -> None:
    unknown = read_sessions(write(tmp_path, "log.jsonl", JSONL))  # click_times [2.5, null]
    path = tmp_path / "copy.csv"
    with pytest.raises(InputError, match=r"copy\.csv: session 1 has a click_times value not kn"):
        write_sessions(unknown, path)
    assert not path.exists()
    blank = read_sessions(
        write(tmp_path, "b.jsonl", b'{"query_id": "q", "shown": ["a b"], "clicks": []}\n')
    )
    with pytest.raises(InputError, match=r"session 1 has the id 'a b' in shown"):
        write_sessions(blank, tmp_path / "copy.tsv")


@pytest.mark.parametrize(
    ("name", "data"),
    [
        (
            "log.jsonl",
            b'{"query_id": "q", "shown": ["a"], "clicks": ["a"], "click_times": [NaN]}\n',
        ),
        ("log.csv", b"query_id,shown,clicks,dwell_times\nq,a,a,nan\n"),
        ("log.csv", b"query_id,shown,clicks,time\nq,a,,NaN\n"),
    ],
)
def test_a_nan_time_is_refused_like_an_infinite_one(tmp_path: Path, name: str, data: bytes) -> None:
    """NaN marks a time not known inside the arrays; written in a file it was read as one."""
    with pytest.raises(InputError, match=r"(holds nan, not a number of seconds|is NaN \(leave)"):
        read_sessions(write(tmp_path, name, data))


def test_a_nan_time_in_parquet_is_refused_and_a_null_is_not_known(tmp_path: Path) -> None:
    path = tmp_path / "log.parquet"
    frame = pl.DataFrame(
        {"query_id": ["q"], "shown": [["a", "b"]], "clicks": [["a", "b"]],
         "click_times": [[1.0, None]]}
    )  # fmt: skip
    frame.write_parquet(path)
    assert read_sessions(path).to_polars()["click_times"].to_list() == [[1.0, None]]  # not known
    frame.with_columns(pl.Series("click_times", [[1.0, float("nan")]])).write_parquet(path)
    with pytest.raises(InputError, match=r"row 1: the column 'click_times' holds nan"):
        read_sessions(path)


def test_from_a_frame_names_rows() -> None:
    frame = pl.DataFrame({"query_id": ["q", ""], "shown": [["a"], ["b"]], "clicks": [None, ["b"]]})
    with pytest.raises(InputError, match=r"<DataFrame>: row 2: the column 'query_id' is empty"):
        sessions_from_frame(frame)
    ok = sessions_from_frame(frame.with_columns(pl.Series("query_id", ["q", "r"])))
    assert ok.clicks_per_session.tolist() == [0, 1]


@pytest.mark.parametrize(
    ("name", "data", "format_"),
    [
        ("a.log", WSCD, "wscd"),
        ("a.log", JSONL, "jsonl"),
        ("a.log", CSV, "csv"),
        ("a.log", CSV.replace(b",", b"\t"), "tsv"),
        ("a.jsonl.gz", gzip.compress(JSONL, mtime=0), "jsonl"),
        ("a.txt.gz", gzip.compress(WSCD, mtime=0), "wscd"),
    ],
)
def test_detect_log_format(tmp_path: Path, name: str, data: bytes, format_: str) -> None:
    assert detect_log_format(write(tmp_path, name, data)) == format_


def test_detect_refuses_what_it_cannot_tell(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is not a click log cranfield recognises"):
        read_sessions(write(tmp_path, "a.log", b"q1 Q0 d 1 1.0 t\n"))
    with pytest.raises(
        InputError, match=r"<stdin>: is read once, so its format cannot be detected"
    ):
        read_sessions("-")
    with pytest.raises(InputError, match=r"nothing\.log: .*No such file"):
        read_sessions(tmp_path / "nothing.log")
    with pytest.raises(OptionError, match="'format'"):
        read_sessions(write(tmp_path, "a.log", WSCD), format="xml")  # type: ignore[arg-type]
