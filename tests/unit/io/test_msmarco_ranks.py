"""A headerless ``qid<TAB>doc<TAB>integer`` run is an MS MARCO run only when its third column
is ranks (1 first, never decreasing within a query: a repeated rank is a tie); otherwise its
meaning is not guessed (issue 30, item 2): integer scores read as ranks invert the ranking
(AP 1/3 for a perfect run)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import cranfield
from cranfield.errors import AmbiguousFormatError
from cranfield.evaluation.check import check_file
from cranfield.io.formats import detect, read_run_file

QRELS = "1 0 d3 1\n1 0 d1 0\n1 0 d2 0\n"
# d3 scores 3, the best: a perfect ranking (AP 1.0); read as ranks d3 came last (AP 1/3)
SCORES = "1\td3\t3\n1\td1\t2\n1\td2\t1\n"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "line", "found"),
    [
        (SCORES, 1, "query '1' starts at 3"),
        ("1\td1\t1\n1\td2\t2\n1\td3\t1\n", 3, "query '1' gives 1 after 2"),
        ("1\td1\t1\n1\td2\t2\n2\td1\t2\n", 3, "query '2' starts at 2"),
        ("1\td1\t1\n2\td1\t1\n1\td2\t0\n", 3, "query '1' gives 0 after 1"),  # apart, still one
    ],
)
def test_integers_that_are_not_ranks_are_refused(
    tmp_path: Path, text: str, line: int, found: str
) -> None:
    path = _write(tmp_path, "run.tsv", text)
    with pytest.raises(AmbiguousFormatError, match=found) as got:
        read_run_file(path)
    assert got.value.line == line
    assert "give format='msmarco' (run_format=) if they are ranks" in str(got.value)
    assert "--run-format msmarco" in got.value.for_command_line()
    with pytest.raises(AmbiguousFormatError):
        detect(path, "run")


def test_ranks_from_one_increasing_are_ms_marco(tmp_path: Path) -> None:
    qrels = _write(tmp_path, "q.txt", QRELS)
    ranks = _write(tmp_path, "run.tsv", "1\td3\t1\n1\td1\t2\n2\tx\t1\n1\td2\t5\n1\td4\t5\n")
    assert detect(ranks, "run") == "msmarco"
    assert cranfield.evaluate(qrels, ranks, measures=["AP"])["AP"] == 1.0


def test_the_format_given_reads_the_integers_as_ranks(tmp_path: Path) -> None:
    qrels = _write(tmp_path, "q.txt", QRELS)
    run = _write(tmp_path, "run.tsv", SCORES)
    ap = cranfield.evaluate(qrels, run, measures=["AP"], run_format="msmarco")["AP"]
    assert ap == pytest.approx(1 / 3)
    header = _write(tmp_path, "scored.tsv", "query_id\tdoc_id\tscore\n" + SCORES)
    assert cranfield.evaluate(qrels, header, measures=["AP"])["AP"] == 1.0


def test_check_flags_an_ambiguous_format(tmp_path: Path) -> None:
    report = check_file(_write(tmp_path, "run.tsv", SCORES))
    assert [f.code for f in report.findings] == ["format-ambiguous"]
    assert report.findings[0].line == 1
    assert "--run-format msmarco" in report.findings[0].message


@pytest.mark.slow  # two commands in fresh processes
def test_the_commands_refuse_to_guess(tmp_path: Path) -> None:
    qrels = _write(tmp_path, "q.txt", QRELS)
    run = _write(tmp_path, "run.tsv", SCORES)
    command = [sys.executable, "-m", "cranfield.cli.main"]
    done = subprocess.run(
        [*command, "evaluate", str(qrels), str(run), "-m", "AP"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "run.tsv:1: is a headerless table" in lines[0]
    assert "--run-format msmarco" in lines[0]
    strict = subprocess.run(
        [*command, "check", str(run), "--strict"], capture_output=True, text=True, check=False
    )
    assert strict.returncode != 0
    assert "format-ambiguous" in strict.stdout


def test_convert_names_its_own_flag(tmp_path: Path) -> None:
    import contextlib
    import io

    from cranfield.cli.main import main

    run = _write(tmp_path, "run.tsv", SCORES)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["convert", str(run), str(tmp_path / "out.trec")])
    assert code == 2
    assert "give --from msmarco if they are ranks" in err.getvalue()
    assert not (tmp_path / "out.trec").exists()
