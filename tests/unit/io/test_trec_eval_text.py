"""trec_eval's text output format lives in the io layer, and both of its writers use it."""

from __future__ import annotations

import ast
import doctest
import importlib.util
import math
from pathlib import Path

import pytest

import cranfield
from cranfield.io import trec_eval_text
from cranfield.io.trec_eval_text import format_line, format_value

SRC = Path(cranfield.__file__).parent


@pytest.mark.parametrize(
    ("value", "integer", "shown"),
    [
        (0.25, False, "0.2500"),
        (1 / 3, False, "0.3333"),
        (12.0, False, "12.0000"),
        (7.9, True, "7"),
        (math.nan, False, "   nan"),
        (-math.nan, False, "  -nan"),
        (math.nan, True, "   nan"),
    ],
)
def test_format_value_as_c_printf(value: float, integer: bool, shown: str) -> None:
    assert format_value(value, integer=integer) == shown


def test_format_line_pads_the_label_to_22() -> None:
    assert format_line("P_10", "301", 0.5) == "P_10                  \t301\t0.5000"
    assert format_line("runid", "all", "STANDARD") == "runid                 \tall\tSTANDARD"
    long = "prefs_avgjg_Rnonrel_ret"
    assert format_line(long, "all", 1.0) == f"{long}\tall\t1.0000"


def test_examples_run() -> None:
    result = doctest.testmod(trec_eval_text)
    assert result.attempted > 0
    assert result.failed == 0


def test_the_report_module_is_gone() -> None:
    assert importlib.util.find_spec("cranfield.report.trec_eval_text") is None


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("module", ["evaluation/results.py", "compat/trec_eval.py"])
def test_the_writers_take_the_format_from_io(module: str) -> None:
    imports = _imports(SRC / module)
    assert "cranfield.io.trec_eval_text" in imports
    assert not [m for m in imports if m.startswith("cranfield.report")]


def test_the_format_imports_nothing_above_io() -> None:
    above = ("cranfield.kernels", "cranfield.measures", "cranfield.evaluation", "cranfield.report")
    assert not [m for m in _imports(SRC / "io" / "trec_eval_text.py") if m.startswith(above)]
