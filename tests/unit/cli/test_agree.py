"""``cranfield agree``: judge agreement between qrels files, with and without runs."""

from __future__ import annotations

import io
import json
from pathlib import Path

from cranfield.cli.agree import main
from tests.conftest import REPO

EXAMPLES = REPO / "examples"
QRELS = str(EXAMPLES / "qrels.txt")
SECOND = str(EXAMPLES / "qrels-second.txt")
RUNS = [str(EXAMPLES / "bm25.run"), str(EXAMPLES / "neural.run")]


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out, err)
    return code, out.getvalue(), err.getvalue()


def test_two_judges_as_a_table() -> None:
    code, out, err = run([QRELS, SECOND, "--per-query"])
    assert code == 0, err
    assert out.startswith(
        "qrels vs qrels-second: 118 pairs judged by both, 2 by qrels only, "
        "1 by qrels-second only.\n"
    )
    assert "Cohen's kappa 0.6761  linear 0.7371  quadratic 0.8091" in out
    assert "qrels \\ qrels-second   0   1   2" in out
    assert "Krippendorff's alpha 0.8008 (ordinal)" in out
    assert "query  pairs  agreement" in out
    assert "Runs ranked" not in out


def test_json_with_runs(tmp_path: Path) -> None:
    argv = [QRELS, SECOND, "--runs", *RUNS, "-m", "AP", "-f", "json", "--seed", "1", "-B", "20"]
    code, out, err = run(argv)
    assert code == 0, err
    data = json.loads(out)
    assert data["judges"] == ["qrels", "qrels-second"]
    assert data["pairs"][0]["shared"] == 118
    assert data["measure"] == "AP"
    (ranking,) = data["rankings"]
    assert ranking["systems"] == ["bm25", "neural"]
    assert ranking["seed"] == 1
    assert run(argv)[1] == out


def test_three_judges(tmp_path: Path) -> None:
    third = tmp_path / "third.txt"
    third.write_text("101 0 D101-01 0\n101 0 D101-04 1\n102 0 D102-01 1\n")
    code, out, err = run([QRELS, SECOND, str(third), "-f", "json"])
    assert code == 0, err
    data = json.loads(out)
    assert len(data["pairs"]) == 3
    assert data["shared_by_all"] == 3


def test_negative_labels_are_not_judgments(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 -1\n")
    b.write_text("1 0 d1 1\n1 0 d2 1\n1 0 d3 1\n")
    code, out, err = run([str(a), str(b)])
    assert code == 0, err
    assert "2 pairs judged by both, 0 by a only, 1 by b only." in out
    assert "are not judgments and were left out: 1 in a." in out


def test_usage_errors_exit_1() -> None:
    for argv, message in (
        ([QRELS], "give at least two qrels files"),
        ([QRELS, SECOND, "-m", "AP,P@10"], "this command takes one measure, got 2 (AP, P@10)"),
        ([QRELS, SECOND, "--runs", RUNS[0]], "give at least two runs to rank"),
        ([QRELS, SECOND, "--runs", *RUNS, "--rbo-p", "0"], "The --rbo-p option must be"),
    ):
        code, out, err = run(argv)
        assert code == 1, (argv, err)
        assert message in err
        assert out == ""


def test_qrels_that_share_no_judged_pair_exit_2(tmp_path: Path) -> None:
    other = tmp_path / "other.txt"
    other.write_text("101 0 D101-99 1\n101 0 D101-01 -1\n")
    code, out, err = run([QRELS, str(other)])
    assert code == 2
    assert err == (
        "cranfield agree: qrels and other share no judged (query, document) pair: "
        "there is no agreement to measure (negative labels are not judgments).\n"
    )
    assert out == ""


def test_a_malformed_qrels_line_exits_2_naming_the_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("101 0 D101-01 1\n101 0 D101-02\n")
    code, _, err = run([QRELS, str(bad)])
    assert code == 2
    assert "bad.txt:2: expected 4 fields" in err
    assert "Traceback" not in err


def test_relevance_level_binarises_graded_labels(tmp_path: Path) -> None:
    """κ on graded labels read as relevant (level 1 or more) or not, by hand: the judges agree
    on 4 of 5 pairs (0.8), chance agreement 0.6·0.8 + 0.4·0.2 = 0.56, κ = 0.24/0.44."""
    a = tmp_path / "nist.txt"
    b = tmp_path / "llm.txt"
    a.write_text("q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d4 1\nq2 0 d5 0\nq2 0 d6 -1\n")
    b.write_text("q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 1\nq2 0 d4 1\nq2 0 d5 0\nq2 0 d6 1\n")
    code, out, err = run([str(a), str(b), "-f", "json"])
    assert code == 0, err
    assert json.loads(out)["pairs"][0]["kappa"] == 0.6875  # graded, as given
    code, out, err = run([str(a), str(b), "--relevance-level", "1", "-f", "json"])
    assert code == 0, err
    data = json.loads(out)
    (pair,) = data["pairs"]
    assert pair["labels"] == [0, 1]
    assert pair["confusion"] == [[1, 1], [0, 3]]
    assert abs(pair["kappa"] - 0.24 / 0.44) < 1e-12
    assert data["notes"][-1] == (
        "Labels binarised at relevance level 1: a label of 1 or more is 1 (relevant), "
        "a lower one 0."
    )
    code, out, err = run([str(a), str(b), "-l", "2"])
    assert code == 0, err
    assert "Cohen's kappa 1.0000" in out
    assert "Labels binarised at relevance level 2" in out
