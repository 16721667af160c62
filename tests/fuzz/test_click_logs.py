"""The click-log readers on generated and damaged files: the sessions a plain reference
reader of the documented WSCD format finds, or one :class:`~cranfield.errors.InputError`
naming the file and the line of the first session the reference finds wrong; the tables
(JSON Lines, CSV, TSV) give sessions or one such error, never another exception.

The WSCD reader reads its text a piece at a time; it is run here with pieces of a few bytes,
so that sessions, ids and line ends are cut at every place."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from unittest import mock

import numpy as np
from hypothesis import event, given
from hypothesis import strategies as st

from cranfield.data.sessions import Sessions
from cranfield.errors import InputError
from cranfield.io.click_logs import read_sessions
from tests.fuzz.conftest import fuzz

Session = tuple[str, list[str], list[str]]


class ReferenceError(Exception):
    """The reference's verdict: the session on ``line`` is malformed."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


def _plain_id(text: str) -> bool:
    return bool(text) and len(text.split()) == 1


def reference(text: bytes) -> list[Session]:
    """The sessions of WSCD text, as the module notes of io/click_logs.py say: sessions end
    at ``;`` or a line end; ``QUERY<TAB>DOCS : CLICKS``; blanks around ids ignored; a blank
    session skipped; no empty id, no blank inside an id, no second ``:``, no document shown
    twice."""
    sessions: list[Session] = []
    for number, line in enumerate(text.split(b"\n"), start=1):
        for raw in line.split(b";"):
            if not raw.strip():
                continue
            try:
                record = raw.strip().decode("utf-8")
            except UnicodeDecodeError:
                raise ReferenceError(number) from None
            if "\t" not in record:
                raise ReferenceError(number)
            query, rest = record.split("\t", 1)
            if rest.count(":") != 1:
                raise ReferenceError(number)
            shown_text, clicks_text = rest.split(":")
            shown = [d.strip() for d in shown_text.split(",")]
            clicks = [c.strip() for c in clicks_text.split(",")] if clicks_text.strip() else []
            if not _plain_id(query.strip()) or not all(map(_plain_id, shown + clicks)):
                raise ReferenceError(number)
            if len(set(shown)) < len(shown):
                raise ReferenceError(number)
            sessions.append((query.strip(), shown, clicks))
    return sessions


def as_lists(s: Sessions) -> list[Session]:
    docs = np.array((*s.doc_ids, ""), dtype=object)
    start = s.click_start
    return [
        (
            s.query_ids[s.query[i]],
            docs[s.shown[i][s.shown[i] >= 0]].tolist(),
            docs[s.click_doc[start[i] : start[i + 1]]].tolist(),
        )
        for i in range(len(s))
    ]


IDS = st.sampled_from(["1", "22", "d3", "4_0", "x", "55555"])
BLANK = st.sampled_from(["", " ", "  ", "\t", "\r"])


@st.composite
def wscd_text(draw: st.DrawFn) -> bytes:
    """A WSCD log of a few sessions, with stray blanks, line ends and empty sessions."""
    parts: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        shown = draw(st.lists(IDS, min_size=1, max_size=5, unique=True))
        clicks = draw(st.lists(IDS, max_size=4))
        b = draw(BLANK)
        session = f"{b}{draw(IDS)}_q\t{','.join(shown)}{b}:{b}{f' {b}, '.join(clicks)}{b}"
        parts.append(session + draw(st.sampled_from([";", "; ", ";\n", "\n", ";;", "; \n"])))
    return "".join(parts).encode()


@st.composite
def damaged(draw: st.DrawFn, text: bytes) -> bytes:
    """``text`` with a few random changes."""
    data = bytearray(text)
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.integers(0, len(data)))
        how = draw(st.sampled_from(["flip", "cut", "insert", "repeat", "truncate"]))
        if how == "flip" and where < len(data):
            data[where] = draw(st.sampled_from(list(b" \t\n;:,\xff\x00a")))
        elif how == "cut":
            del data[where : where + draw(st.integers(1, 4))]
        elif how == "insert":
            data[where:where] = draw(
                st.sampled_from([b";", b":", b",", b"\t", b"\n", b" x", b"\xc3"])
            )
        elif how == "repeat":
            data[where:where] = data[max(0, where - 12) : where]
        else:
            del data[where:]
    return bytes(data)


def check_against_reference(text: bytes, piece: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.txt"
        path.write_bytes(text)
        try:
            expected = reference(text)
        except ReferenceError as bad:
            line = bad.line
            event("malformed")
            with mock.patch("cranfield.io.click_logs._CHUNK", piece):
                try:
                    read_sessions(path, format="wscd")
                except InputError as exc:
                    message = str(exc)
                    assert message.startswith(f"{path}:{line}: session "), (message, line)
                    assert "\n" not in message
                else:
                    raise AssertionError(
                        f"read a log the reference refuses at line {line}"
                    ) from None
            return
        event("valid")
        with mock.patch("cranfield.io.click_logs._CHUNK", piece):
            got = read_sessions(path, format="wscd")
        assert as_lists(got) == expected


@fuzz(80)
@given(text=wscd_text(), piece=st.integers(1, 40))
def test_generated_wscd_logs_read_as_the_reference_reads_them(text: bytes, piece: int) -> None:
    check_against_reference(text, piece)


@fuzz(120)
@given(data=st.data(), piece=st.integers(1, 40))
def test_damaged_wscd_logs_read_as_the_reference_or_fail_on_its_line(
    data: st.DataObject, piece: int
) -> None:
    text = data.draw(damaged(data.draw(wscd_text())))
    check_against_reference(text, piece)


def _table(format_: str) -> bytes:
    rows = [
        {"query_id": "q1", "shown": ["a", "b"], "clicks": ["b", "z"], "click_times": [1.5, 3]},
        {"query_id": "q2", "shown": ["c"], "clicks": [], "click_times": []},
    ]
    if format_ == "jsonl":
        return "".join(json.dumps(r) + "\n" for r in rows).encode()
    sep = "," if format_ == "csv" else "\t"
    lines = [sep.join(rows[0])] + [
        sep.join(" ".join(map(str, v)) if isinstance(v, list) else v for v in r.values())
        for r in rows
    ]
    return ("\n".join(lines) + "\n").encode()


@fuzz(90)
@given(data=st.data(), format_=st.sampled_from(["jsonl", "csv", "tsv"]), named=st.booleans())
def test_damaged_tables_read_or_are_one_input_error(
    data: st.DataObject, format_: str, named: bool
) -> None:
    text = data.draw(damaged(_table(format_)))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"log.{format_}"
        path.write_bytes(text)
        try:
            read_sessions(path, format=format_ if named else None)  # type: ignore[arg-type]
        except InputError as exc:
            event("input error")
            message = str(exc)
            assert message.startswith(str(path)), message
            assert "\n" not in message
        else:
            event("read")


def test_the_valid_tables_read(tmp_path: Path) -> None:
    for format_ in ("jsonl", "csv", "tsv"):
        path = tmp_path / f"log.{format_}"
        path.write_bytes(_table(format_))
        assert len(read_sessions(path)) == 2
