"""Which measure tells the runs apart, and how many topics would it need: one call.

:func:`power` scores the runs once (an :class:`~cranfield.evaluation.evaluator.Evaluator`
table) and answers, per measure, the two questions ``cranfield power`` prints: the
discriminative power and swap rates of :func:`~cranfield.stats.discriminative_power.discriminative_power`,
and the topics Sakai's topic-set-size design asks for
(:func:`~cranfield.stats.topic_set_size.topic_set_size` on the
:func:`~cranfield.stats.topic_set_size.residual_variance` of the runs' scores). Its result,
:class:`PowerStudy`, holds both; :func:`cranfield.report.power.power_text` prints it, and
:func:`cranfield.plot.asl_curves` and :func:`cranfield.plot.topic_set_curves` draw it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Unpack

from cranfield._validate import check_float, check_int
from cranfield.errors import OptionError
from cranfield.stats.discriminative_power import discriminative_power
from cranfield.stats.resampling import check_rng
from cranfield.stats.topic_set_size import residual_variance, topic_set_size

if TYPE_CHECKING:
    from collections.abc import Iterable

    from cranfield._types import RunNaming
    from cranfield.evaluation.evaluator import MeasureLike
    from cranfield.evaluation.execution import EvalExecutionKwargs, Execution
    from cranfield.evaluation.options import EvalOptions
    from cranfield.evaluation.results import ScoreTable
    from cranfield.io.load import QrelsLike, RunLike
    from cranfield.io.runset import RunSet
    from cranfield.stats.discriminative_power import DiscriminativePower
    from cranfield.stats.resampling import RngLike
    from cranfield.stats.topic_set_size import TopicSetSize

__all__ = ["DEFAULT_MEASURES", "PowerStudy", "power"]

DEFAULT_MEASURES: Final = ("AP", "nDCG@10", "P@10", "bpref")
"""The measures :func:`power` studies when none are given (those of ``cranfield power``)."""


@dataclass(frozen=True, eq=False)
class PowerStudy:
    """What :func:`power` returns: each measure's discriminative power and topics needed.

    Attributes
    ----------
    discriminative_power:
        The share of run pairs each measure finds significant (paired bootstrap, randomised
        Tukey HSD), the ASL curves and the swap rates.
    topic_set_size:
        ``{measure: TopicSetSize}``: the topics each design needs, from the residual variance
        of the measure's runs × queries scores; the measures in the order of
        :attr:`discriminative_power`.
    """

    discriminative_power: DiscriminativePower
    topic_set_size: dict[str, TopicSetSize]

    def __repr__(self) -> str:
        p = self.discriminative_power
        return (
            f"PowerStudy(measures={list(p.measures)}, runs={len(p.runs)}, "
            f"queries={p.queries}, seed={p.seed})"
        )

    @property
    def variances(self) -> dict[str, float]:
        """``{measure: residual variance}``: what :func:`cranfield.plot.topic_set_curves`
        draws."""
        return {name: d.variance for name, d in self.topic_set_size.items()}

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values: :attr:`discriminative_power`'s, and under
        ``"topic_set_size"`` each measure's design."""
        data = self.discriminative_power.to_dict()
        data["topic_set_size"] = {name: d.to_dict() for name, d in self.topic_set_size.items()}
        return data

    def to_json(self, *, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text, ending in a newline (same inputs and seed, same
        bytes)."""
        check_int("indent", indent, minimum=0, none=True)
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False) + "\n"


def power(  # noqa: PLR0913 -- entry point: inputs, naming, the study's settings, options, where
    qrels: QrelsLike,
    runs: RunSet | Sequence[RunLike] | Mapping[str, RunLike],
    measures: MeasureLike | Iterable[MeasureLike] = DEFAULT_MEASURES,
    *,
    names: RunNaming | Sequence[str] = "file",
    alpha: float = 0.05,
    n_resamples: int = 1000,
    trials: int = 100,
    seed: RngLike = None,
    min_d: float = 0.05,
    beta: float = 0.2,
    delta: float | None = None,
    options: EvalOptions | None = None,
    known: QrelsLike | None = None,
    intents: Any = None,
    execution: Execution | None = None,
    **kwargs: Unpack[EvalExecutionKwargs],
) -> PowerStudy:
    """Discriminative power, swap rates and topics needed of each measure on the runs.

    Parameters
    ----------
    qrels:
        Judgments (anything :func:`cranfield.evaluate` accepts).
    runs:
        Two or more runs: paths, ``Run`` objects, DataFrames or dicts, as a list, or a
        ``{name: run}`` mapping that names them.
    measures:
        Measure names or ``Measure`` objects (default ``AP``, ``nDCG@10``, ``P@10``,
        ``bpref``).
    names:
        How to name runs given as a list: ``"file"`` (default), ``"tag"``, or a list of names
        (:mod:`cranfield.io.run_names`).
    alpha:
        Significance level of the tests and of the designs (and 1 − the confidence of the
        interval design), in (0, 1).
    n_resamples:
        Resamples of the bootstrap test and of the randomised Tukey HSD, >= 1.
    trials:
        Random splits of the queries for the swap rates; 0 for none.
    seed:
        An integer, a ``numpy.random.Generator`` or ``None`` (fresh); the seed used is kept on
        the result.
    min_d:
        The smallest difference the paired t-test and the ANOVA designs must detect, > 0.
    beta:
        Type II error rate of the designs: their power is ``1 - beta``, in (0, 1).
    delta:
        Largest expected width of the confidence interval; default ``min_d``.
    options, known, intents, **kwargs:
        The evaluation options and extra inputs of :func:`cranfield.evaluate`
        (:class:`~cranfield.evaluation.options.EvalOptions`, whole or as keywords).
    execution, **kwargs:
        Where and how the runs are scored (:class:`~cranfield.evaluation.execution.
        Execution`, whole or as keywords: ``jobs``, ``scheduler``, ``store``, ``progress``);
        the numbers are the same.

    Returns
    -------
    PowerStudy

    Raises
    ------
    cranfield.errors.OptionError
        A bad setting (checked before anything is evaluated), fewer than 2 runs, or no
        measure.
    cranfield.errors.EvaluationError
        Fewer than 2 queries scored, or a score that is not a finite number.

    Notes
    -----
    The runs are scored once; :func:`~cranfield.stats.discriminative_power.discriminative_power`
    and, for each measure, :func:`~cranfield.stats.topic_set_size.topic_set_size` of the
    :func:`~cranfield.stats.topic_set_size.residual_variance` of its queries × runs matrix
    with ``systems`` the number of runs, all on that one table: the numbers are those of
    the building blocks called in turn.

    Examples
    --------
    >>> qrels = {f"q{i}": {"d1": 1, "d2": 1, "d3": 0} for i in range(1, 7)}
    >>> good = {f"q{i}": {"d1": 3.0, "d2": 2.0, "x": 1.0} for i in range(1, 7)}
    >>> fair = {f"q{i}": {"d1": 1.0 + i % 3, "x": 2.5, "d2": 1.5} for i in range(1, 7)}
    >>> poor = {f"q{i}": {"x": 3.0, "d3": 2.0, "d1": 1.0 + i % 2 * 3} for i in range(1, 7)}
    >>> study = power(qrels, {"good": good, "fair": fair, "poor": poor}, ["AP", "P@1"],
    ...               n_resamples=200, trials=0, seed=1)
    >>> study
    PowerStudy(measures=['AP', 'P@1'], runs=3, queries=6, seed=1)
    >>> ap = study.discriminative_power.measures["AP"]
    >>> round(ap.bootstrap, 4), round(ap.tukey, 4)
    (1.0, 0.3333)
    >>> study.topic_set_size["AP"].topics
    {'paired_t': 107, 'anova': 130, 'interval': 207}
    """
    from cranfield.evaluation.evaluator import Evaluator
    from cranfield.evaluation.execution import execution_from
    from cranfield.io.runset import several_runs

    _check_settings(
        alpha=alpha,
        n_resamples=n_resamples,
        trials=trials,
        seed=seed,
        min_d=min_d,
        beta=beta,
        delta=delta,
    )
    rest: dict[str, Any] = dict(kwargs)
    run_on = execution_from(execution, rest, caller="power")
    evaluator = Evaluator(qrels, measures, options, known=known, intents=intents, **rest)
    if not evaluator.measures:
        raise OptionError("measures", "at least one measure", measures)
    run_set = several_runs(runs, names)
    table = evaluator.many(run_set, execution=run_on)
    return _study(
        table,
        alpha=alpha,
        n_resamples=n_resamples,
        trials=trials,
        seed=seed,
        min_d=min_d,
        beta=beta,
        delta=delta,
    )


def _check_settings(
    *,
    alpha: float,
    n_resamples: int,
    trials: int,
    seed: RngLike,
    min_d: float,
    beta: float,
    delta: float | None,
) -> None:
    """Refuse a bad setting of :func:`power` before anything is evaluated, with the sentence
    the building block that takes it would say."""
    check_float("min_d", min_d, minimum=0.0, above=True)
    check_float("alpha", alpha, minimum=0.0, maximum=1.0, above=True, below=True)
    check_float("beta", beta, minimum=0.0, maximum=1.0, above=True, below=True)
    if delta is not None:
        check_float("delta", delta, minimum=0.0, above=True)
    check_int("n_resamples", n_resamples, minimum=1)
    check_int("trials", trials, minimum=0)
    check_rng(seed)


def _study(
    table: ScoreTable,
    *,
    alpha: float,
    n_resamples: int,
    trials: int,
    seed: RngLike,
    min_d: float,
    beta: float,
    delta: float | None,
) -> PowerStudy:
    """Every measure of ``table``: its discriminative power, then its topics needed."""
    found = discriminative_power(
        table, alpha=alpha, n_resamples=n_resamples, trials=trials, seed=seed
    )
    designs = {
        str(m): topic_set_size(
            residual_variance(table.matrix(m)),
            min_d=min_d,
            alpha=alpha,
            beta=beta,
            systems=len(table),
            delta=delta,
        )
        for m in table.measures
    }
    return PowerStudy(found, designs)
