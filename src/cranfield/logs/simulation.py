"""Simulated users over a run and its qrels: click functions, logs, and online against offline.

The bridge between the two worlds of evaluation (issue 20, §5): a click model whose
parameters come from the relevance grades of the qrels (or one fitted to a real log) clicks on
the rankings of runs, so that a simulated log, or a simulated interleaving experiment between
two runs, can be set against what the qrels say offline.

Users from grades
-----------------
:func:`graded_model` builds a click model per (query, document) from the grade of each
document: the click probability ``P(click | grade)`` becomes the attractiveness, the stop
probability ``P(stop | grade)`` the satisfaction. The three users of :data:`USERS` are those of
Hofmann, Whiteson & de Rijke (*Fidelity, soundness, and efficiency of interleaved comparison
methods*, TOIS 2013) on the five-grade scale 0..4 of Schuth et al. (*Multileaved comparisons
for fast online evaluation*, CIKM 2014; *Probabilistic multileave for online retrieval
evaluation*, SIGIR 2015):

=============  ===============================  ===============================
user           P(click | grade 0..4)            P(stop | grade 0..4)
=============  ===============================  ===============================
perfect        0.0, 0.2, 0.4, 0.8, 1.0          0.0, 0.0, 0.0, 0.0, 0.0
navigational   0.05, 0.3, 0.5, 0.7, 0.95        0.2, 0.3, 0.5, 0.7, 0.9
informational  0.4, 0.6, 0.7, 0.8, 0.9          0.1, 0.2, 0.3, 0.4, 0.5
=============  ===============================  ===============================

A qrels grade ``g`` of a scale ``0..G`` (``G`` the highest grade of the qrels) is placed at
``4 g / G`` on that scale and the probabilities are interpolated linearly between the two
nearest grades. Binary qrels (``G = 1``) so get the end points, which are exactly Hofmann et
al.'s binary users (perfect: click 0 / 1, never stop; navigational: 0.05 / 0.95, stop 0.2 /
0.9; informational: 0.4 / 0.9, stop 0.1 / 0.5); the TREC DL grades 0..3 land at 0, 4/3, 8/3
and 4. A document without a judgment (not in the pool, or pooled but unjudged) has grade 0.

The models (the click model carries the user's behaviour down the list):

* ``dbn``: Hofmann et al.'s user itself, a cascade that scans top-down, clicks with
  ``P(click | grade)``, stops after a click with ``P(stop | grade)`` and always goes on after
  a skip (a :class:`~cranfield.logs.click_models.DBN` with continuation ``γ = 1``);
* ``cascade``: clicks with ``P(click | grade)`` and stops at the first click;
* ``pbm``: clicks every result independently with ``P(click | grade)`` times the examination
  of its rank, ``1 / rank`` by default (the position bias of Joachims, Swaminathan & Schnabel,
  WSDM 2017, with η = 1); the stop probabilities play no part.

A fitted model (any :class:`~cranfield.logs.click_models.ClickModel` with the vocabularies it
was fitted on) plugs in the same way through :class:`ModelClicks`.

Logs and experiments
--------------------
:func:`run_rankings` gives each query's top documents of a run by THE ranking rule
(:meth:`cranfield.Evaluator.ranking`) with their grades; :func:`simulate_log` shows one
ranking per query ``impressions`` times to the simulated users and returns the
:class:`~cranfield.data.sessions.Sessions`; :class:`RecordedClicks` keeps what a click function
was shown and clicked, so the impressions of a simulated interleaving experiment
(:func:`cranfield.logs.interleaving_experiment.interleaving_experiment`) become a log too.
:func:`simulate_interleaving` runs the experiment of Chapelle, Joachims, Radlinski & Yue
(*Large-scale validation and analysis of interleaved search evaluation*, TOIS 2012, §5) on
two runs: how often an interleaving experiment of ``N`` impressions prefers the run an offline
measure prefers, as a function of ``N``, overall and per query.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

import numpy as np

from cranfield._validate import check_choice, check_int
from cranfield.data.sessions import Sessions
from cranfield.errors import OptionError
from cranfield.logs.click_models import DBN, PBM, Cascade, ClickModel, PairTable
from cranfield.logs.interleaving_experiment import (
    ClickFunction,
    InterleavingExperiment,
    Method,
    interleaving_experiment,
)
from cranfield.stats.resampling import RngLike, resolve_seed

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from numpy.typing import ArrayLike, NDArray

    from cranfield.data.run import Run
    from cranfield.evaluation.evaluator import Evaluator
    from cranfield.io.load import RunLike
    from cranfield.logs.ab_test import ABTest

__all__ = [
    "MODELS",
    "SESSION_METRICS",
    "USERS",
    "Agreement",
    "GradedRankings",
    "ModelClicks",
    "RecordedClicks",
    "SessionMetric",
    "SimulatedABTest",
    "SimulatedModel",
    "User",
    "graded_model",
    "run_rankings",
    "simulate_ab_test",
    "simulate_interleaving",
    "simulate_log",
    "user_probabilities",
]

User = Literal["perfect", "navigational", "informational"]
SimulatedModel = Literal["dbn", "cascade", "pbm"]
MODELS: Final[tuple[str, ...]] = get_args(SimulatedModel)
USERS: Final[dict[str, tuple[tuple[float, ...], tuple[float, ...]]]] = {
    "perfect": ((0.0, 0.2, 0.4, 0.8, 1.0), (0.0, 0.0, 0.0, 0.0, 0.0)),
    "navigational": ((0.05, 0.3, 0.5, 0.7, 0.95), (0.2, 0.3, 0.5, 0.7, 0.9)),
    "informational": ((0.4, 0.6, 0.7, 0.8, 0.9), (0.1, 0.2, 0.3, 0.4, 0.5)),
}
"""``{user: (P(click | grade 0..4), P(stop | grade 0..4))}`` (module notes)."""
_LOG_STREAM: Final = 23
"""The spawn key of :func:`simulate_log`'s streams: ``SeedSequence(seed, spawn_key=(23, i))``."""


def user_probabilities(
    user: User, grades: ArrayLike, max_grade: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(P(click), P(stop))`` of each grade for ``user``, grades on a scale ``0..max_grade``.

    Grades below 0 (no judgment) count as 0, above ``max_grade`` as ``max_grade``.

    Examples
    --------
    >>> click, stop = user_probabilities("navigational", [0, 1], max_grade=1)
    >>> click.tolist(), stop.tolist()
    ([0.05, 0.95], [0.2, 0.9])
    >>> user_probabilities("perfect", [0, 1, 2, 3], max_grade=3)[0].round(3).tolist()
    [0.0, 0.267, 0.667, 1.0]
    """
    chosen = check_choice("user", user, tuple(USERS))
    top = check_int("max_grade", max_grade, minimum=1)
    g = np.clip(np.asarray(grades, dtype=np.float64), 0, top) * (4.0 / top)
    click, stop = USERS[chosen]
    scale = np.arange(5.0)
    return np.interp(g, scale, click), np.interp(g, scale, stop)


@dataclass(frozen=True, eq=False)
class GradedRankings:
    """Each query's top documents of one or more runs, best first, with their grades.

    Attributes
    ----------
    rankings:
        ``{query: {run name: (doc, ...)}}``, best first; the queries sorted.
    grades:
        ``{(query, doc): grade}`` of every document ranked (0 where the qrels have none).
    max_grade:
        The highest grade of the qrels' evaluated queries (at least 1).
    """

    rankings: dict[str, dict[str, tuple[str, ...]]]
    grades: dict[tuple[str, str], int]
    max_grade: int

    def of(self, name: str) -> dict[str, tuple[str, ...]]:
        """``{query: (doc, ...)}`` of the run ``name`` (queries it has a ranking for)."""
        return {q: runs[name] for q, runs in self.rankings.items() if name in runs}


def run_rankings(
    evaluator: Evaluator, runs: Mapping[str, RunLike | Run], *, depth: int = 10
) -> GradedRankings:
    """The top ``depth`` documents of each run's queries, by THE ranking rule.

    ``evaluator`` binds the qrels and the options (:meth:`cranfield.Evaluator.ranking`:
    topics absent from the qrels are ignored, ties are broken by trec_eval's rule); a query a
    run has no line for is left out of that run's rankings.
    """
    k = check_int("depth", depth, minimum=1)
    rankings: dict[str, dict[str, tuple[str, ...]]] = {}
    grades: dict[tuple[str, str], int] = {}
    top = 1
    for name, run in runs.items():
        ranking = evaluator.ranking(run, name=name).ranking
        if ranking.judgments.levels.size:
            top = max(top, int(ranking.judgments.levels.max()))
        docs = ranking.doc_id.to_list()
        codes = np.maximum(np.asarray(ranking.rel), 0).tolist()
        bounds = ranking.offsets.tolist()
        for i, topic in enumerate(ranking.topics):
            if ranking.missing[i]:
                continue
            lo, hi = bounds[i], min(bounds[i + 1], bounds[i] + k)
            rankings.setdefault(topic, {})[name] = tuple(docs[lo:hi])
            for doc, code in zip(docs[lo:hi], codes[lo:hi], strict=True):
                grades[(topic, doc)] = int(code)
    return GradedRankings(dict(sorted(rankings.items())), grades, top)


@dataclass(frozen=True, eq=False)
class ModelClicks:
    """A click function (:class:`~cranfield.logs.interleaving_experiment.ClickFunction`) from
    a click model and the vocabularies its codes index.

    A query or document the vocabularies do not hold is coded past their end, so the model
    gives it its prior (as for a pair first seen in held-out sessions).

    Examples
    --------
    >>> model = Cascade(PairTable.from_pairs([0], [0], [1.0], prior=0.0))
    >>> clicks = ModelClicks(model, ("q",), ("a",))
    >>> clicks("q", ("b", "a"), np.array([[0, 1], [1, 0]]), np.random.default_rng(0)).tolist()
    [[False, True], [True, False]]
    """

    model: ClickModel
    query_ids: tuple[str, ...]
    doc_ids: tuple[str, ...]
    _queries: dict[str, int] = field(init=False, repr=False)
    _docs: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_queries", {q: i for i, q in enumerate(self.query_ids)})
        object.__setattr__(self, "_docs", {d: i for i, d in enumerate(self.doc_ids)})

    def __call__(
        self,
        query_id: str,
        doc_ids: tuple[str, ...],
        shown: NDArray[np.int64],
        gen: np.random.Generator,
        /,
    ) -> NDArray[np.bool_]:
        """Clicks on ``shown`` (codes into ``doc_ids``, ``-1`` past the end) drawn with ``gen``."""
        unknown = len(self.doc_ids)
        codes = np.array([self._docs.get(d, unknown) for d in doc_ids] + [-1], dtype=np.int64)
        grid = codes[np.where(shown < 0, len(doc_ids), shown)]
        query = np.full(shown.shape[0], self._queries.get(query_id, len(self.query_ids)))
        return self.model.simulate(query, grid, seed=gen)


def graded_model(
    graded: GradedRankings,
    *,
    model: SimulatedModel = "dbn",
    user: User = "navigational",
    examination: Sequence[float] | None = None,
) -> ModelClicks:
    """The click function of ``user`` under ``model`` over the graded documents (module notes).

    Parameters
    ----------
    graded:
        The documents and their grades (:func:`run_rankings`).
    model:
        ``"dbn"`` (Hofmann et al.'s user), ``"cascade"`` or ``"pbm"``.
    user:
        ``"perfect"``, ``"navigational"`` or ``"informational"``.
    examination:
        The PBM's examination probability per rank (default ``1 / rank`` to the deepest
        ranking); only for ``"pbm"``.

    Raises
    ------
    OptionError
        An unknown model or user, or an examination that is not probabilities.
    """
    kind = check_choice("model", model, MODELS)
    who = check_choice("user", user, tuple(USERS))
    if examination is not None and kind != "pbm":
        raise OptionError("examination", "given only with the model 'pbm'", examination)
    query_ids = tuple(graded.rankings)
    queries = {q: i for i, q in enumerate(query_ids)}
    doc_ids = tuple(dict.fromkeys(d for _, d in graded.grades))
    docs = {d: i for i, d in enumerate(doc_ids)}
    pairs = list(graded.grades)
    q = np.array([queries[p[0]] for p in pairs], dtype=np.int64)
    d = np.array([docs[p[1]] for p in pairs], dtype=np.int64)
    click, stop = user_probabilities(who, list(graded.grades.values()), graded.max_grade)
    floor_click, floor_stop = user_probabilities(who, [0], graded.max_grade)
    attract = PairTable.from_pairs(q, d, click, float(floor_click[0]))
    chosen: ClickModel
    if kind == "cascade":
        chosen = Cascade(attract)
    elif kind == "dbn":
        chosen = DBN(attract, PairTable.from_pairs(q, d, stop, float(floor_stop[0])), 1.0)
    else:
        deepest = max(
            (len(r) for runs in graded.rankings.values() for r in runs.values()), default=1
        )
        exam = (
            1.0 / np.arange(1.0, deepest + 1.0)
            if examination is None
            else np.asarray(examination, dtype=np.float64)
        )
        if exam.ndim != 1 or exam.size == 0 or not ((exam >= 0) & (exam <= 1)).all():
            raise OptionError("examination", "probabilities in [0, 1], one per rank", examination)
        chosen = PBM(attract, exam, prior=float(exam[-1]))
    return ModelClicks(chosen, query_ids, doc_ids)


def _vocabulary(values: dict[str, int], value: str) -> int:
    code = values.get(value)
    if code is None:
        code = values[value] = len(values)
    return code


@dataclass
class RecordedClicks:
    """A click function that calls another and keeps every list shown and every click, to
    make a log of them (:meth:`sessions`).

    Examples
    --------
    >>> from cranfield.logs.interleaving_experiment import independent_clicks
    >>> rec = RecordedClicks(independent_clicks({("q", "a"): 1.0}))
    >>> _ = rec("q", ("a", "b"), np.array([[0, 1], [1, -1]]), np.random.default_rng(0))
    >>> log = rec.sessions()
    >>> len(log), log.clicked.tolist()
    (2, [[True, False], [False, False]])
    """

    clicks: ClickFunction
    calls: list[tuple[str, tuple[str, ...], NDArray[np.int64], NDArray[np.bool_]]] = field(
        default_factory=list
    )

    def __call__(
        self,
        query_id: str,
        doc_ids: tuple[str, ...],
        shown: NDArray[np.int64],
        gen: np.random.Generator,
        /,
    ) -> NDArray[np.bool_]:
        """The wrapped function's clicks, kept with the lists they were drawn on."""
        out = self.clicks(query_id, doc_ids, shown, gen)
        self.calls.append((query_id, doc_ids, np.array(shown), np.array(out, dtype=np.bool_)))
        return out

    def sessions(self, *, source: str = "<simulated>") -> Sessions:
        """The lists shown and their clicks as sessions, in the order they were asked for."""
        queries: dict[str, int] = {}
        docs: dict[str, int] = {}
        depth = max((s.shape[1] for _, _, s, _ in self.calls), default=1)
        query_rows, shown_rows, click_rows = [], [], []
        for query_id, doc_ids, shown, clicked in self.calls:
            codes = np.array([_vocabulary(docs, d) for d in doc_ids] + [-1], dtype=np.int64)
            grid = np.full((shown.shape[0], depth), -1, dtype=np.int64)
            grid[:, : shown.shape[1]] = codes[np.where(shown < 0, len(doc_ids), shown)]
            marks = np.zeros(grid.shape, dtype=np.bool_)
            marks[:, : shown.shape[1]] = clicked & (shown >= 0)
            query_rows.append(np.full(shown.shape[0], _vocabulary(queries, query_id)))
            shown_rows.append(grid)
            click_rows.append(marks)
        if not self.calls:
            query_rows, shown_rows = [np.zeros(0, np.int64)], [np.zeros((0, depth), np.int64)]
            click_rows = [np.zeros((0, depth), np.bool_)]
        return Sessions.from_clicked(
            query_ids=tuple(queries),
            doc_ids=tuple(docs),
            query=np.concatenate(query_rows).astype(np.int64),
            shown=np.concatenate(shown_rows),
            clicked=np.concatenate(click_rows),
            source=source,
        )


def simulate_log(
    rankings: Mapping[str, Sequence[str]],
    clicks: ClickFunction,
    *,
    impressions: int = 100,
    seed: RngLike = None,
    source: str = "<simulated>",
) -> Sessions:
    """``impressions`` sessions per query that show the query's ranking, clicked by ``clicks``.

    Parameters
    ----------
    rankings:
        ``{query: [doc, ...]}``, best first (:meth:`GradedRankings.of`); queries in sorted
        order make the sessions.
    clicks:
        The simulated users (:func:`graded_model`, :class:`ModelClicks`,
        :func:`~cranfield.logs.interleaving_experiment.independent_clicks`).
    impressions:
        Sessions per query.
    seed:
        An integer, a generator or ``None``. Query ``i`` (sorted) draws its clicks from
        ``SeedSequence(seed, spawn_key=(23, i))``: the same seed gives the same log.

    Examples
    --------
    >>> from cranfield.logs.interleaving_experiment import independent_clicks
    >>> log = simulate_log({"q": ["a", "b"]}, independent_clicks({("q", "a"): 1.0}),
    ...     impressions=3, seed=0)
    >>> len(log), log.clicked.sum(axis=0).tolist()
    (3, [3, 0])
    """
    n = check_int("impressions", impressions, minimum=1)
    used = resolve_seed(seed)
    record = RecordedClicks(clicks)
    for i, q in enumerate(sorted(rankings)):
        docs = tuple(str(d) for d in rankings[q])
        if not docs:
            continue
        gen = np.random.default_rng(np.random.SeedSequence(used, spawn_key=(_LOG_STREAM, i)))
        shown = np.tile(np.arange(len(docs), dtype=np.int64), (n, 1))
        out = np.asarray(record(q, docs, shown, gen))
        if out.shape != shown.shape or out.dtype != np.bool_:
            raise OptionError(
                "clicks",
                f"a function returning a boolean array of shape {shown.shape}",
                f"one returning {out.dtype} of shape {out.shape} for query {q!r}",
            )
    return record.sessions(source=source)


@dataclass(frozen=True, eq=False)
class Agreement:
    """How often simulated interleaving experiments agree with an offline measure.

    Attributes
    ----------
    measure:
        The offline measure (``"nDCG@10"``).
    names:
        The two runs ``(A, B)``.
    query_ids:
        The queries interleaved (both runs rank them), sorted.
    offline:
        ``(queries, 2)``: the measure of A and B per query.
    sizes:
        The experiment sizes ``N`` (impressions).
    overall:
        ``(len(sizes),)``: the share of experiments of ``N`` impressions drawn over all
        queries whose preference has the sign of the mean offline difference ``A - B`` (the
        sign of A when the runs tie offline, then 0.5 is the expected share).
    per_query:
        ``(queries, len(sizes))``: the same for ``N`` impressions of one query against that
        query's offline difference; NaN where the two runs tie on the query.
    experiment:
        The simulated interleaving experiment the experiments of ``N`` impressions are drawn
        from (its ``preference``: Δ_AB and the sign test over all impressions).
    repetitions, seed:
        Experiments drawn per ``N``, and the seed.
    """

    measure: str
    names: tuple[str, str]
    query_ids: tuple[str, ...]
    offline: NDArray[np.float64]
    sizes: tuple[int, ...]
    overall: NDArray[np.float64]
    per_query: NDArray[np.float64]
    experiment: InterleavingExperiment
    repetitions: int
    seed: int

    @property
    def offline_difference(self) -> float:
        """The mean offline measure of A minus B over the interleaved queries."""
        return float(self.offline[:, 0].mean() - self.offline[:, 1].mean())

    @property
    def offline_sign(self) -> int:
        """``1`` if A is better offline, ``-1`` if B, ``0`` if they tie."""
        return int(np.sign(round(self.offline_difference, 12)))

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON (NaN as None)."""

        def plain(x: float) -> float | None:
            return None if np.isnan(x) else float(x)

        p = self.experiment.preference
        wins = self.experiment.per_query()
        return {
            "measure": self.measure,
            "runs": list(self.names),
            "method": self.experiment.method,
            "seed": self.seed,
            "repetitions": self.repetitions,
            "impressions_per_query": int(self.experiment.outcomes.size // len(self.query_ids)),
            "offline": {
                "mean_a": float(self.offline[:, 0].mean()),
                "mean_b": float(self.offline[:, 1].mean()),
                "difference": self.offline_difference,
            },
            "preference": {"delta": p.delta, "wins": p.wins, "losses": p.losses, "ties": p.ties},
            "sizes": list(self.sizes),
            "overall": [plain(v) for v in self.overall],
            "queries": [
                {
                    "query_id": q,
                    "offline_a": float(self.offline[i, 0]),
                    "offline_b": float(self.offline[i, 1]),
                    "wins": wins[q][0],
                    "losses": wins[q][1],
                    "ties": wins[q][2],
                    "agreement": [plain(v) for v in self.per_query[i]],
                }
                for i, q in enumerate(self.query_ids)
            ],
        }


def _two_runs(
    evaluator: Evaluator,
    runs: tuple[RunLike | Run, RunLike | Run],
    names: tuple[str, str],
    *,
    depth: int,
    clicks: ClickFunction | None,
    model: SimulatedModel,
    user: User,
) -> tuple[tuple[str, str], GradedRankings, list[str], ClickFunction]:
    """What a simulated experiment of two runs starts from: their names (told apart when
    equal), their top ``depth`` documents, the queries both rank, and the users (``clicks``,
    or :func:`graded_model` of ``model`` and ``user``)."""
    if names[0] == names[1]:
        names = (f"{names[0]} (A)", f"{names[1]} (B)")
    graded = run_rankings(evaluator, dict(zip(names, runs, strict=True)), depth=depth)
    both = [q for q, r in graded.rankings.items() if len(r) == 2]
    if not both:
        raise OptionError("runs", "two runs that rank at least one judged query both", names)
    users = graded_model(graded, model=model, user=user) if clicks is None else clicks
    return names, graded, both, users


def simulate_interleaving(  # noqa: PLR0913 -- two runs, the users, then keyword-only settings
    evaluator: Evaluator,
    run_a: RunLike | Run,
    run_b: RunLike | Run,
    clicks: ClickFunction | None = None,
    *,
    names: tuple[str, str] = ("A", "B"),
    model: SimulatedModel = "dbn",
    user: User = "navigational",
    method: Method = "team-draft",
    sizes: Sequence[int] = (10, 100, 1000),
    impressions: int | None = None,
    depth: int = 10,
    repetitions: int = 1000,
    seed: RngLike = None,
    record: bool = False,
) -> tuple[Agreement, Sessions | None]:
    """Chapelle et al.'s experiment on two runs: interleaving against an offline measure.

    Parameters
    ----------
    evaluator:
        The qrels, the offline measure (its first) and the options.
    run_a, run_b:
        The runs (paths, :class:`~cranfield.data.run.Run`, dicts).
    clicks:
        The simulated users; default :func:`graded_model` of ``model`` and ``user`` over the
        two runs' top ``depth`` documents.
    names:
        The runs' names (in messages and the result).
    method:
        The interleaving method.
    sizes:
        The experiment sizes ``N``.
    impressions:
        Impressions per query of the simulated experiment the experiments of ``N`` are drawn
        from (with replacement); default ten times the largest ``N``. Drawn from a finite
        pool, the share at ``N`` tends to the pool's own sign as ``N`` nears the pool's size
        (all queries' impressions overall, one query's per query), so the pool is kept
        several times the largest ``N``.
    depth:
        Each run's top ``depth`` documents are interleaved into lists of ``depth``.
    repetitions:
        Experiments drawn per ``N``.
    seed:
        The seed of the whole simulation (same seed, same numbers).
    record:
        Also return the simulated experiment's impressions as a log.

    Raises
    ------
    OptionError
        A bad size, depth or count, or runs that share no query with the qrels.
    """
    if not sizes:
        raise OptionError("sizes", "at least one number of impressions", sizes)
    chosen_sizes = tuple(check_int("sizes", s, minimum=1) for s in sizes)
    reps = check_int("repetitions", repetitions, minimum=1)
    per_query = check_int(
        "impressions", 10 * max(chosen_sizes) if impressions is None else impressions, minimum=1
    )
    used = resolve_seed(seed)
    names, graded, _, users = _two_runs(
        evaluator, (run_a, run_b), names, depth=depth, clicks=clicks, model=model, user=user
    )
    a_name, b_name = names
    recorder = RecordedClicks(users) if record else None
    experiment = interleaving_experiment(
        graded.of(a_name),
        graded.of(b_name),
        recorder if recorder is not None else users,
        method=method,
        impressions=per_query,
        depth=depth,
        seed=used,
    )
    measure = evaluator.measures[0]
    scores = [
        evaluator.evaluate(run, name=n).per_query(measure)
        for run, n in ((run_a, a_name), (run_b, b_name))
    ]
    queries = experiment.query_ids
    offline = np.array([[s.get(q, 0.0) for s in scores] for q in queries], dtype=np.float64)
    offline = offline.reshape(len(queries), 2)
    sign = int(np.sign(round(float(offline[:, 0].mean() - offline[:, 1].mean()), 12)))
    overall = experiment.agreement(sign or 1, chosen_sizes, repetitions=reps, seed=used)
    rows = np.full((len(queries), len(chosen_sizes)), np.nan)
    for i in range(len(queries)):
        q_sign = int(np.sign(round(float(offline[i, 0] - offline[i, 1]), 12)))
        if q_sign:  # the query's impressions alone (agreement reads only the outcomes)
            one = dataclasses.replace(
                experiment,
                query=np.zeros(per_query, dtype=np.int64),
                outcomes=experiment.outcomes[experiment.query == i],
            )
            stream = np.random.default_rng(np.random.SeedSequence(used, spawn_key=(24, i)))
            rows[i] = one.agreement(q_sign, chosen_sizes, repetitions=reps, seed=stream)
    result = Agreement(
        str(measure),
        names,
        queries,
        offline,
        chosen_sizes,
        overall,
        rows,
        experiment,
        reps,
        used,
    )
    log = recorder.sessions(source="<simulated interleaving>") if recorder is not None else None
    return result, log


SessionMetric = Literal["ctr", "rr"]
SESSION_METRICS: Final[tuple[str, ...]] = get_args(SessionMetric)
_AB_STREAM: Final = 25  # the spawn key of the simulated A/B test's draws


@dataclass(frozen=True, eq=False)
class SimulatedABTest:
    """A simulated A/B test of two runs next to their offline difference.

    Attributes
    ----------
    test:
        The A/B test (:func:`~cranfield.logs.ab_test.ab_test`; bucket A the control, over
        users, the unit of randomisation).
    metric:
        The session metric: ``"ctr"`` (1 when a session has a click) or ``"rr"`` (1/rank of
        its first click, 0 without).
    measure:
        The offline measure (the evaluator's first).
    offline:
        Its mean over the queries both runs rank, B minus A (the sign the test should find).
    users, sessions:
        Users per bucket, and sessions per user.
    seed:
        The integer seed that reproduces the simulation.
    """

    test: ABTest
    metric: str
    measure: str
    offline: float
    users: int
    sessions: int
    seed: int

    @property
    def agrees(self) -> bool:
        """Whether the test's difference has the sign of the offline difference."""
        return bool(np.sign(self.test.difference) == np.sign(self.offline))

    def to_dict(self) -> dict[str, Any]:
        """The simulation as plain JSON-ready values."""
        return {
            "experiment": "ab",
            "metric": self.metric,
            "users": self.users,
            "sessions": self.sessions,
            "seed": self.seed,
            "measure": self.measure,
            "offline_difference": self.offline,
            "agrees": self.agrees,
            "test": self.test.to_dict(),
        }


def _session_metric(clicked: NDArray[np.bool_], metric: str) -> NDArray[np.float64]:
    any_click = np.asarray(clicked.any(axis=1), dtype=np.bool_)
    if metric == "ctr":
        ctr: NDArray[np.float64] = any_click.astype(np.float64)
        return ctr
    first = np.argmax(clicked, axis=1)
    rr: NDArray[np.float64] = np.where(any_click, 1.0 / (first + 1.0), 0.0)
    return rr


def simulate_ab_test(  # noqa: PLR0913 -- two runs, the users, then keyword-only settings
    evaluator: Evaluator,
    run_a: RunLike | Run,
    run_b: RunLike | Run,
    clicks: ClickFunction | None = None,
    *,
    names: tuple[str, str] = ("A", "B"),
    model: SimulatedModel = "dbn",
    user: User = "navigational",
    users: int = 1000,
    sessions: int = 5,
    metric: SessionMetric = "rr",
    depth: int = 10,
    alpha: float = 0.05,
    seed: RngLike = None,
) -> SimulatedABTest:
    """An A/B test of two runs with simulated users, beside the runs' offline difference.

    Each bucket has ``users`` users; each user issues ``sessions`` queries drawn uniformly
    (with replacement) from the queries both runs rank, is shown its bucket's run's top
    ``depth`` documents (THE ranking rule, :func:`run_rankings`) and clicks as ``clicks`` says
    (default :func:`graded_model` of ``model`` and ``user``). Each session's ``metric`` is a
    row of :func:`~cranfield.logs.ab_test.ab_test`, the users the unit of randomisation.

    Raises
    ------
    OptionError
        A bad count, metric or depth, or runs that rank no judged query both.

    Examples
    --------
    >>> from cranfield.evaluation.evaluator import Evaluator
    >>> qrels = {"q1": {"d1": 3, "d2": 0}, "q2": {"d3": 3}}
    >>> good = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0, "d9": 0.5}}
    >>> bad = {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d9": 1.0, "d3": 0.5}}
    >>> r = simulate_ab_test(Evaluator(qrels, "nDCG@10"), bad, good, users=300, seed=1)
    >>> r.offline > 0, r.test.difference > 0, r.agrees
    (True, True, True)
    """
    from cranfield.logs.ab_test import ab_test

    n_users = check_int("users", users, minimum=2)
    per_user = check_int("sessions", sessions, minimum=1)
    check_choice("metric", metric, SESSION_METRICS)
    used = resolve_seed(seed)
    (a_name, b_name), graded, both, simulated = _two_runs(
        evaluator, (run_a, run_b), names, depth=depth, clicks=clicks, model=model, user=user
    )
    values = np.zeros(2 * n_users * per_user, dtype=np.float64)
    for b, name in enumerate((a_name, b_name)):
        gen = np.random.default_rng(np.random.SeedSequence(used, spawn_key=(_AB_STREAM, b)))
        asked = gen.integers(len(both), size=n_users * per_user)
        for i in np.unique(asked).tolist():
            rows = np.flatnonzero(asked == i)
            docs = graded.rankings[both[i]][name]
            shown = np.tile(np.arange(len(docs), dtype=np.int64), (rows.size, 1))
            clicked = np.asarray(simulated(both[i], docs, shown, gen), dtype=np.bool_)
            values[b * n_users * per_user + rows] = _session_metric(clicked, metric)
    buckets = np.repeat(np.array([a_name, b_name]), n_users * per_user)
    units = np.repeat(np.arange(2 * n_users), per_user)
    test = ab_test(
        values, buckets.tolist(), units=units, control=a_name, alpha=alpha, unit_name="user"
    )
    measure = evaluator.measures[0]
    scores = [
        evaluator.evaluate(run, name=n).per_query(measure)
        for run, n in ((run_a, a_name), (run_b, b_name))
    ]
    offline = float(np.mean([scores[1].get(q, 0.0) - scores[0].get(q, 0.0) for q in both]))
    return SimulatedABTest(test, metric, str(measure), offline, n_users, per_user, used)
