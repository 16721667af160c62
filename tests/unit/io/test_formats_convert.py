"""convert(): every format to every format, lossless where the target holds the data,
and what it cannot hold said in the notes."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import polars as pl
import pytest

import cranfield
from cranfield._types import FILE_FORMATS
from cranfield.errors import InputError, OptionError, QrelsNoteWarning
from cranfield.io.formats import convert, format_of_suffix, left_out
from cranfield.io.load import load_qrels, load_run

if TYPE_CHECKING:
    from pathlib import Path

# Written by hand: ties, a score in exponent form, a long decimal, a negative score.
RUN = (
    "q1 Q0 d1 1 2.5 tagA\n"
    "q1 Q0 d2 2 2.5 tagA\n"
    "q1 Q0 d3 3 0.30000000000000004 tagA\n"
    "q2 Q0 d4 1 1e-07 tagA\n"
    "q2 Q0 d5 2 -3 tagA\n"
    "q10 Q0 d1 1 7 tagA\n"
)
# Graded, decimal, unjudged (-1) labels.
QRELS = "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1.5\nq2 0 d4 1\nq2 0 d9 -1\nq10 0 d1 1\n"
BINARY_QRELS = "q1 0 d1 1\nq2 0 d4 1\nq10 0 d1 1\n"
SUFFIX = {
    "trec": ".txt",
    "msmarco": ".ms",
    "beir": ".beir",
    "csv": ".csv",
    "tsv": ".tsv",
    "json": ".json",
    "jsonl": ".jsonl",
    "parquet": ".parquet",
}
MEASURES = ["AP", "nDCG@2", "P@1", "RR", "nDCG"]
pytestmark = pytest.mark.filterwarnings("ignore::cranfield.errors.QrelsNoteWarning")


def _ordered(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort(frame.columns)


@pytest.fixture
def sources(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in (("run", RUN), ("qrels", QRELS), ("binary", BINARY_QRELS)):
        out[name] = tmp_path / f"{name}.txt"
        out[name].write_text(text)
    return out


@pytest.mark.parametrize(("first", "second"), list(itertools.product(FILE_FORMATS, FILE_FORMATS)))
def test_a_run_through_two_formats_keeps_what_they_hold(
    tmp_path: Path, sources: dict[str, Path], first: str, second: str
) -> None:
    original = load_run(sources["run"])
    middle = tmp_path / f"middle{SUFFIX[first]}"
    final = tmp_path / f"final{SUFFIX[second]}"
    convert(sources["run"], middle, first)  # type: ignore[arg-type]
    done = convert(middle, final, second, source_format=first, kind="run")  # type: ignore[arg-type]
    assert (done.kind, done.rows, done.queries) == ("run", 6, 3)
    back = load_run(final, format=second)  # type: ignore[arg-type]
    if "msmarco" in (first, second):  # ranks instead of scores: the same ranking
        qrels = load_qrels(sources["qrels"])
        ours = cranfield.evaluate(qrels, back, MEASURES)
        theirs = cranfield.evaluate(qrels, original, MEASURES)
        assert {m: ours.per_query(m) for m in MEASURES} == {
            m: theirs.per_query(m) for m in MEASURES
        }
    else:
        assert _ordered(back.frame).equals(_ordered(original.frame))
    if first in ("trec", "parquet") and second in ("trec", "parquet"):
        assert back.tag == "tagA"


@pytest.mark.parametrize(("first", "second"), list(itertools.product(FILE_FORMATS, FILE_FORMATS)))
def test_judgments_through_two_formats_keep_what_they_hold(
    tmp_path: Path, sources: dict[str, Path], first: str, second: str
) -> None:
    source = sources["binary" if "msmarco" in (first, second) else "qrels"]
    original = load_qrels(source)
    middle = tmp_path / f"middle{SUFFIX[first]}"
    final = tmp_path / f"final{SUFFIX[second]}"
    convert(source, middle, first, kind="qrels")  # type: ignore[arg-type]
    convert(middle, final, second, source_format=first, kind="qrels")  # type: ignore[arg-type]
    back = load_qrels(final, format=second)  # type: ignore[arg-type]
    assert _ordered(back.frame).equals(_ordered(original.frame))


def test_iterations_are_kept_where_the_format_has_a_place(
    tmp_path: Path, sources: dict[str, Path]
) -> None:
    path = tmp_path / "subtopics.txt"
    path.write_text("q1 3 d1 1\nq1 0 d2 0\n")
    for format_, kept in (("csv", True), ("jsonl", True), ("parquet", True), ("beir", False)):
        target = tmp_path / f"out{SUFFIX[format_]}"
        done = convert(path, target, format_)  # type: ignore[arg-type]
        back = load_qrels(target, format=format_)  # type: ignore[arg-type]
        assert (back.frame.get_column("iteration").to_list() == ["3", "0"]) is kept
        assert any("iteration column is not kept" in n for n in done.notes) is not kept


def test_what_a_format_cannot_hold_is_said(sources: dict[str, Path]) -> None:
    run = load_run(sources["run"])
    assert left_out(run, "trec") == ()
    assert left_out(run, "parquet") == ()
    assert left_out(run, "msmarco")[0].startswith("scores are not kept")
    assert left_out(run, "csv") == (
        "the run tag 'tagA' is not kept (only TREC and Parquet hold one)",
    )
    assert left_out(load_qrels(sources["qrels"]), "beir") == ()


def test_msmarco_qrels_refuse_graded_judgments(tmp_path: Path, sources: dict[str, Path]) -> None:
    with pytest.raises(OptionError, match="MS MARCO qrels hold relevant"):
        convert(sources["qrels"], tmp_path / "q.ms", "msmarco")
    assert not (tmp_path / "q.ms").exists()


def test_the_target_format_comes_from_its_suffix(tmp_path: Path, sources: dict[str, Path]) -> None:
    assert format_of_suffix("a.JSONL") == "jsonl"
    assert format_of_suffix("a.txt.gz") is None
    done = convert(sources["run"], tmp_path / "r.parquet")
    assert (done.source_format, done.target_format) == ("trec", "parquet")
    with pytest.raises(OptionError, match="must be a file whose suffix names a format"):
        convert(sources["run"], tmp_path / "r.gz")
    with pytest.raises(OptionError, match="not one of the inputs"):
        convert(sources["run"], sources["run"], "trec")


def test_a_file_that_does_not_say_its_kind_needs_it(tmp_path: Path) -> None:
    path = tmp_path / "ranx.json"
    path.write_text('{"q1": {"d1": 1, "d2": 0}}')
    with pytest.raises(InputError, match="give its kind"):
        convert(path, tmp_path / "q.txt")
    done = convert(path, tmp_path / "q.txt", kind="qrels")
    assert done.source_format == "json"
    assert (tmp_path / "q.txt").read_text() == "q1 0 d1 1\nq1 0 d2 0\n"


def test_the_duplicates_policy_reads_the_source(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("q1 0 d1 1\nq1 0 d1 2\n")
    with pytest.raises(InputError):
        convert(path, tmp_path / "q.csv")
    with pytest.warns(QrelsNoteWarning):
        done = convert(path, tmp_path / "q.csv", duplicates="max")
    assert "keeping the max relevance" in done.notes[0]
    assert (tmp_path / "q.csv").read_text() == "query_id,doc_id,relevance\nq1,d1,2\n"
