"""Reading and writing judgments, runs and trec_eval output.

:func:`load_qrels` and :func:`load_run` read any format cranfield reads (and ``Qrels``, ``Run``,
frames and dicts); :func:`save_qrels` and :func:`save_run` write any of them, in the format
the file's suffix names. TREC text alone is read and written by :mod:`cranfield.io.trec`.
"""

from __future__ import annotations

import typing

from cranfield._deprecation import MovedName as _MovedName
from cranfield._lazy import lazy_names as _lazy_names

if typing.TYPE_CHECKING:
    from cranfield.io.load import load_qrels, load_run, save_qrels, save_run

__all__ = ["load_qrels", "load_run", "save_qrels", "save_run"]

# Imported on first use: they need polars, which reading small clean files does without.
_LAZY = {
    "load_qrels": "cranfield.io.load",
    "load_run": "cranfield.io.load",
    "save_qrels": "cranfield.io.load",
    "save_run": "cranfield.io.load",
}

# Until 0.2.0 these were cranfield.io.trec's TREC-only readers and writers; one public name
# per job now (issue 29): load_* and save_* for every format, cranfield.io.trec for TREC text.
_MOVED = (
    _MovedName(
        "cranfield.io",
        "read_qrels",
        "cranfield.load_qrels, or cranfield.io.trec.read_qrels for TREC text only",
        "cranfield.io.trec",
        "read_qrels",
    ),
    _MovedName(
        "cranfield.io",
        "read_run",
        "cranfield.load_run, or cranfield.io.trec.read_run for TREC text only",
        "cranfield.io.trec",
        "read_run",
    ),
    _MovedName(
        "cranfield.io",
        "write_qrels",
        "cranfield.save_qrels, or cranfield.io.trec.write_qrels for TREC text only",
        "cranfield.io.trec",
        "write_qrels",
    ),
    _MovedName(
        "cranfield.io",
        "write_run",
        "cranfield.save_run, or cranfield.io.trec.write_run for TREC text only",
        "cranfield.io.trec",
        "write_run",
    ),
)

__getattr__, __dir__ = _lazy_names(__name__, _LAZY, globals(), _MOVED)
