"""The lab's provenance (results.json, report) and caches keyed by content, not file times."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from cranfield._version import __version__
from cranfield.evaluation.provenance import TIE_RULE
from cranfield.lab import CallableSystem, Collection, Document, Experiment, Topic, load_config
from cranfield.lab.result import ExperimentResult

QUICK: dict[str, Any] = {"progress": False, "isolate": False, "efficiency": False}

DOCS = [
    {"doc_id": "d1", "text": "boundary layer of a flat plate"},
    {"doc_id": "d2", "text": "heat transfer to a cooled wall"},
    {"doc_id": "d3", "text": "flutter of a wing in a tunnel"},
]
TOPICS = "q1\tboundary layer\nq2\theat transfer\nq3\twing flutter\n"
QRELS = "q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\n"
RUN = "q1 Q0 d1 1 2.0 t\nq2 Q0 d1 1 2.0 t\nq3 Q0 d3 1 2.0 t\n"
CONFIG = """
[experiment]
measures = ["AP"]

[collection]
format = "trec"
name = "tiny"
documents = "docs.jsonl"
topics = "topics.tsv"
qrels = "qrels.txt"

[[systems]]
name = "fts5"
engine = "sqlite"
tokenizer = "porter"

[[systems]]
name = "given"
engine = "run"
path = "given.run"
"""


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _edit_in_place(path: Path, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` (same length), keeping the file's size and times."""
    assert len(old) == len(new)
    before = path.stat()
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def _setup(tmp_path: Path) -> Path:
    (tmp_path / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    (tmp_path / "topics.tsv").write_text(TOPICS)
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "given.run").write_text(RUN)
    cfg = tmp_path / "exp.toml"
    cfg.write_text(CONFIG)
    return cfg


def _run(cfg: Path) -> ExperimentResult:
    return load_config(cfg, workdir=cfg.parent / "work", **QUICK).run()


def test_results_json_and_report_state_the_provenance(tmp_path: Path) -> None:
    cfg = _setup(tmp_path)
    result = _run(cfg)
    assert result.provenance is not None
    work = tmp_path / "work"
    data = json.loads((work / "results.json").read_text())
    prov = data["provenance"]
    assert prov["cranfield"] == __version__
    assert prov["measures"] == ["AP"]
    assert prov["options"]["missing"] == "zero"
    assert prov["tie_rule"] == TIE_RULE
    inputs = prov["inputs"]
    assert list(inputs) == ["collection", "config", "run:fts5", "run:given"]
    assert inputs["collection"] == {"source": "tiny", "sha256": result.provenance.inputs[0].sha256}
    assert inputs["config"] == {"source": str(cfg), "sha256": _sha(cfg)}
    assert inputs["run:fts5"]["sha256"] == _sha(work / "runs" / "fts5.run")
    given = next(s for s in data["systems"] if s["name"] == "given")
    assert given["config"]["sha256"] == _sha(tmp_path / "given.run")
    assert "mtime_ns" not in given["config"]
    page = (work / "report.html").read_text()
    assert "<h2>Provenance</h2>" in page
    assert _sha(cfg) in page
    assert "compared bytewise" in page


def test_a_document_changed_in_place_is_indexed_again(tmp_path: Path) -> None:
    cfg = _setup(tmp_path)
    first = _run(cfg)
    assert first.means["AP"]["fts5"] == 1.0
    assert _run(cfg).system("fts5").reused == {"index": True, "run": True, "efficiency": False}
    # d3 no longer mentions a wing: same size, same modification time, other content.
    _edit_in_place(tmp_path / "docs.jsonl", "flutter of a wing", "flutter of a ship")
    changed = _run(cfg)
    assert changed.system("fts5").reused == {"index": False, "run": False, "efficiency": False}
    assert changed.means["AP"]["fts5"] == 1.0  # "flutter" still finds it
    _edit_in_place(tmp_path / "docs.jsonl", "flutter of a ship", "shaking of a ship")
    assert _run(cfg).means["AP"]["fts5"] < 1.0


def test_qrels_changed_in_place_are_never_served_stale(tmp_path: Path) -> None:
    cfg = _setup(tmp_path)
    first = _run(cfg)
    assert first.means["AP"]["given"] == 2 / 3
    _edit_in_place(tmp_path / "qrels.txt", "q2 0 d2 1", "q2 0 d1 1")
    changed = _run(cfg)
    assert changed.means["AP"]["given"] == 1.0
    assert first.provenance is not None
    assert changed.provenance is not None
    assert changed.provenance.input("collection") != first.provenance.input("collection")


def test_a_config_changed_in_place_is_never_served_stale(tmp_path: Path) -> None:
    cfg = _setup(tmp_path)
    first = _run(cfg)
    _edit_in_place(cfg, 'tokenizer = "porter"', 'tokenizer = "ascii" ')
    changed = _run(cfg)
    assert changed.system("fts5").reused["index"] is False
    assert changed.system("fts5").config["tokenizer"] == "ascii"
    assert first.provenance is not None
    assert changed.provenance is not None
    assert changed.provenance.input("config").sha256 != first.provenance.input("config").sha256


def test_a_given_run_changed_in_place_is_read_again(tmp_path: Path) -> None:
    cfg = _setup(tmp_path)
    first = _run(cfg)
    _edit_in_place(tmp_path / "given.run", "q2 Q0 d1", "q2 Q0 d2")
    changed = _run(cfg)
    assert (first.means["AP"]["given"], changed.means["AP"]["given"]) == (2 / 3, 1.0)
    assert changed.system("given").config["sha256"] != first.system("given").config["sha256"]


def test_an_experiment_in_memory_states_its_collection_fingerprint(
    toy: Collection, tmp_path: Path
) -> None:
    oracle = CallableSystem("d1", lambda q, k: {"d1": 1.0})
    result = Experiment(toy, [oracle], ["AP"], workdir=tmp_path, **QUICK).run()
    assert result.provenance is not None
    assert result.provenance.input("collection").sha256 == toy.fingerprint
    roles = [i.role for i in result.provenance.inputs]
    assert roles == ["collection", "run:d1"]


def _search_d1(query: str, k: int) -> dict[str, float]:
    return {"d1": 2.0, "d2": 1.0, "d3": 0.5}


def _find_nothing(query: str, k: int) -> dict[str, float]:
    return {}


def _experiment(tmp_path: Path) -> Experiment:
    collection = Collection.from_documents(
        "tiny",
        [Document(d["doc_id"], d["text"]) for d in DOCS],
        [Topic(q, text) for q, text in (line.split("\t") for line in TOPICS.splitlines())],
        {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}},
    )
    systems = [CallableSystem("fixed", _search_d1), CallableSystem("none", _find_nothing)]
    return Experiment(collection, systems, ["AP"], workdir=tmp_path / "work", **QUICK)


def test_a_damaged_cached_run_is_searched_again_never_scored(tmp_path: Path) -> None:
    first = _experiment(tmp_path).run()
    cached = tmp_path / "work" / "runs" / "fixed.run"
    lines = cached.read_text().splitlines(keepends=True)
    cached.write_text("".join(lines[:2]))  # truncated: two of its lines left
    second = _experiment(tmp_path).run()
    reused = {s.name: s.reused["run"] for s in second.systems}
    assert reused == {"fixed": False, "none": True}  # the empty run is a good cache too
    assert second.means == first.means
    assert cached.read_text() == "".join(lines)
