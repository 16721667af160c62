"""``cranfield lab``: run, pool, merge, folds, cv; exit codes 0 / 1 usage / 2 bad data."""

from __future__ import annotations

import errno
import io
import json
import os
from pathlib import Path

import pytest

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


@pytest.mark.slow
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
    code, out, err = run("run", str(cfg), "-f", "markdown", "--quiet")
    assert code == 0
    assert err == ""
    assert "| tantivy (baseline) |" in out
    assert "Reused from earlier runs of this experiment: tantivy (index, run, efficiency)" in out


def test_lab_run_errors(tmp_path: Path) -> None:
    code, _, err = run("run", str(tmp_path / "missing.toml"))
    assert code == 2
    assert "missing.toml: cannot read file" in err
    bad = tmp_path / "bad.toml"
    bad.write_text('[collection]\npath = "."\n[[systems]]\nname = "x"\nengine = "sqlite"\n')
    code, _, err = run("run", str(bad))
    assert code == 2
    assert f"{tmp_path / 'cran.all.1400'}: cannot read file" in err
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


@pytest.mark.slow
def test_lab_pool(tmp_path: Path) -> None:
    runs = [
        str(require(ROBUST / "runs" / f"input.{n}.gz"))
        for n in ("pircRBa1", "humR03dc", "NLPR03vb10")
    ]
    qrels = str(require(ROBUST / "qrels.robust03.txt.gz"))
    export = tmp_path / "pool.txt"
    code, out, err = run(
        "pool", *runs, "--pool-depth", "20", "--qrels", qrels, "--export", str(export), "-s", "3"
    )
    assert code == 0, err
    assert "depth-20 pool of 3 runs" in out
    assert "judged@10" in out
    assert "leave-one-run-out, AP, pool depth 20" in out
    assert "input.humR03dc" in out
    code, out, _ = run("pool", *runs, "--pool-depth", "20", "-f", "json")
    data = json.loads(out)
    assert data["documents"] == len(export.read_text().splitlines())
    assert sum(data["sizes"].values()) == data["documents"]
    code, _, err = run("pool", *runs, "--pool-depth", "0")
    assert code == 1
    assert "argument --pool-depth: expected an integer >= 1" in err
    argv = ("pool", *runs, "--pool-depth", "20", "--qrels", qrels, "-f", "json")
    code, here, err = run(*argv)
    assert code == 0, err
    code, there, err = run(*argv, "--jobs", "2")
    assert code == 0, err
    assert there == here
    # the spellings of the last release still work, each noted once on stderr
    code, there, err = run("pool", *runs, "--depth", "20", "--qrels", qrels, "--json")
    assert (code, there) == (0, here)
    assert err == (
        "cranfield: --depth of 'lab pool' is deprecated; use --pool-depth.\n"
        "cranfield: --json of 'lab pool' is deprecated; use -f json.\n"
    )
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
    code, there, err = run("cv", str(qrels), str(a), str(b), "--folds", "3", "-j", "2")
    assert (code, there) == (0, out), err
    code, _, err = run("cv", str(qrels), str(a), "-m", "NoSuchMeasure")
    assert code == 1


def _small(tmp_path: Path, experiment: str = "") -> Path:
    """A configuration of a three-document collection and one SQLite system: seconds to run."""
    (tmp_path / "docs.jsonl").write_text(
        '{"doc_id": "d1", "text": "boundary layer"}\n{"doc_id": "d2", "text": "heat transfer"}\n'
        '{"doc_id": "d3", "text": "wind tunnel"}\n'
    )
    (tmp_path / "topics.tsv").write_text("q1\tboundary layer\nq2\theat transfer\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    cfg = tmp_path / "lab.toml"
    cfg.write_text(
        f'[experiment]\nworkdir = "out"\nmeasures = "AP"\nisolate = false\nwarmup = 0\n'
        f"repetitions = 1\nconcurrency = [1]\nthroughput_seconds = 0\n{experiment}\n"
        '[collection]\nformat = "trec"\nqrels = "qrels.txt"\ntopics = "topics.tsv"\n'
        'documents = "docs.jsonl"\n[[systems]]\nname = "fts"\nengine = "sqlite"\n'
    )
    return cfg


def test_lab_run_efficiency_is_the_configurations_unless_the_command_line_says(
    tmp_path: Path,
) -> None:
    measured = tmp_path / "out" / "efficiency" / "fts.json"
    cfg = _small(tmp_path, "efficiency = false")
    code, _, err = run("run", str(cfg), "--quiet")
    assert code == 0, err
    assert not measured.exists()
    code, _, err = run("run", str(cfg), "--quiet", "--efficiency")
    assert code == 0, err
    assert measured.exists()
    measured.unlink()
    cfg = _small(tmp_path)  # the configuration says nothing: measured, unless --no-efficiency
    code, _, err = run("run", str(cfg), "--quiet", "--no-efficiency")
    assert code == 0, err
    assert not measured.exists()
    code, _, err = run("run", str(cfg), "--quiet")
    assert code == 0, err
    assert measured.exists()


def _no_space(fd: int) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_lab_run_on_a_full_disk_is_one_line_and_keeps_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = _small(tmp_path, "efficiency = false")
    assert run("run", str(cfg), "--quiet")[0] == 0
    report = tmp_path / "out" / "report.html"
    before = report.read_bytes()
    monkeypatch.setattr(os, "fsync", _no_space)
    code, _, err = run("run", str(cfg), "--quiet", "--fresh")
    assert code == 2
    assert err == (
        f"cranfield lab run: cannot write {tmp_path / 'out' / 'indexes' / 'fts.json'}: "
        "No space left on device.\n"
    )
    assert report.read_bytes() == before


@pytest.mark.parametrize("command", ["merge", "pool"])
def test_lab_merge_and_pool_on_a_full_disk_keep_the_previous_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    qrels, new, output = tmp_path / "qrels", tmp_path / "new", tmp_path / "out.txt"
    qrels.write_text("q1 0 d1 1\n")
    new.write_text("q1 0 d2 0\n" if command == "merge" else "q1 Q0 d2 1 1.0 new\n")
    output.write_text("the previous output\n")
    argv = (
        ["merge", str(qrels), str(new), "-o", str(output)]
        if command == "merge"
        else ["pool", str(new), "--export", str(output)]
    )
    monkeypatch.setattr(os, "fsync", _no_space)
    code, _, err = run(*argv)
    assert code == 2
    assert err == f"cranfield lab {command}: cannot write {output}: No space left on device.\n"
    assert output.read_text() == "the previous output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "out.txt", "qrels"]


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        ("missing/out.txt", "No such file or directory"),
        ("qrels/out.txt", "Not a directory"),
        ("x" * 300, "File name too long"),
    ],
)
def test_lab_merge_to_an_output_it_cannot_write_names_it(
    tmp_path: Path, output: str, reason: str
) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    code, _, err = run("merge", str(qrels), str(qrels), "-o", str(tmp_path / output))
    assert code == 2
    assert err == f"cranfield lab merge: cannot write {tmp_path / output}: {reason}.\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["folds", "{one}"], "Cannot split 1 topic(s) into folds: at least 2 are needed."),
        (["cv", "{one}", "{run}"], "Cannot split 1 topic(s) into folds: at least 2 are needed."),
        (["run", "{bad_toml}"], "bad.toml:1: is not valid TOML"),
        (["run", "{binary}"], "binary.toml:1: is not UTF-8 text"),
        (["run", "{folder}"], "cannot read file (Is a directory)"),
    ],
)
def test_lab_bad_input_is_one_line_with_exit_2(
    tmp_path: Path, argv: list[str], message: str
) -> None:
    paths = {
        "one": tmp_path / "one",
        "run": tmp_path / "a.run",
        "bad_toml": tmp_path / "bad.toml",
        "binary": tmp_path / "binary.toml",
        "folder": tmp_path,
    }
    paths["one"].write_text("q1 0 d1 1\n")
    paths["run"].write_text("q1 Q0 d1 1 1.0 a\n")
    paths["bad_toml"].write_text("[experiment\n")
    paths["binary"].write_bytes(b"\x00\xff\xfe")
    code, _, err = run(*(a.format(**{k: str(v) for k, v in paths.items()}) for a in argv))
    assert code == 2, err
    assert err.count("\n") == 1
    assert message in err


def test_lab_init_writes_the_template_and_never_overwrites(tmp_path: Path) -> None:
    from cranfield.lab.config_template import TEMPLATE

    target = tmp_path / "lab.toml"
    code, out, err = run("init", str(target))
    assert (code, err) == (0, "")
    assert target.read_text(encoding="utf-8") == TEMPLATE
    assert f"cranfield lab run {target}" in out
    target.write_text("mine\n")
    code, out, err = run("init", str(target))
    assert code == 2
    assert (
        err == f"cranfield lab init: {target}: exists; cranfield lab init writes a new file only.\n"
    )
    assert target.read_text() == "mine\n"
    code, out, _ = run("init", "-")
    assert (code, out) == (0, TEMPLATE)


def test_lab_init_writes_cranfield_toml_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run("init")[0] == 0
    assert (tmp_path / "cranfield.toml").is_file()


def test_cv_takes_predefined_folds(tmp_path: Path) -> None:
    """By hand: run a ranks the relevant d1 first on q0 and q1 (AP 1) and second on q2 and q3
    (AP 0.5), run b the other way. Folds {q0, q1} and {q2, q3}: each fold's choice is the
    run that is worse on it, so the held-out AP is 0.5; the seeded split differs."""
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{i} 0 d1 1\n" for i in range(4)))
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    first, second = "Q0 d1 1 2 x\nq{i} Q0 d2 2 1 x\n", "Q0 d2 1 2 x\nq{i} Q0 d1 2 1 x\n"
    a.write_text("".join(f"q{i} " + (first if i < 2 else second).format(i=i) for i in range(4)))
    b.write_text("".join(f"q{i} " + (second if i < 2 else first).format(i=i) for i in range(4)))
    folds = tmp_path / "folds.tsv"
    folds.write_text("0\tq0 q1\n1\tq2 q3\n")
    code, out, err = run("cv", str(qrels), str(a), str(b), "--fold-file", str(folds))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "2-fold cross-validation on AP (predefined folds), 4 topics, 2 candidates"
    assert [line.split()[2] for line in lines[2:4]] == ["b", "a"]
    assert "held-out AP: 0.5000" in out
    folds.write_text("q0 q2\nq1 q3\n")  # ids alone, no label
    code, out, err = run("cv", str(qrels), str(a), str(b), "--fold-file", str(folds))
    assert code == 0, err
    assert "held-out AP: 0.7500" in out
    folds.write_text("0\tq0 q1\n1\tq2\n")
    code, out, err = run("cv", str(qrels), str(a), str(b), "--fold-file", str(folds))
    assert (code, out) == (2, "")
    assert err == (
        f"cranfield lab cv: {folds}: must hold two or more folds that hold each scored query "
        "exactly once (scored queries in no fold: q3)\n"
    )
    folds.write_text("0\tq0 q1\n1\tq2 q1\n")
    code, _, err = run("cv", str(qrels), str(a), str(b), "--fold-file", str(folds))
    assert code == 2
    assert err == f"cranfield lab cv: {folds}:2: puts query 'q1' in a second fold (line 1)\n"


def test_pool_leaves_a_group_of_runs_out(tmp_path: Path) -> None:
    """The hand-computed case of tests/unit/lab/test_pooling.py from the command line."""
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 1\n")
    docs = {"a1": ("d1", "d9"), "a2": ("d1", "d2"), "b": ("d3", "d8")}
    for name, (first, second) in docs.items():
        (tmp_path / f"{name}.run").write_text(f"q1 Q0 {first} 1 2 x\nq1 Q0 {second} 2 1 x\n")
    runs = [str(tmp_path / f"{name}.run") for name in docs]
    argv = ["pool", *runs, "--pool-depth", "2", "--qrels", str(qrels)]
    code, out, err = run(*argv, "--group", "A", "a1", "a2")
    assert code == 0, err
    assert "leave-one-group-out, AP, pool depth 2" in out
    row = out.split("leave-one-group-out")[1].splitlines()[3]
    assert row.split() == ["a2", "A", "3", "2", "0.6667", "0.0000", "-0.6667", "-100.00", "1", "2"]
    code, out, err = run(*argv, "-f", "json", "--group", "A", "a1", "a2")
    assert code == 0, err
    rows = json.loads(out)["leave_one_out"]["rows"]
    assert [(r["run"], r["group"], r["rank_without"]) for r in rows] == [
        ("a1", "A", 2),
        ("a2", "A", 2),
        ("b", "b", 3),
    ]
    code, _, err = run(*argv, "--group", "A", "a1", "--group", "B", "a1")
    assert code == 1
    assert err == "cranfield lab pool: error: run a1 is in two groups (A and B).\n"
    code, _, err = run(*argv, "--group", "A", "nosuchrun")
    assert code == 1
    assert err == (
        "cranfield lab pool: The --group option must be a mapping of run names (a1, a2, b) to "
        "groups, got 'nosuchrun'.\n"
    )
