"""The Examples sections of the plotting, HTML and command-line modules run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "cranfield.plot",
    "cranfield.report.plots",
    "cranfield.report.html",
    "cranfield.report.numbers",
    "cranfield.cli.parser",
    "cranfield.cli.plot",
    "cranfield.cli.report",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0
