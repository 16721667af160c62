"""Sampling designs: which documents of a pool to judge so that the estimators can generalise.

:func:`stratified_sample` draws, per topic, a simple random sample of fixed size from each
stratum of the pool, strata cut by a document's best rank in any run (the design of
Yilmaz, Kanoulas & Aslam 2008 and of TREC's later tracks). Its :class:`Sample` writes the
design for judging as a stratified qrels file (``sample_eval.pl``'s format: ``-1`` for a
document of the population not sampled, ``-2`` for one to judge) and as prels (statAP's
format, each sampled document with its inclusion probability, the share of its stratum
sampled).
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cranfield._validate import check_float, check_int
from cranfield.errors import EvaluationError, OptionError
from cranfield.io.runset import RunSet
from cranfield.io.sampled_judgments import TO_JUDGE, write_prels, write_stratified
from cranfield.judging.pools import RunLists, run_lists

__all__ = ["PriorSample", "Sample", "Stratum", "parse_strata", "prior_sample", "stratified_sample"]


@dataclass(frozen=True)
class Stratum:
    """Documents whose best rank is in ``first..last`` (``last`` ``None``: no end), sampled
    at ``rate``."""

    first: int
    last: int | None
    rate: float

    @property
    def name(self) -> str:
        return f"{self.first}-{'' if self.last is None else self.last}"

    def holds(self, rank: int) -> bool:
        return rank >= self.first and (self.last is None or rank <= self.last)


def parse_strata(text: str) -> list[Stratum]:
    """Strata from ``FIRST-LAST:RATE,...`` (``1-10:1,11-100:0.2,101-:0.05``).

    >>> parse_strata("1-10:1,11-:0.25")
    [Stratum(first=1, last=10, rate=1.0), Stratum(first=11, last=None, rate=0.25)]
    """
    out = []
    for part in text.split(","):
        try:
            ranks, rate = part.split(":")
            first, last = ranks.split("-")
            stratum = Stratum(int(first), int(last) if last else None, float(rate))
        except ValueError:
            raise OptionError(
                "strata", "FIRST-LAST:RATE items separated by commas (1-10:1,11-:0.1)", part
            ) from None
        out.append(stratum)
    return out


@dataclass(frozen=True, eq=False)
class Sample:
    """A stratified sample of a pool.

    Attributes
    ----------
    strata:
        The strata, in order.
    rows:
        ``(topic, doc_id, stratum name, sampled)`` for every pooled document.
    probabilities:
        ``{(topic, stratum name): share sampled}``.
    """

    strata: tuple[Stratum, ...]
    rows: tuple[tuple[str, str, str, bool], ...]
    probabilities: dict[tuple[str, str], float]

    def sizes(self) -> dict[str, tuple[int, int]]:
        """``{stratum: (documents, sampled)}`` over every topic."""
        out = {s.name: [0, 0] for s in self.strata}
        for _, _, name, sampled in self.rows:
            out[name][0] += 1
            out[name][1] += int(sampled)
        return {k: (v[0], v[1]) for k, v in out.items()}

    def write_stratified(self, path: str | Path) -> None:
        """The design as ``sample_eval.pl`` qrels: ``-1`` not sampled, ``-2`` to judge."""
        write_stratified(
            path, [(t, d, s, TO_JUDGE if sampled else -1) for t, d, s, sampled in self.rows]
        )

    def write_prels(self, path: str | Path, *, relevance: int = TO_JUDGE) -> None:
        """The sampled documents as prels with their inclusion probability (method 1),
        relevance ``relevance`` (``-2``: to judge)."""
        write_prels(
            path,
            [
                (t, d, relevance, 1, self.probabilities[(t, s)])
                for t, d, s, sampled in self.rows
                if sampled
            ],
        )


def stratified_sample(
    runs: RunLists | RunSet | Mapping[str, Any] | Sequence[Any],
    strata: Sequence[Stratum] | str,
    *,
    pool_depth: int | None = 100,
    seed: int = 0,
) -> Sample:
    """Draw a stratified sample of ``runs``' pools.

    Parameters
    ----------
    runs:
        The runs (or a :class:`~cranfield.judging.pools.RunLists`).
    strata:
        The strata by best rank with their sampling rates, in (0, 1] (or their text,
        :func:`parse_strata`). A pooled document outside every stratum is not in the
        population; strata that overlap are refused (a document would be in two).
    pool_depth:
        Documents taken from each run per topic.
    seed:
        The seed of the draws (each topic its own stream).

    Notes
    -----
    In each topic and stratum of N documents, ``max(1, round(rate × N))`` (half to even) are
    drawn without
    replacement, so that each is sampled with probability n/N (the probability written in
    the prels). A stratum that holds no document in any topic is an error: its rate samples
    nothing (:class:`~cranfield.errors.EvaluationError`).

    Examples
    --------
    >>> s = stratified_sample({"a": {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}}, "1-1:1,2-:0.5")
    >>> s.sizes()
    {'1-1': (1, 1), '2-': (2, 1)}
    """
    layers = parse_strata(strata) if isinstance(strata, str) else list(strata)
    if not layers:
        raise OptionError("strata", "at least one stratum", strata)
    for s in layers:
        check_int("strata", s.first, minimum=1)
        check_float("strata", s.rate, minimum=0.0, maximum=1.0, above=True)
        if s.last is not None and s.last < s.first:
            raise OptionError("strata", "ranges FIRST-LAST with FIRST <= LAST", s.name)
    ordered = sorted(layers, key=lambda s: s.first)
    for a, b in itertools.pairwise(ordered):
        if a.last is None or a.last >= b.first:  # a document of both would be listed twice
            raise OptionError("strata", "ranges that do not overlap", f"{a.name} and {b.name}")
    seed = check_int("seed", seed, minimum=0)
    lists = runs if isinstance(runs, RunLists) else run_lists(runs, pool_depth=pool_depth)
    rows: list[tuple[str, str, str, bool]] = []
    probabilities: dict[tuple[str, str], float] = {}
    for qid in sorted(lists.topics):
        topic = lists.topics[qid]
        best = np.full(len(topic), np.iinfo(np.int64).max, dtype=np.int64)
        for docs in topic.lists:
            np.minimum.at(best, docs, np.arange(1, docs.size + 1))
        rng = np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(qid.encode())]))
        for s in layers:
            members = [i for i in range(len(topic)) if s.holds(int(best[i]))]
            if not members:
                continue
            n = max(1, round(s.rate * len(members)))
            chosen = set(rng.choice(len(members), size=n, replace=False).tolist())
            probabilities[(qid, s.name)] = n / len(members)
            rows.extend((qid, topic.docs[i], s.name, k in chosen) for k, i in enumerate(members))
    sample = Sample(strata=tuple(layers), rows=tuple(rows), probabilities=probabilities)
    empty = [name for name, (n, _) in sample.sizes().items() if n == 0]
    if empty:
        raise EvaluationError(
            f"stratum {empty[0]} holds no pooled document in any topic: its rate samples "
            "nothing; change the strata or the pool depth."
        )
    return sample


@dataclass(frozen=True, eq=False)
class PriorSample:
    """A sample drawn with statAP's AP prior (:func:`prior_sample`).

    ``rows``: ``(topic, doc_id, inclusion probability, sampled)`` for every pooled document.
    """

    size: int
    rows: tuple[tuple[str, str, float, bool], ...]

    def sampled(self) -> int:
        """Documents sampled over every topic."""
        return sum(1 for row in self.rows if row[3])

    def write_prels(self, path: str | Path, *, relevance: int = TO_JUDGE) -> None:
        """The sampled documents as prels with their inclusion probability (method 1),
        relevance ``relevance`` (``-2``: to judge)."""
        write_prels(path, [(t, d, relevance, 1, p) for t, d, p, s in self.rows if s])


def prior_sample(
    runs: RunLists | RunSet | Mapping[str, Any] | Sequence[Any],
    size: int,
    *,
    pool_depth: int | None = 100,
    seed: int = 0,
) -> PriorSample:
    """statAP's sample: ``size`` draws per topic, with replacement, from the AP prior.

    Each run gives the document at rank r of its Z the weight ``(1 + H_Z - H_r) / (2Z)``
    (the AP prior of Aslam, Pavlu & Yilmaz 2006, H the harmonic numbers); a document's
    probability per draw, p, is its weights summed over the runs and normalised over the
    topic's pool; its inclusion probability after ``size`` draws is ``1 - (1 - p)^size``,
    the probability the prels carry.

    Examples
    --------
    >>> s = prior_sample({"a": {"q": {"d1": 2.0, "d2": 1.0}}}, 50)
    >>> [(d, round(p, 6), sampled) for _, d, p, sampled in s.rows]
    [('d1', 1.0, True), ('d2', 1.0, True)]
    """
    size = check_int("size", size, minimum=1)
    seed = check_int("seed", seed, minimum=0)
    lists = runs if isinstance(runs, RunLists) else run_lists(runs, pool_depth=pool_depth)
    rows: list[tuple[str, str, float, bool]] = []
    for qid in sorted(lists.topics):
        topic = lists.topics[qid]
        weight = np.zeros(len(topic))
        for docs in topic.lists:
            z = docs.size
            if z:
                harmonic = np.cumsum(1.0 / np.arange(1, z + 1))
                weight[docs] += (1.0 + harmonic[-1] - harmonic) / (2.0 * z)
        p = weight / weight.sum()
        rng = np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(qid.encode())]))
        drawn = set(rng.choice(len(topic), size=size, replace=True, p=p).tolist())
        inclusion = -np.expm1(size * np.log1p(-np.minimum(p, 1.0 - 1e-16)))
        inclusion[p >= 1.0] = 1.0
        rows.extend((qid, doc, float(inclusion[i]), i in drawn) for i, doc in enumerate(topic.docs))
    return PriorSample(size=size, rows=tuple(rows))
