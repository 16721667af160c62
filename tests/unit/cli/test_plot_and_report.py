"""``cranfield plot`` and ``cranfield report``: files written, exit codes 0 / 1 / 2."""

from __future__ import annotations

import io
import sys
from typing import TYPE_CHECKING

import pytest

from cranfield.cli import plot as plot_cli
from cranfield.cli import report as report_cli
from tests.conftest import REAL, require

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

DL19 = REAL / "trec-dl-passage"


def _run(main: Callable[..., int], argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def inputs() -> list[str]:
    return [
        str(require(DL19 / "qrels" / "qrels.dl19-passage.txt")),
        str(require(DL19 / "runs" / "dl19" / "bm25.txt.gz")),
        str(require(DL19 / "runs" / "dl19" / "tasb.txt.gz")),
    ]


MAGIC = {"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}


@pytest.mark.parametrize(
    ("kind", "fmt", "extra"),
    [
        ("pr", "png", ["-l", "2", "--levels", "0", "0.5", "1"]),
        ("gain", "svg", ["--max-rank", "10", "--gain", "dcg"]),
        ("differences", "pdf", ["-m", "nDCG@10"]),
        ("scores", "png", ["-m", "RR", "--chart", "box", "--size", "5", "3"]),
        ("query", "svg", ["--query", "1037798", "-l", "2"]),
    ],
)
def test_plot_writes_each_kind(
    inputs: list[str], tmp_path: Path, kind: str, fmt: str, extra: list[str]
) -> None:
    target = tmp_path / f"{kind}.{fmt}"
    code, out, err = _run(plot_cli.main, [kind, *inputs, "-o", str(target), *extra])
    assert (code, err) == (0, "")
    assert out == f"wrote {target}\n"
    assert target.read_bytes().startswith(MAGIC[fmt])


def test_plot_usage_errors(inputs: list[str], tmp_path: Path) -> None:
    code, _, err = _run(plot_cli.main, ["pr", *inputs, "-o", str(tmp_path / "x.jpg")])
    assert code == 1
    assert "must end in .png, .svg or .pdf" in err
    code, _, err = _run(plot_cli.main, ["differences", *inputs[:2], "-o", str(tmp_path / "d.png")])
    assert code == 1
    assert "the following arguments are required: TREATMENT" in err
    code, _, err = _run(plot_cli.main, ["scores", *inputs, "-m", "nope", "-o", "s.png"])
    assert code == 1
    assert "Unknown measure 'nope'" in err
    code, _, err = _run(plot_cli.main, ["pr", *inputs])
    assert code == 1
    assert "required: -o/--output" in err
    code, _, err = _run(plot_cli.main, ["query", *inputs, "--query", "nope", "-o", "q.png"])
    assert code == 1
    assert "Query 'nope' has no judgments" in err
    code, out, _ = _run(plot_cli.main, ["--help"])
    assert code == 0
    assert "KIND" in out


def test_plot_bad_data(inputs: list[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1\n", encoding="utf-8")
    code, _, err = _run(plot_cli.main, ["pr", inputs[0], str(bad), "-o", str(tmp_path / "p.png")])
    assert code == 2
    assert "bad.run:1" in err
    code, _, err = _run(plot_cli.main, ["pr", *inputs, "-o", str(tmp_path / "no" / "p.png")])
    assert code == 2
    assert "cannot write" in err


def test_plot_without_matplotlib(
    inputs: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, _, err = _run(plot_cli.main, ["pr", *inputs, "-o", str(tmp_path / "p.png")])
    assert code == 1
    assert "install the 'plot' extra from cranfield's clone: pip install '.[plot]'" in err


def test_report_writes_one_file(inputs: list[str], tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    argv = [*inputs, "-o", str(target), "-m", "nDCG@10", "AP", "-l", "2", "-t", "randomization"]
    code, out, err = _run(report_cli.main, [*argv, "-s", "3", "-B", "500", "--title", "DL19"])
    assert (code, err) == (0, "")
    assert out.startswith(f"wrote {target} (")
    page = target.read_text(encoding="utf-8")
    assert "<title>DL19</title>" in page
    assert '<th scope="row">seed</th><td>3</td>' in page
    assert '<span class="value">0.7210</span>' in page
    code, out, _ = _run(report_cli.main, [*inputs, "-o", "-", "--no-curves", "-b", "bm25"])
    assert code == 0
    assert out.startswith("<!DOCTYPE html>")
    assert 'id="curves"' not in out


def test_report_errors(inputs: list[str], tmp_path: Path) -> None:
    code, _, err = _run(report_cli.main, [inputs[0], inputs[1], "-o", str(tmp_path / "r.html")])
    assert code == 1
    assert "at least two runs" in err
    code, _, err = _run(report_cli.main, [*inputs, "-o", "r.html", "-m", "nope"])
    assert code == 1
    assert "Unknown measure 'nope'" in err
    code, _, err = _run(report_cli.main, [*inputs, "-o", "r.html", "-b", "nope"])
    assert code == 1
    code, _, err = _run(report_cli.main, [*inputs, "-o", "r.html", "--page-size", "0"])
    assert code == 1
    assert "The --page-size option must be an integer >= 1, got 0." in err
    missing = str(tmp_path / "missing.run")
    code, _, err = _run(report_cli.main, [inputs[0], inputs[1], missing, "-o", "r.html"])
    assert code == 2
    assert "missing.run" in err
    code, _, err = _run(report_cli.main, [*inputs, "-o", str(tmp_path / "no" / "r.html")])
    assert code == 2
    assert "cannot write" in err


def test_report_diff_adds_the_run_diff_section(inputs: list[str], tmp_path: Path) -> None:
    argv = [*inputs, "-o", "-", "--no-curves", "-m", "AP", "-l", "2"]
    code, plain, err = _run(report_cli.main, argv)
    assert (code, err) == (0, "")
    assert 'id="run-diff"' not in plain
    code, page, err = _run(report_cli.main, [*argv, "--diff", inputs[2], "bm25"])  # path, name
    assert (code, err) == (0, "")
    assert "<h2>Run diff: bm25 against tasb</h2>" in page
    code, _, err = _run(report_cli.main, [*argv, "--diff", "bm25", "nope"])
    assert code == 1
    assert "The --diff option must be two of the report's runs (bm25, tasb), got 'nope'." in err


def test_report_strategy_adds_the_judging_section(inputs: list[str]) -> None:
    argv = [*inputs, "-o", "-", "--no-curves", "-m", "AP", "-l", "2"]
    code, page, err = _run(
        report_cli.main, [*argv, "--strategy", "depth,mtf", "--budget", "20", "--checkpoints", "0"]
    )
    assert (code, err) == (0, "")
    assert page.count('<section id="judging">') == 1
    assert 'id="judging-found-svg"' in page
    assert 'id="judging-tau-svg"' not in page  # --checkpoints 0: no ranking compared
    code, _, err = _run(report_cli.main, [*argv, "--budget", "20"])
    assert code == 1
    assert "--budget, --budget-total and --checkpoints need --strategy." in err
    code, _, err = _run(report_cli.main, [*argv, "--strategy", "depth", "--budget-total", "0"])
    assert code == 2
    assert "A total budget of 0 judgments judges nothing" in err
