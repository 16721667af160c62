"""Reading and writing judgments, runs and trec_eval output."""

from __future__ import annotations

import importlib
import typing

if typing.TYPE_CHECKING:
    from cranfield.io.load import load_qrels, load_run
    from cranfield.io.trec import read_qrels, read_run, write_qrels, write_run

__all__ = ["load_qrels", "load_run", "read_qrels", "read_run", "write_qrels", "write_run"]

# Imported on first use: they need polars, which reading small clean files does without.
_LAZY = {
    "load_qrels": "cranfield.io.load",
    "load_run": "cranfield.io.load",
    "read_qrels": "cranfield.io.trec",
    "read_run": "cranfield.io.trec",
    "write_qrels": "cranfield.io.trec",
    "write_run": "cranfield.io.trec",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cranfield.io' has no attribute {name!r}")
