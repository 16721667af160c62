"""cranfield.io.folds.read_folds: the fold file of ``cranfield lab folds`` read back."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from cranfield.errors import InputError
from cranfield.io.folds import read_folds
from cranfield.lab import kfold

if TYPE_CHECKING:
    from pathlib import Path


def test_what_lab_folds_writes_reads_back(tmp_path: Path) -> None:
    folds = kfold([f"q{i}" for i in range(7)], 3, seed=5)
    path = tmp_path / "folds.tsv"
    path.write_text(
        "# made by lab folds\n"
        + "".join(f"{i}\t{' '.join(f)}\n" for i, f in enumerate(folds))
        + "\n"
    )
    assert read_folds(path) == folds
    path.write_text("".join(f"{' '.join(f)}\n" for f in folds))  # ids alone, no numbers
    assert read_folds(path) == folds


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ("1\tq1\n0\tq2\n", ":1:", "expected the fold number 0, a tab and its queries"),
        ("q1\n0\tq2\n", ":2:", "expected the fold number 1"),
        ("0\tq1\n1\t\n", ":2:", "a fold without queries"),
        ("0\tq1 q2\n1\tq2\n", ":2:", "puts query 'q2' in a second fold (line 1)"),
        ("0\tq1 q2\n", "", "at least 2 folds, found 1"),
    ],
)
def test_a_damaged_fold_file_is_one_sentence(
    tmp_path: Path, text: str, where: str, words: str
) -> None:
    path = tmp_path / "folds.tsv"
    path.write_text(text)
    with pytest.raises(InputError) as exc:
        read_folds(path)
    assert f"{path}{where}" in str(exc.value)
    assert words in str(exc.value)
