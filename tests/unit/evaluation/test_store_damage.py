"""A result store entry is validated whole before use (issue 30, item 3): a damaged entry
(values fewer than its queries, NaN, an AP above 1, a changed byte) is computed again,
replaced and said once; a store that cannot be written is said once and the numbers are
given all the same; one ``ResultStore`` reused after a run file changed gives the new
numbers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cranfield.errors import StoreWarning
from cranfield.evaluation.evaluator import Evaluator
from cranfield.evaluation.store import ResultStore, _checksum

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq2 0 d4 1\nq3 0 d5 1\n"
RUN = (
    "q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\n"
    "q2 Q0 d9 1 3 r\nq2 Q0 d3 2 2 r\nq2 Q0 d4 3 1 r\n"
    "q3 Q0 d8 1 3 r\nq3 Q0 d5 2 2 r\n"
)
# AP per query: q1 1, q2 (1/2 + 2/3) / 2 = 7/12, q3 1/2
AP = {"q1": 1.0, "q2": 7 / 12, "q3": 0.5}
COMMAND = [sys.executable, "-m", "cranfield.cli.main"]


def _inputs(tmp_path: Path) -> tuple[Path, Path]:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return qrels, run


def _stored(tmp_path: Path, measures: list[str]) -> tuple[Path, Path, Path]:
    qrels, run = _inputs(tmp_path)
    Evaluator(qrels, measures).many([run], store=tmp_path / "store")
    return qrels, run, tmp_path / "store"


def _damage(entry: Path, change: dict[str, Any], *, sign: bool) -> None:
    data = json.loads(entry.read_text())
    data.update(change)
    if sign:  # as someone who knows the layout would: the checksum made anew
        data["checksum"] = _checksum(data)
    entry.write_text(json.dumps(data))


DAMAGES = [
    ({"values": [1.0, 0.5]}, True, "2 values for 3 queries"),
    ({"values": [float("nan")] * 3}, False, "its checksum does not match"),
    ({"values": [1.0, 1.5, 0.5]}, True, "a value of AP lies outside"),
    ({"values": [1.0, float("inf"), 0.5]}, True, "a value is infinite"),
    ({"values": [1.0, 0.9, 0.5]}, False, "its checksum does not match"),
    ({"topics": ["q1", "q1", "q3"]}, True, "a query is given twice"),
    ({"micro": 2.0}, True, "a value of AP lies outside"),
    ({"notes": [3]}, True, "missing queries or notes are not text"),
    ({"warnings": [["a"]]}, True, r"not \(category, message\) pairs"),
    ({"checksum": None}, False, "its checksum does not match"),
]


@pytest.mark.parametrize(("change", "sign", "said"), DAMAGES)
def test_a_damaged_entry_is_computed_again_said_once(
    tmp_path: Path, change: dict[str, Any], sign: bool, said: str
) -> None:
    qrels, run, folder = _stored(tmp_path, ["AP"])
    (entry,) = folder.glob("*/*.json")
    _damage(entry, change, sign=sign)
    store = ResultStore(folder)
    with pytest.warns(StoreWarning, match=said) as warned:
        results = Evaluator(qrels, ["AP"]).many([run], store=store).results[0]
    assert len(warned) == 1
    assert results.per_query("AP") == pytest.approx(AP, abs=0, rel=1e-15)
    assert (store.computed, store.damaged, store.hits) == (1, 1, 0)
    again = ResultStore(folder)
    Evaluator(qrels, ["AP"]).many([run], store=again)  # replaced: read back, no warning
    assert (again.hits, again.computed) == (1, 0)


def test_a_count_measure_holds_whole_numbers(tmp_path: Path) -> None:
    qrels, run, folder = _stored(tmp_path, ["num_rel_ret"])
    (entry,) = folder.glob("*/*.json")
    _damage(entry, {"values": [1.0, 2.5, 1.0]}, sign=True)
    with pytest.warns(StoreWarning, match="is not a whole number >= 0"):
        table = Evaluator(qrels, ["num_rel_ret"]).many([run], store=folder)
    assert table.results[0].per_query("num_rel_ret") == {"q1": 1.0, "q2": 2.0, "q3": 1.0}


def test_several_damaged_entries_are_said_once(tmp_path: Path) -> None:
    qrels, run, folder = _stored(tmp_path, ["AP", "RR", "P@2"])
    for entry in folder.glob("*/*.json"):
        _damage(entry, {"values": [0.0]}, sign=False)
    store = ResultStore(folder)
    with pytest.warns(StoreWarning) as warned:
        Evaluator(qrels, ["AP", "RR", "P@2"]).many([run], store=store)
    assert len(warned) == 1
    assert (store.damaged, store.computed) == (3, 3)


def test_a_store_that_cannot_be_written_is_said_once_and_the_numbers_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    qrels, run = _inputs(tmp_path)
    other = tmp_path / "other.txt"
    other.write_text(RUN.replace(" 3 r", " 0.5 r"))

    def full(path: object, text: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("cranfield.io.sink.write_text", full)
    store = ResultStore(tmp_path / "store")
    with pytest.warns(
        StoreWarning, match=r"cannot keep results .* \(No space left on device\)"
    ) as w:
        table = Evaluator(qrels, ["AP", "RR"]).many([run, other], store=store)
    assert len(w) == 1
    assert table.results[0].per_query("AP") == pytest.approx(AP, abs=0, rel=1e-15)
    assert not list((tmp_path / "store").glob("*/*.json"))


def test_a_read_only_store_folder_is_said_and_the_command_goes_on(tmp_path: Path) -> None:
    qrels, run = _inputs(tmp_path)
    blocked = tmp_path / "store"
    blocked.mkdir()
    for prefix in (f"{i:02x}" for i in range(256)):  # each entry's folder is a file
        (blocked / prefix).write_text("")
    done = subprocess.run(
        [
            *COMMAND,
            "evaluate",
            str(qrels),
            str(run),
            "-m",
            "AP",
            "--store",
            str(blocked),
            "--strict",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr  # --strict or not: the numbers are computed
    assert "0.6944" in done.stdout  # (1 + 7/12 + 1/2) / 3
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(
        f"cranfield evaluate: warning: cannot keep results in the result store {blocked}"
    )


def test_one_store_reused_after_the_run_file_changed_gives_the_new_numbers(
    tmp_path: Path,
) -> None:
    qrels, run = _inputs(tmp_path)
    store = ResultStore(tmp_path / "store")
    first = Evaluator(qrels, ["AP"]).many([run], store=store).results[0]
    run.write_text(RUN.replace("q1 Q0 d1 1 3 r", "q1 Q0 d1 1 1 r"))  # d2 now above d1
    second = Evaluator(qrels, ["AP"]).many([run], store=store).results[0]
    assert first.per_query("AP")["q1"] == 1.0
    assert second.per_query("AP")["q1"] == 0.5
    assert store.computed == 2
    assert second.per_query("AP") == pytest.approx({**AP, "q1": 0.5}, abs=0, rel=1e-15)


def test_entries_of_one_run_that_disagree_on_its_queries_are_computed_again(
    tmp_path: Path,
) -> None:
    """Each entry valid alone (its checksum made anew), but one names other queries: the run
    is computed again (it was an error telling to remove the folder)."""
    qrels, run, folder = _stored(tmp_path, ["AP", "RR"])
    entry = sorted(folder.glob("*/*.json"))[0]
    _damage(entry, {"topics": ["q1", "q2", "q9"]}, sign=True)
    store = ResultStore(folder)
    with pytest.warns(StoreWarning, match="disagree on its queries") as warned:
        table = Evaluator(qrels, ["AP", "RR"]).many([run], store=store)
    assert len(warned) == 1
    assert table.results[0].per_query("AP") == pytest.approx(AP, abs=0, rel=1e-15)
    assert store.computed == 2
