"""Every real qrels and run file in the shared data reads, or fails exactly as it should.

The files are listed in ``shared/data/real/MANIFEST.tsv`` (with their line and query
counts) and ``shared/conformance/trec_eval/`` (trec_eval's own test inputs). Valid
files must take the fast columnar path only; the few files that break the reading policy
are pinned to their exact error.
"""

from __future__ import annotations

import csv
from unittest import mock

import pytest

from cranfield.errors import InputError, QrelsNoteWarning
from cranfield.io import trec
from cranfield.io.trec import read_qrels, read_run
from tests.conftest import CONFORMANCE, REAL, require


def _manifest() -> list[dict[str, str]]:
    with open(require(REAL / "MANIFEST.tsv"), encoding="utf-8", newline="") as f:
        return [row for row in csv.DictReader(f, delimiter="\t") if row["kind"] in ("qrels", "run")]


require(CONFORMANCE)

# Files that break trec_eval's policy (duplicates="error") on purpose, with the exact first
# error. Each is a real property of the data, not a reader bug:
KNOWN_BAD = {
    # MS MARCO train qrels repeat 10 judgment lines verbatim (merged by default); the first:
    "qrels-misc/capreolus/qrels.msmarcopassage.train+dev.txt.gz": (
        115060,
        "duplicate document '1785921' for query '122093' (first seen on line 115059)",
        "122093\t0\t1785921\t1",
    ),
    # ndeval qrels: column 2 is a subtopic, so a document is judged once per subtopic.
    "qrels-misc/anserini-tools/qrels.web.201-250.ndeval.txt.gz": (
        323,
        "duplicate document 'clueweb12-0000tw-05-12114' for query '201' (first seen on line 1)",
        "201 2 clueweb12-0000tw-05-12114 1",
    ),
    # qrels_jg (trec_eval -R qrels_jg): column 2 is a judge group, one judgment per group;
    # trec_eval's default qrels reader stops on them too ("duplicate docs").
    "trec_eval-test/inputs/qrels.123": (
        3682,
        "duplicate document 'CR93E-10279' for query '301' (first seen on line 1)",
        "301 1 CR93E-10279 0",
    ),
    "trec_eval-test/inputs/qrels.comments.123": (
        3685,
        "duplicate document 'CR93E-10279' for query '301' (first seen on line 1)",
        "301 1 CR93E-10279 0",
    ),
}

ENTRIES = _manifest()


def _fast_only() -> mock._patch[mock.MagicMock]:
    return mock.patch.object(
        trec, "_diagnose", side_effect=AssertionError("slow path ran on a valid file")
    )


def test_manifest_is_complete() -> None:
    paths = {e["path"] for e in ENTRIES}
    assert len([e for e in ENTRIES if e["kind"] == "qrels"]) == 63
    assert len([e for e in ENTRIES if e["kind"] == "run"]) == 102
    assert set(KNOWN_BAD) <= paths


@pytest.mark.parametrize(
    "entry", [e for e in ENTRIES if e["path"] not in KNOWN_BAD], ids=lambda e: e["path"]
)
def test_real_file_reads(entry: dict[str, str]) -> None:
    reader = read_qrels if entry["kind"] == "qrels" else read_run
    with _fast_only():
        data = reader(REAL / entry["path"])
    assert len(data) == int(entry["lines"])
    assert len(data.topics) == int(entry["queries"])


@pytest.mark.parametrize("path", sorted(KNOWN_BAD))
def test_real_file_that_breaks_the_policy(path: str) -> None:
    line, problem, text = KNOWN_BAD[path]
    with pytest.raises(InputError) as info:
        read_qrels(REAL / path, duplicates="error")
    assert info.value.source == str(REAL / path)
    assert info.value.line == line
    assert info.value.problem == problem
    assert info.value.text == text
    assert str(info.value) == f"{REAL / path}:{line}: {problem}: {text!r}"


# --------------------------------------------------------------------------- trec_eval inputs

CONFORMANCE_QRELS: dict[str, tuple[int, int]] = {
    # file: (judgments, topics)
    "qrels.test": (3681, 3),
    "qrels.test.with-comments": (3681, 3),
    "qrels.rel_level": (3681, 3),
    "qrels-302.test": (1061, 1),
    "qrels.comment.test": (5890, 31),
    "generated/ties.qrels": (9, 3),
    "generated/ties_c.qrels": (10, 4),
}
CONFORMANCE_RUNS: dict[str, tuple[int, int, str]] = {
    # file: (lines, topics, tag)
    "results.test": (1500, 3, "STANDARD"),
    "results.trunc": (584, 2, "STANDARD"),
    "results-302.test": (500, 1, "STANDARD"),
    "results.comment.test": (30100, 301, "comment.test"),
    "generated/ties.run": (14, 4, "lastline"),
}


def test_conformance_inputs_are_all_covered() -> None:
    names = {p.name for p in CONFORMANCE.glob("qrels*")} | {
        p.name for p in CONFORMANCE.glob("results*")
    }
    covered = set(CONFORMANCE_QRELS) | set(CONFORMANCE_RUNS) | {"qrels.123", "qrels.comments.123"}
    assert names <= covered


@pytest.mark.parametrize("name", sorted(CONFORMANCE_QRELS))
def test_conformance_qrels(name: str) -> None:
    with _fast_only():
        qrels = read_qrels(CONFORMANCE / name)
    assert (len(qrels), len(qrels.topics)) == CONFORMANCE_QRELS[name]


@pytest.mark.parametrize("name", sorted(CONFORMANCE_RUNS))
def test_conformance_runs(name: str) -> None:
    with _fast_only():
        run = read_run(CONFORMANCE / name)
    assert (len(run), len(run.topics), run.tag) == CONFORMANCE_RUNS[name]


def test_comments_and_hash_in_docno() -> None:
    plain = read_qrels(CONFORMANCE / "qrels.test").frame
    commented = read_qrels(CONFORMANCE / "qrels.test.with-comments").frame
    differ = commented.join(plain, on=["query_id", "doc_id"], how="anti")
    assert differ.get_column("doc_id").to_list() == ["CR#93E-1860"]
    assert all(
        "#" in d
        for d in read_qrels(CONFORMANCE / "qrels.comment.test")
        .frame.get_column("doc_id")
        .head(50)
        .to_list()
    )


def test_results_trunc_junk_after_the_tag_is_ignored() -> None:
    run = read_run(CONFORMANCE / "results.trunc")
    assert run.topics == ["301", "303"]
    assert run.frame.row(0) == ("301", "FBIS3-27619", 2.138276)


def test_ties_run_tag_is_the_last_line() -> None:
    run = read_run(CONFORMANCE / "generated/ties.run")
    assert run.tag == "lastline"
    assert run.frame.row(-1) == ("77", "whatever", 1.0)


@pytest.mark.parametrize(
    ("name", "line", "earlier"), [("qrels.123", 3682, 5), ("qrels.comments.123", 3685, 6)]
)
def test_judgment_group_qrels_are_not_plain_qrels(name: str, line: int, earlier: int) -> None:
    # Same content, different physical lines: the comment lines are counted.
    with pytest.raises(InputError) as info:
        read_qrels(CONFORMANCE / name, duplicates="error")
    assert info.value.line == line
    assert info.value.problem == (
        "duplicate document 'CR93E-10279' for query '301' (first seen on line 1)"
    )
    # Merged by default, the judge groups still disagree on a document: refused.
    with pytest.raises(InputError) as info:
        read_qrels(CONFORMANCE / name)
    assert info.value.line == line + 4
    assert info.value.problem == (
        f"duplicate document 'CR93E-1860' for query '301' judged 0 on line {earlier} and 3 "
        "here; keep one with duplicates='first', 'last' or 'max' (--duplicates); the second "
        "columns differ: if they are subtopics or judge groups, this is not a plain qrels "
        "file (--intents, trec-eval -R qrels_jg)"
    )


@pytest.mark.slow
def test_msmarco_train_dev_qrels_merge_their_ten_repeated_lines() -> None:
    path = REAL / "qrels-misc/capreolus/qrels.msmarcopassage.train+dev.txt.gz"
    with pytest.warns(QrelsNoteWarning) as caught:
        qrels = read_qrels(path)
    assert [str(w.message) for w in caught] == list(qrels.notes)
    assert len(qrels) == 532_761 - 10
    assert len(qrels.topics) == 502_939
    assert qrels.notes == (
        f"{path}: 10 repeated judgment line(s) merged "
        "(the first: query '1008998', document '3651609').",
    )


def test_ndeval_qrels_disagree_between_subtopics() -> None:
    path = REAL / "qrels-misc/anserini-tools/qrels.web.201-250.ndeval.txt.gz"
    with pytest.raises(InputError, match="judged 1 on line 145 and 0 here") as info:
        read_qrels(path)
    assert info.value.line == 467
    assert info.value.problem.endswith("not a plain qrels file (--intents, trec-eval -R qrels_jg)")
