"""Qrels that judge a (query, document) pair on several lines: the ``duplicates`` policy.

Identical repeats (the MS MARCO train qrels have ten) are merged with a note; repeats of
different relevance are refused unless ``duplicates`` picks one; ``trec-eval`` keeps
trec_eval's refusal of any repeat (exit 4). Runs stay strict whatever the policy.
"""

from __future__ import annotations

import gzip
import io
from typing import TYPE_CHECKING

import pytest

import cranfield
from cranfield.cli.main import main
from cranfield.cli.trec_eval import main as trec_eval_main
from cranfield.errors import InputError, OptionError
from cranfield.evaluation.options import EvalOptions
from cranfield.io.trec import read_qrels
from tests.conftest import REAL, require

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.filterwarnings("ignore::cranfield.errors.QrelsNoteWarning")

CLEAN = b"1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n"
RUN = b"1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n2 Q0 x 1 2 t\n2 Q0 d 2 1 t\n"
MEASURES = ["nDCG@10", "AP", "P@2"]


def put(tmp_path: Path, data: bytes, name: str) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_identical_repeats_are_merged_with_a_note(tmp_path: Path) -> None:
    path = put(tmp_path, CLEAN + b"1 0 c 1\n# note\n2 0 d 1\n", "dup.qrels")
    qrels = read_qrels(path)
    assert qrels.frame.equals(read_qrels(put(tmp_path, CLEAN, "clean.qrels")).frame)
    assert qrels.notes == (
        f"{path}: 2 repeated judgment line(s) merged (the first: query '1', document 'c').",
    )


def test_merged_qrels_score_as_the_clean_file_and_the_note_is_in_the_results(
    tmp_path: Path,
) -> None:
    run = put(tmp_path, RUN, "r.run")
    clean = cranfield.evaluate(put(tmp_path, CLEAN, "clean.qrels"), run, MEASURES)
    # Small clean files take the numpy path; the repeat sends them the careful way.
    dup = put(tmp_path, CLEAN + b"2 0 d 1\n", "dup.qrels")
    merged = cranfield.evaluate(dup, run, MEASURES)
    assert merged.means() == clean.means()
    assert clean.notes == ()
    (note,) = merged.notes
    assert "1 repeated judgment line(s) merged" in note
    assert merged.policy_note() == clean.policy_note() + " " + note
    streamed = cranfield.evaluate_stream(dup, run, MEASURES)
    assert streamed.means() == clean.means()
    assert streamed.notes == merged.notes


def test_different_relevances_are_refused_naming_both_lines(tmp_path: Path) -> None:
    path = put(tmp_path, CLEAN + b"\n1 0 a 1\n", "conflict.qrels")
    with pytest.raises(InputError) as info:
        read_qrels(path)
    assert str(info.value) == (
        f"{path}:6: duplicate document 'a' for query '1' judged 2 on line 1 and 1 here; keep "
        "one with duplicates='first', 'last' or 'max' (--duplicates): '1 0 a 1'"
    )  # the same second column: no hint about subtopics


@pytest.mark.parametrize(("policy", "kept"), [("first", 2), ("last", 0), ("max", 3)])
def test_first_last_or_max_resolve_a_conflict(tmp_path: Path, policy: str, kept: int) -> None:
    path = put(tmp_path, CLEAN + b"1 0 a 3\n1 0 a 0\n1 0 d 1\n1 0 d 1\n", "conflict.qrels")
    qrels = read_qrels(path, duplicates=policy)  # type: ignore[arg-type]
    assert qrels.to_dict()["1"] == {"a": kept, "b": 0, "c": 1, "d": 1}
    assert len(qrels) == 5
    assert qrels.notes == (
        f"{path}: 3 repeated judgment line(s) merged, 1 (query, document) pair(s) judged "
        f"differently keeping the {policy} relevance (duplicates: {policy}) "
        "(the first: query '1', document 'a').",
    )


def test_error_refuses_even_identical_repeats(tmp_path: Path) -> None:
    path = put(tmp_path, CLEAN + b"2 0 d 1\n", "dup.qrels")
    with pytest.raises(InputError, match="duplicate document 'd' for query '2' "):
        read_qrels(path, duplicates="error")
    with pytest.raises(InputError, match="first seen on line 4"):
        cranfield.evaluate(path, put(tmp_path, RUN, "r.run"), MEASURES, duplicates="error")


def test_the_policy_is_an_evaluation_option_checked_once() -> None:
    assert EvalOptions().duplicates == "merge"
    assert EvalOptions(duplicates="max").changed() == {"duplicates": "max"}
    with pytest.raises(OptionError, match="'duplicates' option must be one of"):
        EvalOptions(duplicates="mean")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="'duplicates' option"):
        read_qrels("unused", duplicates="mean")  # type: ignore[arg-type]


def test_runs_stay_strict(tmp_path: Path) -> None:
    run = put(tmp_path, RUN + b"1 Q0 a 9 0.5 t\n", "dup.run")
    with pytest.raises(InputError, match="duplicate document 'a' for query '1'"):
        cranfield.evaluate(put(tmp_path, CLEAN, "clean.qrels"), run, MEASURES, duplicates="max")


def test_cli_note_on_stdout_warning_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = put(tmp_path, CLEAN + b"1 0 a 0\n", "conflict.qrels")
    run = put(tmp_path, RUN, "r.run")
    assert main(["evaluate", str(qrels), str(run), "-m", "nDCG@10"]) == 2
    err = capsys.readouterr().err
    assert "conflict.qrels:5: duplicate document 'a' for query '1' judged 2" in err
    assert main(["evaluate", str(qrels), str(run), "-m", "nDCG@10", "--duplicates", "max"]) == 0
    out, err = capsys.readouterr()
    note = (
        f"{qrels}: 1 repeated judgment line(s) merged, 1 (query, document) pair(s) judged "
        "differently keeping the max relevance (duplicates: max) (the first: query '1', "
        "document 'a')."
    )
    assert f"r: 2 queries, every judged query retrieved. {note}\n" in out
    assert err == f"cranfield evaluate: warning: {note}\n"
    # Data formats keep stdout for the data: the note is on stderr once.
    assert main(["evaluate", str(qrels), str(run), "--duplicates", "first", "--format", "tsv"]) == 0
    out, err = capsys.readouterr()
    assert "merged" not in out
    # The note once with the policy note, once as the warning (printed by cli/exits.py).
    assert err.count("merged") == 2
    assert err.count("warning:") == 1


def test_trec_eval_keeps_refusing_any_repeat(tmp_path: Path) -> None:
    qrels = put(tmp_path, CLEAN + b"2 0 d 1\n", "dup.qrels")
    out, err = io.StringIO(), io.StringIO()
    assert trec_eval_main([str(qrels), str(put(tmp_path, RUN, "r.run"))], out, err) == 4
    assert out.getvalue() == ""
    assert err.getvalue() == (
        f"cranfield trec-eval: {qrels}:5: duplicate document 'd' for query '2' "
        "(first seen on line 4): '2 0 d 1'\n"
    )


def test_msmarco_train_dev_qrels_evaluate(tmp_path: Path) -> None:
    path = require(REAL / "qrels-misc/capreolus/qrels.msmarcopassage.train+dev.txt.gz")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        judged = [line.split() for line, _ in zip(f, range(2000), strict=False)]
    # A run of 200 queries: each query's judged passage at rank 2, below an unjudged one.
    lines = []
    for qid, _, pid, _ in judged[::10]:
        lines += [f"{qid} Q0 x{pid} 1 2.0 t\n", f"{qid} Q0 {pid} 2 1.0 t\n"]
    run = put(tmp_path, "".join(lines).encode(), "msmarco.run")
    results = cranfield.evaluate(path, run, ["RR@10"], missing="skip")
    assert len(results.topics) == 200
    assert results["RR@10"] == 0.5
    (note,) = results.notes
    assert note == (
        f"{path}: 10 repeated judgment line(s) merged "
        "(the first: query '1008998', document '3651609')."
    )
    assert results.policy_note().endswith(note)
