"""In-memory and columnar inputs: dicts, pandas, polars, Arrow, Parquet (cranfield.io.columnar).

Every way of handing over the same judgments or run must give the identical table, and
every defect (missing column, null, NaN, non-integral relevance, duplicate pair) must raise
:class:`~cranfield.errors.InputError` naming the row.
"""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from cranfield.data.qrels import Qrels
from cranfield.data.run import Run
from cranfield.errors import InputError
from cranfield.io import load_qrels, load_run
from cranfield.io.columnar import (
    read_parquet_qrels,
    read_parquet_run,
    to_polars_frame,
    write_parquet,
)
from cranfield.io.trec import read_qrels, read_run


def check_error(exc: InputError, source: str, row: int | None, problem: str) -> None:
    assert exc.source == source
    assert exc.line == row
    assert problem in exc.problem
    where = f"{source}:{row}: " if row is not None else f"{source}: "
    assert str(exc).startswith(where)


def qrels_error(obj: Any) -> InputError:
    with pytest.raises(InputError) as info:
        load_qrels(obj)
    return info.value


def run_error(obj: Any) -> InputError:
    with pytest.raises(InputError) as info:
        load_run(obj)
    return info.value


QRELS_DICT = {"301": {"d1": 1, "d2": 0}, "302": {"d3": 2}}
RUN_DICT = {"301": {"d1": 2.5, "d2": 1.0}, "302": {"d3": -1.0}}


# --------------------------------------------------------------------------- normal input


def test_dict_of_dicts() -> None:
    qrels = load_qrels(QRELS_DICT)
    assert qrels.name == "qrels"
    assert qrels.frame.rows() == [
        ("301", "0", "d1", 1),
        ("301", "0", "d2", 0),
        ("302", "0", "d3", 2),
    ]
    run = load_run(RUN_DICT, name="bm25")
    assert (run.name, run.tag) == ("bm25", "bm25")
    assert run.frame.rows() == [("301", "d1", 2.5), ("301", "d2", 1.0), ("302", "d3", -1.0)]


def test_integer_keys_and_numpy_values_become_strings_and_numbers() -> None:
    qrels = load_qrels({301: {7: np.int64(1)}, 302: {"x": True}})
    assert qrels.frame.rows() == [("301", "0", "7", 1), ("302", "0", "x", 1)]
    run = load_run({301: {7: np.float32(0.5), 8: 2}})
    assert run.frame.rows() == [("301", "7", 0.5), ("301", "8", 2.0)]


def test_any_mapping_is_accepted() -> None:
    proxy = types.MappingProxyType({"q": types.MappingProxyType({"d": 1})})
    assert load_qrels(proxy).frame.rows() == [("q", "0", "d", 1)]


@pytest.mark.parametrize(
    ("query", "doc", "rel"),
    [
        (q, d, r)
        for q in ("query_id", "qid", "q_id", "query")
        for d in ("doc_id", "docno", "docid", "doc")
        for r in ("relevance", "label", "rel", "grade")
    ],
)
def test_qrels_column_synonyms(query: str, doc: str, rel: str) -> None:
    frame = pl.DataFrame({query: ["1", "1"], doc: ["b", "a"], rel: [1, 0]})
    assert load_qrels(frame).frame.rows() == [("1", "0", "a", 0), ("1", "0", "b", 1)]


@pytest.mark.parametrize("score", ["score", "sim"])
@pytest.mark.parametrize("tag", ["tag", "run_tag"])
def test_run_column_synonyms_and_tag(score: str, tag: str) -> None:
    frame = pl.DataFrame(
        {"qid": ["1", "1"], "docno": ["a", "b"], score: [1.0, 2.0], tag: ["first", "last"]}
    )
    run = load_run(frame)
    assert run.frame.rows() == [("1", "a", 1.0), ("1", "b", 2.0)]
    assert run.tag == "last"


@pytest.mark.parametrize("iteration", ["iteration", "iter", "subtopic"])
def test_iteration_column_is_kept(iteration: str) -> None:
    frame = pl.DataFrame({"qid": [1, 1], "docno": ["a", "b"], "rel": [1, 0], iteration: [3, 0]})
    assert load_qrels(frame).frame.get_column("iteration").to_list() == ["3", "0"]


def test_first_synonym_wins() -> None:
    frame = pl.DataFrame(
        {"qid": ["x"], "query_id": ["y"], "doc": ["d"], "label": [0], "relevance": [2]}
    )
    assert load_qrels(frame).frame.rows() == [("y", "0", "d", 2)]


def test_integer_float_and_categorical_ids() -> None:
    frame = pl.DataFrame(
        {
            "qid": [301.0, 301.5, 302.0],
            "docno": pl.Series(["a", "b", "c"], dtype=pl.Categorical),
            "rel": [1.0, 0.0, 2.0],
        }
    )
    assert load_qrels(frame).frame.rows() == [
        ("301", "0", "a", 1),
        ("301.5", "0", "b", 0),
        ("302", "0", "c", 2),
    ]


def test_string_numbers_are_read_like_trec_text() -> None:
    frame = pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": ["1e3", "-inf"]})
    assert load_run(frame).frame.get_column("score").to_list() == [1000.0, float("-inf")]
    frame = pl.DataFrame({"qid": ["1"], "docno": ["a"], "rel": ["+2"]})
    assert load_qrels(frame).frame.get_column("relevance").to_list() == [2]


def test_pandas_index_with_a_name_is_a_column() -> None:
    df = pd.DataFrame({"qid": ["1", "2"], "docno": ["a", "b"], "score": [1.0, 2.0]})
    assert load_run(df.set_index("qid")).frame.rows() == [("1", "a", 1.0), ("2", "b", 2.0)]
    multi = df.set_index(["qid", "docno"])
    assert load_run(multi).frame.rows() == [("1", "a", 1.0), ("2", "b", 2.0)]
    filtered = df[df["score"] > 1.5]  # unnamed index 1..: ignored
    assert load_run(filtered).frame.rows() == [("2", "b", 2.0)]


def test_lazy_frame_and_arrow_table() -> None:
    frame = pl.DataFrame({"qid": ["1"], "docno": ["a"], "score": [0.5]})
    assert_frame_equal(load_run(frame.lazy()).frame, load_run(frame).frame)
    assert_frame_equal(load_run(frame.to_arrow()).frame, load_run(frame).frame)


def test_existing_objects_pass_through() -> None:
    qrels, run = load_qrels(QRELS_DICT), load_run(RUN_DICT)
    assert load_qrels(qrels) is qrels
    assert load_run(run) is run


def test_inputs_are_not_mutated() -> None:
    df = pd.DataFrame({"qid": [1, 1], "docno": ["b", "a"], "label": [1.0, 0.0]})
    copy = df.copy()
    load_qrels(df)
    pd.testing.assert_frame_equal(df, copy)
    frame = pl.DataFrame({"qid": [2, 1], "docno": ["b", "a"], "score": [1, 0]})
    snapshot = frame.clone()
    load_run(frame)
    assert_frame_equal(frame, snapshot)
    mapping = {"q": {"d": 1}}
    load_qrels(mapping)
    assert mapping == {"q": {"d": 1}}


def test_unsupported_objects() -> None:
    with pytest.raises(TypeError, match="cannot read judgments or a run from a int"):
        load_qrels(42)
    with pytest.raises(TypeError, match="from a list"):
        load_run([("q", "d", 1.0)])
    with pytest.raises(TypeError, match="from a Series"):
        to_polars_frame(pl.Series([1]))


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("columns", "problem"),
    [
        (
            {"docno": ["a"], "rel": [1]},
            "has no query id column (looked for query_id, qid, q_id, query, query-id; found docno, rel)",
        ),
        ({"qid": ["1"], "rel": [1]}, "has no document id column (looked for doc_id, docno"),
        (
            {"qid": ["1"], "docno": ["a"], "sim": [1.0]},
            "has no relevance column (looked for relevance, label, rel, grade, score; found qid, docno",
        ),
        ({"QID": ["1"], "docno": ["a"], "rel": [1]}, "has no query id column"),
    ],
)
def test_missing_qrels_columns(columns: dict[str, list[Any]], problem: str) -> None:
    check_error(qrels_error(pl.DataFrame(columns)), "<DataFrame>", None, problem)


def test_missing_score_column() -> None:
    error = run_error(pd.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [1]}))
    check_error(error, "<DataFrame>", None, "has no score column (looked for score, sim;")


@pytest.mark.parametrize(
    ("frame", "row", "problem"),
    [
        (
            pd.DataFrame({"qid": ["1", None], "docno": ["a", "b"], "rel": [1, 0]}),
            2,
            "query_id is missing",
        ),
        (
            pd.DataFrame({"qid": [301, np.nan], "docno": ["a", "b"], "rel": [1, 0]}),
            2,
            "query_id is missing",
        ),
        (
            pl.DataFrame({"qid": [301.0, float("nan")], "docno": ["a", "b"], "rel": [1, 0]}),
            2,
            "query_id is nan, not an id",
        ),
        (
            pl.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", None, "c"], "rel": [1, 0, 1]}),
            2,
            "doc_id is missing",
        ),
        (
            pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "rel": [1, None]}),
            2,
            "relevance is missing",
        ),
        (
            pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "rel": [1, np.nan]}),
            2,
            "relevance is missing",
        ),
        (
            pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "rel": [1.0, float("nan")]}),
            2,
            "relevance must be an integer or a decimal number, got nan",
        ),
        (
            pl.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [float("inf")]}),
            1,
            "relevance must be an integer or a decimal number, got inf",
        ),
        (
            pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "rel": ["1", "high"]}),
            2,
            "relevance must be an integer or a decimal number, got 'high'",
        ),
        (
            pl.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [1e30]}),
            1,
            "relevance does not fit in a 64-bit integer",
        ),
        (
            pl.DataFrame(
                {"qid": ["1"], "docno": ["a"], "rel": pl.Series([2**64 - 1], dtype=pl.UInt64)}
            ),
            1,
            "relevance does not fit in a 64-bit integer",
        ),
        (
            pl.DataFrame(
                {"qid": ["1", "1"], "docno": ["a", "b"], "rel": [1, 0], "iter": ["0", None]}
            ),
            2,
            "iteration is missing",
        ),
        (
            pd.DataFrame({"qid": [7, 8, 9, 8], "docno": ["a", "b", "c", "b"], "rel": [1, 0, 1, 2]}),
            4,
            "duplicate document 'b' for query '8' judged 0 on row 2 and 2 here; keep one with "
            "duplicates='first', 'last' or 'max' (--duplicates)",
        ),
        # 301 and 301.0 are the same query once converted to strings.
        (
            pd.DataFrame({"qid": [301.0, 301.0], "docno": ["a", "a"], "rel": [0, 1]}),
            2,
            "duplicate document 'a' for query '301' judged 0 on row 1 and 1 here",
        ),
    ],
)
def test_bad_qrels_frames(frame: Any, row: int, problem: str) -> None:
    check_error(qrels_error(frame), "<DataFrame>", row, problem)


@pytest.mark.parametrize(
    ("frame", "row", "problem"),
    [
        (
            pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, float("nan")]}),
            2,
            "score is NaN",
        ),
        (
            pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, None]}),
            2,
            "score is missing",
        ),
        (
            pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": ["1.0", "x"]}),
            2,
            "score must be a number, got 'x'",
        ),
        (
            pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": ["1.0", "nan"]}),
            2,
            "score is NaN",
        ),
        (
            pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "score": [1.0, 2.0]}),
            2,
            "duplicate document 'a' for query '1' (first seen on row 1)",
        ),
        (
            pl.DataFrame(
                {"qid": ["1", "1"], "docno": ["a", "b"], "score": [1, 2], "tag": ["t", None]}
            ),
            2,
            "tag is missing",
        ),
        (
            pl.DataFrame({"qid": [None, "1"], "docno": ["a", "b"], "score": [1, 2]}),
            1,
            "query_id is missing",
        ),
    ],
)
def test_bad_run_frames(frame: Any, row: int, problem: str) -> None:
    check_error(run_error(frame), "<DataFrame>", row, problem)


@pytest.mark.parametrize(
    ("frame", "problem"),
    [
        (
            pl.DataFrame({"qid": [[1], [2]], "docno": ["a", "b"], "score": [1.0, 2.0]}),
            "the qid column has type List(Int64); query_id values must be strings or integers",
        ),
        (
            pl.DataFrame({"qid": [True], "docno": ["a"], "score": [1.0]}),
            "the qid column has type Boolean",
        ),
        (
            pl.DataFrame({"qid": ["1"], "docno": ["a"], "score": [[1.0]]}),
            "the score column has type List(Float64); the score must be a number",
        ),
        (
            pd.DataFrame({"qid": ["1", 1], "docno": ["a", "b"], "score": [1.0, 2.0]}),
            "cannot be converted to a table",
        ),
    ],
)
def test_unusable_column_types(frame: Any, problem: str) -> None:
    check_error(run_error(frame), "<DataFrame>", None, problem)


def test_arrow_error_label() -> None:
    table = pa.table({"qid": ["1", "1"], "docno": ["a", "a"], "score": [1.0, 2.0]})
    check_error(run_error(table), "<Table>", 2, "duplicate document 'a' for query '1'")


@pytest.mark.parametrize(
    ("mapping", "row", "problem"),
    [
        ({"q": {"a": 1, "b": "x"}}, 2, "relevance must be an integer or a decimal number, got 'x'"),
        ({"q": {"a": None}}, 1, "relevance is missing"),
        ({"q": {"a": 10**30}}, 1, "relevance does not fit in a 64-bit integer"),
        (
            {"q": {"a": object()}},
            1,
            "relevance must be an integer or a decimal number, got '<object object",
        ),
        (
            {301: {"a": 1}, "301": {"a": 2}},
            2,
            "duplicate document 'a' for query '301' judged 1 on row 1 and 2 here",
        ),
    ],
)
def test_bad_qrels_dicts(mapping: dict[Any, Any], row: int, problem: str) -> None:
    check_error(qrels_error(mapping), "<dict>", row, problem)


@pytest.mark.parametrize(
    ("mapping", "row", "problem"),
    [
        ({"q": {"a": 1.0, "b": "abc"}}, 2, "score must be a number, got 'abc'"),
        ({"q": {"a": 1.0, "b": float("nan")}}, 2, "score is NaN"),
        ({"q": {"a": None}}, 1, "score is missing"),
    ],
)
def test_bad_run_dicts(mapping: dict[Any, Any], row: int, problem: str) -> None:
    check_error(run_error(mapping), "<dict>", row, problem)


def test_dict_values_must_be_dicts() -> None:
    check_error(
        run_error({"q": [1.0, 2.0]}),
        "<dict>",
        None,
        "the value for query 'q' must be a dict of doc_id -> score, got a list",
    )


# --------------------------------------------------------------------------- Parquet


def test_parquet_round_trip(tmp_path: Path) -> None:
    qrels = load_qrels({"2": {"b": 3, "a": -1}, "10": {"x": 0}})
    write_parquet(qrels, tmp_path / "judged.parquet")
    back = load_qrels(tmp_path / "judged.parquet")
    assert back.name == "judged.parquet"
    assert_frame_equal(back.frame, qrels.frame)

    run = Run(
        pl.DataFrame({"query_id": ["2", "10"], "doc_id": ["b", "x"], "score": [-0.0, 5e-324]}),
        name="r",
        tag="tagged",
    )
    write_parquet(run, tmp_path / "run.pq")
    back_run = load_run(str(tmp_path / "run.pq"))
    assert (back_run.name, back_run.tag) == ("run", "tagged")  # the run-naming rule
    assert_frame_equal(back_run.frame, run.frame)
    assert np.signbit(back_run.frame.get_column("score")[0])


def test_parquet_name_argument(tmp_path: Path) -> None:
    write_parquet(load_run(RUN_DICT), tmp_path / "r.parquet")
    assert read_parquet_run(tmp_path / "r.parquet", name="mine").name == "mine"
    write_parquet(load_qrels(QRELS_DICT), tmp_path / "q.parquet")
    assert read_parquet_qrels(tmp_path / "q.parquet", name="j").name == "j"


def test_parquet_from_other_tools(tmp_path: Path) -> None:
    path = tmp_path / "external.parquet"
    pd.DataFrame({"qid": [301, 301], "docno": ["a", "b"], "label": [2, 0]}).to_parquet(path)
    assert load_qrels(path).frame.rows() == [("301", "0", "a", 2), ("301", "0", "b", 0)]


def test_bad_parquet_files(tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.parquet"
    corrupt.write_bytes(b"301 0 a 1\n")
    with pytest.raises(InputError) as info:
        load_qrels(corrupt)
    check_error(info.value, str(corrupt), None, "cannot read Parquet file")
    missing = tmp_path / "missing.parquet"
    with pytest.raises(InputError) as info:
        load_run(missing)
    check_error(info.value, str(missing), None, "cannot read Parquet file")
    columns = tmp_path / "columns.parquet"
    pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "sim": [1.0, 2.0]}).write_parquet(columns)
    with pytest.raises(InputError) as info:
        load_qrels(columns)
    check_error(info.value, str(columns), None, "has no relevance column")
    with pytest.raises(InputError) as info:
        load_run(columns)
    check_error(info.value, str(columns), 2, "duplicate document 'a' for query '1'")


# --------------------------------------------------------------------------- properties

# Ids a TREC file can hold: no ASCII blank, not starting with '#'; otherwise anything.
_CHARS = list("abcQ019_-.#\"',\u00e9\u6587\u00a0")
trec_ids = st.text(st.sampled_from(_CHARS), min_size=1, max_size=5).filter(
    lambda t: not t.startswith("#")
)
int_ids = st.integers(0, 10**6)


def _records(ids: st.SearchStrategy[Any], values: st.SearchStrategy[Any]) -> Any:
    return st.lists(
        st.tuples(ids, ids, values),
        min_size=1,
        max_size=20,
        unique_by=lambda r: (str(r[0]), str(r[1])),
    )


def _all_forms(records: list[tuple[Any, Any, Any]], value: str, tmp: Path) -> dict[str, Any]:
    """The same records as dict, pandas, polars, lazy polars, Arrow, Parquet and TREC text."""
    qs, ds, vs = (list(c) for c in zip(*records, strict=True))
    mapping: dict[Any, dict[Any, Any]] = {}
    for q, d, v in records:
        mapping.setdefault(q, {})[d] = v
    frame = pl.DataFrame({"qid": qs, "docno": ds, value: vs})
    frame.write_parquet(tmp / "forms.parquet")
    if value == "relevance":
        text = "".join(f"{q} 0 {d} {v}\n" for q, d, v in records)
    else:
        text = "".join(f"{q} Q0 {d} {i} {v!r} tag\n" for i, (q, d, v) in enumerate(records))
    (tmp / "forms.txt").write_text(text, encoding="utf-8")
    return {
        "polars": frame,
        "lazy": frame.lazy(),
        "pandas": pd.DataFrame({"query_id": qs, "doc_id": ds, value: vs}),
        "arrow": pa.table({"q_id": qs, "docid": ds, value: vs}),
        "parquet": tmp / "forms.parquet",
        "trec": tmp / "forms.txt",
        "dict": mapping,
    }


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("io_columnar_properties")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=_records(trec_ids | int_ids, st.integers(-(2**63), 2**63 - 1)))
def test_every_qrels_form_gives_the_same_table(
    scratch: Path, records: list[tuple[Any, Any, int]]
) -> None:
    if len({type(r[0]) for r in records} | {type(r[1]) for r in records}) > 1:
        records = [(str(q), str(d), v) for q, d, v in records]  # one type per column
    forms = _all_forms(records, "relevance", scratch)
    expected = read_qrels(forms.pop("trec")).frame
    for form, obj in forms.items():
        got = load_qrels(obj)
        assert isinstance(got, Qrels)
        assert got.frame.equals(expected), form


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=_records(trec_ids, st.floats(allow_nan=False)))
def test_every_run_form_gives_the_same_table(
    scratch: Path, records: list[tuple[str, str, float]]
) -> None:
    forms = _all_forms(records, "score", scratch)
    expected = read_run(forms.pop("trec")).frame
    for form, obj in forms.items():
        got = load_run(obj)
        assert isinstance(got, Run)
        if form == "dict":  # a dict of dicts groups the lines by query
            key = ["query_id", "doc_id"]
            assert got.frame.sort(key).equals(expected.sort(key)), form
        else:  # everything else keeps the input order, as a TREC file does
            assert got.frame.equals(expected), form


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=_records(st.text(min_size=1, max_size=5), st.floats(allow_nan=False)))
def test_parquet_run_round_trip_keeps_any_id(
    scratch: Path, records: list[tuple[str, str, float]]
) -> None:
    # Parquet, unlike TREC text, can hold ids with blanks, '#' or nothing TREC allows.
    run = load_run(
        pl.DataFrame(
            {
                "qid": [r[0] for r in records],
                "docno": [r[1] for r in records],
                "score": [r[2] for r in records],
            }
        ),
        name="x",
    )
    write_parquet(run, scratch / "any.parquet")
    back = load_run(scratch / "any.parquet")
    assert back.tag == "x"
    assert_frame_equal(back.frame, run.frame)


# --------------------------------------------------------------------------- the containers


def test_qrels_container_views() -> None:
    qrels = load_qrels({"2": {"b": 1, "a": 0}, "10": {"x": -1}}, name="j")
    assert repr(qrels) == "Qrels(name='j', topics=2, judgments=3)"
    assert qrels.topics == ["10", "2"]
    assert qrels.topic_offsets().tolist() == [0, 1, 3]
    assert qrels.to_dict() == {"10": {"x": -1}, "2": {"a": 0, "b": 1}}
    assert qrels.to_polars() is qrels.frame
    pandas_frame = qrels.to_pandas()
    assert isinstance(pandas_frame, pd.DataFrame)
    assert list(pandas_frame.columns) == ["query_id", "iteration", "doc_id", "relevance"]
    assert_frame_equal(load_qrels(qrels.to_dict()).frame, qrels.frame)
    assert_frame_equal(load_qrels(pandas_frame).frame, qrels.frame)


def test_run_container_views() -> None:
    run = load_run({"2": {"b": 1.0, "a": 3.0}, "10": {"x": 0.5}}, name="r")
    assert repr(run) == "Run(name='r', tag='r', topics=2, lines=3)"
    assert run.topics == ["10", "2"]
    assert run.to_dict() == {"2": {"b": 1.0, "a": 3.0}, "10": {"x": 0.5}}
    assert run.to_polars() is run.frame
    assert_frame_equal(load_run(run.to_dict()).frame, run.frame)
    assert_frame_equal(load_run(run.to_pandas()).frame, run.frame)


def test_side_by_side_returns_both_and_raises_the_first_error() -> None:
    """The second loader runs on another thread; the first one's error wins, as if the two
    had run one after the other."""
    import threading

    from cranfield.io.load import side_by_side

    here = threading.get_ident()
    (name, first_thread), second_thread = side_by_side(
        lambda: ("qrels", threading.get_ident()), threading.get_ident
    )
    assert name == "qrels"
    assert first_thread == here != second_thread
    first, second = side_by_side(lambda: 1, lambda: 2)
    assert (first, second) == (1, 2)

    def fails(message: str) -> object:
        raise InputError(message, None, "is bad")

    with pytest.raises(InputError, match="qrels"):
        side_by_side(lambda: fails("qrels"), lambda: fails("run"))
    with pytest.raises(InputError, match="run"):
        side_by_side(lambda: 1, lambda: fails("run"))


def test_side_by_side_runs_the_second_in_the_callers_context() -> None:
    import contextvars

    from cranfield.io.load import side_by_side

    setting: contextvars.ContextVar[str] = contextvars.ContextVar("setting", default="unset")
    token = setting.set("set here")
    try:
        assert side_by_side(setting.get, setting.get) == ("set here", "set here")
    finally:
        setting.reset(token)


PANDAS_FRAMES = [
    pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "a"], "score": [2.0, 1.5, 0.25]}),
    pd.DataFrame(  # integer ids, a categorical, pandas' nullable integers and strings
        {
            "qid": [301, 301, 302],
            "docno": pd.Categorical(["a", "b", "c"]),
            "rank": pd.array([1, 2, 1], dtype="Int64"),
            "tag": pd.array(["t", "t", "t"], dtype="string"),
        }
    ),
    pd.DataFrame({"qid": ["1", "2"], "docno": ["a", "b"], "score": [1.0, 2.0]}).set_index("qid"),
    pd.DataFrame({"qid": [1.0, 2.0], "docno": ["a", "b"], "score": [1, 2]}),
]


@pytest.fixture
def no_pyarrow(monkeypatch: pytest.MonkeyPatch) -> None:
    """pyarrow as if not installed: importing it raises ImportError (``None`` in sys.modules)."""
    monkeypatch.setitem(sys.modules, "pyarrow", None)


@pytest.mark.parametrize("frame", PANDAS_FRAMES)
def test_a_pandas_frame_reads_the_same_without_pyarrow(
    frame: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """polars' own conversion needs pyarrow: evaluating a DataFrame failed with its raw
    ImportError after ``pip install .`` plus pandas."""
    with_arrow = load_run(frame).frame
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError):
        import pyarrow  # noqa: F401
    assert_frame_equal(load_run(frame).frame, with_arrow)


def test_pandas_qrels_and_run_evaluate_in_a_process_that_never_had_pyarrow() -> None:
    """pyarrow blocked before polars is imported, as after ``pip install .`` plus pandas
    (within this process polars has already loaded it)."""
    code = """
import sys
sys.modules["pyarrow"] = None
import pandas as pd
import cranfield
qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "c", "b"],
                      "relevance": [1, 1, None]}).dropna()
run = pd.DataFrame({"query_id": ["1", "1", "1"], "doc_id": ["b", "a", "c"],
                    "score": [3.0, 2.0, 1.0]})
print(repr(cranfield.evaluate(qrels, run, "AP")["AP"]), "pyarrow" in sys.modules and
      sys.modules["pyarrow"] is not None)
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.split() == [repr((1 / 2 + 2 / 3) / 2), "False"]


def test_a_mixed_pandas_column_is_one_sentence_without_pyarrow(no_pyarrow: None) -> None:
    frame = pd.DataFrame({"qid": ["1", 1], "docno": ["a", "b"], "score": [1.0, 2.0]})
    check_error(
        run_error(frame),
        "<DataFrame>",
        None,
        "cannot be converted to a table (column 'qid' mixes int and str values)",
    )
