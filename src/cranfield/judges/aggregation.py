"""Many labels of one (query, document) pair made into one: crowd label aggregation.

:func:`combine` turns :class:`~cranfield.io.crowd_labels.CrowdLabels` into one label per pair
with one of four methods, each with a quality estimate per worker:

``majority``
    The most frequent label of the pair. **Ties go to the lowest tied grade** (the cautious
    choice: a pair is not called more relevant than its votes say), and the number of tied
    pairs is reported. Worker quality: the share of the worker's labels equal to the result.
``dawid-skene``
    Dawid & Skene (1979): each worker has a confusion matrix ``P(label k | true grade c)``, the
    grades a prior; EM from the majority vote's label shares. Worker quality: the worker's
    accuracy ``Σ_c prior_c · P(c | c)``.
``one-coin``
    Dawid-Skene with one accuracy per worker, its errors spread evenly over the other grades
    (the "one-coin" model of Zhang, Chen, Zhou & Jordan, "Spectral methods meet EM", JMLR 17,
    2016). With K grades it fits 1 parameter per worker instead of K(K-1): it stays stable where
    each worker labels few pairs or uses some grades rarely, which is the usual crowd, and it is
    the model behind most worker-accuracy estimates. Worker quality: that accuracy.
``glad``
    Whitehill et al., "Whose vote should count more" (NeurIPS 2009): a worker's ability
    ``α`` and a pair's difficulty ``β`` (``P(correct) = σ(α·e^β)``, the rest spread evenly),
    both with N(1, 1) priors, EM with conjugate-gradient M-steps (scipy). Worker quality: ``α``.

The EM methods follow crowd-kit 1.4 step for step (initialisation, the 1e-10 floor of
probabilities, the stopping rule on the evidence lower bound, GLAD's log-difficulty
parametrisation and its CG settings), so that their results can be checked against it; the
arithmetic is numpy over all labels at once (sparse sums by pair and by worker), no Python
loop over pairs. The grades are the labels seen, sorted; a posterior tie goes to the lowest
grade, as in the majority vote.

**Gold pairs** (pairs whose true label is known) score every worker: the share of their gold
pairs they labelled right. In Dawid-Skene, one-coin and GLAD the gold pairs' posteriors are also
held at their gold label during EM (crowd-kit's ``true_labels`` for Dawid-Skene), so gold pairs
keep their gold label in the result. Gold that no worker labelled is an error (there is
nothing to score workers on), as is a gold label outside the scale.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

import numpy as np

from cranfield._validate import check_choice, check_float, check_int
from cranfield.errors import InputError
from cranfield.stats.plain_data import finite_or_none

if TYPE_CHECKING:
    from collections.abc import Mapping

    from numpy.typing import NDArray
    from scipy.sparse import csr_matrix

    from cranfield.data.qrels import Qrels
    from cranfield.io.crowd_labels import CrowdLabels
    from cranfield.io.load import QrelsLike

__all__ = [
    "METHODS",
    "Combined",
    "Method",
    "WorkerQuality",
    "combine",
    "gold_of",
]

Method = Literal["majority", "dawid-skene", "one-coin", "glad"]
METHODS: Final[tuple[str, ...]] = get_args(Method)
_EPS: Final = 1e-10
"""crowd-kit's floor of a probability (``_EPS = 10**-10``)."""


@dataclass(frozen=True)
class WorkerQuality:
    """One worker's labels and how good they look.

    Attributes
    ----------
    worker:
        The worker's id.
    labels:
        How many pairs the worker labelled.
    agreement:
        The share of those labels equal to the combined label.
    skill:
        The method's estimate (majority: ``agreement``; Dawid-Skene, one-coin: accuracy;
        GLAD: ability ``α``).
    gold:
        How many gold pairs the worker labelled (0 without gold).
    gold_accuracy:
        The share of those labelled right (NaN without any).
    """

    worker: str
    labels: int
    agreement: float
    skill: float
    gold: int
    gold_accuracy: float


@dataclass(frozen=True, eq=False)
class Combined:
    """What :func:`combine` returns: one label per pair, and what the workers look like.

    Attributes
    ----------
    method:
        The method used.
    queries, docs:
        The pairs, sorted by query then document (bytewise).
    labels:
        The combined label of each pair.
    grades:
        The grades seen (sorted): the columns of :attr:`probabilities`.
    probabilities:
        ``pairs × grades``: each pair's label shares (majority) or posterior (EM).
    ties:
        Pairs whose highest share or posterior is shared by two grades or more (the lowest
        one is taken).
    workers:
        One :class:`WorkerQuality` per worker, by worker id.
    iterations:
        EM iterations run (0 for the majority vote).
    gold_pairs:
        Gold pairs given; :attr:`gold_labelled` of them labelled by some worker.
    gold_labelled:
        Gold pairs with at least one worker label.
    source:
        Where the labels came from.
    """

    method: str
    queries: NDArray[np.str_]
    docs: NDArray[np.str_]
    labels: NDArray[np.int64]
    grades: tuple[int, ...]
    probabilities: NDArray[np.float64]
    ties: int
    workers: tuple[WorkerQuality, ...]
    iterations: int
    gold_pairs: int
    gold_labelled: int
    source: str

    def __repr__(self) -> str:
        return (
            f"Combined(method={self.method!r}, pairs={self.labels.size}, "
            f"workers={len(self.workers)}, ties={self.ties})"
        )

    @property
    def notes(self) -> list[str]:
        """The policies that shaped the result, as sentences."""
        notes = [
            f"{self.labels.size} pairs combined from the labels of {len(self.workers)} workers "
            f"by {self.method}.",
            f"Ties: {self.ties} pairs had two or more grades with the highest "
            + ("vote" if self.method == "majority" else "posterior")
            + " share; each took the lowest of them.",
        ]
        if self.gold_pairs:
            held = (
                ""
                if self.method == "majority"
                else " Gold pairs were held at their gold label during EM."
            )
            notes.append(
                f"Gold: {self.gold_pairs} pairs given, {self.gold_labelled} labelled by some "
                f"worker, used to score the workers.{held}"
            )
        return notes

    def to_qrels(self, name: str | None = None) -> Qrels:
        """The combined labels as :class:`~cranfield.data.qrels.Qrels`."""
        import polars as pl

        from cranfield.io.load import load_qrels

        frame = pl.DataFrame(
            {
                "query_id": self.queries.tolist(),
                "doc_id": self.docs.tolist(),
                "relevance": self.labels.tolist(),
            },
            schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64},
        )
        return load_qrels(frame, name=name or self.method)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready; NaN as ``None``), without the per-pair posteriors."""
        return {
            "method": self.method,
            "source": self.source,
            "pairs": int(self.labels.size),
            "grades": list(self.grades),
            "label_counts": {str(g): int((self.labels == g).sum()) for g in self.grades},
            "ties": self.ties,
            "iterations": self.iterations,
            "gold_pairs": self.gold_pairs,
            "gold_labelled": self.gold_labelled,
            "workers": [
                {
                    "worker": w.worker,
                    "labels": w.labels,
                    "agreement": finite_or_none(w.agreement),
                    "skill": finite_or_none(w.skill),
                    "gold": w.gold,
                    "gold_accuracy": finite_or_none(w.gold_accuracy),
                }
                for w in self.workers
            ],
            "notes": self.notes,
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text."""
        check_int("indent", indent, minimum=0, none=True)
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False) + "\n"


# --------------------------------------------------------------------------- the codes


@dataclass(frozen=True)
class _Coded:
    """The labels as integer codes: pair ``t``, worker ``w``, grade ``k`` per label."""

    t: NDArray[np.int64]
    w: NDArray[np.int64]
    k: NDArray[np.int64]
    queries: NDArray[np.str_]
    docs: NDArray[np.str_]
    workers: NDArray[np.str_]
    grades: NDArray[np.int64]
    by_pair: csr_matrix  # pairs × labels, ones
    by_worker: csr_matrix  # workers × labels, ones

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.queries.size, self.workers.size, self.grades.size


def _coded(crowd: CrowdLabels) -> _Coded:
    from scipy.sparse import csr_matrix

    # pairs in bytewise (query, doc) order: numpy sorts str_ by code point, which is the
    # bytewise order of their UTF-8
    query_ids, q = np.unique(crowd.queries, return_inverse=True)
    doc_ids, d = np.unique(crowd.docs, return_inverse=True)
    keys, t = np.unique(q.astype(np.int64) * doc_ids.size + d, return_inverse=True)
    workers, w = np.unique(crowd.workers, return_inverse=True)
    grades, k = np.unique(crowd.labels, return_inverse=True)
    n = crowd.labels.size
    ones = np.ones(n)
    rows = np.arange(n)
    return _Coded(
        t=t.astype(np.int64),
        w=w.astype(np.int64),
        k=k.astype(np.int64),
        queries=query_ids[keys // doc_ids.size],
        docs=doc_ids[keys % doc_ids.size],
        workers=workers,
        grades=grades.astype(np.int64),
        by_pair=csr_matrix((ones, (t, rows)), shape=(keys.size, n)),
        by_worker=csr_matrix((ones, (w, rows)), shape=(workers.size, n)),
    )


def _gold(
    codes: _Coded, gold: Mapping[tuple[str, str], int] | None, scale: tuple[int, int]
) -> tuple[NDArray[np.int64], int]:
    """Per pair, the gold grade's column (``-1`` for none, ``-2`` for a gold grade no worker
    used), and the number of gold pairs given."""
    where = np.full(codes.queries.size, -1, dtype=np.int64)
    if not gold:
        return where, 0
    low, high = scale
    index = {
        (q, d): i
        for i, (q, d) in enumerate(zip(codes.queries.tolist(), codes.docs.tolist(), strict=True))
    }
    column = {int(g): i for i, g in enumerate(codes.grades.tolist())}
    for (q, d), label in gold.items():
        if not low <= label <= high:
            raise InputError(
                "<gold>",
                None,
                f"gold label {label} of query {q}, document {d} is outside the scale {low}-{high}",
            )
        i = index.get((q, d))
        if i is not None:
            where[i] = column.get(int(label), -2)
    return where, len(gold)


def _hold(probas: NDArray[np.float64], gold: NDArray[np.int64]) -> NDArray[np.float64]:
    """``probas`` with each gold pair's row set to its gold grade (crowd-kit's correction)."""
    held = gold >= 0
    if held.any():
        probas = probas.copy()
        probas[held] = 0.0
        probas[np.flatnonzero(held), gold[held]] = 1.0
    return probas


# --------------------------------------------------------------------------- the methods


def _vote_shares(c: _Coded) -> NDArray[np.float64]:
    n_pairs, _, n_grades = c.shape
    counts = np.zeros((n_pairs, n_grades))
    np.add.at(counts, (c.t, c.k), 1.0)
    result: NDArray[np.float64] = counts / counts.sum(axis=1, keepdims=True)
    return result


def _dawid_skene(
    c: _Coded, gold: NDArray[np.int64], *, one_coin: bool, max_iterations: int, tol: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
    """Posteriors, per-worker skill, iterations (crowd-kit's ``DawidSkene`` and
    ``OneCoinDawidSkene``)."""
    _, n_workers, n_grades = c.shape
    n = c.t.size
    seen = np.zeros((n_workers, n_grades), dtype=bool)
    seen[c.w, c.k] = True
    cell = c.w * n_grades + c.k  # the (worker, given grade) row of each label
    from scipy.sparse import csr_matrix

    by_cell = csr_matrix((np.ones(n), (cell, np.arange(n))), shape=(n_workers * n_grades, n))

    def m_step(probas: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        if one_coin:
            skill = (
                np.asarray(c.by_worker @ probas[c.t, c.k])
                / np.asarray(c.by_worker.sum(axis=1)).ravel()
            )
            off = (1.0 - skill) / (n_grades - 1) if n_grades > 1 else np.zeros_like(skill)
            errors = np.broadcast_to(off[:, None, None], (n_workers, n_grades, n_grades)).copy()
            diag = np.arange(n_grades)
            errors[:, diag, diag] = skill[:, None]
            errors = np.clip(errors, _EPS, 1.0 - _EPS)
            errors[~seen] = 0.0
            return errors, skill
        sums = np.asarray(by_cell @ probas[c.t]).reshape(n_workers, n_grades, n_grades)
        sums[seen] = np.maximum(sums[seen], _EPS)
        totals = sums.sum(axis=1, keepdims=True)
        errors = sums / totals
        return errors, np.array([])

    def e_step(priors: NDArray[np.float64], errors: NDArray[np.float64]) -> NDArray[np.float64]:
        logs = np.log2(errors[c.w, c.k])  # labels × grades; every (w, k) here was seen
        ll = np.log2(np.maximum(priors, _EPS))[None, :] + np.asarray(c.by_pair @ logs)
        scaled = np.exp2(ll - ll.max(axis=1, keepdims=True))
        result: NDArray[np.float64] = scaled / scaled.sum(axis=1, keepdims=True)
        return result

    def elbo(
        probas: NDArray[np.float64], priors: NDArray[np.float64], errors: NDArray[np.float64]
    ) -> float:
        joint = float(
            (probas[c.t] * (np.log(errors[c.w, c.k]) + np.log(np.maximum(priors, _EPS)))).sum()
        )
        p = np.maximum(probas, _EPS)
        return (joint - float((np.log(p) * p).sum())) / n

    probas = _hold(_vote_shares(c), gold)
    priors = probas.mean(axis=0)
    errors, skill = m_step(probas)
    loss = -math.inf
    iterations = 0
    for _ in range(max_iterations):
        iterations += 1
        probas = _hold(e_step(priors, errors), gold)
        priors = probas.mean(axis=0)
        errors, skill = m_step(probas)
        new_loss = elbo(probas, priors, errors)
        if new_loss - loss < tol:
            break
        loss = new_loss
    if not one_coin:
        diag = np.arange(n_grades)
        skill = (errors[:, diag, diag] * priors[None, :]).sum(axis=1)
    return probas, skill, iterations


def _softplus(x: NDArray[np.float64]) -> NDArray[np.float64]:
    result: NDArray[np.float64] = np.logaddexp(0.0, x)
    return result


def _glad(
    c: _Coded, gold: NDArray[np.int64], *, max_iterations: int, tol: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
    """Posteriors, abilities α, iterations (crowd-kit's ``GLAD``: uniform prior over the
    grades, α and log-difficulty β from 1 with N(1, 1) priors, CG M-steps)."""
    from scipy.optimize import minimize

    n_pairs, n_workers, n_grades = c.shape
    log_prior = np.full(n_grades, -math.log(n_grades))
    spread = math.log(n_grades - 1) if n_grades > 1 else 0.0
    log_norm = 0.5 * math.log(2.0 * math.pi)
    onehot = np.zeros((c.t.size, n_grades), dtype=bool)
    onehot[np.arange(c.t.size), c.k] = True

    def e_step(alpha: NDArray[np.float64], beta: NDArray[np.float64]) -> NDArray[np.float64]:
        ab = alpha[c.w] * np.exp(beta[c.t])
        right = -_softplus(-ab)
        wrong = -_softplus(ab) - spread
        contrib = np.where(onehot, right[:, None], wrong[:, None])
        ll = log_prior[None, :] + np.asarray(c.by_pair @ contrib)
        scaled = np.exp(ll - ll.max(axis=1, keepdims=True))
        return _hold(scaled / scaled.sum(axis=1, keepdims=True), gold)

    def q_value(x: NDArray[np.float64], post_given: NDArray[np.float64]) -> float:
        alpha, beta = x[:n_workers], x[n_workers:]
        ab = alpha[c.w] * np.exp(beta[c.t])
        right = -_softplus(-ab)
        wrong = -_softplus(ab) - spread
        q = float((post_given * right + (1.0 - post_given) * wrong).sum())
        q += float((-0.5 * (alpha - 1.0) ** 2 - log_norm).sum())
        q += float((-0.5 * (beta - 1.0) ** 2 - log_norm).sum())
        return -math.inf if math.isnan(q) else q

    def gradient(x: NDArray[np.float64], post_given: NDArray[np.float64]) -> NDArray[np.float64]:
        alpha, beta = x[:n_workers], x[n_workers:]
        e_beta = np.exp(beta[c.t])
        sigma = 1.0 / (1.0 + np.exp(-alpha[c.w] * e_beta))
        common = (post_given - sigma) * e_beta
        d_alpha = np.asarray(c.by_worker @ common).ravel() - (alpha - 1.0)
        d_beta = np.asarray(c.by_pair @ (common * alpha[c.w])).ravel() - (beta - 1.0)
        return np.concatenate([d_alpha, d_beta])

    x = np.ones(n_workers + n_pairs)
    probas = e_step(x[:n_workers], x[n_workers:])
    q = q_value(x, probas[c.t, c.k])
    iterations = 0
    for _ in range(max_iterations):
        iterations += 1
        last = q
        probas = e_step(x[:n_workers], x[n_workers:])
        given = probas[c.t, c.k]

        def objective(v: NDArray[np.float64], g: NDArray[np.float64] = given) -> float:
            return -q_value(v, g)

        def slope(v: NDArray[np.float64], g: NDArray[np.float64] = given) -> NDArray[np.float64]:
            return -gradient(v, g)

        res = minimize(
            objective,
            x,
            method="CG",
            jac=slope,
            tol=1e-2,
            options={"disp": False, "maxiter": 25},
        )
        x = np.asarray(res.x, dtype=np.float64)
        q = q_value(x, probas[c.t, c.k]) / (c.t.size * n_grades)
        if q - last < tol:
            break
    return probas, x[:n_workers].copy(), iterations


# --------------------------------------------------------------------------- the front


def gold_of(qrels: QrelsLike) -> dict[tuple[str, str], int]:
    """``{(query, doc): label}`` of the judgments (labels >= 0) of ``qrels``: gold pairs."""
    from cranfield.io.load import load_qrels

    frame = load_qrels(qrels, name="gold").frame
    return {
        (q, d): int(r)
        for q, d, r in frame.select("query_id", "doc_id", "relevance").iter_rows()
        if r >= 0
    }


def combine(
    crowd: CrowdLabels,
    *,
    method: Method = "dawid-skene",
    gold: Mapping[tuple[str, str], int] | None = None,
    max_iterations: int = 100,
    tol: float = 1e-5,
) -> Combined:
    """One label per (query, document) pair from many workers' labels.

    Parameters
    ----------
    crowd:
        The labels (:func:`~cranfield.io.crowd_labels.read_crowd_labels`).
    method:
        ``"majority"``, ``"dawid-skene"``, ``"one-coin"`` or ``"glad"`` (the module
        documentation says what each assumes).
    gold:
        ``{(query, doc): label}`` of pairs whose label is known: they score the workers (and
        hold the EM posteriors).
    max_iterations, tol:
        EM stops after ``max_iterations`` or when the evidence lower bound (GLAD: its
        objective) gains less than ``tol`` per label (crowd-kit's defaults).

    Raises
    ------
    InputError
        ``gold`` shares no pair with the labels, or has a label outside the scale.

    Examples
    --------
    >>> import numpy as np
    >>> from cranfield.io.crowd_labels import CrowdLabels
    >>> s = lambda *v: np.array(v, dtype=np.str_)
    >>> crowd = CrowdLabels(s("a", "b", "c", "a", "b"), s("q1", "q1", "q1", "q1", "q1"),
    ...                     s("d1", "d1", "d1", "d2", "d2"), np.array([2, 2, 0, 1, 0]))
    >>> result = combine(crowd, method="majority")
    >>> result.labels.tolist(), result.ties
    ([2, 0], 1)
    """
    check_choice("method", method, METHODS)
    check_int("max_iterations", max_iterations, minimum=1)
    check_float("tol", tol, minimum=0)
    if len(crowd) == 0:
        raise InputError(crowd.source, None, "has no labels to combine")
    c = _coded(crowd)
    held, gold_given = _gold(c, gold, crowd.scale)
    gold_labelled = int((held != -1).sum())
    if gold and gold_labelled == 0:
        raise InputError(
            crowd.source,
            None,
            f"no worker labelled any of the {gold_given} gold pairs: the labels and the gold "
            "share no (query, document) pair, so no worker can be scored",
        )
    for_em = np.where(held >= 0, held, -1)
    iterations = 0
    if method == "majority":
        probas = _vote_shares(c)
        skill = None
    elif method == "glad":
        probas, skill, iterations = _glad(c, for_em, max_iterations=max_iterations, tol=tol)
    else:
        probas, skill, iterations = _dawid_skene(
            c, for_em, one_coin=method == "one-coin", max_iterations=max_iterations, tol=tol
        )
    top = probas.max(axis=1, keepdims=True)
    ties = int(((probas == top).sum(axis=1) > 1).sum())
    chosen = np.argmax(probas, axis=1)  # the first (lowest) grade among tied ones
    labels = c.grades[chosen]
    gold_grade = _gold_grades(c, gold)
    workers = _qualities(c, chosen, skill, gold_grade)
    return Combined(
        method=method,
        queries=c.queries,
        docs=c.docs,
        labels=labels,
        grades=tuple(int(g) for g in c.grades),
        probabilities=probas,
        ties=ties,
        workers=workers,
        iterations=iterations,
        gold_pairs=gold_given,
        gold_labelled=gold_labelled,
        source=crowd.source,
    )


def _gold_grades(c: _Coded, gold: Mapping[tuple[str, str], int] | None) -> NDArray[np.int64]:
    """Per pair, its gold label (``-1`` for none; gold labels are >= the scale's low end)."""
    out = np.full(c.queries.size, np.iinfo(np.int64).min, dtype=np.int64)
    if gold:
        for i, key in enumerate(zip(c.queries.tolist(), c.docs.tolist(), strict=True)):
            if key in gold:
                out[i] = gold[key]
    return out


def _qualities(
    c: _Coded,
    chosen: NDArray[np.int64],
    skill: NDArray[np.float64] | None,
    gold_grade: NDArray[np.int64],
) -> tuple[WorkerQuality, ...]:
    n_workers = c.workers.size
    counts = np.bincount(c.w, minlength=n_workers)
    agree = np.bincount(c.w, weights=(chosen[c.t] == c.k).astype(np.float64), minlength=n_workers)
    agreement = agree / counts
    has_gold = gold_grade[c.t] != np.iinfo(np.int64).min
    gold_n = np.bincount(c.w[has_gold], minlength=n_workers)
    right = (c.grades[c.k] == gold_grade[c.t]) & has_gold
    gold_right = np.bincount(c.w[right], minlength=n_workers)
    with np.errstate(invalid="ignore", divide="ignore"):
        gold_acc = np.where(gold_n > 0, gold_right / np.maximum(gold_n, 1), np.nan)
    skills = agreement if skill is None else skill
    return tuple(
        WorkerQuality(
            worker=str(c.workers[i]),
            labels=int(counts[i]),
            agreement=float(agreement[i]),
            skill=float(skills[i]),
            gold=int(gold_n[i]),
            gold_accuracy=float(gold_acc[i]),
        )
        for i in range(n_workers)
    )
