"""The readers of :mod:`cranfield.io.prefs` (``-R prefs``, ``-R qrels_jg``): numbers at and
beyond the edges. The measures and the other reader cases are in ``unit/kernels/test_prefs.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from cranfield.errors import InputError
from cranfield.io.prefs import read_prefs, read_qrels_jg

BIG = 2**63


def _put(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "judged.txt"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("rel", "value"),
    [
        (str(BIG - 1), BIG - 1),
        (str(-BIG), -BIG),
        ("+0007", 7),
        ("0" * 5000 + "3", 3),  # more digits than int() takes, but a small number
    ],
)
def test_qrels_jg_relevance_at_the_64_bit_edges(tmp_path: Path, rel: str, value: int) -> None:
    frame = read_qrels_jg(_put(tmp_path, f"1 u d {rel}\n"))
    assert frame.get_column("relevance").to_list() == [value]


@pytest.mark.parametrize("rel", [str(BIG), str(-BIG - 1), "99999999999999999999999", "9" * 5000])
def test_qrels_jg_relevance_beyond_64_bits_names_file_and_line(tmp_path: Path, rel: str) -> None:
    path = _put(tmp_path, f"# judgments\n1 u a 1\n1 u b {rel}\n")
    with pytest.raises(InputError) as info:
        read_qrels_jg(path)
    assert (info.value.source, info.value.line) == (str(path), 3)
    assert str(info.value).startswith(
        f"{path}:3: relevance does not fit in a 64-bit integer: '1 u b {rel[:20]}"
    )
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("level", "value"),
    [("99999999999999999999999", 1e23), ("1e400", float("inf")), ("9" * 5000, float("inf"))],
)
def test_prefs_levels_are_doubles_as_for_trec_eval(
    tmp_path: Path, level: str, value: float
) -> None:
    # trec_eval reads rel_level with atof: a huge level is a huge double, not an error.
    frame = read_prefs(_put(tmp_path, f"1 u s a {level}\n1 u s b 0\n"))
    assert frame.get_column("rel_level").to_list() == [value, 0.0]
