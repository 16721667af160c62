"""A fusion method's parameters tuned on training folds and scored on held-out queries.

:func:`tune` tries every setting of the method's grid (the weights on an exact simplex
grid, RRF's ``k``, ...), scores each fused run once per query, and hands the per-query
scores to the lab's cross-validation (:func:`cranfield.lab.cross_validate_scores`): for each
fold the setting with the best mean on the *other* folds is chosen and the fused run of that
setting is kept for the fold's queries only. The held-out fused run is then compared with
each input run by :func:`cranfield.stats.compare_scores` (paired tests, corrected for the
number of input runs). The setting that is best on all queries is reported beside it, and
every output calls it what it is: optimistic, because it was chosen and scored on the same
queries.

A method that learns from qrels (BayesFuse, PosFuse, ...: :mod:`cranfield.fusion.supervised`)
is trained, for each fold, on the qrels of the other folds only, and its settings scored with
that training; :func:`held_out_fuse` does the same for one setting without a measure. Its
all-queries figure is trained on every query too, and labelled so.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from cranfield._validate import check_choice, check_float, check_int
from cranfield.errors import OptionError
from cranfield.fusion.fuse import fuse, fusion_inputs
from cranfield.fusion.methods import METHODS

if TYPE_CHECKING:
    import polars as pl
    from numpy.typing import NDArray

    from cranfield._types import FusionMethod, FusionNormalization
    from cranfield.data.run import Run
    from cranfield.evaluation.evaluator import MeasureLike
    from cranfield.evaluation.options import EvalOptions
    from cranfield.fusion.fuse import RankSource
    from cranfield.io.load import QrelsLike, RunLike
    from cranfield.lab.folds import CrossValidation
    from cranfield.stats.comparison import Comparison
    from cranfield.stats.corrections import Correction

__all__ = ["OPTIMISTIC", "FusionTuning", "Setting", "held_out_fuse", "simplex_grid", "tune"]

OPTIMISTIC: Final = "optimistic: chosen and scored on the same queries"
TRAINED_OPTIMISTIC: Final = "optimistic: trained, chosen and scored on the same queries"
HELD_OUT: Final = "fused (held-out)"


def simplex_grid(n_runs: int, step: float = 0.1) -> list[tuple[float, ...]]:
    """Every weighting of ``n_runs`` runs whose weights are multiples of ``step`` summing to 1.

    The grid is built from integers: the ``n = 1 / step`` units are shared among the runs in
    every way (``C(n + n_runs - 1, n_runs - 1)`` weightings), and each weight is its units
    divided by ``n``. ranx filters a floating-point product with ``sum(w) == 1.0``, and sums
    such as ``0.2 + 0.7 + 0.1`` (``1.0000000000000002``) are not exactly 1.0, so it never
    tries some weightings: 4 of the 66 for 3 runs at step 0.1, 30 of 286 for 4 runs, 141 of
    1,001 for 5.

    Raises
    ------
    cranfield.errors.OptionError
        ``n_runs`` below 1, or a ``step`` that is not 1 divided by an integer from 1 to 1,000.

    Examples
    --------
    >>> len(simplex_grid(3)), len(simplex_grid(4)), len(simplex_grid(5))
    (66, 286, 1001)
    >>> (0.2, 0.7, 0.1) in simplex_grid(3), 0.2 + 0.7 + 0.1 == 1.0
    (True, False)
    >>> simplex_grid(2, 0.5)
    [(0.0, 1.0), (0.5, 0.5), (1.0, 0.0)]
    """
    n_runs = check_int("n_runs", n_runs, minimum=1)
    step = check_float("step", step, minimum=0.0, maximum=1.0, above=True)
    units = round(1.0 / step)
    if not 1 <= units <= 1000 or abs(units * step - 1.0) > 1e-9:
        raise OptionError("step", "1 divided by an integer from 1 to 1000 (0.1, 0.05, ...)", step)
    out = []
    # stars and bars: the places of n_runs - 1 bars among units + n_runs - 1 slots
    for bars in itertools.combinations(range(units + n_runs - 1), n_runs - 1):
        edges = (-1, *bars, units + n_runs - 1)
        out.append(tuple((edges[j + 1] - edges[j] - 1) / units for j in range(n_runs)))
    return sorted(out)


@dataclass(frozen=True)
class Setting:
    """One point of the grid: the weights (or ``None``) and the method's parameters."""

    weights: tuple[float, ...] | None
    params: tuple[tuple[str, float], ...]

    @property
    def label(self) -> str:
        """``w=0.2,0.8 k=60``: how the setting is named in tables."""
        parts = []
        if self.weights is not None:
            parts.append("w=" + ",".join(f"{w:g}" for w in self.weights))
        parts.extend(f"{k}={v:g}" for k, v in self.params)
        return " ".join(parts) or "(no parameters)"

    def to_dict(self) -> dict[str, Any]:
        """Plain data: ``{"weights": [...] or None, "params": {...}}``."""
        return {
            "weights": None if self.weights is None else list(self.weights),
            "params": dict(self.params),
        }


def _settings(method: str, n_runs: int, step: float) -> list[Setting]:
    spec = METHODS[method]
    weightings: list[tuple[float, ...] | None] = (
        list(simplex_grid(n_runs, step)) if spec.weighted else [None]
    )
    grids = [[(p.name, v) for v in p.grid] for p in spec.params]
    return [Setting(w, tuple(combo)) for w in weightings for combo in itertools.product(*grids)]


@dataclass(frozen=True, eq=False)
class FusionTuning:
    """What :func:`tune` returns.

    Attributes
    ----------
    method, norm, measure:
        The method, its normalisation and the measure tuned on.
    settings:
        ``{label: Setting}``: every setting tried.
    cross_validation:
        The lab's :class:`~cranfield.lab.CrossValidation` over the settings: per fold the
        setting chosen on the other folds, its training and held-out means, the held-out
        estimate, and the best setting on all queries (optimistic).
    run:
        The held-out fused run: each fold's queries fused with the setting chosen without
        them (``None`` when tuned on all queries only).
    input_means:
        ``{run name: mean}`` of each input run on the same queries.
    comparison:
        The held-out fused run against each input run (paired tests, corrected), or
        ``None`` when tuned on all queries only.
    optimistic_run:
        Every query fused with the setting best on all queries (optimistic).
    folds_used:
        ``False`` when tuned on all queries only.
    """

    method: str
    norm: str
    measure: str
    settings: dict[str, Setting]
    cross_validation: CrossValidation
    run: Run | None
    input_means: dict[str, float]
    comparison: Comparison | None
    optimistic_run: Run
    folds_used: bool
    correction: str = "holm"

    @property
    def _optimistic(self) -> str:
        return TRAINED_OPTIMISTIC if METHODS[self.method].trained else OPTIMISTIC

    @property
    def gap(self) -> float:
        """All-queries best mean minus the held-out mean: how much tuning on the reported
        queries overstates the fused run."""
        return self.cross_validation.all_topics_score - self.cross_validation.score

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (the optimistic numbers under keys that say so)."""
        cv = self.cross_validation
        out: dict[str, Any] = {
            "method": self.method,
            "norm": self.norm,
            "measure": self.measure,
            "settings_tried": len(self.settings),
            "input_means": dict(self.input_means),
            "trained_on_qrels": METHODS[self.method].trained,
            "optimistic": {
                "note": self._optimistic,
                "setting": self.settings[cv.all_topics_best].to_dict(),
                "score": cv.all_topics_score,
            },
        }
        if self.folds_used:
            out["held_out"] = {
                "n_folds": cv.n_folds,
                "seed": cv.seed,
                "score": cv.score,
                "gap": self.gap,
                "folds": [
                    {
                        "fold": f.fold,
                        "queries": list(f.test_topics),
                        "setting": self.settings[f.chosen].to_dict(),
                        "train_score": f.train_score,
                        "test_score": f.test_score,
                    }
                    for f in cv.folds
                ],
            }
            if self.comparison is not None:
                out["tests"] = self.comparison.to_dict()
        return out

    def to_text(self) -> str:
        """The tuning as a person reads it: per fold the setting and its scores, the
        held-out estimate, the optimistic all-queries figure labelled so, the input runs and
        the paired tests."""
        cv = self.cross_validation
        m = self.measure
        head = (
            f"{self.method} (normalisation {self.norm}) tuned on {m} over "
            f"{len(self.settings)} setting(s), {len(cv.held_out)} queries"
        )
        lines = [head]
        if METHODS[self.method].trained:
            lines.append(
                f"{self.method} learns from qrels: "
                + (
                    "each fold trained on the qrels of the other folds only; the all-queries "
                    "figure trained on every query"
                    if self.folds_used
                    else "trained on every query"
                )
            )
        if self.folds_used:
            lines.append(f"{cv.n_folds}-fold cross-validation (seed {cv.seed}):")
            lines.append(f"{'fold':>4}  {'queries':>7}  {'train':>8}  {'held-out':>8}  setting")
            for f in cv.folds:
                lines.append(
                    f"{f.fold:>4}  {len(f.test_topics):>7}  {f.train_score:>8.4f}  "
                    f"{f.test_score:>8.4f}  {f.chosen}"
                )
            lines.append(f"held-out fused {m}: {cv.score:.4f}")
        lines.append(
            f"tuned on all queries ({self._optimistic}): {cv.all_topics_score:.4f} with "
            f"{cv.all_topics_best}"
        )
        if self.folds_used:
            lines.append(f"gap (optimistic - held-out): {self.gap:+.4f}")
        for name, mean in self.input_means.items():
            lines.append(f"input run {name}: {m} {mean:.4f}")
        if self.comparison is not None:
            for name in self.input_means:
                pair = self.comparison.pair(HELD_OUT, name, m)
                tests = ", ".join(
                    f"{t} p={o.p_value:.4g} ({self.correction} {o.p_adjusted:.4g})"
                    for t, o in pair.tests.items()
                )
                gain = cv.score - self.input_means[name]
                lines.append(f"held-out fused - {name}: {gain:+.4f}, {tests}")
        return "\n".join(lines)


def tune(  # noqa: PLR0913 -- qrels, runs, method, measure, and the tuning's own options
    qrels: QrelsLike,
    runs: Sequence[RunLike] | Mapping[str, RunLike],
    method: FusionMethod = "wsum",
    measure: MeasureLike = "nDCG@10",
    *,
    norm: FusionNormalization = "min-max",
    n_folds: int | None = 5,
    seed: int = 0,
    folds: Sequence[Sequence[str]] | None = None,
    step: float = 0.1,
    options: EvalOptions | None = None,
    correction: Correction = "holm",
    ranks: RankSource = "score",
) -> FusionTuning:
    """Tune ``method``'s weights and parameters on training folds; score on held-out queries.

    Parameters
    ----------
    qrels:
        Judgments (anything :func:`cranfield.evaluate` accepts).
    runs:
        At least two runs (paths in any format, ``Run`` objects, ...), as a list or a
        ``{name: run}`` mapping.
    method, norm:
        As in :func:`~cranfield.fusion.fuse`.
    measure:
        The one measure tuned on and reported.
    n_folds, seed, folds:
        The folds: ``n_folds`` seeded folds (:func:`cranfield.lab.kfold`), or the given
        ``folds`` (lists of query ids partitioning the scored queries). ``n_folds=None``
        with no ``folds`` tunes on all queries only, which is optimistic and said so.
    step:
        The weight grid's step (:func:`simplex_grid`), for the weighted methods.
    options:
        The evaluation options (:class:`~cranfield.evaluation.options.EvalOptions`).
    correction:
        The correction of the paired tests for the number of input runs
        (:class:`~cranfield.stats.plan.TestPlan`'s ``correction``).
    ranks:
        A run's ranking for the rank methods, as in :func:`~cranfield.fusion.fuse`.

    Returns
    -------
    FusionTuning

    Notes
    -----
    A method trained on qrels (``posfuse``, ...: :func:`cranfield.fusion.train`) is trained
    for each fold on the qrels of the other folds only, and each setting of its grid
    (``n_segments``, ``w``) fused with that training; the all-queries figure is trained on
    every query as well, and labelled optimistic.

    Each setting's fused run is scored once over all queries; a fold's choice uses the
    means over its training queries only (ties go to the setting listed first: the grid in
    order). Because fusion is done query by query, the held-out fused run of a fold is the
    fused run of the setting chosen for it, restricted to the fold's queries.
    """
    import polars as pl

    from cranfield.evaluation.evaluator import Evaluator
    from cranfield.io.runset import several_runs
    from cranfield.lab.folds import cross_validate_scores

    check_choice("method", method, tuple(METHODS))
    if METHODS[method].trained:
        return _tune_trained(
            qrels,
            runs,
            method,
            measure,
            norm=norm,
            n_folds=n_folds,
            seed=seed,
            folds=folds,
            options=options,
            correction=correction,
            ranks=ranks,
        )
    run_set = several_runs(runs)
    loaded = [run_set.load(i) for i in range(len(run_set))]
    evaluator = Evaluator(qrels, measure, options)
    if len(evaluator.measures) != 1:
        raise OptionError("measure", "exactly one measure", measure)
    wanted = evaluator.measures[0]
    settings = {s.label: s for s in _settings(method, len(loaded), step)}
    inverted = norm == "min-max-inverted" and METHODS[method].kind == "rank"
    inputs = fusion_inputs(loaded, ranks=ranks, inverted=inverted)
    fused = {
        label: fuse(inputs, method, norm=norm, weights=s.weights, params=dict(s.params), name=label)
        for label, s in settings.items()
    }
    table = evaluator.many({**fused, **{r.name: r for r in loaded}})
    matrix = table.matrix(wanted)
    per_setting = {
        label: dict(zip(table.topics, matrix[:, j].tolist(), strict=True))
        for j, label in enumerate(table.names)
        if label in settings
    }
    folds_used = folds is not None or n_folds is not None
    if folds_used:
        cv = cross_validate_scores(
            per_setting, n_folds=n_folds or 5, seed=seed, measure=str(wanted), folds=folds
        )
    else:  # one fold is the whole set: the lab's code needs >= 2, so split and ignore
        cv = cross_validate_scores(per_setting, n_folds=2, seed=seed, measure=str(wanted))
    names = [r.name for r in loaded]
    input_cols = {n: matrix[:, table.names.index(n)] for n in names}
    input_means = {n: float(v.mean()) for n, v in input_cols.items()}
    best = cv.all_topics_best
    optimistic_run = _renamed(fused[best], f"{method} tuned on all queries (optimistic)")
    if not folds_used:
        return _all_queries_only(
            (method, norm, str(wanted)), settings, cv, input_means, optimistic_run
        )
    pieces = [
        fused[f.chosen].frame.filter(pl.col("query_id").is_in(list(f.test_topics)))
        for f in cv.folds
    ]
    return _held_out(
        (method, norm, str(wanted)),
        settings,
        cv,
        pieces,
        input_cols,
        optimistic_run,
        table.topics,
        correction,
    )


def _renamed(run: Run, note: str) -> Run:
    from cranfield.data.run import Run

    return Run(run.frame, name=run.name, tag=run.tag, notes=(*run.notes, note))


def _partition(
    topics: list[str], n_folds: int | None, seed: int, folds: Sequence[Sequence[str]] | None
) -> list[tuple[str, ...]]:
    """The folds :func:`cranfield.lab.cross_validate_scores` makes of ``topics`` (seeded, or
    the given ``folds`` checked to partition them)."""
    from cranfield.lab.folds import cross_validate_scores

    probe = cross_validate_scores(
        {"-": dict.fromkeys(topics, 0.0)}, n_folds=n_folds or 5, seed=seed, folds=folds
    )
    return [f.test_topics for f in probe.folds]


def _tune_trained(  # noqa: PLR0913 -- tune's arguments
    qrels: QrelsLike,
    runs: Sequence[RunLike] | Mapping[str, RunLike],
    method: FusionMethod,
    measure: MeasureLike,
    *,
    norm: FusionNormalization,
    n_folds: int | None,
    seed: int,
    folds: Sequence[Sequence[str]] | None,
    options: EvalOptions | None,
    correction: Correction,
    ranks: RankSource,
) -> FusionTuning:
    """:func:`tune` for a method trained on qrels: trained on each fold's training queries
    (the other folds), every setting fused with it and chosen on those queries, scored on the
    fold's own queries."""
    import polars as pl

    from cranfield.evaluation.evaluator import Evaluator
    from cranfield.fusion.training import train
    from cranfield.io.load import load_qrels
    from cranfield.io.runset import several_runs
    from cranfield.lab.folds import CrossValidation, FoldOutcome

    judged = load_qrels(qrels, format=None if options is None else options.qrels_format)
    run_set = several_runs(runs)
    loaded = [run_set.load(i) for i in range(len(run_set))]
    evaluator = Evaluator(judged, measure, options)
    if len(evaluator.measures) != 1:
        raise OptionError("measure", "exactly one measure", measure)
    wanted = evaluator.measures[0]
    settings = {s.label: s for s in _settings(method, len(loaded), 0.1)}
    inputs = fusion_inputs(loaded, ranks=ranks, inverted=norm == "min-max-inverted")
    names = [r.name for r in loaded]
    base = evaluator.many({r.name: r for r in loaded})
    topics = base.topics
    matrix = base.matrix(wanted)
    input_cols = {n: matrix[:, base.names.index(n)] for n in names}
    input_means = {n: float(v.mean()) for n, v in input_cols.items()}

    def trained_on(
        queries: Sequence[str],
    ) -> tuple[dict[str, Run], dict[str, NDArray[np.float64]]]:
        training = train(
            judged,
            inputs,
            queries=queries,
            norm=norm,
            relevance_level=evaluator.options.relevance_level,
        )
        fused = {
            label: fuse(
                inputs, method, norm=norm, params=dict(s.params), training=training, name=label
            )
            for label, s in settings.items()
        }
        table = evaluator.many(fused)  # the same qrels and options: the same queries
        cols = table.matrix(wanted)
        return fused, {label: cols[:, table.names.index(label)] for label in settings}

    where = {t: i for i, t in enumerate(topics)}
    everything, overall = trained_on(topics)
    means = {label: float(v.mean()) for label, v in overall.items()}
    best = max(means, key=lambda label: (means[label], -list(settings).index(label)))
    optimistic_run = _renamed(
        everything[best], f"{method} trained and tuned on all queries (optimistic)"
    )
    folds_used = folds is not None or n_folds is not None
    held = np.full(len(topics), np.nan)
    outcomes: list[FoldOutcome] = []
    pieces = []
    if folds_used:
        for i, test in enumerate(_partition(topics, n_folds, seed, folds)):
            rows = np.array([where[t] for t in test], dtype=np.intp)
            mask = np.ones(len(topics), dtype=bool)
            mask[rows] = False
            train_rows = np.flatnonzero(mask)
            train_topics = [topics[j] for j in train_rows]
            fused, scored = trained_on(train_topics)
            train_means = {label: float(v[train_rows].mean()) for label, v in scored.items()}
            chosen = max(
                train_means, key=lambda label: (train_means[label], -list(settings).index(label))
            )
            held[rows] = scored[chosen][rows]
            pieces.append(fused[chosen].frame.filter(pl.col("query_id").is_in(list(test))))
            outcomes.append(
                FoldOutcome(
                    fold=i,
                    test_topics=tuple(test),
                    train_topics=tuple(train_topics),
                    chosen=chosen,
                    train_means=train_means,
                    train_score=train_means[chosen],
                    test_score=float(scored[chosen][rows].mean()),
                )
            )
    cv = CrossValidation(
        measure=str(wanted),
        n_folds=len(outcomes),
        seed=seed,
        candidates=list(settings),
        folds=outcomes,
        held_out={t: float(v) for t, v in zip(topics, held, strict=True)},
        score=float(held.mean()) if folds_used else float("nan"),
        all_topics_best=best,
        all_topics_score=means[best],
        predefined=folds is not None,
    )
    if not folds_used:
        return _all_queries_only(
            (method, norm, str(wanted)), settings, cv, input_means, optimistic_run
        )
    return _held_out(
        (method, norm, str(wanted)),
        settings,
        cv,
        pieces,
        input_cols,
        optimistic_run,
        topics,
        correction,
    )


def _all_queries_only(
    what: tuple[str, str, str],
    settings: dict[str, Setting],
    cv: CrossValidation,
    input_means: dict[str, float],
    optimistic_run: Run,
) -> FusionTuning:
    """The :class:`FusionTuning` of a tuning on all queries only (no folds): the optimistic
    figure and run, no held-out run and no comparison."""
    method, norm, measure = what
    return FusionTuning(
        method,
        norm,
        measure,
        settings,
        cv,
        None,
        input_means,
        None,
        optimistic_run,
        folds_used=False,
    )


def _held_out(
    what: tuple[str, str, str],
    settings: dict[str, Setting],
    cv: CrossValidation,
    pieces: list[pl.DataFrame],
    input_cols: dict[str, NDArray[np.float64]],
    optimistic_run: Run,
    topics: list[str],
    correction: Correction,
) -> FusionTuning:
    """The :class:`FusionTuning` of held-out folds: each fold's queries of the fused run
    chosen for it, compared with each input run on the same queries."""
    import polars as pl

    from cranfield.data.run import Run
    from cranfield.stats.comparison import compare_scores

    method, norm, measure = what
    held = np.array([cv.held_out[t] for t in topics])
    frame = pl.concat(pieces).sort(["query_id", "score", "doc_id"], descending=[False, True, True])
    held_run = Run(frame, name=HELD_OUT, tag=f"{method}-heldout")
    comparison = compare_scores(
        {HELD_OUT: {measure: held}, **{n: {measure: v} for n, v in input_cols.items()}},
        topics=topics,
        baseline=HELD_OUT,
        correction=correction,
    )
    return FusionTuning(
        method,
        norm,
        measure,
        settings,
        cv,
        held_run,
        {n: float(v.mean()) for n, v in input_cols.items()},
        comparison,
        optimistic_run,
        folds_used=True,
        correction=correction,
    )


def held_out_fuse(  # noqa: PLR0913 -- the qrels, runs and method, and the folds
    qrels: QrelsLike,
    runs: Sequence[RunLike] | Mapping[str, RunLike],
    method: FusionMethod,
    *,
    norm: FusionNormalization = "min-max",
    params: Mapping[str, Any] | None = None,
    ranks: RankSource = "score",
    n_folds: int | None = 5,
    seed: int = 0,
    folds: Sequence[Sequence[str]] | None = None,
    relevance_level: int = 1,
) -> Run:
    """A method trained on qrels (:func:`cranfield.fusion.train`) fused fold by fold: each
    fold's queries fused with what the runs learnt on the qrels of the other folds.

    The folds are made of the queries of ``qrels`` (``n_folds`` seeded folds, as
    :func:`cranfield.lab.kfold` makes them, or the given ``folds``); the fused run has those
    queries only. ``n_folds=None`` with no ``folds`` trains on every query and fuses every
    query of the runs, which is optimistic on the judged queries: the run's notes say so.
    A document is relevant to the training at ``relevance_level`` or above.

    Raises
    ------
    cranfield.errors.OptionError
        A method that is not trained, a parameter out of range, folds that do not
        partition the queries of the qrels.

    Examples
    --------
    >>> from cranfield import load_qrels, load_run
    >>> a = load_run({"q1": {"x": 2.0, "y": 1.0}, "q2": {"x": 2.0, "z": 1.0}}, name="a")
    >>> b = load_run({"q1": {"y": 2.0, "x": 1.0}, "q2": {"z": 2.0, "x": 1.0}}, name="b")
    >>> qrels = load_qrels({"q1": {"x": 1}, "q2": {"z": 1}})
    >>> fused = held_out_fuse(qrels, [a, b], "posfuse", folds=[["q1"], ["q2"]])
    >>> # q2 fused by q1's training: its relevant document was first in a and second in b
    >>> fused.to_dict()
    {'q1': {'y': 2.0, 'x': 0.0}, 'q2': {'x': 2.0, 'z': 0.0}}
    """
    import polars as pl

    from cranfield.data.run import Run
    from cranfield.fusion.training import train
    from cranfield.io.load import load_qrels

    check_choice("method", method, tuple(METHODS))
    if not METHODS[method].trained:
        trained = ", ".join(n for n, s in METHODS.items() if s.trained)
        raise OptionError("method", f"a method trained on qrels ({trained})", method)
    judged = load_qrels(qrels)
    run_set = several_runs_of(runs)
    inputs = fusion_inputs(run_set, ranks=ranks, inverted=norm == "min-max-inverted")
    note = f"{method} trained on the qrels of the other folds for each fold's queries"
    if folds is None and n_folds is None:
        training = train(judged, inputs, queries=None, norm=norm, relevance_level=relevance_level)
        run = fuse(inputs, method, norm=norm, params=params, training=training)
        return Run(
            run.frame,
            name=run.name,
            tag=run.tag,
            notes=(*run.notes, f"{method} trained on every judged query ({TRAINED_OPTIMISTIC})"),
        )
    topics = judged.topics
    pieces = []
    for test in _partition(topics, n_folds, seed, folds):
        held = set(test)
        training = train(
            judged,
            inputs,
            queries=[t for t in topics if t not in held],
            norm=norm,
            relevance_level=relevance_level,
        )
        run = fuse(inputs, method, norm=norm, params=params, training=training)
        pieces.append(run.frame.filter(pl.col("query_id").is_in(list(test))))
    frame = pl.concat(pieces).sort(["query_id", "score", "doc_id"], descending=[False, True, True])
    return Run(frame, name=method, tag=method, notes=(note,))


def several_runs_of(runs: Sequence[RunLike] | Mapping[str, RunLike]) -> list[Run]:
    """``runs`` loaded and named (:class:`~cranfield.io.runset.RunSet`)."""
    from cranfield.io.runset import several_runs

    run_set = several_runs(runs)
    return [run_set.load(i) for i in range(len(run_set))]
