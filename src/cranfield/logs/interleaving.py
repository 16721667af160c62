"""Interleaving and multileaving: two (or more) rankings merged into one shown list, and the
clicks on it turned into a preference.

Four methods, each vectorised over many impressions of one query (one numpy step per rank of
the shown list, never a Python loop over impressions):

=====================  ==================================================================
:func:`team_draft`     team-draft interleaving (Radlinski, Kurup & Joachims 2008)
:func:`multileave`     team-draft multileaving of several rankings (Schuth et al. 2014)
:func:`balanced`       balanced interleaving (Joachims 2002, 2003)
:func:`probabilistic`  probabilistic interleaving (Hofmann, Whiteson & de Rijke 2011),
                       softmax over ranks with ``tau = 3``, credit marginalised over
                       the assignments (or the sampled assignment alone)
=====================  ==================================================================

Each returns the shown lists (``shown``: ``(impressions, depth)`` codes into ``doc_ids``,
``-1`` past the end) and what the method remembers to assign credit. Clicks are a boolean
matrix of the same shape (:func:`click_matrix` builds it from 1-based click ranks), and
``outcomes(clicked)`` gives one number per impression in ``[-1, 1]``: ``1`` the first ranking
(A) wins, ``-1`` the second (B) wins, ``0`` a tie, and with probabilistic interleaving's
marginalised credit the expected outcome ``P(A wins) - P(B wins)`` over the assignments that
could have produced the list. :func:`cranfield.logs.preference.preference` turns outcomes
into the preference Δ_AB, a sign test and a bootstrap interval; :func:`simulate` runs
impressions of two runs under a click function (a click model) and does both.

The methods
-----------
*Team draft.* In each round the rankings pick in a random order (a coin for two); each adds
its highest-ranked document not yet shown and records it in its team. A click credits the
team of the clicked document; the ranking with more credited clicks wins the impression.
With two rankings this is Radlinski et al.'s rule (the team with fewer picks goes next, a coin
on equal picks): both rules pick one document per ranking per round. Multileaving is the same
with ``m`` rankings and a random permutation per round; its credit is a click count per ranking.
When a ranking has no document left, the others go on filling the list (Radlinski et al. stop
the list there); the documents it then lacks are never credited to it.

*Balanced.* One coin decides which ranking leads. Pointers ``k_a, k_b`` walk down both
rankings; the ranking with the smaller pointer (the leader on equal pointers) offers its next
document, which is shown unless already shown (after the shorter ranking ends, the longer
one goes on; Joachims stops there). Credit: let ``d`` be the lowest clicked
document and ``k = min(rank_A(d), rank_B(d))``; ``h_A`` (``h_B``) counts the clicked documents
in A's (B's) top ``k``; A wins if ``h_A > h_B``. Only two lists are possible, one per coin.

*Probabilistic.* Each ranking is a distribution over its documents,
``P(d) ∝ 1 / rank(d)^tau``, renormalised over the documents not yet shown. At each rank a
coin chooses a ranking and a document is drawn from it. Because every earlier document is
removed from both distributions whichever ranking drew it, the assignments of the ranks are
independent given the list: rank ``r`` came from A with probability
``q_r = p_A(d_r) / (p_A(d_r) + p_B(d_r))``. The marginalised outcome is
``E[sign(c_A - c_B)]`` over those assignments, ``c_A`` counting the clicks assigned to A, with
the count's distribution built one clicked rank at a time (Hofmann et al. 2011, §4).
``marginalise=False`` uses the assignment that was drawn, like team draft.

Known exceptions (the fidelity conditions of Hofmann et al. 2011; tested in
``tests/unit/logs/test_interleaving.py``): balanced interleaving prefers B over A under clicks
that ignore relevance when B is A shifted by one rank (A = a b c d, B = b c d a; a user who
clicks one rank uniformly at random makes B win 6 of the 8 equally likely (coin, rank) cases
and A 2, Δ_AB = -1/4, though the clicks say nothing about either ranking); team draft
makes a Pareto-dominating ranking lose single impressions (A = b c a, B = a b c, only ``c``
relevant: A wins half and loses half), so it is fair only in expectation and there it cannot
tell the two apart. Probabilistic interleaving's marginalised outcome can be negative for a
single impression of a dominating ranking too; its expectation is not (Hofmann et al. 2011).
Balanced interleaving never makes a Pareto-dominating ranking lose an impression to a user
who clicks relevant documents only.

References
----------
T. Joachims, "Optimizing search engines using clickthrough data", KDD 2002; "Evaluating
retrieval performance using clickthrough data", 2003.
F. Radlinski, M. Kurup and T. Joachims, "How does clickthrough data reflect retrieval
quality?", CIKM 2008.
K. Hofmann, S. Whiteson and M. de Rijke, "A probabilistic method for inferring preferences
from clicks", CIKM 2011.
A. Schuth, F. Sietsma, S. Whiteson, D. Lefortier and M. de Rijke, "Multileaved comparisons
for fast online evaluation", CIKM 2014.
O. Chapelle, T. Joachims, F. Radlinski and Y. Yue, "Large-scale validation and analysis of
interleaved search evaluation", ACM TOIS 30(1), 2012.
K. Hofmann, L. Li and F. Radlinski, "Online evaluation for information retrieval",
Foundations and Trends in IR 10(1), 2016.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np

from cranfield._validate import check_float, check_int
from cranfield.errors import OptionError
from cranfield.stats.resampling import RngLike, resolve_seed

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "Balanced",
    "Probabilistic",
    "TeamDraft",
    "balanced",
    "click_matrix",
    "generator",
    "multileave",
    "probabilistic",
    "team_draft",
]

TAU: Final = 3.0
"""Probabilistic interleaving's default softmax exponent (Hofmann et al. 2011)."""

_STREAM: Final = 20
"""The spawn key of the interleaving stream: ``PCG64(SeedSequence(seed, spawn_key=(20,)))``."""


def generator(seed: RngLike) -> tuple[np.random.Generator, int]:
    """The generator of an interleaving and the integer seed that reproduces it.

    ``seed`` is an integer, a :class:`numpy.random.Generator` (one seed is drawn from it) or
    ``None`` (a fresh seed), as everywhere in :mod:`cranfield.stats`.
    """
    used = resolve_seed(seed)
    seq = np.random.SeedSequence(used, spawn_key=(_STREAM,))
    return np.random.Generator(np.random.PCG64(seq)), used


def click_matrix(click_ranks: Sequence[Sequence[int]], depth: int) -> NDArray[np.bool_]:
    """The ``(impressions, depth)`` click matrix of 1-based click ranks per impression.

    Examples
    --------
    >>> click_matrix([[1, 3], []], 3).astype(int).tolist()
    [[1, 0, 1], [0, 0, 0]]
    """
    size = check_int("depth", depth, minimum=1)
    out = np.zeros((len(click_ranks), size), dtype=bool)
    for i, ranks in enumerate(click_ranks):
        for rank in ranks:
            check_int("click_ranks", rank, minimum=1, maximum=size)
            out[i, rank - 1] = True
    return out


# --------------------------------------------------------------------------- the shown lists


@dataclass(frozen=True)
class _Interleaved:
    """What every method shows: the rankings, their documents and the shown lists."""

    rankings: tuple[tuple[str, ...], ...]
    """The rankings interleaved, as given (A first)."""
    doc_ids: tuple[str, ...]
    """The documents of all rankings, in order of first appearance; ``shown`` indexes them."""
    shown: NDArray[np.int64]
    """``(impressions, depth)`` document codes shown at each rank; ``-1`` past the end."""
    seed: int
    """The integer seed that reproduces the shown lists."""

    @property
    def impressions(self) -> int:
        """The number of impressions."""
        return int(self.shown.shape[0])

    @property
    def depth(self) -> int:
        """The length of the shown lists (the columns of ``shown`` and of the clicks)."""
        return int(self.shown.shape[1])

    def shown_ids(self, impression: int) -> tuple[str, ...]:
        """The document ids shown to one impression, top first."""
        return tuple(self.doc_ids[c] for c in self.shown[impression] if c >= 0)

    def check_clicks(self, clicked: ArrayLike) -> NDArray[np.bool_]:
        """``clicked`` as a boolean ``(impressions, depth)`` matrix with no click past the end."""
        out = np.asarray(clicked)
        if out.shape != self.shown.shape or out.dtype != np.bool_:
            raise OptionError(
                "clicked",
                f"a boolean array of shape {self.shown.shape} (impressions, depth)",
                f"an array of {out.dtype} and shape {out.shape}",
            )
        if (out & (self.shown < 0)).any():
            i, r = np.argwhere(out & (self.shown < 0))[0]
            raise OptionError(
                "clicked",
                "clicks on shown results only",
                f"a click at rank {r + 1} of impression {i}",
            )
        return out


def _codes(
    rankings: Sequence[Sequence[str]], minimum: int
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...], NDArray[np.int64]]:
    """The rankings as tuples, their documents, and ``(m, longest)`` codes padded with ``-1``."""
    if isinstance(rankings, str) or len(rankings) < minimum:
        raise OptionError("rankings", f"a sequence of at least {minimum} rankings", rankings)
    kept: list[tuple[str, ...]] = []
    vocabulary: dict[str, int] = {}
    for ranking in rankings:
        docs = (ranking,) if isinstance(ranking, str) else tuple(ranking)
        if not all(isinstance(d, str) for d in docs) or len(set(docs)) != len(docs):
            raise OptionError("rankings", "sequences of distinct document ids (str)", ranking)
        kept.append(docs)
        for d in docs:
            vocabulary.setdefault(d, len(vocabulary))
    if not vocabulary:
        raise OptionError("rankings", "rankings with at least one document", rankings)
    codes = np.full((len(kept), max(len(r) for r in kept)), -1, dtype=np.int64)
    for j, docs in enumerate(kept):
        codes[j, : len(docs)] = [vocabulary[d] for d in docs]
    return tuple(kept), tuple(vocabulary), codes


def _shape(impressions: int, depth: int | None, documents: int) -> tuple[int, int]:
    n = check_int("impressions", impressions, minimum=1)
    if depth is None:
        return n, documents
    return n, min(check_int("depth", depth, minimum=1), documents)


# --------------------------------------------------------------------------- team draft


@dataclass(frozen=True)
class TeamDraft(_Interleaved):
    """Team-draft interleaved or multileaved lists (:func:`team_draft`, :func:`multileave`)."""

    team: NDArray[np.int64]
    """``(impressions, depth)`` index of the ranking that contributed each shown document."""

    def credit(self, clicked: ArrayLike) -> NDArray[np.int64]:
        """``(impressions, rankings)`` clicks credited to each ranking's team."""
        c = self.check_clicks(clicked)
        m = len(self.rankings)
        return np.stack([(c & (self.team == j)).sum(axis=1) for j in range(m)], axis=1)

    def outcomes(self, clicked: ArrayLike) -> NDArray[np.float64]:
        """Per impression: ``1`` A's team has more clicks, ``-1`` B's, ``0`` a tie (two
        rankings; :meth:`credit` for more)."""
        if len(self.rankings) != 2:
            raise OptionError("rankings", "two rankings for outcomes (use credit)", self.rankings)
        c = self.credit(clicked)
        out: NDArray[np.float64] = np.sign(c[:, 0] - c[:, 1]).astype(np.float64)
        return out


def _team_draft(
    codes: NDArray[np.int64], documents: int, n: int, depth: int, gen: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Shown codes and teams of ``n`` team-draft impressions: rounds in a random order of the
    rankings, each adding its best document not yet shown."""
    m = codes.shape[0]
    padded = np.where(codes < 0, documents, codes)  # the padding column is always "used"
    used = np.zeros((n, documents + 1), dtype=bool)
    used[:, documents] = True
    shown = np.full((n, depth), -1, dtype=np.int64)
    team = np.full((n, depth), -1, dtype=np.int64)
    filled = np.zeros(n, dtype=np.int64)
    rows = np.arange(n)
    while (filled < depth).any():
        order = np.argsort(gen.random((n, m)), axis=1)
        moved = False
        for step in range(m):
            ranker = order[:, step]
            candidates = padded[ranker]
            free = ~used[rows[:, None], candidates]
            picks = free.any(axis=1) & (filled < depth)
            if not picks.any():
                continue
            moved = True
            r = rows[picks]
            doc = candidates[r, free[r].argmax(axis=1)]
            shown[r, filled[r]] = doc
            team[r, filled[r]] = ranker[r]
            used[r, doc] = True
            filled[r] += 1
        if not moved:
            break
    return shown, team


def team_draft(
    a: Sequence[str],
    b: Sequence[str],
    *,
    impressions: int = 1,
    depth: int | None = None,
    seed: RngLike = None,
) -> TeamDraft:
    """Team-draft interleaving of rankings ``a`` and ``b`` (Radlinski et al. 2008).

    Parameters
    ----------
    a, b:
        Document ids, best first.
    impressions:
        Independent interleavings to draw.
    depth:
        Length of the shown lists (default: every document of ``a`` and ``b``).
    seed:
        An integer, a :class:`numpy.random.Generator` or ``None`` (see :func:`generator`).

    Examples
    --------
    >>> t = team_draft(["d1", "d2", "d3"], ["d2", "d4", "d1"], impressions=2, seed=1)
    >>> t.shown_ids(0), t.team[0].tolist()   # B then A, then A then B
    (('d2', 'd1', 'd3', 'd4'), [1, 0, 0, 1])
    >>> t.outcomes(click_matrix([[1, 3], [4]], 4)).tolist()   # clicks on d2, d3; on d3
    [0.0, 1.0]
    """
    return multileave([a, b], impressions=impressions, depth=depth, seed=seed)


def multileave(
    rankings: Sequence[Sequence[str]],
    *,
    impressions: int = 1,
    depth: int | None = None,
    seed: RngLike = None,
) -> TeamDraft:
    """Team-draft multileaving of several rankings (Schuth et al. 2014).

    Each round takes the rankings in a fresh random order; each adds its highest-ranked
    document not yet shown (a ranking with none left sits out) until ``depth`` documents are
    shown. :meth:`TeamDraft.credit` counts each ranking's clicked documents;
    :func:`cranfield.logs.preference.pairwise_preferences` compares every pair.

    Examples
    --------
    >>> t = multileave([["a", "b"], ["b", "c"], ["c", "a"]], impressions=1, seed=1)
    >>> t.shown_ids(0), t.team[0].tolist()
    (('b', 'a', 'c'), [1, 0, 2])
    >>> t.credit(click_matrix([[2, 3]], 3)).tolist()
    [[1, 0, 1]]
    """
    kept, doc_ids, codes = _codes(rankings, 2)
    n, size = _shape(impressions, depth, len(doc_ids))
    gen, used = generator(seed)
    shown, team = _team_draft(codes, len(doc_ids), n, size, gen)
    return TeamDraft(kept, doc_ids, shown, used, team)


# --------------------------------------------------------------------------- balanced


@dataclass(frozen=True)
class Balanced(_Interleaved):
    """Balanced interleaved lists (:func:`balanced`)."""

    a_first: NDArray[np.bool_]
    """``(impressions,)`` whether A led (the coin of each impression)."""

    def outcomes(self, clicked: ArrayLike) -> NDArray[np.float64]:
        """Per impression ``sign(h_A - h_B)`` (Joachims 2003; see the module notes)."""
        c = self.check_clicks(clicked)
        ranks = _ranks(self.rankings, self.doc_ids)  # (2, documents + 1), padding: never
        codes = np.where(self.shown < 0, len(self.doc_ids), self.shown)
        ra, rb = ranks[0][codes], ranks[1][codes]
        any_click = c.any(axis=1)
        last = self.depth - 1 - c[:, ::-1].argmax(axis=1)
        rows = np.arange(self.impressions)
        k = np.minimum(ra[rows, last], rb[rows, last])
        h_a = (c & (ra <= k[:, None])).sum(axis=1)
        h_b = (c & (rb <= k[:, None])).sum(axis=1)
        return np.where(any_click, np.sign(h_a - h_b), 0).astype(np.float64)


def _ranks(rankings: tuple[tuple[str, ...], ...], doc_ids: tuple[str, ...]) -> NDArray[np.int64]:
    """``(m, documents + 1)`` 1-based rank of each document in each ranking; absent: a rank
    beyond every ranking (so never within a top ``k``)."""
    big = len(doc_ids) + 1
    out = np.full((len(rankings), len(doc_ids) + 1), big + 1, dtype=np.int64)
    index = {d: i for i, d in enumerate(doc_ids)}
    for j, ranking in enumerate(rankings):
        for rank, d in enumerate(ranking, start=1):
            out[j, index[d]] = rank
    return out


def _balanced_list(a: list[int], b: list[int], a_first: bool, depth: int) -> list[int]:
    """Joachims' balanced merge of two code lists; the rest of the longer one after the
    shorter ends."""
    shown: list[int] = []
    seen: set[int] = set()
    ka = kb = 0
    while len(shown) < depth and (ka < len(a) or kb < len(b)):
        take_a = kb >= len(b) or (ka < len(a) and (ka < kb or (ka == kb and a_first)))
        doc = a[ka] if take_a else b[kb]
        if take_a:
            ka += 1
        else:
            kb += 1
        if doc not in seen:
            seen.add(doc)
            shown.append(doc)
    return shown


def balanced(
    a: Sequence[str],
    b: Sequence[str],
    *,
    impressions: int = 1,
    depth: int | None = None,
    seed: RngLike = None,
) -> Balanced:
    """Balanced interleaving of rankings ``a`` and ``b`` (Joachims 2002, 2003).

    Parameters are those of :func:`team_draft`. One coin per impression decides which
    ranking leads, so at most two lists are ever shown.

    Examples
    --------
    >>> t = balanced(["a", "b", "c"], ["b", "c", "a"], impressions=2, seed=2)
    >>> t.a_first.tolist(), t.shown_ids(0), t.shown_ids(1)
    ([True, False], ('a', 'b', 'c'), ('b', 'a', 'c'))
    >>> t.outcomes(click_matrix([[3], [3]], 3)).tolist()   # c: rank 3 in A, 2 in B
    [-1.0, -1.0]
    """
    kept, doc_ids, codes = _codes([a, b], 2)
    n, size = _shape(impressions, depth, len(doc_ids))
    gen, used = generator(seed)
    a_first = gen.random(n) < 0.5
    lists = np.full((2, size), -1, dtype=np.int64)
    ca, cb = ([int(c) for c in row if c >= 0] for row in codes)
    for j, lead in enumerate((True, False)):
        merged = _balanced_list(ca, cb, lead, size)
        lists[j, : len(merged)] = merged
    shown = lists[np.where(a_first, 0, 1)]
    return Balanced(kept, doc_ids, shown, used, a_first)


# --------------------------------------------------------------------------- probabilistic


@dataclass(frozen=True)
class Probabilistic(_Interleaved):
    """Probabilistic interleaved lists (:func:`probabilistic`)."""

    team: NDArray[np.int64]
    """``(impressions, depth)`` the ranking drawn at each rank (0 = A, 1 = B; -1 past the end)."""
    p_a: NDArray[np.float64]
    """``(impressions, depth)`` probability that A's distribution draws the shown document
    there, given the documents above it (0 past the end)."""
    p_b: NDArray[np.float64]
    """The same for B."""
    tau: float
    """The softmax exponent."""

    def assignment_probability(self) -> NDArray[np.float64]:
        """``(impressions, depth)`` probability ``q_r`` that rank ``r`` came from A given the
        list (the ranks' assignments are independent given it; 0 past the end)."""
        total = self.p_a + self.p_b
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, self.p_a / total, 0.0)

    def outcomes(self, clicked: ArrayLike, *, marginalise: bool = True) -> NDArray[np.float64]:
        """Per impression ``E[sign(c_A - c_B)]`` over the assignments given the list
        (``marginalise=True``), or the sign under the assignment drawn."""
        c = self.check_clicks(clicked)
        if not marginalise:
            wins = (c & (self.team == 0)).sum(axis=1) - (c & (self.team == 1)).sum(axis=1)
            drawn: NDArray[np.float64] = np.sign(wins).astype(np.float64)
            return drawn
        q = self.assignment_probability()
        n, depth = c.shape
        dist = np.zeros((n, depth + 1))  # distribution of the clicks assigned to A
        dist[:, 0] = 1.0
        for r in range(depth):
            hit = c[:, r]
            if not hit.any():
                continue
            qr = q[hit, r][:, None]
            old = dist[hit]
            new = old * (1.0 - qr)
            new[:, 1:] += old[:, :-1] * qr
            dist[hit] = new
        clicks = c.sum(axis=1)
        count = np.arange(depth + 1)
        a_more = 2 * count[None, :] > clicks[:, None]
        b_more = 2 * count[None, :] < clicks[:, None]
        out: NDArray[np.float64] = (dist * a_more).sum(axis=1) - (dist * b_more).sum(axis=1)
        return np.clip(out, -1.0, 1.0, out=out)  # the distribution's sum may round past 1


def probabilistic(
    a: Sequence[str],
    b: Sequence[str],
    *,
    impressions: int = 1,
    depth: int | None = None,
    tau: float = TAU,
    seed: RngLike = None,
) -> Probabilistic:
    """Probabilistic interleaving of rankings ``a`` and ``b`` (Hofmann et al. 2011).

    Parameters are those of :func:`team_draft`, and ``tau``, the softmax exponent:
    ``P(d) ∝ rank(d)^-tau`` over the documents of one ranking not yet shown.

    Examples
    --------
    >>> t = probabilistic(["a", "b"], ["b", "a"], impressions=1, seed=0)
    >>> t.shown_ids(0)
    ('a', 'b')
    >>> q = t.assignment_probability()[0]   # a: 8/9 from A against 1/9 from B; b: 1 and 1
    >>> [round(float(x), 4) for x in q]
    [0.8889, 0.5]
    >>> round(float(t.outcomes(click_matrix([[1]], 2))[0]), 4)   # a click on a: 8/9 - 1/9
    0.7778
    """
    kept, doc_ids, codes = _codes([a, b], 2)
    n, size = _shape(impressions, depth, len(doc_ids))
    t = check_float("tau", tau, minimum=0.0)
    gen, used_seed = generator(seed)
    u = len(doc_ids)
    weights = np.zeros((2, u))
    for j in range(2):
        docs = codes[j][codes[j] >= 0]
        weights[j, docs] = np.arange(1, docs.size + 1, dtype=np.float64) ** -t
    free = np.ones((n, u))
    shown = np.full((n, size), -1, dtype=np.int64)
    team = np.full((n, size), -1, dtype=np.int64)
    p_a = np.zeros((n, size))
    p_b = np.zeros((n, size))
    rows = np.arange(n)
    for r in range(size):
        wa, wb = weights[0] * free, weights[1] * free
        sa, sb = wa.sum(axis=1), wb.sum(axis=1)
        pick_a = ((gen.random(n) < 0.5) & (sa > 0)) | (sb <= 0)
        w = np.where(pick_a[:, None], wa, wb)
        cumulative = np.cumsum(w, axis=1)
        doc = (cumulative > gen.random(n)[:, None] * cumulative[:, -1:]).argmax(axis=1)
        shown[:, r] = doc
        team[:, r] = np.where(pick_a, 0, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            p_a[:, r] = np.where(sa > 0, weights[0, doc] / sa, 0.0)
            p_b[:, r] = np.where(sb > 0, weights[1, doc] / sb, 0.0)
        free[rows, doc] = 0.0
    return Probabilistic(kept, doc_ids, shown, used_seed, team, p_a, p_b, t)
