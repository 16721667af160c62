"""A run that is a Parquet dataset: bit for bit the numbers of ``Evaluator.evaluate`` on all
its rows in one table, whatever its files, row groups, partitions and scheduler; a query
split between partitions never scored as two; bad datasets named file by file."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cranfield.errors import EvaluationError, InputError, MissingTopicError, OptionError
from cranfield.evaluation.evaluator import Evaluator
from cranfield.evaluation.results import Results
from cranfield.io.parquet_dataset import is_dataset

# Dask throughout (dataframes, local clusters): slow, left out by scripts/check --fast.
pytestmark = pytest.mark.slow

dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "R@100", "Rprec", "SetP", "SetF", "Fallout", "SetE"]
MICRO = {"SetP": "micro", "SetF": "micro"}
QUIET = pytest.mark.filterwarnings("ignore::cranfield.errors.QueryOverlapWarning")


def _qrels_and_rows(folder: Path, seed: int) -> tuple[Path, Any]:
    """Qrels, and run rows that catch a split query or a lost order: many ties, rows of a
    query scattered through the table, judged queries with no row, a query not judged."""
    rng = np.random.default_rng(seed)
    queries = [f"q{i}" for i in range(40)] + ["001", "1"]  # told apart, never read as numbers
    qrels = folder / "qrels.txt"
    qrels.write_text(
        "".join(
            f"{q} 0 d{d} {int(rng.integers(0, 3))}\n"
            for q in queries
            for d in rng.choice(60, size=12, replace=False)
        )
    )
    rows = [
        (q, f"d{d}", float(rng.integers(0, 4)))  # few distinct scores: many ties
        for q in [*queries, "unjudged"]
        if q in ("001", "1", "unjudged") or rng.random() > 0.2  # some judged queries missing
        for d in rng.choice(60, size=int(rng.integers(1, 30)), replace=False)
    ]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return qrels, frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _files(folder: Path, frame: Any, files: int, *, row_group: int = 40) -> Path:
    """``frame`` cut into ``files`` Parquet files of small row groups (queries split across
    files and row groups)."""
    folder.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), files)):
        table = pa.Table.from_pandas(frame.iloc[rows], preserve_index=False)
        pq.write_table(table, folder / f"part.{i}.parquet", row_group_size=row_group)
    return folder


def _same(here: Results, there: Results) -> None:
    assert there.topics == here.topics
    assert there.missing_topics == here.missing_topics
    for m in here.values:
        np.testing.assert_array_equal(there.values[m], here.values[m])
        assert there.values[m].dtype == here.values[m].dtype
    assert there.micro == here.micro
    assert there.means() == here.means()


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed")
    import dask

    with (
        warnings.catch_warnings(),
        dask.config.set({"distributed.scheduler.allowed-failures": 1}),
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
            silence_logs=50,
        ) as local,
    ):
        warnings.simplefilter("ignore", DeprecationWarning)
        yield local


# --------------------------------------------------------------------------- same numbers


@QUIET
@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_files_split_queries_across_files_and_row_groups_same_numbers(
    tmp_path: Path, missing: str
) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=1)
    lake = _files(tmp_path / "lake", frame, files=5)
    evaluator = Evaluator(qrels, MEASURES, missing=missing, aggregate=MICRO)
    here = evaluator.evaluate(frame)
    there = evaluator.evaluate(lake)  # a folder is a dataset: dask's synchronous scheduler
    _same(here, there)
    assert there.notes[-1] == (
        "Scored as 5 query-complete partitions of 5 files (shuffled on query_id) by dask's "
        "synchronous scheduler in this process."
    )
    glob = evaluator.evaluate_dataset(str(lake / "*.parquet"), name="lake")
    _same(here, glob)
    assert glob.run_name == there.run_name == "lake"


@QUIET
def test_a_run_written_in_query_order_moves_only_the_queries_cut_between_files(
    tmp_path: Path, cluster: Any
) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=18)
    ordered = frame.sort_values("query_id", kind="stable").reset_index(drop=True)
    lake = _files(tmp_path / "lake", ordered, files=5)  # cut by row: queries across two files
    evaluator = Evaluator(qrels, MEASURES, aggregate=MICRO)
    here = evaluator.evaluate(frame)
    for where in ({}, {"scheduler": cluster.scheduler_address}):
        there = evaluator.evaluate_dataset(lake, **where)
        _same(here, there)
        assert there.notes[-1].startswith(
            "Scored as 6 query-complete partitions of 5 files (the 4 queries found in two "
            "partitions gathered into one more) by"
        ), there.notes[-1]
    whole = tmp_path / "whole"
    whole.mkdir()
    for i, (_, rows) in enumerate(ordered.groupby("query_id", sort=True)):
        rows.to_parquet(whole / f"{i:03d}.parquet", index=False)  # one query per file
    there = evaluator.evaluate(whole)
    _same(here, there)
    assert "files (each query in one partition, checked) by dask's" in there.notes[-1]


@QUIET
def test_a_hive_partitioned_dataset_keeps_its_partitions(tmp_path: Path) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=2)
    hive = tmp_path / "hive"
    pq.write_to_dataset(
        pa.Table.from_pandas(frame, preserve_index=False), hive, partition_cols=["query_id"]
    )
    evaluator = Evaluator(qrels, MEASURES, aggregate=MICRO)
    here = evaluator.evaluate(frame)
    there = evaluator.evaluate(hive)
    _same(here, there)  # '001' stays '001': hive values are read as strings
    queries = frame["query_id"].nunique()
    assert there.notes[-1].startswith(
        f"Scored as {queries} query-complete partitions of {queries} files "
        "(hive-partitioned by query_id) by"
    )


@QUIET
def test_a_hive_dataset_whose_files_hold_the_key_too_as_polars_writes_it(tmp_path: Path) -> None:
    pl = pytest.importorskip("polars")
    qrels, frame = _qrels_and_rows(tmp_path, seed=19)
    hive = tmp_path / "hive"
    pl.from_pandas(frame).write_parquet(hive, partition_by="query_id")
    evaluator = Evaluator(qrels, MEASURES)
    there = evaluator.evaluate(hive)
    _same(evaluator.evaluate(frame), there)
    assert "(hive-partitioned by query_id) by" in there.notes[-1]


@QUIET
def test_a_hive_dataset_with_two_files_for_a_query_is_shuffled_not_scored_twice(
    tmp_path: Path,
) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=3)
    hive = tmp_path / "hive"
    table = pa.Table.from_pandas(frame, preserve_index=False)
    half = len(frame) // 2
    for part in (table.slice(0, half), table.slice(half)):  # each query in two files
        pq.write_to_dataset(part, hive, partition_cols=["query_id"])
    evaluator = Evaluator(qrels, MEASURES, aggregate=MICRO)
    there = evaluator.evaluate(hive)
    _same(evaluator.evaluate(frame), there)
    assert "shuffled on query_id: the query " in there.notes[-1]
    assert "although hive-partitioned by query_id" in there.notes[-1]


@QUIET
def test_a_dask_dataframe_sorted_or_not_same_numbers(tmp_path: Path) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=4)
    evaluator = Evaluator(qrels, MEASURES, missing="zero", aggregate=MICRO)
    here = evaluator.evaluate(frame)
    unsorted = dd.from_pandas(frame, npartitions=7, sort=False)
    assert is_dataset(unsorted)
    _same(here, evaluator.evaluate(unsorted))
    indexed = dd.from_pandas(frame.set_index("query_id"), npartitions=4)  # known divisions
    there = evaluator.evaluate_dataset(indexed)
    _same(here, there)
    assert "(sorted by its query_id index (known divisions))" in there.notes[-1]
    shuffled = unsorted.shuffle(on="doc_id")  # partitions by document: queries split
    _same(here, evaluator.evaluate_dataset(shuffled))


@QUIET
@pytest.mark.filterwarnings("ignore:The inplace keyword:DeprecationWarning")  # dask's writer
def test_a_sorted_index_written_by_dask_is_read_with_its_divisions(tmp_path: Path) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=5)
    lake = tmp_path / "sorted"
    dd.from_pandas(frame.set_index("query_id").sort_index(), npartitions=3).to_parquet(lake)
    evaluator = Evaluator(qrels, MEASURES)
    there = evaluator.evaluate(lake)
    _same(evaluator.evaluate(frame), there)
    assert "(sorted by its query_id index (known divisions))" in there.notes[-1]


@QUIET
def test_a_run_ranked_by_rank_with_other_column_names(tmp_path: Path) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=6)
    frame = frame.assign(rank=frame.groupby("query_id").cumcount() + 1)
    frame = frame.drop(columns="score").rename(columns={"query_id": "qid", "doc_id": "docno"})
    lake = _files(tmp_path / "lake", frame, files=3)
    evaluator = Evaluator(qrels, MEASURES)
    _same(evaluator.evaluate(frame), evaluator.evaluate(lake))


@QUIET
@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_a_local_cluster_of_processes_gives_the_numbers_of_this_process(
    tmp_path: Path, cluster: Any, missing: str
) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=7)
    lake = _files(tmp_path / "lake", frame, files=6)
    evaluator = Evaluator(qrels, MEASURES, missing=missing, aggregate=MICRO)
    here = evaluator.evaluate(frame)
    there = evaluator.evaluate_dataset(lake, scheduler=cluster.scheduler_address)
    _same(here, there)
    note = there.notes[-1]
    assert note.startswith(
        "Scored as 6 query-complete partitions of 6 files (shuffled on query_id) by 2 Dask "
        "workers on 1 machine (tcp://"
    ), note
    from distributed import Client

    with Client(cluster) as client:
        table = evaluator.many([lake, frame], scheduler=client)  # a dataset beside a table
        assert client.status == "running"
    _same(there, table.results[0])
    _same(here, table.results[1])


@QUIET
def test_a_dataset_on_the_cluster_keeps_hive_partitions_and_dask_frames(
    tmp_path: Path, cluster: Any
) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=8)
    hive = tmp_path / "hive"
    pq.write_to_dataset(
        pa.Table.from_pandas(frame, preserve_index=False), hive, partition_cols=["query_id"]
    )
    evaluator = Evaluator(qrels, MEASURES, aggregate=MICRO)
    here = evaluator.evaluate(frame)
    _same(here, evaluator.evaluate_dataset(hive, scheduler=cluster.scheduler_address))
    split = dd.from_pandas(frame, npartitions=5, sort=False)
    _same(here, evaluator.evaluate_dataset(split, scheduler=cluster.scheduler_address))


# --------------------------------------------------------------------------- the policy


def test_missing_error_and_no_shared_query_are_raised_over_the_whole_run(
    tmp_path: Path,
) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=9)
    lake = _files(tmp_path / "lake", frame, files=3)
    with pytest.raises(MissingTopicError) as here:
        Evaluator(qrels, ["AP"], missing="error").evaluate(frame)
    with pytest.raises(MissingTopicError) as there:
        Evaluator(qrels, ["AP"], missing="error").evaluate(lake)
    assert there.value.topics == here.value.topics
    other = tmp_path / "other.txt"
    other.write_text("z1 0 d1 1\n")
    with pytest.raises(EvaluationError, match=r"lake and .*other\.txt share no query id"):
        Evaluator(other, ["AP"]).evaluate(lake)


def test_ignore_self_counts_the_rows_dropped_in_every_partition(tmp_path: Path) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=10)
    frame = pd.concat(
        [
            frame,
            pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["q1", "q2"], "score": [9.0, 9.0]}),
        ]
    )
    lake = _files(tmp_path / "lake", frame, files=4)
    evaluator = Evaluator(qrels, MEASURES, ignore_self=True, missing="skip")
    here, there = evaluator.evaluate(frame), evaluator.evaluate(lake)
    _same(here, there)
    assert there.notes[:-1] == here.notes


# --------------------------------------------------------------------------- bad datasets


def test_a_folder_without_parquet_files_or_with_another_file_is_named(tmp_path: Path) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=11)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "_SUCCESS").write_text("")
    with pytest.raises(InputError, match=r"empty: holds no Parquet files"):
        Evaluator(qrels, ["AP"]).evaluate(empty)
    lake = _files(tmp_path / "lake", frame, files=2)
    (lake / "query_id=1").mkdir()
    (lake / "query_id=1" / "notes.csv").write_text("a,b\n")
    with pytest.raises(InputError, match=r"notes\.csv: is in the dataset folder .* not a Parquet"):
        Evaluator(qrels, ["AP"]).evaluate(lake)
    (lake / "notes.csv").write_text("a,b\n")  # beside the Parquet files: a folder of runs too?
    with pytest.raises(InputError, match=r"lake: holds Parquet files \(part\.0\.parquet\) and "):
        Evaluator(qrels, ["AP"]).evaluate(lake)
    with pytest.raises(InputError, match=r"nothing\*\.parquet: matches no Parquet file"):
        Evaluator(qrels, ["AP"]).evaluate_dataset(str(tmp_path / "nothing*.parquet"))


def test_files_with_other_columns_or_types_or_no_query_column_are_named(tmp_path: Path) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=12)
    lake = _files(tmp_path / "lake", frame, files=2)
    pq.write_table(pa.table({"query_id": ["q1"], "doc_id": ["d1"]}), lake / "part.9.parquet")
    with pytest.raises(
        InputError,
        match=r"part\.9\.parquet: has the columns query_id, doc_id, but .*part\.0\.parquet "
        r"has query_id, doc_id, score",
    ):
        Evaluator(qrels, ["AP"]).evaluate(lake)
    pq.write_table(
        pa.table({"query_id": [1], "doc_id": ["d1"], "score": [1.0]}), lake / "part.9.parquet"
    )
    with pytest.raises(
        InputError, match=r"part\.9\.parquet: its query_id column has type int64, but"
    ):
        Evaluator(qrels, ["AP"]).evaluate(lake)
    bare = tmp_path / "bare"
    bare.mkdir()
    pq.write_table(
        pa.table({"topic": ["q1"], "doc_id": ["d1"], "score": [1.0]}), bare / "a.parquet"
    )
    with pytest.raises(
        InputError, match=r"a\.parquet: has no query id column \(looked for query_id"
    ):
        Evaluator(qrels, ["AP"]).evaluate(bare)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "a.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(InputError, match=r"a\.parquet: cannot read Parquet file"):
        Evaluator(qrels, ["AP"]).evaluate(broken)


@QUIET
def test_the_provenance_names_the_dataset_without_hashing_its_files(tmp_path: Path) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=15)
    lake = _files(tmp_path / "lake", frame, files=2)
    inputs = Evaluator(qrels, ["AP"]).evaluate(lake).provenance().to_dict()["inputs"]
    assert inputs["run"] == {"source": str(lake), "sha256": None}
    given = Evaluator(qrels, ["AP"]).evaluate_dataset(dd.from_pandas(frame, npartitions=2))
    assert given.provenance().to_dict()["inputs"]["run"]["source"] == "<in memory>"


def test_a_file_damaged_past_its_footer_is_named(tmp_path: Path) -> None:
    # the footers are sound, so the first read of the pages is the pass over the query column
    qrels, frame = _qrels_and_rows(tmp_path, seed=14)
    lake = _files(tmp_path / "lake", frame, files=2)
    damaged = bytearray((lake / "part.1.parquet").read_bytes())
    damaged[8:200] = b"\xab" * 192
    (lake / "part.1.parquet").write_bytes(bytes(damaged))
    with pytest.raises(InputError, match=r"part\.1\.parquet: cannot read Parquet file"):
        Evaluator(qrels, ["AP"]).evaluate(lake)


def test_a_bad_row_names_the_dataset_and_partition(tmp_path: Path) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=13)
    frame = pd.concat([frame, frame.iloc[:1]])  # a (query, document) pair twice
    lake = _files(tmp_path / "lake", frame, files=2)
    with pytest.raises(InputError, match=r"lake \(partition \d of \d\):\d+: duplicate document"):
        Evaluator(qrels, ["AP"]).evaluate(lake)


def test_a_dataset_is_neither_stored_nor_streamed(tmp_path: Path) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=14)
    lake = _files(tmp_path / "lake", frame, files=2)
    with pytest.raises(OptionError, match="'store' option must be None when a run is a Parquet"):
        list(Evaluator(qrels, ["AP"]).each([lake], store=tmp_path / "store"))
    with pytest.raises(OptionError, match="'stream' option must be False when a run is a Parq"):
        list(Evaluator(qrels, ["AP"]).each([lake], stream=True))


def _dies(rows: Any) -> Any:
    """A partition whose reading ends the worker process, as an out-of-memory kill would."""
    if len(rows) and (rows["doc_id"] == "d-dies").any():
        os._exit(3)
    return rows


@QUIET
def test_a_worker_that_dies_ends_the_evaluation_with_a_clear_error(
    tmp_path: Path, cluster: Any
) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=15)
    frame.loc[0, "doc_id"] = "d-dies"
    doomed = dd.from_pandas(frame, npartitions=2, sort=False).map_partitions(_dies)
    with pytest.raises(
        EvaluationError, match=r"died repeatedly \(KilledWorker\); no result is given from part"
    ):
        Evaluator(qrels, ["AP"]).evaluate_dataset(doomed, scheduler=cluster.scheduler_address)


def test_the_local_cluster_of_jobs_listens_on_this_machine_only() -> None:
    # what `cranfield evaluate DATASET --jobs N` starts: its scheduler, workers, nannies and
    # HTTP pages on 127.0.0.1, none on every interface and none on Dask's fixed 8786/8787
    psutil = pytest.importorskip("psutil")
    from cranfield.evaluation.datasets import _client
    from cranfield.evaluation.engines import Processes

    with _client(Processes(1)) as (client, who):
        assert who == "a local Dask cluster of 1 worker processes"
        processes = [psutil.Process(), *psutil.Process().children(recursive=True)]
        listening = {
            (c.laddr.ip, c.laddr.port)
            for p in processes
            for c in p.net_connections(kind="inet")
            if c.status == psutil.CONN_LISTEN
        }
        assert client.scheduler.address.startswith("tcp://127.0.0.1:")
        assert client.dashboard_link.startswith("http://127.0.0.1:")
    assert len(listening) >= 3  # the scheduler, its HTTP pages, the worker (and its nanny)
    assert {ip for ip, _ in listening} == {"127.0.0.1"}, listening
    assert not {port for _, port in listening} & {8786, 8787}, listening


# --------------------------------------------------------------------------- the command


def _command(*argv: str) -> tuple[int, str, str]:
    import io

    from cranfield.cli.evaluate import main

    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@QUIET
def test_the_command_scores_a_folder_as_the_same_rows_in_trec_text(
    tmp_path: Path, cluster: Any
) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=16)
    lake = _files(tmp_path / "lake", frame, files=4)
    text = tmp_path / "text.run"
    text.write_text("".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, d, s in frame.itertuples(index=False)))
    wanted = ["-m", "AP", "-m", "nDCG@10", "-m", "SetP", "-q", "-f", "tsv", "--names", "file"]
    code, expected, _ = _command(str(qrels), str(text), *wanted)
    assert code == 0
    for more in ([], ["--scheduler", cluster.scheduler_address]):
        code, out, err = _command(str(qrels), str(lake), *wanted, *more)
        assert code == 0, err
        assert out.replace("lake\t", "text\t") == expected
        assert "query-complete partitions of 4 files (shuffled on query_id) by" in err


def test_the_command_names_a_bad_dataset_and_exits_2(tmp_path: Path) -> None:
    qrels, frame = _qrels_and_rows(tmp_path, seed=17)
    lake = _files(tmp_path / "lake", frame.rename(columns={"doc_id": "title"}), files=2)
    code, _, err = _command(str(qrels), str(lake))
    assert code == 2
    assert err == (
        f"cranfield evaluate: {lake / 'part.0.parquet'}: has no document id column (looked for "
        "doc_id, docno, docid, doc, pid, corpus-id; found query_id, title, score)\n"
    )
