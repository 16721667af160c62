"""``Results``: per-topic values and aggregates of one evaluated run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from cranfield.errors import MeasureError, spelled
from cranfield.evaluation.aggregate import AGGREGATIONS, How, aggregate
from cranfield.kernels.binary import MIN_GEO_MEAN
from cranfield.measures._spec import Measure

if TYPE_CHECKING:
    import polars as pl
    from numpy.typing import NDArray


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
    """

    run_name: str
    topics: list[str]
    values: dict[Measure, NDArray[np.float64]]
    missing_policy: str
    missing_topics: list[str] = field(default_factory=list)
    aggregation: dict[Measure, How] = field(default_factory=dict)
    micro: dict[Measure, float] = field(default_factory=dict)
    epsilon: float = MIN_GEO_MEAN

    @property
    def measures(self) -> list[Measure]:
        return list(self.values)

    def _key(self, measure: Measure | str) -> Measure:
        if isinstance(measure, Measure):
            if measure in self.values:
                return measure
        else:
            for m in self.values:
                if str(m) == measure:
                    return m
            from cranfield.measures._parse import parse_measures

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
        MeasureError
            If ``how`` is unknown, or ``"micro"`` for a measure without contingency counts.
        """
        m = self._key(measure)
        chosen = self.how(m) if how is None else how
        if chosen not in AGGREGATIONS:
            raise MeasureError(
                f"Unknown aggregation {chosen!r}; choose one of {', '.join(AGGREGATIONS)}."
            )
        if chosen == "micro":
            if m not in self.micro:
                raise MeasureError(
                    f"{m} cannot be micro-averaged: only set measures pool their counts."
                )
            return self.micro[m]
        eps = self.epsilon if epsilon is None else epsilon
        return aggregate(self.values[m], chosen, epsilon=eps)

    def per_topic(self, measure: Measure | str) -> dict[str, float]:
        """``{query_id: value}`` for one measure."""
        m = self._key(measure)
        return dict(zip(self.topics, self.values[m].tolist(), strict=True))

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
        """The per-topic table as a pandas DataFrame indexed by ``query_id``."""
        return self.to_polars().to_pandas().set_index("query_id")

    def to_dict(self) -> dict[str, Any]:
        """Plain data: run name, policy, missing topics, means and per-topic values."""
        return {
            "run": self.run_name,
            "missing_policy": self.missing_policy,
            "missing_topics": list(self.missing_topics),
            "num_topics": len(self.topics),
            "means": self.means(),
            "per_query": {str(m): self.per_topic(m) for m in self.values},
        }

    def policy_note(self, *, command_line: bool = False) -> str:
        """One line stating how topics were averaged (printed with every result).

        ``command_line=True`` names the policy as the command line sets it (``--missing zero``
        rather than ``missing='zero'``).
        """
        n = len(self.topics)
        k = len(self.missing_topics)
        if k == 0:
            return f"{n} topics, every judged topic retrieved."
        if self.missing_policy == "zero":
            zero = spelled("missing", "zero", command_line=command_line)
            return f"{n} topics; {k} judged topic(s) absent from the run scored 0 ({zero})."
        skip = spelled("missing", "skip", command_line=command_line)
        return f"{n} topics; {k} judged topic(s) absent from the run were left out ({skip})."

    def to_trec_eval(self, *, per_query: bool = False) -> str:
        """The results in trec_eval's text format (``name<TAB>qid<TAB>value``).

        Measures with a trec_eval name print under it (``P_10``, ``ndcg_cut_10``); others
        print under their canonical name.
        """
        from cranfield.report.trec_eval_text import format_line, label_for

        lines: list[str] = []
        labels = {
            m: label_for(m) if m.spec.trec_at or m.at is None else str(m) for m in self.values
        }
        if per_query:
            for i, t in enumerate(self.topics):
                for m, v in self.values.items():
                    lines.append(
                        format_line(labels[m], t, float(v[i]), integer=m.spec.integer_valued)
                    )
        for m in self.values:
            lines.append(format_line(labels[m], "all", self[m], integer=m.spec.integer_valued))
        return "".join(line + "\n" for line in lines)
