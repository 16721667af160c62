"""The Examples sections of the lab modules run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "cranfield.lab",
    "cranfield.lab.collections",
    "cranfield.lab.efficiency",
    "cranfield.lab.experiment",
    "cranfield.lab.folds",
    "cranfield.lab.pooling",
    "cranfield.lab.systems",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


def test_public_surface_is_sorted_and_importable() -> None:
    lab = importlib.import_module("cranfield.lab")
    assert lab.__all__ == sorted(lab.__all__)
    for name in lab.__all__:
        assert getattr(lab, name) is not None
