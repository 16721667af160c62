"""Headerless tab-separated runs ``qid<TAB>doc<TAB>integer``: MS MARCO ranks only when they
start at 1 and never decrease within a query, else the format is not guessed (issue 30,
item 2); with a header line the integers are scores. The reference follows the documented
rule line by line."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import event, given
from hypothesis import strategies as st

from cranfield.errors import AmbiguousFormatError
from cranfield.io.formats import read_run_file
from tests.fuzz.conftest import fuzz

LINES = st.lists(
    st.tuples(st.sampled_from(["1", "2", "3"]), st.integers(-1, 6)), min_size=1, max_size=12
)


def _ranks(lines: list[tuple[str, int]]) -> bool:
    """The documented rule: each query's first number is 1, and none is below the one before."""
    last: dict[str, int] = {}
    for query, number in lines:
        before = last.get(query)
        if (before is None and number != 1) or (before is not None and number < before):
            return False
        last[query] = number
    return True


@fuzz(80)
@given(lines=LINES, header=st.booleans())
def test_a_headerless_integer_column_is_ranks_or_refused(
    lines: list[tuple[str, int]], header: bool
) -> None:
    text = "".join(f"{q}\td{i}\t{n}\n" for i, (q, n) in enumerate(lines))
    if header:
        text = "query_id\tdoc_id\tscore\n" + text
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.tsv"
        path.write_text(text)
        try:
            run = read_run_file(path)
        except AmbiguousFormatError as exc:
            event("refused")
            assert not header
            assert not _ranks(lines)
            message = exc.for_command_line()
            assert "--run-format msmarco" in message
            return
    scores = run.frame.get_column("score").to_list()
    if header:
        event("scores (header)")
        assert scores == [float(n) for _, n in lines]
        return
    event("ranks")
    assert _ranks(lines)
    assert scores == [1 / n for _, n in lines]
