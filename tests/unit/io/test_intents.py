"""Intent (subtopic) qrels: :mod:`cranfield.io.intents` reads files, frames and dicts, and names
the file and line of every defect."""

from __future__ import annotations

import polars as pl
import pytest

from cranfield.errors import InputError
from cranfield.io.intents import IntentQrels, load_intents, read_intents


def test_read_intents(tmp_path) -> None:
    path = tmp_path / "intents.txt"
    path.write_text("# comment\n1 1 a 1\n1 2 a 1\n1 2 b 0\n2 1 d 2\n")
    intents = read_intents(path)
    assert isinstance(intents, IntentQrels)
    assert intents.frame.columns == ["query_id", "subtopic", "doc_id", "relevance"]
    assert intents.frame.height == 4
    assert intents.to_qrels().to_dict() == {"1": {"a": 1, "b": 0}, "2": {"d": 2}}
    assert repr(intents) == "IntentQrels(name='intents.txt', topics=2, judgments=4)"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (
            "1 1 a 1\n1 1 a 0\n",
            ":2: duplicate judgment of document 'a' for query '1', subtopic '1' (first seen on line 1)",
        ),
        ("1 1 a 1\n1 1 b\n", ":2: expected 4 fields (qid subtopic docno rel), got 3"),
        ("1 1 a x\n", ":1: relevance must be a 64-bit integer, got 'x'"),
        ("# only a comment\n", "contains no"),
    ],
)
def test_read_intents_errors_name_file_and_line(tmp_path, text: str, fragment: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(InputError) as exc:
        read_intents(path)
    assert fragment in str(exc.value)


def test_load_intents_from_frames_and_dicts() -> None:
    nested = {"1": {"s1": {"a": 1, "b": 0}, "s2": {"a": 1}}}
    from_dict = load_intents(nested)
    frame = pl.DataFrame(
        {
            "query_id": ["1", "1", "1"],
            "iteration": ["s1", "s1", "s2"],
            "doc_id": ["a", "b", "a"],
            "relevance": [1, 0, 1],
        }
    )
    from_frame = load_intents(frame)
    assert from_dict.frame.equals(from_frame.frame)
    with pytest.raises(InputError, match="judged twice"):
        load_intents(pl.concat([frame, frame]))
    with pytest.raises(InputError, match="need the column"):
        load_intents(frame.drop("relevance"))


@pytest.mark.parametrize("rel", [str(2**63), "9" * 5000])
def test_read_intents_relevance_beyond_64_bits(tmp_path, rel: str) -> None:
    path = tmp_path / "intents.txt"
    path.write_text(f"1 1 a 1\n1 1 b {rel}\n")
    with pytest.raises(InputError) as exc:
        read_intents(path)
    assert str(exc.value).startswith(f"{path}:2: relevance does not fit in a 64-bit integer: ")
