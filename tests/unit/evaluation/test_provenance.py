"""Provenance: version, inputs and their SHA-256, measures, options and tie rule."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import cranfield
from cranfield._version import __version__
from cranfield.evaluation.evaluator import Evaluator, evaluate, evaluate_stream
from cranfield.evaluation.options import EvalOptions
from cranfield.evaluation.provenance import IN_MEMORY, TIE_RULE, InputFile, Provenance

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n"
RUN = "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq2 Q0 c 1 3.0 t\n"


def _files(tmp_path: Path) -> tuple[Path, Path]:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return qrels, run


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_front_door_reexports_the_foundation_version() -> None:
    assert cranfield.__version__ == __version__


def test_results_of_files_state_version_hashes_measures_options_and_ties(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    res = evaluate(str(qrels), str(run), ["map", "P@1"], depth=5)
    doc = res.provenance().to_dict()
    assert doc["cranfield"] == __version__
    assert doc["inputs"] == {
        "qrels": {"source": str(qrels), "sha256": _sha(qrels)},
        "run": {"source": str(run), "sha256": _sha(run)},
    }
    assert doc["measures"] == ["AP", "P@1"]
    assert doc["options"] == EvalOptions(depth=5).to_dict()
    assert doc["tie_rule"] == TIE_RULE
    assert json.loads(json.dumps(doc)) == doc


def test_objects_in_memory_have_no_hash() -> None:
    res = evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "AP")
    inputs = res.provenance().to_dict()["inputs"]
    assert inputs == {
        "qrels": {"source": IN_MEMORY, "sha256": None},
        "run": {"source": IN_MEMORY, "sha256": None},
    }


def test_a_compressed_file_is_hashed_as_stored(tmp_path: Path) -> None:
    qrels, _ = _files(tmp_path)
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(RUN.encode()))
    res = evaluate(qrels, packed, "AP")
    assert res.provenance().input("run").sha256 == _sha(packed)


def test_a_streamed_run_knows_its_file(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    res = evaluate_stream(qrels, run, "AP")
    assert res.provenance().input("run") == InputFile("run", str(run), _sha(run))


def test_extra_judgments_are_inputs_too(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    res = Evaluator(qrels, ["AP"], known=qrels).evaluate(run)
    assert res.provenance().input("known").sha256 == _sha(qrels)


def test_a_score_table_names_every_run(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    table = Evaluator(qrels, ["AP"]).many({"bm25": run, "mem": {"q1": {"a": 1.0}}})
    doc = table.provenance().to_dict()
    assert list(doc["inputs"]) == ["qrels", "run:bm25", "run:mem"]
    assert doc["inputs"]["run:bm25"]["sha256"] == _sha(run)
    assert doc["inputs"]["run:mem"] == {"source": IN_MEMORY, "sha256": None}


def test_the_hash_follows_the_content_not_the_file_times(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    res = evaluate(qrels, run, "AP")
    first = res.provenance().input("qrels").sha256
    qrels.write_text(QRELS.replace("q2 0 c 2", "q2 0 c 1"))  # same size
    assert res.provenance().input("qrels").sha256 != first


def test_scoring_hashes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cranfield.evaluation import provenance

    def refuse(path: object) -> str:
        raise AssertionError(f"hashed {path} while scoring")

    monkeypatch.setattr(provenance, "file_sha256", refuse)
    qrels, run = _files(tmp_path)
    Evaluator(qrels, ["AP"]).many({"a": run, "b": run})


def test_an_unknown_role_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="inputs: qrels"):
        Provenance.of({"qrels": None}, ["AP"], None).input("run")


def test_stdin_is_named_not_hashed() -> None:
    assert InputFile.of("run", "-").to_dict() == {"source": "<stdin>", "sha256": None}


def test_evaluate_json_states_the_provenance(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    argv = ["evaluate", str(qrels), str(run), "-m", "AP", "P@1", "-f", "json"]
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "cranfield"), *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert list(doc) == ["results", "policy", "provenance"]
    prov = doc["provenance"]
    assert prov["cranfield"] == __version__
    assert prov["inputs"] == {
        "qrels": {"source": str(qrels), "sha256": _sha(qrels)},
        "run:run": {"source": str(run), "sha256": _sha(run)},
    }
    assert prov["measures"] == ["AP", "P@1"]
    assert prov["options"]["missing"] == "zero"
    assert prov["tie_rule"] == TIE_RULE


def test_the_html_report_states_hashes_options_and_ties(tmp_path: Path) -> None:
    import html
    import re

    from cranfield.report.html import html_report

    qrels, run = _files(tmp_path)
    page = html_report(qrels, {"bm25": run, "mem": {"q1": {"b": 1.0}}}, ["AP"], depth=3)
    table = re.search(r'<table id="parameters-table".*?</table>', page, re.S)
    assert table is not None
    text = html.unescape(re.sub(r"(<[^>]+>)+", "|", table.group(0)))
    for needle in (
        f"qrels sha256|{_sha(qrels)}",
        f"run sha256: bm25|{_sha(run)}",
        f"run sha256: mem|{IN_MEMORY}",
        'options|missing = "zero"; relevance_level = 1; judged_only = false; depth = 3',
        f"ties|{TIE_RULE}",
        f"cranfield version|{__version__}",
    ):
        assert needle in text, needle


def test_compare_json_states_its_provenance(tmp_path: Path) -> None:
    from cranfield.stats import compare, compare_scores

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\nq3 0 c 1\n")
    runs = []
    for name, docs in (("bm25", "abc"), ("dense", "cba")):
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"q{i + 1} Q0 {d} 1 1.0 t\n" for i, d in enumerate(docs)))
        runs.append(path)
    data = json.loads(compare(qrels, runs, "AP", seed=1).to_json())
    source = data["provenance"]
    assert source["inputs"]["qrels"]["sha256"] == hashlib.sha256(qrels.read_bytes()).hexdigest()
    assert source["inputs"]["run:dense"]["sha256"] == (
        hashlib.sha256(runs[1].read_bytes()).hexdigest()
    )
    assert source["measures"] == ["AP"]
    assert source["options"]["missing"] == "zero"
    scores_only = compare_scores({"a": {"AP": [0.1, 0.2]}, "b": {"AP": [0.2, 0.4]}})
    assert "provenance" not in scores_only.to_dict()  # not computed by cranfield
