"""Slow, obvious, per-topic oracles for every measure (tests only): the one reference.

Two parts. The native measures (trec_eval's, below) work on judgment codes and follow
trec_eval 10 to the bit; the measures beyond trec_eval (set, user-oriented, diversity, DCG
variants, at the end: :func:`prepare_extended`, :func:`extended_value`) work on document ids
with the extra inputs ``known`` and ``intents``.

Native measures.

Written from the measure definitions and trec_eval 10's semantics as recorded in
``shared/research/trec_eval.md`` §3 and §6 (and trec_eval's C sources where the notes
describe a loop), never from cranfield's numpy kernels: one plain Python function per
measure, one topic at a time, IEEE arithmetic (``x/0`` gives ``inf``/``nan``, never an
exception) so odd corners compare like for like.

Pipeline (:func:`prepare`):

1. Topics evaluated: every qrels topic with at least one entry under ``missing="zero"``
   (a topic absent from the run gets trec_eval ``-c``'s one-document placeholder ranking),
   only qrels topics that also have run lines under ``missing="skip"``. Run topics without
   qrels are ignored. Topics are ordered bytewise (Python's ``str`` order is code-point
   order, which is UTF-8 byte order).
2. Per topic: sort by ``(-score, docno)`` with the docno **descending** bytewise, optionally
   after rounding scores to float32; keep the first ``depth``; look each document up
   (judged level ``>= 0``, ``-1`` not in the qrels, ``-2`` negative qrels value); with
   ``judged_only`` drop both unjudged kinds.
3. Measures forced to 0 on a missing topic (trec_eval ``-c``): NumRet, Unjudged, RBPResid,
   Utility.

Limitation (documented on purpose): the gain-table measures (nDCG/DCG/IDCG with ``gains``,
nDCG_rel, RnDCG, G, RBP) sort the gain table with an exact stable sort. trec_eval's
comparator truncates gain differences to integers, which only changes the order when two
gains differ by less than 1 without being equal; the oracle is therefore only valid for
default gains and **integer-valued** custom gains. :func:`value` refuses other gains.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

NOT_IN_POOL = -1
UNJUDGED = -2
PLACEHOLDER_DOC = "ceci_nest_pas_un_docno"
INFAP_EPSILON = 0.00001

#: measures trec_eval -c forces to 0 for a judged topic absent from the run
ZERO_WHEN_MISSING = frozenset({"NumRet", "Unjudged", "RBPResid", "Utility"})


# --------------------------------------------------------------------------- arithmetic


def div(a: float, b: float) -> float:
    """IEEE division: ``a / b`` with ``x/0 = ±inf`` and ``0/0 = nan`` (as C doubles)."""
    if b != 0:
        return a / b
    if a == 0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def log2(x: float) -> float:
    """IEEE log2: ``-inf`` at 0, ``nan`` below."""
    if math.isnan(x) or x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    return math.log2(x)


def lround(x: float) -> int:
    """C ``lround``: round half away from zero (``2.5 -> 3``; Python's ``round`` gives 2)."""
    whole = math.trunc(x)
    frac = abs(x - whole)  # exact for doubles
    return whole + (int(math.copysign(1, x)) if frac >= 0.5 else 0)


# --------------------------------------------------------------------------- ranking


@dataclass(frozen=True)
class Topic:
    """One evaluated topic: its ranked judgment codes and its qrels levels."""

    qid: str
    codes: tuple[int, ...]  # best first; level >= 0, NOT_IN_POOL or UNJUDGED
    judged: tuple[int, ...]  # every qrels level >= 0 of the topic (retrieved or not)
    missing: bool  # absent from the run (placeholder ranking)

    @property
    def n(self) -> int:
        return len(self.codes)

    def num_rel(self, rel: int) -> int:
        return sum(1 for lv in self.judged if lv >= rel)

    def num_nonrel(self, rel: int) -> int:
        return sum(1 for lv in self.judged if lv < rel)

    def is_rel(self, rel: int) -> list[bool]:
        return [c >= 0 and c >= rel for c in self.codes]

    def rel_within(self, rel: int, k: int) -> int:
        """rr(k): relevant documents among the first k (a short list is padded)."""
        return sum(1 for c in self.codes[:k] if c >= 0 and c >= rel)

    def level_counts(self) -> list[int]:
        """trec_eval ``rel_levels``: documents per level 0..max (empty if nothing judged)."""
        if not self.judged:
            return []
        counts = [0] * (max(self.judged) + 1)
        for lv in self.judged:
            counts[lv] += 1
        return counts


def rank_topic(
    qrels_topic: Mapping[str, int],
    run_topic: Mapping[str, float],
    *,
    depth: int | None,
    judged_only: bool,
    float32: bool,
) -> tuple[int, ...]:
    """Judgment codes of one topic's run lines, best first (trec_eval ``form_res_rels``)."""
    with np.errstate(over="ignore"):  # float32 rounding of huge scores gives +-inf
        lines = [
            (doc, float(np.float32(s)) if float32 else float(s)) for doc, s in run_topic.items()
        ]
    # Score descending, then docno descending: two stable sorts, the secondary key first.
    lines.sort(key=lambda line: line[0], reverse=True)
    lines.sort(key=lambda line: line[1], reverse=True)
    if depth is not None:
        lines = lines[:depth]
    codes = []
    for doc, _ in lines:
        if doc not in qrels_topic:
            codes.append(NOT_IN_POOL)
        elif qrels_topic[doc] < 0:
            codes.append(UNJUDGED)
        else:
            codes.append(qrels_topic[doc])
    if judged_only:
        codes = [c for c in codes if c >= 0]
    return tuple(codes)


def prepare(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Mapping[str, float]],
    *,
    missing: str = "zero",
    depth: int | None = None,
    judged_only: bool = False,
    float32: bool = False,
) -> list[Topic]:
    """Every evaluated topic, in bytewise order."""
    topics = []
    for qid in sorted(q for q, docs in qrels.items() if docs):
        run_topic = run.get(qid) or {}
        absent = not run_topic
        if absent:
            if missing == "skip":
                continue
            if missing != "zero":
                raise ValueError(f"the reference has no {missing!r} policy")
            run_topic = {PLACEHOLDER_DOC: 1.0}
        codes = rank_topic(
            qrels[qid], run_topic, depth=depth, judged_only=judged_only, float32=float32
        )
        judged = tuple(sorted((lv for lv in qrels[qid].values() if lv >= 0), reverse=True))
        topics.append(Topic(qid, codes, judged, absent))
    return topics


# --------------------------------------------------------------------------- counts


def num_q(t: Topic) -> float:
    return 1.0


def num_ret(t: Topic) -> float:
    return float(t.n)


def num_rel(t: Topic, *, rel: int) -> float:
    return float(t.num_rel(rel))


def num_rel_ret(t: Topic, *, rel: int) -> float:
    return float(t.rel_within(rel, t.n))


def num_nonrel_judged_ret(t: Topic, *, rel: int) -> float:
    return float(sum(1 for c in t.codes if 0 <= c < rel))


# --------------------------------------------------------------------------- ranked binary


def average_precision(t: Topic, *, rel: int, cutoff: int | None = None) -> float:
    big_r = t.num_rel(rel)
    if big_r == 0:
        return 0.0
    total = 0.0
    found = 0
    for i, c in enumerate(t.codes, start=1):
        if cutoff is not None and i > cutoff:
            break
        if c >= 0 and c >= rel:
            found += 1
            total += found / i
    return total / big_r


def reciprocal_rank(t: Topic, *, rel: int, cutoff: int | None = None) -> float:
    for i, c in enumerate(t.codes, start=1):
        if cutoff is not None and i > cutoff:
            break
        if c >= 0 and c >= rel:
            return 1.0 / i
    return 0.0


def binary_g(t: Topic, *, rel: int) -> float:
    total = 0.0
    nonrel_above = 0
    found = 0
    for c in t.codes:
        if c >= 0 and c >= rel:
            found += 1
            total += 1.0 / log2(2 + nonrel_above)
        else:
            nonrel_above += 1  # unjudged count as non-relevant here
    return total / t.num_rel(rel) if found else 0.0


def yaap(t: Topic, *, rel: int) -> float:
    s = 0.0
    found = 0
    for i, c in enumerate(t.codes, start=1):
        if c >= 0 and c >= rel:
            found += 1
            s += found / i
    big_r = t.num_rel(rel)
    return math.log((1.0 + s) / (1.0 + big_r - s))


def precision(t: Topic, *, rel: int, cutoff: int) -> float:
    return t.rel_within(rel, cutoff) / cutoff


def recall(t: Topic, *, rel: int, cutoff: int | None = None) -> float:
    big_r = t.num_rel(rel)
    if big_r == 0:
        return 0.0
    return t.rel_within(rel, t.n if cutoff is None else cutoff) / big_r


def relative_precision(t: Topic, *, rel: int, cutoff: int) -> float:
    big_r = t.num_rel(rel)
    if big_r == 0:
        return 0.0
    return t.rel_within(rel, cutoff) / min(cutoff, big_r)


def hits(t: Topic, *, rel: int, cutoff: int | None = None) -> float:
    return float(t.rel_within(rel, t.n if cutoff is None else cutoff))


def success(t: Topic, *, rel: int, cutoff: int) -> float:
    return 1.0 if t.rel_within(rel, cutoff) > 0 else 0.0


def r_precision(t: Topic, *, rel: int, mult: float = 1.0) -> float:
    big_r = t.num_rel(rel)
    if mult == 1.0:
        return t.rel_within(rel, min(t.n, big_r)) / big_r if big_r else 0.0
    c = math.trunc(mult * big_r + 0.9)  # Rprec_mult: "add 0.9, truncate" in every version
    if c == 0:
        return 0.0
    return t.rel_within(rel, min(c, t.n)) / c


def recall_cut(p: float, big_r: int, compat: int) -> int:
    """Number of relevant documents behind recall level p (v10 lround, v9 trunc(+0.9))."""
    if compat == 9:
        return math.trunc(p * big_r + 0.9)
    return lround(p * big_r)


def interpolated_precision(t: Topic, *, rel: int, level: float, compat: int = 10) -> float:
    """Max precision at or after the c-th relevant document; c = 0: anywhere; n = 0: NaN."""
    c = recall_cut(level, t.num_rel(rel), compat)
    flags = t.is_rel(rel)
    rel_ranks = [i for i, f in enumerate(flags, start=1) if f]
    if c > len(rel_ranks):
        return 0.0
    if t.n == 0:
        return math.nan  # 0/0 in trec_eval
    start = rel_ranks[c - 1] if c >= 1 else 1
    best = 0.0
    found = 0
    for i, f in enumerate(flags, start=1):
        found += f
        if i >= start:
            best = max(best, found / i)
    return best


ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def interpolated_precision_avg(
    t: Topic, *, rel: int, levels: tuple[float, ...] = ELEVEN_POINTS, compat: int = 10
) -> float:
    total = 0.0
    for p in levels:
        total += interpolated_precision(t, rel=rel, level=p, compat=compat)
    return total / len(levels)


# --------------------------------------------------------------------------- sets


def _retrieved_set(t: Topic, cutoff: int | None) -> tuple[int, ...]:
    """The set a set measure sees: the whole list, or its first k documents (no padding)."""
    return t.codes if cutoff is None else t.codes[:cutoff]


def set_precision(
    t: Topic, *, rel: int, relative: bool = False, cutoff: int | None = None
) -> float:
    docs = _retrieved_set(t, cutoff)
    hits = sum(1 for c in docs if c >= 0 and c >= rel)
    den = min(len(docs), t.num_rel(rel)) if relative else len(docs)
    return hits / den if den else 0.0


def set_recall(t: Topic, *, rel: int, cutoff: int | None = None) -> float:
    big_r = t.num_rel(rel)
    hits = sum(1 for c in _retrieved_set(t, cutoff) if c >= 0 and c >= rel)
    return hits / big_r if big_r else 0.0


def set_average_precision(t: Topic, *, rel: int, cutoff: int | None = None) -> float:
    docs = _retrieved_set(t, cutoff)
    hits = sum(1 for c in docs if c >= 0 and c >= rel)
    den = len(docs) * t.num_rel(rel)
    return hits * hits / den if den else 0.0


def set_f(
    t: Topic, *, rel: int, beta: float = 1.0, alpha: float | None = None, cutoff: int | None = None
) -> float:
    """F_beta = (1 + b²)PR / (b²P + R); ``alpha`` gives b² = (1 - alpha) / alpha."""
    docs = _retrieved_set(t, cutoff)
    hits = sum(1 for c in docs if c >= 0 and c >= rel)
    if hits == 0:
        return 0.0
    p = hits / len(docs)
    r = hits / t.num_rel(rel)
    b2 = beta * beta if alpha is None else (1.0 - alpha) / alpha
    return (b2 + 1.0) * p * r / (b2 * p + r)


def utility(
    t: Topic,
    *,
    rel: int,
    a: float = 1.0,
    b: float = -1.0,
    c: float = 0.0,
    d: float = 0.0,
    num_docs: int = 0,
) -> float:
    tp = t.rel_within(rel, t.n)
    big_r = t.num_rel(rel)
    fp = t.n - tp
    fn = big_r - tp
    tn = num_docs + tp - t.n - big_r
    return a * tp + b * fp + c * fn + d * tn


# --------------------------------------------------------------------------- incomplete


def bpref(t: Topic, *, rel: int) -> float:
    big_r = t.num_rel(rel)
    n0 = t.num_nonrel(rel)
    total = 0.0
    nonrel_seen = 0
    for c in t.codes:
        if c < 0:
            continue  # unjudged documents are skipped
        if c < rel:
            nonrel_seen += 1
        elif nonrel_seen:
            total += 1.0 - min(nonrel_seen, big_r) / min(n0, big_r)
        else:
            total += 1.0
    return total / big_r if big_r else total


def inferred_ap(t: Topic, *, rel: int) -> float:
    total = 0.0
    rel_seen = nonrel_seen = pooled_unjudged_seen = 0
    for j, c in enumerate(t.codes):  # j is 0-based
        if c == NOT_IN_POOL:
            continue
        if c == UNJUDGED:
            pooled_unjudged_seen += 1
            continue
        if c < rel:
            nonrel_seen += 1
            continue
        rel_seen += 1
        if j == 0:
            total += 1.0
        else:
            r1 = rel_seen - 1
            total += 1.0 / (j + 1.0) + (j / (j + 1.0)) * (
                (r1 + nonrel_seen + pooled_unjudged_seen) / j
            ) * ((r1 + INFAP_EPSILON) / (r1 + nonrel_seen + 2 * INFAP_EPSILON))
    big_r = t.num_rel(rel)
    return total / big_r if big_r else total


def judged_at(t: Topic, *, cutoff: int | None = None) -> float:
    top = t.codes if cutoff is None else t.codes[:cutoff]
    if not top:
        return 0.0
    return sum(1 for c in top if c >= 0) / len(top)


def unjudged_at(t: Topic, *, cutoff: int) -> float:
    return sum(1 for c in t.codes[:cutoff] if c < 0) / cutoff


def rbp_residual(t: Topic, *, p: float = 0.9, tail: bool = False) -> float:
    """trec_eval 10: 0 when every retrieved document is judged; ``tail=True`` always adds p^n."""
    weight = 1.0
    total = 0.0
    any_unjudged = False
    for c in t.codes:
        if c < 0:
            any_unjudged = True
            total += weight
        weight *= p
    return weight + (1 - p) * total if any_unjudged or tail else 0.0


# --------------------------------------------------------------------------- gain table

GainPairs = tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class GainEntry:
    level: int
    gain: float
    count: int  # judged documents of the topic at this level owned by the entry


def gain_table(t: Topic, gains: GainPairs | None) -> list[GainEntry]:
    """trec_eval ``setup_gains``: parameter entries first, then unnamed levels 0..max.

    Sorted ascending by gain with a *stable exact* sort: equals trec_eval's truncating
    comparator only for integer gains (see the module notes).
    """
    counts = t.level_counts()
    entries: list[GainEntry] = []
    for level, gain in gains or ():
        owner = all(e.level != level for e in entries)
        n = counts[level] if owner and 0 <= level < len(counts) else 0
        entries.append(GainEntry(level, float(gain), n))
    named = {e.level for e in entries}
    entries += [
        GainEntry(lv, float(lv), counts[lv]) for lv in range(len(counts)) if lv not in named
    ]
    return sorted(entries, key=lambda e: e.gain)


def gain_of(code: int, table: list[GainEntry]) -> float:
    """Gain of a ranked document: first entry with its level, else 0."""
    for e in table:
        if e.level == code:
            return e.gain
    return 0.0


def ideal_gains(table: list[GainEntry]) -> list[float]:
    """Ideal ranking: from the highest gain down, each entry's documents, until a gain <= 0."""
    out: list[float] = []
    for e in reversed(table):
        if e.count == 0:
            continue
        if e.gain <= 0:
            break
        out += [e.gain] * e.count
    return out


def _dcg_of(values: list[float], k: int | None = None) -> float:
    total = 0.0
    for i, g in enumerate(values[:k] if k is not None else values):
        if g != 0:
            total += g / log2(i + 2.0)
    return total


def _check_gains(gains: GainPairs | None) -> None:
    for _, g in gains or ():
        if not float(g).is_integer():
            raise ValueError("the reference gain table is exact only for integer gains")


def dcg(t: Topic, *, gains: GainPairs | None = None, cutoff: int | None = None) -> float:
    _check_gains(gains)
    table = gain_table(t, gains)
    return _dcg_of([gain_of(c, table) for c in t.codes], cutoff)


def ideal_dcg(t: Topic, *, gains: GainPairs | None = None, cutoff: int | None = None) -> float:
    _check_gains(gains)
    return _dcg_of(ideal_gains(gain_table(t, gains)), cutoff)


def ndcg(t: Topic, *, gains: GainPairs | None = None, cutoff: int | None = None) -> float:
    """DCG / IDCG over the whole list (trec_eval ndcg) or both cut at k (ndcg_cut.k)."""
    ideal = ideal_dcg(t, gains=gains, cutoff=cutoff)
    return dcg(t, gains=gains, cutoff=cutoff) / ideal if ideal > 0 else 0.0


def ndcg_rel(t: Topic, *, gains: GainPairs | None = None) -> float:
    _check_gains(gains)
    table = gain_table(t, gains)
    run_gains = [gain_of(c, table) for c in t.codes]
    ideal = ideal_gains(table)
    big_p = len(ideal)
    total = 0.0
    count = 0
    for i, g in enumerate(run_gains, start=1):
        if g > 0:
            total += div(_dcg_of(run_gains, i), _dcg_of(ideal, min(i, big_p)))
            count += 1
    total += div((big_p - count) * _dcg_of(run_gains), _dcg_of(ideal))
    return div(total, big_p) if total > 0 else 0.0


def rndcg(t: Topic, *, gains: GainPairs | None = None, rel: int = 1) -> float:
    _check_gains(gains)
    if t.num_rel(rel) == 0:
        return 0.0
    table = gain_table(t, gains)
    run_gains = [gain_of(c, table) for c in t.codes]
    ideal = ideal_gains(table)
    big_p = len(ideal)
    points = []
    for i in range(1, big_p + 1):  # prefix length i; the next ideal gain changes (or ends)
        if i == big_p or ideal[i] != ideal[i - 1]:
            points.append(_dcg_of(run_gains, min(i, t.n)) / _dcg_of(ideal, i))
    if big_p >= 1 and t.n > big_p + 1:
        points.append(_dcg_of(run_gains) / _dcg_of(ideal))
    total = 0.0
    for v in points:
        total += v
    return div(total, len(points))


def g_measure(t: Topic, *, gains: GainPairs | None = None) -> float:
    _check_gains(gains)
    table = gain_table(t, gains)
    ideal = ideal_gains(table)
    total = 0.0
    got = 0.0
    cost = 0.0
    for i, c in enumerate(t.codes):
        g = gain_of(c, table)
        got += g
        cost += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
        if g != 0:
            total += div(g, log2(2 + cost - got))
    ideal_total = sum(ideal)
    return total / ideal_total if ideal_total > 0 else 0.0


def rbp(t: Topic, *, p: float = 0.9, gains: GainPairs | None = None) -> float:
    """Gains rescaled by (g - min)/(max - min) over the topic's table if any is outside [0, 1]."""
    _check_gains(gains)
    table = gain_table(t, gains)
    if table:
        lo = min(e.gain for e in table)
        hi = max(e.gain for e in table)
        if lo < 0 or hi > 1:
            table = [GainEntry(e.level, div(e.gain - lo, hi - lo), e.count) for e in table]
    total = 0.0
    weight = 1.0
    for c in t.codes:
        g = gain_of(c, table)
        if g != 0:
            total += g * weight
        weight *= p
    return (1.0 - p) * total


# --------------------------------------------------------------------------- dispatch

_FUNCTIONS: dict[str, Callable[..., float]] = {
    "NumQ": num_q,
    "NumRet": num_ret,
    "NumRel": num_rel,
    "NumRelRet": num_rel_ret,
    "NumNonRelJudgedRet": num_nonrel_judged_ret,
    "AP": average_precision,
    "GMAP": average_precision,  # per topic the stored value is AP
    "RR": reciprocal_rank,
    "binG": binary_g,
    "YAAP": yaap,
    "P": precision,
    "R": recall,
    "RelP": relative_precision,
    "Success": success,
    "Hits": hits,
    "Rprec": r_precision,
    "IPrec": interpolated_precision,
    "IPrecAvg": interpolated_precision_avg,
    "nDCG": ndcg,
    "DCG": dcg,
    "IDCG": ideal_dcg,
    "nDCG_rel": ndcg_rel,
    "RnDCG": rndcg,
    "G": g_measure,
    "RBP": rbp,
    "Bpref": bpref,
    "GMBpref": bpref,  # per topic the stored value is bpref
    "infAP": inferred_ap,
    "Judged": judged_at,
    "Unjudged": unjudged_at,
    "RBPResid": rbp_residual,
    "SetP": set_precision,
    "SetR": set_recall,
    "SetAP": set_average_precision,
    "SetF": set_f,
    "Utility": utility,
}

#: measure names the oracle covers
NAMES = frozenset(_FUNCTIONS)

_CUTOFF = frozenset(
    {
        "AP",
        "RR",
        "P",
        "R",
        "RelP",
        "Success",
        "Hits",
        "nDCG",
        "DCG",
        "IDCG",
        "Judged",
        "Unjudged",
        "SetP",
        "SetR",
        "SetAP",
        "SetF",
    }
)
_USES_REL = frozenset(
    {
        "NumRel",
        "NumRelRet",
        "NumNonRelJudgedRet",
        "AP",
        "GMAP",
        "RR",
        "binG",
        "YAAP",
        "P",
        "R",
        "RelP",
        "Success",
        "Hits",
        "Rprec",
        "IPrec",
        "IPrecAvg",
        "RnDCG",
        "Bpref",
        "GMBpref",
        "infAP",
        "SetP",
        "SetR",
        "SetAP",
        "SetF",
        "Utility",
    }
)


def value(
    t: Topic,
    name: str,
    params: Mapping[str, Any],
    at: float | None,
    *,
    relevance_level: int = 1,
    compat: int = 10,
    num_docs: int = 0,
) -> float:
    """Value of measure ``name(**params)@at`` on one topic.

    ``params`` holds only explicitly given parameters; ``rel`` defaults to
    ``relevance_level``. ``gains`` may be a mapping or ``(level, gain)`` pairs.
    """
    if name in ZERO_WHEN_MISSING and t.missing:
        return 0.0
    fn = _FUNCTIONS[name]
    kwargs = dict(params)
    if name in _USES_REL:
        kwargs.setdefault("rel", relevance_level)
    if "gains" in kwargs:
        g = kwargs["gains"]
        kwargs["gains"] = tuple(g.items()) if isinstance(g, Mapping) else tuple(g)
    if name in _CUTOFF and at is not None:
        kwargs["cutoff"] = int(at)
    if name == "IPrec":
        kwargs["level"] = at
    if name in ("IPrec", "IPrecAvg"):
        kwargs["compat"] = compat
    if name == "Utility":
        kwargs["num_docs"] = num_docs
    return float(fn(t, **kwargs))


def values(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Mapping[str, float]],
    name: str,
    params: Mapping[str, Any] | None = None,
    at: float | None = None,
    *,
    missing: str = "zero",
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    float32: bool = False,
    compat: int = 10,
    num_docs: int = 0,
) -> dict[str, float]:
    """``{qid: value}`` for every evaluated topic, like ``evaluate(...).per_topic``."""
    topics = prepare(
        qrels, run, missing=missing, depth=depth, judged_only=judged_only, float32=float32
    )
    return {
        t.qid: value(
            t,
            name,
            params or {},
            at,
            relevance_level=relevance_level,
            compat=compat,
            num_docs=num_docs,
        )
        for t in topics
    }


# =========================================================================== beyond trec_eval
#
# Slow, obvious, one-topic-at-a-time oracles for the measures beyond trec_eval.
# Written from the definitions (the seed texts, the papers
# cited in each spec), never from the numpy kernels. A topic is a list of document ids with
# the user's known documents and the subtopic judgments. A topic absent from the run is an
# empty list here; cranfield ranks it as a one-document placeholder not in the pool, which
# every measure below treats as nothing retrieved (RBPResid is forced to 0 there, as
# trec_eval -c does). Division is :func:`div_or_zero` (0 when the denominator is not
# positive), not the IEEE :func:`div` of the native oracles.

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Mapping[str, float]]
Intents = Mapping[str, Mapping[str, Mapping[str, int]]]  # qid -> subtopic -> doc -> rel


@dataclass
class ExtendedTopic:
    """One evaluated topic: its ranked documents and its judgments."""

    qid: str
    docs: list[str]
    judged: dict[str, int]
    missing: bool
    known: dict[str, int] = field(default_factory=dict)
    intents: dict[str, dict[str, int]] = field(default_factory=dict)

    def level(self, doc: str) -> int | None:
        """Judged level (>= 0), or None for a document without a judgment."""
        v = self.judged.get(doc)
        return v if v is not None and v >= 0 else None


def rank(scores: Mapping[str, float]) -> list[str]:
    """Score descending, ties by docno descending (bytewise)."""
    by_doc = sorted(scores, reverse=True)
    return sorted(by_doc, key=lambda d: -scores[d])


def prepare_extended(
    qrels: Qrels,
    run: Run,
    *,
    missing: str = "zero",
    depth: int | None = None,
    judged_only: bool = False,
    known: Qrels | None = None,
    intents: Intents | None = None,
) -> list[ExtendedTopic]:
    topics = []
    for qid in sorted(qrels):
        if qid not in run and missing == "skip":
            continue
        docs = rank(run.get(qid, {}))
        if depth is not None:
            docs = docs[:depth]
        judged = dict(qrels[qid])
        if judged_only:
            docs = [d for d in docs if judged.get(d, -1) >= 0]
        topics.append(
            ExtendedTopic(
                qid,
                docs,
                judged,
                qid not in run,
                dict((known or {}).get(qid, {})),
                {s: dict(v) for s, v in (intents or {}).get(qid, {}).items()},
            )
        )
    return topics


def div_or_zero(a: float, b: float) -> float:
    return a / b if b > 0 else 0.0


# --------------------------------------------------------------------------- extended set measures


def table(
    t: ExtendedTopic, rel: int, cutoff: int | None, num_docs: int
) -> tuple[int, int, int, int]:
    shown = t.docs if cutoff is None else t.docs[:cutoff]
    a = sum(1 for d in shown if (t.level(d) or 0) >= rel and t.level(d) is not None)
    b = len(shown) - a
    big_r = sum(1 for v in t.judged.values() if v >= rel)
    c = big_r - a
    if num_docs > 0:
        n = num_docs
    else:
        n = sum(1 for v in t.judged.values() if v >= 0) + sum(
            1 for d in shown if t.level(d) is None
        )
    return a, b, c, n - a - b - c


def f_beta(a: int, b: int, c: int, beta: float) -> float:
    if a == 0:
        return 0.0
    p, r = a / (a + b), a / (a + c)
    return (1 + beta * beta) * p * r / (beta * beta * p + r)


SET_FORMULAS: dict[str, Callable[..., float]] = {
    "SetP": lambda a, b, c, d, relative=False: div_or_zero(
        a, min(a + b, a + c) if relative else a + b
    ),
    "SetR": lambda a, b, c, d: div_or_zero(a, a + c),
    "SetAP": lambda a, b, c, d: div_or_zero(a * a, (a + b) * (a + c)),
    "SetF": lambda a, b, c, d, beta=1.0, alpha=None: f_beta(
        a, b, c, beta if alpha is None else math.sqrt((1 - alpha) / alpha)
    ),
    "SetFallout": lambda a, b, c, d: div_or_zero(b, b + d),
    "SetE": lambda a, b, c, d, b_=1.0: 1 - f_beta(a, b, c, b_),
    "SetAccuracy": lambda a, b, c, d: div_or_zero(a + d, a + b + c + d),
    "T11U": lambda a, b, c, d: 2.0 * a - b,
    "T11SU": lambda a, b, c, d: (
        (max((2 * a - b) / (2 * (a + c)), -0.5) + 0.5) / 1.5 if a + c > 0 else 0.0
    ),
    "T11F": lambda a, b, c, d: f_beta(a, b, c, 0.5),
}


# --------------------------------------------------------------------------- extended ranked measures


def _is_rel(t: ExtendedTopic, d: str, rel: int) -> bool:
    lv = t.level(d)
    return lv is not None and lv >= rel


def _num_rel(t: ExtendedTopic, rel: int) -> int:
    return sum(1 for v in t.judged.values() if v >= rel)


def ap_sum(t: ExtendedTopic, rel: int, cutoff: int | None) -> tuple[float, int]:
    total, found = 0.0, 0
    for i, d in enumerate(t.docs[: cutoff if cutoff is not None else len(t.docs)], start=1):
        if _is_rel(t, d, rel):
            found += 1
            total += found / i
    return total, found


def ap_min(t: ExtendedTopic, rel: int, cutoff: int | None = None) -> float:
    s, _ = ap_sum(t, rel, cutoff)
    big_r = _num_rel(t, rel)
    return div_or_zero(s, big_r if cutoff is None else min(cutoff, big_r))


def ap_ret(t: ExtendedTopic, rel: int, cutoff: int | None = None) -> float:
    s, found = ap_sum(t, rel, cutoff)
    return div_or_zero(s, found)


def int_prec(t: ExtendedTopic, rel: int, level: float) -> float:
    big_r = _num_rel(t, rel)
    if big_r == 0:
        return 0.0
    best, found = 0.0, 0
    for i, d in enumerate(t.docs, start=1):
        if _is_rel(t, d, rel):
            found += 1
            if found / big_r >= level:
                best = max(best, found / i)
    return best


def ap11(
    t: ExtendedTopic, rel: int, levels: tuple[float, ...] = tuple(i / 10 for i in range(11))
) -> float:
    return sum(int_prec(t, rel, p) for p in levels) / len(levels)


def err(t: ExtendedTopic, max_level: int = 4, cutoff: int | None = None) -> float:
    total, going_on = 0.0, 1.0
    for i, d in enumerate(t.docs[: cutoff if cutoff is not None else len(t.docs)], start=1):
        g = min(max(t.level(d) or 0, 0), max_level)
        stop = (2.0**g - 1) / 2.0**max_level
        total += going_on * stop / i
        going_on *= 1 - stop
    return total


def _bpref(t: ExtendedTopic, rel: int, denominator: Callable[[int], int]) -> float:
    big_r = _num_rel(t, rel)
    if big_r == 0:
        return 0.0
    cap = denominator(big_r)
    total, nonrel = 0.0, 0
    for d in t.docs:
        lv = t.level(d)
        if lv is None:
            continue
        if lv >= rel:
            total += 1 - min(nonrel, cap) / cap
        else:
            nonrel += 1
    return total / big_r


def bpref_r(t: ExtendedTopic, rel: int) -> float:
    return _bpref(t, rel, lambda r: r)


def bpref_10(t: ExtendedTopic, rel: int) -> float:
    return _bpref(t, rel, lambda r: 10 + r)


def rbp_resid_tail(t: ExtendedTopic, p: float = 0.9) -> float:
    if t.missing:
        return 0.0
    unj = sum(p ** (i - 1) for i, d in enumerate(t.docs, start=1) if t.level(d) is None)
    return p ** len(t.docs) + (1 - p) * unj


def _gain(level: int | None, exp: bool) -> float:
    g = float(max(level or 0, 0))
    return 2.0**g - 1 if exp else g


def _disc(i: int, base: float, jk: bool) -> float:
    if jk:
        return 1.0 if i < base else math.log(i) / math.log(base)
    return math.log(i + 1) / math.log(base)


def dcg_pair(
    t: ExtendedTopic,
    *,
    exp: bool,
    base: float,
    jk: bool,
    retrieved_ideal: bool,
    cutoff: int | None,
    cg: bool,
) -> tuple[float, float]:
    k = cutoff if cutoff is not None else 10**9
    gains = [_gain(t.level(d), exp) for d in t.docs]
    pool = gains if retrieved_ideal else [_gain(v, exp) for v in t.judged.values() if v >= 0]
    ideal = sorted((g for g in pool if g > 0), reverse=True)

    def total(values: list[float]) -> float:
        return sum(g if cg else g / _disc(i, base, jk) for i, g in enumerate(values[:k], start=1))

    return total(gains), total(ideal)


def ndcgx(
    t: ExtendedTopic,
    *,
    exp: bool = False,
    base: float = 2.0,
    jk: bool = False,
    retrieved_ideal: bool = False,
    cutoff: int | None = None,
) -> float:
    num, den = dcg_pair(
        t, exp=exp, base=base, jk=jk, retrieved_ideal=retrieved_ideal, cutoff=cutoff, cg=False
    )
    return div_or_zero(num, den)


def ncg(
    t: ExtendedTopic, *, exp: bool = False, retrieved_ideal: bool = False, cutoff: int | None = None
) -> float:
    num, den = dcg_pair(
        t, exp=exp, base=2.0, jk=False, retrieved_ideal=retrieved_ideal, cutoff=cutoff, cg=True
    )
    return div_or_zero(num, den)


# --------------------------------------------------------------------------- user-oriented


def user(t: ExtendedTopic, rel: int, cutoff: int | None) -> tuple[int, int, int, int]:
    """(|U|, |Rk|, |Ru|, |A|)."""
    shown = [] if t.missing else (t.docs if cutoff is None else t.docs[:cutoff])
    known = {d for d, v in t.known.items() if v >= rel}
    rk = sum(1 for d in shown if d in known)
    ru = sum(1 for d in shown if d not in known and _is_rel(t, d, rel))
    return len(known), rk, ru, len(shown)


USER_FORMULAS: dict[str, Callable[[int, int, int, int], float]] = {
    "Coverage": lambda u, rk, ru, n: div_or_zero(rk, u),
    "Novelty": lambda u, rk, ru, n: div_or_zero(ru, ru + rk),
    "RelRecall": lambda u, rk, ru, n: div_or_zero(rk + ru, u),
    "RecallEffect": lambda u, rk, ru, n: div_or_zero(u, n),
}


# --------------------------------------------------------------------------- diversity


def alpha_ndcg(
    t: ExtendedTopic, *, alpha: float = 0.5, rel: int = 1, cutoff: int | None = None
) -> float:
    subtopics: dict[str, set[str]] = {}
    for s, docs in t.intents.items():
        for d, v in docs.items():
            if v >= rel:
                subtopics.setdefault(d, set()).add(s)
    k = cutoff if cutoff is not None else max(len(t.docs), len(subtopics))

    def gains(order: list[str]) -> list[float]:
        seen: dict[str, int] = {}
        out = []
        for d in order:
            g = 0.0
            for s in sorted(subtopics.get(d, ())):
                g += (1 - alpha) ** seen.get(s, 0)
                seen[s] = seen.get(s, 0) + 1
            out.append(g)
        return out

    def dcg(values: list[float]) -> float:
        return sum(g / math.log2(i + 1) for i, g in enumerate(values[:k], start=1))

    shown = [] if t.missing else t.docs
    run_dcg = dcg(gains(shown))
    remaining = sorted(subtopics, reverse=True)  # docno descending: the first max wins ties
    seen: dict[str, int] = {}
    ideal: list[float] = []
    while remaining and len(ideal) < k:
        scores = [sum((1 - alpha) ** seen.get(s, 0) for s in subtopics[d]) for d in remaining]
        best = max(scores)
        pick = remaining[scores.index(best)]
        ideal.append(best)
        for s in subtopics[pick]:
            seen[s] = seen.get(s, 0) + 1
        remaining.remove(pick)
    return div_or_zero(run_dcg, dcg(ideal))


def _ndeval_topic(t: ExtendedTopic, rel: int) -> tuple[dict[str, set[str]], int, list[str]]:
    """(the subtopics each document is relevant to, S, the ranking) as ndeval sees them."""
    subtopics: dict[str, set[str]] = {}
    for s, docs in t.intents.items():
        for d, v in docs.items():
            if v >= rel:
                subtopics.setdefault(d, set()).add(s)
    big_s = len({s for ss in subtopics.values() for s in ss})
    return subtopics, big_s, [] if t.missing else list(t.docs)


def _novelty_gains(order: list[str], subtopics: dict[str, set[str]], alpha: float) -> list[float]:
    seen: dict[str, int] = {}
    out = []
    for d in order:
        g = 0.0
        for s in sorted(subtopics.get(d, ())):
            g += (1 - alpha) ** seen.get(s, 0)
            seen[s] = seen.get(s, 0) + 1
        out.append(g)
    return out


def _greedy_ideal(subtopics: dict[str, set[str]], alpha: float) -> list[float]:
    remaining = sorted(subtopics, reverse=True)  # docno descending: the first max wins ties
    seen: dict[str, int] = {}
    ideal: list[float] = []
    while remaining:
        scores = [sum((1 - alpha) ** seen.get(s, 0) for s in subtopics[d]) for d in remaining]
        best = max(scores)
        pick = remaining[scores.index(best)]
        ideal.append(best)
        for s in subtopics[pick]:
            seen[s] = seen.get(s, 0) + 1
        remaining.remove(pick)
    return ideal


def ndeval_measure(
    t: ExtendedTopic,
    name: str,
    *,
    rel: int,
    alpha: float = 0.5,
    beta: float = 0.5,
    cutoff: int | None = None,
) -> float:
    """ndeval's intent-aware measures, written from ndeval.c's definitions one rank at a time."""
    subtopics, big_s, shown = _ndeval_topic(t, rel)
    if big_s == 0:
        return 0.0
    k = len(shown) if cutoff is None else cutoff
    gains = _novelty_gains(shown, subtopics, alpha)
    if name in ("ERR_IA", "nERR_IA"):
        err = sum(g / i for i, g in enumerate(gains[:k], start=1))
        if name == "nERR_IA":
            ideal = _greedy_ideal(subtopics, alpha)
            return div_or_zero(err, sum(g / i for i, g in enumerate(ideal[:k], start=1)))
        if k == 1:
            return err  # ndeval leaves rank 1 unnormalised
        return err / (big_s * sum((1 - alpha) ** (i - 1) / i for i in range(1, k + 1)))
    if name in ("NRBP", "nNRBP"):
        total = sum(g * beta**i for i, g in enumerate(gains))
        if name == "nNRBP":
            ideal = _greedy_ideal(subtopics, alpha)
            return div_or_zero(total, sum(g * beta**i for i, g in enumerate(ideal)))
        return total * (1 - (1 - alpha) * beta) / big_s
    if name == "P_IA":
        return sum(len(subtopics.get(d, ())) for d in shown[:k]) / (k * big_s)
    if name == "StRecall":
        return len({s for d in shown[:k] for s in subtopics.get(d, ())}) / big_s
    if name == "AP_IA":
        total = 0.0
        for s in {s for ss in subtopics.values() for s in ss}:
            relevant = {d for d, ss in subtopics.items() if s in ss}
            found, ap = 0, 0.0
            for i, d in enumerate(shown, start=1):
                if d in relevant:
                    found += 1
                    ap += found / i
            total += ap / len(relevant)
        return total / big_s
    raise KeyError(name)


NDEVAL_NAMES = ("ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA", "AP_IA", "StRecall")


# --------------------------------------------------------------------------- extended dispatch


def extended_value(
    t: ExtendedTopic, name: str, params: Mapping[str, Any], at: Any, *, rel: int, num_docs: int
) -> float:
    """The oracle's value of measure ``name`` (with ``params`` and ``@at``) on topic ``t``."""
    p = dict(params)
    r = p.pop("rel", rel)
    if name in SET_FORMULAS:
        a, b, c, d = table(t, r, at, num_docs)
        if t.missing:
            a, b, c = 0, 0, _num_rel(t, r)
            d = (num_docs if num_docs > 0 else sum(1 for v in t.judged.values() if v >= 0)) - c
        if name == "SetE":
            p["b_"] = p.pop("b", 1.0)
        return float(SET_FORMULAS[name](a, b, c, d, **p))
    if name in USER_FORMULAS:
        return USER_FORMULAS[name](*user(t, r, at))
    functions: dict[str, Callable[[], float]] = {
        "AP_min": lambda: ap_min(t, r, at),
        "AP_ret": lambda: ap_ret(t, r, at),
        "IntPrec": lambda: int_prec(t, r, at),
        "AP11": lambda: ap11(t, r, **p),
        "ERR": lambda: err(t, cutoff=at, **p),
        "BprefR": lambda: bpref_r(t, r),
        "Bpref10": lambda: bpref_10(t, r),
        "RBPResid": lambda: rbp_resid_tail(t, p["p"]) if p.get("tail") else math.nan,
        "nDCGx": lambda: ndcgx(t, cutoff=at, **p),
        "nCG": lambda: ncg(t, cutoff=at, **p),
        "CG": lambda: dcg_pair(
            t,
            exp=p.get("exp", False),
            base=2.0,
            jk=False,
            retrieved_ideal=False,
            cutoff=at,
            cg=True,
        )[0],
        "DCGx": lambda: dcg_pair(
            t,
            cutoff=at,
            cg=False,
            **({"exp": False, "base": 2.0, "jk": False, "retrieved_ideal": False} | p),
        )[0],
        "IDCGx": lambda: dcg_pair(
            t,
            cutoff=at,
            cg=False,
            **({"exp": False, "base": 2.0, "jk": False, "retrieved_ideal": False} | p),
        )[1],
        "alpha_nDCG": lambda: alpha_ndcg(t, rel=r, cutoff=at, **p),
        "Hits": lambda: float(sum(_is_rel(t, d, r) for d in t.docs[:at])),
    }
    if name in NDEVAL_NAMES:
        return ndeval_measure(t, name, rel=r, cutoff=at, **p)
    return functions[name]()


#: measure names the extended oracle covers
EXTENDED_NAMES = (
    frozenset(SET_FORMULAS)
    | frozenset(USER_FORMULAS)
    | {
        "AP_min",
        "AP_ret",
        "IntPrec",
        "AP11",
        "ERR",
        "BprefR",
        "Bpref10",
        "RBPResid",
        "nDCGx",
        "nCG",
        "CG",
        "DCGx",
        "IDCGx",
        "alpha_nDCG",
        "Hits",
        *NDEVAL_NAMES,
    }
)
