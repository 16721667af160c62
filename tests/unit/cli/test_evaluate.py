"""``cranfield evaluate`` and ``cranfield measures`` on the bundled examples.

The expected numbers always come from the Python API on the same files, so the tests check
that the command line is a thin layer over :func:`cranfield.evaluate` and do not depend on
the exact contents of ``examples/``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

import cranfield
from cranfield.cli.main import main
from cranfield.io import load, trec_numpy
from cranfield.measures import all_specs

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
QRELS = EXAMPLES / "qrels.txt"
RUNS = [EXAMPLES / "bm25.run", EXAMPLES / "neural.run"]
MEASURES = ["AP", "nDCG@10", "P@10", "RR"]


def cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def api(missing: str = "zero") -> list[cranfield.Results]:
    return [
        cranfield.evaluate(QRELS, run, MEASURES, missing=missing)  # type: ignore[arg-type]
        for run in RUNS
    ]


def evaluate_argv(*extra: str) -> list[str | Path]:
    return ["evaluate", QRELS, *RUNS, "-m", *MEASURES, *extra]


def test_examples_exist() -> None:
    for path in (QRELS, *RUNS):
        assert path.is_file(), path


# --------------------------------------------------------------------------- table


def test_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, *evaluate_argv())
    assert code == 0
    assert err == ""
    lines = out.splitlines()
    header = next(line for line in lines if "num_queries" in line)
    for m in MEASURES:
        assert m in header
    for r in api():
        row = next(line for line in lines if line.strip().startswith(r.run_name + " "))
        assert f"{r['AP']:.4f}" in row
        assert f"{r['nDCG@10']:.4f}" in row
        assert f" {len(r.topics)} " in row
        assert f"{r.run_name}: {r.policy_note(command_line=True)}" in lines


def test_table_policy_notes_mention_the_missing_topic(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = cli(capsys, *evaluate_argv())
    missing_somewhere = any(r.missing_topics for r in api())
    assert ("(--missing zero)" in out) == missing_somewhere
    assert "bm25: " in out
    assert "neural: " in out


def test_default_measures(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "evaluate", QRELS, RUNS[0], "-f", "csv")
    assert code == 0
    header = next(csv.reader(io.StringIO(out)))
    assert header == ["run", "num_queries", "AP", "nDCG@10", "P@10", "R@1000", "RR@10"]


# --------------------------------------------------------------------------- machine formats


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_delimited(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    code, out, err = cli(capsys, *evaluate_argv("-f", fmt))
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out), delimiter="\t" if fmt == "tsv" else ","))
    expected = api()
    assert [row["run"] for row in rows] == [r.run_name for r in expected]
    for row, r in zip(rows, expected, strict=True):
        assert list(row) == ["run", "num_queries", *MEASURES]
        assert int(row["num_queries"]) == len(r.topics)
        for m in MEASURES:
            assert float(row[m]) == r[m]  # written with repr: exact
    # the policy notes go to stderr so stdout stays machine-readable
    for r in expected:
        assert f"{r.run_name}: {r.policy_note(command_line=True)}" in err.splitlines()


def test_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, *evaluate_argv("-f", "json"))
    assert code == 0
    doc = json.loads(out)
    expected = api()
    assert [row["run"] for row in doc["results"]] == [r.run_name for r in expected]
    for row, r in zip(doc["results"], expected, strict=True):
        assert row == {"run": r.run_name, "num_queries": len(r.topics), **r.means()}
    assert doc["policy"] == {
        r.run_name: {"missing": "zero", "missing_queries": r.missing_topics} for r in expected
    }


def test_jsonl(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, *evaluate_argv("-f", "jsonl"))
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    expected = api()
    assert rows == [
        {"run": r.run_name, "num_queries": len(r.topics), **r.means()} for r in expected
    ]


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_per_query(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    code, out, _ = cli(capsys, *evaluate_argv("--per-query", "-f", fmt))
    assert code == 0
    if fmt == "csv":
        rows: list[dict[str, object]] = list(csv.DictReader(io.StringIO(out)))
    else:
        rows = [json.loads(line) for line in out.splitlines()]
    expected = api()
    assert len(rows) == sum(len(r.topics) for r in expected)
    i = 0
    for r in expected:
        for t in r.topics:
            row = rows[i]
            i += 1
            assert (row["run"], row["query_id"]) == (r.run_name, t)
            for m in MEASURES:
                assert float(row[m]) == r.per_query(m)[t]  # type: ignore[arg-type]


def test_per_query_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, *evaluate_argv("-q"))
    assert code == 0
    header, *body = [line for line in out.splitlines() if "┃" in line or "│" in line]
    assert [c.strip() for c in header.split("┃")] == ["run", "query_id", *MEASURES]
    cells = [[c.strip() for c in line.split("│")] for line in body]
    expected = [
        [r.run_name, t, *(f"{r.per_query(m)[t]:.4f}" for m in MEASURES)]
        for r in api()
        for t in r.topics
    ]
    assert cells == expected


def test_missing_skip(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, *evaluate_argv("--missing", "skip", "-f", "json"))
    assert code == 0
    doc = json.loads(out)
    expected = api("skip")
    for row, r in zip(doc["results"], expected, strict=True):
        assert row == {"run": r.run_name, "num_queries": len(r.topics), **r.means()}
        assert doc["policy"][r.run_name] == {"missing": "skip", "missing_queries": r.missing_topics}
    for r in expected:
        assert f"{r.run_name}: {r.policy_note(command_line=True)}" in err.splitlines()
    # the examples have a run with a missing topic: skip must change its topic count
    zero = api("zero")
    assert any(len(s.topics) < len(z.topics) for s, z in zip(expected, zero, strict=True))


def test_missing_error(capsys: pytest.CaptureFixture[str]) -> None:
    expected_missing = [t for r in api() for t in r.missing_topics]
    code, _, err = cli(capsys, *evaluate_argv("--missing", "error"))
    if expected_missing:
        assert code == 2
        assert err.startswith("cranfield evaluate: ")
        assert repr(expected_missing[0]) in err
    else:  # pragma: no cover - depends on the examples
        assert code == 0


def test_relevance_level_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "evaluate", QRELS, RUNS[0], "-m", "AP", "-l", "2", "-f", "json")
    assert code == 0
    (row,) = json.loads(out)["results"]
    assert row["AP"] == cranfield.evaluate(QRELS, RUNS[0], "AP", relevance_level=2)["AP"]


# --------------------------------------------------------------------------- errors


def test_unknown_measure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "evaluate", QRELS, RUNS[0], "-m", "nDGC@10")
    assert code == 1
    assert out == ""
    assert err.startswith("cranfield evaluate: Unknown measure 'nDGC@10'.")
    assert "Did you mean nDCG" in err
    assert err.count("\n") == 1


def test_bad_parameter_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "evaluate", QRELS, RUNS[0], "-m", "P@0")
    assert code == 1
    assert "integer >= 1" in err


def test_malformed_run_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "broken.run"
    good_line = RUNS[0].read_text().splitlines()[0]
    bad.write_text(f"{good_line}\n101 Q0 DOC 2\n")
    code, out, err = cli(capsys, "evaluate", QRELS, bad, "-m", "AP")
    assert code == 2
    assert out == ""
    assert f"{bad}:2:" in err
    assert "'101 Q0 DOC 2'" in err


def test_malformed_qrels_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "broken.qrels"
    bad.write_text("101 0 D1 1\n101 0 D2\n")
    code, _, err = cli(capsys, "evaluate", bad, RUNS[0], "-m", "AP")
    assert code == 2
    assert f"{bad}:2:" in err


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = cli(capsys, "evaluate", QRELS, tmp_path / "nope.run")
    assert code == 2
    assert "nope.run" in err


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, "evaluate")[0] == 1
    assert cli(capsys, "evaluate", QRELS, RUNS[0], "-f", "xml")[0] == 1
    assert cli(capsys, "no-such-command")[0] == 1
    assert cli(capsys)[0] == 1


def test_negative_depth_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "evaluate", QRELS, RUNS[0], "-m", "AP", "-M", "-1")
    assert code == 1
    assert err.startswith("cranfield evaluate: ")


@pytest.mark.parametrize("argv", [["-h"], ["evaluate", "-h"], ["measures", "-h"]])
def test_help_exits_zero(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out, _ = cli(capsys, *argv)
    assert code == 0
    assert "usage:" in out


# --------------------------------------------------------------------------- measures


def test_measures_lists_every_spec(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "measures")
    assert code == 0
    headings = [line.split()[0] for line in out.splitlines() if line and not line[0].isspace()]
    assert headings == [spec.name for spec in all_specs()]


def test_measures_one(capsys: pytest.CaptureFixture[str]) -> None:
    spec = next(s for s in all_specs() if s.name == "nDCG")
    code, out, _ = cli(capsys, "measures", "nDCG")
    assert code == 0
    assert out.splitlines()[0].split()[0] == "nDCG"
    assert f"formula: {spec.formula}" in out
    assert spec.citation
    assert f"cite: {spec.citation}" in out
    assert "Järvelin" in out
    assert "trec_eval: ndcg" in out
    assert "    other tools: ranx ndcg, ir_measures nDCG(dcg='log2')\n" in out
    headings = [line for line in out.splitlines() if line and not line[0].isspace()]
    assert len(headings) == 1


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("MAP", "AP"),
        ("map", "AP"),
        ("nDCG@10", "nDCG"),
        ("MAP-IA", "AP_IA"),
        ("strec@5", "StRecall"),
    ],
)
def test_measures_by_other_names(capsys: pytest.CaptureFixture[str], name: str, shown: str) -> None:
    code, out, _ = cli(capsys, "measures", name)
    assert code == 0
    assert out.splitlines()[0].split()[0] == shown


def test_measures_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "measures", "nDGC")
    assert code == 1
    assert out == ""
    assert "Did you mean" in err


# --------------------------------------------------------------------------- trec-eval


def test_trec_eval_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "trec-eval", "-h")
    assert code == 0
    assert out.startswith("Usage: cranfield trec-eval")


def test_trec_eval_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "trec-eval", "-m", "map", "-m", "P.10", QRELS, RUNS[0])
    assert code == 0
    values = {line.split("\t")[0].strip(): line.split("\t")[2] for line in out.splitlines()}
    r = cranfield.evaluate(QRELS, RUNS[0], ["AP", "P@10"])
    assert values["map"] == f"{r['AP']:6.4f}"
    assert values["P_10"] == f"{r['P@10']:6.4f}"


# --------------------------------------------------------------------------- console script


def test_console_script() -> None:
    script = Path(sys.executable).parent / "cranfield"
    assert script.exists(), f"console script not installed at {script}"
    proc = subprocess.run(
        [str(script), "evaluate", str(QRELS), str(RUNS[0]), "-m", *MEASURES, "-f", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)["results"]
    r = cranfield.evaluate(QRELS, RUNS[0], MEASURES)
    assert row == {"run": "bm25", "num_queries": len(r.topics), **r.means()}
    assert proc.stderr == f"bm25: {r.policy_note(command_line=True)}\n"


def test_console_script_exits_with_the_commands_code(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["evaluate", str(QRELS), str(tmp_path / "absent.run"), "-m", "AP"]
    script = Path(sys.executable).parent / "cranfield"
    proc = subprocess.run([str(script), *args], capture_output=True, text=True, check=False)
    assert proc.returncode == main(args) != 0
    assert proc.stderr == capsys.readouterr().err


def test_aggregate_option_is_named_in_the_header_and_applied(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        ["evaluate", str(QRELS), str(RUNS[0]), "-m", "AP", "--aggregate", "median", "-f", "json"]
    )
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    expected = cranfield.evaluate(QRELS, RUNS[0], ["AP"], aggregate="median")["AP"]
    assert doc["results"][0]["AP [median]"] == pytest.approx(expected, abs=0)
    assert main(["evaluate", str(QRELS), str(RUNS[0]), "-m", "AP", "--aggregate", "median"]) == 0
    assert "AP [median]" in capsys.readouterr().out  # not swallowed as rich markup


def test_user_oriented_measures_take_known_from_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "evaluate",
            str(QRELS),
            str(RUNS[0]),
            "-m",
            "Coverage",
            "--known",
            str(QRELS),
            "-f",
            "json",
        ]
    )
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["results"][0]["Coverage"] == pytest.approx(
        cranfield.evaluate(QRELS, RUNS[0], ["Coverage"], known=QRELS)["Coverage"], abs=0
    )


def test_stream_flag_gives_the_same_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["evaluate", str(QRELS), *map(str, RUNS), "-m", *MEASURES, "-f", "json"]
    assert main(argv) == 0
    whole = json.loads(capsys.readouterr().out)["results"]
    assert main([*argv, "--stream"]) == 0
    assert json.loads(capsys.readouterr().out)["results"] == whole


# Output through a pipe is buffered unless PYTHONUNBUFFERED says otherwise.
_BUFFERED = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


@pytest.mark.parametrize(
    "args",
    [
        ["trec-eval", "-q", "-m", "all_trec", str(QRELS), str(RUNS[0])],
        ["evaluate", str(QRELS), *map(str, RUNS), "-q", "-f", "tsv", "-m", *MEASURES],
    ],
    ids=["trec-eval", "evaluate"],
)
def test_console_script_writes_all_its_output_before_it_ends(
    capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    """The command ends without the interpreter's teardown: its output (29 KB for
    trec-eval, over the 8 KB stdout buffer) is still all out through a pipe, and the same
    as the in-process command's."""
    script = Path(sys.executable).parent / "cranfield"
    proc = subprocess.run(
        [str(script), *args], capture_output=True, text=True, check=False, env=_BUFFERED
    )
    assert proc.returncode == main(args) == 0
    expected = capsys.readouterr()
    assert proc.stdout == expected.out
    assert proc.stderr == expected.err
    assert proc.stdout


_EXIT_PROGRAM = """
import atexit, sys
from cranfield.cli.main import _exit
atexit.register(lambda: print("exit handler ran"))
print("buffered", end=" ")
sys.stderr.write("to stderr")
_exit(7)
"""


def test_the_fast_exit_runs_the_exit_handlers_and_flushes() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _EXIT_PROGRAM],
        capture_output=True,
        text=True,
        check=False,
        env=_BUFFERED,
    )
    assert proc.returncode == 7
    assert proc.stdout == "buffered exit handler ran\n"
    assert proc.stderr == "to stderr"


def test_the_exit_waits_as_usual_while_another_thread_runs() -> None:
    import threading

    from cranfield.cli import main as main_module

    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        with pytest.raises(SystemExit) as exited:
            main_module._exit(3)
        assert exited.value.code == 3
    finally:
        release.set()
        other.join()


# --------------------------------------------------------------------------- large runs


def test_a_large_run_loaded_next_to_the_qrels_gives_the_same_output(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = evaluate_argv("-q", "-f", "jsonl")
    small = cli(capsys, *argv)
    with (
        mock.patch.object(trec_numpy, "MAX_BYTES", 0),
        mock.patch.object(load, "side_by_side", wraps=load.side_by_side) as together,
    ):
        large = cli(capsys, *argv)
    together.assert_called_once()
    assert large == small
    assert small[0] == 0
    assert len(small[1].splitlines()) == sum(len(r.topics) for r in api())


@pytest.mark.parametrize("command", ["evaluate", "trec-eval"])
def test_a_bad_qrels_file_is_reported_before_a_bad_large_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    qrels = tmp_path / "bad.qrels"
    qrels.write_text("1 0 d1 1\n1 0 d2 x\n")
    run = tmp_path / "bad.run"
    run.write_text("1 Q0 d1 1 1.0 r\n1 Q0 d1 2 0.5 r\n")
    prefix = " trec-eval" if command == "trec-eval" else " evaluate"
    with mock.patch.object(trec_numpy, "MAX_BYTES", 0):  # the run is loaded next to the qrels
        code, _, err = cli(capsys, command, qrels, run)
        assert code == 2
        assert err.startswith(f"cranfield{prefix}: {qrels}:2:")
        code, _, err = cli(capsys, command, QRELS, run)
    assert code == (4 if command == "trec-eval" else 2)  # trec_eval's code for duplicates
    assert err.startswith(f"cranfield{prefix}: {run}:2:")
    assert "duplicate document 'd1'" in err


def test_a_run_on_standard_input_is_read_here_and_sent_to_a_worker() -> None:
    # a worker process has a standard input of its own (empty): the run was lost there
    script = Path(sys.executable).parent / "cranfield"
    argv = [str(script), "evaluate", str(QRELS), "-", str(RUNS[1]), "-m", *MEASURES, "-f", "tsv"]
    one, two = (
        subprocess.run([*argv, *jobs], input=RUNS[0].read_bytes(), capture_output=True, check=False)
        for jobs in ([], ["--jobs", "2"])
    )
    assert (one.returncode, two.returncode) == (0, 0), two.stderr
    assert two.stdout == one.stdout
    assert b"stdin" in one.stdout


def test_jobs_scores_the_runs_in_worker_processes_with_the_same_numbers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Through the console script, as a user runs it: the workers are started by spawn, which
    imports the script's main module again."""
    script = Path(sys.executable).parent / "cranfield"
    argv = [str(script), "evaluate", str(QRELS), *map(str, RUNS), "-m", *MEASURES]
    one, two = (
        subprocess.run([*argv, "-f", "tsv", *jobs], capture_output=True, text=True, check=False)
        for jobs in ([], ["--jobs", "2"])
    )
    assert (one.returncode, two.returncode) == (0, 0), two.stderr
    assert two.stdout == one.stdout
    assert two.stderr == "".join(
        line.replace("\n", " Scored by 2 worker processes.\n")
        for line in one.stderr.splitlines(keepends=True)
    )
    code, _, err = cli(capsys, "evaluate", QRELS, *RUNS, "--jobs", "-1")
    assert (code, err) == (
        1,
        "cranfield evaluate: The --jobs option must be an integer >= 0, got -1.\n",
    )
    code, _, err = cli(capsys, "evaluate", QRELS, *RUNS, "-j", "2", "--scheduler", "tcp://h:1")
    assert code == 1
    assert "The --jobs option must be 1 (the default) when a scheduler is given" in err


def test_a_misspelt_trec_eval_cutoff_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """``ndcg_cut_1O`` (a letter O) used to print nDCG@1 and exit 0."""
    code, out, err = cli(capsys, "evaluate", QRELS, RUNS[0], "-m", "ndcg_cut_1O")
    assert (code, out) == (1, "")
    assert err == (
        "cranfield evaluate: trec_eval measure ndcg_cut: '1O' in ndcg_cut_1O is not a whole "
        "number (digits only); did you mean ndcg_cut_10?\n"
    )


def test_micro_for_a_measure_that_is_no_set_measure_names_what_the_cli_can_do(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It told a command-line user to 'give aggregate a mapping', which only Python can."""
    code, out, err = cli(capsys, "evaluate", QRELS, RUNS[0], "-m", "AP", "--aggregate", "micro")
    assert (code, out) == (1, "")
    assert err == (
        "cranfield evaluate: AP cannot be micro-averaged: only set measures pool their counts; "
        "--aggregate micro takes set measures only (SetP, SetR, SetF ...).\n"
    )
