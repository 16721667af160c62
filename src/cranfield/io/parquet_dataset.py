"""A run that lives in a data lake: a Parquet *dataset*, read lazily with dask.dataframe.

A dataset is given as

* a **folder** of Parquet files (``*.parquet`` or ``*.pq``; in sub-folders too, and
  hive-partitioned folders ``query_id=301/part.0.parquet`` are read as such); files and
  folders whose name starts with ``_`` or ``.`` (``_SUCCESS``, ``_metadata``, ``.crc``) are
  skipped, any other file is an error. A folder whose files are run files of another format
  is not a dataset but a set of runs (:func:`folder_runs` is the rule, stated in
  :mod:`cranfield.io.runset`);
* a **glob** of Parquet files (``lake/*.parquet``, ``**`` for sub-folders; no hive
  partitioning);
* a ``dask.dataframe.DataFrame``.

The columns are those a run table takes (:mod:`cranfield.io.columnar`: ``query_id``/``qid``,
``doc_id``/``docno``, ``score`` or ``rank`` ...). Before any row is read, the footer of every
file is read and the files must have the same columns with the same types; the first file
that differs, or that lacks a required column, is named. Hive partition values are read as
strings, as written (``query_id=001`` is the query ``001``, not ``1``). Only the run's
columns are read. The rows themselves are checked as any run table's are, partition by
partition, where they are scored (:mod:`cranfield.evaluation.datasets`).

:func:`read_dataset` says whether the partitions already hold whole queries (the dataset is
hive-partitioned by its query column, or sorted by a query index with known divisions);
whether they do is verified when they are scored, not assumed. A file is never cut into
several partitions (dask may read several small files as one).

Local paths (or shared storage mounted on every worker) only; pyarrow decodes the pages
(the per-file checks of :func:`~cranfield.io.columnar.read_parquet_run` beyond the footer's
schema are not made here: see SECURITY.md).
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cranfield._lazy import require
from cranfield.errors import InputError

# cranfield.io.columnar (and with it polars) is imported when a dataset is read, not to tell
# whether a run is one: `cranfield evaluate` on small clean files never imports polars.

__all__ = ["ParquetDataset", "folder_runs", "is_dataset", "query_ids", "read_dataset"]

SUFFIXES = (".parquet", ".pq")
"""The names of the Parquet files of a dataset folder."""

_GLOB = frozenset("*?[")


@dataclass(frozen=True)
class ParquetDataset:
    """A run as a Parquet dataset, not read yet.

    Attributes
    ----------
    label:
        How messages name it (its folder, glob, or ``<dask DataFrame>``).
    frame:
        The ``dask.dataframe.DataFrame`` of its run columns (the query column possibly its
        index).
    columns:
        ``{field: column}``: the run's columns (:func:`~cranfield.io.columnar.run_columns`).
    by_query:
        Why its partitions already hold whole queries (``"hive-partitioned by query_id"``),
        or ``None``: they must be shuffled on the query id.
    files:
        How many Parquet files it has (0 for a DataFrame given in Python).
    paths:
        The files, in the order of the frame's partitions, when each partition is one of
        them (no hive folders, one partition a file); empty otherwise.
    """

    label: str
    frame: Any
    columns: dict[str, str]
    by_query: str | None
    files: int
    paths: tuple[str, ...] = ()

    @property
    def query_column(self) -> str:
        """The column (or index) that holds the query ids."""
        return self.columns["query_id"]


def is_dask_frame(source: object) -> bool:
    """Whether ``source`` is a ``dask.dataframe.DataFrame`` (dask is not imported to tell)."""
    return type(source).__module__.startswith("dask") and hasattr(source, "npartitions")


def is_dataset(source: object) -> bool:
    """Whether a run given as ``source`` is a Parquet dataset: a folder that is not a folder
    of run files (:func:`folder_runs`), a glob that names no existing file, or a
    ``dask.dataframe.DataFrame``.

    Raises
    ------
    InputError
        For a folder that holds both Parquet files and other files (:func:`folder_runs`).
    """
    if isinstance(source, (str, Path)):
        text = str(source)
        if text == "-":
            return False
        if os.path.isdir(text):
            return folder_runs(text) is None
        return bool(_GLOB & set(text)) and not os.path.exists(text)
    return is_dask_frame(source)


def folder_runs(folder: str | Path) -> tuple[str, ...] | None:
    """The run files of ``folder`` when it is a folder of runs; ``None`` when it is a Parquet
    dataset. The rule, on the entries of the folder itself (names starting with ``.`` or
    ``_`` skipped, as in a dataset):

    * Parquet files (``*.parquet``, ``*.pq``) or hive partitions (sub-folders ``key=value``),
      and no other file: a Parquet dataset;
    * other files, and neither Parquet files nor hive partitions: a folder of runs, one run
      per file, sorted by name (each path is ``folder`` joined with the file's name);
      sub-folders are not looked into;
    * neither (an empty folder, or sub-folders only): a dataset, whose reader looks into the
      sub-folders and says what it finds.

    Raises
    ------
    InputError
        For a folder that holds both, naming one file of each kind.
    """
    parquet: list[str] = []
    others: list[str] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            name = entry.name
            if name.startswith(("_", ".")):
                continue
            if entry.is_dir():
                if "=" in name:
                    parquet.append(name)
            elif name.endswith(SUFFIXES):
                parquet.append(name)
            else:  # a file, or a link or pipe (read as a run, it says what it is)
                others.append(name)
    if parquet and others:
        raise InputError(
            str(folder),
            None,
            f"holds Parquet files ({min(parquet)}) and other files ({min(others)}): a folder "
            "given as runs is either a Parquet dataset or a folder of run files; move one kind "
            "out, or give the files",
        )
    if parquet or not others:
        return None
    return tuple(os.path.join(folder, name) for name in sorted(others))


def read_dataset(source: Any) -> ParquetDataset:
    """``source`` (a folder, a glob or a ``dask.dataframe.DataFrame``) as a lazy dataset, its
    files' footers checked.

    Raises
    ------
    InputError
        For a folder or glob without Parquet files, a file that is not Parquet in a dataset
        folder, files whose columns differ, or a required column missing, naming the file.
    ModuleNotFoundError
        Without the ``dask`` extra.
    """
    require(("dask.dataframe", "pyarrow"), "dask", "a Parquet dataset run")
    from cranfield.io.columnar import run_columns

    if is_dask_frame(source):
        return _given(source)
    label = str(source)
    if os.path.isdir(label):
        files = _folder_files(Path(label))
        keys = _hive_keys(files, Path(label))
    else:
        files = sorted(Path(p) for p in glob.glob(label, recursive=True) if os.path.isfile(p))
        keys = []
        if not files:
            raise InputError(label, None, "matches no Parquet file")
    names, index, in_files = _footers(files, keys)
    columns = run_columns(names, str(files[0]))
    return _read(label, files, keys, columns, index, in_files=in_files)


def _given(frame: Any) -> ParquetDataset:
    """A ``dask.dataframe.DataFrame`` given in Python: its run columns (a named index
    counts as a column)."""
    from cranfield.io.columnar import run_columns

    label = "<dask DataFrame>"
    index = frame.index.name
    names = [*map(str, frame.columns), *([str(index)] if index is not None else [])]
    columns = run_columns(names, label)
    query = columns["query_id"]
    by_query = None
    if query == index and frame.known_divisions:
        by_query = f"sorted by its {query} index (known divisions)"
    kept = [c for c in columns.values() if c != index]
    return ParquetDataset(label, frame[kept], columns, by_query, 0)


def _folder_files(folder: Path) -> list[Path]:
    """The Parquet files under ``folder`` (hidden and ``_`` names skipped), sorted."""
    files: list[Path] = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")))
        for name in sorted(names):
            if name.startswith(("_", ".")):
                continue
            path = Path(root) / name
            if not name.endswith(SUFFIXES):
                raise InputError(
                    str(path),
                    None,
                    f"is in the dataset folder {folder} but is not a Parquet file (its name "
                    f"does not end in {' or '.join(SUFFIXES)}); move it out, or give a glob "
                    f"of the Parquet files",
                )
            files.append(path)
    if not files:
        raise InputError(
            str(folder),
            None,
            f"holds no Parquet files (a dataset folder holds files named "
            f"*{' or *'.join(SUFFIXES)}, in sub-folders key=value when hive-partitioned)",
        )
    return files


def _hive_keys(files: list[Path], folder: Path) -> list[str]:
    """The hive partition keys of the files' folders (``query_id=301`` gives ``query_id``),
    the same for every file, or none."""
    found: list[list[str]] = []
    for path in files:
        parts = path.relative_to(folder).parts[:-1]
        found.append([p.partition("=")[0] for p in parts if "=" in p])
    first = found[0]
    for path, keys in zip(files, found, strict=True):
        if keys != first:
            raise InputError(
                str(path),
                None,
                f"lies in folders partitioned by {', '.join(keys) or 'nothing'}, but "
                f"{files[0]} in folders partitioned by {', '.join(first) or 'nothing'}",
            )
    return first


def _footers(files: list[Path], keys: list[str]) -> tuple[list[str], str | None, bool]:
    """The columns of the files (the same in each, with the same types) and the hive keys;
    the pandas index column the files were written with, if exactly one; whether the files
    hold the hive keys' columns too (as polars writes them)."""
    import pyarrow.parquet as pq

    from cranfield.io.columnar import _unreadable

    first: Any = None
    for path in files:
        try:
            schema = pq.read_schema(path)
        except (OSError, ValueError, TypeError) as exc:  # pyarrow's errors derive from these
            raise _unreadable(str(path), exc) from exc
        if first is None:
            first = schema
            continue
        if set(schema.names) != set(first.names):
            raise InputError(
                str(path),
                None,
                f"has the columns {', '.join(schema.names)}, but {files[0]} has "
                f"{', '.join(first.names)}: the files of a dataset have the same columns",
            )
        for field in schema:
            other = first.field(field.name).type
            if field.type != other:
                raise InputError(
                    str(path),
                    None,
                    f"its {field.name} column has type {field.type}, but {files[0]}'s has "
                    f"type {other}: the files of a dataset have the same column types",
                )
    overlap = [k for k in keys if k in first.names]
    if overlap and overlap != keys:
        raise InputError(
            str(files[0]),
            None,
            f"holds the column {overlap[0]} that its folders are partitioned by, but not "
            f"{next(k for k in keys if k not in overlap)}",
        )
    meta = first.pandas_metadata or {}
    index = meta.get("index_columns") or []
    named = index[0] if len(index) == 1 and isinstance(index[0], str) else None
    return [*first.names, *(k for k in keys if k not in overlap)], named, bool(overlap)


def _read(
    label: str,
    files: list[Path],
    keys: list[str],
    columns: dict[str, str],
    index: str | None,
    *,
    in_files: bool,
) -> ParquetDataset:
    """The lazy frame of the run columns; hive keys read as strings from the folder names,
    or from the files when they hold them (``in_files``)."""
    import dask.dataframe as dd
    import pyarrow as pa
    import pyarrow.dataset as ds

    from cranfield.io.columnar import _unreadable

    query = columns["query_id"]
    options: dict[str, Any] = {"split_row_groups": False}  # a file is never cut
    by_query = None
    if keys:
        schema = pa.schema([(k, pa.string()) for k in keys])
        partitioning = None if in_files else ds.partitioning(schema, flavor="hive")
        options["dataset"] = {"partitioning": partitioning}
        target: Any = label
        if query in keys:
            by_query = f"hive-partitioned by {query}"
    else:
        target = [str(p) for p in files]
    if index == query:
        options.update(index=query, calculate_divisions=True)
        wanted = [c for c in columns.values() if c != query]
    else:
        options["index"] = False
        wanted = list(columns.values())
    try:
        frame = dd.read_parquet(target, columns=wanted, **options)
    except (OSError, ValueError, TypeError) as exc:  # pyarrow's errors derive from these
        raise _unreadable(label, exc) from exc
    if index == query and frame.known_divisions:
        by_query = f"sorted by its {query} index (known divisions)"
    paths = tuple(target) if isinstance(target, list) and frame.npartitions == len(files) else ()
    return ParquetDataset(label, frame, columns, by_query, len(files), paths)


def query_ids(path: str, column: str) -> list[Any]:
    """The distinct values of the query column of the Parquet file ``path``, that column
    alone read (a fraction of the file's bytes)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from cranfield.io.columnar import _unreadable

    try:
        values = pq.read_table(path, columns=[column]).column(0)
    except (OSError, ValueError, TypeError) as exc:  # pyarrow's errors derive from these
        raise _unreadable(path, exc) from exc
    return list(pc.unique(values).to_pylist())
