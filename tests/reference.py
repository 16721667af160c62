"""Slow, obvious, per-topic oracles for every native measure (tests only).

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
from dataclasses import dataclass
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
