"""``ignore_self``: run documents whose id is the query id are dropped before ranking (BEIR
ArguAna and Quora, whose queries are documents of the corpus), and the notes say how many."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import cranfield
from cranfield.cli.main import main
from cranfield.errors import OptionError
from cranfield.evaluation.options import EvalOptions

if TYPE_CHECKING:
    from pathlib import Path

QRELS = b"q1 0 a 1\nq1 0 b 1\nq2 0 c 1\n"
# q1 and q2 each retrieve themselves first.
RUN = (
    b"q1 Q0 q1 1 9 t\nq1 Q0 a 2 8 t\nq1 Q0 x 3 7 t\nq1 Q0 b 4 6 t\nq2 Q0 q2 1 9 t\nq2 Q0 c 2 8 t\n"
)
WITHOUT = b"q1 Q0 a 2 8 t\nq1 Q0 x 3 7 t\nq1 Q0 b 4 6 t\nq2 Q0 c 2 8 t\n"
MEASURES = ["nDCG@10", "RR", "P@2", "AP"]


def put(tmp_path: Path, data: bytes, name: str) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_self_matches_are_dropped_and_counted(tmp_path: Path) -> None:
    qrels = put(tmp_path, QRELS, "q.qrels")
    run, without = put(tmp_path, RUN, "r.run"), put(tmp_path, WITHOUT, "w.run")
    kept = cranfield.evaluate(qrels, run, MEASURES)
    dropped = cranfield.evaluate(qrels, run, MEASURES, ignore_self=True)
    assert dropped.means() == cranfield.evaluate(qrels, without, MEASURES).means()
    assert dropped.means() != kept.means()
    note = "2 run document(s) whose id is the query id dropped (ignore_self)."
    assert dropped.notes == (note,)
    assert kept.notes == ()
    assert dropped.policy_note().endswith(note)
    streamed = cranfield.evaluate_stream(qrels, run, MEASURES, ignore_self=True)
    assert streamed.means() == dropped.means()
    assert streamed.notes == (note,)


def test_cli_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = put(tmp_path, QRELS, "q.qrels"), put(tmp_path, RUN, "r.run")
    assert main(["evaluate", str(qrels), str(run), "-m", "RR", "--ignore-self"]) == 0
    out, err = capsys.readouterr()
    assert "r: 2 queries, every judged query retrieved. 2 run document(s) whose id" in out
    assert err == ""  # asked for: a policy note, not a warning (--strict has nothing to refuse)


def test_the_option_is_a_boolean() -> None:
    assert EvalOptions(ignore_self=True).changed() == {"ignore_self": True}
    with pytest.raises(OptionError, match="'ignore_self' option must be True or False"):
        EvalOptions(ignore_self="yes")  # type: ignore[arg-type]
