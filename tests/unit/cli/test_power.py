"""``cranfield power``: text and JSON, reproducible, option errors and bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cranfield.cli.commands import main as cranfield
from cranfield.cli.power import main
from tests.conftest import REPO

EXAMPLES = REPO / "examples"
QRELS = str(EXAMPLES / "qrels.txt")
RUNS = [str(EXAMPLES / "bm25.run"), str(EXAMPLES / "neural.run")]


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out, err)
    return code, out.getvalue(), err.getvalue()


def test_the_table_has_one_row_per_measure_and_the_swap_rates() -> None:
    code, out, err = run([QRELS, *RUNS, "-m", "AP,P@10", "-B", "100", "--trials", "5", "-s", "2"])
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == [
        "measure",
        "bootstrap",
        "Tukey",
        "HSD",
        "variance",
        "t-test",
        "ANOVA",
        "interval",
    ]
    assert [line.split()[0] for line in lines[1:3]] == ["AP", "P@10"]
    assert "Share of the 1 pairs of 2 runs significant at alpha 0.05 over 8 queries" in out
    assert "Swap rate of AP (5 random splits; rows: queries per half;" in out


def test_json_is_reproducible_and_holds_the_topic_set_sizes() -> None:
    argv = [QRELS, *RUNS, "-m", "AP", "-B", "50", "--trials", "3", "-s", "4", "-f", "json"]
    code, out, err = run(argv)
    assert code == 0, err
    data = json.loads(out)
    assert data["seed"] == 4
    assert data["pairs"] == 1
    assert set(data["topic_set_size"]["AP"]["topics"]) == {"paired_t", "anova", "interval"}
    assert data["measures"]["AP"]["swaps"]["trials"] == 3
    assert run(argv)[1] == out


def test_the_command_is_registered() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert cranfield(["--help"], out, err) == 0
    assert "  power " in out.getvalue()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--alpha", "1.5"], "The --alpha option must be a number > 0 and < 1, got 1.5."),
        (["--beta", "0"], "The --beta option must be a number > 0 and < 1, got 0.0."),
        (["--difference", "-1"], "The --difference option must be a number > 0, got -1.0."),
        (["--trials", "-1"], "The --trials option must be an integer >= 0, got -1."),
        (["-B", "0"], "The --resamples option must be an integer >= 1, got 0."),
    ],
)
def test_bad_options_are_one_sentence(argv: list[str], message: str) -> None:
    code, out, err = run([QRELS, *RUNS, "-m", "AP", *argv])
    assert code == 1
    assert out == ""
    assert err.strip().splitlines()[-1].endswith(message), err


def test_one_run_is_a_usage_error() -> None:
    code, _, err = run([QRELS, RUNS[0]])
    assert code == 1
    assert "give at least two runs to tell apart." in err


def test_one_query_is_a_data_error(tmp_path: Path) -> None:
    folder = tmp_path
    (folder / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (folder / "r1").write_text("1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n")
    (folder / "r2").write_text("1 Q0 b 1 2.0 y\n1 Q0 a 2 1.0 y\n")
    code, _, err = run([str(folder / "q"), str(folder / "r1"), str(folder / "r2"), "-m", "AP"])
    assert code == 2
    assert err.strip().endswith("1 query(ies): discriminative power needs at least 2."), err


def test_the_asl_curves_and_topics_needed_are_drawn_beside_the_table(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    figure = tmp_path / "power.svg"
    argv = [QRELS, *RUNS, "-m", "AP,P@10", "-B", "50", "--trials", "0", "-s", "1"]
    code, out, err = run([*argv, "--plot", str(figure)])
    assert code == 0, err
    assert out.endswith(f"Wrote the ASL curves and the topics needed to {figure}.\n")
    svg = figure.read_text()
    assert svg.startswith("<?xml")
    assert "ASL curves" in svg
    assert "Topics needed" in svg
    code, json_out, err = run([*argv, "--plot", str(tmp_path / "again.png"), "-f", "json"])
    assert code == 0, err
    assert json.loads(json_out)["alpha"] == 0.05  # the JSON stays one document
    assert (tmp_path / "again.png").read_bytes().startswith(b"\x89PNG")


def test_a_plot_that_cannot_be_written_is_refused_before_evaluating(tmp_path: Path) -> None:
    code, out, err = run([QRELS, *RUNS, "--plot", str(tmp_path / "power.txt")])
    assert (code, out) == (1, "")
    assert "--plot must end in .png, .svg or .pdf" in err
    as_svg = tmp_path / "neural.svg"  # a run file whose name looks like a figure
    as_svg.write_text(Path(RUNS[1]).read_text())
    code, out, err = run([QRELS, RUNS[0], str(as_svg), "--plot", str(as_svg)])
    assert (code, out) == (1, "")
    assert "The --plot option must be a file that is not one of the inputs" in err


def test_a_trec_eval_name_of_several_measures_gives_a_row_each() -> None:
    """``-m P.5,10`` is the help's example; it was refused before power became one call."""
    code, out, err = run([QRELS, *RUNS, "-m", "P.5,10", "-B", "30", "--trials", "0", "-s", "8"])
    assert code == 0, err
    assert [line.split()[0] for line in out.splitlines()[1:3]] == ["P@5", "P@10"]
