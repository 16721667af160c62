"""The command line on a run and qrels that do not match: no shared query is exit 2 with a
message naming both files, fewer than half answered a warning on stderr (and in the policy
notes), ``--strict`` makes the warning an error; ``cranfield trec-eval`` stays trec_eval."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cranfield.cli.main import main
from tests.conftest import REAL, require

DL = REAL / "trec-dl-passage"


def cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_dl19_run_against_dl20_qrels_exits_2_naming_both(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = require(DL / "runs" / "dl19" / "bm25.txt.gz")
    qrels = require(DL / "qrels" / "qrels.dl20-passage.txt")
    code, out, err = cli(capsys, "evaluate", qrels, run, "-m", "nDCG@10")
    assert (code, out) == (2, "")
    assert err == (
        f"cranfield evaluate: {run} and {qrels} share no query id: the run has 43 queries "
        "('1037798', '104861', '1063750', ...), the qrels 54 ('1030303', '1037496', '1043135', "
        "...). Wrong qrels file?\n"
    )


def test_trec_eval_keeps_its_own_answer(capsys: pytest.CaptureFixture[str]) -> None:
    run = require(DL / "runs" / "dl19" / "bm25.txt.gz")
    qrels = require(DL / "qrels" / "qrels.dl20-passage.txt")
    code, out, err = cli(capsys, "trec-eval", qrels, run)
    assert (code, out) == (7, "")
    assert err == "trec_eval: No queries with both results and relevance info\n"


@pytest.fixture
def few(tmp_path: Path) -> tuple[Path, Path]:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"q{i} 0 d1 1\n" for i in range(1, 5)))
    run.write_text("q1 Q0 d1 1 1.0 t\nx9 Q0 d1 1 1.0 t\n")
    (tmp_path / "other.txt").write_text(run.read_text())
    return qrels, run


SENTENCE = "The run answers only 1 of the 4 judged queries (25%): wrong qrels file?"


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_few_answered_warns_on_stderr(
    capsys: pytest.CaptureFixture[str], few: tuple[Path, Path], command: str
) -> None:
    qrels, run = few
    runs = [run] if command == "evaluate" else [run, run.with_name("other.txt")]
    code, out, err = cli(capsys, command, qrels, *runs, "-m", "AP")
    assert code == 0
    assert err == "".join(
        f"cranfield {command}: warning: {r} against {qrels}: {SENTENCE}\n" for r in runs
    )
    if command == "evaluate":
        assert out.endswith(f"(--missing zero). {SENTENCE}\n")  # the policy note


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_strict_makes_the_warning_an_error(
    capsys: pytest.CaptureFixture[str], few: tuple[Path, Path], command: str
) -> None:
    qrels, run = few
    runs = [run] if command == "evaluate" else [run, run.with_name("other.txt")]
    code, out, err = cli(capsys, command, qrels, *runs, "-m", "AP", "--strict")
    assert (code, out) == (2, "")
    assert err == (
        f"cranfield {command}: {run} against {qrels}: {SENTENCE} (an error with --strict)\n"
    )


def test_strict_changes_nothing_on_matching_files(capsys: pytest.CaptureFixture[str]) -> None:
    qrels = require(DL / "qrels" / "qrels.dl19-passage.txt")
    run = require(DL / "runs" / "dl19" / "bm25.txt.gz")
    plain = cli(capsys, "evaluate", qrels, run, "-m", "nDCG@10")
    assert plain[0] == 0
    assert cli(capsys, "evaluate", qrels, run, "-m", "nDCG@10", "--strict") == plain


def test_a_run_on_stdin_sharing_no_query_is_named_without_reading_it_twice(
    tmp_path: Path,
) -> None:
    """Standard input cannot be read again to list the run's queries (it used to fail with
    '<stdin>: contains no run lines', blaming the run)."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n")
    done = subprocess.run(
        [sys.executable, "-m", "cranfield.cli.main", "evaluate", str(qrels), "-", "-m", "AP"],
        input=b"2 Q0 d1 1 1.0 runA\n",
        capture_output=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"cranfield evaluate: <stdin> and {qrels} share no query id (the run was read from "
        "standard input: its queries cannot be listed); the qrels have 1 ('1'). "
        "Wrong qrels file?\n"
    )
