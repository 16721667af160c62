"""Immutable columnar judgments (:class:`Qrels`) and result lists (:class:`Run`)."""

from __future__ import annotations

import importlib
import typing

if typing.TYPE_CHECKING:
    from cranfield.data.qrels import Qrels
    from cranfield.data.run import Run

__all__ = ["Qrels", "Run"]

# Imported on first use: both need polars, which ranking small files does without.
_LAZY = {"Qrels": "cranfield.data.qrels", "Run": "cranfield.data.run"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cranfield.data' has no attribute {name!r}")
