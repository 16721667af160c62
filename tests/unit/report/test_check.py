"""The text of ``cranfield check``: :func:`cranfield.report.check.check_text`."""

from __future__ import annotations

from cranfield.evaluation.check import CheckReport, FileReport, Finding
from cranfield.report.check import check_text

RUN = FileReport(
    "runs/[bold]bm25.run",
    "run",
    "TREC (a run)",
    lines=6,
    queries=2,
    depth=(2, 3.0, 4),
    queries_with_ties=1,
    unjudged_at_10=0.25,
    findings=(Finding("rank-zero", "a run line with rank 0.", 3), Finding("crlf", "CR LF.")),
)
QRELS = FileReport("qrels.txt", "qrels", "TREC qrels", lines=5, queries=2, levels={"0": 2, "1": 3})


def _rows(text: str) -> list[list[str]]:
    """The table's rows (header first), cells stripped, the rule under the header left out."""
    table = text.split("\n\n", maxsplit=1)[0].splitlines()
    return [
        [cell.strip() for cell in line.split("│" if "│" in line else "┃")]
        for line in table
        if "━" not in line
    ]


def test_each_file_is_a_row_of_what_it_holds_and_markup_is_printed_as_written() -> None:
    rows = _rows(check_text(CheckReport((RUN, QRELS))))
    assert rows == [
        ["file", "format", "kind", "lines", "queries", "depth min/median/max", "levels", "ties"],
        ["runs/[bold]bm25.run", "TREC (a run)", "run", "6", "2", "2/3/4", "", "1"],
        ["qrels.txt", "TREC qrels", "qrels", "5", "2", "", "0:2 1:3", ""],
    ]


def test_with_qrels_the_unjudged_share_is_a_column_and_the_qrels_are_named() -> None:
    text = check_text(CheckReport((RUN,), qrels="qrels.txt"))
    rows = _rows(text)
    assert rows[0][-1] == "unjudged@10"
    assert rows[1][-1] == "25%"
    assert "\nqueries and top 10 checked against qrels.txt\n" in text


def test_the_findings_follow_the_table_one_line_each_with_the_line_when_known() -> None:
    text = check_text(CheckReport((RUN, QRELS)))
    assert text.endswith(
        "\n2 finding(s)\n"
        "  runs/[bold]bm25.run:3: rank-zero: a run line with rank 0.\n"
        "  runs/[bold]bm25.run: crlf: CR LF.\n"
    )
    assert check_text(CheckReport((QRELS,))).endswith("\nnothing found\n")


def test_the_table_is_at_least_80_columns_and_never_wraps_a_long_path() -> None:
    long = FileReport("x" * 150 + ".run", "run", "TREC (a run)")
    assert max(map(len, check_text(CheckReport((QRELS,))).splitlines())) >= 80
    assert "x" * 150 + ".run" in check_text(CheckReport((long,)))
