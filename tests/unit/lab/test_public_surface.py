"""The public surface of ``cranfield.lab``: a sorted ``__all__`` of importable names."""

from __future__ import annotations

import importlib


def test_public_surface_is_sorted_and_importable() -> None:
    lab = importlib.import_module("cranfield.lab")
    assert lab.__all__ == sorted(lab.__all__)
    for name in lab.__all__:
        assert getattr(lab, name) is not None
