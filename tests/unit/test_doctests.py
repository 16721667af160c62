"""The Examples sections of the core modules run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "cranfield",
    "cranfield.errors",
    "cranfield.evaluation.evaluator",
    "cranfield.evaluation.streaming",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name: str) -> None:
    result = doctest.testmod(
        importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted > 0
    assert result.failed == 0
