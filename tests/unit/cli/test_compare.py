"""``cranfield compare``: formats, exit codes, and the TREC 2003 Robust acceptance run."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from cranfield.cli.compare import main
from tests.unit.conftest import DL, ROBUST03, dl19_runs, robust03_runs

QRELS = """\
q1 0 d1 1
q1 0 d2 1
q1 0 d3 0
q2 0 d1 1
q2 0 d4 2
q3 0 d5 1
q4 0 d7 1
"""
RUN_A = """\
q1 Q0 d1 1 3.0 alpha_run
q1 Q0 d3 2 2.0 alpha_run
q2 Q0 d4 1 2.0 alpha_run
q3 Q0 d5 1 1.0 alpha_run
q4 Q0 x 1 1.0 alpha_run
"""
RUN_B = """\
q1 Q0 d2 1 3.0 beta_run
q1 Q0 d1 2 2.0 beta_run
q2 Q0 d1 1 2.0 beta_run
q3 Q0 x 1 1.0 beta_run
"""


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    out = {}
    for name, text in (("qrels", QRELS), ("alpha_run.txt", RUN_A), ("beta_run.txt", RUN_B)):
        (tmp_path / name).write_text(text)
        out[name] = str(tmp_path / name)
    return out


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out, err)
    return code, out.getvalue(), err.getvalue()


def test_table_and_flags(files: dict[str, str]) -> None:
    code, out, err = run(
        [files["qrels"], files["alpha_run.txt"], files["beta_run.txt"], "-m", "AP", "P@1"]
    )
    assert code == 0, err
    assert "alpha_run" in out
    assert "beta_run" in out
    assert "4 queries" in out
    assert "paired t-test" in out
    assert "Holm correction" in out
    assert "† beta_run has no ranking for 1 of the 4 judged queries (scored 0)." in out


def test_the_table_names_the_policy_by_its_flag(files: dict[str, str]) -> None:
    runs = [files["qrels"], files["alpha_run.txt"], files["beta_run.txt"]]
    code, out, _ = run([*runs, "--missing", "skip"])
    assert code == 0
    assert "the judged queries every run retrieved (--missing skip);" in out
    code, out, _ = run([*runs, "-f", "markdown"])
    assert "a run missing a query scores 0 on it (missing=zero)." in out  # a document


@pytest.mark.parametrize("fmt", ["markdown", "latex", "csv", "json"])
def test_formats(files: dict[str, str], fmt: str) -> None:
    argv = [
        files["qrels"],
        files["alpha_run.txt"],
        files["beta_run.txt"],
        "-t",
        "randomization",
        "-s",
        "3",
    ]
    code, out, err = run([*argv, "-f", fmt, "--ci", "t", "bca"])
    assert code == 0, err
    if fmt == "json":
        doc = json.loads(out)
        assert doc["method"]["seed"] == 3
        assert doc["method"]["intervals"] == ["t", "bca"]
    elif fmt == "latex":
        assert out.startswith(r"\begin{table}")
        assert r"\toprule" in out
    elif fmt == "csv":
        assert out.splitlines()[0].startswith("measure,control,treatment,")
    else:
        assert out.startswith("|  | run | AP | nDCG@10 |")


def test_baseline_details_and_differences(files: dict[str, str]) -> None:
    argv = [files["qrels"], files["alpha_run.txt"], files["beta_run.txt"], "-b", "alpha_run", "-d"]
    code, out, err = run([*argv, "--differences", "alpha_run", "beta_run", "-m", "AP"])
    assert code == 0, err
    assert "alpha_run (baseline)" in out
    assert "W/T/L" in out
    assert "AP per query, beta_run - alpha_run:" in out


@pytest.mark.parametrize(
    ("extra", "code", "message"),
    [
        (["-m", "nDGC@10"], 1, "nDGC"),
        (["-t", "z-test"], 1, "The --test option must be among"),
        (["-c", "sidak"], 1, "The --correction option must be one of"),
        (["-b", "gamma_run"], 1, "The --baseline option must be a run's name or path"),
        (["-a", "2"], 1, "The --alpha option must be a number > 0 and < 1, got 2.0"),
        (["--missing", "error"], 2, "have no line in the run"),
        (["-f", "json", "--differences", "alpha_run", "beta_run"], 1, "needs -f table or markdown"),
        (["--format", "html"], 1, "invalid choice"),
    ],
)
def test_exit_codes(files: dict[str, str], extra: list[str], code: int, message: str) -> None:
    got, out, err = run([files["qrels"], files["alpha_run.txt"], files["beta_run.txt"], *extra])
    assert got == code
    assert message in err
    assert out == ""


def test_bad_data_and_usage(files: dict[str, str], tmp_path: Path) -> None:
    code, _, err = run([files["qrels"], files["alpha_run.txt"], str(tmp_path / "nope.run")])
    assert code == 2
    assert "nope.run" in err
    (tmp_path / "bad.run").write_text("q1 Q0 d1 1\n")
    code, _, err = run([files["qrels"], files["alpha_run.txt"], str(tmp_path / "bad.run")])
    assert code == 2
    assert "bad.run:1" in err
    code, _, err = run([files["qrels"], files["alpha_run.txt"]])
    assert code == 1
    assert "at least two runs" in err
    code, out, _ = run(["-h"])
    assert code == 0
    assert "usage: cranfield compare" in out


def test_robust03_all_pairs_randomization_holm() -> None:
    # The acceptance run of issue #5: 17 official runs, all pairs, MAP and nDCG@10.
    argv = [
        str(ROBUST03 / "qrels.robust03.txt.gz"),
        *map(str, robust03_runs()),
        "-m", "map", "nDCG@10", "-t", "randomization", "-c", "holm", "--seed", "42",
    ]  # fmt: skip
    code, out, err = run(argv)
    assert code == 0, err
    rows = [ln for ln in out.splitlines() if re.match(r"^[a-q] │ ", ln)]
    assert len(rows) == 17
    assert rows[13].split("│")[1].strip() == "input.pircRBa1"  # the file name, by the rule
    assert "0.3101" in rows[13]
    assert (
        "Test: paired randomization test (two-sided; 10,000 random sign assignments, "
        "p = (1 + count) / 10,001; seed 42); Holm correction over 272 comparisons "
        "(136 pairs × 2 measures)."
    ) in out
    assert "100 queries: every judged query" in out
    assert max(len(ln) for ln in out.splitlines()[: len(rows) + 2]) <= 100  # readable width


def test_dl19_markdown_with_threshold() -> None:
    argv = [
        str(DL / "qrels" / "qrels.dl19-passage.txt"),
        *map(str, dl19_runs()[:4]),
        "-l", "2", "-b", "bm25", "-f", "markdown", "-t", "t-test", "wilcoxon",
    ]  # fmt: skip
    code, out, err = run(argv)
    assert code == 0, err
    assert "| bm25 (baseline) | 0.2476 | 0.5058 |" in out


def test_runs_named_by_one_tag_are_a_data_problem(tmp_path: Path) -> None:
    """Two files with the same run tag exited 1 and told a command-line user to 'pass
    names=[...] or a dict', which the command line cannot."""
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n2 0 a 1\n3 0 a 0\n")
    one, two = tmp_path / "one.run", tmp_path / "two.run"
    one.write_text("1 Q0 a 1 2 x\n2 Q0 a 1 2 x\n")
    two.write_text("1 Q0 b 1 2 x\n2 Q0 a 1 2 x\n")
    code, out, err = run([str(qrels), str(one), str(two), "--names", "tag"])
    assert (code, out) == (2, "")
    assert err == (
        f"cranfield compare: {two}: has the run tag 'x', as {one} has; name them by file "
        "(--names file, the default)\n"
    )
