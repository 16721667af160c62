"""``cranfield lab``: run, pool, merge, folds, cv; exit codes 0 / 1 usage / 2 bad data."""

from __future__ import annotations

import io
import json
from pathlib import Path

from cranfield.cli.lab import main
from tests.conftest import REAL, SHARED, require

ROBUST = REAL / "robust03"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _config(tmp_path: Path) -> Path:
    cfg = tmp_path / "lab.toml"
    cfg.write_text(
        f"""
[experiment]
name = "cli test"
workdir = "out"
measures = ["AP", "nDCG@10", "P@10"]
k = 100
repetitions = 1
warmup = 0
concurrency = [1, 2]
throughput_seconds = 0
isolate = false

[collection]
format = "cranfield"
path = "{require(SHARED / "data" / "cranfield")}"

[[systems]]
name = "tantivy"
engine = "tantivy"

[[systems]]
name = "bm25s"
engine = "bm25s"
"""
    )
    return cfg


def test_lab_run_and_rerun(tmp_path: Path) -> None:
    cfg = _config(tmp_path)
    code, out, err = run("run", str(cfg))
    assert code == 0, err
    assert "tantivy (baseline)" in out
    assert "MAP" in out
    assert "q/s @2" in out
    assert "tantivy: indexed 1400 documents" in err
    report = tmp_path / "out" / "report.html"
    assert report.is_file()
    assert f"report: {report}" in out
    code, out, err = run("run", str(cfg), "--markdown", "--quiet")
    assert code == 0
    assert err == ""
    assert "| tantivy (baseline) |" in out
    assert "Reused from earlier runs of this experiment: tantivy (index, run, efficiency)" in out


def test_lab_run_errors(tmp_path: Path) -> None:
    code, _, err = run("run", str(tmp_path / "missing.toml"))
    assert code == 2
    assert "missing.toml: cannot be read" in err
    bad = tmp_path / "bad.toml"
    bad.write_text('[collection]\npath = "."\n[[systems]]\nname = "x"\nengine = "sqlite"\n')
    code, _, err = run("run", str(bad))
    assert code == 2
    assert f"{tmp_path / 'cran.all.1400'}: cannot be read" in err
    bad.write_text(bad.read_text().replace('"."', '"nowhere"'))
    code, _, err = run("run", str(bad))
    assert code == 2
    assert err == (
        f"cranfield lab run: {bad}: [collection] path: cannot use {tmp_path / 'nowhere'} "
        "(No such file or directory)\n"
    )
    code, _, err = run("run")
    assert code == 1
    assert "usage:" in err
    code, _, err = run("frobnicate")
    assert code == 1


def test_lab_pool(tmp_path: Path) -> None:
    runs = [
        str(require(ROBUST / "runs" / f"input.{n}.gz"))
        for n in ("pircRBa1", "humR03dc", "NLPR03vb10")
    ]
    qrels = str(require(ROBUST / "qrels.robust03.txt.gz"))
    export = tmp_path / "pool.txt"
    code, out, err = run(
        "pool", *runs, "--depth", "20", "--qrels", qrels, "--export", str(export), "--seed", "3"
    )
    assert code == 0, err
    assert "depth-20 pool of 3 runs" in out
    assert "judged@10" in out
    assert "leave-one-run-out, AP, pool depth 20" in out
    assert "input.humR03dc" in out
    code, out, _ = run("pool", *runs, "--depth", "20", "--json")
    data = json.loads(out)
    assert data["documents"] == len(export.read_text().splitlines())
    assert sum(data["sizes"].values()) == data["documents"]
    code, _, err = run("pool", *runs, "--depth", "0")
    assert code == 1
    assert "expected an integer >= 1" in err
    code, _, err = run("pool", str(tmp_path / "none.run"))
    assert code == 2


def test_lab_merge_folds_and_cv(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{i} 0 d1 1\nq{i} 0 d2 0\n" for i in range(6)))
    new = tmp_path / "new"
    new.write_text("q0 0 d3 2\nq9 0 d1 1\n")
    out_path = tmp_path / "merged"
    code, out, err = run("merge", str(qrels), str(new), "-o", str(out_path))
    assert code == 0, err
    assert "14 judgments" in out
    assert "q9 0 d1 1" in out_path.read_text()
    new.write_text("q0 0 d1 0\n")
    code, _, err = run("merge", str(qrels), str(new), "-o", str(out_path))
    assert code == 2
    assert "judges topic q0 document d1 as 0 but the qrels say 1" in err
    code, out, _ = run("folds", str(qrels), "--folds", "3", "--seed", "1")
    assert code == 0
    assert len(out.splitlines()) == 3
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text("".join(f"q{i} Q0 d1 1 2 a\nq{i} Q0 d2 2 1 a\n" for i in range(6)))
    b.write_text("".join(f"q{i} Q0 d2 1 2 b\nq{i} Q0 d1 2 1 b\n" for i in range(6)))
    code, out, err = run("cv", str(qrels), str(a), str(b), "--folds", "3")
    assert code == 0, err
    assert "held-out AP: 1.0000" in out
    code, _, err = run("cv", str(qrels), str(a), "-m", "NoSuchMeasure")
    assert code == 1
