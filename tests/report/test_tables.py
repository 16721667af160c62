"""Tables for people: names never cut, no ``-0.0000``, every best mean (as shown) in bold."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest

from cranfield.cli.main import main
from cranfield.measures import parse_measures
from cranfield.report import comparison as text_tables
from cranfield.report import html, tables
from cranfield.report.numbers import best_shown, four_places
from cranfield.stats import compare_scores

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BOLD = "\x1b[1m"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_run_names_are_never_cut(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Five runs whose names differ only at the end, as TREC DL's rankvicuna7b-on-… runs."""
    names = [f"rankvicuna7b-on-bm25-flan-t5-large-top100-window20-{i}.run" for i in range(5)]
    for name in names:
        shutil.copy(EXAMPLES / "bm25.run", tmp_path / name)
    argv = ["evaluate", str(EXAMPLES / "qrels.txt"), *(str(tmp_path / n) for n in names)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    rows = [line.split("│")[0].strip() for line in out.splitlines() if "│" in line]
    assert rows == [name.removesuffix(".run") for name in names]


def test_query_ids_are_never_cut(tmp_path: Path) -> None:
    rows = [
        {"run": "r", "query_id": f"a-very-long-query-identifier-{i:04d}", "AP": 0.5}
        for i in range(3)
    ]
    out = io.StringIO()
    tables._rich_table(rows, parse_measures("AP"), out)
    assert all(row["query_id"] in out.getvalue() for row in rows)


def test_a_mean_that_reads_zero_has_no_minus_sign() -> None:
    assert four_places(-0.00000001) == "0.0000"
    assert four_places(-0.00005) == "-0.0001"
    rows = [{"run": "a", "num_queries": 2, "AP": -0.00000001}]
    out = io.StringIO()
    tables._rich_table(rows, parse_measures("AP"), out)
    assert "0.0000" in out.getvalue()
    assert "-0.0000" not in out.getvalue()


def test_runs_tied_for_the_best_mean_are_all_bold() -> None:
    assert best_shown([0.31240000001, 0.3124, 0.1]) == "0.3124"
    rows = [
        {"run": "a", "num_queries": 2, "AP": 0.31240000001, "RR": 0.5},
        {"run": "b", "num_queries": 2, "AP": 0.3124, "RR": 0.25},
        {"run": "c", "num_queries": 2, "AP": 0.2, "RR": 0.5},
    ]
    out = Terminal()
    tables._rich_table(rows, [*parse_measures("AP"), *parse_measures("RR")], out)
    bold = re.findall(r"\x1b\[1m([0-9.]+)", out.getvalue())
    assert sorted(bold) == ["0.3124", "0.3124", "0.5000", "0.5000"]


def _tied() -> object:
    # The means of a and b print the same (0.1500) but differ in their last bits.
    return compare_scores(
        {
            "a": {"AP": [0.1, 0.2, 0.15]},
            "b": {"AP": [0.15, 0.15, 0.15000000001]},
            "c": {"AP": [-0.00000001, 0.0, 0.0]},
        }
    )


def test_comparison_tables_bold_every_tied_best_and_no_minus_zero() -> None:
    c = _tied()
    markdown = text_tables.to_markdown(c)  # type: ignore[arg-type]
    assert markdown.count("**0.1500**") == 2
    assert "-0.0000" not in markdown
    latex = text_tables.to_latex(c)  # type: ignore[arg-type]
    assert latex.count(r"\textbf{0.1500}") == 2
    assert "-0.0000" not in latex
    out = Terminal()
    text_tables.print_table(c, out)  # type: ignore[arg-type]
    assert out.getvalue().count(f"{BOLD}0.1500") == 2
    assert "-0.0000" not in out.getvalue()


def test_the_html_summary_marks_every_tied_best() -> None:
    page = html._summary(_tied())  # type: ignore[arg-type]
    assert page.count('class="num best"') == 2
    assert "-0.0000" not in page
