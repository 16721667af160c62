"""Immutable columnar judgments (:class:`Qrels`) and result lists (:class:`Run`)."""

from __future__ import annotations

import typing

from cranfield._lazy import lazy_names as _lazy_names

if typing.TYPE_CHECKING:
    from cranfield.data.qrels import Qrels
    from cranfield.data.run import Run

__all__ = ["Qrels", "Run"]

# Imported on first use: both need polars, which ranking small files does without.
_LAZY = {"Qrels": "cranfield.data.qrels", "Run": "cranfield.data.run"}


__getattr__, __dir__ = _lazy_names(__name__, _LAZY, globals())
