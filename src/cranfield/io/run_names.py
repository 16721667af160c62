"""The run-naming rule, stated once: how every command and function names a run.

Used by :class:`~cranfield.io.runset.RunSet` (several runs) and by the readers (a run read
alone carries the same name):

* a run in a ``{name: run}`` mapping is called by its key;
* a run file is called by its file name without folders, a compression suffix (``.gz``,
  ``.bz2``, ``.xz``, ``.zst``) and a run-file suffix (``.txt``, ``.run``, ``.qrels``, ``.res``, ``.trec``,
  ``.tsv``, ``.csv``, ``.json``, ``.jsonl``, ``.parquet`` ...): ``runs/input.pircRBa1.gz`` is
  ``input.pircRBa1``, ``bm25.json.gz`` is ``bm25``; standard
  input (``-``) is ``stdin``;
* a :class:`~cranfield.data.run.Run` keeps its name (:func:`cranfield.load_run` names it by
  the rule above), and so does a ranx ``Run`` (its ``name``, when it has one);
* any other in-memory run (a DataFrame, a dict) is ``run1``, ``run2`` ... by its position;
* two run files with the same name in different folders are told apart by as many parent
  folders as it takes (``a/bm25``, ``b/bm25``);
* ``names="tag"`` names each run by its run tag instead, and a list names them explicitly.

Two runs may never share a name: an :class:`~cranfield.errors.OptionError` says which.
Qrels files compared side by side (``cranfield agree``, ``correlate --qrels-b``) are named
by the same rule.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from cranfield.errors import OptionError
from cranfield.io.source import same_file

__all__ = ["default_name", "file_names", "run_name"]

_COMPRESSION = re.compile(r"\.(gz|bz2|xz|zst|zstd)$")
_RUN_SUFFIX = re.compile(r"\.(txt|run|runs|qrels|trec|res|tsv|csv|json|jsonl|ndjson|parquet|pq)$")


def run_name(source: str | Path) -> str:
    """The name of a run file by the naming rule: ``runs/bm25.txt.gz`` -> ``bm25``.

    >>> run_name("runs/input.pircRBa1.gz"), run_name("bm25.run"), run_name("-")
    ('input.pircRBa1', 'bm25', 'stdin')
    """
    if str(source) == "-":
        return "stdin"
    base = Path(source).name
    stem = _RUN_SUFFIX.sub("", _COMPRESSION.sub("", base))
    return stem or base


def _is_path(source: object) -> bool:
    return isinstance(source, (str, Path))


def default_name(source: Any, position: int | None = None) -> str:
    """The rule's name of one run given without a name, at ``position`` in its list
    (``None``: a run given alone, which is called ``run``)."""
    if _is_path(source):
        return run_name(source)
    from cranfield.data.run import Run  # polars: not needed to name files

    if isinstance(source, Run):
        return source.name
    from cranfield.io.peers import peer_name

    named = peer_name(source)  # a ranx Run keeps its name
    if named is not None:
        return named
    return "run" if position is None else f"run{position + 1}"


def file_names(items: list[Any], *, option: str = "runs", kind: str = "runs") -> tuple[str, ...]:
    """Names by the rule, with same-named files told apart by their folders.

    ``option`` names the option (or argument) that gave the files and ``kind`` what they are,
    for the error when one file is given twice (qrels files compared side by side are named
    by the same rule: ``option="qrels", kind="qrels files"``).
    """
    names = [default_name(r, i) for i, r in enumerate(items)]
    for _ in range(64):  # each round adds one folder to the files that still collide
        clashes = {n for n in names if names.count(n) > 1}
        if not clashes:
            break
        grown = False
        for i, source in enumerate(items):
            if names[i] in clashes and _is_path(source):
                parts = Path(os.path.normpath(os.path.abspath(source))).parent.parts
                depth = names[i].count("/") + 1
                if depth <= len(parts) - 1:
                    names[i] = "/".join((*parts[len(parts) - depth :], run_name(source)))
                    grown = True
        if not grown:
            break
    for i, source in enumerate(items):
        if names.count(names[i]) > 1 and _is_path(source):
            twins = [
                j for j, other in enumerate(items) if _is_path(other) and same_file(other, source)
            ]
            if len(twins) > 1:
                raise OptionError(option, f"distinct {kind}, each given once", str(source))
    return tuple(names)
