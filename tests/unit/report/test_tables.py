"""Tables for people: names never cut, no ``-0.0000``, every best mean (as shown) in bold."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cranfield.cli.main import main
from cranfield.measures import parse_measures
from cranfield.report import comparison as text_tables
from cranfield.report import html, tables
from cranfield.report.numbers import best_shown, four_places
from cranfield.stats import compare_scores

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
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


_CELL_TEXT = st.text(
    alphabet=st.sampled_from([*map(chr, range(0x20, 0x7F)), "é", "語", "\t", "😀"]), max_size=12
)
_MEAN = st.one_of(st.none(), st.floats(allow_nan=False, min_value=-1e6, max_value=1e6))


@st.composite
def _table_rows(draw: st.DrawFn) -> list[dict[str, object]]:
    """Rows as :func:`tables._rows` makes them: the same keys in every row, a run name
    first, then a query id or a count, then measures (whose names may be anything)."""
    per_query = draw(st.booleans())
    measures = draw(st.lists(_CELL_TEXT, min_size=0, max_size=4, unique=True))
    second = "query_id" if per_query else "num_queries"
    keys = ["run", second, *(m for m in measures if m not in ("run", second))]
    rows = []
    for _ in range(draw(st.integers(min_value=0, max_value=4))):
        row: dict[str, object] = {"run": draw(_CELL_TEXT)}
        row[second] = draw(_CELL_TEXT if per_query else st.integers(0, 10**9))
        row.update({key: draw(_MEAN) for key in keys[2:]})
        rows.append(row)
    return rows


@settings(max_examples=300, deadline=None)
@given(rows=_table_rows())
@example(rows=[{"run": "", "num_queries": 0, "0 ": None}])  # rich trims the name's space
@example(rows=[{"run": " a", "num_queries": 1}])
def test_the_plain_table_is_richs_table_character_for_character(
    rows: list[dict[str, object]],
) -> None:
    """Written to a file, the table drawn without rich is rich's own, byte for byte; cells
    rich would read as markup, emoji codes or wide characters, or would trim, are left to
    rich."""
    plain = tables._plain_table(*tables._table_cells(rows))  # type: ignore[arg-type]
    drawn = io.StringIO()
    tables._drawn_by_rich(rows, drawn)  # type: ignore[arg-type]
    if plain is not None:
        assert plain == drawn.getvalue()
    cells = list(rows[0]) if rows else []
    cells += [tables._shown(v) for row in rows for v in row.values()]
    plain_text = [
        c.isascii() and c.isprintable() and not set(c) & set("[]\\:") and c == c.strip()
        for c in cells
    ]
    if rows and all(plain_text):
        assert plain is not None


def test_the_plain_table_of_an_evaluation() -> None:
    """Two runs, the second's name in brackets (left to rich), per query and summary."""
    rows = [
        {"run": "bm25", "num_queries": 2, "AP": 0.31240000001, "nDCG@10": None},
        {"run": "dense-v2", "num_queries": 12, "AP": -0.00000001, "nDCG@10": 0.5},
    ]
    plain = tables._plain_table(*tables._table_cells(rows))  # type: ignore[arg-type]
    assert plain == (
        " run      ┃ num_queries ┃     AP ┃ nDCG@10 \n"
        "━━━━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━╇━━━━━━━━━\n"
        " bm25     │           2 │ 0.3124 │         \n"
        " dense-v2 │          12 │ 0.0000 │  0.5000 \n"
    )
    rows[1]["run"] = "[dense]"
    assert tables._plain_table(*tables._table_cells(rows)) is None  # type: ignore[arg-type]
    out = io.StringIO()
    tables._rich_table(rows, [*parse_measures("AP"), *parse_measures("nDCG@10")], out)
    assert " [dense] │          12 │ 0.0000 │  0.5000 \n" in out.getvalue()
