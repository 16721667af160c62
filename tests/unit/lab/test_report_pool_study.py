"""The text of ``cranfield lab pool``: :func:`cranfield.lab.report.pool_study_text`."""

from __future__ import annotations

from pathlib import Path

from cranfield.lab import pool_study
from cranfield.lab.report import pool_study_text

RUNS = {
    "a": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"e1": 2.0, "e2": 1.0}},
    "b": {"q1": {"d2": 9.0, "d4": 8.0, "d1": 1.0}, "q2": {"e3": 1.0}},
}
QRELS = {"q1": {"d1": 1, "d2": 0, "d4": 1}, "q2": {"e1": 0, "e3": 1}}


def test_with_qrels_and_an_export_every_part_is_printed(tmp_path: Path) -> None:
    """The numbers by hand: a's AP is (1/2 + 0) / 2 with R = 2 in q1 and 1 in q2; b's is
    ((1/2 + 2/3) / 2 + 1) / 2, and 1/3 / 2 once its unique d4 and e3 are unjudged."""
    export = tmp_path / "pool.txt"
    text = pool_study_text(pool_study(RUNS, 2, qrels=QRELS, judged_k=2, export=export, seed=4))
    assert text == (
        "depth-2 pool of 2 runs: 6 documents over 2 topics (per topic mean 3.0, min 3, max 3)\n"
        "run                      contributed  unique   judged@2\n"
        "a                                  4       3      0.750\n"
        "b                                  3       2      1.000\n"
        "\n"
        "leave-one-run-out, AP, pool depth 2\n"
        "run                   unique uniq.rel    score  without    delta  delta%  rank rank w/o\n"
        "a                          3        1   0.2500   0.0000  -0.2500 -100.00     2        2\n"
        "b                          2        2   0.7917   0.1667  -0.6250  -78.95     1        2\n"
        "\n"
        f"pool written to {export} (shuffled within topics, seed 4)\n"
    )


def test_without_qrels_there_is_no_judged_column_nor_test() -> None:
    text = pool_study_text(pool_study(RUNS, 1))
    assert text == (
        "depth-1 pool of 2 runs: 4 documents over 2 topics (per topic mean 2.0, min 2, max 2)\n"
        "run                      contributed  unique\n"
        "a                                  2       2\n"
        "b                                  2       2\n"
    )


def test_large_counts_get_thousands_separators() -> None:
    run = {"q1": {f"d{i}": float(i) for i in range(1500)}}
    assert pool_study_text(pool_study({"big": run}, 2000)).startswith(
        "depth-2000 pool of 1 runs: 1,500 documents over 1 topics"
    )
