"""The label and duplicate rules of ``data/judgments.py`` in every qrels form: TREC text,
Parquet, polars, pandas, Arrow and dicts give the same judgments, numbers and notes (the
notes name a row where text names a line)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import cranfield
from cranfield.data.judgments import DECIMAL_NOTE_TAIL
from cranfield.errors import InputError, QrelsNoteWarning
from cranfield.io.columnar import write_parquet
from cranfield.io.load import load_qrels
from cranfield.io.trec import read_qrels

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

pytestmark = pytest.mark.filterwarnings("ignore::cranfield.errors.QrelsNoteWarning")

ROWS = [("1", "a", 1.7), ("1", "b", 0.0), ("1", "c", 2.0), ("2", "d", 0.5), ("2", "e", -0.5)]
TEXT = b"1 0 a 1.7\n1 0 b 0\n1 0 c 2\n2 0 d .5\n2 0 e -0.5\n"
RUN = b"1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n2 Q0 e 1 3 t\n2 Q0 d 2 2 t\n"
MEASURES = ["nDCG@10", "ERR@10", "RBP(p=0.8)", "P@3", "P(rel=2)@3", "AP", "R@3"]


def _frame(rows: list[tuple[str, str, Any]]) -> pl.DataFrame:
    q, d, r = zip(*rows, strict=True)
    return pl.DataFrame({"qid": list(q), "docno": list(d), "rel": list(r)}, strict=False)


class _Id:
    """A dict key that reads as ``text``: a dict repeats a pair only through such keys."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


def _dict(rows: list[tuple[str, str, Any]]) -> dict[Any, dict[str, Any]]:
    return {_Id(q): {d: r} for q, d, r in rows}


def _parquet(tmp_path: Path) -> Callable[[list[tuple[str, str, Any]]], Any]:
    def write(rows: list[tuple[str, str, Any]]) -> Path:
        path = tmp_path / "qrels.parquet"
        _frame(rows).write_parquet(path)
        return path

    return write


FORMS: dict[str, Callable[..., Any]] = {
    "polars": _frame,
    "pandas": lambda rows: _frame(rows).to_pandas(),
    "arrow": lambda rows: _frame(rows).to_arrow(),
    "dict": _dict,
}
LABELS = {"polars": "<DataFrame>", "pandas": "<DataFrame>", "arrow": "<Table>", "dict": "<dict>"}


def _form(name: str, tmp_path: Path) -> tuple[Callable[..., Any], str]:
    if name == "parquet":
        return _parquet(tmp_path), str(tmp_path / "qrels.parquet")
    return FORMS[name], LABELS[name]


ALL_FORMS = ["parquet", *FORMS]


@pytest.mark.parametrize("form", ALL_FORMS)
def test_decimal_labels_score_as_the_same_trec_text(tmp_path: Path, form: str) -> None:
    make, label = _form(form, tmp_path)
    text = tmp_path / "llm.qrels"
    text.write_bytes(TEXT)
    run = tmp_path / "r.run"
    run.write_bytes(RUN)
    qrels = load_qrels(make(ROWS))
    assert qrels.frame.equals(read_qrels(text).frame)
    assert qrels.notes == (
        f"{label}:1: 3 relevance label(s) are not integers (the first: 1.7); " + DECIMAL_NOTE_TAIL,
    )
    got = cranfield.evaluate(make(ROWS), run, MEASURES)
    want = cranfield.evaluate(text, run, MEASURES)
    for measure in MEASURES:
        assert got.per_query(measure) == want.per_query(measure), measure
    assert got.notes == qrels.notes


def test_decimal_labels_as_text_and_the_first_row_named() -> None:
    qrels = load_qrels({"1": {"a": "2", "b": "+.5", "c": "2."}})
    assert qrels.frame.get_column("relevance").to_list() == [2, 0, 2]
    assert qrels.frame.get_column("gain").to_list() == [2.0, 0.5, 2.0]
    assert qrels.notes[0].startswith(
        "<dict>:2: 1 relevance label(s) are not integers (the first: '+.5'); "
    )


def test_integral_floats_are_integer_labels() -> None:
    qrels = load_qrels(_frame([("1", "a", 1.0), ("1", "b", 0.0)]))
    assert qrels.frame.columns == ["query_id", "iteration", "doc_id", "relevance"]
    assert qrels.notes == ()


@pytest.mark.parametrize("form", ALL_FORMS)
def test_identical_repeats_merge_with_a_note(tmp_path: Path, form: str) -> None:
    make, label = _form(form, tmp_path)
    rows = [("1", "a", 2), ("1", "b", 0), ("1", "a", 2), ("2", "d", 1)]
    with pytest.warns(QrelsNoteWarning) as caught:
        qrels = load_qrels(make(rows))
    assert [str(w.message) for w in caught] == list(qrels.notes)  # one warning per note
    assert qrels.to_dict() == {"1": {"a": 2, "b": 0}, "2": {"d": 1}}
    assert qrels.notes == (
        f"{label}: 1 repeated judgment row(s) merged (the first: query '1', document 'a').",
    )
    with pytest.raises(InputError, match=r":3: duplicate document 'a' for query '1' \(first seen"):
        load_qrels(make(rows), duplicates="error")


@pytest.mark.parametrize("form", ALL_FORMS)
def test_conflicts_are_refused_or_resolved_as_in_text(tmp_path: Path, form: str) -> None:
    make, label = _form(form, tmp_path)
    rows = [("1", "a", 2), ("1", "b", 0), ("1", "a", 3), ("1", "a", 0.5)]
    with pytest.raises(InputError) as info:
        load_qrels(make(rows))
    assert str(info.value) == (
        f"{label}:3: duplicate document 'a' for query '1' judged 2.0 on row 1 and 3.0 here; "
        "keep one with duplicates='first', 'last' or 'max' (--duplicates)"
    )
    text = tmp_path / "conflict.qrels"
    text.write_bytes(b"1 0 a 2\n1 0 b 0\n1 0 a 3\n1 0 a .5\n")
    for policy in ("first", "last", "max"):
        got = load_qrels(make(rows), duplicates=policy)  # type: ignore[arg-type]
        want = read_qrels(text, duplicates=policy)  # type: ignore[arg-type]
        assert got.frame.equals(want.frame), policy
        assert got.notes[1] == want.notes[1].replace(str(text), label).replace("line", "row")


def test_parquet_keeps_decimal_labels_when_written(tmp_path: Path) -> None:
    text = tmp_path / "llm.qrels"
    text.write_bytes(TEXT)
    write_parquet(read_qrels(text), tmp_path / "llm.parquet")
    assert load_qrels(tmp_path / "llm.parquet").frame.equals(read_qrels(text).frame)


def test_runs_in_frames_keep_refusing_repeats() -> None:
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "score": [1.0, 1.0]})
    with pytest.raises(InputError, match="duplicate document 'a' for query '1'"):
        cranfield.evaluate({"1": {"a": 1}}, frame, ["AP"], duplicates="max")
    table = pa.table({"qid": ["1", "1"], "docno": ["a", "a"], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match="first seen on row 1"):
        cranfield.evaluate({"1": {"a": 1}}, table, ["AP"])
