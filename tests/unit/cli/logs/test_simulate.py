"""``cranfield logs simulate``: the agreement table as text and JSON, the same bytes for a seed,
the simulated log written with -o, bad options (exit 1) and bad inputs (exit 2) in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cranfield.cli.main import main
from cranfield.io.click_logs import read_sessions

EXAMPLES = Path(__file__).resolve().parents[4] / "examples"
QRELS, BM25, NEURAL = (str(EXAMPLES / n) for n in ("qrels.txt", "bm25.run", "neural.run"))
SMALL = ("--impressions", "5,50", "--trials", "200")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["logs", "simulate", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_text_has_the_offline_difference_the_agreement_by_n_and_each_query(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = cli(capsys, QRELS, BM25, NEURAL, *SMALL)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "Simulated interleaving: A = bm25, B = neural"
    assert lines[1] == (
        "team-draft interleaving, DBN, navigational user, 7 queries x 500 impressions, seed 0"
    )
    assert lines[3].startswith("offline nDCG@10: A ")
    assert lines[5] == "left out, ranked by one run only: 1 query (108)"
    table = lines.index("N   overall  per query (mean of 7)")
    assert lines[table + 1].startswith("5 ")
    assert lines[table + 2].startswith("50 ")
    assert any(line.split()[:1] + line.split()[-2:] == ["query", "N=5", "N=50"] for line in lines)
    code, short, _ = cli(capsys, QRELS, BM25, NEURAL, *SMALL, "--overall-only")
    assert code == 0
    assert short == out[: out.index("\nPer query:")]


def test_json_and_the_same_bytes_for_a_seed(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [QRELS, BM25, NEURAL, *SMALL, "--model", "pbm", "--user", "perfect", "-f", "json"]
    code, out, _ = cli(capsys, *argv, "--seed", "3")
    assert code == 0
    again = cli(capsys, *argv, "--seed", "3")[1]
    other = cli(capsys, *argv, "--seed", "4")[1]
    assert out == again
    assert out != other
    doc = json.loads(out)
    assert (doc["model"], doc["user"], doc["sizes"], doc["seed"]) == ("pbm", "perfect", [5, 50], 3)
    assert doc["runs"] == ["bm25", "neural"]
    assert len(doc["queries"]) == 7
    assert all(0 <= v <= 1 for v in doc["overall"])
    sign = 1 if doc["offline"]["difference"] > 0 else -1
    assert doc["overall"][-1] >= doc["overall"][0] or sign == 0


def test_a_binary_measure_takes_the_relevance_level(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [QRELS, BM25, NEURAL, *SMALL, "-m", "P@10", "-f", "json"]
    one = json.loads(cli(capsys, *argv)[1])
    two = json.loads(cli(capsys, *argv, "-l", "2")[1])
    assert one["measure"] == "P@10"
    assert two["offline"]["mean_a"] < one["offline"]["mean_a"]
    assert two["overall"] == one["overall"]  # the users see the grades, not the level


def test_output_writes_the_simulated_impressions_as_a_log(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "sim.jsonl"
    argv = [QRELS, BM25, NEURAL, *SMALL, "--impressions-per-query", "20", "-o", str(log)]
    code, _, err = cli(capsys, *argv)
    assert code == 0
    assert err == f"wrote {log} (140 simulated sessions)\n"
    sessions = read_sessions(log)
    assert len(sessions) == 7 * 20
    assert sessions.depth == 10
    assert sessions.num_clicks > 0


def test_the_same_run_twice_ties_offline(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, QRELS, BM25, BM25, *SMALL, "--overall-only")
    assert code == 0
    assert "A = bm25 (A), B = bm25 (B)" in out
    assert "The runs tie on nDCG@10: the share of 200 experiments" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--impressions", "0"], "The --impressions option must be an integer >= 1, got 0."),
        (["--trials", "0"], "The --trials option must be an integer >= 1, got 0."),
        (
            ["--impressions-per-query", "0"],
            "The --impressions-per-query option must be an integer >= 1, got 0.",
        ),
        (["--shown", "0"], "The --shown option must be an integer >= 1, got 0."),
        (["-m", "AP,P@10"], "-m/--measure: this command takes one measure, got 2 (AP, P@10)."),
        (["--model", "ubm"], "--model"),
        (["--user", "lazy"], "--user"),
        (["-m", "nonsense@@"], "nonsense"),
    ],
)
def test_bad_options_exit_1_in_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = cli(capsys, QRELS, BM25, NEURAL, *argv)
    assert code == 1
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_an_output_that_is_an_input_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, QRELS, BM25, NEURAL, "-o", BM25)
    assert code == 1
    assert "output" in err


def test_bad_inputs_exit_2_naming_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = cli(capsys, QRELS, str(tmp_path / "absent.run"), NEURAL)
    assert code == 2
    assert "absent.run" in err
    bad = tmp_path / "bad.run"
    bad.write_text("101 Q0 D101-01 1 not-a-score run\n", encoding="utf-8")
    code, _, err = cli(capsys, QRELS, str(bad), NEURAL)
    assert code == 2
    assert "bad.run" in err
    assert len(err.strip().splitlines()) == 1


def test_ab_simulates_an_ab_test_of_the_two_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, QRELS, BM25, NEURAL, "--ab", "200", "--sessions", "3")
    assert (code, err) == (0, "")
    assert out.startswith("Simulated A/B test: 200 users a bucket, 3 sessions each")
    assert "A/B test of rr: neural against bm25" in out
    assert "unit of randomisation: user" in out
    assert "offline nDCG@10, neural minus bm25: " in out
    code, doc, _ = cli(capsys, QRELS, BM25, NEURAL, "--ab", "200", "--metric", "ctr", "-f", "json")
    data = json.loads(doc)
    assert (code, data["experiment"], data["metric"], data["users"]) == (0, "ab", "ctr", 200)
    assert data["test"]["control"]["units"] == 200
    code, _, err = cli(capsys, QRELS, BM25, NEURAL, "--ab", "1")
    assert code == 1
    assert "--ab" in err or "users" in err
    code, _, err = cli(capsys, QRELS, BM25, NEURAL, "--ab", "50", "-o", "log.jsonl")
    assert code == 1
    assert "--output writes the log of an interleaving experiment" in err


@pytest.mark.parametrize("suffix", ["csv", "tsv", "parquet"])
def test_output_is_written_in_the_format_its_suffix_names(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str
) -> None:
    """``-o sim.csv`` wrote JSON Lines, which ``logs metrics sim.csv`` then refused."""
    log = tmp_path / f"sim.{suffix}"
    argv = [QRELS, BM25, NEURAL, *SMALL, "--impressions-per-query", "20", "-o", str(log)]
    assert cli(capsys, *argv)[0] == 0
    as_jsonl = tmp_path / "sim.jsonl"
    argv[-1] = str(as_jsonl)
    assert cli(capsys, *argv)[0] == 0
    if suffix != "parquet":
        first = log.read_text().splitlines()[0]
        sep = "," if suffix == "csv" else "\t"
        assert first.split(sep)[:3] == ["query_id", "shown", "clicks"]
    assert read_sessions(log).to_polars().equals(read_sessions(as_jsonl).to_polars())
    code = main(["logs", "metrics", str(log), "-f", "json"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert main(["logs", "metrics", str(as_jsonl), "-f", "json"]) == 0
    assert capsys.readouterr().out == out.replace(str(log), str(as_jsonl))
