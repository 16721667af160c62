"""Turn whatever the user hands us into :class:`Qrels` / :class:`Run`.

Accepted: a path (TREC text, or Parquet by the ``.parquet`` suffix), an existing
``Qrels``/``Run``, a polars or pandas DataFrame, a pyarrow Table, or a dict of dicts
``{query_id: {doc_id: value}}``. Inputs are never mutated.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cranfield.data.qrels import Qrels
from cranfield.data.run import Run
from cranfield.io.columnar import (
    qrels_from_frame,
    qrels_from_mapping,
    read_parquet_qrels,
    read_parquet_run,
    run_from_frame,
    run_from_mapping,
    to_polars_frame,
)
from cranfield.io.trec import read_qrels, read_run

QrelsLike = Qrels | str | Path | Any
RunLike = Run | str | Path | Any


def _is_parquet(path: str | Path) -> bool:
    return str(path).endswith((".parquet", ".pq"))


def load_qrels(source: QrelsLike, *, name: str | None = None) -> Qrels:
    """Judgments from a path, ``Qrels``, DataFrame, Arrow table or dict of dicts."""
    if isinstance(source, Qrels):
        return source
    if isinstance(source, (str, Path)):
        if _is_parquet(source):
            return read_parquet_qrels(source, name=name)
        return read_qrels(source, name=name)
    if isinstance(source, Mapping):
        return qrels_from_mapping(source, name=name or "qrels")
    label = f"<{type(source).__name__}>"
    frame = to_polars_frame(source, label=label)
    return qrels_from_frame(frame, source_label=label, name=name or "qrels")


def load_run(source: RunLike, *, name: str | None = None) -> Run:
    """A run from a path, ``Run``, DataFrame, Arrow table or dict of dicts."""
    if isinstance(source, Run):
        return source
    if isinstance(source, (str, Path)):
        if _is_parquet(source):
            return read_parquet_run(source, name=name)
        return read_run(source, name=name)
    if isinstance(source, Mapping):
        return run_from_mapping(source, name=name or "run")
    label = f"<{type(source).__name__}>"
    frame = to_polars_frame(source, label=label)
    return run_from_frame(frame, source_label=label, name=name or "run")
