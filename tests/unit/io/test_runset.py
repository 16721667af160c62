"""A folder given as runs (``cranfield.io.runset``): a folder of run files is many runs, a
folder of Parquet files one run (a dataset), a mix of the two an error naming both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cranfield
from cranfield.cli.main import main
from cranfield.errors import InputError, OptionError
from cranfield.io.parquet_dataset import folder_runs, is_dataset
from cranfield.io.runset import RunSet, expand_folders

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
QRELS = EXAMPLES / "qrels.txt"


def _runs(folder: Path) -> Path:
    """``folder`` holding the two example runs, as TREC text and as JSON Lines, a hidden file,
    Spark's ``_SUCCESS`` and a sub-folder with a run of its own."""
    folder.mkdir()
    (folder / "neural.run").write_bytes((EXAMPLES / "neural.run").read_bytes())
    cranfield.save_run(cranfield.load_run(EXAMPLES / "bm25.run"), folder / "bm25.jsonl")
    (folder / ".notes").write_text("not a run\n")
    (folder / "_SUCCESS").write_text("")
    (folder / "old").mkdir()
    (folder / "old" / "dense.run").write_bytes((EXAMPLES / "neural.run").read_bytes())
    return folder


def test_a_folder_of_run_files_is_its_files_sorted_by_name(tmp_path: Path) -> None:
    runs = _runs(tmp_path / "runs")
    files = (str(runs / "bm25.jsonl"), str(runs / "neural.run"))  # no hidden, _, sub-folder
    assert folder_runs(runs) == files
    assert not is_dataset(runs)
    assert expand_folders([str(EXAMPLES / "bm25.run"), runs]) == [
        str(EXAMPLES / "bm25.run"),
        *files,
    ]
    run_set = RunSet.of(runs)
    assert run_set.names == ("bm25", "neural")
    assert run_set.sources == files
    assert RunSet.of([runs], ["a", "b"]).names == ("a", "b")
    with pytest.raises(OptionError, match=r"one name per run \(2\)"):
        RunSet.of([runs], ["a"])


def test_the_same_runs_in_a_folder_or_as_files_give_the_same_table(tmp_path: Path) -> None:
    runs = _runs(tmp_path / "runs")
    from_folder = cranfield.evaluate_many(QRELS, [runs], ["AP", "nDCG@10"])
    from_files = cranfield.evaluate_many(
        QRELS, [EXAMPLES / "bm25.run", EXAMPLES / "neural.run"], ["AP", "nDCG@10"]
    )
    assert from_folder.names == from_files.names == ["bm25", "neural"]
    assert from_folder.means() == from_files.means()
    with pytest.raises(OptionError, match=r"The 'run' option must be one run \(a folder of run"):
        cranfield.evaluate(QRELS, runs, "AP")


def test_a_folder_of_parquet_files_or_hive_partitions_stays_a_dataset(tmp_path: Path) -> None:
    flat, hive, deep, empty = (tmp_path / n for n in ("flat", "hive", "deep", "empty"))
    for folder in (flat, hive / "query_id=1", deep / "2024", empty):
        folder.mkdir(parents=True)
    (flat / "part.0.parquet").write_bytes(b"PAR1")
    (flat / "part.1.pq").write_bytes(b"PAR1")
    (flat / "_metadata").write_bytes(b"")
    (hive / "query_id=1" / "part.0.parquet").write_bytes(b"PAR1")
    (deep / "2024" / "part.0.parquet").write_bytes(b"PAR1")
    for folder in (flat, hive, deep, empty):
        assert folder_runs(folder) is None, folder
        assert is_dataset(folder), folder
        assert expand_folders([folder]) == [folder]
    assert RunSet.of([flat, hive]).names == ("flat", "hive")


def test_a_folder_of_parquet_and_other_files_is_an_error_naming_both(tmp_path: Path) -> None:
    mixed = _runs(tmp_path / "mixed")
    (mixed / "part.0.parquet").write_bytes(b"PAR1")
    said = (
        r"mixed: holds Parquet files \(part\.0\.parquet\) and other files \(bm25\.jsonl\): a "
        "folder given as runs is either a Parquet dataset or a folder of run files"
    )
    with pytest.raises(InputError, match=said):
        RunSet.of([mixed])
    with pytest.raises(InputError, match=said):
        is_dataset(mixed)


def test_the_command_line_scores_each_run_of_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = _runs(tmp_path / "runs")
    assert main(["evaluate", str(QRELS), str(runs), "-m", "AP", "-f", "json"]) == 0
    folder = json.loads(capsys.readouterr().out)
    assert main(["evaluate", str(QRELS), *map(str, folder_runs(runs) or ()), "-m", "AP"]) == 0
    assert [r["run"] for r in folder["results"]] == ["bm25", "neural"]
    sources = {role: i["source"] for role, i in folder["provenance"]["inputs"].items()}
    assert sources["run:bm25"] == str(runs / "bm25.jsonl")
    capsys.readouterr()
    # compare needs two runs: one folder gives them, and a baseline is named by name or path
    argv = ["compare", str(QRELS), str(runs), "-m", "AP", "-f", "json", "-b"]
    assert main([*argv, str(runs / "neural.run")]) == 0
    by_path = json.loads(capsys.readouterr().out)
    assert main([*argv, "neural"]) == 0
    assert json.loads(capsys.readouterr().out)["means"] == by_path["means"]
    assert by_path["runs"] == ["bm25", "neural"]
    (runs / "part.0.parquet").write_bytes(b"PAR1")
    assert main(["evaluate", str(QRELS), str(runs), "-m", "AP"]) == 2
    assert capsys.readouterr().err.startswith(
        f"cranfield evaluate: {runs}: holds Parquet files (part.0.parquet) and other files "
    )
