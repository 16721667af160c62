"""The arrays of a click log: checked at the entry point, with the click ranks derived."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.errors import InputError
from cranfield.logs.click_models import PBM, click_arrays


def test_derived_click_ranks() -> None:
    log = click_arrays(
        [0, 1, 2],
        [[5, 6, 7, 8], [5, 6, -1, -1], [7, 8, 5, 6]],
        [[0, 1, 0, 1], [0, 0, 0, 0], [1, 0, 1, 0]],
    )
    assert log.first_click.tolist() == [1, -1, 0]
    assert log.last_click.tolist() == [3, -1, 2]
    assert log.previous_click.tolist() == [[-1, -1, 1, 1], [-1, -1, -1, -1], [-1, 0, 0, 2]]
    assert log.valid.sum() == 10
    assert log.depth == 4


@pytest.mark.parametrize(
    ("query", "shown", "clicked", "message"),
    [
        ([0], [1, 2], [1, 0], "shown: expected a 2-d array, got shape (2,)"),
        ([[0]], [[1, 2]], [[1, 0]], "query: expected a 1-d array"),
        ([0, 1], [[1, 2]], [[1, 0]], "shown: expected 2 rows (one per query), got 1"),
        ([0], [[1, 2]], [[1, 0, 0]], "clicked: expected shape (1, 2) like shown, got (1, 3)"),
        ([0], [[1.5, 2]], [[1, 0]], "shown: expected integer codes, got dtype float64"),
        ([0, -3], [[1, 2], [1, 2]], [[1, 0], [0, 0]], "query:2: a query code must be in"),
        ([0, 0], [[1, 2], [-2, 2]], [[1, 0], [0, 0]], "shown:2: a document code must be -1"),
        ([0, 0], [[1, 2], [-1, 2]], [[1, 0], [0, 0]], "shown:2: a shown result follows a -1"),
        ([0, 0], [[1, 2], [1, -1]], [[1, 0], [0, 1]], "clicked:2: a click on a rank where no"),
        ([0], [[1, 2]], [[2, 0]], "clicked: expected bool or 0/1, got dtype int64"),
        (
            [0],
            np.zeros((1, 0), dtype=np.int64),
            np.zeros((1, 0), bool),
            "shown: expected at least one",
        ),
    ],
)
def test_bad_arrays_name_the_array_and_the_session(
    query: object, shown: object, clicked: object, message: str
) -> None:
    with pytest.raises(InputError) as caught:
        click_arrays(query, shown, clicked)  # type: ignore[arg-type]
    assert str(caught.value).startswith(message)


def test_models_check_their_arrays_and_options() -> None:
    with pytest.raises(InputError, match=r"^clicked: expected shape"):
        PBM.fit([0], [[1, 2]], [[1]])
    with pytest.raises(ValueError, match=r"The 'prior' option must be a number > 0 and < 1"):
        PBM.fit([0], [[1, 2]], [[1, 0]], prior=1.0)
    with pytest.raises(ValueError, match=r"The 'max_iterations' option must be an integer >= 1"):
        PBM.fit([0], [[1, 2]], [[1, 0]], max_iterations=0)
    with pytest.raises(ValueError, match=r"The 'tolerance' option must be a number >= 0"):
        PBM.fit([0], [[1, 2]], [[1, 0]], tolerance=-1.0)
