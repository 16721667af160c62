"""``cranfield judges combine``: crowd tables in every format, qrels as judges, bad input in
one sentence with exit 2 (issue 33)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cranfield.cli.main import main

ROWS = [("w1", "q1", "d1", 2), ("w2", "q1", "d1", 2), ("w3", "q1", "d1", 0), ("w1", "q1", "d2", 1)]


def _write(path: Path, rows: list[tuple[str, str, str, int]]) -> Path:
    suffix = path.suffix
    if suffix in (".csv", ".tsv"):
        sep = "," if suffix == ".csv" else "\t"
        lines = [sep.join(("worker", "query_id", "doc_id", "label"))]
        lines += [sep.join(map(str, r)) for r in rows]
        path.write_text("\n".join(lines) + "\n")
    elif suffix == ".jsonl":
        keys = ("worker", "query_id", "doc_id", "label")
        path.write_text("".join(json.dumps(dict(zip(keys, r, strict=True))) + "\n" for r in rows))
    else:
        import polars as pl

        w, q, d, lab = zip(*rows, strict=True)
        pl.DataFrame({"worker": w, "qid": q, "docno": d, "grade": lab}).write_parquet(path)
    return path


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["judges", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".jsonl", ".parquet"])
def test_every_table_format_gives_the_same_qrels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    labels = _write(tmp_path / f"labels{suffix}", ROWS)
    out = tmp_path / "combined.txt"
    code, text, err = _cli(
        capsys, "combine", str(labels), "--aggregation", "majority", "-o", str(out)
    )
    assert (code, err) == (0, "")
    assert out.read_text() == "q1 0 d1 2\nq1 0 d2 1\n"
    assert "ties:        0" in text


def test_json_and_gold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = _write(tmp_path / "labels.csv", ROWS)
    gold = tmp_path / "gold.txt"
    gold.write_text("q1 0 d1 0\n")
    code, text, _ = _cli(capsys, "combine", str(labels), "--gold", str(gold), "-f", "json")
    assert code == 0
    data = json.loads(text)
    by = {w["worker"]: w for w in data["workers"]}
    assert (by["w3"]["gold"], by["w3"]["gold_accuracy"]) == (1, 1.0)
    assert (by["w1"]["gold"], by["w1"]["gold_accuracy"]) == (1, 0.0)
    assert data["gold_pairs"] == 1


def test_qrels_files_as_judges(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, grade in (("a", 1), ("b", 1), ("c", 3)):
        (tmp_path / f"{name}.txt").write_text(f"q1 0 d1 {grade}\nq1 0 d2 -1\n")
    files = [str(tmp_path / f"{n}.txt") for n in "abc"]
    code, text, _ = _cli(
        capsys, "combine", *files, "--kind", "qrels", "--aggregation", "majority", "-f", "json"
    )
    assert code == 0
    data = json.loads(text)
    assert data["pairs"] == 1  # the -1 rows are not labels
    assert [w["worker"] for w in data["workers"]] == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("rows", "extra", "message"),
    [
        (
            [("w1", "q1", "d1", 4)],
            [],
            "labels.csv:2: label 4 of worker w1 is outside the scale 0-3",
        ),
        (
            [("w1", "q1", "d1", 1)],
            ["--scale", "2-4"],
            "label 1 of worker w1 is outside the scale 2-4",
        ),
        (
            [("w1", "q1", "d1", 1), ("w1", "q1", "d1", 2)],
            [],
            "worker w1 labels query q1, document d1 twice (lines 2 and 3)",
        ),
        ([("w1", "q1", "d1", 1)], ["--gold", "GOLD"], "no worker labelled any of the 1 gold pairs"),
    ],
)
def test_bad_input_is_one_sentence_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    rows: list[tuple[str, str, str, int]],
    extra: list[str],
    message: str,
) -> None:
    labels = _write(tmp_path / "labels.csv", rows)
    gold = tmp_path / "gold.txt"
    gold.write_text("q9 0 d9 1\n")
    argv = [a.replace("GOLD", str(gold)) for a in extra]
    code, out, err = _cli(capsys, "combine", str(labels), *argv)
    assert code == 2
    assert out == ""
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_a_label_that_is_not_an_integer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("worker,query_id,doc_id,label\nw1,q1,d1,high\n")
    code, _, err = _cli(capsys, "combine", str(labels))
    assert code == 2
    assert "labels.csv:2: the label is not an integer: 'high'" in err
    code, _, err = _cli(capsys, "combine", str(labels), "--scale", "3")
    assert code == 1
    assert "--scale takes LOW-HIGH" in err


def test_qrels_judges_keep_their_whole_names(tmp_path: Path) -> None:
    from cranfield.io.crowd_labels import crowd_from_qrels

    for name in ("alpha-judge", "beta-judge"):
        (tmp_path / f"{name}.txt").write_text("q1 0 d1 1\n")
    crowd = crowd_from_qrels([tmp_path / "alpha-judge.txt", tmp_path / "beta-judge.txt"])
    assert crowd.workers.tolist() == ["alpha-judge.txt", "beta-judge.txt"]
