"""The experiment runner: runs, cache reuse, report, configuration files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cranfield.errors import EngineError, EvaluationError, InputError, OptionError
from cranfield.evaluation.options import EvalOptions
from cranfield.io.load import load_run
from cranfield.lab import (
    BM25S,
    CallableSystem,
    Collection,
    Experiment,
    PrecomputedRun,
    SQLiteFTS5,
    Tantivy,
    Topic,
    load_config,
)
from cranfield.lab.report import to_html, to_markdown
from tests.conftest import SHARED
from tests.unit.lab.conftest import TOY_QRELS

FAST = {
    "warmup": 1,
    "repetitions": 1,
    "concurrency": [1, 2],
    "throughput_seconds": 0.0,
    "progress": False,
    "isolate": False,
}


def oracle(query: str, k: int) -> dict[str, float]:
    """A perfect system for the toy collection (module level, so it can be pickled)."""
    best = {"boundary": "d1", "heat": "d2", "wing": "d6", "buckling": "d4"}
    return {best[w]: 1.0 for w in query.split() if w in best}


def test_experiment_runs_writes_and_reuses(toy: Collection, tmp_path: Path) -> None:
    work = tmp_path / "work"
    lines: list[str] = []
    systems = [SQLiteFTS5("fts5"), CallableSystem("oracle", oracle)]
    result = Experiment(toy, systems, ["AP", "P@1"], workdir=work, log=lines.append, **FAST).run()
    assert result.baseline == "fts5"
    assert result.measures == ["AP", "P@1"]
    assert result.means["P@1"]["oracle"] == 1.0
    fts5 = result.system("fts5")
    with pytest.raises(OptionError, match="The 'name' option must be one of 'fts5'"):
        result.system("nope")
    assert fts5.index is not None
    assert fts5.index.index_bytes > 0
    assert fts5.latency is not None
    assert fts5.latency.samples.shape == (1, 4)
    assert fts5.throughput is not None
    assert fts5.throughput.levels == (1, 2)
    assert result.system("oracle").index is None  # a callable without index keeps none
    run = load_run(work / "runs" / "fts5.run")
    assert run.tag == "fts5"
    assert set(run.topics) == {"q1", "q2", "q3", "q4"}
    data = json.loads((work / "results.json").read_text())
    assert data["systems"][0]["index"]["index_bytes"] == fts5.index.index_bytes
    assert data["machine"]["cpu_count"] >= 1
    page = (work / "report.html").read_text()
    assert result.comparison_report == work / "comparison.html"  # the shared HTML report
    assert 'href="comparison.html"' in page
    assert "<!DOCTYPE html>" in (work / "comparison.html").read_text()[:100]
    for text in ("MAP", "P@1", "fts5", "oracle", "p99", "Throughput", "overhead"):
        assert text in page
    assert any("indexed 6 documents" in line for line in lines)
    assert not any(any(s.reused.values()) for s in result.systems)

    again = Experiment(
        toy,
        [SQLiteFTS5("fts5"), CallableSystem("oracle", oracle)],
        ["AP", "P@1"],
        workdir=work,
        **FAST,
    ).run()
    assert again.system("fts5").reused == {"index": True, "run": True, "efficiency": True}
    assert again.system("fts5").index == fts5.index
    assert again.means == result.means

    changed = Experiment(
        toy,
        [SQLiteFTS5("fts5", tokenizer="unicode61"), CallableSystem("oracle", oracle)],
        ["AP"],
        workdir=work,
        **FAST,
    ).run()
    assert changed.system("fts5").reused == {"index": False, "run": False, "efficiency": False}
    assert changed.system("oracle").reused["run"] is True

    deeper = Experiment(
        toy, [SQLiteFTS5("fts5", tokenizer="unicode61")], ["AP"], workdir=work, k=2, **FAST
    ).run()
    assert deeper.system("fts5").reused == {"index": True, "run": False, "efficiency": False}
    assert deeper.comparison is None
    assert set(deeper.means["AP"]) == {"fts5"}


def test_precomputed_runs_and_errors(toy: Collection, tmp_path: Path) -> None:
    given = tmp_path / "given.run"
    given.write_text("q1 Q0 d1 1 1.0 x\nq2 Q0 d2 1 1.0 x\n")
    result = Experiment(
        toy,
        [PrecomputedRun("given", given), SQLiteFTS5("fts5")],
        ["AP"],
        workdir=tmp_path / "w",
        baseline="fts5",
        **FAST,
    ).run()
    assert result.baseline == "fts5"
    assert result.system("given").latency is None
    assert (tmp_path / "w" / "runs" / "given.run").is_file()
    assert "—" in to_markdown(result)
    with pytest.raises(
        OptionError, match="The 'systems' option must be systems with distinct names, got 'a'"
    ):
        Experiment(toy, [SQLiteFTS5("a"), SQLiteFTS5("a")])
    with pytest.raises(OptionError, match="The 'baseline' option must be one of 'a', got 'zz'"):
        Experiment(toy, [SQLiteFTS5("a")], baseline="zz")
    with pytest.raises(TypeError, match="must be systems with config, index, load and search"):
        Experiment(toy, [object()])  # type: ignore[list-item]
    with pytest.raises(OptionError, match="The 'systems' option must be keyed by each system's"):
        Experiment(toy, {"b": SQLiteFTS5("a")})
    with pytest.raises(OptionError, match="The 'repetitions' option must be an integer >= 1"):
        Experiment(toy, [SQLiteFTS5("a")], repetitions=0)  # refused before any indexing


def test_significance_and_cross_validation_reach_the_report(
    toy: Collection, tmp_path: Path
) -> None:
    result = Experiment(
        toy,
        [SQLiteFTS5("fts5"), CallableSystem("oracle", oracle)],
        ["AP"],
        workdir=tmp_path / "w",
        efficiency=False,
        cross_validation={"measure": "AP", "n_folds": 2},
        progress=False,
    ).run()
    assert result.significance("fts5", "AP") is None
    p, _ = result.significance("oracle", "AP")  # type: ignore[misc]
    assert 0 <= p <= 1
    assert result.cross_validation is not None
    assert result.cross_validation.n_folds == 2
    assert "Cross-validated selection" in to_html(result)
    frame = result.to_polars()
    assert frame.columns[:3] == ["system", "AP", "AP p"]


@pytest.mark.slow
def test_cranfield_with_two_real_engines(cranfield: Collection, tmp_path: Path) -> None:
    """The issue's acceptance run, lightened: efficiency options trimmed to keep tests short.
    How long it takes is not asserted: on a loaded machine that says nothing of the code."""
    systems = [BM25S("bm25s"), Tantivy("tantivy"), BM25S("bm25s-k1b", k1=0.9, b=0.4, stemmer=None)]
    result = Experiment(
        cranfield, systems, workdir=tmp_path / "w", **{**FAST, "isolate": True}
    ).run()
    assert result.topics == 225
    for name in ("bm25s", "tantivy", "bm25s-k1b"):
        s = result.system(name)
        assert 0.2 < result.means["AP"][name] < 0.5
        assert s.index is not None
        assert s.index.collection_bytes == 1_644_706
        assert s.index.memory_method.endswith("in a fresh process")
        assert 0 < s.index.overhead < 5
        assert s.latency is not None
        assert s.latency.p99 >= s.latency.p50 > 0
    assert result.significance("tantivy", "nDCG@10") is not None
    page = to_html(result)
    for text in ("MAP", "nDCG@10", "P@10", "index time", "p95 ms", "c=2"):
        assert text in page


def test_config_files(tmp_path: Path) -> None:
    cfg = tmp_path / "exp.toml"
    cfg.write_text(
        f"""
[experiment]
measures = ["AP", "P@10"]
repetitions = 1
warmup = 0
concurrency = [1]
throughput_seconds = 0

[collection]
format = "cranfield"
path = "{SHARED / "data" / "cranfield"}"

[[systems]]
name = "fts5"
engine = "sqlite"

[[systems]]
name = "bm25s"
engine = "bm25s"
k1 = 1.5
"""
    )
    exp = load_config(cfg, progress=False)
    assert [s.name for s in exp.systems] == ["fts5", "bm25s"]
    assert exp.workdir == tmp_path / "lab-cranfield"
    assert exp.measures == ["AP", "P@10"]
    assert exp.repetitions == 1

    def broken(text: str, match: str) -> None:
        cfg.write_text(text)
        with pytest.raises(InputError, match=match):
            load_config(cfg)

    coll = f'[collection]\npath = "{SHARED / "data" / "cranfield"}"\n'
    broken("[experiment\n", r"exp.toml:1: is not valid TOML")
    broken(coll, "needs at least one \\[\\[systems\\]\\] table")
    broken(
        coll + '[[systems]]\nname = "x"\nengine = "lucene"\n',
        "systems entry 'x': 'engine' must be one of",
    )
    broken(
        coll + '[[systems]]\nname = "x"\nengine = "bm25s"\nk3 = 1\n',
        "systems entry 'x': unknown key 'k3'",
    )
    broken(
        coll + '[[systems]]\nname = "x"\nengine = "bm25s"\nb = 7\n',
        r"systems entry 'x': 'b' must be a number >= 0 and <= 1, got 7$",
    )
    broken(
        coll + '[experiment]\nk = 0\n[[systems]]\nname = "x"\nengine = "sqlite"\n',
        r"\[experiment\]: 'k' must be an integer >= 1, got 0$",
    )
    broken(
        coll + '[experiment]\nrepetition = 3\n[[systems]]\nname = "x"\nengine = "sqlite"\n',
        "\\[experiment\\]: unknown key 'repetition'",
    )
    broken(
        '[collection]\nformat = "sgml"\n[[systems]]\nname = "x"\nengine = "sqlite"\n',
        "format: must be 'cranfield', 'trec' or 'ir_datasets'",
    )


def test_config_evaluation_table_is_the_experiments_options(tmp_path: Path) -> None:
    cfg = tmp_path / "exp.toml"
    head = f"""
[collection]
format = "cranfield"
path = "{SHARED / "data" / "cranfield"}"

[[systems]]
name = "fts5"
engine = "sqlite"
"""
    cfg.write_text(head + '\n[evaluation]\nmissing = "skip"\ndepth = 100\nrelevance_level = 2\n')
    exp = load_config(cfg, progress=False)
    assert exp.options == EvalOptions(missing="skip", depth=100, relevance_level=2)
    cfg.write_text(head + "\n[evaluation]\ndepth = -1\n")
    with pytest.raises(InputError, match=r"\[evaluation\]: 'depth' must be an integer >= 0"):
        load_config(cfg)
    cfg.write_text(head + "\n[evaluation]\ndepht = 10\n")
    with pytest.raises(InputError, match=r"\[evaluation\]: unknown key 'depht' \(allowed: "):
        load_config(cfg)


def _fails(*args: object) -> None:
    raise RuntimeError("exploded")


@pytest.mark.parametrize(
    ("system", "message"),
    [
        (
            CallableSystem("u", oracle, index=_fails),
            r"^system 'u' failed to index toy: RuntimeError: exploded$",
        ),
        (
            CallableSystem("u", oracle, load=_fails),
            r"^system 'u' failed to load its index .*indexes/u: RuntimeError: exploded$",
        ),
        (
            CallableSystem("u", lambda q, k: {"d1": float("nan")}),
            r"^system 'u' answered topic q1 with document 'd1' and an unusable score "
            r"\(score is NaN\)\.$",
        ),
    ],
)
def test_a_failing_system_is_one_engine_error(
    toy: Collection, tmp_path: Path, system: CallableSystem, message: str
) -> None:
    """A user's index or load function that raises, or a NaN score, names the system (it
    was a traceback, or an error about a '<DataFrame>')."""
    exp = Experiment(toy, [system], ["AP"], workdir=tmp_path, **{**FAST, "warmup": 0})
    with pytest.raises(EngineError, match=message):
        exp.run()


def test_topics_that_the_qrels_do_not_judge_are_refused(toy: Collection) -> None:
    """Topics and qrels of two collections scored every system 0 with exit 0."""
    other = Collection.from_documents("mixed", toy.documents, [Topic("q9", "wings")], TOY_QRELS)
    with pytest.raises(
        EvaluationError,
        match=r"^no topic of collection 'mixed' is judged in its qrels \(topics: q9; "
        r"judged: q1, q2, q3 and 1 more\); are the topics and the qrels of one collection\?$",
    ):
        Experiment(other, [CallableSystem("c", oracle)])
