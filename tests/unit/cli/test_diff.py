"""``cranfield diff``: text and JSON, the options, option errors and bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cranfield.cli.commands import COMMANDS
from cranfield.cli.commands import main as cranfield
from cranfield.cli.diff import main
from cranfield.stats import diff_runs
from tests.conftest import REPO

EXAMPLES = REPO / "examples"
QRELS = str(EXAMPLES / "qrels.txt")
BM25, NEURAL = str(EXAMPLES / "bm25.run"), str(EXAMPLES / "neural.run")


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.slow
def test_the_text_has_the_tests_wins_losses_rbo_and_the_moved_documents() -> None:
    code, out, err = run([QRELS, BM25, NEURAL, "--top", "2"])
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "neural vs bm25 on 8 queries (B - A: neural minus bm25)"
    assert lines[2].split()[:4] == ["measure", "bm25", "neural", "B"]
    assert lines[3].split()[:4] == ["AP", "0.7939", "0.8423", "+0.0483"]
    assert "AP: largest wins of neural over bm25" in out
    assert "AP: largest losses of neural over bm25" in out
    assert "RBO (p=0.9) between the rankings: mean " in out
    # 108: neural has no ranking, so every relevant document is absent from it
    assert "Query 108: AP 1.0000 -> 0.0000 (-1.0000)" in out
    assert "  D108-01                2             1               -" in out
    assert "† neural has no ranking for 1 of the 8 judged queries (scored 0)." in out


def test_json_is_the_librarys_and_reproducible() -> None:
    argv = [QRELS, BM25, NEURAL, "-m", "P@5", "-t", "randomization", "-s", "7", "-B", "100"]
    code, out, err = run([*argv, "-f", "json", "--query", "101,102", "--top-k", "5", "--top", "1"])
    assert code == 0, err
    data = json.loads(out)
    lib = diff_runs(
        QRELS,
        BM25,
        NEURAL,
        "P@5",
        tests="randomization",
        seed=7,
        n_resamples=100,
        queries=["101", "102"],
        k=5,
        top=1,
    )
    assert out == lib.to_json()
    assert data["detailed"] == ["101", "102"]
    assert data["method"]["seed"] == 7
    assert data["entered"]["k"] == 5
    assert [q["query_id"] for q in data["per_query"] if "relevant" in q] == ["101", "102"]
    assert len(data["summary"]["P@5"]["largest_wins"]) == 1


def test_evaluation_options_and_run_names_reach_the_diff() -> None:
    code, out, err = run([QRELS, BM25, NEURAL, "-M", "3", "-J", "-f", "json", "--query", "102"])
    assert code == 0, err
    data = json.loads(out)
    (q102,) = [q for q in data["per_query"] if q["query_id"] == "102"]
    ranks = [d["rank_b"] for d in q102["relevant"] if d["rank_b"] is not None]
    assert ranks
    assert max(ranks) <= 3
    assert data["entered"]["documents"] == 0  # -J: no unjudged document is ranked
    code, out, err = run([QRELS, BM25, NEURAL, "--names", "tag", "-f", "json"])
    assert code == 0, err
    assert (json.loads(out)["run_a"], json.loads(out)["run_b"]) == ("bm25", "neural")


def test_every_query_lists_the_relevant_documents_of_all() -> None:
    code, out, err = run([QRELS, BM25, NEURAL, "--every-query", "-f", "json"])
    assert code == 0, err
    data = json.loads(out)
    assert data["detailed"] == [q["query_id"] for q in data["per_query"]]
    assert all("relevant" in q for q in data["per_query"])


def test_the_command_follows_compare_in_the_table() -> None:
    names = [c.name for c in COMMANDS]
    assert names[names.index("compare") + 1] == "diff"
    out, err = io.StringIO(), io.StringIO()
    assert cranfield(["--help"], out, err) == 0
    assert "  diff " in out.getvalue()
    assert cranfield(["diff", "-h"], out, err) == 0
    assert "--baseline" not in out.getvalue()  # A is the baseline


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--top", "0"], "The --top option must be an integer >= 1, got 0."),
        (["--top-k", "0"], "The --top-k option must be an integer >= 1, got 0."),
        (["--rbo-p", "1"], "The --rbo-p option must be a number > 0 and < 1, got 1.0."),
        (["-a", "2"], "The --alpha option must be"),
        (["-t", "z-test"], "z-test"),
        (["-m", "nosuch"], "nosuch"),
        (["--query", "999"], "The --query option must be a query both runs are compared on"),
        (["--missing", "drop"], "invalid choice: 'drop'"),
        (["-f", "csv"], "invalid choice: 'csv'"),
        (["--query", "101", "--every-query"], "The --every-query option must be False when"),
    ],
)
def test_option_errors_exit_1_in_one_line(argv: list[str], message: str) -> None:
    code, out, err = run([QRELS, BM25, NEURAL, *argv])
    assert code == 1
    assert out == ""
    assert message in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("runs", "message"),
    [
        ([BM25], "the following arguments are required: RUN_B"),
        ([BM25, NEURAL, BM25], f"unrecognized arguments: {BM25}"),
    ],
)
def test_two_runs_exactly(runs: list[str], message: str) -> None:
    code, _, err = run([QRELS, *runs])
    assert code == 1
    assert err.startswith("usage: cranfield diff ")
    assert "QRELS RUN_A RUN_B" in err
    assert message in err


def test_bad_input_exits_2_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("101 Q0 D101-04 1\n")
    code, out, err = run([QRELS, BM25, str(bad)])
    assert (code, out) == (2, "")
    assert "bad.run:1" in err
    assert err.count("\n") == 1
    code, _, err = run([QRELS, BM25, str(tmp_path / "absent.run")])
    assert code == 2
    assert "absent.run" in err


def test_one_common_query_is_a_data_error(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r1").write_text("1 Q0 a 1 2.0 x\n")
    (tmp_path / "r2").write_text("1 Q0 b 1 2.0 y\n")
    code, _, err = run([str(tmp_path / "q"), str(tmp_path / "r1"), str(tmp_path / "r2")])
    assert code == 2
    assert "at least 2 queries" in err


def test_messages_name_the_qrels_file(tmp_path: Path) -> None:
    """diff read the qrels into memory first, so its messages said '<in memory>'."""
    qrels = tmp_path / "judged.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\n")
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text("q1 Q0 d1 1 2 a\n")
    b.write_text("q9 Q0 d1 1 2 b\n")
    code, out, err = run([str(qrels), str(a), str(b)])
    assert (code, out) == (2, "")
    assert err == (
        f"cranfield diff: warning: run 'a' against {qrels}: The run answers only 1 of the 3 "
        "judged queries (33%): wrong qrels file?\n"
        f"cranfield diff: run 'b' and {qrels} share no query id: the run has 1 queries ('q9'), "
        "the qrels 3 ('q1', 'q2', 'q3'). Wrong qrels file?\n"
    )


def test_the_same_run_twice_names_both_arguments() -> None:
    code, _, err = run([QRELS, BM25, BM25])
    assert code == 1
    assert err == (
        f"cranfield diff: RUN_A and RUN_B must be distinct runs, each given once, got {BM25!r}.\n"
    )
