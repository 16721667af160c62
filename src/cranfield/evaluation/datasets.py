"""A run that is a Parquet dataset, scored on Dask: the same numbers, bit for bit, as
:meth:`Evaluator.evaluate <cranfield.evaluation.evaluator.Evaluator.evaluate>` of all its rows
in one table.

The real risk is a query split between two partitions: each part would be ranked and scored
as if it were the whole query, a plausible wrong number. So, in order:

1. **Query-complete partitions.** The data's own partitions are kept when they are by query
   (hive-partitioned by the query column, one partition per file; or sorted by a query index
   with known divisions); otherwise the rows are shuffled on the query id
   (``DataFrame.shuffle``), which sends every row of a query to one partition.
2. **Scored where they lie.** A module-level function is mapped over the partitions with
   one shared object sent to each worker once (for an evaluation,
   :func:`~cranfield.evaluation.evaluator.score_partition` and the evaluator, its qrels read
   and indexed once, here). Each partition is read, checked as any run table is
   (:mod:`cranfield.io.columnar`), ranked and scored on its worker with
   ``missing="skip"``; only what it holds comes back (:class:`~cranfield.evaluation.
   evaluator.PartitionScores`: every query id it had, judged or not, the per-query values
   of the judged ones, and the set measures' contingency counts pooled over its queries).
3. **Verified, not assumed.** A query id that came back from two partitions means the
   partitioning was not by query after all: the data's own partitions are then shuffled and
   scored again (said in the notes); after a shuffle it is an
   :class:`~cranfield.errors.EvaluationError`. Never a result from split queries.
4. **Assembled as one run** (by :meth:`Evaluator.evaluate_dataset
   <cranfield.evaluation.evaluator.Evaluator.evaluate_dataset>`). Queries in bytewise
   order; the missing-query policy applied over the whole run as ``evaluate`` does (under
   ``"zero"``, the judged queries no partition held are scored as ``evaluate`` scores them,
   empty rankings against their judgments, not taken to be 0); the overlap check; the micro
   averages from the summed counts (whole numbers: their sum is exact in any order).

Where the partitions are scored follows the engine (:func:`~cranfield.evaluation.engines.
engine_for`): ``jobs=1`` and no scheduler, dask's synchronous scheduler in this process (no
cluster to start, one partition in memory at a time); ``jobs=N``, a local Dask cluster of
``N`` worker processes started for the run; a scheduler, that cluster's workers, which must
all be able to read the dataset's files. A worker that dies is replaced and its partition
read again by Dask (up to the scheduler's ``allowed-failures``); then the evaluation ends
with an :class:`~cranfield.errors.EvaluationError`.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from cranfield.errors import EvaluationError
from cranfield.evaluation.engines import DaskCluster, InProcess, _recording, _replay

if TYPE_CHECKING:
    from cranfield.evaluation.engines import Caught, Engine
    from cranfield.io.parquet_dataset import ParquetDataset

__all__ = ["Partition", "Scored", "score_partitions"]


Partition = tuple[Any, int, int, str, str]
"""What a function mapped over a dataset's partitions is given beside the shared object:
``(rows, index, partitions, dataset label, run name)``, the rows a pandas DataFrame."""


class Scored(Protocol):
    """What a function mapped over the partitions returns: at least the query ids the
    partition held, to verify that no other partition held rows of them."""

    @property
    def held(self) -> tuple[str, ...]: ...


R = TypeVar("R", bound=Scored)
S = TypeVar("S")


# --------------------------------------------------------------------------- where


@contextmanager
def _client(engine: Engine) -> Iterator[tuple[Any, str]]:
    """The ``distributed.Client`` to score with (``None``: dask's synchronous scheduler) and
    how the notes name who scored."""
    if isinstance(engine, InProcess):
        yield None, "dask's synchronous scheduler in this process"
    elif isinstance(engine, DaskCluster):
        with engine.connected() as client:
            yield client, engine.describe()
    else:
        from distributed import Client, LocalCluster

        with (
            warnings.catch_warnings(),
            LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=engine.workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            ) as cluster,
            Client(cluster) as client,  # type: ignore[no-untyped-call]
        ):
            warnings.simplefilter("ignore", DeprecationWarning)
            yield client, f"a local Dask cluster of {engine.workers} worker processes"


def _query_complete(dataset: ParquetDataset, *, shuffle: bool, client: Any) -> Any:
    """The dataset's frame with partitions that hold whole queries: its own when they are by
    query (and ``shuffle`` is not asked), else shuffled on the query id."""
    frame = dataset.frame
    if dataset.by_query is not None and not shuffle:
        return frame
    query = dataset.query_column
    if frame.index.name == query:
        frame = frame.reset_index()
    # Tasks with the synchronous scheduler; Dask's default (peer to peer) on a cluster.
    return frame.shuffle(on=query, method="tasks" if client is None else None)


def _score_all(
    frame: Any,
    function: Callable[[S, Partition], R],
    shared: S,
    client: Any,
    label: str,
    name: str,
) -> list[R]:
    """``function(shared, partition)`` of every partition of ``frame`` where it lies, in
    partition order, the workers' warnings raised here.

    ``shared`` is one node of the graph, sent to the scheduler once and from worker to worker
    as the partitions need it (not scattered: a scattered object lost with its workers cannot
    be made again, a node of the graph can).
    """
    import uuid

    from dask.base import compute
    from dask.delayed import delayed

    parts = frame.to_delayed()
    sent = delayed(shared, name=f"cranfield-shared-{uuid.uuid4().hex}", traverse=False)
    tasks = [
        delayed(_recording, pure=False)(function, sent, (part, i, len(parts), label, name))
        for i, part in enumerate(parts)
    ]
    if client is None:
        with warnings.catch_warnings():
            # dask's Parquet reader calls pandas' reset_index(inplace=True), deprecated in
            # pandas 3.1: dask's to change, nothing a user of cranfield can.
            warnings.filterwarnings("ignore", "The inplace keyword", module=r"dask\.")
            done: list[tuple[R, Caught]] = list(
                compute(*tasks, scheduler="synchronous")  # type: ignore[no-untyped-call]
            )
    else:
        done = []
        for i, future in enumerate(client.compute(tasks)):
            try:
                done.append(future.result())
            except Exception as exc:
                if type(exc).__name__ in ("KilledWorker", "FutureCancelledError"):
                    raise EvaluationError(
                        f"the Dask workers given partition {i + 1} of {len(parts)} of {label} "
                        f"died repeatedly ({type(exc).__name__}); no result is given from "
                        f"part of the dataset."
                    ) from exc
                raise
    said: dict[tuple[str, type[Warning]], None] = {}
    for _, caught in done:
        said.update(dict.fromkeys(caught))
    _replay(list(said))
    return [scores for scores, _ in done]


def _split_query(parts: list[R]) -> tuple[str, int, int] | None:
    """A query held by two partitions (and their positions), or ``None``."""
    owner: dict[str, int] = {}
    for index, part in enumerate(parts):
        for query in part.held:
            first = owner.setdefault(query, index)
            if first != index:
                return query, first, index
    return None


def score_partitions(
    source: Any, function: Callable[[S, Partition], R], shared: S, *, name: str, engine: Engine
) -> tuple[ParquetDataset, list[R], str]:
    """``function(shared, partition)`` of every query-complete partition of the dataset
    ``source`` (:mod:`cranfield.io.parquet_dataset`), where it lies, as the module notes say;
    returns the dataset, the results in partition order and the sentence of the notes that
    says how many partitions and workers produced them.

    Raises
    ------
    InputError
        For a dataset that cannot be read (naming the file).
    EvaluationError
        When a query is still split between partitions after a shuffle, or the workers die
        repeatedly.
    """
    from cranfield.io.parquet_dataset import read_dataset

    dataset = read_dataset(source)
    how = dataset.by_query
    with _client(engine) as (client, who):
        frame = _query_complete(dataset, shuffle=False, client=client)
        parts = _score_all(frame, function, shared, client, dataset.label, name)
        split = _split_query(parts)
        if split is not None and how is not None:
            query, a, b = split
            how = (
                f"shuffled on {dataset.query_column}: the query {query!r} was in partitions "
                f"{a + 1} and {b + 1} although the dataset is {how}"
            )
            frame = _query_complete(dataset, shuffle=True, client=client)
            parts = _score_all(frame, function, shared, client, dataset.label, name)
            split = _split_query(parts)
        if split is not None:
            query, a, b = split
            raise EvaluationError(
                f"the query {query!r} of {dataset.label} is in partitions {a + 1} and {b + 1} "
                f"after a shuffle on {dataset.query_column}; no result is given from split "
                f"queries."
            )
    how = how or f"shuffled on {dataset.query_column}"
    files = f" of {dataset.files} files" if dataset.files else ""
    note = f"Scored as {len(parts)} query-complete partitions{files} ({how}) by {who}."
    return dataset, parts, note
