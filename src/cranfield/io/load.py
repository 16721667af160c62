"""Turn whatever the user hands us into :class:`Qrels` / :class:`Run`.

Accepted: a path or ``-`` (in any format of :mod:`cranfield.io.formats`, detected unless
``format`` is given), an existing
``Qrels``/``Run``, a polars or pandas DataFrame, a pyarrow Table, or a dict of dicts
``{query_id: {doc_id: value}}``. Inputs are never mutated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from cranfield._types import DuplicatePolicy, FileFormat
from cranfield.data.qrels import Qrels
from cranfield.data.run import Run
from cranfield.io import formats
from cranfield.io.columnar import (
    qrels_from_frame,
    qrels_from_mapping,
    run_from_frame,
    run_from_mapping,
    to_polars_frame,
)

QrelsLike = Qrels | str | Path | Any
RunLike = Run | str | Path | Any

First = TypeVar("First")
Second = TypeVar("Second")


def load_qrels(
    source: QrelsLike,
    *,
    name: str | None = None,
    duplicates: DuplicatePolicy = "merge",
    format: FileFormat | None = None,
) -> Qrels:
    """Judgments from a path, ``Qrels``, DataFrame, Arrow table or dict of dicts.

    A file is read in ``format``, or in the format detected
    (:func:`cranfield.io.formats.detect`). ``duplicates`` is the policy of
    :func:`~cranfield.io.trec.read_qrels` for a repeated (query, document) pair, in every
    form.
    """
    if isinstance(source, Qrels):
        return source
    if isinstance(source, (str, Path)):
        return formats.read_qrels(source, format=format, name=name, duplicates=duplicates)
    if isinstance(source, Mapping):
        return qrels_from_mapping(source, name=name or "qrels", duplicates=duplicates)
    label = f"<{type(source).__name__}>"
    frame = to_polars_frame(source, label=label)
    return qrels_from_frame(frame, source_label=label, name=name or "qrels", duplicates=duplicates)


def load_run(
    source: RunLike,
    *,
    name: str | None = None,
    format: FileFormat | None = None,
) -> Run:
    """A run from a path, ``Run``, DataFrame, Arrow table or dict of dicts; a file is read
    in ``format``, or in the format detected (:func:`cranfield.io.formats.detect`)."""
    if isinstance(source, Run):
        return source
    if isinstance(source, (str, Path)):
        return formats.read_run(source, format=format, name=name)
    if isinstance(source, Mapping):
        return run_from_mapping(source, name=name or "run")
    label = f"<{type(source).__name__}>"
    frame = to_polars_frame(source, label=label)
    return run_from_frame(frame, source_label=label, name=name or "run")


def side_by_side(first: Callable[[], First], second: Callable[[], Second]) -> tuple[First, Second]:
    """``first()`` and ``second()``, the second run on a thread while the first runs.

    For the qrels next to a large run: the qrels take 0.01-0.02 s, and a large run's
    reading starts slowly (a block read and parsed before any check), leaving a core free
    for them. When both fail, the error of ``first`` is raised (after ``second`` ends), as
    if they had run one after the other.
    """
    with ThreadPoolExecutor(1) as helper:
        pending = helper.submit(second)
        done = first()
        return done, pending.result()
