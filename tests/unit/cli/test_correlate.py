"""``cranfield correlate``: two measures or two qrels, text and JSON, option errors, bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cranfield.cli.commands import main as cranfield
from cranfield.cli.correlate import main
from tests.conftest import REPO
from tests.unit.conftest import ROBUST03, robust03_runs

EXAMPLES = REPO / "examples"
QRELS = str(EXAMPLES / "qrels.txt")
SECOND = str(EXAMPLES / "qrels-second.txt")
RUNS = [str(EXAMPLES / "bm25.run"), str(EXAMPLES / "neural.run")]


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out, err)
    return code, out.getvalue(), err.getvalue()


def test_two_measures_as_a_table() -> None:
    code, out, err = run([QRELS, *RUNS, "-m", "AP", "-m", "nDCG@10", "--seed", "3", "-B", "50"])
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["system", "AP", "nDCG@10"]
    assert lines[1].split() == ["neural", "0.8423", "0.8677"]  # best by AP first
    assert "Kendall's tau-b  1.0000" in out
    assert "0 of 1 system pairs swapped." in out
    assert "AP is the reference (tau_AP's truth)." in out
    assert "50 resamples, percentile intervals, seed 3." in out


def test_two_measures_as_json_are_reproducible() -> None:
    argv = [QRELS, *RUNS, "-m", "AP,P@10", "--seed", "3", "-B", "50", "-f", "json"]
    code, out, err = run(argv)
    assert code == 0, err
    data = json.loads(out)
    assert (data["setting_a"], data["setting_b"]) == ("AP", "P@10")
    assert data["queries"] == 8
    assert set(data["coefficients"]) == {
        "kendall_tau_b",
        "tau_ap",
        "spearman_rho",
        "pearson_r",
        "rbo",
    }
    assert data["seed"] == 3
    assert run(argv)[1] == out


def test_two_qrels_one_measure() -> None:
    code, out, err = run([QRELS, *RUNS, "--qrels-b", SECOND, "-m", "AP", "-f", "json", "-B", "0"])
    assert code == 0, err
    data = json.loads(out)
    assert (data["setting_a"], data["setting_b"]) == ("qrels", "qrels-second")
    assert data["means"]["neural"]["qrels"] == pytest.approx(0.8423, abs=5e-5)
    assert data["seed"] is None


def test_the_command_is_in_the_command_table() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert cranfield(["--help"], out, err) == 0
    assert "correlate" in out.getvalue()
    assert "agree" in out.getvalue()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-m", "AP"], "give two measures to compare (-m M1 -m M2), got 1"),
        (["-m", "AP,P@10,RR"], "got 3"),
        (["--qrels-b", SECOND, "-m", "AP,P@10"], "with --qrels-b give one measure"),
        (["--rbo-p", "1.5"], "The --rbo-p option must be a number in (0, 1), got 1.5."),
        (["-a", "0"], "The --alpha option must be a number in (0, 1), got 0"),
        (["-B", "-1"], "The --resamples option must be an integer >= 0, got -1."),
        (["-m", "AP,nosuch"], "nosuch"),
    ],
)
def test_option_errors_exit_1(argv: list[str], message: str) -> None:
    code, out, err = run([QRELS, *RUNS, *argv])
    assert code == 1
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_one_run_is_a_usage_error() -> None:
    code, _, err = run([QRELS, RUNS[0]])
    assert code == 1
    assert "give at least two runs" in err


def test_an_unreadable_file_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.qrels"
    bad.write_text("101 0 D1\n")
    code, _, err = run([str(bad), *RUNS])
    assert code == 2
    assert "bad.qrels" in err
    code, _, err = run([QRELS, *RUNS, "--qrels-b", str(tmp_path / "absent.txt")])
    assert code == 2
    assert "absent.txt" in err


def test_qrels_without_a_common_query_are_a_clear_error(tmp_path: Path) -> None:
    other = tmp_path / "other.qrels"
    other.write_text("999 0 D999-01 1\n")
    runs = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.run"
        path.write_text(f"101 Q0 D101-04 1 2.0 {name}\n999 Q0 D999-01 1 1.0 {name}\n")
        runs.append(str(path))
    code, out, err = run([QRELS, *runs, "--qrels-b", str(other), "-m", "AP"])
    assert code == 2, err
    assert "qrels and other judge no query in common: nothing to correlate." in err
    assert "nan" not in out.lower()


def test_robust03_ap_against_ndcg_at_10_end_to_end() -> None:
    runs = [str(p) for p in robust03_runs()[:6]]
    argv = [str(ROBUST03 / "qrels.robust03.txt.gz"), *runs, "-m", "map,ndcg_cut_10"]
    code, out, err = run([*argv, "-B", "0", "-f", "json"])
    assert code == 0, err
    data = json.loads(out)
    assert data["queries"] == 100
    assert ["input.InexpC2", "input.NLPR03vb10"] in data["swaps"]
    assert round(data["means"]["input.InexpC2"]["AP"], 4) == 0.2249


def test_the_scatter_plot_is_written_beside_the_table(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    figure = tmp_path / "means.svg"
    code, out, err = run([QRELS, *RUNS, "-B", "0", "--plot", str(figure)])
    assert code == 0, err
    assert out.endswith(f"Wrote the scatter plot to {figure}.\n")
    svg = figure.read_text()
    assert svg.startswith("<?xml")
    assert "neural" in svg


def test_a_plot_that_cannot_be_written_is_refused_before_evaluating(tmp_path: Path) -> None:
    code, out, err = run([QRELS, *RUNS, "--plot", str(tmp_path / "means.txt")])
    assert code == 1
    assert "--plot must end in .png, .svg or .pdf" in err
    as_svg = tmp_path / "neural.svg"  # a run file whose name looks like a figure
    as_svg.write_text(Path(RUNS[1]).read_text())
    code, out, err = run([QRELS, RUNS[0], str(as_svg), "--plot", str(as_svg)])
    assert code == 1
    assert "The --plot option must be a file that is not one of the inputs" in err
    assert out == ""


def test_per_query_prints_each_runs_score_agreement() -> None:
    code, out, err = run([QRELS, *RUNS, "-B", "0"])
    assert code == 0, err
    assert "Per-query scores (AP vs nDCG@10): tau-b " in out
    assert "queries\n" not in out
    code, out, err = run([QRELS, *RUNS, "-B", "0", "--per-query"])
    assert code == 0, err
    lines = out.splitlines()
    table = lines[lines.index(next(x for x in lines if x.split()[:2] == ["system", "tau-b"])) :]
    assert table[0].split() == ["system", "tau-b", "r", "queries"]
    assert {row.split()[0] for row in table[1:3]} == {"bm25", "neural"}
