"""``cranfield repro``: reproduction and replication, text and JSON, option errors and bad
input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cranfield.cli.commands import main as cranfield
from cranfield.cli.repro import main
from tests.conftest import REPO

EXAMPLES = REPO / "examples"
QRELS = str(EXAMPLES / "qrels.txt")
SECOND = str(EXAMPLES / "qrels-second.txt")
BM25, NEURAL = str(EXAMPLES / "bm25.run"), str(EXAMPLES / "neural.run")


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out, err)
    return code, out.getvalue(), err.getvalue()


def test_a_perfect_reproduction() -> None:
    code, out, err = run(
        [QRELS, "--original", BM25, NEURAL, "--reproduced", BM25, NEURAL, "-f", "json"]
    )
    assert code == 0, err
    data = json.loads(out)
    assert (data["kind"], data["test"]) == ("reproducibility", "paired t-test")
    assert data["queries"] == {"original": 8, "reproduced": 8}
    assert data["cutoffs"] == [10, 100, 1000]
    for role in ("baseline", "advanced"):
        r = data["runs"][role]
        assert r["ktu"] == {"10": 1.0, "100": 1.0, "1000": 1.0}
        for m in ("AP", "nDCG@10", "P@10"):
            assert r["measures"][m]["rmse"] == r["measures"][m]["nrmse"] == 0.0
            assert r["measures"][m]["p_value"] == 1.0
    assert data["effect_ratio"] == {"AP": 1.0, "nDCG@10": 1.0, "P@10": 1.0}
    assert data["delta_ri"] == {"AP": 0.0, "nDCG@10": 0.0, "P@10": 0.0}


def test_the_text_has_each_pair_the_rankings_and_the_effects() -> None:
    code, out, err = run(
        [QRELS, "--original", BM25, NEURAL, "--reproduced", NEURAL, BM25, "-m", "AP", "-k", "5"]
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "Reproduction on 8 queries (paired t-test)."
    assert "baseline: bm25 -> neural" in lines
    assert "advanced: neural -> bm25" in lines
    assert lines[3].split() == ["measure", "original", "reproduced", "RMSE", "nRMSE", "p-value"]
    assert sum(line.startswith("rankings: KTU@5 ") for line in lines) == 2
    assert "Effect of the advanced run over the baseline, reproduced:" in lines
    code, per_query, err = run(
        [QRELS, "--original", BM25, "--reproduced", NEURAL, "-m", "AP", "-k", "5,10", "-q"]
    )
    assert code == 0, err
    header = next(line for line in per_query.splitlines() if line.startswith("query"))
    assert header.split() == ["query", "KTU@5", "KTU@10", "RBO"]
    assert sum(line[:3].isdigit() for line in per_query.splitlines()) == 7


def test_a_replication_is_unpaired_and_has_no_rankings() -> None:
    argv = [QRELS, "--original", BM25, NEURAL, "--reproduced", BM25, NEURAL]
    code, out, err = run([*argv, "--reproduced-qrels", SECOND, "-m", "AP", "-f", "json"])
    assert code == 0, err
    data = json.loads(out)
    assert (data["kind"], data["test"]) == ("replicability", "Student's unpaired t-test")
    assert data["runs"]["baseline"]["ktu"] == {}
    assert "rmse" not in data["runs"]["baseline"]["measures"]["AP"]
    assert set(data["effect_ratio"]) == {"AP"}
    code, text, err = run([*argv, "--reproduced-qrels", SECOND, "-m", "AP"])
    assert code == 0, err
    assert text.startswith("Replication: 8 original queries, 8 replicated queries (Student's")


def test_one_run_each_has_no_effects() -> None:
    code, out, err = run([QRELS, "--original", BM25, "--reproduced", NEURAL, "-f", "json"])
    assert code == 0, err
    data = json.loads(out)
    assert list(data["runs"]) == ["baseline"]
    assert data["effect_ratio"] == data["delta_ri"] == {}
    assert len(data["runs"]["baseline"]["per_query"]["rbo"]) == data["ranked_queries"] == 7
    assert data["notes"] == [
        "1 query(ies) answered only by the original run left out of KTU and RBO."
    ]
    code, text, _ = run([QRELS, "--original", BM25, "--reproduced", NEURAL])
    assert "Effect of" not in text


def test_the_command_is_registered() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert cranfield(["--help"], out, err) == 0
    assert "  repro " in out.getvalue()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rbo-p", "1.5"], "The --rbo-p option must be a number > 0 and < 1, got 1.5."),
        (["--rbo-depth", "0"], "The --rbo-depth option must be an integer >= 1, got 0."),
        (["-k", "10,0"], "The --cutoffs option must be an integer >= 1, got 0."),
        (["-k", "ten"], "argument -k: invalid value: 'ten'"),
        (["-m", "nope"], "nope"),
        (
            ["--reproduced", NEURAL, BM25],
            "give as many --reproduced runs as --original runs, got 2 and 1.",
        ),
    ],
)
def test_bad_options_are_one_sentence(argv: list[str], message: str) -> None:
    code, out, err = run([QRELS, "--original", BM25, "--reproduced", NEURAL, *argv])
    assert code == 1
    assert out == ""
    assert message in err.strip().splitlines()[-1], err


def test_more_than_two_runs_and_missing_arguments_are_usage_errors() -> None:
    code, _, err = run([QRELS, "--original", BM25, BM25, "--reproduced", BM25, NEURAL])
    assert code == 1
    assert f"give two different runs, not {BM25} twice." in err
    code, _, err = run([QRELS, "--original", BM25, NEURAL, BM25, "--reproduced", BM25])
    assert code == 1
    assert "--original takes a baseline run and at most one advanced run, got 3." in err
    code, _, err = run([QRELS, "--original", BM25])
    assert code == 1
    assert "--reproduced" in err


def test_bad_input_files_exit_2_naming_the_file(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.run")
    code, out, err = run([QRELS, "--original", BM25, "--reproduced", missing])
    assert (code, out) == (2, "")
    assert err.startswith("cranfield repro: ")
    assert "nope.run" in err
    broken = tmp_path / "broken.run"
    broken.write_text("101 Q0 D101-01 1\n")
    code, out, err = run([QRELS, "--original", BM25, "--reproduced", str(broken)])
    assert (code, out) == (2, "")
    assert "broken.run" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = run(
        [QRELS, "--original", BM25, "--reproduced", BM25, "--reproduced-qrels", missing]
    )
    assert code == 2
    assert "nope.run" in err
