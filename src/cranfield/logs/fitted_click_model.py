"""Click models fitted to :class:`~cranfield.data.sessions.Sessions`: the front door over the
array API of :mod:`cranfield.logs.click_models`.

:func:`fit_click_model` fits a model, named (``"dbn"``) or given as a class (:class:`DBN`), to
sessions and returns a :class:`FittedClickModel`: the model with the vocabularies it was fitted
on, so that it scores another log (:meth:`FittedClickModel.score`, a test log read from its
own file is put on the training codes with :meth:`Sessions.recoded`) and names its estimated
relevance by query and document ids (:meth:`FittedClickModel.relevance`).

What of a log's clicks a model sees
-----------------------------------
Every model takes ``clicked (n, depth)``: whether each shown result was clicked at least once.
So a result clicked twice in a session counts once (the models explain whether a result is
clicked, not how often), and a click on a document the session did not show (``click_rank``
-1: something else on the page, 191 train and 133 test sessions of the Yandex sample) is left
out, since no model has a rank to put it at. The order of the clicks is not used either: the
*last click* of DCM, DBN and SDBN is the lowest clicked rank, as in the models' definitions.
:func:`ignored_clicks` counts what is left out.

A query or document of the scored log that the training log lacks gets the model's prior
(``prior``, 0.5 by default): its attractiveness and satisfaction are not known.

Examples
--------
>>> from cranfield.data.sessions import Sessions
>>> train = Sessions.from_clicked(query_ids=("q",), doc_ids=("a", "b"), query=[0, 0],
...     shown=[[0, 1], [1, 0]], clicked=[[True, False], [False, True]])
>>> fitted = fit_click_model("DocumentCTR", train)
>>> fitted.relevance().rows()
[('q', 'a', 0.75), ('q', 'b', 0.25)]
>>> unsmoothed = fit_click_model("DocumentCTR", train, pseudo_counts=(0, 0))
>>> unsmoothed.relevance().rows(), round(unsmoothed.score(train).perplexity, 3)
([('q', 'a', 1.0), ('q', 'b', 0.0)], 1.0)
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
import polars as pl

from cranfield.errors import OptionError
from cranfield.logs.click_models import (
    DBN,
    DCM,
    PBM,
    SDBN,
    UBM,
    Cascade,
    ClickModel,
    DocumentCTR,
    GlobalCTR,
    ModelScore,
    PairTable,
    RankCTR,
)
from cranfield.logs.click_models.model import (
    DEFAULT_PSEUDO_COUNTS,
    check_pseudo_counts,
    estimation_sentence,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.data.sessions import Sessions

__all__ = [
    "DEFINITIONS",
    "MODELS",
    "ClickModelComparison",
    "ClickModelFit",
    "ExaminationCurve",
    "FittedClickModel",
    "click_model_class",
    "compare_click_models",
    "examination_curve",
    "fit_click_model",
    "ignored_clicks",
    "model_options",
    "unseen_pairs",
]

MODELS: Final[dict[str, type[ClickModel]]] = {
    cls.__name__: cls
    for cls in (GlobalCTR, RankCTR, DocumentCTR, PBM, Cascade, DCM, UBM, DBN, SDBN)
}
"""The click models by name, in the order of the literature (baselines first); a name is
matched without regard to case."""


def click_model_class(model: str | type[ClickModel]) -> type[ClickModel]:
    """The class of a model named (any case) or given.

    Raises
    ------
    OptionError
        If ``model`` names no model of :data:`MODELS`.
    """
    if isinstance(model, type) and issubclass(model, ClickModel):
        return model
    by_lower = {name.lower(): cls for name, cls in MODELS.items()}
    found = by_lower.get(str(model).lower())
    if found is None:
        raise OptionError("model", f"one of {', '.join(MODELS)}", model)
    return found


def _fit_method(cls: type[ClickModel]) -> Callable[..., ClickModel]:
    fit: Callable[..., ClickModel] = getattr(cls, "fit")  # noqa: B009 (not on the base class)
    return fit


def model_options(model: str | type[ClickModel]) -> tuple[str, ...]:
    """The options a model's fit takes (``prior``; ``gamma``, ``max_iterations``,
    ``tolerance`` for the EM fits).

    Examples
    --------
    >>> model_options("dbn")
    ('prior', 'pseudo_counts', 'gamma', 'max_iterations', 'tolerance')
    """
    parameters = inspect.signature(_fit_method(click_model_class(model))).parameters.values()
    return tuple(p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY)


@dataclass(frozen=True, eq=False)
class FittedClickModel:
    """A click model fitted to sessions, with the vocabularies of its codes.

    Attributes
    ----------
    name:
        The model's name (:data:`MODELS`).
    model:
        The fitted model (:mod:`cranfield.logs.click_models`), over the codes below.
    query_ids, doc_ids:
        The vocabularies of the training sessions.
    sessions:
        The number of training sessions.
    pseudo_counts:
        The pseudo-counts ``(a, b)`` the fit's ratios were smoothed with (``(0, 0)``: the
        unsmoothed maximum likelihood).
    """

    name: str
    model: ClickModel
    query_ids: tuple[str, ...]
    doc_ids: tuple[str, ...]
    sessions: int
    pseudo_counts: tuple[float, float] = DEFAULT_PSEUDO_COUNTS

    def score(self, sessions: Sessions) -> ModelScore:
        """Log-likelihood and perplexity (per rank) of the model on ``sessions``
        (:class:`~cranfield.logs.click_models.ModelScore`), put on the training codes first;
        unseen queries and documents get the prior."""
        if sessions.query_ids != self.query_ids or sessions.doc_ids != self.doc_ids:
            sessions = sessions.recoded(self.query_ids, self.doc_ids)
        return self.model.score(sessions.query, sessions.shown, sessions.clicked)

    def predicted_ctr(self, sessions: Sessions) -> NDArray[np.float64]:
        """The model's click probability at each rank, averaged over the sessions that show a
        result there (its CTR by rank, to set beside the observed one); ``sessions`` put on
        the training codes first; NaN at a rank no session reaches."""
        if sessions.query_ids != self.query_ids or sessions.doc_ids != self.doc_ids:
            sessions = sessions.recoded(self.query_ids, self.doc_ids)
        shown = sessions.shown >= 0
        p = self.model.click_probabilities(sessions.query, sessions.shown)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean: NDArray[np.float64] = np.where(shown, p, 0.0).sum(axis=0) / shown.sum(axis=0)
        return mean

    @property
    def has_relevance(self) -> bool:
        """Whether the model estimates a relevance per (query, document) (not the global and
        the rank CTR)."""
        return callable(getattr(self.model, "relevance", None))

    def relevance(self) -> pl.DataFrame:
        """The estimated relevance of every (query, document) pair of the training sessions.

        Columns ``query_id``, ``doc_id`` (strings) and ``relevance`` (a probability), sorted
        by query then document code; what the relevance is depends on the model (the pair's
        CTR, its attractiveness, or ``α σ`` for DBN and SDBN: see each model).

        Raises
        ------
        OptionError
            If the model has no relevance per pair (:class:`GlobalCTR`, :class:`RankCTR`).
        """
        if not self.has_relevance:
            with_relevance = [n for n, c in MODELS.items() if callable(getattr(c, "relevance", 0))]
            raise OptionError(
                "model",
                f"a model with a relevance per (query, document): {', '.join(with_relevance)}",
                self.name,
            )
        table: PairTable = getattr(self.model, "relevance")()  # noqa: B009 (not on the base)
        return pl.DataFrame(
            {
                "query_id": pl.Series(self.query_ids, dtype=pl.String).gather(table.query),
                "doc_id": pl.Series(self.doc_ids, dtype=pl.String).gather(table.doc),
                "relevance": pl.Series(table.value, dtype=pl.Float64),
            }
        )

    def parameters(self) -> dict[str, float | int]:
        """The model's scalar parameters: the CTR of :class:`GlobalCTR`, the continuation
        ``γ`` of DBN and SDBN, the EM iterations run (PBM, UBM, DBN)."""
        out: dict[str, float | int] = dict(_fields(self.model).scalars)
        iterations = getattr(self.model, "iterations", None)
        if isinstance(iterations, int) and not isinstance(iterations, bool):
            out["iterations"] = iterations
        return out

    def propensities(self) -> dict[int, float] | None:
        """PBM's position bias as counterfactual learning to rank reads it: ``{rank:
        γ_rank / γ_1}`` (1-based ranks; the examination of each rank relative to rank 1, the
        part of PBM's examination the clicks identify); None for the other models."""
        if not isinstance(self.model, PBM):
            return None
        gamma = np.asarray(self.model.examination, dtype=np.float64)
        if gamma.size == 0 or not gamma[0] > 0:
            return {r + 1: math.nan for r in range(gamma.size)}
        return {r + 1: float(g / gamma[0]) for r, g in enumerate(gamma)}

    def parameter_frames(self) -> dict[str, pl.DataFrame]:
        """The model's parameters as tables, by what they are indexed by (absent when the
        model has none of that kind):

        * ``"rank"``: column ``rank`` (1-based) and one column per parameter of a rank (the
          examination of PBM, the continuation of DCM, the CTR of :class:`RankCTR`);
        * ``"rank_previous_click"``: UBM's examination, columns ``rank``,
          ``previous_click`` (the 1-based rank of the last click above, 0 for none) and
          ``examination``; only ``previous_click < rank``, a cell no training session
          reached holds the EM start;
        * ``"pair"``: columns ``query_id``, ``doc_id`` and one per parameter of a (query,
          document) pair (attractiveness, satisfaction, CTR), the pairs of the training log.
        """
        found = _fields(self.model)
        out: dict[str, pl.DataFrame] = {}
        if found.per_rank:
            depth = max(v.size for v in found.per_rank.values())
            columns: dict[str, object] = {"rank": pl.Series(range(1, depth + 1), dtype=pl.Int64)}
            for name, values in found.per_rank.items():
                columns[name] = pl.Series(per_rank_values(values, depth), dtype=pl.Float64)
            out["rank"] = pl.DataFrame(columns)
        for name, table in found.per_rank_previous.items():
            rank, previous = np.tril_indices(table.shape[0])
            out["rank_previous_click"] = pl.DataFrame(
                {
                    "rank": pl.Series(rank + 1, dtype=pl.Int64),
                    "previous_click": pl.Series(previous, dtype=pl.Int64),
                    name: pl.Series(table[rank, previous], dtype=pl.Float64, nan_to_null=True),
                }
            )
        if found.per_pair:
            first = next(iter(found.per_pair.values()))
            pairs: dict[str, object] = {
                "query_id": pl.Series(self.query_ids, dtype=pl.String).gather(first.query),
                "doc_id": pl.Series(self.doc_ids, dtype=pl.String).gather(first.doc),
            }
            for name, pair_table in found.per_pair.items():
                values = pair_table.lookup(first.query, first.doc[:, None])[:, 0]
                pairs[name] = pl.Series(values, dtype=pl.Float64)
            out["pair"] = pl.DataFrame(pairs)
        return out

    def parameter_table(self) -> pl.DataFrame:
        """Every parameter of the model in one long table (``logs fit --params``): columns
        ``model``, ``parameter``, ``rank``, ``previous_click``, ``query_id``, ``doc_id`` (null
        where the parameter is not indexed by it) and ``value``; PBM's propensities are the
        rows of the parameter ``propensity`` (:meth:`propensities`); the EM iterations are not
        a parameter and are left out."""
        parts = [
            pl.DataFrame({"parameter": [name], "value": [value]})
            for name, value in _fields(self.model).scalars.items()
        ]
        for frame in self.parameter_frames().values():
            keys = [c for c in ("rank", "previous_click", "query_id", "doc_id") if c in frame]
            values = [c for c in frame.columns if c not in keys]
            parts.append(frame.unpivot(values, index=keys, variable_name="parameter"))
        propensities = self.propensities()
        if propensities is not None:
            parts.append(
                pl.DataFrame(
                    {
                        "parameter": "propensity",
                        "rank": list(propensities),
                        "value": list(propensities.values()),
                    }
                )
            )
        schema = {
            "parameter": pl.String,
            "rank": pl.Int64,
            "previous_click": pl.Int64,
            "query_id": pl.String,
            "doc_id": pl.String,
            "value": pl.Float64,
        }
        frame = pl.concat(
            [p.cast({c: schema[c] for c in p.columns}) for p in parts], how="diagonal"
        )
        frame = frame.with_columns(
            pl.lit(None, dtype=t).alias(c) for c, t in schema.items() if c not in frame.columns
        )
        return frame.select(pl.lit(self.name).alias("model"), *schema)

    def parameters_to_dict(self) -> dict[str, object]:
        """The parameters of :meth:`parameter_frames`, JSON-ready (NaN as None): ``per_rank``,
        ``per_rank_previous_click`` and ``per_pair`` as lists of records (empty when the model
        has none), and ``propensities`` (``{"rank": γ_r / γ_1}``, PBM only, else None); the
        scalars are :meth:`parameters`."""
        frames = self.parameter_frames()
        names = {
            "rank": "per_rank",
            "rank_previous_click": "per_rank_previous_click",
            "pair": "per_pair",
        }
        out: dict[str, object] = {}
        for kind, key in names.items():
            frame = frames.get(kind)
            out[key] = (
                []
                if frame is None
                else [
                    {k: (_finite(v) if isinstance(v, float) else v) for k, v in row.items()}
                    for row in frame.fill_nan(None).iter_rows(named=True)
                ]
            )
        propensities = self.propensities()
        out["propensities"] = (
            None if propensities is None else {str(r): _finite(v) for r, v in propensities.items()}
        )
        return out


@dataclass(frozen=True)
class _Found:
    """A model's parameters sorted by what they are indexed by."""

    scalars: dict[str, float]
    per_rank: dict[str, NDArray[np.float64]]
    per_rank_previous: dict[str, NDArray[np.float64]]
    per_pair: dict[str, PairTable]


_NOT_PARAMETERS: Final = frozenset({"prior", "iterations"})


def _fields(model: ClickModel) -> _Found:
    """The parameters of a model (a dataclass of them: :mod:`cranfield.logs.click_models`), by
    the type of each field: a float, an array per rank, a table per (rank, previous click),
    a :class:`PairTable`; the prior of what is unseen and the iterations are not parameters."""
    found = _Found({}, {}, {}, {})
    for f in dataclasses.fields(model):  # type: ignore[arg-type]
        if f.name in _NOT_PARAMETERS:
            continue
        value = getattr(model, f.name)
        if isinstance(value, PairTable):
            found.per_pair[f.name] = value
        elif isinstance(value, np.ndarray) and value.ndim == 2:
            found.per_rank_previous[f.name] = np.asarray(value, dtype=np.float64)
        elif isinstance(value, np.ndarray):
            found.per_rank[f.name] = np.asarray(value, dtype=np.float64).ravel()
        elif isinstance(value, float | int) and not isinstance(value, bool):
            found.scalars[f.name] = float(value)
    return found


def per_rank_values(values: NDArray[np.float64], depth: int) -> list[float | None]:
    """``values`` as a list of ``depth`` numbers, None past its end and for NaN."""
    return [
        float(values[r]) if r < values.size and not math.isnan(values[r]) else None
        for r in range(depth)
    ]


def fit_click_model(
    model: str | type[ClickModel], sessions: Sessions, **options: object
) -> FittedClickModel:
    """Fit a click model to sessions (module doc: which clicks it sees).

    Parameters
    ----------
    model:
        A name of :data:`MODELS` (any case) or a model class.
    sessions:
        The training sessions.
    **options:
        The model's fit options (:func:`model_options`: ``prior``, ``pseudo_counts`` (the
        smoothing of every ratio, ``(1, 1)`` by default as PyClick, ``(0, 0)`` for the
        unsmoothed maximum likelihood), and for the EM fits
        ``max_iterations``, ``tolerance``; ``gamma`` fixes DBN's continuation).

    Raises
    ------
    OptionError
        If ``model`` is unknown, an option is not one the model takes, or has a bad value.
    """
    cls = click_model_class(model)
    takes = model_options(cls)
    for option in options:
        if option not in takes:
            raise OptionError("options", f"one of {cls.__name__}'s ({', '.join(takes)})", option)
    pseudo = check_pseudo_counts(options.get("pseudo_counts", DEFAULT_PSEUDO_COUNTS))
    fitted = _fit_method(cls)(sessions.query, sessions.shown, sessions.clicked, **options)
    return FittedClickModel(
        cls.__name__, fitted, sessions.query_ids, sessions.doc_ids, len(sessions), pseudo
    )


def ignored_clicks(sessions: Sessions) -> tuple[int, int]:
    """What the models do not see of the clicks of ``sessions``: the clicks on documents not
    shown, and the repeated clicks on a shown result (every click after its first).

    Examples
    --------
    >>> from cranfield.data.sessions import Sessions
    >>> s = Sessions(query_ids=("q",), doc_ids=("a", "b", "x"), query=[0], shown=[[0, 1]],
    ...              click_session=[0, 0, 0], click_doc=[1, 2, 1])
    >>> ignored_clicks(s)
    (1, 1)
    """
    on_shown = int(np.count_nonzero(sessions.click_rank >= 0))
    unshown = sessions.num_clicks - on_shown
    return unshown, on_shown - int(np.count_nonzero(sessions.clicked))


def _pair_keys(sessions: Sessions) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """The (query, document) key of every shown result, and which cells show one."""
    shown = sessions.shown >= 0
    keys = (sessions.query[:, None] << 32) | np.maximum(sessions.shown, 0)
    return keys, shown


def unseen_pairs(train: Sessions, test: Sessions) -> dict[str, int]:
    """How much of ``test`` a model fitted on ``train`` has not seen, so gives the prior:
    the distinct (query, document) pairs of ``test`` that ``train`` never showed
    (``pairs`` of ``of_pairs``), and the results shown that are such a pair (``results`` of
    ``of_results``); ``test`` is put on the training codes first.

    Examples
    --------
    >>> from cranfield.data.sessions import Sessions
    >>> train = Sessions.from_clicked(query_ids=("q",), doc_ids=("a", "b"), query=[0],
    ...     shown=[[0, 1]], clicked=[[True, False]])
    >>> test = Sessions.from_clicked(query_ids=("q",), doc_ids=("c", "a"), query=[0, 0],
    ...     shown=[[1, 0], [0, -1]], clicked=[[False, False], [False, False]])
    >>> unseen_pairs(train, test)
    {'pairs': 1, 'of_pairs': 2, 'results': 2, 'of_results': 3}
    """
    if test.query_ids != train.query_ids or test.doc_ids != train.doc_ids:
        test = test.recoded(train.query_ids, train.doc_ids)
    train_keys, train_shown = _pair_keys(train)
    known = np.unique(train_keys[train_shown])
    keys, shown = _pair_keys(test)
    cells = keys[shown]
    new = ~np.isin(cells, known)
    return {
        "pairs": int(np.unique(cells[new]).size),
        "of_pairs": int(np.unique(cells).size),
        "results": int(new.sum()),
        "of_results": int(cells.size),
    }


DEFINITIONS: Final = (
    "log-likelihood: the sum over sessions of log P(the session's clicks) (natural "
    "logarithm); higher is better",
    "perplexity at rank r: 2 ** -(mean over sessions of log2 P(C_r = c_r)), from the model's "
    "click probability at r given no clicks; perplexity: its mean over ranks; 1 is a perfect "
    "prediction, 2 a coin flip, lower is better",
    "conditional perplexity: the same from P(C_r = c_r | the clicks above r)",
    "a result clicked more than once counts once; a click on a document not shown is left out",
    "a query or document the training log lacks gets the prior (0.5 unless given)",
    "fitted parameters (JSON and --params): per rank (1-based), UBM's examination per rank and "
    "previous click (the 1-based rank of the last click above, 0 for none), per (query, "
    "document) pair of the training log; PBM's propensities: its examination at each rank over "
    "that at rank 1, what clicks identify of it",
)
"""What the figures of a :class:`ClickModelComparison` mean, one sentence each."""


@dataclass(frozen=True, eq=False)
class ClickModelFit:
    """One model of a comparison: the fitted model and its score on the scored log."""

    fitted: FittedClickModel
    score: ModelScore


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


@dataclass(frozen=True, eq=False)
class ClickModelComparison:
    """Click models fitted on one log and scored on another (or on the same).

    Attributes
    ----------
    train, test:
        The training sessions and the scored ones; ``test`` is None when the models were
        scored on the training sessions (which flatters the models with more parameters).
    fits:
        One per model, the lowest perplexity first (ties in the order asked).
    """

    train: Sessions
    test: Sessions | None
    fits: tuple[ClickModelFit, ...]

    def estimation(self) -> tuple[str, ...]:
        """How the parameters were estimated (the pseudo-counts), one sentence per distinct
        choice among the fits (one, as :func:`compare_click_models` gives every model the
        same)."""
        return tuple(dict.fromkeys(estimation_sentence(f.fitted.pseudo_counts) for f in self.fits))

    @property
    def scored(self) -> Sessions:
        """The sessions the models were scored on."""
        return self.train if self.test is None else self.test

    def to_dict(self) -> dict[str, object]:
        """Every figure, JSON-ready (NaN, a rank no session reaches, as None)."""
        unshown, repeated = ignored_clicks(self.scored)
        return {
            "train": self.train.described(),
            "test": None if self.test is None else self.test.described(),
            "scored_on": "train" if self.test is None else "test",
            "ignored_clicks": {"unshown": unshown, "repeated": repeated},
            "unseen": None if self.test is None else unseen_pairs(self.train, self.test),
            "models": [
                {
                    "model": f.fitted.name,
                    "parameters": f.fitted.parameters(),
                    **f.fitted.parameters_to_dict(),
                    "sessions": f.score.sessions,
                    "log_likelihood": _finite(f.score.log_likelihood),
                    "mean_log_likelihood": _finite(f.score.mean_log_likelihood),
                    "perplexity": _finite(f.score.perplexity),
                    "perplexity_at_rank": [_finite(v) for v in f.score.perplexity_at_rank],
                    "conditional_perplexity": _finite(f.score.conditional_perplexity),
                    "conditional_perplexity_at_rank": [
                        _finite(v) for v in f.score.conditional_perplexity_at_rank
                    ],
                }
                for f in self.fits
            ],
            "definitions": [*DEFINITIONS, *self.estimation()],
        }


def compare_click_models(
    train: Sessions,
    test: Sessions | None = None,
    models: Sequence[str | type[ClickModel]] | None = None,
    **options: object,
) -> ClickModelComparison:
    """Fit each model on ``train`` and score it on ``test`` (on ``train`` when None).

    Parameters
    ----------
    train, test:
        The logs; ``test`` may code its ids differently (it is put on the training codes).
    models:
        Names or classes (default: every model of :data:`MODELS`), each at most once.
    **options:
        Fit options; each goes to every model that takes it (:func:`model_options`).

    Raises
    ------
    OptionError
        If a model is unknown or asked twice, or an option is one no asked model takes.
    """
    classes = [click_model_class(m) for m in (list(MODELS) if models is None else models)]
    if not classes or len(set(classes)) != len(classes):
        raise OptionError("models", "distinct model names, at least one", models)
    takes = {cls: model_options(cls) for cls in classes}
    for option in options:
        if not any(option in t for t in takes.values()):
            every = sorted({o for t in takes.values() for o in t})
            raise OptionError("options", f"one the models take ({', '.join(every)})", option)
    fits = []
    for cls in classes:
        fitted = fit_click_model(
            cls, train, **{k: v for k, v in options.items() if k in takes[cls]}
        )
        fits.append(ClickModelFit(fitted, fitted.score(train if test is None else test)))
    order = sorted(
        range(len(fits)),
        key=lambda i: (math.isnan(fits[i].score.perplexity), fits[i].score.perplexity, i),
    )
    return ClickModelComparison(train, test, tuple(fits[i] for i in order))


@dataclass(frozen=True, eq=False)
class ExaminationCurve:
    """PBM's propensities of a log with bootstrap intervals over its sessions.

    Attributes
    ----------
    propensity:
        ``(depth,)`` examination at each rank over that at rank 1 (:meth:`FittedClickModel.
        propensities`) of PBM fitted on the log.
    low, high:
        The ``1 - alpha`` percentile interval of each over ``resamples`` fits on sessions drawn
        with replacement.
    resamples, alpha, seed:
        The bootstrap's settings (the same seed gives the same intervals).
    """

    propensity: NDArray[np.float64]
    low: NDArray[np.float64]
    high: NDArray[np.float64]
    resamples: int
    alpha: float
    seed: int


def examination_curve(
    sessions: Sessions,
    *,
    resamples: int = 30,
    alpha: float = 0.05,
    seed: int = 0,
    max_iterations: int = 50,
) -> ExaminationCurve:
    """PBM's examination curve relative to rank 1, with a percentile bootstrap over sessions
    (each resample a PBM fit of ``max_iterations`` EM iterations on as many sessions drawn
    with replacement; pseudo-counts (1, 1)).

    Examples
    --------
    >>> from cranfield.data.sessions import Sessions
    >>> rng = np.random.default_rng(0)
    >>> shown = np.argsort(rng.random((400, 3)), axis=1)
    >>> clicked = rng.random((400, 3)) < np.array([0.8, 0.4, 0.2])  # by rank, not document
    >>> log = Sessions.from_clicked(query_ids=("q",), doc_ids=("a", "b", "c"),
    ...     query=np.zeros(400, dtype=int), shown=shown, clicked=clicked)
    >>> curve = examination_curve(log, resamples=10)
    >>> curve.propensity.round(1).tolist(), bool((curve.low <= curve.propensity).all())
    ([1.0, 0.5, 0.3], True)
    """
    from cranfield._validate import check_float, check_int

    b = check_int("resamples", resamples, minimum=1)
    a = check_float("alpha", alpha, minimum=0.0, maximum=1.0, above=True, below=True)
    its = check_int("max_iterations", max_iterations, minimum=1)

    def ratios(idx: NDArray[np.int64] | slice) -> NDArray[np.float64]:
        model = PBM.fit(
            sessions.query[idx], sessions.shown[idx], sessions.clicked[idx], max_iterations=its
        )
        gamma = np.asarray(model.examination, dtype=np.float64)
        return gamma / gamma[0] if gamma.size and gamma[0] > 0 else np.full(gamma.size, np.nan)

    whole = ratios(slice(None))
    gen = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(35,)))
    n = len(sessions)
    drawn = np.array([ratios(gen.integers(0, n, n)) for _ in range(b)])
    low, high = np.nanquantile(drawn, [a / 2.0, 1.0 - a / 2.0], axis=0)
    return ExaminationCurve(whole, low, high, b, a, seed)
