"""``cranfield pool``: the next documents to judge, a simulation as text, JSON and a figure."""

from __future__ import annotations

import io
import json
from pathlib import Path

from cranfield.cli.commands import main as cranfield
from tests.conftest import REPO

EXAMPLES = REPO / "examples"
QRELS = str(EXAMPLES / "qrels.txt")
RUNS = [str(EXAMPLES / "bm25.run"), str(EXAMPLES / "neural.run")]


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cranfield(["pool", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_next_proposes_the_top_of_the_first_run_then_moves_on(tmp_path: Path) -> None:
    code, out, err = run(["next", *RUNS, "--strategy", "depth"])
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "# next to judge by depth: query_id doc_id"
    assert lines[1] == "101 D101-13"  # bm25's rank 1 of query 101
    judged = tmp_path / "judged.txt"
    judged.write_text("101 0 D101-13 0\n")
    code, out, err = run(["next", *RUNS, "--strategy", "depth", "--judged", str(judged)])
    assert code == 0, err
    # depth order: neural's rank 1 next (bm25's rank 1 is judged)
    first = out.splitlines()[1]
    assert first.startswith("101 ")
    assert first != "101 D101-13"


def test_simulate_as_text_and_json(tmp_path: Path) -> None:
    code, out, err = run(
        ["simulate", QRELS, *RUNS, "--budget", "5", "--checkpoints", "5", "--strategy", "depth,mtf"]
    )
    assert code == 0, err
    assert out.startswith("judging simulated: ")
    assert "relevant found after N judgments per topic" in out
    code, out, err = run(
        [
            "simulate",
            QRELS,
            *RUNS,
            "--budget",
            "5",
            "--checkpoints",
            "0",
            "--strategy",
            "depth",
            "-f",
            "json",
        ]
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["budget"] == 5
    assert len(data["strategies"]["depth"]["found"]) == 5
    assert data["checkpoints"] == []
    figure = tmp_path / "curves.svg"
    code, out, err = run(
        [
            "simulate",
            QRELS,
            *RUNS,
            "--budget",
            "3",
            "--checkpoints",
            "3",
            "--strategy",
            "mtf",
            "--plot",
            str(figure),
        ]
    )
    assert code == 0, err
    assert figure.read_text().startswith("<?xml")
    page = tmp_path / "page.html"
    code, out, err = run(
        [
            "simulate",
            QRELS,
            *RUNS,
            "--budget",
            "4",
            "--checkpoints",
            "2,4",
            "--strategy",
            "depth,mtf",
            "-o",
            str(page),
        ]
    )
    assert code == 0, err
    html = page.read_text()
    assert html.startswith("<!doctype html>") or html.lower().startswith("<!doctype html>")
    assert 'id="judging-found-svg"' in html
    assert 'id="judging-tau-ap-svg"' in html
    assert "relevant found after N judgments per topic" in html


def test_a_budget_of_zero_is_one_sentence_and_exit_2() -> None:
    code, _, err = run(["simulate", QRELS, *RUNS, "--budget", "0"])
    assert code == 2
    assert err.strip() == (
        "cranfield pool simulate: A budget of 0 judgments per topic judges nothing: give a budget of 1 "
        "or more."
    )
    code, _, err = run(["next", *RUNS, "--budget", "0"])
    assert code == 2
    assert err.count("\n") == 1


def test_pseudo_compares_with_the_qrels() -> None:
    code, out, err = run(["pseudo", QRELS, *RUNS, "--vote", "count,borda"])
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "the runs' AP ranking under pseudo-qrels vs the qrels"
    assert [line.split()[0] for line in lines[2:]] == ["count", "borda"]


def test_next_with_a_total_budget_says_each_topics_share(tmp_path: Path) -> None:
    code, out, err = run(["next", *RUNS, "--strategy", "depth", "--budget-total", "3"])
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].startswith("# a budget of 3 judgments in all, per topic: ")
    shares = dict(item.split(":") for item in lines[1].split(": ", 1)[1].split())
    topics = sorted(shares)
    assert [shares[q] for q in topics] == ["1"] * 3 + ["0"] * (len(topics) - 3)
    assert [line.split()[0] for line in lines[2:]] == topics[:3]
    # the first topic's one judgment made: nothing more for it
    judged = tmp_path / "judged.txt"
    doc = lines[2].split()[1]
    judged.write_text(f"{topics[0]} 0 {doc} 1\n")
    code, out, _ = run(
        ["next", *RUNS, "--strategy", "depth", "--budget-total", "3", "--judged", str(judged)]
    )
    assert [line.split()[0] for line in out.splitlines()[2:]] == topics[1:3]


def test_simulate_with_a_total_budget_states_its_split() -> None:
    code, out, err = run(
        [
            "simulate",
            QRELS,
            *RUNS,
            "--budget-total",
            "12",
            "--checkpoints",
            "0",
            "--strategy",
            "depth",
        ]
    )
    assert code == 0, err
    assert "a budget of 12 judgments in all, split evenly: one per topic per round" in out
    assert "relevant found after N judgments in all" in out


def test_a_total_budget_of_zero_or_beside_budget_is_refused() -> None:
    code, _, err = run(["simulate", QRELS, *RUNS, "--budget-total", "0"])
    assert code == 2
    assert err == (
        "cranfield pool simulate: A total budget of 0 judgments judges nothing: give a budget "
        "of 1 or more.\n"
    )
    code, _, err = run(["next", *RUNS, "--budget-total", "-3"])
    assert code == 2
    assert "A total budget of -3 judgments judges nothing" in err
    code, _, err = run(["next", *RUNS, "--budget", "2", "--budget-total", "3"])
    assert code == 1
    assert "give --budget (per topic) or --budget-total (in all), not both." in err


def test_every_budget_below_one_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    for argv in (
        ["next", *RUNS, "--budget", "-1"],
        ["simulate", QRELS, *RUNS, "--budget", "-5"],
        ["next", *RUNS, "--budget-total", "0"],
    ):
        code, out, err = run(argv)
        assert (code, out) == (2, ""), argv
        assert err.count("\n") == 1
        assert "judges nothing: give a budget of 1 or more." in err
    out, err = io.StringIO(), io.StringIO()
    page = tmp_path / "r.html"
    code = cranfield(
        ["report", QRELS, *RUNS, "-o", str(page), "--strategy", "depth", "--budget", "0"], out, err
    )
    assert code == 2
    assert err.getvalue() == (
        "cranfield report: A budget of 0 judgments per topic judges nothing: give a budget of 1 "
        "or more.\n"
    )
    assert not page.exists()
