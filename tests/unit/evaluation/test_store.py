"""Results kept between evaluations: read back bit for bit, computed only where something
that determines them changed, never trusted beyond JSON."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cranfield.errors import OptionError, QueryOverlapWarning, StoreWarning
from cranfield.evaluation.evaluator import Evaluator
from cranfield.evaluation.results import ScoreTable
from cranfield.evaluation.store import ResultStore

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "Rprec"]


def _files(folder: Path, runs: int = 4) -> tuple[Path, list[Path]]:
    rng = np.random.default_rng(5)
    qrels = folder / "qrels.txt"
    qrels.write_text(
        "".join(f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n" for q in range(20) for d in range(15))
    )
    paths = []
    for r in range(runs):
        path = folder / f"run{r}.txt"
        path.write_text(
            "".join(
                f"q{q} Q0 d{d} 0 {float(rng.integers(0, 5))} r{r}\n"
                for q in range(20)
                if rng.random() > 0.1
                for d in rng.choice(40, size=20, replace=False)
            )
        )
        paths.append(path)
    return qrels, paths


def _same(a: ScoreTable, b: ScoreTable) -> None:
    assert (a.names, a.topics) == (b.names, b.topics)
    for m in a.measures:
        np.testing.assert_array_equal(a.matrix(m), b.matrix(m))
    for x, y in zip(a.results, b.results, strict=True):
        assert x.missing_topics == y.missing_topics
        assert x.means() == y.means()
        assert x.micro == y.micro


def test_stored_results_are_read_back_bit_for_bit(tmp_path: Path) -> None:
    qrels, runs = _files(tmp_path)
    store = ResultStore(tmp_path / "store")
    plain = Evaluator(qrels, MEASURES).many(runs)
    first = Evaluator(qrels, MEASURES).many(runs, store=store)
    assert (store.computed, store.hits) == (len(runs) * len(MEASURES), 0)
    again = Evaluator(qrels, MEASURES).many(runs, store=store)
    assert store.hits == len(runs) * len(MEASURES)
    _same(plain, first)
    _same(plain, again)
    note = again.results[0].notes[-1]
    assert note == f"5 of 5 measures read from {tmp_path / 'store'}."
    assert "read from" not in " ".join(first.results[0].notes)


def test_only_what_changed_is_computed(tmp_path: Path) -> None:
    qrels, runs = _files(tmp_path, runs=5)
    folder = tmp_path / "store"
    Evaluator(qrels, MEASURES).many(runs[:4], store=folder)
    store = ResultStore(folder)
    Evaluator(qrels, MEASURES).many(runs, store=store)  # one run added
    assert store.computed == len(MEASURES)
    store = ResultStore(folder)
    table = Evaluator(qrels, [*MEASURES, "R@10"]).many(runs, store=store)  # one measure added
    assert (store.computed, store.hits) == (5, 5 * len(MEASURES))
    _same(table, Evaluator(qrels, [*MEASURES, "R@10"]).many(runs))
    store = ResultStore(folder)
    Evaluator(qrels, MEASURES, depth=10).many(runs, store=store)  # another option
    assert store.hits == 0
    runs[0].write_text(runs[0].read_text().replace(" 4.0 ", " 3.5 ", 1))  # one byte
    store = ResultStore(folder)
    changed = Evaluator(qrels, MEASURES).many(runs, store=store)
    assert store.computed == len(MEASURES)
    _same(changed, Evaluator(qrels, MEASURES).many(runs))


def test_another_cranfield_version_computes_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    qrels, runs = _files(tmp_path, runs=2)
    Evaluator(qrels, ["AP"]).many(runs, store=tmp_path / "store")
    monkeypatch.setattr("cranfield.evaluation.store.__version__", "0.0.0-other")
    store = ResultStore(tmp_path / "store")
    Evaluator(qrels, ["AP"]).many(runs, store=store)
    assert (store.hits, store.computed) == (0, 2)


def test_a_run_in_memory_is_computed_every_time(tmp_path: Path) -> None:
    qrels, runs = _files(tmp_path, runs=1)
    store = ResultStore(tmp_path / "store")
    memory = {"q1": {"d1": 1.0, "d2": 0.5}}
    with pytest.warns(QueryOverlapWarning):
        Evaluator(qrels, ["AP"]).many([runs[0], memory], store=store)
    with pytest.warns(QueryOverlapWarning):
        Evaluator(qrels, ["AP"]).many([runs[0], memory], store=store)
    assert (store.hits, store.computed) == (1, 1)


def test_a_stored_warning_is_raised_again(tmp_path: Path) -> None:
    qrels, _ = _files(tmp_path, runs=0)
    few = tmp_path / "few.txt"
    few.write_text("q1 Q0 d1 0 1.0 t\n")
    store = ResultStore(tmp_path / "store")
    for _ in range(2):
        with pytest.warns(QueryOverlapWarning, match="answers only 1 of the 20"):
            Evaluator(qrels, ["AP"]).many([few], store=store)
    assert store.hits == 1


def test_a_damaged_entry_is_computed_again_and_replaced(tmp_path: Path) -> None:
    qrels, runs = _files(tmp_path, runs=1)
    folder = tmp_path / "store"
    Evaluator(qrels, ["AP"]).many(runs, store=folder)
    (entry,) = folder.glob("*/*.json")
    entry.write_text('{"format": 2, "measure": "AP", "topics": [')
    store = ResultStore(folder)
    with pytest.warns(StoreWarning, match="held a damaged entry"):
        table = Evaluator(qrels, ["AP"]).many(runs, store=store)
    assert store.computed == 1
    assert json.loads(entry.read_text())["measure"] == "AP"
    _same(table, Evaluator(qrels, ["AP"]).many(runs))


@pytest.mark.filterwarnings("ignore::cranfield.errors.QueryOverlapWarning")
def test_worker_processes_fill_the_store_as_this_process_does(tmp_path: Path) -> None:
    qrels, runs = _files(tmp_path)
    store = ResultStore(tmp_path / "store")
    there = Evaluator(qrels, MEASURES).many(runs, store=store, jobs=2)
    assert there.results[0].notes[-1] == "Scored by 2 worker processes."
    here = Evaluator(qrels, MEASURES).many(runs, store=store)
    assert store.hits == len(runs) * len(MEASURES)
    _same(here, there)


def test_a_store_must_be_a_folder(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="The 'store' option must be a folder"):
        ResultStore("")
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(OptionError, match=r"a folder \(not a file\)"):
        ResultStore(afile)


def test_an_unreadable_run_is_the_readers_error_not_the_stores(tmp_path: Path) -> None:
    from cranfield.errors import InputError

    qrels, _ = _files(tmp_path, runs=0)
    with pytest.raises(InputError, match=r"absent\.txt: cannot read file"):
        Evaluator(qrels, ["AP"]).many([tmp_path / "absent.txt"], store=tmp_path / "store")
