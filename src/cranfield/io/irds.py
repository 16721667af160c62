"""An ir_datasets id where a qrels file is expected: the dataset's qrels, from the local cache.

The rule, applied where qrels are opened (:func:`cranfield.io.load.load_qrels`, the
judgments of an evaluation): a qrels given as a ``str`` that is **not an existing path** and
**looks like an ir_datasets id** (lowercase letters, digits, ``.``, ``_`` and ``-``, in
segments separated by ``/``, none starting with ``.``, ``_`` or ``-``, the last not ending in
a suffix of the files cranfield reads such as ``.txt``, ``.qrels`` or ``.gz``) is looked up in
ir_datasets' registry (the ``irds`` extra):

* a registered dataset with qrels (``msmarco-passage/trec-dl-2019/judged``): its qrels, read
  from ir_datasets' local cache (``IR_DATASETS_HOME``, by default ``~/.ir_datasets``) and
  **never downloaded**: every file the qrels are made from must be in the cache already (a
  download would still be refused while they are read). Each judgment's ``query_id``,
  ``doc_id``, ``relevance`` and ``iteration`` (``"0"`` when the dataset has none) become the
  rows of a :class:`~cranfield.data.qrels.Qrels` named by the id, checked and merged as any
  qrels table (:func:`~cranfield.io.columnar.qrels_from_frame`). Provenance names the id,
  the cached file and its SHA-256 (:func:`cached_file`);
* registered, but the qrels are not in the cache: an :class:`~cranfield.errors.InputError`
  with the command that fetches them (``ir_datasets export ID qrels``); a dataset without
  qrels: an :class:`~cranfield.errors.InputError` saying so;
* not registered: nothing of this module; the string is a path that cannot be read, with the
  error of any missing file;
* ir_datasets not installed: a :class:`ModuleNotFoundError` naming the ``irds`` extra (the
  string may be a mistyped file name: the message says it is no file).

The topics of an id (:func:`read_topics`, for ``cranfield judge init --topics ID``) follow
the same rule: read from the cache, never downloaded, or one error with the command that
fetches them (``ir_datasets export ID queries``).
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cranfield._lazy import require
from cranfield._types import DuplicatePolicy
from cranfield.errors import InputError

if TYPE_CHECKING:
    from cranfield.data.qrels import Qrels  # polars: imported when an id is read, not before
    from cranfield.io.documents import TopicRecord

__all__ = ["cached_file", "is_irds_id", "looks_like_id", "read_qrels", "read_topics"]

# Compiled on first use (re keeps them): a command given files never needs them.
_ID = r"[a-z0-9][a-z0-9._-]*(?:/[a-z0-9][a-z0-9._-]*)*"
_FILE_SUFFIX = (
    r"\.(txt|qrels|run|runs|res|trec|tsv|tab|csv|json|jsonl|ndjson|parquet|pq|gz|bz2|xz|zst|zstd)$"
)
_HASHED_AT_MOST = 64 << 20  # the cached file is hashed for provenance when it is this small
_CACHED: dict[str, tuple[str, str | None]] = {}  # id -> (cached file, its SHA-256), once read
_OFFLINE = threading.Lock()

# Where each piece of ir_datasets' file chain keeps the file it downloads or makes; a piece
# whose file exists is read from it, whatever it is made from.
_FILES = {
    "Download": "_cache_path",
    "LocalDownload": "_path",
    "Cache": "_path",
    "TarExtractAll": "_extract_path",
    "ReTar": "_output_file",
    "ZipExtractCache": "extract_path",
}
_DOWNLOADS = ("Download", "LocalDownload")


def looks_like_id(source: object) -> bool:
    """Whether ``source`` is a ``str`` that is no existing path and looks like an ir_datasets
    id, by the module's rule (nothing is imported to tell).

    >>> looks_like_id("msmarco-passage/trec-dl-2019/judged"), looks_like_id("qrels.txt")
    (True, False)
    """
    return (
        isinstance(source, str)
        and not os.path.lexists(source)
        and re.fullmatch(_ID, source) is not None
        and re.search(_FILE_SUFFIX, source) is None
    )


def is_irds_id(source: object) -> bool:
    """Whether ``source`` names a dataset registered with ir_datasets (by the module's rule).

    Raises
    ------
    ModuleNotFoundError
        When ``source`` looks like an id and ir_datasets is not installed.
    """
    if not looks_like_id(source):
        return False
    return _dataset(str(source)) is not None


def _dataset(dataset_id: str) -> Any:
    """The registered dataset ``dataset_id``, or ``None``."""
    require(
        ("ir_datasets",),
        "irds",
        f"{dataset_id!r} is no file; reading it as an ir_datasets id",
    )
    import ir_datasets

    try:
        return ir_datasets.load(dataset_id)
    except KeyError:
        return None


def read_qrels(
    dataset_id: str, *, name: str | None = None, duplicates: DuplicatePolicy = "merge"
) -> Qrels:
    """The qrels of the ir_datasets dataset ``dataset_id``, read from the local cache.

    Raises
    ------
    InputError
        When the dataset is not registered, has no qrels, or its qrels are not in the
        cache (the message says how to fetch them), or ir_datasets cannot read them.
    """
    from cranfield.io.columnar import qrels_from_frame

    dataset = _dataset(dataset_id)
    if dataset is None:
        raise InputError(dataset_id, None, "is neither a file nor an ir_datasets dataset")
    if not dataset.has_qrels():
        raise InputError(dataset_id, None, "is an ir_datasets dataset without qrels")
    handler = dataset.qrels_handler()
    present, absent = _files(handler, "qrels")
    if absent:
        raise _not_cached(dataset_id, "qrels")
    rows = _rows(dataset_id, "qrels", handler.qrels_iter)
    qrels = qrels_from_frame(
        _frame(rows), source_label=dataset_id, name=name or dataset_id, duplicates=duplicates
    )
    note = f"{dataset_id}: read from ir_datasets' local cache."
    _CACHED[dataset_id] = _provenance(present)
    from cranfield.data.qrels import Qrels

    return Qrels(qrels.frame, name=qrels.name, notes=(note, *qrels.notes))


def read_topics(dataset_id: str) -> tuple[TopicRecord, ...]:
    """The topics (queries) of the ir_datasets dataset ``dataset_id``, read from the local
    cache, in the dataset's order.

    A query's ``title`` is its ``title`` field, else its ``text``, else its
    ``default_text()``; ``description`` and ``narrative`` are the fields of those names
    (TREC's topics), else empty.

    Raises
    ------
    InputError
        When the dataset is not registered, has no queries, or they are not in the cache
        (the message says how to fetch them), or ir_datasets cannot read them.
    """
    dataset = _dataset(dataset_id)
    if dataset is None:
        raise InputError(dataset_id, None, "is neither a file nor an ir_datasets dataset")
    if not dataset.has_queries():
        raise InputError(dataset_id, None, "is an ir_datasets dataset without topics")
    handler = dataset.queries_handler()
    _present, absent = _files(handler, "queries")
    if absent:
        raise _not_cached(dataset_id, "queries")
    return tuple(_topic(q) for q in _rows(dataset_id, "queries", handler.queries_iter))


def _topic(query: Any) -> TopicRecord:
    """One query of ir_datasets as a topic (the rule of :func:`read_topics`)."""
    from cranfield.io.documents import TopicRecord

    def field(name: str) -> str:
        value = getattr(query, name, None)
        return value.strip() if isinstance(value, str) else ""

    title = field("title") or field("text")
    if not title and callable(getattr(query, "default_text", None)):
        title = str(query.default_text()).strip()
    return TopicRecord(str(query.query_id), title, field("description"), field("narrative"))


def cached_file(dataset_id: str) -> tuple[str, str | None] | None:
    """The file the qrels of ``dataset_id`` were read from in this process and its SHA-256
    (``None`` when they were made of several files, or of one too large to hash again), or
    ``None`` if they were not read here."""
    return _CACHED.get(dataset_id)


def _files(handler: Any, what: str) -> tuple[list[Path], list[str]]:
    """The files in the cache that ``handler``'s ``what`` (qrels, queries) are read from, and
    the downloads they would need (none when they are all cached)."""
    present: list[Path] = []
    absent: list[str] = []
    todo: list[Any] = [handler]
    seen: set[int] = set()
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, (list, tuple)):
            todo.extend(item)
            continue
        if not type(item).__module__.startswith("ir_datasets"):
            continue
        kind = type(item).__name__
        if kind == "Dataset":  # another dataset's (a filtered subset): only those
            todo.append(getattr(item, f"{what}_handler")())
            continue
        made = getattr(item, _FILES[kind], None) if kind in _FILES else None
        if made is not None and os.path.exists(made):
            present.append(Path(made))
        elif kind in _DOWNLOADS:
            absent.append(str(made))
        else:
            todo.extend(getattr(item, "__dict__", {}).values())
    return present, absent


def _not_cached(dataset_id: str, what: str) -> InputError:
    import ir_datasets

    home = ir_datasets.util.home_path()
    return InputError(
        dataset_id,
        None,
        f"is an ir_datasets dataset whose {what} are not in ir_datasets' local cache ({home}), "
        f"and cranfield never downloads; fetch them once with: ir_datasets export {dataset_id} "
        f"{what} > /dev/null",
    )


def _rows(dataset_id: str, what: str, iterate: Any) -> list[Any]:
    """Every record of ``iterate()`` (the dataset's ``what``), read with downloads refused."""
    refused: list[str] = []
    with _offline(refused):
        try:
            return list(iterate())
        except Exception as exc:
            if refused:
                raise _not_cached(dataset_id, what) from None
            raise InputError(
                dataset_id, None, f"ir_datasets could not read its {what} ({exc})"
            ) from exc


@contextlib.contextmanager
def _offline(refused: list[str]) -> Iterator[None]:
    """ir_datasets with its downloads refused (it reaches the network through
    ``ir_datasets.lazy_libs.requests`` only): a download tried is recorded in ``refused``;
    log records up to warnings are not shown meanwhile."""
    import logging  # here: the plain evaluate of a file imports no logging (issue 29)

    import ir_datasets

    libs = ir_datasets.lazy_libs

    def no_downloads() -> Any:
        refused.append("download")
        raise ConnectionRefusedError("cranfield reads ir_datasets' local cache only")

    with _OFFLINE:
        before, silenced = libs.requests, logging.root.manager.disable
        libs.requests = no_downloads
        # a refused download is one error of ours, not ir_datasets' log lines (its data-use
        # agreement, "download failed") before it
        logging.disable(max(silenced, logging.WARNING))
        try:
            yield
        finally:
            libs.requests = before
            logging.disable(silenced)


def _frame(rows: list[Any]) -> Any:
    """The judgments of ir_datasets (named tuples: ``query_id``, ``doc_id``, ``relevance``,
    maybe ``iteration``) as a qrels table."""
    import polars as pl

    return pl.DataFrame(
        {
            "query_id": [str(r.query_id) for r in rows],
            "iteration": [str(getattr(r, "iteration", "0")) for r in rows],
            "doc_id": [str(r.doc_id) for r in rows],
            "relevance": pl.Series([r.relevance for r in rows], strict=False),
        },
        schema_overrides={"query_id": pl.String, "iteration": pl.String, "doc_id": pl.String},
    )


def _provenance(present: list[Path]) -> tuple[str, str | None]:
    """The cached file of the qrels and its SHA-256 (``None``: several files, a folder, or a
    file too large to hash again cheaply)."""
    if len(present) != 1:
        return ", ".join(map(str, present)), None
    path = present[0]
    if not path.is_file() or path.stat().st_size > _HASHED_AT_MOST:
        return str(path), None
    import hashlib

    with open(path, "rb") as handle:
        return str(path), hashlib.file_digest(handle, "sha256").hexdigest()
