"""Reading and writing judgments, runs and trec_eval output."""

from __future__ import annotations

import typing

from cranfield._lazy import lazy_names as _lazy_names

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


__getattr__, __dir__ = _lazy_names(__name__, _LAZY, globals())
