"""The Examples sections of the stats and report modules run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "cranfield.stats.comparison",
    "cranfield.stats.corrections",
    "cranfield.stats.effects",
    "cranfield.stats.histogram",
    "cranfield.stats.paired",
    "cranfield.stats.resampling",
    "cranfield.report.comparison",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
