"""The evaluation object: :class:`Evaluator` binds qrels, measures and options once.

It scores one run (:meth:`Evaluator.evaluate`), a run read in blocks of whole queries
(:meth:`Evaluator.stream`), or many runs into one aligned table (:meth:`Evaluator.many`).
Every function and command that evaluates goes through it: :func:`evaluate` and
:func:`evaluate_stream` are one-line conveniences, and ``compare``, the curves, the plots, the
HTML report, the lab and ``cranfield trec-eval`` build one.

How inputs are loaded is decided here, once: two small clean TREC files are read and ranked
with numpy alone (:mod:`cranfield.io.trec_numpy`); otherwise the qrels are loaded once for
every run, and a large run file starts loading next to them.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack, cast, overload

import numpy as np

from cranfield._progress import Tracker, progress_enabled
from cranfield._types import FileFormat, RunNaming
from cranfield._validate import check_int
from cranfield.data.columns import names
from cranfield.data.ranking import Ranking, rank, rank_columns
from cranfield.errors import EvaluationError, MeasureError, MissingTopicError, OptionError
from cranfield.evaluation.aggregate import How
from cranfield.evaluation.options import AggregateOption, EvalKwargs, EvalOptions, options_from
from cranfield.evaluation.overlap import check_overlap
from cranfield.evaluation.provenance import source_path
from cranfield.evaluation.results import Results, ScoreTable
from cranfield.io.run_names import default_name
from cranfield.io.source import is_parquet, source_name
from cranfield.kernels.context import EvalContext
from cranfield.kernels.contingency import Contingency, SetMicro
from cranfield.kernels.extras import ExtendedContext
from cranfield.measures import Measure, parse_measures

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.data.columns import QrelsColumns
    from cranfield.data.qrels import Qrels
    from cranfield.data.run import Run
    from cranfield.evaluation.datasets import Partition
    from cranfield.evaluation.engines import Engine
    from cranfield.evaluation.store import ResultStore, Stored
    from cranfield.io.load import QrelsLike, RunLike
    from cranfield.io.parquet_dataset import ParquetDataset
    from cranfield.io.runset import RunSet

# cranfield.io.load (and with it polars) is imported only when the inputs are not two small
# clean TREC files (see cranfield.io.trec_numpy): a command on such files never needs it.

MeasureLike = str | Measure
DEFAULT_BLOCK_BYTES = 64 * 1024 * 1024


def resolve_measures(measures: MeasureLike | Iterable[MeasureLike]) -> list[Measure]:
    """Parse names (expanding trec_eval names and nicknames), keep order, drop repeats."""
    items = [measures] if isinstance(measures, (str, Measure)) else list(measures)
    out: list[Measure] = []
    for item in items:
        for m in [item] if isinstance(item, Measure) else parse_measures(item):
            if m not in out:
                out.append(m)
    return out


def measure_kwargs(measure: Measure, *, relevance_level: int = 1) -> dict[str, Any]:
    """The keyword arguments of ``measure``'s kernel (``rel`` defaults to ``relevance_level``)."""
    kwargs = measure.kwargs()
    if "rel" in kwargs and not any(k == "rel" for k, _ in measure.params):
        kwargs["rel"] = relevance_level
    return kwargs


def compute(ctx: EvalContext, measure: Measure, *, relevance_level: int = 1) -> NDArray[np.float64]:
    """Per-topic values of ``measure`` on an evaluation context."""
    spec = measure.spec
    kwargs = measure_kwargs(measure, relevance_level=relevance_level)
    values = np.asarray(spec.kernel(ctx, **kwargs), dtype=np.float64)
    if spec.zero_when_missing and ctx.ranking.missing.any():
        values = np.where(ctx.ranking.missing, 0.0, values)
    return values


@dataclass(frozen=True)
class Prepared:
    """One run loaded and ranked against the bound qrels: what :meth:`Evaluator.evaluate`
    and :mod:`cranfield.curves` share."""

    run_name: str
    ranking: Ranking
    ctx: ExtendedContext
    missing_topics: list[str]
    notes: tuple[str, ...] = ()


def _aggregation(option: AggregateOption, wanted: list[Measure]) -> dict[Measure, How]:
    """``{measure: how}`` for the measures whose summary ``option`` overrides."""
    if option is None:
        return {}
    if isinstance(option, str):
        chosen: dict[Measure, How] = dict.fromkeys(wanted, option)
    else:
        chosen = {}
        for key, how in option.items():
            for m in resolve_measures(key):
                if m not in wanted:
                    raise MeasureError(
                        f"aggregate names {m}, which is not among the measures evaluated."
                    )
                chosen[m] = how
    for m, how in chosen.items():
        if how == "micro" and m.spec.micro is None:
            raise MeasureError(
                f"{m} cannot be micro-averaged: only set measures pool their counts; "
                "give aggregate a mapping such as {'SetP': 'micro'} to mix."
            )
    return chosen


def load_judgments(source: QrelsLike, options: EvalOptions, *, name: str | None = None) -> Qrels:
    """The qrels ``source`` read as ``options`` say (their ``duplicates`` policy and
    ``qrels_format``): how every evaluation, plot and report reads its judgments."""
    from cranfield.io.load import load_qrels

    return load_qrels(source, name=name, duplicates=options.duplicates, format=options.qrels_format)


class Evaluator:
    """Qrels, measures and options bound once; scores one run, a stream, or many runs.

    Parameters
    ----------
    qrels:
        Judgments: a path (TREC text, compressed or not, or Parquet), a ``Qrels``, a polars
        or pandas DataFrame, an Arrow table, or a dict ``{query_id: {doc_id: value}}``. Read
        once, on first use, and never mutated.
    measures:
        Names such as ``"nDCG@10"``, ``"P(rel=2)@5"``, ``"AP"``, trec_eval names (``"map"``,
        ``"P.5,10"``, ``"official"``), ranx names (``"ndcg@10"``, ``"mrr"``), or ``Measure``s.
    options:
        The evaluation options (:class:`~cranfield.evaluation.options.EvalOptions`); any of
        its fields may also be given as a keyword (``missing="skip"``), overriding it.
    known:
        Qrels-like input (path, ``Qrels``, DataFrame, dict) of the relevant documents the user
        already knows, for the user-oriented measures (Coverage, Novelty, RelRecall,
        RecallEffect).
    intents:
        Subtopic judgments for α-nDCG: a path to intent qrels (``qid subtopic docno rel``),
        an :class:`~cranfield.io.intents.IntentQrels`, a DataFrame or a nested dict
        ``{qid: {subtopic: {docno: rel}}}``.

    Raises
    ------
    OptionError
        For an option value it cannot take (one sentence naming the option).
    MeasureError
        For an unknown measure, or an ``aggregate`` that names a measure not evaluated or
        asks ``"micro"`` of a measure that is not a set measure.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d3": 1}, "q2": {"d2": 1}}
    >>> ev = Evaluator(qrels, ["AP", "P@2"], missing="zero")
    >>> ev.evaluate({"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}})["AP"]
    0.41666666666666663
    >>> table = ev.many({"bm25": {"q1": {"d1": 2.0}}, "dense": {"q2": {"d2": 1.0}}})
    >>> table.means()
    {'bm25': {'AP': 0.25, 'P@2': 0.25}, 'dense': {'AP': 0.5, 'P@2': 0.25}}
    """

    def __init__(
        self,
        qrels: QrelsLike,
        measures: MeasureLike | Iterable[MeasureLike],
        options: EvalOptions | None = None,
        *,
        known: QrelsLike | None = None,
        intents: Any = None,
        **kwargs: Unpack[EvalKwargs],
    ) -> None:
        self.options = options_from(options, kwargs, caller="Evaluator")
        self.measures = resolve_measures(measures)
        self.aggregation = _aggregation(self.options.aggregate, self.measures)
        self._qrels_source = qrels
        self._known_source = known
        self._intents_source = intents
        self._qrels: Qrels | None = None
        self._columns: list[QrelsColumns | None] = []  # [columns] once the numpy read was tried
        self._extras: tuple[Any, Any] | None = None
        self._judged: list[list[str]] = []  # [the qrels' query ids] once asked

    def __repr__(self) -> str:
        shown = ", ".join(map(str, self.measures))
        return f"Evaluator(qrels={self.qrels_label}, measures=[{shown}], {self.options!r})"

    # ----------------------------------------------------------------- bound inputs

    @property
    def qrels_label(self) -> str:
        """How the qrels are named in messages and provenance (a path, or ``<in memory>``)."""
        source = self._qrels_source
        return str(source) if isinstance(source, (str, Path)) else "<in memory>"

    @property
    def qrels(self) -> Qrels:
        """The judgments, loaded on first use and kept."""
        if self._qrels is None:
            self._qrels = load_judgments(self._qrels_source, self.options)
        return self._qrels

    def _qrels_columns(self) -> QrelsColumns | None:
        """The qrels read with numpy alone, if they are a small clean TREC file (once)."""
        if not self._columns:
            from cranfield.io.trec_numpy import read_qrels_columns

            source = self._qrels_source
            small = (
                isinstance(source, (str, Path))
                and _text_path(source)
                and self.options.qrels_format in (None, "trec")
                and self._qrels is None
            )
            self._columns.append(read_qrels_columns(cast("str | Path", source)) if small else None)
        return self._columns[0]

    def _extra_frames(self) -> tuple[Any, Any]:
        if self._extras is None:
            known = intents = None
            if self._known_source is not None:
                from cranfield.io.load import load_qrels

                known = load_qrels(self._known_source, name="known").frame
            if self._intents_source is not None:
                from cranfield.io.intents import load_intents

                intents = load_intents(self._intents_source).frame
            self._extras = (known, intents)
        return self._extras

    def judged_topics(self) -> list[str]:
        """Every query of the qrels, bytewise order."""
        if not self._judged:  # once: every evaluation asks (the overlap check)
            if self._qrels is None and self._qrels_columns() is not None:
                self._judged.append(names(self._columns[0].query_id))  # type: ignore[union-attr]
            else:
                self._judged.append(self.qrels.topics)
        return list(self._judged[0])

    def count_relevant(self) -> int:
        """How many judgments have a relevance above 0 (trec_eval's ``num_rel`` with ``-c``)."""
        if self._qrels is None and self._qrels_columns() is not None:
            return int((self._columns[0].relevance > 0).sum())  # type: ignore[union-attr]
        return int((self.qrels.frame.get_column("relevance") > 0).sum())

    def with_options(self, *, qrels: Qrels | None = None, **changes: Any) -> Evaluator:
        """The same bound inputs (those already loaded shared, not read again) with some
        options changed, or other ``qrels``."""
        twin = Evaluator(
            self._qrels_source if qrels is None else qrels,
            self.measures,
            self.options.replace(**changes),
            known=self._known_source,
            intents=self._intents_source,
        )
        twin._extras = self._extras
        if qrels is None and not {"duplicates", "qrels_format"} & set(changes):
            twin._qrels, twin._columns, twin._judged = self._qrels, self._columns, self._judged
        return twin

    # ----------------------------------------------------------------- one run

    def ranking(self, run: RunLike | Run, *, name: str | None = None) -> Prepared:
        """``run`` loaded and ranked against the qrels, with its evaluation context (for
        curves and other per-rank tables)."""
        opts = self.options
        rank_options: dict[str, Any] = {
            "depth": opts.depth,
            "judged_only": opts.judged_only,
            "float32": opts.float32,
            "missing": opts.missing,
        }
        label = name or default_name(run)
        ranking = None
        notes: tuple[str, ...] = ()
        plain = self._known_source is None and self._intents_source is None
        if plain and not opts.ignore_self:
            ranking = self._rank_small(run, rank_options)
        if ranking is None:
            loaded = self._load_run(run, label)
            notes = loaded.notes  # how the run was read (a format other than TREC)
            if opts.ignore_self:
                loaded, dropped = _without_self(loaded)
                notes += dropped
            ranking = rank(loaded, self.qrels, **rank_options)
        absent: list[str] = []
        if opts.missing == "skip":
            evaluated = set(ranking.topics)
            absent = [t for t in self.judged_topics() if t not in evaluated]
        missing = [t for t, m in zip(ranking.topics, ranking.missing, strict=True) if m] + absent
        known, intents = self._extra_frames()
        ctx = ExtendedContext(
            ranking, compat=opts.compat, num_docs=opts.num_docs, known=known, intents=intents
        )
        return Prepared(label, ranking, ctx, sorted(missing), notes)

    def _rank_small(self, run: object, rank_options: dict[str, Any]) -> Ranking | None:
        """The ranking of a small clean run file against small clean qrels, with numpy alone
        (:mod:`cranfield.io.trec_numpy`); ``None`` when either is not such a file."""
        if not (_text_path(run) and _text_path(self._qrels_source)):
            return None
        if self.options.run_format not in (None, "trec"):
            return None
        from cranfield.io.trec_numpy import fits, read_run_columns

        if not fits(run):  # type: ignore[arg-type]  # a large run: not even the qrels are read
            return None
        judged = self._qrels_columns()
        ranked = None if judged is None else read_run_columns(run)  # type: ignore[arg-type]
        if judged is None or ranked is None:
            return None
        return rank_columns(ranked, judged, **rank_options)

    def _load_run(self, run: object, name: str) -> Run:
        """``run`` as a ``Run`` named ``name``; a run file read next to the qrels when these
        are not loaded yet (reading a large run starts slowly, leaving a core free)."""
        from cranfield.io import load

        fmt = self.options.run_format
        if self._qrels is None and _text_path(run):
            self._qrels, loaded = load.side_by_side(
                lambda: load_judgments(self._qrels_source, self.options),
                lambda: load.load_run(run, name=name, format=fmt),
            )
            return loaded
        return load.load_run(run, name=name, format=fmt)

    def evaluate(self, run: RunLike | Run, *, name: str | None = None) -> Results:
        """Score one run: per-query values and aggregates of every bound measure.

        Parameters
        ----------
        run:
            A path (TREC text, compressed or not, or Parquet), ``Run``, DataFrame, Arrow
            table or dict ``{query_id: {doc_id: score}}``. Never mutated. A Parquet dataset
            (a folder, a glob, a ``dask.dataframe.DataFrame``) is scored by
            :meth:`evaluate_dataset` with dask's synchronous scheduler, here.
        name:
            The run's name in the results (default: by the rule of
            :mod:`cranfield.io.run_names`).
        """
        from cranfield.io.parquet_dataset import is_dataset  # no polars

        if is_dataset(run):
            return self.evaluate_dataset(run, name=name)
        try:
            prep = self.ranking(run, name=name)  # first: a large run is read beside the qrels
        except MissingTopicError as missing:  # none shared: say so rather than list them all
            if len(missing.topics) == len(self.judged_topics()):
                self._check_overlap(run, 0, name)
            raise
        self._check_overlap(run, len(self.judged_topics()) - len(prep.missing_topics), name)
        return self._results(prep, run)

    def _check_overlap(self, run: object, answered: int, name: str | None) -> None:
        """:func:`~cranfield.evaluation.overlap.check_overlap` of ``run`` (``answered``: how
        many judged queries it has a line for). Under ``missing="skip"`` a partial overlap
        is what was asked for (no warning); none at all is still an error."""
        if answered and self.options.missing == "skip":
            return
        label = (
            source_name(run)
            if isinstance(run, (str, Path))
            else f"run {name or default_name(run)!r}"
        )
        check_overlap(
            self.judged_topics(),
            answered,
            run=label,
            qrels=self.qrels_label,
            run_ids=lambda: _run_topics(run, self.options.run_format),
        )

    def sources(self, run: object) -> dict[str, str | None]:
        """``{role: path or None}`` of the qrels, ``run`` and any extra judgments: what
        :meth:`Results.provenance <cranfield.evaluation.results.Results.provenance>`
        hashes (``None``: an object in memory)."""
        out = {"qrels": source_path(self._qrels_source), "run": source_path(run)}
        if self._known_source is not None:
            out["known"] = source_path(self._known_source)
        if self._intents_source is not None:
            out["intents"] = source_path(self._intents_source)
        return out

    def _results(self, prep: Prepared, run: object) -> Results:
        ctx, level = prep.ctx, self.options.relevance_level
        values = {m: compute(ctx, m, relevance_level=level) for m in self.measures}
        micro = {
            m: m.spec.micro(ctx, **measure_kwargs(m, relevance_level=level))
            for m in self.measures
            if m.spec.micro is not None
        }
        return Results(
            run_name=prep.run_name,
            topics=list(prep.ranking.topics),
            values=values,
            missing_policy=self.options.missing,
            missing_topics=prep.missing_topics,
            aggregation=self.aggregation,
            micro=micro,
            epsilon=self.options.epsilon,
            options=self.options,
            sources=self.sources(run),
            notes=(() if self._qrels is None else self._qrels.notes) + prep.notes,
        )

    def stream(
        self,
        run: str | Path,
        *,
        name: str | None = None,
        block_bytes: int = DEFAULT_BLOCK_BYTES,
        progress: bool | None = False,
    ) -> Results:
        """Score a run file of any size in bounded memory: same numbers as :meth:`evaluate`.

        The run is read in blocks of about ``block_bytes`` bytes holding whole queries
        (:func:`cranfield.evaluate_stream` states what streaming requires: each query's lines
        contiguous). ``aggregate="micro"``, which needs every query's counts at once, is
        refused. ``progress``: the lines scored so far and their rate on standard error, once
        the work has taken a second (``None``: when standard error is a terminal).
        """
        return _stream_results(
            self,
            run,
            name=name or default_name(run),
            block_bytes=block_bytes,
            progress=progress_enabled(progress),
        )

    def evaluate_dataset(
        self, dataset: Any, *, name: str | None = None, jobs: int = 1, scheduler: Any = None
    ) -> Results:
        """Score a run that is a Parquet dataset: same numbers, bit for bit, as
        :meth:`evaluate` of all its rows in one table.

        Its partitions are made query-complete and scored where they lie; only per-query
        values come back (:mod:`cranfield.evaluation.datasets` says how, and what is checked).

        Parameters
        ----------
        dataset:
            A folder of Parquet files (hive-partitioned or not), a glob of Parquet files, or a
            ``dask.dataframe.DataFrame`` (:mod:`cranfield.io.parquet_dataset`).
        name:
            The run's name (default: by the rule of :mod:`cranfield.io.run_names`).
        jobs:
            1 (default): dask's synchronous scheduler, in this process; ``N``: a local Dask
            cluster of ``N`` worker processes, started for this run; 0: one per core.
        scheduler:
            A Dask scheduler address (``tcp://host:8786``) or a ``distributed.Client``.
        """
        from cranfield.evaluation.engines import engine_for

        engine = engine_for(jobs, scheduler)
        return self._dataset(dataset, name=name or default_name(dataset), engine=engine)

    def _dataset(self, source: Any, *, name: str, engine: Engine) -> Results:
        from cranfield.evaluation.datasets import score_partitions

        blockwise = self.with_options(missing="skip", aggregate=None).prepare()
        dataset, parts, note = score_partitions(
            source, score_partition, blockwise, name=name, engine=engine
        )
        return _dataset_results(self, dataset, parts, name, note)

    def absent_ranking(self, absent: Sequence[str], *, name: str) -> Prepared:
        """The judged queries ``absent`` from a run, ranked as empty rankings against their
        judgments alone: what ``missing="zero"`` scores them as. :meth:`evaluate` ranks them
        so among the others; a run scored in parts (streamed, or a dataset's partitions)
        asks here for the queries no part held."""
        import polars as pl

        from cranfield.data.qrels import Qrels
        from cranfield.data.run import RUN_SCHEMA, Run

        judgments = self.qrels
        only = Qrels(judgments.frame.filter(pl.col("query_id").is_in(list(absent))), judgments.name)
        empty = Run(pl.DataFrame(schema=RUN_SCHEMA), name=name, tag=name)
        return self.with_options(qrels=only, aggregate=None).ranking(empty, name=name)

    # ----------------------------------------------------------------- many runs

    def each(
        self,
        runs: RunSet | Sequence[Any] | Mapping[str, Any],
        *,
        names: RunNaming | Sequence[str] = "file",
        stream: bool = False,
        block_bytes: int = DEFAULT_BLOCK_BYTES,
        jobs: int = 1,
        scheduler: Any = None,
        progress: bool | None = False,
        store: str | Path | ResultStore | None = None,
    ) -> Iterator[Results]:
        """The results of each run in turn, in the order given, named by the rule of
        :mod:`cranfield.io.run_names`.

        With ``jobs=1`` and no ``scheduler`` (the default) the runs are scored here, one in
        memory at a time; otherwise by the engine :func:`~cranfield.evaluation.engines.
        engine_for` picks (worker processes, or a Dask cluster), which is sent this evaluator
        once, with its qrels already read. ``progress``: a bar on standard error (runs done
        of the total, rate, time left; a Dask cluster's dashboard) once the work has taken a
        second; ``None`` shows it when standard error is a terminal. ``store``: a folder
        (or :class:`~cranfield.evaluation.store.ResultStore`) where each run file's results
        are kept, per measure, and read back instead of computed again while the run, the
        qrels, the options and cranfield's version are the same.
        """
        from cranfield.evaluation.engines import InProcess, engine_for
        from cranfield.evaluation.store import ResultStore
        from cranfield.io.runset import RunSet

        check_int("block_bytes", block_bytes, minimum=1)  # refused even when not streaming
        engine = engine_for(jobs, scheduler)
        kept = store if isinstance(store, ResultStore) or store is None else ResultStore(store)
        run_set = RunSet.of(runs, names)
        here = isinstance(engine, InProcess)
        lines = stream and here and len(run_set) == 1 and progress_enabled(progress)
        tasks = [RunTask(name, source, stream, block_bytes, lines) for name, source in run_set]
        if not here:  # a worker has a standard input of its own: a run on ours is read here
            tasks = [self._stdin_read_here(task) for task in tasks]
        shown = progress_enabled(progress) and len(tasks) > 1
        datasets = _datasets(tasks)
        if datasets and kept is not None:
            raise OptionError(
                "store", "None when a run is a Parquet dataset (its results are not stored)", store
            )
        if datasets and stream:
            raise OptionError(
                "stream",
                "False when a run is a Parquet dataset (it is scored by query-complete "
                "partitions, not read in blocks of text)",
                stream,
            )
        with Tracker(f"scoring {len(tasks)} runs", len(tasks), enabled=shown) as bar:
            if datasets:
                yield from self._each_with_datasets(tasks, datasets, engine, bar)
                return
            if kept is not None:
                yield from self._through_store(tasks, engine, kept, bar)
                return
            if isinstance(engine, InProcess):
                for results in engine.map(score_task, self, tasks):
                    bar.advance()
                    yield results
                return
            self.prepare()
            for results in engine.map(score_task, self, tasks):
                if bar.done == 0 and engine.dashboard:
                    bar.description += f" (Dask dashboard {engine.dashboard})"
                bar.advance()
                yield results.noted(f"Scored by {engine.describe()}.")

    def _stdin_read_here(self, task: RunTask) -> RunTask:
        """``task`` with its run read now when it is on standard input (``-``), to be sent to
        a worker in memory; any other task as it is."""
        if isinstance(task.source, (str, Path)) and str(task.source) == "-":
            return replace(task, source=self._load_run("-", task.name), stream=False)
        return task

    def _each_with_datasets(
        self, tasks: list[RunTask], datasets: list[bool], engine: Engine, bar: Tracker
    ) -> Iterator[Results]:
        """:meth:`each` when some runs are Parquet datasets: in turn, a dataset scored by all
        the engine's workers (:meth:`evaluate_dataset`), a run file by one of them."""
        from cranfield.evaluation.engines import InProcess

        if not isinstance(engine, InProcess):
            self.prepare()
        for task, dataset in zip(tasks, datasets, strict=True):
            if dataset:
                results = self._dataset(task.source, name=task.name, engine=engine)
            else:
                (results,) = engine.map(score_task, self, [task])
                if not isinstance(engine, InProcess):
                    results = results.noted(f"Scored by {engine.describe()}.")
            bar.advance()
            yield results

    def _through_store(
        self, tasks: list[RunTask], engine: Engine, store: ResultStore, bar: Tracker
    ) -> Iterator[Results]:
        """:meth:`each` with a store: the measures stored for a run are read back, the others
        computed (by ``engine``, grouped by the measures they miss) and stored; the results
        come in the order of ``tasks``, each with the warnings its evaluation raised."""
        from cranfield.evaluation.engines import InProcess

        keys = [
            store.run_key(
                t.source,
                {role: p for role, p in self.sources(t.source).items() if role != "run"},
                self.options,
            )
            if isinstance(t.source, (str, Path))
            else None
            for t in tasks
        ]
        found = [
            {m: store.get(key, m) for m in self.measures} if key is not None else {} for key in keys
        ]
        groups: dict[tuple[Measure, ...], list[int]] = {}
        for i, stored in enumerate(found):
            missing = tuple(m for m in self.measures if stored.get(m) is None)
            if missing:
                groups.setdefault(missing, []).append(i)
        computed: dict[int, tuple[Results, tuple[tuple[str, str], ...]]] = {}
        for missing, indices in groups.items():
            twin = self if list(missing) == self.measures else self.with_measures(missing)
            if not isinstance(engine, InProcess):
                twin.prepare()
            scored = engine.map(score_task, twin, [tasks[i] for i in indices])
            for i in indices:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    results = next(scored)
                said = tuple((w.category.__name__, str(w.message)) for w in caught)
                computed[i] = (results, said)
                bar.advance()
        for i, task in enumerate(tasks):
            if i not in computed:
                bar.advance()  # read back: done now
            yield self._assembled(task, keys[i], found[i], computed.get(i), store, engine)

    def _assembled(
        self,
        task: RunTask,
        key: str | None,
        stored: dict[Measure, Stored | None],
        computed: tuple[Results, tuple[tuple[str, str], ...]] | None,
        store: ResultStore,
        engine: Engine,
    ) -> Results:
        """One run's results from what the store held and what was computed (stored now)."""
        from cranfield.evaluation.engines import InProcess
        from cranfield.evaluation.store import Stored, replay

        parts: dict[Measure, Stored] = {m: v for m, v in stored.items() if v is not None}
        if computed is not None:
            results, said = computed
            for m in results.measures:
                part = Stored(
                    topics=tuple(results.topics),
                    values=tuple(results.values[m].tolist()),
                    missing_topics=tuple(results.missing_topics),
                    micro=results.micro.get(m),
                    notes=results.notes,
                    warnings=said,
                )
                parts[m] = part
                if key is not None:
                    store.put(key, m, part)
                    store.computed += 1
        first = parts[self.measures[0]]
        if any(p.topics != first.topics for p in parts.values()):
            raise EvaluationError(
                f"the results stored in {store.folder} for run {task.name!r} disagree on "
                f"its queries; remove the folder and evaluate again."
            )
        reused = len(self.measures) - (0 if computed is None else len(computed[0].measures))
        store.hits += reused
        notes = first.notes
        if reused:
            notes += (f"{reused} of {len(self.measures)} measures read from {store.folder}.",)
        if computed is not None and not isinstance(engine, InProcess):
            notes += (f"Scored by {engine.describe()}.",)
        for said in dict.fromkeys(p.warnings for p in parts.values()):
            replay(said)
        return Results(
            run_name=task.name,
            topics=list(first.topics),
            values={m: np.array(parts[m].values, dtype=np.float64) for m in self.measures},
            missing_policy=self.options.missing,
            missing_topics=list(first.missing_topics),
            aggregation=self.aggregation,
            micro={m: parts[m].micro for m in self.measures if parts[m].micro is not None},  # type: ignore[misc]
            epsilon=self.options.epsilon,
            options=self.options,
            sources=self.sources(task.source),
            notes=notes,
        )

    def with_measures(self, measures: Sequence[Measure]) -> Evaluator:
        """The same bound inputs (those already loaded shared, not read again) scoring only
        ``measures``; per-query values only (the aggregate option is left to the caller)."""
        twin = Evaluator(
            self._qrels_source,
            list(measures),
            self.options.replace(aggregate=None),
            known=self._known_source,
            intents=self._intents_source,
        )
        twin._qrels, twin._columns, twin._judged = self._qrels, self._columns, self._judged
        twin._extras = self._extras
        return twin

    def prepare(self) -> Evaluator:
        """Read and index the qrels and the extra judgments now, not on first use: what an
        engine does before it sends this evaluator to its workers, so that no worker reads
        them again. Returns ``self``."""
        self._qrels_columns()
        _ = self.qrels
        self._extra_frames()
        self.judged_topics()
        return self

    def many(
        self,
        runs: RunSet | Sequence[Any] | Mapping[str, Any],
        *,
        names: RunNaming | Sequence[str] = "file",
        stream: bool = False,
        block_bytes: int = DEFAULT_BLOCK_BYTES,
        jobs: int = 1,
        scheduler: Any = None,
        progress: bool | None = False,
        store: str | Path | ResultStore | None = None,
    ) -> ScoreTable:
        """Score several runs into one table aligned by query (runs × queries × measures).

        Parameters
        ----------
        runs:
            A list of runs (paths, ``Run``s, DataFrames, dicts), a ``{name: run}`` mapping or
            a :class:`~cranfield.io.runset.RunSet`; named by its rule.
        names:
            ``"file"`` (default), ``"tag"`` or one name per run (see
            :meth:`RunSet.of <cranfield.io.runset.RunSet.of>`).
        stream:
            Read each run file in blocks of whole queries (:meth:`stream`).
        jobs:
            Worker processes scoring runs at once: 1 (default) scores them here, 0 uses
            every core (:mod:`cranfield.evaluation.engines`).
        scheduler:
            A Dask scheduler address (``tcp://host:8786``) or a ``distributed.Client``: the
            runs are scored on that cluster's workers (the ``dask`` extra).
        progress:
            A progress bar on standard error (see :meth:`each`).
        store:
            A folder where each run file's results are kept and read back (see :meth:`each`).
        """
        results = tuple(
            self.each(
                runs,
                names=names,
                stream=stream,
                block_bytes=block_bytes,
                jobs=jobs,
                scheduler=scheduler,
                progress=progress,
                store=store,
            )
        )
        return ScoreTable(results, tuple(self.measures), self.options, tuple(self.judged_topics()))


@dataclass(frozen=True)
class RunTask:
    """One run to score: its name, where it is (a path, or the run itself) and how to read
    it; what :meth:`Evaluator.each` hands an engine for each run."""

    name: str
    source: Any
    stream: bool = False
    block_bytes: int = DEFAULT_BLOCK_BYTES
    progress: bool = False  # a streamed run's lines on a bar (scored here only, never a worker)

    def __str__(self) -> str:
        return f"run {self.name!r}"


def score_task(evaluator: Evaluator, task: RunTask) -> Results:
    """What an engine maps over the runs of an evaluation: ``task``'s run scored by
    ``evaluator`` (a module-level function, so that a worker process can be sent it)."""
    if task.stream:
        return evaluator.stream(
            task.source, name=task.name, block_bytes=task.block_bytes, progress=task.progress
        )
    return evaluator.evaluate(task.source, name=task.name)


@dataclass(frozen=True)
class PartitionScores:
    """What one partition sends back: only per-query values and counts.

    Attributes
    ----------
    held:
        Every query id the partition had rows of, judged or not (to verify that no other
        partition had rows of them).
    topics:
        The judged queries it scored, bytewise order.
    values:
        ``{measure: per-query values}`` aligned with ``topics``.
    counts:
        ``{set measure: its contingency counts pooled over topics}``, for the micro average.
    dropped:
        How many rows were left out because their document id is their query id
        (``ignore_self``).
    """

    held: tuple[str, ...]
    topics: tuple[str, ...]
    values: dict[Measure, NDArray[np.float64]]
    counts: dict[Measure, Contingency]
    dropped: int = 0


def _scores(
    evaluator: Evaluator, prep: Prepared, held: tuple[str, ...], dropped: int = 0
) -> PartitionScores:
    """The per-query values of ``prep``'s queries and the set measures' pooled counts."""
    level = evaluator.options.relevance_level
    values = {m: compute(prep.ctx, m, relevance_level=level) for m in evaluator.measures}
    counts: dict[Measure, Contingency] = {}
    for m in evaluator.measures:
        micro = m.spec.micro
        if micro is None:
            continue
        if not isinstance(micro, SetMicro):
            raise EvaluationError(f"{m}'s micro average cannot be pooled across partitions.")
        counts[m] = micro.counts(prep.ctx, **measure_kwargs(m, relevance_level=level))
    return PartitionScores(held, tuple(prep.ranking.topics), values, counts, dropped)


def score_partition(evaluator: Evaluator, item: Partition) -> PartitionScores:
    """What :meth:`Evaluator.evaluate_dataset` maps over a dataset's partitions
    (:mod:`cranfield.evaluation.datasets`): one partition (``item``: its rows, position,
    count, the dataset's label and the run's name) scored on its worker by ``evaluator``,
    which has ``missing="skip"`` (the policy is applied over the whole run, once)."""
    from cranfield.io.columnar import run_from_frame, to_polars_frame

    rows, index, count, label, name = item
    where = f"{label} (partition {index + 1} of {count})"
    run = run_from_frame(to_polars_frame(rows, label=where), source_label=where, name=name)
    frame = run.frame
    held = tuple(frame.get_column("query_id").unique().sort().to_list())
    dropped = 0
    if evaluator.options.ignore_self:
        import polars as pl

        dropped = frame.filter(pl.col("query_id") == pl.col("doc_id")).height
    return _scores(evaluator, evaluator.ranking(run, name=name), held, dropped)


def _dataset_results(
    evaluator: Evaluator,
    dataset: ParquetDataset,
    parts: list[PartitionScores],
    name: str,
    note: str,
) -> Results:
    """One run's results from its partitions' scores (:meth:`Evaluator.evaluate_dataset`):
    bytewise query order, the missing policy and the overlap check over the whole run, the
    micro averages of the summed counts."""
    options = evaluator.options
    judged = evaluator.judged_topics()
    scored = {t for p in parts for t in p.topics}
    absent = [t for t in judged if t not in scored]
    if not (scored and options.missing == "skip"):
        check_overlap(
            judged,
            len(judged) - len(absent),
            run=dataset.label,
            qrels=evaluator.qrels_label,
            run_ids=lambda: sorted({t for p in parts for t in p.held}),
        )
    if absent and options.missing == "error":
        raise MissingTopicError(absent)
    if absent and options.missing == "zero":
        prep = evaluator.absent_ranking(absent, name=name)
        parts = [*parts, _scores(evaluator, prep, ())]
    topics = [t for p in parts for t in p.topics]
    order = sorted(range(len(topics)), key=topics.__getitem__)
    measures = evaluator.measures
    values = {
        m: np.concatenate([p.values[m] for p in parts])[order] if parts else np.zeros(0)
        for m in measures
    }
    level = options.relevance_level
    micro: dict[Measure, float] = {}
    for m in measures:
        if m.spec.micro is None:
            continue
        pooled = Contingency(
            *(np.array([sum(float(getattr(p.counts[m], c)[0]) for p in parts)]) for c in "abcd")
        )
        micro[m] = cast("SetMicro", m.spec.micro).of(
            pooled, **measure_kwargs(m, relevance_level=level)
        )
    notes = evaluator.qrels.notes
    if options.ignore_self:
        notes += (_self_note(sum(p.dropped for p in parts)),)
    return Results(
        run_name=name,
        topics=[topics[i] for i in order],
        values=values,
        missing_policy=options.missing,
        missing_topics=sorted(absent),
        aggregation=evaluator.aggregation,
        micro=micro,
        epsilon=options.epsilon,
        options=options,
        sources=evaluator.sources(dataset.label if dataset.files else None),
        notes=(*notes, note),
    )


def _stream_results(
    evaluator: Evaluator, run: str | Path, *, name: str, block_bytes: int, progress: bool
) -> Results:
    """:meth:`Evaluator.stream <cranfield.evaluation.evaluator.Evaluator.stream>`: ``run``
    read in blocks of whole queries, each block scored with the evaluator's qrels, measures
    and options, the per-query values joined in bytewise query order."""
    import polars as pl

    from cranfield.data.run import Run
    from cranfield.io.trec_blocks import query_blocks

    check_int("block_bytes", block_bytes, minimum=1)
    options = evaluator.options
    if "micro" in evaluator.aggregation.values():
        raise OptionError(
            "aggregate",
            "a summary other than 'micro' when streaming",
            "micro",
            note="Micro-averaging needs every query's counts at once.",
        )
    if options.run_format not in (None, "trec"):
        raise OptionError(
            "run_format",
            "'trec' or None when streaming (blocks of whole queries are read as TREC text)",
            options.run_format,
        )
    judgments = evaluator.qrels
    wanted = evaluator.measures
    blockwise = evaluator.with_options(missing="skip", aggregate=None)
    topics: list[str] = []
    parts: dict[Measure, list[NDArray[np.float64]]] = {m: [] for m in wanted}
    dropped = 0
    with Tracker(f"streaming {name} (lines)", None, enabled=progress) as bar:
        for frame, tag in query_blocks(run, block_bytes):  # the next block read while one is scored
            if options.ignore_self:
                dropped += frame.filter(pl.col("query_id") == pl.col("doc_id")).height
            piece = Run(frame, name=name, tag=tag)  # no overlap check per block: once, below
            block = blockwise._results(blockwise.ranking(piece, name=name), piece)
            topics.extend(block.topics)
            for m in wanted:
                parts[m].append(block.values[m])
            bar.advance(frame.height)

    seen = set(topics)
    absent = [t for t in judgments.topics if t not in seen]
    evaluator._check_overlap(run, len(judgments.topics) - len(absent), name)
    if absent and options.missing == "error":
        raise MissingTopicError(absent)
    if absent and options.missing == "zero":
        block = blockwise._results(evaluator.absent_ranking(absent, name=name), None)
        topics.extend(block.topics)
        for m in wanted:
            parts[m].append(block.values[m])

    order = sorted(range(len(topics)), key=topics.__getitem__)
    values = {m: np.concatenate(parts[m])[order] if parts[m] else np.zeros(0) for m in wanted}
    return Results(
        run_name=name,
        topics=[topics[i] for i in order],
        values=values,
        missing_policy=options.missing,
        missing_topics=sorted(absent),
        aggregation=evaluator.aggregation,
        epsilon=options.epsilon,
        options=options,
        sources=evaluator.sources(run),
        notes=judgments.notes + ((_self_note(dropped),) if options.ignore_self else ()),
    )


def _datasets(tasks: list[RunTask]) -> list[bool]:
    """Which runs of ``tasks`` are Parquet datasets (none: an empty list)."""
    from cranfield.io.parquet_dataset import is_dataset  # no polars

    found = [is_dataset(t.source) for t in tasks]
    return found if any(found) else []


def _run_topics(run: object, format: FileFormat | None) -> list[str] | None:
    """The query ids of ``run``, read again (only for the message of a run that shares no
    query with the qrels: a small clean file is otherwise never read with polars); ``None``
    for standard input, which cannot be read twice."""
    from cranfield.io.load import load_run

    if isinstance(run, (str, Path)) and str(run) == "-":
        return None
    return load_run(cast("RunLike", run), format=format).topics


def _without_self(run: Run) -> tuple[Run, tuple[str, ...]]:
    """``run`` without the documents whose id is their query's id (``ignore_self``), and the
    note saying how many were dropped."""
    import polars as pl

    from cranfield.data.run import Run

    frame = run.frame.filter(pl.col("query_id") != pl.col("doc_id"))
    note = _self_note(run.frame.height - frame.height)
    return Run(frame, name=run.name, tag=run.tag), (note,)


def _self_note(dropped: int) -> str:
    return f"{dropped} run document(s) whose id is the query id dropped (ignore_self)."


def _text_path(source: object) -> bool:
    return isinstance(source, (str, Path)) and not is_parquet(source)


@overload
def evaluate(
    qrels: QrelsLike,
    run: list[Any] | tuple[Any, ...] | RunSet,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    options: EvalOptions | None = None,
    run_name: str | None = None,
    known: QrelsLike | None = None,
    intents: Any = None,
    **kwargs: Unpack[EvalKwargs],
) -> ScoreTable: ...


@overload
def evaluate(
    qrels: QrelsLike,
    run: RunLike,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    options: EvalOptions | None = None,
    run_name: str | None = None,
    known: QrelsLike | None = None,
    intents: Any = None,
    **kwargs: Unpack[EvalKwargs],
) -> Results: ...


def evaluate(
    qrels: QrelsLike,
    run: RunLike,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    options: EvalOptions | None = None,
    run_name: str | None = None,
    known: QrelsLike | None = None,
    intents: Any = None,
    **kwargs: Unpack[EvalKwargs],
) -> Results | ScoreTable:
    """Evaluate one run against judgments: ``Evaluator(qrels, measures, ...).evaluate(run)``.

    Parameters
    ----------
    qrels, run:
        Paths (TREC text, compressed or not, or Parquet), ``Qrels``/``Run`` objects, polars or
        pandas DataFrames, Arrow tables, or dicts ``{query_id: {doc_id: value}}``. Never mutated.
        A list (or a :class:`~cranfield.io.runset.RunSet`) of runs scores each of them into one
        aligned :class:`~cranfield.evaluation.results.ScoreTable` (:meth:`Evaluator.many`).
    measures:
        Names such as ``"nDCG@10"``, ``"P(rel=2)@5"``, ``"AP"``, trec_eval names (``"map"``,
        ``"P.5,10"``, ``"official"``), ranx names (``"ndcg@10"``, ``"mrr"``), or ``Measure``s.
    options, **kwargs:
        The evaluation options, whole (an :class:`~cranfield.evaluation.options.EvalOptions`)
        or as keywords: ``missing`` (``"zero"``, ``"skip"``, ``"error"``: judged queries absent
        from the run), ``relevance_level``, ``judged_only``, ``depth``, ``float32``,
        ``compat``, ``num_docs``, ``aggregate``, ``epsilon``; each is documented on
        :class:`~cranfield.evaluation.options.EvalOptions`.
    run_name:
        The run's name in the results (default: by the rule of :mod:`cranfield.io.run_names`).
    known, intents:
        Extra inputs of some measures, as for :class:`Evaluator`.

    Returns
    -------
    Results
        Per-query values and aggregates for every measure; a ``ScoreTable`` of one
        ``Results`` per run for a list of runs.

    Raises
    ------
    OptionError
        For an option value it cannot take.
    MeasureError
        For an unknown measure or aggregation, or ``"micro"`` for a measure that is not a
        set measure.
    EvaluationError
        When a measure needs ``known`` or ``intents`` and none was given.

    Examples
    --------
    >>> from cranfield import evaluate
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}}
    >>> res = evaluate(qrels, run, ["P@2", "AP", "RR"])
    >>> res["AP"]
    0.8333333333333333
    >>> res["P@2"], res["RR"]
    (0.5, 1.0)

    Macro and micro averages of a set measure:

    >>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    >>> run = {"q1": {"a": 2.0, "x": 1.0}, "q2": {"c": 1.0, "y": 0.5, "z": 0.2}}
    >>> res = evaluate(qrels, run, ["SetP"], aggregate={"SetP": "micro"})
    >>> res["SetP"], res.aggregate("SetP", "mean")
    (0.4, 0.41666666666666663)

    Several runs, aligned by query:

    >>> evaluate(qrels, [run, {"q1": {"b": 1.0}}], ["SetP"]).means()
    {'run1': {'SetP': 0.41666666666666663}, 'run2': {'SetP': 0.5}}
    """
    evaluator = Evaluator(qrels, measures, options, known=known, intents=intents, **kwargs)
    if isinstance(run, (list, tuple)) or _is_run_set(run):
        if run_name is not None:
            raise OptionError(
                "run_name", "None for a list of runs (name them with a dict)", run_name
            )
        return evaluator.many(cast("Sequence[Any]", run))
    return evaluator.evaluate(run, name=run_name)


def _is_run_set(run: object) -> bool:
    from cranfield.io.runset import RunSet  # no polars

    return isinstance(run, RunSet)


def evaluate_stream(
    qrels: QrelsLike,
    run: str | Path,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    block_bytes: int = DEFAULT_BLOCK_BYTES,
    options: EvalOptions | None = None,
    run_name: str | None = None,
    known: QrelsLike | None = None,
    intents: Any = None,
    **kwargs: Unpack[EvalKwargs],
) -> Results:
    """Evaluate a run file of any size in bounded memory; same numbers as :func:`evaluate`.

    The run is read in blocks of about ``block_bytes`` bytes, cut at line ends; the lines of
    the query a block ends in are carried into the next block, so every query is evaluated
    whole, with the same ranking rules and kernels as :func:`evaluate`. Memory grows with
    the block size and the number of queries, not with the file.

    What streaming requires, and checks: **the lines of each query are contiguous** (the
    file is grouped by query, in any query order; lines inside a query may be in any order).
    A query whose lines reappear after another query's is an
    :class:`~cranfield.errors.InputError` naming the file, the data line and the query.
    Everything else (ties, unsorted scores, duplicates, malformed lines with their physical
    line numbers, comment and blank lines) behaves exactly as in :func:`cranfield.read_run`.

    Parameters
    ----------
    qrels:
        Judgments (path, ``Qrels``, frame or dict); read once.
    run:
        Path of a TREC run file (plain, gzip, bzip2, xz or zstd) grouped by query.
    block_bytes:
        Approximate bytes per block; memory use is a small multiple of it.
    options, run_name, known, intents, **kwargs:
        As for :func:`evaluate`, except ``aggregate="micro"``, which needs every query's
        counts at once and is refused here.

    Raises
    ------
    InputError
        On a malformed line, or when a query's lines are not contiguous.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 a 1 2.0 t\\nq1 Q0 b 2 1.0 t\\nq2 Q0 c 1 1.0 t\\n")
    >>> res = evaluate_stream({"q1": {"b": 1}, "q2": {"c": 1}}, path, ["RR"], block_bytes=16)
    >>> res.per_query("RR")
    {'q1': 0.5, 'q2': 1.0}
    """
    evaluator = Evaluator(qrels, measures, options, known=known, intents=intents, **kwargs)
    return evaluator.stream(run, name=run_name, block_bytes=block_bytes)
