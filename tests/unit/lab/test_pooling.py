"""Pooling on toy runs and on the 17 TREC 2003 Robust runs."""

from __future__ import annotations

import gzip
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from cranfield.errors import InputError, OptionError
from cranfield.io.load import load_qrels
from cranfield.lab import judged_at_k, leave_one_out, merge_judgments, pool
from tests.conftest import REAL, require

ROBUST = REAL / "robust03"


def test_pool_ranks_like_trec_eval_and_counts_contributions() -> None:
    runs = {
        # Ties at 1.0: trec_eval puts the larger doc id first, so "z" is in the depth-2 pool.
        "a": {"q1": {"d1": 3.0, "m": 1.0, "z": 1.0}, "q2": {"x": 1.0}},
        "b": {"q1": {"d1": 5.0, "d2": 4.0, "d3": 0.5}},
    }
    p = pool(runs, depth=2)
    assert p.sizes() == {"q1": 3, "q2": 1}
    assert p.frame.filter(p.frame["query_id"] == "q1")["doc_id"].to_list() == ["d1", "d2", "z"]
    assert p.unique_contributions() == {"a": 2, "b": 1}
    assert p.contributions() == {"a": 3, "b": 2}
    assert p.unique_documents("b").rows() == [("q1", "d2", "b")]
    assert p.to_qrels().to_dict() == {"q1": {"d1": -1, "d2": -1, "z": -1}, "q2": {"x": -1}}
    with pytest.raises(OptionError, match="The 'depth' option must be an integer >= 1, got 0"):
        pool(runs, depth=0)
    with pytest.raises(OptionError, match="The 'k' option must be an integer >= 1, got 0"):
        judged_at_k({"q1": {"d1": 1}}, runs, k=0)  # named k, not depth
    with pytest.raises(OptionError, match="The 'run' option must be one of 'a', 'b', got 'c'"):
        p.unique_documents("c")


def test_export_is_shuffled_reproducibly(tmp_path: Path) -> None:
    run = {
        "q1": {f"d{i:03d}": float(100 - i) for i in range(60)},
        "q2": {f"e{i:03d}": float(i) for i in range(30)},
    }
    p = pool({"r": run}, depth=50)
    first, second, other = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    p.export(first, seed=7)
    p.export(second, seed=7)
    p.export(other, seed=8)
    lines = first.read_text().splitlines()
    assert first.read_bytes() == second.read_bytes() != other.read_bytes()
    assert len(lines) == len(set(lines)) == 80
    pairs = [tuple(line.split()) for line in lines]
    assert all(rel == "-1" and it == "0" for _, it, _, rel in pairs)
    assert [q for q, *_ in pairs] == ["q1"] * 50 + ["q2"] * 30  # topics stay together
    q1 = [d for q, _, d, _ in pairs if q == "q1"]
    assert set(q1) == {f"d{i:03d}" for i in range(50)}
    assert q1 != sorted(q1)
    assert q1 != sorted(q1, reverse=True)
    p.export(tmp_path / "t.tsv", seed=7, format="tsv")
    assert (tmp_path / "t.tsv").read_text().splitlines()[0].count("\t") == 1
    assert load_qrels(first).to_dict() == p.to_qrels().to_dict()


def test_merge_judgments() -> None:
    old = {"q1": {"a": 1, "b": 0}}
    new = {"q1": {"a": 1, "c": 2, "d": -1}, "q2": {"x": 0}}
    merged = merge_judgments(old, new)
    assert merged.to_dict() == {"q1": {"a": 1, "b": 0, "c": 2, "d": -1}, "q2": {"x": 0}}
    clash = {"q1": {"b": 1}}
    with pytest.raises(InputError, match="judges topic q1 document b as 1 but the qrels say 0"):
        merge_judgments(old, clash)
    assert merge_judgments(old, clash, on_conflict="new").to_dict()["q1"]["b"] == 1
    assert merge_judgments(old, clash, on_conflict="old").to_dict()["q1"]["b"] == 0
    # An unjudged placeholder never overwrites a judgment.
    assert merge_judgments(old, {"q1": {"a": -1}}).to_dict()["q1"]["a"] == 1


def _independent_pool(paths: list[Path], depth: int) -> tuple[Counter[str], Counter[str]]:
    """Pool sizes per topic and unique documents per run, by plain Python."""
    tops: dict[str, dict[str, set[str]]] = {}
    for path in paths:
        lines: dict[str, list[tuple[float, bytes, str]]] = defaultdict(list)
        with gzip.open(path, "rt") as fh:
            for line in fh:
                q, _, doc, _, score, _ = line.split()
                lines[q].append((float(score), doc.encode(), doc))
        tops[path.name] = {
            q: {d for _, _, d in sorted(rows, reverse=True)[:depth]} for q, rows in lines.items()
        }
    owners: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name, per_topic in tops.items():
        for q, docs in per_topic.items():
            for d in docs:
                owners[(q, d)].append(name)
    sizes = Counter(q for q, _ in owners)
    unique = Counter(names[0].removesuffix(".gz") for names in owners.values() if len(names) == 1)
    return sizes, unique


@pytest.fixture(scope="module")
def robust_runs() -> list[Path]:
    runs = sorted(require(ROBUST / "runs").glob("input.*.gz"))
    assert len(runs) == 17
    return runs


@pytest.mark.slow
def test_robust03_pool_against_an_independent_count(robust_runs: list[Path]) -> None:
    p = pool([str(r) for r in robust_runs], depth=100)
    sizes, unique = _independent_pool(robust_runs, 100)
    assert p.sizes() == dict(sizes)
    assert len(p) == sum(sizes.values())
    assert p.unique_contributions() == {
        r.name.removesuffix(".gz"): unique[r.name.removesuffix(".gz")] for r in robust_runs
    }
    assert p.contributions()["input.NLPR03vb10"] == 1004  # about 10 documents per topic
    assert len(p.sizes()) == 100


@pytest.mark.slow
def test_robust03_leave_one_out_and_judged(robust_runs: list[Path]) -> None:
    qrels = require(ROBUST / "qrels.robust03.txt.gz")
    loo = leave_one_out(qrels, [str(r) for r in robust_runs], "AP", depth=100)
    table = {row["run"]: row for row in loo.frame.iter_rows(named=True)}
    assert len(table) == 17
    # Full-judgment MAP equals the sanity values of the data README (trec_eval 10).
    assert table["input.pircRBa1"]["score"] == pytest.approx(0.3101, abs=5e-5)
    assert table["input.InexpC2"]["score"] == pytest.approx(0.2249, abs=5e-5)
    for row in table.values():
        assert row["unique_relevant"] <= row["unique_judged"] <= row["unique"]
        if row["unique_relevant"] == 0:
            assert row["score_without"] == row["score"]
    assert sum(row["score_without"] < row["score"] for row in table.values()) >= 10
    assert "leave-one-run-out, AP, pool depth 100" in loo.to_text()
    judged = judged_at_k(qrels, {"pirc": robust_runs[13]}, k=10)
    assert 0.9 < judged["pirc"] <= 1.0


@pytest.mark.slow
def test_worker_processes_pool_and_score_as_this_process_does(robust_runs: list[Path]) -> None:
    """Six real runs read, pooled and scored by two worker processes: the same pool, the
    same Judged@k, the same leave-one-run-out rows."""
    qrels = require(ROBUST / "qrels.robust03.txt.gz")
    runs = [str(r) for r in robust_runs[:6]]
    here, there = pool(runs, depth=20), pool(runs, depth=20, jobs=2)
    assert there.runs == here.runs
    assert there.frame.equals(here.frame)
    assert there.entries.equals(here.entries)
    assert judged_at_k(qrels, runs, k=5, jobs=2) == judged_at_k(qrels, runs, k=5)
    loo_here = leave_one_out(qrels, runs, "AP", depth=20)
    loo_there = leave_one_out(qrels, runs, "AP", depth=20, jobs=2)
    assert loo_there.frame.equals(loo_here.frame)
