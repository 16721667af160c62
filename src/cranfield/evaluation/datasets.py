"""A run that is a Parquet dataset, scored on Dask: the same numbers, bit for bit, as
:meth:`Evaluator.evaluate <cranfield.evaluation.evaluator.Evaluator.evaluate>` of all its rows
in one table.

The real risk is a query split between two partitions: each part would be ranked and scored
as if it were the whole query, a plausible wrong number. So, in order:

1. **Query-complete partitions.** The data's own partitions are kept when they are by query
   (hive-partitioned by the query column, one partition per file; or sorted by a query index
   with known divisions). Otherwise the query column alone is read first, and the query ids
   found in two partitions decide: none, the partitions are kept; a few (at most one per
   partition, as in a run written in query order and cut into files), the rows of those
   queries are gathered into one more partition; more, the rows are shuffled on the query id
   (``DataFrame.shuffle``, which sends every row of a query to one partition).
2. **Scored where they lie.** A module-level function is mapped over the partitions with
   one shared object sent to each worker once (for an evaluation,
   :func:`~cranfield.evaluation.evaluator.score_partition` and the evaluator, its qrels read
   and indexed once, here). Each partition is read, checked as any run table is
   (:mod:`cranfield.io.columnar`), ranked and scored on its worker with
   ``missing="skip"``; only what it holds comes back (:class:`~cranfield.evaluation.
   scoring.Part`: every query id it had, judged or not, the per-query values
   of the judged ones, and the set measures' contingency counts pooled over its queries).
3. **Verified, not assumed.** Each scored partition says which query ids it held; one held
   by two means the partitioning was not by query after all: partitions taken to be by
   query are then shuffled and scored again (said in the notes); after a shuffle or a
   gathering it is an :class:`~cranfield.errors.EvaluationError`. Never a result from split
   queries.
4. **Assembled as one run** (by :func:`~cranfield.evaluation.assemble.assemble`, as every
   run is). Queries in bytewise
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
from cranfield.evaluation.engines import DaskCluster, InProcess, _on_dask_worker, _replay

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
    def held(self) -> tuple[str, ...] | None: ...


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
                # this machine only, no fixed port: None would still serve the scheduler's
                # HTTP pages on port 8787, ":0" on every interface
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",
                silence_logs=logging.ERROR,
            ) as cluster,
            Client(cluster) as client,  # type: ignore[no-untyped-call]
        ):
            warnings.simplefilter("ignore", DeprecationWarning)
            yield client, f"a local Dask cluster of {engine.workers} worker processes"


def _queries_of(rows: Any, query: str) -> list[Any]:
    """The distinct query ids of one partition (a pandas DataFrame)."""
    return list(rows[query].drop_duplicates())


def _shared_queries(
    dataset: ParquetDataset, frame: Any, compute: Callable[[list[Any], str], list[Any]]
) -> set[Any]:
    """The query ids found in more than one partition of ``frame``. Where each partition is
    one file (``dataset.paths``), each file's query column alone is read; otherwise the
    partitions are read whole, as they will be scored: dask fuses the partitions of a Parquet
    read into fewer when fewer columns are read, so the query column alone would be cut."""
    from dask.delayed import delayed

    from cranfield.io.parquet_dataset import query_ids

    query = dataset.query_column
    tasks = (
        [delayed(query_ids, pure=False)(path, query) for path in dataset.paths]
        if dataset.paths
        else [delayed(_queries_of, pure=False)(p, query) for p in frame.to_delayed()]
    )
    held = compute(tasks, "reading the query ids")
    seen: set[Any] = set()
    shared: set[Any] = set()
    for ids in held:
        shared.update(seen.intersection(ids))
        seen.update(ids)
    return shared


def _computer(client: Any, label: str) -> Callable[[list[Any], str], list[Any]]:
    """``compute(tasks, what)``: the values of delayed ``tasks`` with dask's synchronous
    scheduler (``client`` ``None``) or on the cluster, a worker that died repeatedly an
    :class:`~cranfield.errors.EvaluationError`."""
    from dask.base import compute as dask_compute

    def compute(tasks: list[Any], what: str) -> list[Any]:
        if client is None:
            with warnings.catch_warnings():
                # dask's Parquet reader calls pandas' reset_index(inplace=True), deprecated
                # in pandas 3.1: dask's to change, nothing a user of cranfield can.
                warnings.filterwarnings("ignore", "The inplace keyword", module=r"dask\.")
                return list(dask_compute(*tasks, scheduler="synchronous"))  # type: ignore[no-untyped-call]
        done = []
        for i, future in enumerate(client.compute(tasks)):
            try:
                done.append(future.result())
            except Exception as exc:
                if type(exc).__name__ in ("KilledWorker", "FutureCancelledError"):
                    raise EvaluationError(
                        f"the Dask workers {what} of partition {i + 1} of {len(tasks)} of "
                        f"{label} died repeatedly ({type(exc).__name__}); no result is given "
                        f"from part of the dataset."
                    ) from exc
                raise
        return done

    return compute


def _score_all(
    parts: list[Any],
    function: Callable[[S, Partition], R],
    shared: S,
    compute: Callable[[list[Any], str], list[Any]],
    label: str,
    name: str,
) -> list[R]:
    """``function(shared, partition)`` of every delayed partition of ``parts`` where it
    lies, in order, the workers' warnings raised here.

    ``shared`` is one node of the graph, sent to the scheduler once and from worker to worker
    as the partitions need it (not scattered: a scattered object lost with its workers cannot
    be made again, a node of the graph can).
    """
    import uuid

    from dask.delayed import delayed

    sent = delayed(shared, name=f"cranfield-shared-{uuid.uuid4().hex}", traverse=False)
    tasks = [
        delayed(_on_dask_worker, pure=False)(function, sent, (part, i, len(parts), label, name))
        for i, part in enumerate(parts)
    ]
    done: list[tuple[R, Caught]] = compute(tasks, "scoring")
    said: dict[tuple[str, type[Warning]], None] = {}
    for _, caught in done:
        said.update(dict.fromkeys(caught))
    _replay(list(said))
    return [scores for scores, _ in done]


def _split_query(parts: list[R]) -> tuple[str, int, int] | None:
    """A query held by two partitions (and their positions), or ``None``."""
    owner: dict[str, int] = {}
    for index, part in enumerate(parts):
        for query in part.held or ():
            first = owner.setdefault(query, index)
            if first != index:
                return query, first, index
    return None


def _arranged(
    dataset: ParquetDataset, compute: Callable[[list[Any], str], list[Any]], method: str
) -> tuple[list[Any], str]:
    """The dataset's partitions arranged to hold whole queries (delayed pandas frames), and
    how, for the notes: its own partitions when they are by query, or when the query ids
    found in two of them (a pass over the query column) are none; the rows of those queries
    gathered into one more partition when they are few (a dataset written in query order,
    cut into files: at most one query per cut); a shuffle on the query id otherwise."""
    frame = dataset.frame
    query = dataset.query_column
    if dataset.by_query is not None:
        return list(frame.to_delayed()), dataset.by_query
    if frame.index.name == query:
        frame = frame.reset_index()
    split = _shared_queries(dataset, frame, compute)
    if not split:
        return list(frame.to_delayed()), "each query in one partition, checked"
    if len(split) <= frame.npartitions:
        ids = sorted(split, key=str)
        whole = frame[~frame[query].isin(ids)]
        gathered = frame[frame[query].isin(ids)].repartition(npartitions=1)
        how = f"the {len(ids)} queries found in two partitions gathered into one more"
        return [*whole.to_delayed(), *gathered.to_delayed()], how
    shuffled = frame.shuffle(on=query, shuffle_method=method)
    return list(shuffled.to_delayed()), f"shuffled on {query}"


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
    label = dataset.label
    with _client(engine) as (client, who):
        compute = _computer(client, label)
        # A shuffle by tasks in one process; peer to peer on a cluster (on disk, in bounded
        # memory per worker).
        method = "tasks" if client is None else "p2p"
        parts, how = _arranged(dataset, compute, method)
        scored = _score_all(parts, function, shared, compute, label, name)
        split = _split_query(scored)
        if split is not None and not how.startswith("shuffled"):
            query, a, b = split
            frame = dataset.frame
            if frame.index.name == dataset.query_column:
                frame = frame.reset_index()
            shuffled = frame.shuffle(on=dataset.query_column, shuffle_method=method)
            how = (
                f"shuffled on {dataset.query_column}: the query {query!r} was in partitions "
                f"{a + 1} and {b + 1} although {how}"
            )
            parts = list(shuffled.to_delayed())
            scored = _score_all(parts, function, shared, compute, label, name)
            split = _split_query(scored)
        if split is not None:
            query, a, b = split
            raise EvaluationError(
                f"the query {query!r} of {label} is in partitions {a + 1} and {b + 1} after "
                f"they were arranged by query ({how}); no result is given from split queries."
            )
    files = f" of {dataset.files} files" if dataset.files else ""
    note = f"Scored as {len(scored)} query-complete partitions{files} ({how}) by {who}."
    return dataset, scored, note
