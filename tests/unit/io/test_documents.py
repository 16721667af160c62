"""Documents and topics as records (:mod:`cranfield.io.documents`): JSON Lines and TSV, and the
one error naming the file and the line for what they refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from cranfield.errors import InputError
from cranfield.io.documents import (
    DocumentRecord,
    TopicRecord,
    read_documents,
    read_topic_records,
)


def test_json_lines_documents_with_beir_spellings(tmp_path: Path) -> None:
    p = tmp_path / "docs.jsonl"
    p.write_text(
        '{"doc_id": "d1", "title": "T", "text": "one"}\n\n'
        '{"_id": "d2", "contents": "two"}\n'
        '{"id": 3, "text": "three <b>"}\n'
    )
    assert read_documents(p) == (
        DocumentRecord("d1", "T", "one"),
        DocumentRecord("d2", "", "two"),
        DocumentRecord("3", "", "three <b>"),
    )


def test_tsv_documents_with_and_without_titles(tmp_path: Path) -> None:
    p = tmp_path / "docs.tsv"
    p.write_text("# id title text\nd1\tTitle\tBody text\nd2\tOnly text\n")
    assert read_documents(p) == (
        DocumentRecord("d1", "Title", "Body text"),
        DocumentRecord("d2", "", "Only text"),
    )


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            '{"doc_id": "d1", "text": "a"}\n{"doc_id": "d1", "text": "b"}\n',
            ":2: document d1 occurs more than once",
        ),
        ('{"doc_id": "d1"}\n', ":1: document d1 has no 'text'"),
        ('{"text": "a"}\n', ":1: has no 'doc_id' of one word"),
        ('{"doc_id": "d1", "text": ["a"]}\n', ":1: the field 'text' is not a string"),
        ('{"doc_id": "d1", "text": "a"}\n{oops\n', ":2: is not JSON"),
        ('{"doc_id": "d1", "text": "a"}\n[1]\n', ":2: is not a JSON object"),
    ],
)
def test_bad_json_lines_name_the_file_and_line(tmp_path: Path, text: str, where: str) -> None:
    p = tmp_path / "docs.jsonl"
    p.write_text(text)
    with pytest.raises(InputError) as exc:
        read_documents(p)
    assert str(exc.value).startswith(f"{p}{where}")


def test_a_tsv_line_of_one_field_is_an_error(tmp_path: Path) -> None:
    p = tmp_path / "docs.tsv"
    p.write_text("d1\tok\nd2\n")
    with pytest.raises(InputError, match=r"docs.tsv:2: expected 'doc_id<TAB>title<TAB>text'"):
        read_documents(p)


def test_json_lines_topics(tmp_path: Path) -> None:
    p = tmp_path / "topics.jsonl"
    p.write_text(
        '{"query_id": "1", "title": "crime", "description": "D", "narrative": "N"}\n'
        '{"qid": "2", "query": "solar"}\n'
    )
    assert read_topic_records(p) == (TopicRecord("1", "crime", "D", "N"), TopicRecord("2", "solar"))
    p.write_text('{"query_id": "1", "title": ""}\n')
    with pytest.raises(InputError, match=r"topics.jsonl:1: topic 1 has no 'title'"):
        read_topic_records(p)
