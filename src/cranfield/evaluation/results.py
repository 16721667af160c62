"""What an evaluation returns: :class:`Results` (one run) and :class:`ScoreTable` (several
runs aligned by query: runs × queries × measures)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from cranfield._deprecation import DeprecatedAlias
from cranfield._lazy import require
from cranfield._types import AGGREGATIONS
from cranfield._validate import check_choice, check_float
from cranfield.errors import MeasureError, spelled
from cranfield.evaluation.aggregate import How, aggregate
from cranfield.evaluation.overlap import partial_overlap
from cranfield.kernels.binary import MIN_GEO_MEAN
from cranfield.measures import Measure

if TYPE_CHECKING:
    import polars as pl
    from numpy.typing import NDArray

    from cranfield.evaluation.options import EvalOptions
    from cranfield.evaluation.provenance import Provenance


@dataclass(frozen=True, eq=False)
class Results:
    """What :func:`cranfield.evaluate` returns.

    Attributes
    ----------
    run_name:
        Name of the evaluated run.
    topics:
        Evaluated query ids, bytewise order.
    values:
        ``{Measure: per-topic float64 array aligned with topics}``.
    missing_policy:
        How judged topics absent from the run were treated (``zero``, ``skip`` or ``error``).
    missing_topics:
        Judged topics that had no line in the run.
    aggregation:
        ``{Measure: how}`` for measures not summarised by their declared aggregate
        (``evaluate(..., aggregate=...)``): ``mean``, ``sum``, ``gmean``, ``median`` or
        ``micro``.
    micro:
        ``{Measure: value}``: the micro average (counts pooled over topics) of every
        evaluated set measure.
    epsilon:
        Floor of the geometric mean before the logarithm (trec_eval 1e-5).
    options:
        The evaluation options the run was scored with (``None`` for results assembled
        by hand).
    sources:
        ``{role: path or None}``: where the qrels, the run and any extra judgments were
        read from (``None``: an object in memory); what :meth:`provenance` hashes.
    notes:
        Sentences on what reading the inputs did beyond their plain meaning (repeated qrels
        lines merged, say), ending :meth:`policy_note`.
    """

    run_name: str
    topics: list[str]
    values: dict[Measure, NDArray[np.float64]]
    missing_policy: str
    missing_topics: list[str] = field(default_factory=list)
    aggregation: dict[Measure, How] = field(default_factory=dict)
    micro: dict[Measure, float] = field(default_factory=dict)
    epsilon: float = MIN_GEO_MEAN
    options: EvalOptions | None = None
    sources: dict[str, str | None] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        """A short summary: the run, the number of queries, the policy and each aggregate
        (the per-query values are in :meth:`per_topic` and :meth:`to_polars`)."""
        shown = ", ".join(f"{m}={self[m]:.4f}" for m in self.values)
        return (
            f"Results(run={self.run_name!r}, queries={len(self.topics)}, "
            f"missing={self.missing_policy!r}{', ' if shown else ''}{shown})"
        )

    @property
    def measures(self) -> list[Measure]:
        return list(self.values)

    def provenance(self) -> Provenance:
        """What produced these results: version, inputs and their SHA-256, measures,
        options and tie rule (:mod:`cranfield.evaluation.provenance`).

        Computed when called: every input file is read and hashed then.

        Examples
        --------
        >>> from cranfield.evaluation.evaluator import evaluate
        >>> res = evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "AP")
        >>> res.provenance().to_dict()["inputs"]["run"]
        {'source': '<in memory>', 'sha256': None}
        """
        from cranfield.evaluation.provenance import Provenance

        return Provenance.of(self.sources, self.values, self.options)

    def _key(self, measure: Measure | str) -> Measure:
        if isinstance(measure, Measure):
            if measure in self.values:
                return measure
        else:
            for m in self.values:
                if str(m) == measure:
                    return m
            from cranfield.measures import parse_measures

            parsed = parse_measures(measure)
            if len(parsed) == 1 and parsed[0] in self.values:
                return parsed[0]
        raise MeasureError(
            f"{measure!s} was not evaluated; evaluated: {', '.join(map(str, self.values))}."
        )

    def __getitem__(self, measure: Measure | str) -> float:
        """The aggregate of one measure: its declared one (usually the mean over topics),
        or the one chosen with ``evaluate(..., aggregate=...)``."""
        return self.aggregate(measure)

    def how(self, measure: Measure | str) -> How:
        """How ``measure`` is summarised by ``self[measure]``."""
        m = self._key(measure)
        return self.aggregation.get(m, m.spec.aggregate)

    def aggregate(
        self, measure: Measure | str, how: How | None = None, *, epsilon: float | None = None
    ) -> float:
        """One measure summarised over topics.

        Parameters
        ----------
        measure:
            An evaluated measure (or its name).
        how:
            ``"mean"`` (arithmetic mean of per-topic values: macro-averaging), ``"sum"``,
            ``"gmean"`` (geometric mean, GMAP-style), ``"median"``, or ``"micro"`` (set
            measures only: the measure of the contingency counts pooled over topics).
            Default: :meth:`how`.
        epsilon:
            Floor before the logarithm of ``"gmean"`` (default: the evaluation's, 1e-5).

        Raises
        ------
        OptionError
            If ``how`` is unknown or ``epsilon`` is not a number > 0.
        MeasureError
            If ``how`` is ``"micro"`` for a measure without contingency counts.
        """
        m = self._key(measure)
        chosen = self.how(m) if how is None else check_choice("how", how, AGGREGATIONS)
        if epsilon is not None:
            check_float("epsilon", epsilon, minimum=0, above=True)
        if chosen == "micro":
            if m not in self.micro:
                raise MeasureError(
                    f"{m} cannot be micro-averaged: only set measures pool their counts."
                )
            return self.micro[m]
        eps = self.epsilon if epsilon is None else epsilon
        return aggregate(self.values[m], chosen, epsilon=eps)

    def per_query(self, measure: Measure | str) -> dict[str, float]:
        """``{query_id: value}`` for one measure."""
        m = self._key(measure)
        return dict(zip(self.topics, self.values[m].tolist(), strict=True))

    per_topic = DeprecatedAlias("per_topic", "per_query")
    """Deprecated spelling of :meth:`per_query` (one word for a query, in the API too)."""

    def means(self) -> dict[str, float]:
        """``{canonical measure name: aggregate}`` in measure order."""
        return {str(m): self[m] for m in self.values}

    def to_polars(self) -> pl.DataFrame:
        """Per-topic table: one row per topic, a ``query_id`` column and one column per measure."""
        import polars as pl

        data: dict[str, Any] = {"query_id": self.topics}
        data.update({str(m): v for m, v in self.values.items()})
        return pl.DataFrame(data)

    def to_pandas(self) -> Any:
        """The per-topic table as a pandas DataFrame indexed by ``query_id`` (needs the
        ``pandas`` extra: pandas and pyarrow)."""
        require(("pandas", "pyarrow"), "pandas", "to_pandas()")
        return self.to_polars().to_pandas().set_index("query_id")

    def _repr_html_(self) -> str:
        """A notebook's view: the run, its number of queries and each measure's aggregate,
        as polars shows a table (every name and value escaped, nothing active)."""
        return self._summary()._repr_html_()

    def _summary(self) -> pl.DataFrame:
        import polars as pl

        row: dict[str, Any] = {"run": [self.run_name], "queries": [len(self.topics)]}
        row.update({name: [value] for name, value in self.means().items()})
        return pl.DataFrame(row)

    def to_dict(self) -> dict[str, Any]:
        """Plain data: run name, policy, missing topics, means and per-topic values."""
        return {
            "run": self.run_name,
            "missing_policy": self.missing_policy,
            "missing_topics": list(self.missing_topics),
            "num_queries": len(self.topics),
            "means": self.means(),
            "per_query": {str(m): self.per_query(m) for m in self.values},
        }

    def noted(self, note: str) -> Results:
        """These results with one more sentence in :attr:`notes` (said once)."""
        if note in self.notes:
            return self
        return dataclasses.replace(self, notes=(*self.notes, note))

    def policy_note(self, *, command_line: bool = False) -> str:
        """One line stating how queries were averaged, then the :attr:`notes` (printed with
        every result).

        ``command_line=True`` names the policy as the command line sets it (``--missing zero``
        rather than ``missing='zero'``).
        """
        return " ".join((self._queries_note(command_line=command_line), *self.notes))

    def _queries_note(self, *, command_line: bool) -> str:
        n = len(self.topics)
        k = len(self.missing_topics)
        if k == 0:
            return f"{n} queries, every judged query retrieved."
        judged = n if self.missing_policy == "zero" else n + k
        # Under missing="skip" answering few queries is what was asked for: not a warning.
        few = partial_overlap(judged, judged - k) if self.missing_policy == "zero" else None
        tail = "" if few is None else f" {few}"
        if self.missing_policy == "zero":
            zero = spelled("missing", "zero", command_line=command_line)
            return (
                f"{n} queries; {k} judged query(ies) absent from the run scored 0 ({zero}).{tail}"
            )
        skip = spelled("missing", "skip", command_line=command_line)
        return f"{n} queries; {k} judged query(ies) absent from the run left out ({skip}).{tail}"

    def to_trec_eval(self, *, per_query: bool = False) -> str:
        """The results in trec_eval's text format (``name<TAB>qid<TAB>value``).

        A measure trec_eval computes prints under trec_eval's name for it (``map``, ``P_10``,
        ``ndcg_cut_10``); any other under its canonical name (``P(rel=2)@5``, ``RR@10``).
        Either label parses back to the measure.
        """
        from cranfield.io.trec_eval_text import format_line
        from cranfield.measures.trec_names import trec_eval_label

        lines: list[str] = []
        labels = {m: trec_eval_label(m) or str(m) for m in self.values}
        if per_query:
            for i, t in enumerate(self.topics):
                for m, v in self.values.items():
                    lines.append(
                        format_line(labels[m], t, float(v[i]), integer=m.spec.integer_valued)
                    )
        for m in self.values:
            lines.append(format_line(labels[m], "all", self[m], integer=m.spec.integer_valued))
        return "".join(line + "\n" for line in lines)


@dataclass(frozen=True, eq=False)
class ScoreTable:
    """Several runs scored on the same qrels and measures, aligned by query.

    What :meth:`Evaluator.many <cranfield.evaluation.evaluator.Evaluator.many>` returns, and
    what comparisons, cross-validation and the reports start from.

    Attributes
    ----------
    results:
        One :class:`Results` per run, in the order the runs were given, each named by the
        run-naming rule (:mod:`cranfield.io.run_names`).
    measures:
        The measures, in order.
    options:
        The evaluation options every run was scored with.
    judged_topics:
        Every query of the qrels, bytewise order.
    """

    results: tuple[Results, ...]
    measures: tuple[Measure, ...]
    options: EvalOptions
    judged_topics: tuple[str, ...]

    @property
    def names(self) -> list[str]:
        """The run names, in order."""
        return [r.run_name for r in self.results]

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[Results]:
        return iter(self.results)

    def __getitem__(self, run: str | int) -> Results:
        """The results of one run, by name or position."""
        if isinstance(run, int):
            return self.results[run]
        for r in self.results:
            if r.run_name == run:
                return r
        raise KeyError(f"no run named {run!r}; runs: {', '.join(self.names)}")

    def __repr__(self) -> str:
        shown = ", ".join(map(str, self.measures))
        return (
            f"ScoreTable(runs={len(self.results)}, queries={len(self.topics)}, measures=[{shown}])"
        )

    @cached_property
    def topics(self) -> list[str]:
        """The queries every run is compared on, bytewise order: with ``missing="zero"``
        every judged query (a run's missing query scored 0); with ``"skip"`` the judged
        queries that every run retrieved."""
        if not self.results:
            return []
        if self.options.missing == "skip":
            common = set.intersection(*(set(r.topics) for r in self.results))
            return sorted(common, key=lambda t: t.encode())
        return list(self.results[0].topics)

    @property
    def notes(self) -> tuple[str, ...]:
        """What reading the inputs did beyond their plain meaning (the qrels' and each run's
        :attr:`Results.notes`), each sentence once, in order."""
        return tuple(dict.fromkeys(note for r in self.results for note in r.notes))

    @property
    def dropped_topics(self) -> list[str]:
        """Judged queries left out of :attr:`topics` (``missing="skip"`` only)."""
        keep = set(self.topics)
        return [t for t in self.judged_topics if t not in keep]

    def matrix(self, measure: Measure | str) -> NDArray[np.float64]:
        """Per-query values of ``measure``: one row per query of :attr:`topics`, one column
        per run."""
        topics = self.topics
        cols = []
        for r in self.results:
            m = r._key(measure)
            where = {t: i for i, t in enumerate(r.topics)}
            rows = np.fromiter((where[t] for t in topics), dtype=np.intp, count=len(topics))
            cols.append(np.asarray(r.values[m], dtype=np.float64)[rows])
        if not topics:
            return np.zeros((0, len(cols)))
        return np.ascontiguousarray(np.column_stack(cols))

    def means(self) -> dict[str, dict[str, float]]:
        """``{run: {measure: aggregate}}`` over each run's own queries (as :class:`Results`)."""
        return {r.run_name: r.means() for r in self.results}

    def to_polars(self) -> pl.DataFrame:
        """One row per run and query of :attr:`topics`: ``run``, ``query_id``, one column
        per measure."""
        import polars as pl

        topics = self.topics
        data: dict[str, Any] = {
            "run": [name for name in self.names for _ in topics],
            "query_id": topics * len(self.results),
        }
        for m in self.measures:
            data[str(m)] = self.matrix(m).T.reshape(-1) if topics else np.zeros(0)
        return pl.DataFrame(data)

    def to_pandas(self) -> Any:
        """:meth:`to_polars` as a pandas DataFrame indexed by ``run`` and ``query_id`` (needs
        the ``pandas`` extra: pandas and pyarrow)."""
        require(("pandas", "pyarrow"), "pandas", "to_pandas()")
        return self.to_polars().to_pandas().set_index(["run", "query_id"])

    def _repr_html_(self) -> str:
        """A notebook's view: one row per run with its number of queries and each measure's
        aggregate, as polars shows a table (escaped, nothing active)."""
        import polars as pl

        return pl.concat([r._summary() for r in self.results], how="diagonal")._repr_html_()

    def provenance(self) -> Provenance:
        """What produced the table: version, the qrels and every run (role ``run:NAME``)
        with their SHA-256, measures, options and tie rule.

        Computed when called: every input file is read and hashed then.
        """
        return provenance_of(self.results, self.measures)


def provenance_of(
    results: Iterable[Results], measures: Iterable[Measure] | None = None
) -> Provenance:
    """The provenance of several runs' results scored together: the shared inputs (qrels,
    extra judgments) once, each run as ``run:NAME``; the measures (default: the first
    result's) and options of the first result.

    Every input file is read and hashed when this is called.
    """
    from cranfield.evaluation.provenance import Provenance

    given = list(results)
    inputs: dict[str, str | None] = {}
    for r in given:
        for role, path in r.sources.items():
            if role == "run":
                inputs[f"run:{r.run_name}"] = path
            else:
                inputs.setdefault(role, path)
    first = given[0] if given else None
    if measures is None:
        measures = first.measures if first is not None else []
    return Provenance.of(inputs, measures, first.options if first is not None else None)
