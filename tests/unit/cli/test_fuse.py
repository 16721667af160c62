"""``cranfield fuse``: the fused run written in any format from runs in any format, the
tuning's report, and one sentence with the exit code of each bad input."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

import cranfield
from cranfield.cli.main import main

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

A = "q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq1 Q0 d3 3 1.0 a\n"
B_JSON = {"q1": {"d3": 0.9, "d1": 0.5}}  # ranx-style JSON: another input format
QRELS = "q1 0 d3 1\nq1 0 d1 0\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "a.run").write_text(A)
    (tmp_path / "b.json").write_text(json.dumps(B_JSON))
    (tmp_path / "qrels.txt").write_text(QRELS)
    return {
        k: str(tmp_path / v) for k, v in {"a": "a.run", "b": "b.json", "qrels": "qrels.txt"}.items()
    }


def test_rrf_from_two_formats_written_as_tsv(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fused.tsv"
    code = main(["fuse", files["a"], files["b"], "-o", str(out), "--param", "k=0", "--to", "trec"])
    assert code == 0
    said = capsys.readouterr().out
    assert said == (
        f"{out}: 3 line(s), 1 query, fused from a, b; fused by rrf (normalisation min-max); "
        "ties by doc id descending.\n"
    )
    # d1: 1/1 + 1/2, d3: 1/3 + 1/1, d2: 1/2
    assert cranfield.load_run(out).to_dict() == {"q1": {"d1": 1.5, "d3": 4 / 3, "d2": 0.5}}


def test_weighted_sum(files: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "fused.run"
    args = ["fuse", files["a"], files["b"], "-o", str(out), "--method", "wsum"]
    assert main([*args, "--weights", "0.25,0.75"]) == 0
    assert cranfield.load_run(out).to_dict()["q1"] == pytest.approx(
        {"d3": 0.75, "d1": 0.25, "d2": 0.125}
    )


def test_tuning_reports_folds_and_labels_the_all_queries_figure(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = tmp_path / "q4.txt"
    qrels.write_text("".join(f"q{i} 0 r 1\n" for i in range(1, 5)))
    good, bad = "r 2.0 x 1.0", "y 2.0 r 1.0"

    def run(first: str, second: str) -> str:
        lines = []
        for q, spec in (("q1", first), ("q2", first), ("q3", second), ("q4", second)):
            d1, s1, d2, s2 = spec.split()
            lines += [f"{q} Q0 {d1} 1 {s1} t", f"{q} Q0 {d2} 2 {s2} t"]
        return "\n".join(lines) + "\n"

    (tmp_path / "a.run").write_text(run(good, bad))
    (tmp_path / "b.run").write_text(run(bad, good))
    out = tmp_path / "held.run"
    code = main(
        [
            "fuse",
            str(tmp_path / "a.run"),
            str(tmp_path / "b.run"),
            "-o",
            str(out),
            "--method",
            "wsum",
            "--tune",
            "P@1",
            "--qrels",
            str(qrels),
            "-n",
            "2",
            "--step",
            "0.5",
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "2-fold cross-validation (seed 0):" in text
    assert "tuned on all queries (optimistic: chosen and scored on the same queries)" in text
    assert text.rstrip().endswith(
        "the held-out fused run (each fold's queries fused with the setting chosen without them)."
    )
    assert sorted(cranfield.load_run(out).topics) == ["q1", "q2", "q3", "q4"]
    code = main(
        [
            "fuse",
            str(tmp_path / "a.run"),
            str(tmp_path / "b.run"),
            "-o",
            str(out),
            "--tune",
            "P@1",
            "--qrels",
            str(qrels),
            "--optimistic",
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "cross-validation" not in text
    assert "(optimistic)" in text.splitlines()[-1]


def test_condorcet(files: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "fused.run"
    assert main(["fuse", files["a"], files["b"], "-o", str(out), "--method", "condorcet"]) == 0
    # with two runs one vote is half, enough for x to go before y (ranx's rule); entering as
    # d3, d2, d1, the sort asks whether d2 goes before d3 (a says so) and d1 before d2 (a
    # says so), and keeps that path: d1, d2, d3, scored 3, 2, 1
    assert cranfield.load_run(out).to_dict() == {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}


def _four_queries(tmp_path: Path) -> tuple[list[str], Path]:
    """Two runs over q1..q4; a finds the relevant document first on every query, b second."""
    qrels = tmp_path / "q4.txt"
    qrels.write_text("".join(f"q{i} 0 r{i} 1\n" for i in range(1, 5)))
    for name, (first, second) in (("a", ("r", "x")), ("b", ("x", "r"))):
        (tmp_path / f"{name}.run").write_text(
            "".join(
                f"q{i} Q0 {first}{i} 1 2.0 t\nq{i} Q0 {second}{i} 2 1.0 t\n" for i in range(1, 5)
            )
        )
    return [str(tmp_path / "a.run"), str(tmp_path / "b.run")], qrels


def test_a_trained_method_is_fused_on_each_fold_with_the_other_folds_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs, qrels = _four_queries(tmp_path)
    out = tmp_path / "pos.run"
    args = ["fuse", *runs, "-o", str(out), "--method", "posfuse", "--qrels", str(qrels)]
    assert main([*args, "-n", "2"]) == 0
    said = capsys.readouterr().out
    assert "learnt on the qrels of the other folds (2 folds, seed 0)" in said
    # every training query had a's first and b's second relevant: r gets 1 + 1, x 0 + 0
    fused = cranfield.load_run(out).to_dict()
    assert fused == {f"q{i}": {f"r{i}": 2.0, f"x{i}": 0.0} for i in range(1, 5)}
    assert main([*args, "--optimistic"]) == 0
    assert "optimistic" in capsys.readouterr().out
    assert main([*args, "--tune", "P@1", "-n", "2"]) == 0
    text = capsys.readouterr().out
    assert "each fold trained on the qrels of the other folds only" in text
    assert "(optimistic: trained, chosen and scored on the same queries)" in text
    assert "held-out fused P@1: 1.0000" in text


def test_a_trained_method_parameter_out_of_range_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs, qrels = _four_queries(tmp_path)
    args = ["fuse", *runs, "-o", str(tmp_path / "f.run"), "--method", "slidefuse"]
    assert main([*args, "--qrels", str(qrels), "-n", "2", "--param", "w=-1"]) == 2
    assert capsys.readouterr().err == (
        "cranfield fuse: The --param option must be an integer >= 0 for 'w' of method "
        "'slidefuse', got -1.\n"
    )


@pytest.mark.parametrize(
    ("extra", "code", "message"),
    [
        (
            ["--weights", "1"],
            2,
            "The --weights option must be left out for method 'rrf', which takes no weights, "
            "got [1.0].",
        ),
        (
            ["--method", "wsum", "--weights", "1,2,3"],
            2,
            "The --weights option must be one weight per run (2: a, b), got [1.0, 2.0, 3.0].",
        ),
        (
            ["--param", "k=-1"],
            2,
            "The --param option must be an integer >= 0 for 'k' of method 'rrf', got -1.",
        ),
        (
            ["--method", "rbc", "--param", "phi=1"],
            2,
            "The --param option must be a number > 0 and < 1 for 'phi' of method 'rbc', got 1.0.",
        ),
        (
            ["--param", "gamma=1"],
            2,
            "The --param option must be parameters of method 'rrf' (it takes: k), got 'gamma'.",
        ),
        (["--param", "k"], 1, "error: --param takes NAME=VALUE with a number, got 'k'."),
        (
            ["--optimistic"],
            1,
            "error: --optimistic, --step, --fold-file and --qrels go with --tune MEASURE.",
        ),
        (["--tune", "AP"], 1, "error: --tune needs the qrels to tune on: --qrels QRELS."),
        (
            ["--method", "posfuse"],
            2,
            "error: method 'posfuse' learns from qrels: give the qrels to train on with --qrels "
            "QRELS (it trains on the other folds' queries for each fold).",
        ),
    ],
)
def test_bad_options_are_one_sentence(
    files: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    code: int,
    message: str,
) -> None:
    out = tmp_path / "f.run"
    assert main(["fuse", files["a"], files["b"], "-o", str(out), *extra]) == code
    assert capsys.readouterr().err == f"cranfield fuse: {message}\n"
    assert not out.exists()


def test_runs_that_share_no_query_exit_2(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.run"
    other.write_text("q9 Q0 d1 1 1.0 o\n")
    assert main(["fuse", files["a"], str(other), "-o", str(tmp_path / "f.run")]) == 2
    assert capsys.readouterr().err == (
        "cranfield fuse: The runs share no query, so there is nothing to fuse: 'a' (1 query), "
        "'other' (1 query).\n"
    )


def test_a_single_run_is_a_usage_error(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fuse", files["a"], "-o", str(tmp_path / "f.run")]) == 1
    assert capsys.readouterr().err == "cranfield fuse: error: give at least two runs to fuse.\n"


def test_tuning_on_the_folds_of_lab_folds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"q{i} 0 r 1\n" for i in range(1, 5)))
    for name, first in (("a", "r"), ("b", "y")):
        (tmp_path / f"{name}.run").write_text(
            "".join(f"q{i} Q0 {first} 1 2.0 t\nq{i} Q0 z 2 1.0 t\n" for i in range(1, 5))
        )
    folds = tmp_path / "folds.tsv"
    assert main(["lab", "folds", str(qrels), "-n", "2", "-s", "3"]) == 0
    folds.write_text(capsys.readouterr().out)
    runs = [str(tmp_path / "a.run"), str(tmp_path / "b.run")]
    args = ["fuse", *runs, "-o", str(tmp_path / "f.run"), "--tune", "P@1", "--qrels", str(qrels)]
    assert main([*args, "--fold-file", str(folds)]) == 0
    text = capsys.readouterr().out
    written = [line.split("\t")[1].split() for line in folds.read_text().splitlines()]
    assert f"{len(written)}-fold cross-validation" in text
    for i, fold in enumerate(written):
        assert any(line.split()[:2] == [str(i), str(len(fold))] for line in text.splitlines())
    folds.write_text("0\tq1 q2\n1\tq2 q3 q4\n")
    assert main([*args, "--fold-file", str(folds)]) == 2
    assert capsys.readouterr().err == (
        f"cranfield fuse: {folds}:2: puts query 'q2' in a second fold (line 1)\n"
    )


def test_tuning_and_training_take_ranks_and_the_relevance_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--ranks input reaches the tuning (the lines' order, not the scores, ranks each run)
    and -l the training (grade-1 documents are not relevant at level 2): neither is ignored."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 r{i} 1\n" for i in range(1, 5)))
    runs = []
    for name in ("a", "b"):  # r first by score, x first by the order of the lines
        path = tmp_path / f"{name}.run"
        path.write_text(
            "".join(f"q{i} Q0 x{i} 1 1.0 t\nq{i} Q0 r{i} 2 2.0 t\n" for i in range(1, 5))
        )
        runs.append(str(path))
    out = tmp_path / "fused.run"
    tuned = ["fuse", *runs, "-o", str(out), "--method", "rrf", "--qrels", str(qrels)]
    tuned += ["--tune", "P@1", "--optimistic"]
    assert main(tuned) == 0
    assert max(cranfield.load_run(out).to_dict()["q1"].items(), key=lambda kv: kv[1])[0] == "r1"
    assert main([*tuned, "--ranks", "input"]) == 0
    assert max(cranfield.load_run(out).to_dict()["q1"].items(), key=lambda kv: kv[1])[0] == "x1"
    capsys.readouterr()
    trained = ["fuse", *runs, "-o", str(out), "--method", "posfuse", "--qrels", str(qrels)]
    assert main([*trained, "-n", "2"]) == 0  # r is at position 1 of both: r 2, x 0
    assert cranfield.load_run(out).to_dict()["q1"] == {"r1": 2.0, "x1": 0.0}
    assert main([*trained, "-n", "2", "-l", "2"]) == 0  # nothing relevant at level 2
    assert cranfield.load_run(out).to_dict()["q1"] == {"r1": 0.0, "x1": 0.0}


def _sorted_runs(folder: Path) -> list[str]:
    """Two TREC runs grouped by query, queries in bytewise order, ties in both."""
    a = "".join(
        f"q{q} Q0 d{d} {i + 1} {s} a\n"
        for q in (1, 10, 2)
        for i, (d, s) in enumerate([(1, 3.0), (2, 2.0), (3, 2.0), (4, 1.0)])
    )
    b = "".join(
        f"q{q} Q0 d{d} {i + 1} {s} b\n"
        for q in (1, 2, 3)
        for i, (d, s) in enumerate([(3, 0.9), (5, 0.5), (1, 0.5)])
    )
    (folder / "a.run").write_text(a)
    (folder / "b.run").write_text(b)
    return [str(folder / "a.run"), str(folder / "b.run")]


@pytest.mark.parametrize("method", ["rrf", "wsum", "bordafuse", "condorcet", "w_condorcet"])
def test_streamed_fusion_writes_the_same_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], method: str
) -> None:
    runs = _sorted_runs(tmp_path)
    whole, streamed = tmp_path / "whole.run", tmp_path / "streamed.run"
    assert main(["fuse", *runs, "-o", str(whole), "--method", method]) == 0
    capsys.readouterr()
    assert main(["fuse", *runs, "-o", str(streamed), "--method", method, "--stream"]) == 0
    assert capsys.readouterr().out == (
        f"{streamed}: 17 line(s), 4 queries, fused from a, b, streamed by blocks of whole "
        f"queries; fused by {method} (normalisation min-max); ties by doc id descending.\n"
    )
    assert streamed.read_bytes() == whole.read_bytes()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--tune", "AP", "--qrels", "q.txt"], "--tune reads the runs whole: leave out --stream."),
        (["-j", "2"], "--stream fuses in this process: leave out --jobs and --scheduler."),
        (["--names", "tag"], "--stream names runs by their files: leave out --names tag."),
        (
            ["--to", "json"],
            "--stream writes plain TREC text: name a TREC output (or give --to trec).",
        ),
    ],
)
def test_what_streaming_cannot_do_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    out = tmp_path / "f.run"
    assert main(["fuse", *_sorted_runs(tmp_path), "-o", str(out), "--stream", *extra]) == 1
    assert capsys.readouterr().err == f"cranfield fuse: error: {message}\n"
    assert not out.exists()


@pytest.mark.parametrize("how", [["--stream"], ["-j", "2"], ["--scheduler", "tcp://x:1"]])
def test_a_trained_method_neither_streams_nor_runs_on_workers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: list[str]
) -> None:
    """Its training on each fold's other folds needs the runs whole: one sentence, exit 1,
    before any run is read or any worker started."""
    runs = _sorted_runs(tmp_path)
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    out = tmp_path / "f.run"
    args = ["fuse", *runs, "-o", str(out), "--method", "posfuse", "--qrels"]
    assert main([*args, str(tmp_path / "qrels.txt"), *how]) == 1
    assert capsys.readouterr().err == (
        "cranfield fuse: error: method 'posfuse' learns from the qrels of each fold's other "
        "folds, which needs the runs whole, here: leave out --stream, --jobs and --scheduler.\n"
    )
    assert not out.exists()


@pytest.mark.parametrize("how", [["--stream"], ["-j", "2"]])
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--method", "wsum", "--weights", "1,2,3"],
            "The --weights option must be one weight per run (2: a, b), got [1.0, 2.0, 3.0].",
        ),
        (
            ["--method", "rbc", "--param", "phi=1"],
            "The --param option must be a number > 0 and < 1 for 'phi' of method 'rbc', got 1.0.",
        ),
    ],
)
def test_weights_and_parameters_the_runs_cannot_take_exit_2_in_blocks_too(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    how: list[str],
    extra: list[str],
    message: str,
) -> None:
    out = tmp_path / "f.run"
    assert main(["fuse", *_sorted_runs(tmp_path), "-o", str(out), *how, *extra]) == 2
    assert capsys.readouterr().err == f"cranfield fuse: {message}\n"
    assert not out.exists()


def test_a_run_out_of_bytewise_order_exits_2_when_streamed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _sorted_runs(tmp_path)[0]
    (tmp_path / "c.run").write_text("q2 Q0 d1 1 1.0 c\nq10 Q0 d1 1 1.0 c\n")
    out = tmp_path / "f.run"
    assert main(["fuse", a, str(tmp_path / "c.run"), "-o", str(out), "--stream"]) == 2
    assert capsys.readouterr().err == (
        f"cranfield fuse: {tmp_path / 'c.run'}: data line 2: query 'q10' comes after query "
        "'q2'; fusing with --stream needs each run's queries in bytewise order (sort the file "
        "with 'LC_ALL=C sort -s -k1,1', or fuse without --stream)\n"
    )
    assert not out.exists()


@pytest.mark.slow  # starts worker processes
def test_fused_on_two_worker_processes_equals_this_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = _sorted_runs(tmp_path)
    here, there = tmp_path / "here.run", tmp_path / "there.run"
    assert main(["fuse", *runs, "-o", str(here), "--method", "mnz"]) == 0
    capsys.readouterr()
    assert main(["fuse", *runs, "-o", str(there), "--method", "mnz", "-j", "2"]) == 0
    assert capsys.readouterr().out == (
        f"{there}: 17 line(s), 4 queries, fused from a, b, on 2 worker processes; fused by mnz "
        "(normalisation min-max); ties by doc id descending.\n"
    )
    assert there.read_bytes() == here.read_bytes()


@pytest.mark.slow  # a Dask cluster
def test_fused_on_a_dask_cluster_equals_this_process(tmp_path: Path, dask_cluster: Any) -> None:
    runs = _sorted_runs(tmp_path)
    here, there = tmp_path / "here.run", tmp_path / "there.run"
    assert main(["fuse", *runs, "-o", str(here), "--method", "rrf"]) == 0
    address = dask_cluster.scheduler_address
    assert main(["fuse", *runs, "-o", str(there), "--scheduler", address]) == 0
    assert there.read_bytes() == here.read_bytes()


@pytest.mark.parametrize("method", ["rrf", "mnz", "w_bordafuse", "condorcet"])
@pytest.mark.parametrize("to", ["run", "parquet"])
def test_large_inputs_fused_by_blocks_on_threads_write_the_file_fused_whole(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    fusion_in_blocks: Callable[[], list[object]],
    method: str,
    to: str,
) -> None:
    """Here every input is large and two cores are said to be there: the command fuses by
    blocks of queries on threads and writes TREC text block by block as the blocks come
    (another format whole); the file is the one the library's run gives, byte for byte."""
    runs = _sorted_runs(tmp_path)
    whole = tmp_path / f"whole.{to}"
    cranfield.save_run(cranfield.fusion.fuse(runs, method), whole)  # type: ignore[arg-type]
    blocks = fusion_in_blocks()
    out = tmp_path / f"blocks.{to}"
    assert main(["fuse", *runs, "-o", str(out), "--method", method]) == 0
    assert capsys.readouterr().out == (
        f"{out}: 17 line(s), 4 queries, fused from a, b; fused by {method} (normalisation "
        "min-max); ties by doc id descending.\n"
    )
    assert out.read_bytes() == whole.read_bytes()
    assert len(blocks) == (0 if method == "condorcet" else 4)  # condorcet sorts each query whole
