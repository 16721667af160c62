"""Training and testing: seeded topic folds and cross-validated selection of a configuration.

Choosing the best of several runs (parameter settings, system configurations) on a set of
topics and reporting its score *on the same topics* overstates how well the choice will do
on new topics. :func:`cross_validate` splits the topics into ``n_folds`` folds; for each fold it
chooses the candidate with the best mean on the *other* folds and scores that choice on the
held-out fold, so every topic's score comes from a choice made without it.
:func:`select` chooses on given training topics and warns (:class:`SelectionBiasWarning`)
when the topics it reports on overlap them.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Unpack

import numpy as np

from cranfield._deprecation import DeprecatedAlias, renamed_parameters
from cranfield._validate import check_int
from cranfield.errors import EvaluationError, OptionError
from cranfield.evaluation.options import EvalOptions
from cranfield.io.folds import read_folds  # the one reader of a fold file, named here too

if TYPE_CHECKING:
    import polars as pl

    from cranfield.evaluation.evaluator import MeasureLike
    from cranfield.evaluation.execution import EvalExecutionKwargs, Execution
    from cranfield.io.load import QrelsLike, RunLike

__all__ = [
    "CrossValidation",
    "FoldOutcome",
    "Selection",
    "SelectionBiasWarning",
    "cross_validate",
    "cross_validate_scores",
    "cross_validation_settings",
    "kfold",
    "read_folds",
    "select",
]


class SelectionBiasWarning(UserWarning):
    """A configuration was chosen on topics that its reported score is also measured on."""


def _order(topic: str) -> bytes:
    return topic.encode()


@renamed_parameters(k="n_folds")
def kfold(topics: Iterable[str], n_folds: int, *, seed: int) -> list[tuple[str, ...]]:
    """Split ``topics`` into ``n_folds`` folds of near-equal size, reproducibly for ``seed``.

    Topics are first put in bytewise order (so the input order and repeats do not matter),
    then permuted by ``numpy.random.default_rng(seed)`` and dealt round-robin. Each fold is
    returned in bytewise order.

    Raises
    ------
    cranfield.errors.OptionError
        ``n_folds`` below 2 or above the number of topics, or a seed that is not an integer
        >= 0.
    cranfield.errors.EvaluationError
        Fewer than 2 topics to split.

    Examples
    --------
    >>> topics = ["q1", "q2", "q3", "q4", "q5"]
    >>> kfold(topics, 2, seed=0) == kfold(topics[::-1], 2, seed=0)
    True
    >>> sorted(len(f) for f in kfold(["q1", "q2", "q3", "q4", "q5"], 2, seed=0))
    [2, 3]
    """
    ids = sorted({str(t) for t in topics}, key=_order)
    n_folds = check_int("n_folds", n_folds, minimum=2)
    seed = check_int("seed", seed, minimum=0)
    if len(ids) < 2:
        raise EvaluationError(
            f"Cannot split {len(ids)} topic(s) into folds: at least 2 are needed."
        )
    if n_folds > len(ids):
        raise OptionError(
            "n_folds", f"an integer >= 2 and <= {len(ids)}, the number of topics", n_folds
        )
    perm = np.random.default_rng(seed).permutation(len(ids))
    return [tuple(sorted((ids[j] for j in perm[i::n_folds]), key=_order)) for i in range(n_folds)]


@dataclass(frozen=True)
class Selection:
    """The candidate with the best mean on the training topics.

    Attributes
    ----------
    chosen:
        Its name (ties go to the first candidate given).
    train_means:
        Every candidate's mean over the training topics.
    report_topics:
        Topics the chosen candidate is scored on.
    report_score:
        Its mean over :attr:`report_topics`.
    overlap:
        How many report topics were also training topics (0 for an honest estimate).
    """

    chosen: str
    train_means: dict[str, float]
    report_topics: tuple[str, ...]
    report_score: float
    overlap: int


def _matrix(
    scores: Mapping[str, Mapping[str, float]],
) -> tuple[list[str], list[str], np.ndarray[Any, np.dtype[np.float64]]]:
    names = [str(n) for n in scores]
    if not names:
        raise ValueError("at least one candidate is needed, got none.")
    topic_sets = [set(map(str, s)) for s in scores.values()]
    topics = sorted(set.union(*topic_sets), key=_order)
    for name, have in zip(names, topic_sets, strict=True):
        if have != set(topics):
            lack = sorted(set(topics) - have, key=_order)
            raise ValueError(
                f"candidate {name!r} has no score for topic(s) {', '.join(lack[:5])}; every "
                "candidate must be scored on the same topics."
            )
    X = np.array([[float(scores[n][t]) for n in names] for t in topics], dtype=np.float64)
    return names, topics, X


def _choose(
    names: list[str],
    X: np.ndarray[Any, np.dtype[np.float64]],
    rows: np.ndarray[Any, np.dtype[np.intp]],
) -> tuple[int, dict[str, float]]:
    means = X[rows].mean(axis=0)
    return int(np.argmax(means)), {n: float(m) for n, m in zip(names, means, strict=True)}


def select(
    scores: Mapping[str, Mapping[str, float]],
    *,
    train_topics: Iterable[str] | None = None,
    report_topics: Iterable[str] | None = None,
) -> Selection:
    """Choose the candidate with the best mean on ``train_topics``; score it on ``report_topics``.

    Parameters
    ----------
    scores:
        ``{candidate: {topic: score}}``, every candidate on the same topics.
    train_topics:
        Topics to choose on (default: all).
    report_topics:
        Topics to report the chosen candidate's mean on (default: all).

    Warns
    -----
    SelectionBiasWarning
        When some report topics are also training topics: the reported score is then
        optimistic. Use :func:`cross_validate` for an honest estimate.

    Examples
    --------
    >>> s = {"a": {"q1": 0.2, "q2": 0.9}, "b": {"q1": 0.5, "q2": 0.5}}
    >>> select(s, train_topics=["q1"], report_topics=["q2"]).chosen
    'b'
    """
    names, topics, X = _matrix(scores)
    where = {t: i for i, t in enumerate(topics)}

    def rows_of(given: Iterable[str] | None, option: str) -> np.ndarray[Any, np.dtype[np.intp]]:
        if given is None:
            return np.arange(len(topics), dtype=np.intp)
        wanted = list(dict.fromkeys(str(t) for t in given))
        if not wanted:
            raise OptionError(option, "at least one topic", [])
        for t in wanted:
            if t not in where:
                raise OptionError(option, "topics that have scores", t)
        return np.array([where[t] for t in wanted], dtype=np.intp)

    train = rows_of(train_topics, "train_topics")
    report = rows_of(report_topics, "report_topics")
    best, means = _choose(names, X, train)
    overlap = len(set(train.tolist()) & set(report.tolist()))
    if overlap:
        warnings.warn(
            f"configuration {names[best]!r} was chosen on {overlap} of the {report.size} topics "
            "its score is reported on, so the score is optimistic; use cross_validate() to "
            "report a held-out score.",
            SelectionBiasWarning,
            stacklevel=2,
        )
    return Selection(
        chosen=names[best],
        train_means=means,
        report_topics=tuple(topics[i] for i in report),
        report_score=float(X[report, best].mean()),
        overlap=overlap,
    )


@dataclass(frozen=True)
class FoldOutcome:
    """One fold of a cross-validation.

    Attributes
    ----------
    fold:
        Fold number, from 0.
    test_topics:
        The held-out topics.
    train_topics:
        The topics the choice was made on (all other folds).
    chosen:
        Candidate with the best training mean.
    train_means:
        Every candidate's mean over :attr:`train_topics`.
    train_score, test_score:
        The chosen candidate's mean on the training and on the held-out topics.
    """

    fold: int
    test_topics: tuple[str, ...]
    train_topics: tuple[str, ...]
    chosen: str
    train_means: dict[str, float]
    train_score: float
    test_score: float


@dataclass(frozen=True, eq=False)
class CrossValidation:
    """What :func:`cross_validate` returns.

    Attributes
    ----------
    measure:
        Measure the candidates were compared on.
    n_folds, seed:
        Folds and the seed that made them (unused when the folds were given).
    candidates:
        Candidate names, in the order given.
    folds:
        One :class:`FoldOutcome` per fold.
    held_out:
        ``{topic: score}``: each topic scored by the candidate chosen without its fold.
    score:
        Mean of :attr:`held_out`: the cross-validated estimate.
    all_topics_best, all_topics_score:
        The candidate with the best mean over all topics and that mean: chosen and reported
        on the same topics, hence optimistic (shown for contrast only).
    predefined:
        Whether the folds were given (``folds=``, ``lab cv --fold-file``) rather than drawn.
    """

    measure: str
    n_folds: int
    seed: int
    candidates: list[str]
    folds: list[FoldOutcome]
    held_out: dict[str, float]
    score: float
    all_topics_best: str
    all_topics_score: float
    predefined: bool = False

    k = DeprecatedAlias("k", "n_folds")
    """Deprecated spelling of :attr:`n_folds` (``k`` is a cutoff only)."""

    def to_polars(self) -> pl.DataFrame:
        """One row per fold: topics, choice, training and held-out score."""
        import polars as pl

        return pl.DataFrame(
            {
                "fold": [f.fold for f in self.folds],
                "test_topics": [len(f.test_topics) for f in self.folds],
                "train_topics": [len(f.train_topics) for f in self.folds],
                "chosen": [f.chosen for f in self.folds],
                "train_score": [f.train_score for f in self.folds],
                "test_score": [f.test_score for f in self.folds],
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return {
            "measure": self.measure,
            "n_folds": self.n_folds,
            "seed": self.seed,
            "predefined": self.predefined,
            "candidates": list(self.candidates),
            "score": self.score,
            "all_topics_best": self.all_topics_best,
            "all_topics_score": self.all_topics_score,
            "folds": [
                {
                    "fold": f.fold,
                    "test_topics": list(f.test_topics),
                    "chosen": f.chosen,
                    "train_means": f.train_means,
                    "train_score": f.train_score,
                    "test_score": f.test_score,
                }
                for f in self.folds
            ],
        }

    def to_text(self) -> str:
        """A small plain-text table and the held-out estimate."""
        lines = [
            f"{self.n_folds}-fold cross-validation on {self.measure} "
            f"({'predefined folds' if self.predefined else f'seed {self.seed}'}), "
            f"{len(self.held_out)} topics, {len(self.candidates)} candidates",
            f"{'fold':>4}  {'topics':>6}  {'chosen':<24} {'train':>8} {'held-out':>9}",
        ]
        for f in self.folds:
            lines.append(
                f"{f.fold:>4}  {len(f.test_topics):>6}  {f.chosen:<24} "
                f"{f.train_score:>8.4f} {f.test_score:>9.4f}"
            )
        lines.append(f"held-out {self.measure}: {self.score:.4f}")
        lines.append(
            f"best on all topics: {self.all_topics_best} {self.all_topics_score:.4f} (chosen and "
            "reported on the same topics: optimistic)"
        )
        return "\n".join(lines)


@renamed_parameters(k="n_folds")
def cross_validate_scores(
    scores: Mapping[str, Mapping[str, float]],
    *,
    n_folds: int = 5,
    seed: int = 0,
    measure: str = "score",
    folds: Sequence[Sequence[str]] | None = None,
) -> CrossValidation:
    """:func:`cross_validate` on per-topic scores ``{candidate: {topic: score}}``.

    ``folds`` replaces the seeded split with given folds (they must partition the topics).

    Examples
    --------
    >>> s = {"a": {"q1": 1.0, "q2": 0.0, "q3": 0.0, "q4": 0.0},
    ...      "b": {"q1": 0.2, "q2": 0.2, "q3": 0.2, "q4": 0.2}}
    >>> cv = cross_validate_scores(s, folds=[["q1"], ["q2", "q3", "q4"]])
    >>> [f.chosen for f in cv.folds], cv.held_out["q1"]
    (['b', 'a'], 0.2)
    """
    names, topics, X = _matrix(scores)
    if folds is None:
        parts = kfold(topics, n_folds, seed=seed)
    else:
        parts = [tuple(str(t) for t in f) for f in folds]
        flat = [t for f in parts for t in f]
        if sorted(flat, key=_order) != topics or any(not f for f in parts) or len(parts) < 2:
            unplaced = sorted(set(topics) - set(flat), key=_order)
            unknown = sorted(set(flat) - set(topics), key=_order)
            why = "; ".join(
                [
                    *([f"scored queries in no fold: {_few(unplaced)}"] if unplaced else []),
                    *([f"queries not scored: {_few(unknown)}"] if unknown else []),
                ]
            )
            raise OptionError(
                "folds",
                "two or more folds that hold each scored query exactly once"
                + (f" ({why})" if why else ""),
                f"{len(parts)} folds",
            )
        n_folds = len(parts)
    where = {t: i for i, t in enumerate(topics)}
    held = np.full(len(topics), np.nan)
    outcomes: list[FoldOutcome] = []
    for i, test in enumerate(parts):
        test_rows = np.array([where[t] for t in test], dtype=np.intp)
        mask = np.ones(len(topics), dtype=bool)
        mask[test_rows] = False
        train_rows = np.flatnonzero(mask).astype(np.intp)
        best, means = _choose(names, X, train_rows)
        held[test_rows] = X[test_rows, best]
        outcomes.append(
            FoldOutcome(
                fold=i,
                test_topics=tuple(test),
                train_topics=tuple(topics[j] for j in train_rows),
                chosen=names[best],
                train_means=means,
                train_score=float(X[train_rows, best].mean()),
                test_score=float(X[test_rows, best].mean()),
            )
        )
    overall = X.mean(axis=0)
    top = int(np.argmax(overall))
    return CrossValidation(
        measure=measure,
        n_folds=n_folds,
        seed=seed,
        candidates=names,
        folds=outcomes,
        held_out={t: float(v) for t, v in zip(topics, held, strict=True)},
        score=float(held.mean()),
        all_topics_best=names[top],
        all_topics_score=float(overall[top]),
        predefined=folds is not None,
    )


def _few(ids: list[str]) -> str:
    return ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")


CV_SETTINGS: Final = ("measure", "n_folds", "seed")


def cross_validation_settings(
    settings: Mapping[str, Any], measure: MeasureLike, seed: int
) -> dict[str, Any]:
    """The settings of an experiment's cross-validation, checked, with their defaults.

    Parameters
    ----------
    settings:
        ``{"measure": ..., "n_folds": ..., "seed": ...}``, each optional: one measure (default
        ``measure``, the experiment's first), the number of folds (an integer >= 2, default
        5) and the seed of the folds (default ``seed``, the experiment's).

    Raises
    ------
    cranfield.errors.OptionError
        A key that is not a setting, or a setting with a value it cannot take.

    Examples
    --------
    >>> cross_validation_settings({"n_folds": 3}, "AP", 0)
    {'measure': 'AP', 'n_folds': 3, 'seed': 0}
    """
    from cranfield.evaluation.evaluator import resolve_measures
    from cranfield.measures import Measure

    if not isinstance(settings, Mapping) or any(k not in CV_SETTINGS for k in settings):
        raise OptionError(
            "cross_validation", "a mapping with 'measure', 'n_folds' and 'seed' only", settings
        )
    chosen = settings.get("measure", measure)
    if not isinstance(chosen, (str, Measure)) or len(resolve_measures(chosen)) != 1:
        raise OptionError("measure", "exactly one measure", chosen)
    return {
        "measure": str(resolve_measures(chosen)[0]),
        "n_folds": check_int("n_folds", settings.get("n_folds", 5), minimum=2),
        "seed": check_int("seed", settings.get("seed", seed), minimum=0),
    }


@renamed_parameters(k="n_folds")
def cross_validate(
    qrels: QrelsLike,
    candidates: Mapping[str, RunLike],
    measure: MeasureLike = "AP",
    *,
    n_folds: int = 5,
    seed: int = 0,
    folds: Sequence[Sequence[str]] | None = None,
    options: EvalOptions | None = None,
    execution: Execution | None = None,
    **kwargs: Unpack[EvalExecutionKwargs],
) -> CrossValidation:
    """Choose among runs (configurations) on training folds; report the held-out score.

    Parameters
    ----------
    qrels:
        Judgments (anything :func:`cranfield.evaluate` accepts).
    candidates:
        ``{name: run}``: one run per configuration.
    measure:
        The measure to choose on and report (one).
    n_folds:
        Number of folds.
    seed:
        Seed of the fold assignment (:func:`kfold`).
    folds:
        Predefined folds (lists of query ids; :func:`read_folds` reads them from a file)
        instead of the seeded split: they must hold each scored query exactly once.
    options, **kwargs:
        The evaluation options of :func:`cranfield.evaluate`, whole or as keywords; with
        ``missing="zero"`` (default) every judged topic counts, with ``"skip"`` the topics
        every candidate retrieved.
    execution, **kwargs:
        Where the candidates are scored (:class:`~cranfield.evaluation.execution.Execution`,
        whole or as keywords: ``jobs``, ``scheduler``, ...).

    Returns
    -------
    CrossValidation
        Per fold the choice, its training and held-out means; the held-out estimate over
        all topics, where each topic is scored by the candidate chosen on the *other* folds.

    Notes
    -----
    A candidate's training mean is the arithmetic mean of its per-topic scores over the
    training topics; ties go to the candidate given first. The held-out estimate is the mean
    over all topics of the held-out per-topic scores.
    """
    from cranfield.evaluation.evaluator import Evaluator
    from cranfield.evaluation.execution import execution_from

    check_int("n_folds", n_folds, minimum=2)  # and at most the number of topics: kfold knows them
    check_int("seed", seed, minimum=0)
    rest: dict[str, Any] = dict(kwargs)
    run_on = execution_from(execution, rest, caller="cross_validate")
    evaluator = Evaluator(qrels, measure, options, **rest)
    wanted = evaluator.measures
    if len(wanted) != 1:
        raise OptionError("measure", "exactly one measure", measure)
    if len(candidates) < 1:
        raise OptionError("candidates", "at least one candidate run", candidates)
    table = evaluator.many(candidates, execution=run_on)
    scores = table.matrix(wanted[0])
    per_topic = {
        name: dict(zip(table.topics, scores[:, j].tolist(), strict=True))
        for j, name in enumerate(table.names)
    }
    return cross_validate_scores(
        per_topic, n_folds=n_folds, seed=seed, measure=str(wanted[0]), folds=folds
    )
