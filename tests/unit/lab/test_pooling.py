"""Pooling on toy runs and on the 17 TREC 2003 Robust runs."""

from __future__ import annotations

import gzip
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from cranfield.errors import InputError, OptionError
from cranfield.evaluation.execution import Execution
from cranfield.evaluation.options import EvalOptions
from cranfield.io.load import load_qrels
from cranfield.lab import (
    PoolStudy,
    judged_at_k,
    leave_one_out,
    merge_judgments,
    pool,
    pool_study,
)
from cranfield.lab import pooling as pooling_module
from tests.conftest import REAL, REPO, require

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


# ------------------------------------------------------------------ the study in one call

EXAMPLES = REPO / "examples"
RUN_FILES = [str(EXAMPLES / "bm25.run"), str(EXAMPLES / "neural.run")]
QRELS_FILE = str(EXAMPLES / "qrels.txt")
TOY_RUNS = {
    "a": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"e1": 2.0, "e2": 1.0}},
    "b": {"q1": {"d2": 9.0, "d4": 8.0, "d1": 1.0}, "q2": {"e3": 1.0}},
}
TOY_QRELS = {"q1": {"d1": 1, "d2": 0, "d4": 1}, "q2": {"e1": 0, "e3": 1}}


def test_pool_study_is_the_building_blocks_called_in_turn() -> None:
    """What ``cranfield lab pool`` put together by hand, in the same JSON."""
    study = pool_study(RUN_FILES, 7, qrels=QRELS_FILE, measure="nDCG@10", judged_k=4)
    by_hand = pool(RUN_FILES, 7).to_dict()
    judged = judged_at_k(QRELS_FILE, RUN_FILES, 4)
    loo = leave_one_out(QRELS_FILE, RUN_FILES, "nDCG@10", depth=7)
    by_hand["judged_at_k"] = {"k": 4, **judged}
    by_hand["leave_one_out"] = {"measure": loo.measure, "rows": loo.frame.to_dicts()}
    assert study.to_dict() == by_hand
    assert json.loads(study.to_json()) == by_hand
    assert study.judged_at_k == judged
    assert isinstance(study, PoolStudy)


def test_pool_study_counts_by_hand_on_toy_runs() -> None:
    study = pool_study(TOY_RUNS, 2, qrels=TOY_QRELS, judged_k=2)
    # depth 2: a gives q1 d1 d2, q2 e1 e2; b gives q1 d2 d4, q2 e3
    assert study.pool.sizes() == {"q1": 3, "q2": 3}
    assert study.pool.unique_contributions() == {"a": 3, "b": 2}
    # judged@2 (of min(2, retrieved)): a's top 2 judged in q1 (d1, d2), half in q2 (e1);
    # b's d2 d4 in q1, and e3, all it retrieved for q2
    assert study.judged_at_k == {"a": (1.0 + 0.5) / 2, "b": (1.0 + 1.0) / 2}
    rows = {r["run"]: r for r in study.leave_one_out.frame.to_dicts()}  # type: ignore[union-attr]
    # a's unique documents: d1 (relevant), e1, e2 (e1 judged, not relevant)
    assert (rows["a"]["unique"], rows["a"]["unique_judged"], rows["a"]["unique_relevant"]) == (
        3,
        2,
        1,
    )
    # b's unique documents: d4 and e3, both relevant
    assert (rows["b"]["unique"], rows["b"]["unique_relevant"]) == (2, 2)
    assert study.export is None
    assert "export" not in study.to_dict()


def test_pool_study_without_qrels_is_the_pool_alone() -> None:
    study = pool_study(TOY_RUNS, 1)
    assert study.judged_at_k is None
    assert study.leave_one_out is None
    assert study.to_dict() == pool(TOY_RUNS, 1).to_dict()
    assert repr(study) == (
        "PoolStudy(Pool(depth=1, runs=2, topics=2, documents=4), judged=False, exported=False)"
    )


def test_pool_study_writes_the_export_where_pool_writes_it(tmp_path: Path) -> None:
    out, by_hand = tmp_path / "pool.tsv", tmp_path / "by-hand.tsv"
    study = pool_study(RUN_FILES, 3, export=out, seed=5, format="tsv")
    pool(RUN_FILES, 3).export(by_hand, seed=5, format="tsv")
    assert out.read_bytes() == by_hand.read_bytes()
    assert study.to_dict()["export"] == {"path": str(out), "seed": 5, "format": "tsv"}
    assert list(study.to_dict())[-1] == "export"
    with pytest.raises(OptionError, match="The 'export' option must be a file that is not one"):
        pool_study(RUN_FILES, 3, export=RUN_FILES[1])
    with pytest.raises(OptionError, match="The 'export' option must be a file that is not one"):
        pool_study({"x": RUN_FILES[0]}, 3, qrels=QRELS_FILE, export=QRELS_FILE)
    with pytest.raises(OSError, match=r"cannot write .*no/such/folder/pool\.txt"):
        pool_study(RUN_FILES, 3, export=tmp_path / "no" / "such" / "folder" / "pool.txt")


def test_pool_study_passes_where_the_runs_are_read_on_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    for name in ("pool", "judged_at_k", "leave_one_out"):
        original = getattr(pooling_module, name)

        def spy(*args: Any, _name: str = name, _f: Any = original, **kwargs: Any) -> Any:
            seen.append((_name, {"execution": kwargs["execution"]}))
            return _f(*args, **kwargs)

        monkeypatch.setattr(pooling_module, name, spy)
    pool_study(TOY_RUNS, 2, qrels=TOY_QRELS, jobs=1)
    where = {"execution": Execution()}
    assert seen[:2] == [("pool", where), ("judged_at_k", where)]
    assert ("leave_one_out", where) in seen


def test_pool_study_takes_the_evaluation_options() -> None:
    study = pool_study(TOY_RUNS, 2, qrels=TOY_QRELS, measure="P@2", depth=1)
    by_hand = leave_one_out(TOY_QRELS, TOY_RUNS, "P@2", depth=2, options=EvalOptions(depth=1))
    assert study.leave_one_out.frame.to_dicts() == by_hand.frame.to_dicts()  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ({"pool_depth": 0}, "The 'pool_depth' option must be an integer >= 1, got 0"),
        ({"judged_k": 0}, "The 'judged_k' option must be an integer >= 1, got 0"),
        ({"export": "x.txt", "seed": -1}, "The 'seed' option must be an integer >= 0, got -1"),
        ({"export": "x.txt", "format": "csv"}, "The 'format' option must be one of"),
        ({"qrels": "q.txt", "measure": "P.5,10"}, "The 'measure' option must be exactly one"),
        ({"missing": "drop"}, "The 'missing' option must be one of"),
    ],
)
def test_pool_study_refuses_a_bad_setting_before_reading_a_run(
    call: dict[str, Any], message: str
) -> None:
    with pytest.raises(OptionError, match=message.replace("(", r"\(")):
        pool_study(["no/such/run"], **call)


def test_a_seed_without_an_export_is_not_checked() -> None:
    assert pool_study(TOY_RUNS, 1, seed=-1).export_seed is None


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


GROUP_QRELS = {"q1": {"d1": 1, "d2": 1, "d3": 1}}
GROUP_RUNS = {
    "a1": {"q1": {"d1": 2.0, "d9": 1.0}},
    "a2": {"q1": {"d1": 2.0, "d2": 1.0}},
    "b": {"q1": {"d3": 2.0, "d8": 1.0}},
}


def _rows(result: Any) -> list[tuple[Any, ...]]:
    cols = ["run", "unique", "score", "score_without", "rank", "rank_without"]
    return [tuple(round(v, 4) if isinstance(v, float) else v for v in r)
            for r in result.frame.select(cols).rows()]  # fmt: skip


def test_leave_one_group_out_by_hand() -> None:
    """Team A's two runs share d1: leaving each out alone removes little (a1 nothing, a2 d2);
    leaving team A out removes d1, d2 and d9, which both its runs relied on (AP by hand, R = 3
    judged relevant, 2 once d1's and d2's judgments are gone ... 1)."""
    alone = leave_one_out(GROUP_QRELS, GROUP_RUNS, "AP", depth=2)
    assert alone.groups is None
    assert _rows(alone) == [
        ("a1", 1, 0.3333, 0.3333, 2, 2),
        ("a2", 1, 0.6667, 0.5, 1, 1),
        ("b", 2, 0.3333, 0.0, 2, 3),
    ]
    grouped = leave_one_out(GROUP_QRELS, GROUP_RUNS, "AP", depth=2, groups={"a1": "A", "a2": "A"})
    assert grouped.frame.get_column("group").to_list() == ["A", "A", "b"]
    assert _rows(grouped) == [
        ("a1", 3, 0.3333, 0.0, 2, 2),  # ranked among b alone: the runs outside team A
        ("a2", 3, 0.6667, 0.0, 1, 2),
        ("b", 2, 0.3333, 0.0, 2, 3),
    ]
    text = grouped.to_text().splitlines()
    assert text[0] == "leave-one-group-out, AP, pool depth 2"
    assert text[2].split()[:3] == ["a1", "A", "3"]
    study = pool_study(GROUP_RUNS, 2, qrels=GROUP_QRELS, groups={"a1": "A", "a2": "A"})
    assert study.leave_one_out is not None
    assert study.leave_one_out.frame.equals(grouped.frame)
    with pytest.raises(OptionError, match="'groups' option must be a mapping of run names"):
        leave_one_out(GROUP_QRELS, GROUP_RUNS, "AP", depth=2, groups={"zz": "A"})
