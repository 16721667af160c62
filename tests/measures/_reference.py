"""Slow, obvious, one-topic-at-a-time oracles for the measures beyond trec_eval.

Written from the definitions (the seed texts, the papers cited in each spec), never from the
numpy kernels. A topic absent from the run is an empty list here; cranfield ranks it as a
one-document placeholder not in the pool, which every measure below treats as nothing
retrieved (RBPResid is forced to 0 there, as trec_eval -c does).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Mapping[str, float]]
Intents = Mapping[str, Mapping[str, Mapping[str, int]]]  # qid -> subtopic -> doc -> rel


@dataclass
class Topic:
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


def prepare(
    qrels: Qrels,
    run: Run,
    *,
    missing: str = "zero",
    depth: int | None = None,
    judged_only: bool = False,
    known: Qrels | None = None,
    intents: Intents | None = None,
) -> list[Topic]:
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
            Topic(
                qid,
                docs,
                judged,
                qid not in run,
                dict((known or {}).get(qid, {})),
                {s: dict(v) for s, v in (intents or {}).get(qid, {}).items()},
            )
        )
    return topics


def div(a: float, b: float) -> float:
    return a / b if b > 0 else 0.0


# --------------------------------------------------------------------------- set measures


def table(t: Topic, rel: int, cutoff: int | None, num_docs: int) -> tuple[int, int, int, int]:
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
    "SetP": lambda a, b, c, d, relative=False: div(a, min(a + b, a + c) if relative else a + b),
    "SetR": lambda a, b, c, d: div(a, a + c),
    "SetAP": lambda a, b, c, d: div(a * a, (a + b) * (a + c)),
    "SetF": lambda a, b, c, d, beta=1.0, alpha=None: f_beta(
        a, b, c, beta if alpha is None else math.sqrt((1 - alpha) / alpha)
    ),
    "SetFallout": lambda a, b, c, d: div(b, b + d),
    "SetE": lambda a, b, c, d, b_=1.0: 1 - f_beta(a, b, c, b_),
    "SetAccuracy": lambda a, b, c, d: div(a + d, a + b + c + d),
    "T11U": lambda a, b, c, d: 2.0 * a - b,
    "T11SU": lambda a, b, c, d: (
        (max((2 * a - b) / (2 * (a + c)), -0.5) + 0.5) / 1.5 if a + c > 0 else 0.0
    ),
    "T11F": lambda a, b, c, d: f_beta(a, b, c, 0.5),
}


# --------------------------------------------------------------------------- ranked measures


def _is_rel(t: Topic, d: str, rel: int) -> bool:
    lv = t.level(d)
    return lv is not None and lv >= rel


def _num_rel(t: Topic, rel: int) -> int:
    return sum(1 for v in t.judged.values() if v >= rel)


def ap_sum(t: Topic, rel: int, cutoff: int | None) -> tuple[float, int]:
    total, found = 0.0, 0
    for i, d in enumerate(t.docs[: cutoff if cutoff is not None else len(t.docs)], start=1):
        if _is_rel(t, d, rel):
            found += 1
            total += found / i
    return total, found


def ap_min(t: Topic, rel: int, cutoff: int | None = None) -> float:
    s, _ = ap_sum(t, rel, cutoff)
    big_r = _num_rel(t, rel)
    return div(s, big_r if cutoff is None else min(cutoff, big_r))


def ap_ret(t: Topic, rel: int, cutoff: int | None = None) -> float:
    s, found = ap_sum(t, rel, cutoff)
    return div(s, found)


def int_prec(t: Topic, rel: int, level: float) -> float:
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


def ap11(t: Topic, rel: int, levels: tuple[float, ...] = tuple(i / 10 for i in range(11))) -> float:
    return sum(int_prec(t, rel, p) for p in levels) / len(levels)


def err(t: Topic, max_level: int = 4, cutoff: int | None = None) -> float:
    total, going_on = 0.0, 1.0
    for i, d in enumerate(t.docs[: cutoff if cutoff is not None else len(t.docs)], start=1):
        g = min(max(t.level(d) or 0, 0), max_level)
        stop = (2.0**g - 1) / 2.0**max_level
        total += going_on * stop / i
        going_on *= 1 - stop
    return total


def _bpref(t: Topic, rel: int, denominator: Callable[[int], int]) -> float:
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


def bpref_r(t: Topic, rel: int) -> float:
    return _bpref(t, rel, lambda r: r)


def bpref_10(t: Topic, rel: int) -> float:
    return _bpref(t, rel, lambda r: 10 + r)


def rbp_resid_tail(t: Topic, p: float = 0.9) -> float:
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
    t: Topic,
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
    t: Topic,
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
    return div(num, den)


def ncg(
    t: Topic, *, exp: bool = False, retrieved_ideal: bool = False, cutoff: int | None = None
) -> float:
    num, den = dcg_pair(
        t, exp=exp, base=2.0, jk=False, retrieved_ideal=retrieved_ideal, cutoff=cutoff, cg=True
    )
    return div(num, den)


# --------------------------------------------------------------------------- user-oriented


def user(t: Topic, rel: int, cutoff: int | None) -> tuple[int, int, int, int]:
    """(|U|, |Rk|, |Ru|, |A|)."""
    shown = [] if t.missing else (t.docs if cutoff is None else t.docs[:cutoff])
    known = {d for d, v in t.known.items() if v >= rel}
    rk = sum(1 for d in shown if d in known)
    ru = sum(1 for d in shown if d not in known and _is_rel(t, d, rel))
    return len(known), rk, ru, len(shown)


USER_FORMULAS: dict[str, Callable[[int, int, int, int], float]] = {
    "Coverage": lambda u, rk, ru, n: div(rk, u),
    "Novelty": lambda u, rk, ru, n: div(ru, ru + rk),
    "RelRecall": lambda u, rk, ru, n: div(rk + ru, u),
    "RecallEffect": lambda u, rk, ru, n: div(u, n),
}


# --------------------------------------------------------------------------- diversity


def alpha_ndcg(t: Topic, *, alpha: float = 0.5, rel: int = 1, cutoff: int | None = None) -> float:
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
    return div(run_dcg, dcg(ideal))


# --------------------------------------------------------------------------- dispatch


def value(
    t: Topic, name: str, params: Mapping[str, Any], at: Any, *, rel: int, num_docs: int
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
    }
    return functions[name]()


NAMES = (
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
    }
)
