"""``cranfield judge init --topics ID``: the topics of an ir_datasets dataset, read from
ir_datasets' local cache, never downloaded.

ir_datasets binds its cache folder (``IR_DATASETS_HOME``) when it is imported, so each test
runs the command in a new interpreter whose home is a folder built here: tiny copies of the
files ir_datasets keeps the queries and qrels of ``msmarco-passage/trec-dl-2019`` in
(``queries.tsv``: ``query_id<TAB>text``; ``qrels``: TREC qrels), as in
``tests/unit/io/test_irds.py``. The ``judged`` subset keeps the queries that have qrels.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from cranfield.io.irds import _topic
from tests.conftest import REPO

pytestmark = pytest.mark.slow

DL19 = "msmarco-passage/trec-dl-2019/judged"
DL20 = "msmarco-passage/trec-dl-2020/judged"  # registered, not in the home built here
QUERIES = (
    "19335\tanthropological definition of environment\n"
    "47923\taxon terminals or synaptic knob definition\n"
    "1037798\twho is robert gray\n"  # no qrels: not in the judged subset
)
QRELS = "19335 0 d1 0\n19335 0 d2 1\n47923 0 d3 2\n"
RUN = "19335 Q0 d1 1 3.0 bm25\n19335 Q0 d2 2 2.0 bm25\n47923 Q0 d3 1 1.0 bm25\n"


def _files(tmp_path: Path, *, qrels: bool = True) -> Path:
    """An ir_datasets home holding TREC DL 2019's queries (and qrels), a run and documents."""
    home = tmp_path / "irds"
    folder = home / "msmarco-passage" / "trec-dl-2019"
    folder.mkdir(parents=True)
    (folder / "queries.tsv").write_text(QUERIES)
    if qrels:
        (folder / "qrels").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    (tmp_path / "docs.jsonl").write_text(
        "".join(
            json.dumps({"doc_id": d, "title": d, "text": f"text {d}"}) + "\n"
            for d in ("d1", "d2", "d3")
        )
    )
    return home


def _init(tmp_path: Path, home: Path, topics: str) -> subprocess.CompletedProcess[str]:
    argv = ["judge", "init", "project", "--pool", "run.txt", "--topics", topics]
    argv += ["--docs", "docs.jsonl", "--pool-depth", "2"]
    return subprocess.run(
        [sys.executable, "-m", "cranfield.cli.main", *argv],
        cwd=tmp_path,
        env={**os.environ, "IR_DATASETS_HOME": str(home), "PYTHONPATH": str(REPO / "src")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_topics_of_an_id_are_read_from_the_cache(tmp_path: Path) -> None:
    home = _files(tmp_path)
    done = _init(tmp_path, home, DL19)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.startswith("project: 2 topics, 3 pooled documents from 1 runs")
    db = sqlite3.connect(tmp_path / "project" / "judgments.sqlite")
    try:
        topics = db.execute(
            "select query_id, title, description, narrative from topics order by position"
        ).fetchall()
        setting = db.execute("select value from settings where key = 'topics_file'").fetchone()
    finally:
        db.close()
    assert topics == [
        ("19335", "anthropological definition of environment", "", ""),
        ("47923", "axon terminals or synaptic knob definition", "", ""),
    ]
    assert json.loads(setting[0]) == DL19


def test_topics_not_in_the_cache_are_one_sentence_and_no_download(tmp_path: Path) -> None:
    home = _files(tmp_path)
    done = _init(tmp_path, home, DL20)
    assert done.returncode == 2
    assert done.stderr == (
        f"cranfield judge init: {DL20}: is an ir_datasets dataset whose queries are not in "
        f"ir_datasets' local cache ({home}), and cranfield never downloads; fetch them once "
        f"with: ir_datasets export {DL20} queries > /dev/null\n"
    )
    assert not (home / "msmarco-passage" / "trec-dl-2020").exists()
    assert not (tmp_path / "project").exists()


def test_a_judged_subset_whose_qrels_are_not_cached_is_the_same_sentence(tmp_path: Path) -> None:
    home = _files(tmp_path, qrels=False)  # the subset keeps the queries the qrels judge
    done = _init(tmp_path, home, DL19)
    assert done.returncode == 2
    assert done.stderr == (
        f"cranfield judge init: {DL19}: is an ir_datasets dataset whose queries are not in "
        f"ir_datasets' local cache ({home}), and cranfield never downloads; fetch them once "
        f"with: ir_datasets export {DL19} queries > /dev/null\n"
    )
    assert not (home / "msmarco-passage" / "trec-dl-2019" / "qrels").exists()


def test_trec_fields_become_the_topics_fields() -> None:
    from collections import namedtuple

    trec = namedtuple("trec", "query_id title description narrative")
    generic = namedtuple("generic", "query_id text")
    assert _topic(trec(301, " foreign minorities ", "Identify ...", "A relevant ...")) == (
        "301",
        "foreign minorities",
        "Identify ...",
        "A relevant ...",
    )
    assert _topic(generic("q1", "who is robert gray")) == ("q1", "who is robert gray", "", "")
