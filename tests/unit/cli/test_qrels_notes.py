"""What reading changed in the qrels (repeated judgments merged, decimal labels) is one
:class:`~cranfield.errors.QrelsNoteWarning` per note in every command that reads qrels:
printed once by ``cli/exits.py``, an error (exit 2) with ``--strict``; ``check`` keeps its
own ``--strict`` (exit 1 after the report)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from cranfield.cli.main import main
from cranfield.errors import QrelsNoteWarning
from cranfield.io.trec import read_qrels

if TYPE_CHECKING:
    from pathlib import Path

QRELS = {
    "duplicate": b"1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 d 1\n",
    "decimal": b"1 0 a 1.5\n1 0 b 0\n1 0 c 1\n2 0 d 1\n",
}
RUNS = (
    b"1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n2 Q0 x 1 2 t\n2 Q0 d 2 1 t\n",
    b"1 Q0 c 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n2 Q0 d 1 2 t\n2 Q0 x 2 1 t\n",
)
COMMANDS = {
    "evaluate": ["evaluate", "{qrels}", "{run1}", "-m", "P@2"],
    "compare": ["compare", "{qrels}", "{run1}", "{run2}", "-m", "P@2"],
    "diff": ["diff", "{qrels}", "{run1}", "{run2}", "-m", "P@2"],
    "report": ["report", "{qrels}", "{run1}", "{run2}", "-m", "P@2", "-o", "{out}.html"],
    "plot pr": ["plot", "pr", "{qrels}", "{run1}", "{run2}", "-o", "{out}.svg"],
    "repro": ["repro", "{qrels}", "--original", "{run1}", "--reproduced", "{run2}", "-m", "P@2"],
}


def _files(tmp_path: Path, kind: str) -> tuple[dict[str, str], str]:
    qrels = tmp_path / f"{kind}.qrels"
    qrels.write_bytes(QRELS[kind])
    names = {"qrels": str(qrels), "out": str(tmp_path / "out")}
    for i, data in enumerate(RUNS, 1):
        (tmp_path / f"r{i}.run").write_bytes(data)
        names[f"run{i}"] = str(tmp_path / f"r{i}.run")
    with pytest.warns(QrelsNoteWarning):
        (note,) = read_qrels(qrels).notes
    return names, note


@pytest.mark.parametrize("kind", sorted(QRELS))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_one_warning_per_note_and_strict_makes_it_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, kind: str
) -> None:
    names, note = _files(tmp_path, kind)
    argv = [a.format(**names) for a in COMMANDS[command]]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert err == f"cranfield {command}: warning: {note}\n"
    if command == "evaluate":
        assert note in out  # the note stays in the policy notes
    assert main([*argv, "--strict"]) == 2
    assert capsys.readouterr().err == f"cranfield {command}: {note} (an error with --strict)\n"


@pytest.mark.parametrize("kind", sorted(QRELS))
def test_check_prints_the_warning_once_and_its_strict_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    names, note = _files(tmp_path, kind)
    assert main(["check", names["qrels"]]) == 0
    assert capsys.readouterr().err == f"cranfield check: warning: {note}\n"
    assert main(["check", names["qrels"], "--strict"]) == 3  # a finding: not a usage error
    out, err = capsys.readouterr()
    assert err == f"cranfield check: warning: {note}\n"
    assert "qrels" in out  # the report is still written


def test_tsv_keeps_the_note_with_the_policy_note_and_warns_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names, note = _files(tmp_path, "decimal")
    assert main(["evaluate", names["qrels"], names["run1"], "-m", "P@2", "-f", "tsv"]) == 0
    err = capsys.readouterr().err
    assert err == (
        f"r1: 2 queries, every judged query retrieved. {note}\n"
        f"cranfield evaluate: warning: {note}\n"
    )


def test_plot_follows_duplicates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names, _ = _files(tmp_path, "duplicate")
    conflict = tmp_path / "conflict.qrels"
    conflict.write_bytes(QRELS["duplicate"][:-2] + b"0\n")
    argv = ["plot", "pr", str(conflict), names["run1"], "-o", str(tmp_path / "p.svg")]
    assert main(argv) == 2
    assert main([*argv, "--duplicates", "max"]) == 0
    assert "keeping the max relevance" in capsys.readouterr().err


def test_report_follows_duplicates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names, _ = _files(tmp_path, "duplicate")
    conflict = tmp_path / "conflict.qrels"
    conflict.write_bytes(QRELS["duplicate"][:-2] + b"0\n")
    out = str(tmp_path / "r.html")
    argv = ["report", str(conflict), names["run1"], names["run2"], "-m", "P@2", "-o", out]
    assert main(argv) == 2
    assert main([*argv, "--duplicates", "max"]) == 0
    assert "keeping the max relevance" in capsys.readouterr().err
