"""The evaluation object: :class:`Evaluator` binds qrels, measures and options once.

It scores one run (:meth:`Evaluator.evaluate`), a run read in blocks of whole queries
(:meth:`Evaluator.stream`), a Parquet dataset partition by partition
(:meth:`Evaluator.evaluate_dataset`), or many runs into one aligned table
(:meth:`Evaluator.many`). Every function and command that evaluates goes through it:
:func:`evaluate` and :func:`evaluate_stream` are one-line conveniences, and ``compare``, the
curves, the plots, the HTML report, the lab and ``cranfield trec-eval`` build one.

It is a front over four pieces, each the one home of its concern:

* :mod:`cranfield.evaluation.judgments`: the qrels (and extra judgments), read once and
  shared by every twin of an evaluator;
* :mod:`cranfield.evaluation.ranked` and :mod:`cranfield.evaluation.scoring`: a run read,
  ranked against the judgments, and its per-query values, as a ``Part``;
* :mod:`cranfield.evaluation.assemble`: a run's ``Results`` from its parts (the missing-query
  policy, the overlap check, query order, micro averages);
* :mod:`cranfield.evaluation.execution`: where and how many runs are scored (``Execution``).

How a run is read and ranked is decided once, in :mod:`cranfield.evaluation.ranked` (each
input file opened once, :mod:`cranfield.io.inputs`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack, cast

from cranfield._progress import Tracker, progress_enabled
from cranfield._types import RunNaming
from cranfield._validate import check_int
from cranfield.errors import MeasureError, MissingTopicError, OptionError
from cranfield.evaluation.aggregate import How
from cranfield.evaluation.assemble import assemble_run, run_label
from cranfield.evaluation.execution import (
    DEFAULT_BLOCK_BYTES,
    Execution,
    ExecutionKwargs,
    RunTask,
    execution_from,
    score_runs,
    score_task,
)
from cranfield.evaluation.judgments import Judgments, load_judgments
from cranfield.evaluation.options import AggregateOption, EvalKwargs, EvalOptions, options_from
from cranfield.evaluation.overlap import check_overlap
from cranfield.evaluation.ranked import absent_ranking, rank_run, read_run
from cranfield.evaluation.results import Results, ScoreTable
from cranfield.evaluation.scoring import Part, Prepared, compute, measure_kwargs, score
from cranfield.io.inputs import RunInput, open_run
from cranfield.io.run_names import default_name
from cranfield.io.source import names_a_file
from cranfield.measures import Measure, parse_measures, peer_measure

if TYPE_CHECKING:
    from cranfield.data.qrels import Qrels
    from cranfield.data.run import Run
    from cranfield.evaluation.datasets import Partition
    from cranfield.evaluation.engines import Engine
    from cranfield.evaluation.execution import EvalExecutionKwargs
    from cranfield.io.load import QrelsLike, RunLike
    from cranfield.io.runset import RunSet

# cranfield.io.load (and with it polars) is imported only when the inputs are not two small
# clean TREC files (see cranfield.io.trec_numpy): a command on such files never needs it.

__all__ = [
    "DEFAULT_BLOCK_BYTES",
    "Evaluator",
    "MeasureLike",
    "Prepared",
    "RunTask",
    "compute",
    "evaluate",
    "evaluate_many",
    "evaluate_stream",
    "load_judgments",
    "measure_kwargs",
    "resolve_measures",
    "score_partition",
    "score_task",
]

MeasureLike = str | Measure


def resolve_measures(measures: MeasureLike | Iterable[MeasureLike]) -> list[Measure]:
    """Parse names (expanding trec_eval names and nicknames), keep order, drop repeats."""
    one = isinstance(measures, (str, Measure)) or peer_measure(measures) is not None
    items: list[Any] = [measures] if one else list(cast("Iterable[MeasureLike]", measures))
    out: list[Measure] = []
    for item in items:  # a name, a Measure, or an ir_measures measure (parse_measures reads it)
        for m in [item] if isinstance(item, Measure) else parse_measures(item):
            if m not in out:
                out.append(m)
    return out


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
            why = f"{m} cannot be micro-averaged: only set measures pool their counts"
            raise MeasureError(
                f"{why}; give aggregate a mapping such as {{'SetP': 'micro'}} to mix.",
                # the command line has no mapping to give: name what it can do
                command_line=f"{why}; --aggregate micro takes set measures only "
                "(SetP, SetR, SetF ...).",
            )
    return chosen


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
        self.judgments = Judgments.of(qrels, self.options, known=known, intents=intents)

    @classmethod
    def _twin(
        cls, judgments: Judgments, measures: list[Measure], options: EvalOptions
    ) -> Evaluator:
        """An evaluator of ``judgments`` (shared, read once) with ``measures`` and ``options``."""
        twin = cls.__new__(cls)
        twin.options = options
        twin.measures = measures
        twin.aggregation = _aggregation(options.aggregate, measures)
        twin.judgments = judgments.for_options(options)
        return twin

    def __repr__(self) -> str:
        shown = ", ".join(map(str, self.measures))
        return f"Evaluator(qrels={self.qrels_label}, measures=[{shown}], {self.options!r})"

    # ----------------------------------------------------------------- bound inputs

    @property
    def qrels_label(self) -> str:
        """How the qrels are named in messages and provenance (a path, or ``<in memory>``)."""
        return self.judgments.label

    @property
    def qrels(self) -> Qrels:
        """The judgments, loaded on first use and kept."""
        return self.judgments.qrels

    def judged_topics(self) -> list[str]:
        """Every query of the qrels, bytewise order."""
        return self.judgments.judged_topics()

    def count_relevant(self) -> int:
        """How many judgments have a relevance above 0 (trec_eval's ``num_rel`` with ``-c``)."""
        return self.judgments.count_relevant()

    def sources(self, run: object) -> dict[str, str | None]:
        """``{role: path or None}`` of the qrels, ``run`` and any extra judgments: what
        :meth:`Results.provenance <cranfield.evaluation.results.Results.provenance>`
        hashes (``None``: an object in memory)."""
        return self.judgments.sources(run)

    def prepare(self) -> Evaluator:
        """Read and index the qrels and the extra judgments now, not on first use: what an
        engine does before it sends this evaluator to its workers, so that no worker reads
        them again. Returns ``self``."""
        self.judgments.prepare()
        return self

    def with_options(self, *, qrels: Qrels | None = None, **changes: Any) -> Evaluator:
        """The same bound inputs (those already loaded shared, not read again) with some
        options changed, or other ``qrels``."""
        judgments = self.judgments if qrels is None else self.judgments.with_qrels(qrels)
        return Evaluator._twin(judgments, self.measures, self.options.replace(**changes))

    def with_measures(self, measures: Sequence[Measure]) -> Evaluator:
        """The same bound inputs (those already loaded shared, not read again) scoring only
        ``measures``; per-query values only (the aggregate option is left to the caller)."""
        options = self.options.replace(aggregate=None)
        return Evaluator._twin(self.judgments, list(measures), options)

    # ----------------------------------------------------------------- one run

    def ranking(self, run: RunLike | Run, *, name: str | None = None) -> Prepared:
        """``run`` loaded and ranked against the qrels, with its evaluation context (for
        curves and other per-rank tables): :func:`~cranfield.evaluation.ranked.rank_run`."""
        return rank_run(run, self.judgments, self.options, name=name)

    def load_run(self, run: object, name: str) -> Run:
        """``run`` as a ``Run`` named ``name``, read as the options say (a run file once):
        :func:`~cranfield.evaluation.ranked.read_run`."""
        return read_run(run, self.judgments, self.options, name=name)

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
        if not names_a_file(run):  # a run file (one stat): no folder, no dataset
            from cranfield.io.parquet_dataset import is_dataset  # no polars

            if _is_run_folder(run):
                raise OptionError(
                    "run",
                    "one run (a folder of run files is several: score them with evaluate_many)",
                    run,
                )
            if is_dataset(run):
                return self.evaluate_dataset(run, name=name)
        opened: Any = run
        if isinstance(run, RunInput):  # a run file opened already (read for the store's key)
            run = run.source
        elif isinstance(run, (str, Path)):
            opened = open_run(run, format=self.options.run_format)  # read once, here

        def run_ids() -> list[str] | None:  # a run that shares no query: some of its ids
            return _run_topics(opened, name)

        try:  # first: a large run is read beside the qrels
            prep = self.ranking(opened, name=name or default_name(run))
        except MissingTopicError as missing:  # none shared: say so rather than list them all
            if len(missing.topics) == len(self.judged_topics()):
                label = run_label(run, name)
                judged = self.judged_topics()
                check_overlap(judged, 0, run=label, qrels=self.qrels_label, run_ids=run_ids)
            raise
        level = self.options.relevance_level
        part = score(
            prep, self.measures, relevance_level=level, notes=prep.notes, dropped=prep.dropped
        )
        return self._assemble([part], run, prep.run_name, run_ids=run_ids)

    def _assemble(
        self,
        parts: Sequence[Part],
        run: object,
        name: str,
        *,
        run_ids: Callable[[], Sequence[str] | None],
        label: str | None = None,
        scored_by: tuple[str, ...] = (),
    ) -> Results:
        """``run``'s results from its parts (:func:`~cranfield.evaluation.assemble.assemble`)."""
        how = self.measures, self.options, self.aggregation
        return assemble_run(
            parts,
            self.judgments,
            *how,
            run,
            name,
            run_ids=run_ids,
            label=label,
            scored_by=scored_by,
        )

    def absent_ranking(self, absent: Sequence[str], *, name: str) -> Prepared:
        """The judged queries ``absent`` from a run ranked as empty rankings, as
        ``missing="zero"`` scores them (:func:`~cranfield.evaluation.ranked.absent_ranking`)."""
        return absent_ranking(self.judgments, self.options, absent, name=name)

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
        name = name or default_name(run)
        parts = list(_streamed(self, run, name, block_bytes, progress_enabled(progress)))
        return self._assemble(parts, run, name, run_ids=lambda: _held(parts))

    def evaluate_dataset(
        self,
        dataset: Any,
        *,
        name: str | None = None,
        execution: Execution | None = None,
        **kwargs: Unpack[ExecutionKwargs],
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
        execution, **kwargs:
            Where the partitions are scored (:class:`~cranfield.evaluation.execution.
            Execution`, whole or as keywords): ``jobs=1`` (default) with dask's synchronous
            scheduler, in this process; ``jobs=N`` a local Dask cluster of ``N`` worker
            processes, started for this run (0: one per core); ``scheduler`` a Dask
            scheduler address (``tcp://host:8786``) or a ``distributed.Client``.
        """
        run = execution_from(execution, dict(kwargs), caller="evaluate_dataset")
        name = name or default_name(dataset)
        return self.score_dataset(dataset, name=name, engine=run.engine())

    def score_dataset(self, source: Any, *, name: str, engine: Engine) -> Results:
        """The results of the Parquet dataset ``source``, its partitions scored by
        ``engine`` (:meth:`evaluate_dataset`)."""
        from cranfield.evaluation.datasets import score_partitions

        blockwise = self.with_options(missing="skip", aggregate=None).prepare()
        dataset, parts, note = score_partitions(
            source, score_partition, blockwise, name=name, engine=engine
        )
        return self._assemble(
            parts,
            dataset.label if dataset.files else None,
            name,
            label=dataset.label,
            run_ids=lambda: _held(parts),
            scored_by=(note,),
        )

    # ----------------------------------------------------------------- many runs

    def each(
        self,
        runs: RunSet | Sequence[Any] | Mapping[str, Any],
        *,
        names: RunNaming | Sequence[str] = "file",
        execution: Execution | None = None,
        **kwargs: Unpack[ExecutionKwargs],
    ) -> Iterator[Results]:
        """The results of each run in turn, in the order given, named by the rule of
        :mod:`cranfield.io.run_names`.

        ``execution`` (or its fields as keywords: ``jobs``, ``scheduler``, ``store``,
        ``progress``, ``stream``, ``block_bytes``; :class:`~cranfield.evaluation.execution.
        Execution` documents each) says where and how: by default the runs are scored here,
        one in memory at a time; otherwise by the engine it picks (worker processes, or a
        Dask cluster), which is sent this evaluator once, with its qrels already read.
        """
        run = execution_from(execution, dict(kwargs), caller="Evaluator.each")
        return score_runs(self, runs, names, run)

    def many(
        self,
        runs: RunSet | Sequence[Any] | Mapping[str, Any],
        *,
        names: RunNaming | Sequence[str] = "file",
        execution: Execution | None = None,
        **kwargs: Unpack[ExecutionKwargs],
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
        execution, **kwargs:
            Where and how the runs are scored (:class:`~cranfield.evaluation.execution.
            Execution`, whole or as keywords): ``jobs`` (worker processes; 0: every core),
            ``scheduler`` (a Dask cluster), ``store`` (a folder where each run file's results
            are kept and read back), ``progress`` (a bar on standard error), ``stream`` (read
            each run file in blocks of whole queries) and ``block_bytes``.
        """
        results = tuple(self.each(runs, names=names, execution=execution, **kwargs))
        return ScoreTable(results, tuple(self.measures), self.options, tuple(self.judged_topics()))


def score_partition(evaluator: Evaluator, item: Partition) -> Part:
    """What :meth:`Evaluator.evaluate_dataset` maps over a dataset's partitions
    (:mod:`cranfield.evaluation.datasets`): one partition (``item``: its rows, position,
    count, the dataset's label and the run's name) scored on its worker by ``evaluator``,
    which has ``missing="skip"`` (the policy is applied over the whole run, once)."""
    from cranfield.io.columnar import run_from_frame, to_polars_frame

    rows, index, count, label, name = item
    where = f"{label} (partition {index + 1} of {count})"
    run = run_from_frame(to_polars_frame(rows, label=where), source_label=where, name=name)
    held = tuple(run.frame.get_column("query_id").unique().sort().to_list())
    prep = evaluator.ranking(run, name=name)
    level = evaluator.options.relevance_level
    return score(prep, evaluator.measures, relevance_level=level, held=held, dropped=prep.dropped)


def _streamed(
    evaluator: Evaluator, run: str | Path, name: str, block_bytes: int, progress: bool
) -> Iterator[Part]:
    """The parts of ``run`` read in blocks of whole queries (:meth:`Evaluator.stream`), each
    block ranked and scored with the evaluator's qrels, measures and options, its absent
    queries left to the assembly."""
    from cranfield.data.run import Run

    check_int("block_bytes", block_bytes, minimum=1)
    if "micro" in evaluator.aggregation.values():
        raise OptionError(
            "aggregate",
            "a summary other than 'micro' when streaming",
            "micro",
            note="Micro-averaging needs every query's counts at once.",
        )
    if evaluator.options.run_format not in (None, "trec"):
        raise OptionError(
            "run_format",
            "'trec' or None when streaming (blocks of whole queries are read as TREC text)",
            evaluator.options.run_format,
        )
    from cranfield.io.source import Digest
    from cranfield.io.trec_blocks import query_blocks

    _ = evaluator.qrels  # read before the first block (its notes come first)
    blockwise = evaluator.with_options(missing="skip", aggregate=None)
    level = evaluator.options.relevance_level
    blocks = query_blocks(run, block_bytes, digest=Digest())  # hashed as it is read
    with Tracker(f"streaming {name} (lines)", None, enabled=progress) as bar:
        for frame, tag in blocks:  # the next block read while one is scored
            piece = Run(frame, name=name, tag=tag)  # no overlap check per block: once, over all
            held = tuple(frame.get_column("query_id").unique().to_list())
            prep = blockwise.ranking(piece, name=name)
            yield score(
                prep, evaluator.measures, relevance_level=level, held=held, dropped=prep.dropped
            )
            bar.advance(frame.height)


def _held(parts: Sequence[Part]) -> list[str]:
    """Every query id the parts of a run had rows of, bytewise order."""
    return sorted({t for p in parts for t in p.held or ()})


def _run_topics(run: object, name: str | None) -> list[str] | None:
    """The query ids of ``run`` (only for the message of a run that shares no query with the
    qrels: a small clean file is otherwise never read with polars), from the one reading of a
    file; ``None`` for standard input, as :func:`~cranfield.evaluation.overlap.check_overlap`
    names no ids of a run that was not kept."""
    from cranfield.io.load import load_run

    if isinstance(run, RunInput):
        return None if run.label == "<stdin>" else run.run(name=name).topics
    return load_run(cast("RunLike", run)).topics


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
) -> Results:
    """Evaluate one run against judgments: ``Evaluator(qrels, measures, ...).evaluate(run)``.

    Parameters
    ----------
    qrels, run:
        Paths (TREC text, compressed or not, or Parquet), ``Qrels``/``Run`` objects, polars or
        pandas DataFrames, Arrow tables, or dicts ``{query_id: {doc_id: value}}``. Never mutated.
        Several runs (a folder of run files too) are scored with :func:`evaluate_many`.
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
        Per-query values and aggregates for every measure.

    Raises
    ------
    OptionError
        For an option value it cannot take, or a folder of run files as ``run``.
    MeasureError
        For an unknown measure or aggregation, or ``"micro"`` for a measure that is not a
        set measure.
    EvaluationError
        When a measure needs ``known`` or ``intents`` and none was given.

    Notes
    -----
    Deprecated: a list (or :class:`~cranfield.io.runset.RunSet`) of runs given as ``run``
    is still scored into a :class:`~cranfield.evaluation.results.ScoreTable`, as before, with
    a :class:`DeprecationWarning` naming :func:`evaluate_many`, which replaces it; that form
    goes in the next minor release (CONTRIBUTING.md, "Deprecations").

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
    """
    evaluator = Evaluator(qrels, measures, options, known=known, intents=intents, **kwargs)
    if isinstance(run, (list, tuple)) or _is_run_set(run):
        # Deprecated (one minor release): a list of runs, scored into a ScoreTable as before.
        from cranfield._deprecation import warn_renamed

        warn_renamed(
            "evaluate(qrels, [run, ...], measures)", "evaluate_many(qrels, runs, measures)"
        )
        if run_name is not None:
            raise OptionError(
                "run_name", "None for a list of runs (name them with a dict)", run_name
            )
        return evaluator.many(cast("Sequence[Any]", run))  # type: ignore[return-value]
    return evaluator.evaluate(run, name=run_name)


def _is_run_set(run: object) -> bool:
    from cranfield.io.runset import RunSet  # no polars

    return isinstance(run, RunSet)


def _is_run_folder(run: object) -> bool:
    """Whether ``run`` is a folder of run files (:mod:`cranfield.io.runset`), not one run."""
    from cranfield.io.parquet_dataset import folder_runs  # no polars

    return isinstance(run, (str, Path)) and Path(run).is_dir() and folder_runs(run) is not None


def evaluate_many(
    qrels: QrelsLike,
    runs: RunSet | Sequence[Any] | Mapping[str, Any],
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    names: RunNaming | Sequence[str] = "file",
    options: EvalOptions | None = None,
    known: QrelsLike | None = None,
    intents: Any = None,
    execution: Execution | None = None,
    **kwargs: Unpack[EvalExecutionKwargs],
) -> ScoreTable:
    """Score several runs against judgments into one table aligned by query:
    ``Evaluator(qrels, measures, ...).many(runs, ...)``.

    Parameters
    ----------
    qrels:
        Judgments, as for :func:`evaluate`; read once for every run.
    runs:
        A list of runs (paths, ``Run``s, DataFrames, dicts), a ``{name: run}`` mapping or a
        :class:`~cranfield.io.runset.RunSet`, named by the rule of
        :mod:`cranfield.io.run_names`; a folder of run files stands for its files
        (:mod:`cranfield.io.runset`).
    measures:
        As for :func:`evaluate`.
    names:
        ``"file"`` (default), ``"tag"`` or one name per run (see
        :meth:`RunSet.of <cranfield.io.runset.RunSet.of>`).
    options, known, intents:
        The evaluation options (whole, or as keywords among ``**kwargs``) and the extra
        inputs of some measures, as for :func:`evaluate`.
    execution, **kwargs:
        Where and how the runs are scored (:class:`~cranfield.evaluation.execution.Execution`,
        whole or as keywords: ``jobs``, ``scheduler``, ``store``, ``progress``, ``stream``,
        ``block_bytes``); the numbers are the same.

    Returns
    -------
    ScoreTable
        One :class:`~cranfield.evaluation.results.Results` per run, in the order given,
        aligned by query (runs × queries × measures).

    Raises
    ------
    OptionError
        For an option value it cannot take, an empty set of runs or two runs with one name.
    MeasureError
        For an unknown measure or aggregation.

    Examples
    --------
    >>> from cranfield import evaluate_many
    >>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    >>> run = {"q1": {"a": 2.0, "x": 1.0}, "q2": {"c": 1.0, "y": 0.5, "z": 0.2}}
    >>> evaluate_many(qrels, [run, {"q1": {"b": 1.0}}], ["SetP"]).means()
    {'run1': {'SetP': 0.41666666666666663}, 'run2': {'SetP': 0.5}}
    >>> evaluate_many(qrels, {"bm25": run}, "SetP", missing="skip").names
    ['bm25']
    """
    rest: dict[str, Any] = dict(kwargs)
    run_on = execution_from(execution, rest, caller="evaluate_many")
    evaluator = Evaluator(qrels, measures, options, known=known, intents=intents, **rest)
    return evaluator.many(runs, names=names, execution=run_on)


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
    line numbers, comment and blank lines) behaves exactly as in
    :func:`cranfield.io.trec.read_run`.

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
