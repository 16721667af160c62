"""trec_eval's preference measures (``-R prefs`` / ``-R qrels_prefs``, nickname ``all_prefs``).

A topic's judgments are preferences "document A is better than document B", grouped in
*judgment groups* (JG, e.g. one per user) and, inside a group, *sub-groups* (JSG): within
a sub-group every document with a higher ``rel_level`` is preferred to every document with
a lower one. A group with one sub-group expresses complete preferences between its levels;
a group with several sub-groups expresses a partial order, closed under transitivity
(A > B in one sub-group and B > C in another imply A > C). Groups may contradict each
other; one group may not contradict itself.

How trec_eval scores a ranking against them (``form_prefs_counts.c``):

1. The judged documents of the topic (those in any group) get a *docid rank*: the
   retrieved ones ``0 .. Nr-1`` in ranking order, the others ``Nr .. Nj-1`` in bytewise
   docno order. ``Nr`` is "num_judged_ret", ``Nj`` "num_judged".
2. Each preference A > B of a group is classified by the docid ranks a, b:

   * both retrieved (``_ret``): fulfilled iff a < b;
   * exactly one retrieved (``_imp``, "implied"): fulfilled iff A is the retrieved one;
   * neither retrieved ("not occurring"): possible, never fulfilled.

   Per group this gives ``ful_ret, poss_ret, ful_imp, poss_imp, notoccur`` (the ``poss``
   counts include the fulfilled ones), and the number of relevant (level > 0) and
   non-relevant documents, in total and retrieved.
3. A count matrix ``C[a, b]`` sums, over all groups, the preferences a > b.

The measures (``ful = ful_ret + ful_imp``, ``poss = poss_ret + poss_imp + notoccur``;
every ratio with a zero denominator is 0):

* ``prefs_num_prefs_poss`` = Σ_jg poss; ``prefs_num_prefs_ful`` = Σ_jg ful;
  ``prefs_num_prefs_ful_ret`` = Σ_jg ful_ret. Summed, not averaged, over topics.
* ``prefs_simp`` = Σ ful / Σ poss; ``prefs_simp_ret`` = Σ ful_ret / Σ poss_ret;
  ``prefs_simp_imp`` = Σ (ful_ret + ful_imp) / Σ (poss_ret + poss_imp).
* ``prefs_pair``: mean over document pairs {a < b} with ``C[a,b] + C[b,a] > 0`` of
  ``C[a,b] / (C[a,b] + C[b,a])``, where pairs of two unretrieved documents count with
  ratio 0; ``prefs_pair_ret`` only over pairs with both retrieved; ``prefs_pair_imp``
  over pairs with at least one retrieved.
* ``prefs_avgjg`` = (1/#jg) Σ_jg ful/poss, skipping groups with poss = 0 in the sum but
  not in #jg; ``_ret`` and ``_imp`` analogously with the ``_ret`` and ``_ret + _imp``
  counts.
* ``prefs_avgjg_Rnonrel``: like ``prefs_avgjg`` but each group is scored as if it had as
  many non-relevant documents N as relevant ones R. If R >= N, ``R - N`` perfectly placed
  non-relevant documents are added: ful += R_ret (R - N), poss += R (R - N). Otherwise
  the group is recounted with only the first R non-relevant documents (in docid-rank
  order). ``prefs_avgjg_Rnonrel_ret`` does the same with retrieved counts only.
  A group whose count is 0/0 (no preference left) makes the topic value 0 (see Notes).

Notes
-----
Reproduced trec_eval behaviour, including quirks:

* Only topics present in both the preferences and ``ranked`` are evaluated (see
  :func:`evaluate_prefs`).
* trec_eval's preference code ranks equal scores by docno **ascending**, the reverse of
  every other measure; ``out.test.qrels_prefs`` depends on it (topic 301).
* In a single-sub-group group every listed level is a class, negative levels included
  (``-R qrels_prefs`` turns qrels ``-1`` into level -1.0, below the non-relevant 0.0
  documents, and counts it as non-relevant). In a multi-sub-group group a document is
  relevant if its level is > 0, non-relevant if it is exactly 0, otherwise neither.
* The ``Rnonrel`` recount of a single-sub-group group takes the "first R non-relevant
  documents" from the *lowest* level class, and pairs that class with those R documents
  as well (itself included), so ``poss`` there is ``R (n_0 + ... + n_last)`` plus the
  pairs between the other classes. ``Rnonrel_ret`` chooses its cut-off index with R
  (all relevant), not R_ret, in multi-sub-group groups.
* A 0/0 group ratio in the ``Rnonrel`` measures is NaN in C and turns the topic value
  into 0 (the final ``sum > 0`` test fails on NaN), whatever the other groups score.
* One deviation: when that lowest class has fewer than R members, trec_eval reads past
  its end (undefined memory); here the class is simply used whole.

Citation: C. Buckley, trec_eval 9.0/10.0, files ``form_prefs_counts.c`` and
``m_prefs_*.c`` (usnistgov/trec_eval).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cranfield.errors import EvaluationError, InputError
from cranfield.kernels.prefs_names import PREFS_MEASURES, PREFS_SUMMARY

if TYPE_CHECKING:
    import polars as pl
    from numpy.typing import NDArray

__all__ = ["PREFS_MEASURES", "PREFS_SUMMARY", "evaluate_prefs"]

_PREFS_COLUMNS = ("query_id", "jg", "jsg", "doc_id", "rel_level")


def evaluate_prefs(
    prefs: pl.DataFrame, ranked: dict[str, list[str]]
) -> tuple[list[str], dict[str, NDArray[np.float64]]]:
    """Per-topic values of the 14 trec_eval preference measures.

    Parameters
    ----------
    prefs:
        Preference judgments with the columns ``query_id``, ``jg``, ``jsg``, ``doc_id``
        (strings) and ``rel_level`` (float), e.g. from :func:`cranfield.io.prefs.read_prefs`
        or :func:`cranfield.io.prefs.prefs_from_qrels`. Not modified.
    ranked:
        Query id -> retrieved doc ids, best first, already sorted and cut to the ``-M``
        depth. Note that trec_eval's preference code breaks score ties by doc id
        **ascending** (bytewise), unlike every other measure (descending). Documents that
        are not judged are ignored. A topic mapped to an empty list retrieved nothing.

    Returns
    -------
    topics : list of str
        The evaluated topics, bytewise order: every query id that is in ``prefs`` and is a
        key of ``ranked``.
    values : dict of str to numpy.ndarray
        For each name in :data:`PREFS_MEASURES` (in that order), a float64 array of
        per-topic values aligned to ``topics``. The ``prefs_num_*`` counts are integral.

    Raises
    ------
    InputError
        ``prefs`` lacks a column or holds nulls or NaN levels.
    EvaluationError
        A ranked list repeats a document; a document has two levels in one sub-group of a
        single-sub-group group; a multi-sub-group group gives a document level 0 in one
        sub-group and a positive level in another, or contradicts itself (A > B and B > A
        after transitive closure). trec_eval stops on all of these.

    Notes
    -----
    trec_eval v10 evaluates every topic of the preference file and stops when one is
    missing from the run, unless ``-c`` is given, in which case the missing topic gets a
    one-document placeholder ranking (equivalent to an empty list here); 9.x silently
    evaluated the intersection. Map missing topics to ``[]`` to reproduce ``-c``; leave
    them out to reproduce 9.x. Run topics without preferences are never evaluated.

    Examples
    --------
    >>> import polars as pl
    >>> prefs = pl.DataFrame({"query_id": ["1"] * 3, "jg": ["u"] * 3, "jsg": ["s"] * 3,
    ...                       "doc_id": ["a", "b", "c"], "rel_level": [2.0, 1.0, 0.0]})
    >>> topics, values = evaluate_prefs(prefs, {"1": ["b", "a", "x"]})
    >>> topics, values["prefs_num_prefs_poss"].tolist(), values["prefs_simp"].tolist()
    (['1'], [3.0], [0.6666666666666666])
    """
    _check_prefs(prefs)
    judged_topics = set(prefs.get_column("query_id").unique().to_list())
    topics = sorted(judged_topics.intersection(ranked))
    values = {name: np.zeros(len(topics), dtype=np.float64) for name in PREFS_MEASURES}
    if not topics:
        return topics, values
    by_topic = prefs.select(_PREFS_COLUMNS).partition_by("query_id", as_dict=True)
    for index, qid in enumerate(topics):
        rows = by_topic[(qid,)]
        topic = _Topic.build(qid, rows, ranked[qid])
        for name, value in topic.measures().items():
            values[name][index] = value
    return topics, values


def _check_prefs(prefs: pl.DataFrame) -> None:
    import polars as pl  # lazy: the names above are read without polars (trec_eval's table)

    label = "<prefs DataFrame>"
    missing = [c for c in _PREFS_COLUMNS if c not in prefs.columns]
    if missing:
        raise InputError(label, None, f"is missing the column(s) {', '.join(missing)}")
    for column in _PREFS_COLUMNS:
        if prefs.get_column(column).null_count():
            raise InputError(label, None, f"has null values in column {column!r}")
    if not prefs.schema["rel_level"].is_numeric():
        raise InputError(label, None, "column 'rel_level' must be numeric")
    if prefs.height and prefs.get_column("rel_level").cast(pl.Float64).is_nan().any():
        raise InputError(label, None, "column 'rel_level' contains NaN")


def _ratio(numerator: int, denominator: int) -> float:
    """``numerator / denominator`` with C double semantics for a zero denominator."""
    if denominator:
        return numerator / denominator
    return float("nan") if numerator == 0 else float("inf")


def _count_fulfilled(higher: NDArray[np.int64], lower: NDArray[np.int64], limit: int) -> int:
    """Pairs (h, l) of ``higher`` x ``lower`` (``lower`` sorted) with h < limit and h < l."""
    h = higher[higher < limit]
    return int(np.sum(lower.size - np.searchsorted(lower, h, side="right")))


@dataclass(eq=False)  # arrays: no field-wise equality
class _Group:
    """One judgment group of a topic, in docid ranks (see the module docstring)."""

    name: str
    higher: NDArray[np.int64]  # preferred document of each preference
    lower: NDArray[np.int64]  # the other document
    classes: list[NDArray[np.int64]] | None  # single sub-group: ranks per level, high first
    level_of_rank: NDArray[np.float64] | None  # several sub-groups: level per rank, -1 if absent
    num_rel: int
    num_rel_ret: int
    num_nonrel: int
    num_nonrel_ret: int
    ful_ret: int = 0
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    notoccur: int = 0

    def count(self, nr: int) -> None:
        """Classify every preference as fulfilled / possible, retrieved / implied."""
        h, lo = self.higher, self.lower
        forward = h < lo
        self.ful_ret = int(np.count_nonzero(forward & (lo < nr)))
        self.ful_imp = int(np.count_nonzero(forward & (lo >= nr) & (h < nr)))
        self.poss_ret = self.ful_ret + int(np.count_nonzero(~forward & (h < nr)))
        self.poss_imp = self.ful_imp + int(np.count_nonzero(~forward & (h >= nr) & (lo < nr)))
        self.notoccur = int(np.count_nonzero((h >= nr) & (lo >= nr)))

    @property
    def ful(self) -> int:
        return self.ful_ret + self.ful_imp

    @property
    def poss(self) -> int:
        return self.poss_ret + self.poss_imp + self.notoccur

    def rnonrel(self, nr: int, *, retrieved_only: bool) -> float:
        """This group's ratio for ``prefs_avgjg_Rnonrel`` (or ``_ret``); may be NaN."""
        if retrieved_only:
            r, n = self.num_rel_ret, self.num_nonrel_ret
            ful, poss = self.ful_ret, self.poss_ret
        else:
            r, n = self.num_rel, self.num_nonrel
            ful, poss = self.ful, self.poss
        if r >= n:
            return _ratio(ful + self.num_rel_ret * (r - n), poss + self.num_rel * (r - n))
        if self.classes is not None:
            return _ratio(*self._recount_classes(nr, r, retrieved_only=retrieved_only))
        return _ratio(*self._recount_array(nr, retrieved_only=retrieved_only))

    def _recount_classes(self, nr: int, r: int, *, retrieved_only: bool) -> tuple[int, int]:
        """Recount with the lowest class cut to its first ``r`` documents."""
        if self.classes is None:  # pragma: no cover - guarded by the caller
            raise TypeError("not a single sub-group judgment group")
        classes = self.classes
        if retrieved_only:  # ranks are ascending in a class: the retrieved come first
            classes = [c[c < nr] for c in classes]
        cut = classes[-1][:r]
        # Pairs between all classes but the lowest, then every class (the lowest one
        # included) against the cut. A preference is fulfilled iff the preferred document
        # is retrieved and ranked above the other (or the other is not retrieved).
        ful = pairs = 0
        for a in range(len(classes)):
            for b in range(a + 1, len(classes) - 1):
                ful += _count_fulfilled(classes[a], classes[b], nr)
                pairs += classes[a].size * classes[b].size
        for a in range(len(classes)):
            ful += _count_fulfilled(classes[a], cut, nr)
            pairs += classes[a].size * cut.size
        return ful, pairs

    def _recount_array(self, nr: int, *, retrieved_only: bool) -> tuple[int, int]:
        """Recount a transitive preference array without the surplus non-relevant docs."""
        if self.level_of_rank is None:  # pragma: no cover - guarded by the caller
            raise TypeError("not a multi sub-group judgment group")
        levels = self.level_of_rank
        scan = levels[:nr] if retrieved_only else levels
        zeros = np.flatnonzero(scan == 0.0)
        first_dropped = int(zeros[self.num_rel]) if zeros.size > self.num_rel else scan.size
        dropped = (np.arange(levels.size) >= first_dropped) & (levels == 0.0)
        h, lo = self.higher, self.lower
        keep = ~dropped[h] & ~dropped[lo]
        if retrieved_only:
            keep &= (h < nr) & (lo < nr)
        h, lo = h[keep], lo[keep]
        ful = int(np.count_nonzero((h < lo) & (h < nr)))
        return ful, int(h.size)


@dataclass(eq=False)  # arrays (in its groups): no field-wise equality
class _Topic:
    """All judgment groups of one topic against one ranking."""

    groups: list[_Group]
    num_judged: int
    num_judged_ret: int

    @classmethod
    def build(cls, qid: str, rows: pl.DataFrame, ranking: list[str]) -> _Topic:
        import polars as pl

        docs = rows.get_column("doc_id").to_list()
        judged = set(docs)
        if len(set(ranking)) != len(ranking):
            seen: set[str] = set()
            for d in ranking:
                if d in seen:
                    raise EvaluationError(f"query {qid!r}: document {d!r} is ranked twice.")
                seen.add(d)
        retrieved = [d for d in ranking if d in judged]
        rank_of = {d: i for i, d in enumerate(retrieved)}
        for d in sorted(judged.difference(rank_of)):  # str order == bytewise for UTF-8
            rank_of[d] = len(rank_of)
        nr, nj = len(retrieved), len(rank_of)
        entries = sorted(
            zip(
                rows.get_column("jg").to_list(),
                rows.get_column("jsg").to_list(),
                rows.get_column("rel_level").cast(pl.Float64).to_list(),
                (rank_of[d] for d in docs),
                strict=True,
            ),
            key=lambda e: (e[0], e[1], -e[2], e[3]),
        )
        doc_of = sorted(rank_of, key=rank_of.__getitem__)
        groups: list[_Group] = []
        start = 0
        while start < len(entries):
            stop = start
            while stop < len(entries) and entries[stop][0] == entries[start][0]:
                stop += 1
            block = entries[start:stop]
            if len({e[1] for e in block}) > 1:
                group = _array_group(qid, block, nj, nr, doc_of)
            else:
                group = _class_group(qid, block, nr, doc_of)
            group.count(nr)
            groups.append(group)
            start = stop
        return cls(groups, nj, nr)

    def measures(self) -> dict[str, float]:
        nr = self.num_judged_ret
        gs = self.groups
        ful_ret = sum(g.ful_ret for g in gs)
        ful_imp = sum(g.ful_imp for g in gs)
        poss_ret = sum(g.poss_ret for g in gs)
        poss_imp = sum(g.poss_imp for g in gs)
        notoccur = sum(g.notoccur for g in gs)
        poss = poss_ret + poss_imp + notoccur
        pair, pair_ret, pair_imp = self._pairs()
        return {
            "prefs_num_prefs_poss": float(poss),
            "prefs_num_prefs_ful": float(ful_ret + ful_imp),
            "prefs_num_prefs_ful_ret": float(ful_ret),
            "prefs_simp": (ful_ret + ful_imp) / poss if poss else 0.0,
            "prefs_pair": pair,
            "prefs_avgjg": self._average([(g.ful, g.poss) for g in gs]),
            "prefs_avgjg_Rnonrel": self._average_ratios(
                [g.rnonrel(nr, retrieved_only=False) for g in gs]
            ),
            "prefs_simp_ret": ful_ret / poss_ret if poss_ret else 0.0,
            "prefs_pair_ret": pair_ret,
            "prefs_avgjg_ret": self._average([(g.ful_ret, g.poss_ret) for g in gs]),
            "prefs_avgjg_Rnonrel_ret": self._average_ratios(
                [g.rnonrel(nr, retrieved_only=True) for g in gs]
            ),
            "prefs_simp_imp": (
                (ful_ret + ful_imp) / (poss_ret + poss_imp) if poss_ret + poss_imp else 0.0
            ),
            "prefs_pair_imp": pair_imp,
            "prefs_avgjg_imp": self._average([(g.ful, g.poss_ret + g.poss_imp) for g in gs]),
        }

    def _average(self, counts: list[tuple[int, int]]) -> float:
        """Mean over groups of ful/poss; groups without preferences add 0."""
        return self._average_ratios([f / p for f, p in counts if p])

    def _average_ratios(self, ratios: list[float]) -> float:
        total = 0.0
        for r in ratios:  # left to right, as C adds them
            total += r
        return total / len(self.groups) if total > 0.0 else 0.0  # NaN > 0 is False

    def _pairs(self) -> tuple[float, float, float]:
        """``prefs_pair``, ``prefs_pair_ret`` and ``prefs_pair_imp`` from the count matrix."""
        nj, nr = self.num_judged, self.num_judged_ret
        higher = np.concatenate([g.higher for g in self.groups])
        lower = np.concatenate([g.lower for g in self.groups])
        keys, counts = np.unique(higher * nj + lower, return_counts=True)
        if keys.size == 0:
            return 0.0, 0.0, 0.0
        first = np.minimum(keys // nj, keys % nj)
        second = np.maximum(keys // nj, keys % nj)
        pairs = np.unique(first * nj + second)  # row-major order, first < second
        a, b = pairs // nj, pairs % nj
        c_ab = _lookup(keys, counts, a * nj + b)
        c_ba = _lookup(keys, counts, b * nj + a)
        ratio = c_ab / (c_ab + c_ba)
        both = b < nr
        one = (a < nr) & ~both
        # C adds both-retrieved pairs first, then the one-retrieved pairs, row by row.
        ordered = np.concatenate([ratio[both], ratio[one]])
        running = np.cumsum(ordered)  # sequential, like the C loop
        n_both, n_one = int(both.sum()), int(one.sum())
        pair_ret = running[n_both - 1] / n_both if n_both else 0.0
        total = running[-1] if ordered.size else 0.0
        pair_imp = total / (n_both + n_one) if n_both + n_one else 0.0
        pair = total / pairs.size
        return float(pair), float(pair_ret), float(pair_imp)


def _lookup(
    keys: NDArray[np.int64], counts: NDArray[np.int64], wanted: NDArray[np.int64]
) -> NDArray[np.float64]:
    """``counts`` at ``wanted`` in the sorted ``keys``; 0 where absent."""
    at = np.searchsorted(keys, wanted)
    inside = at < keys.size
    found = np.zeros(wanted.size, dtype=bool)
    found[inside] = keys[at[inside]] == wanted[inside]
    out = np.zeros(wanted.size, dtype=np.float64)
    out[found] = counts[at[found]]
    return out


_Entry = tuple[str, str, float, int]


def _class_group(qid: str, block: list[_Entry], nr: int, doc_of: list[str]) -> _Group:
    """A group with one sub-group: levels form classes, each preferred to all lower ones."""
    members: list[list[int]] = []
    levels: list[float] = []
    for _, _, level, rank in block:  # sorted by level descending, then rank
        if not levels or level != levels[-1]:
            levels.append(level)
            members.append([])
        members[-1].append(rank)
    classes = [np.array(m, dtype=np.int64) for m in members]
    higher: list[NDArray[np.int64]] = []
    lower: list[NDArray[np.int64]] = []
    for a in range(len(classes)):
        for b in range(a + 1, len(classes)):
            common = np.intersect1d(classes[a], classes[b])
            if common.size:
                raise EvaluationError(
                    f"query {qid!r}: document {doc_of[int(common[0])]!r} has two different "
                    f"rel_levels in judgment group {block[0][0]!r}, sub-group {block[0][1]!r}."
                )
            higher.append(np.repeat(classes[a], classes[b].size))
            lower.append(np.tile(classes[b], classes[a].size))
    rel = [c for c, level in zip(classes, levels, strict=True) if level > 0.0]
    nonrel = [c for c, level in zip(classes, levels, strict=True) if not level > 0.0]
    return _Group(
        name=block[0][0],
        higher=np.concatenate(higher) if higher else np.empty(0, dtype=np.int64),
        lower=np.concatenate(lower) if lower else np.empty(0, dtype=np.int64),
        classes=classes,
        level_of_rank=None,
        num_rel=sum(c.size for c in rel),
        num_rel_ret=sum(int(np.count_nonzero(c < nr)) for c in rel),
        num_nonrel=sum(c.size for c in nonrel),
        num_nonrel_ret=sum(int(np.count_nonzero(c < nr)) for c in nonrel),
    )


def _array_group(qid: str, block: list[_Entry], nj: int, nr: int, doc_of: list[str]) -> _Group:
    """A group with several sub-groups: a partial order, closed under transitivity."""
    jg = block[0][0]
    level_of_rank = np.full(nj, -1.0)
    for _, _, level, rank in block:  # last assignment wins, as in trec_eval
        before = level_of_rank[rank]
        if (before > 0.0 and level == 0.0) or (before == 0.0 and level > 0.0):
            raise EvaluationError(
                f"query {qid!r}: document {doc_of[rank]!r} has both level 0 and a positive "
                f"level in judgment group {jg!r}."
            )
        level_of_rank[rank] = level
    members = np.unique(np.array([e[3] for e in block], dtype=np.int64))
    local = {int(r): i for i, r in enumerate(members)}
    prefers = np.zeros((members.size, members.size), dtype=bool)
    start = 0
    while start < len(block):
        stop = start
        while stop < len(block) and block[stop][1] == block[start][1]:
            stop += 1
        lv = np.array([e[2] for e in block[start:stop]])
        idx = np.array([local[e[3]] for e in block[start:stop]], dtype=np.int64)
        rows, cols = np.nonzero(lv[:, None] > lv[None, :])
        prefers[idx[rows], idx[cols]] = True
        start = stop
    for k in range(members.size):  # Warshall: transitive closure
        prefers |= np.outer(prefers[:, k], prefers[k, :])
    np.fill_diagonal(prefers, False)
    conflict = np.argwhere(prefers & prefers.T)
    if conflict.size:
        i, j = (int(members[x]) for x in conflict[0])
        raise EvaluationError(
            f"query {qid!r}: judgment group {jg!r} prefers {doc_of[i]!r} to {doc_of[j]!r} "
            "and the reverse (directly or by transitivity)."
        )
    rows, cols = np.nonzero(prefers)
    ranks = np.arange(nj)
    rel = level_of_rank > 0.0
    nonrel = level_of_rank == 0.0
    return _Group(
        name=jg,
        higher=members[rows],
        lower=members[cols],
        classes=None,
        level_of_rank=level_of_rank,
        num_rel=int(np.count_nonzero(rel)),
        num_rel_ret=int(np.count_nonzero(rel & (ranks < nr))),
        num_nonrel=int(np.count_nonzero(nonrel)),
        num_nonrel_ret=int(np.count_nonzero(nonrel & (ranks < nr))),
    )
