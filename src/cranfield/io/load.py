"""Turn whatever the user hands us into :class:`Qrels` / :class:`Run`, and write them back.

Accepted: a path or ``-`` (in any format of :mod:`cranfield.io.formats`, detected unless
``format`` is given), an existing
``Qrels``/``Run``, a polars or pandas DataFrame, a pyarrow Table, or a dict of dicts
``{query_id: {doc_id: value}}``. Inputs are never mutated.

:func:`load_qrels` and :func:`load_run` are the public readers (``cranfield.load_run``);
:func:`save_qrels` and :func:`save_run` the public writers, in any format of
:mod:`cranfield.io.formats`. TREC text alone is read and written by :mod:`cranfield.io.trec`.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from cranfield._types import DuplicatePolicy, FileFormat
from cranfield.data.qrels import Qrels
from cranfield.data.run import Run
from cranfield.errors import OptionError
from cranfield.io import formats, irds
from cranfield.io.columnar import (
    qrels_from_frame,
    qrels_from_mapping,
    run_from_frame,
    run_from_mapping,
    to_polars_frame,
)
from cranfield.io.peers import peer_mapping, peer_name

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
    """Judgments from a path, ``Qrels``, DataFrame, Arrow table, dict of dicts or ranx
    ``Qrels`` (:mod:`cranfield.io.peers`), or the id of
    an ir_datasets dataset (``"msmarco-passage/trec-dl-2019/judged"``: read from its local
    cache, never downloaded; :mod:`cranfield.io.irds` says when a string is one).

    A file is read in ``format``, or in the format detected
    (:func:`cranfield.io.formats.detect`). ``duplicates`` is the policy of
    :func:`~cranfield.io.trec.read_qrels` for a repeated (query, document) pair, in every
    form.
    """
    if isinstance(source, Qrels):
        return source
    if isinstance(source, (str, Path)):
        if irds.is_irds_id(source):  # no such file, but an ir_datasets id (cranfield.io.irds)
            return irds.read_qrels(str(source), name=name, duplicates=duplicates)
        return formats.read_qrels_file(source, format=format, name=name, duplicates=duplicates)
    peer = peer_mapping(source, "qrels")  # ranx's Qrels: its dict of dicts
    if peer is not None:
        return qrels_from_mapping(peer, name=name or "qrels", duplicates=duplicates)
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
    """A run from a path, ``Run``, DataFrame, Arrow table, dict of dicts or ranx ``Run``
    (keeping its name; :mod:`cranfield.io.peers`); a file is read
    in ``format``, or in the format detected (:func:`cranfield.io.formats.detect`)."""
    if isinstance(source, Run):
        return source
    if isinstance(source, (str, Path)):
        return formats.read_run_file(source, format=format, name=name)
    peer = peer_mapping(source, "run")  # ranx's Run: its dict of dicts and its name
    if peer is not None:
        return run_from_mapping(peer, name=name or peer_name(source) or "run")
    if isinstance(source, Mapping):
        return run_from_mapping(source, name=name or "run")
    label = f"<{type(source).__name__}>"
    frame = to_polars_frame(source, label=label)
    return run_from_frame(frame, source_label=label, name=name or "run")


def save_qrels(qrels: QrelsLike, path: str | Path, *, format: FileFormat | None = None) -> None:
    """Write judgments to the file ``path`` in ``format``: by default the format its suffix
    names (:func:`~cranfield.io.formats.format_of_suffix`: ``.csv``, ``.jsonl``, ``.parquet``
    ...), TREC text for any other name. The file is written whole or not at all.

    ``qrels`` is anything :func:`load_qrels` reads. What a format cannot hold is not written
    (:func:`~cranfield.io.formats.left_out` says what; ``cranfield convert`` prints it).

    Raises
    ------
    OptionError
        For a ``format`` cranfield does not write, a name ending in a compression suffix
        (files are written uncompressed), or MS MARCO qrels of labels other than 1.
    InputError
        If an id cannot be written in a line format (TREC, MS MARCO); nothing is written.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.csv"
    >>> save_qrels({"q1": {"d1": 2, "d2": 0}}, path)
    >>> print(path.read_text(), end="")
    query_id,doc_id,relevance
    q1,d1,2
    q1,d2,0
    >>> load_qrels(path).frame.get_column("relevance").to_list()
    [2, 0]
    """
    formats.write(load_qrels(qrels), path, written_format(path, format))


def save_run(run: RunLike, path: str | Path, *, format: FileFormat | None = None) -> None:
    """Write a run to the file ``path`` in ``format``: by default the format its suffix names
    (as :func:`save_qrels`), TREC text for any other name (``.txt``, ``.run``, or none),
    ranked as trec_eval ranks it. The file is written whole or not at all.

    ``run`` is anything :func:`load_run` reads. What a format cannot hold is not written: an
    MS MARCO run keeps the ranking but not the scores, and only TREC and Parquet keep the run
    tag (:func:`~cranfield.io.formats.left_out`).

    Raises
    ------
    OptionError
        For a ``format`` cranfield does not write, or a name ending in a compression suffix.
    InputError
        If an id or the tag cannot be written in a line format; nothing is written.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "bm25.run"
    >>> save_run({"q1": {"d1": 1.5, "d2": 2.5}}, path)
    >>> print(path.read_text(), end="")
    q1 Q0 d2 1 2.5 run
    q1 Q0 d1 2 1.5 run
    >>> load_run(path).name
    'bm25'
    """
    formats.write(load_run(run), path, written_format(path, format))


def written_format(path: str | Path, format: FileFormat | None) -> FileFormat:
    """The format a file written to ``path`` takes (``format``, else its suffix's, else TREC).

    Raises
    ------
    OptionError
        No ``format`` given for a name ending in a compression suffix.
    """
    if format is not None:
        return format
    name = str(path).lower()
    if name.endswith(formats.COMPRESSION_SUFFIXES):
        raise OptionError(
            "path",
            "a file name without a compression suffix (files are written uncompressed)",
            str(path),
        )
    return formats.format_of_suffix(path) or "trec"


def side_by_side(first: Callable[[], First], second: Callable[[], Second]) -> tuple[First, Second]:
    """``first()`` and ``second()``, the second run on a thread while the first runs.

    For the qrels next to a large run: the qrels take 0.01-0.02 s, and a large run's
    reading starts slowly (a block read and parsed before any check), leaving a core free
    for them. When both fail, the error of ``first`` is raised (after ``second`` ends), as
    if they had run one after the other.
    """
    with ThreadPoolExecutor(1) as helper:
        pending = helper.submit(contextvars.copy_context().run, second)  # this thread's settings
        done = first()
        return done, pending.result()
