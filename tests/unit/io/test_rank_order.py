"""``io/rank_order.py``: a TREC run ordered by its rank column (ndeval's default order)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import cranfield
from cranfield.errors import InputError
from cranfield.io.rank_order import RANK_ORDER_NOTE, read_run_in_rank_order

if TYPE_CHECKING:
    from pathlib import Path


def test_the_rank_column_orders_the_run(tmp_path: Path) -> None:
    """Scores say c, b, a (with a tie broken by doc id descending); the ranks say a, b, c:
    P@1 counts a (relevant) only in rank order, and the note says which order was used."""
    run = tmp_path / "r.txt"
    run.write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 2.0 t\n1 Q0 c 3 2.0 t\n")
    qrels = {"1": {"a": 1}}
    by_rank = read_run_in_rank_order(run)
    assert by_rank.name == "r"
    assert by_rank.notes[-1] == RANK_ORDER_NOTE
    assert cranfield.evaluate(qrels, by_rank, ["P@1"])["P@1"] == 1.0
    assert cranfield.evaluate(qrels, str(run), ["P@1"])["P@1"] == 0.0
    res = cranfield.evaluate(qrels, by_rank, ["P@1"])
    assert "rank column" in res.policy_note()


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("1 Q0 a 1 1.0 t\n1 Q0 b 1 0.5 t\n", 2, "gives rank 1 twice (first on line 1)"),
        ("1 Q0 a 1 1.0 t\n1 Q0 b 2.5 0.5 t\n", 2, "must be an integer >= 0"),
        ("1 Q0 a -1 1.0 t\n", 1, "must be an integer >= 0"),
    ],
)
def test_a_rank_without_an_order_is_refused(
    tmp_path: Path, text: str, line: int, words: str
) -> None:
    run = tmp_path / "bad.txt"
    run.write_text(text)
    with pytest.raises(InputError, match=r"bad\.txt") as exc:
        read_run_in_rank_order(run)
    assert exc.value.line == line
    assert words in str(exc.value)
    assert "\n" not in str(exc.value)


def test_the_same_rank_in_two_queries_is_fine(tmp_path: Path) -> None:
    run = tmp_path / "r.txt"
    run.write_text("1 Q0 a 1 1.0 t\n2 Q0 a 1 1.0 t\n")
    assert read_run_in_rank_order(run).frame.get_column("score").to_list() == [-1.0, -1.0]
