"""Ranking systems without judgments: pseudo-qrels made from the runs themselves.

Each method marks some pooled documents of each topic "relevant" by what the runs say:

``soboroff``
    Soboroff, Nicholas & Cahan (SIGIR 2001): draw documents at random from the depth-k pool
    *with its duplicates* (a document every run retrieved is as many times in the urn), as
    many per topic as the expected number of relevant documents (drawn per topic from a
    normal with the given mean and standard deviation, at least 1).
``count``
    reference counting (Sakai & Lin 2010, after Nuray & Can 2006): the documents that at least
    ``min_runs`` runs retrieved in their top k ("how many systems returned it"; default a
    majority of the runs).
``borda``
    the top ``relevant`` documents by Borda count (a document at rank r of a run gets
    ``n - r + 1`` points, n the pool size).
``condorcet``
    the top ``relevant`` documents by Copeland's Condorcet count (Montague & Aslam 2002):
    pairwise, a document beats another when more runs rank it above (a document a run did
    not retrieve is below all it retrieved); its score is its wins minus its losses.

:func:`pseudo_study` ranks the runs by a measure under each pseudo-qrels and compares the
ranking with the one under real qrels (τ-b and τ_AP by
:func:`cranfield.stats.rank_correlation.correlate_scores`). Ties in ``borda`` and
``condorcet`` are broken by depth order (:mod:`cranfield.judging.pools`).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import polars as pl

from cranfield._validate import check_choices, check_float, check_int
from cranfield.data.qrels import QRELS_SCHEMA, Qrels
from cranfield.io.load import QrelsLike, load_qrels
from cranfield.io.runset import RunSet
from cranfield.judging.pools import RunLists, TopicLists, run_lists

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.data.run import Run

__all__ = ["METHODS", "PseudoStudy", "pseudo_qrels", "pseudo_study"]

METHODS: Final[tuple[str, ...]] = ("soboroff", "count", "borda", "condorcet")


def _borda_scores(topic: TopicLists) -> NDArray[np.float64]:
    n = len(topic)
    total = np.zeros(n)
    for docs in topic.lists:
        total[docs] += n - np.arange(1, docs.size + 1) + 1
    return total


def _condorcet_scores(topic: TopicLists) -> NDArray[np.float64]:
    n = len(topic)
    margin = np.zeros((n, n))
    for docs in topic.lists:
        position = np.full(n, n + 1, dtype=np.int64)  # not retrieved: below every retrieved
        position[docs] = np.arange(docs.size)
        margin += np.sign(position[None, :] - position[:, None])  # +1 where row is above
    wins = (margin > 0).sum(axis=1)
    losses = (margin < 0).sum(axis=1)
    return np.asarray(wins - losses, dtype=np.float64)


def _top(scores: NDArray[np.float64], k: int) -> NDArray[np.int64]:
    return np.argsort(-scores, kind="stable")[:k].astype(np.int64)


def pseudo_qrels(
    runs: RunLists | RunSet | Mapping[str, Any] | Sequence[Any],
    method: str = "soboroff",
    *,
    pool_depth: int | None = 100,
    relevant: float | Mapping[str, int] = 10,
    spread: float = 0.0,
    min_runs: int | None = None,
    seed: int = 0,
) -> Qrels:
    """Pseudo-qrels of ``runs`` by ``method`` (see the module's table).

    Parameters
    ----------
    runs:
        The runs (or a :class:`~cranfield.judging.pools.RunLists`).
    method:
        One of :data:`METHODS`.
    pool_depth:
        Documents taken from each run per topic.
    relevant:
        Documents marked relevant per topic (``soboroff``: the mean of the normal; ``borda``,
        ``condorcet``: the number), or ``{topic: number}``.
    spread:
        ``soboroff``: the standard deviation of the number per topic (0: always the mean).
    min_runs:
        ``count``: the runs that must retrieve a document (default: a majority, more than
        half of them).
    seed:
        The seed of ``soboroff``'s draws (each topic its own stream).

    Examples
    --------
    >>> runs = {"a": {"q": {"d1": 3.0, "d2": 2.0}}, "b": {"q": {"d1": 2.0, "d3": 1.0}}}
    >>> pseudo_qrels(runs, "count").to_dict()
    {'q': {'d1': 1, 'd2': 0, 'd3': 0}}
    >>> pseudo_qrels(runs, "borda", relevant=1).to_dict()
    {'q': {'d1': 1, 'd2': 0, 'd3': 0}}
    """
    check_choices("method", method, METHODS)
    seed = check_int("seed", seed, minimum=0)
    spread = check_float("spread", spread, minimum=0.0)
    lists = runs if isinstance(runs, RunLists) else run_lists(runs, pool_depth=pool_depth)
    need = check_int("min_runs", min_runs, minimum=1, none=True)
    if need is None:
        need = len(lists.runs) // 2 + 1
    rows: list[tuple[str, str, int]] = []
    for qid in sorted(lists.topics):
        topic = lists.topics[qid]
        wanted = float(relevant[qid]) if isinstance(relevant, Mapping) else float(relevant)
        marked = np.zeros(len(topic), dtype=np.bool_)
        if method == "count":
            counts = np.zeros(len(topic), dtype=np.int64)
            for docs in topic.lists:
                counts[docs] += 1
            marked = counts >= need
        elif method == "soboroff":
            rng = np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(qid.encode())]))
            k = max(1, round(rng.normal(wanted, spread))) if spread else max(1, round(wanted))
            urn = np.concatenate([docs for docs in topic.lists if docs.size])
            # draws without replacement from the urn of distinct documents, weighted by copies
            copies = np.bincount(urn, minlength=len(topic)).astype(np.float64)
            k = min(k, int((copies > 0).sum()))
            chosen = rng.choice(len(topic), size=k, replace=False, p=copies / copies.sum())
            marked[chosen] = True
        else:
            scores = _borda_scores(topic) if method == "borda" else _condorcet_scores(topic)
            marked[_top(scores, max(1, round(wanted)))] = True
        rows.extend((qid, doc, int(marked[i])) for i, doc in enumerate(topic.docs))
    frame = pl.DataFrame(
        [(q, "0", d, g) for q, d, g in rows], schema=QRELS_SCHEMA, orient="row"
    ).sort(["query_id", "doc_id"])
    return Qrels(frame=frame, name=f"pseudo-{method}")


@dataclass(frozen=True, eq=False)
class PseudoStudy:
    """The runs ranked under pseudo-qrels against their ranking under real qrels.

    ``tau`` and ``tau_ap``: ``{method: coefficient}``; ``means``: ``{method: {run: mean}}``
    with the real qrels' means under ``"qrels"``.
    """

    methods: tuple[str, ...]
    measure: str
    runs: tuple[str, ...]
    tau: dict[str, float]
    tau_ap: dict[str, float]
    means: dict[str, dict[str, float]]


def pseudo_study(
    runs: RunSet | Mapping[str, Any] | Sequence[Any],
    qrels: QrelsLike,
    methods: str | Iterable[str] = METHODS,
    *,
    measure: str = "AP",
    pool_depth: int | None = 100,
    relevant: float | None = None,
    spread: float | None = None,
    seed: int = 0,
) -> PseudoStudy:
    """τ and τ_AP of the runs' ``measure`` ranking under each pseudo-qrels against ``qrels``.

    ``relevant`` and ``spread`` default to the mean and standard deviation of the relevant
    documents per topic in ``qrels`` (what Soboroff et al. took from earlier TRECs).
    """
    from cranfield.evaluation.evaluator import Evaluator
    from cranfield.stats.rank_correlation import correlate_scores

    names: list[str] = check_choices("methods", methods, list(METHODS))
    run_set = RunSet.of(runs)
    loaded: dict[str, Run] = {n: run_set.load(i) for i, n in enumerate(run_set.names)}
    real = load_qrels(qrels)
    counts = np.array(
        [sum(1 for g in docs.values() if g > 0) for docs in real.to_dict().values()], dtype=float
    )
    mean = float(counts.mean()) if relevant is None else relevant
    sd = float(counts.std(ddof=1)) if spread is None and counts.size > 1 else (spread or 0.0)
    lists = run_lists(loaded, pool_depth=pool_depth)
    topics = [q for q in sorted(lists.topics) if q in set(real.topics)]

    def means(judgments: Qrels) -> NDArray[np.float64]:
        table = Evaluator(judgments, measure, missing="zero").many(dict(loaded))
        where = {q: i for i, q in enumerate(table.topics)}
        rows = [where[q] for q in topics if q in where]
        return np.asarray(table.matrix(measure)[rows].sum(axis=0) / max(len(topics), 1))

    reference = means(real)
    tau, tau_ap, all_means = (
        {},
        {},
        {"qrels": dict(zip(run_set.names, reference.tolist(), strict=True))},
    )
    for method in names:
        pseudo = pseudo_qrels(
            lists, method, relevant=mean, spread=sd if method == "soboroff" else 0.0, seed=seed
        )
        got = means(pseudo)
        r = correlate_scores(reference[None, :], got[None, :], systems=run_set.names, n_resamples=0)
        tau[method] = r.coefficients["kendall_tau_b"].value
        tau_ap[method] = r.coefficients["tau_ap"].value
        all_means[method] = dict(zip(run_set.names, got.tolist(), strict=True))
    return PseudoStudy(
        methods=tuple(names),
        measure=measure,
        runs=run_set.names,
        tau=tau,
        tau_ap=tau_ap,
        means=all_means,
    )
