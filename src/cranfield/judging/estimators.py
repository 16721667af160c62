"""What a sample of judgments estimates: NIST's inferred and statistical estimators.

* :func:`inferred`: xinfAP, infNDCG, the inferred precisions iP@10, 50, 1000, the inferred
  11-point interpolated precisions and the estimated numbers of relevant documents, from a
  stratified sample (Yilmaz, Kanoulas & Aslam, SIGIR 2008; ``sample_eval.pl``).
* :func:`statistical`: statAP, statRP (R-precision), statPC@30 (precision at 30), statNDCG
  (nDCG@30) and the estimated variance of statAP, from a sample with known inclusion
  probabilities (Aslam, Pavlu & Yilmaz, SIGIR 2006; Pavlu's ``statAP_MQ_eval_v3.pl``).

Two modes, documented side by side in ``docs/judging-on-a-budget.md``:

``compat="sample_eval"`` / ``compat="statap"``
    the scripts' own numbers and output, byte for byte: their averaging population, their
    smoothing constants, their ideal DCG, their order of summation. Where the scripts go by
    Perl's hash order (``statAP_MQ_eval_v3.pl``'s sums over a topic's judged documents and
    its order of tied scores; both scripts' order of topic ids that are equal as numbers,
    such as ``"abc"`` and ``"xyz"``), compat mode follows the order that perl 5.36 gives
    under ``PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0`` (:mod:`cranfield.judging._perl_hash`);
    with another seed the scripts themselves change from run to run.
default (``compat=None``)
    the estimators as published: averaged over every topic of the judgments (a topic the
    run does not answer scores 0), estimated counts without the smoothing constants, the
    ideal DCG of the estimated relevant documents (a perfect ranking scores statNDCG 1),
    ties ordered as trec_eval orders them, topic ids kept as written.

Runs are read by :func:`cranfield.load_run` (a document twice for a query is an error, where
the scripts keep the last score) and ranked score descending, ties by document id
descending, as trec_eval ranks them; :func:`inferred` counts each topic's first 1000
documents (``sample_eval.pl``'s ``maxResultSize``), :func:`statistical` every one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from cranfield._validate import check_choice
from cranfield.data.ranking import ranked_doc_ids
from cranfield.errors import EvaluationError
from cranfield.io.load import RunLike, load_run
from cranfield.io.sampled_judgments import (
    LEFT_OUT,
    Prel,
    StratifiedJudgment,
    read_prels,
    read_stratified,
)
from cranfield.judging._perl_hash import perl_keys

__all__ = [
    "CUTOFFS",
    "InferredEstimates",
    "StatTopic",
    "StatisticalEstimates",
    "inferred",
    "statistical",
]

MAX_RESULTS: Final = 1000
CUTOFFS: Final[tuple[int, ...]] = (10, 50, 1000)
RECALL_LEVELS: Final[tuple[str, ...]] = (
    "0",
    ".1",
    ".2",
    ".3",
    ".4",
    ".5",
    ".6",
    ".7",
    ".8",
    ".9",
    "1",
)
EPSILON: Final = 0.00001  # the smoothing of infAP's precision above a relevant document
STAT_CUTOFF: Final = 30  # statPC@30, statNDCG@30

_NUMBER = re.compile(r"\s*[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)")


def perl_number(text: str) -> float:
    """A string's value as Perl reads it in a numeric comparison (its leading number, else 0).

    >>> perl_number("051"), perl_number("12abc"), perl_number("abc")
    (51.0, 12.0, 0.0)
    """
    match = _NUMBER.match(text)
    return float(match.group()) if match else 0.0


def _ranked(run: RunLike, compat: bool) -> tuple[dict[str, list[str]], dict[str, int], list[str]]:
    """``({topic: docs best first}, {topic: lines}, topics)``; ``compat`` strips leading
    zeros of the topic ids as ``sample_eval.pl`` does, and ``topics`` is then the order of
    its ``sort {$a <=> $b} keys %trec`` (ties in Perl's hash order)."""
    loaded = load_run(run)
    ranked = ranked_doc_ids(loaded)
    if not compat:
        return ranked, {q: len(d) for q, d in ranked.items()}, sorted(ranked)
    out: dict[str, list[str]] = {}
    for qid, docs in ranked.items():
        out.setdefault(re.sub(r"^0*", "", qid), []).extend(docs)
    written = loaded.frame.get_column("query_id").unique(maintain_order=True).to_list()
    hashed = perl_keys(re.sub(r"^0*", "", str(q)) for q in written)
    return out, {q: len(d) for q, d in out.items()}, sorted(hashed, key=perl_number)


# ------------------------------------------------------------------------ inferred


@dataclass(frozen=True, eq=False)
class InferredEstimates:
    """What :func:`inferred` returns.

    Attributes
    ----------
    compat:
        ``"sample_eval"`` or ``None`` (the published estimators).
    topics:
        The topics scored, in output order.
    per_topic:
        ``{topic: {measure: value}}`` with ``infAP``, ``infNDCG``, ``iP10``, ``iP50``,
        ``iP1000``, ``inum_rel_ret``, ``inum_rel``, ``num_ret``.
    summary:
        ``{measure: value}``: the same averaged (the counts summed) and
        ``iprec@rec0.00`` ... ``iprec@rec1.00``.
    notes:
        The policies applied, one sentence each.
    """

    compat: str | None
    topics: tuple[str, ...]
    per_topic: dict[str, dict[str, float]]
    summary: dict[str, float]
    notes: tuple[str, ...] = field(default=())


@dataclass
class _Strata:
    """One topic's sample: strata in the script's (string) order and their counts."""

    names: list[str]
    population: dict[str, int]
    sampled: dict[str, int]
    relevant: dict[str, int]
    grades: dict[str, dict[str, int]]  # stratum -> grade text -> sampled documents
    judged: dict[str, tuple[str, float]]  # doc -> (stratum, relevance)


def _strata(rows: Sequence[StratifiedJudgment]) -> dict[str, _Strata]:
    topics: dict[str, _Strata] = {}
    for row in rows:
        t = topics.setdefault(row.topic, _Strata([], {}, {}, {}, {}, {}))
        t.judged[row.doc_id] = (row.stratum, row.relevance)
        t.population[row.stratum] = t.population.get(row.stratum, 0) + 1
        if row.relevance >= 0:
            t.sampled[row.stratum] = t.sampled.get(row.stratum, 0) + 1
        if row.relevance > 0:
            grades = t.grades.setdefault(row.stratum, {})
            grades[row.relevance_text] = grades.get(row.relevance_text, 0) + 1
            t.relevant[row.stratum] = t.relevant.get(row.stratum, 0) + 1
    for t in topics.values():
        t.names = sorted(t.population)
    return topics


def _estimated_relevant(t: _Strata) -> float:
    total = 0.0
    for c in t.names:
        sampled = t.sampled.get(c, 0)
        if sampled != 0:
            total += t.relevant.get(c, 0) * t.population[c] / sampled
    return total


def _ideal_dcg(t: _Strata, compat: bool) -> float:
    per_grade: dict[str, float] = {}
    for c in t.names:
        for grade in sorted(t.grades.get(c, {})):
            per_grade[grade] = per_grade.get(grade, 0.0) + (
                t.grades[c][grade] * t.population[c] / t.sampled[c]
            )
    ideal, start = 0.0, 0
    for grade in (
        sorted(per_grade, reverse=True)
        if compat
        else sorted(per_grade, key=perl_number, reverse=True)
    ):
        count = int(per_grade[grade] + 0.5)
        gain = perl_number(grade)
        for r in range(start + 1, start + count + 1):
            if not compat and r > MAX_RESULTS:
                break
            ideal += gain / (math.log(r + 1) / math.log(2))
            if r >= MAX_RESULTS:
                break
        start += count
    return ideal


def _inferred_topic(  # noqa: PLR0912, PLR0915, C901 -- the script's loop over ranks, top to bottom
    t: _Strata, docs: Sequence[str], compat: bool
) -> tuple[dict[str, float], dict[int, float]]:
    """One topic's estimates and its estimated relevant retrieved at each rank."""
    eps_rel, eps_all = (0.00001, 0.00003) if compat else (0.0, 0.0)
    eps_below = 0.00003 if compat else 0.00002  # the script's 3ε; the paper's 2ε
    n_sampled = dict.fromkeys(t.names, 0)
    n_relevant = dict.fromkeys(t.names, 0)
    n_docs = dict.fromkeys(t.names, 0)
    gain = dict.fromkeys(t.names, 0.0)
    sap = dict.fromkeys(t.names, 0.0)
    depth100 = 0
    at_rank: dict[int, float] = {}
    precision: dict[int, float] = {}
    rel_ret = 0.0
    for rank, doc in enumerate(docs[:MAX_RESULTS], start=1):
        stratum, rel = t.judged.get(doc, ("", -1.0))
        if rel > 0:
            above = 0.0
            for c in t.names:
                if depth100 != 0:
                    prob = n_docs[c] / depth100
                    if prob != 0:
                        above += prob * (n_relevant[c] + EPSILON) / (n_sampled[c] + eps_below)
            sap[stratum] += 1 / rank + (depth100 / rank) * above
            n_relevant[stratum] += 1
            gain[stratum] += rel / (math.log(rank + 1) / math.log(2))
        if doc in t.judged:
            depth100 += 1
            n_docs[stratum] += 1
            if rel >= 0:
                n_sampled[stratum] += 1
        estimate = 0.0
        for c in t.names:
            if compat or n_sampled[c]:
                estimate += n_docs[c] * (n_relevant[c] + eps_rel) / (n_sampled[c] + eps_all)
        at_rank[rank] = estimate
        rel_ret = estimate
        if rank in CUTOFFS:
            precision[rank] = estimate / rank
    for cutoff in CUTOFFS:
        precision.setdefault(cutoff, rel_ret / cutoff)
    relevant = _estimated_relevant(t)
    ap = 0.0
    for c in t.names:
        sampled = t.sampled.get(c, 0)
        if sampled != 0:
            in_stratum = t.relevant.get(c, 0) * t.population[c] / sampled
            if relevant != 0:
                share = in_stratum / relevant
                ap_c = sap[c] / t.relevant[c] if t.relevant.get(c, 0) != 0 else 0.0
                ap += share * ap_c
    dcg = 0.0
    for c in t.names:
        if depth100 != 0:
            prob = n_docs[c] / depth100
            if n_sampled[c] != 0:
                dcg += prob * gain[c] / n_sampled[c]
    ideal = _ideal_dcg(t, compat)
    values = {
        "infAP": ap,
        "infNDCG": depth100 * dcg / ideal if ideal != 0 else 0.0,
        **{f"iP{c}": precision[c] for c in CUTOFFS},
        "inum_rel_ret": rel_ret,
        "inum_rel": relevant,
    }
    return values, at_rank


def _eleven_points(relevant: float, rel_ret: float, at_rank: Mapping[int, float]) -> list[float]:
    """Each recall level's interpolated precision, as ``sample_eval.pl`` walks the ranks."""
    cutoffs = [perl_number(level) * relevant for level in RECALL_LEVELS]
    points = [0.0] * len(cutoffs)
    best, current = 0.0, len(cutoffs) - 1
    while current >= 0 and cutoffs[current] > rel_ret:
        current -= 1
    for rank in sorted(at_rank, reverse=True):
        best = max(best, at_rank[rank] / rank)
        if current >= 0 and cutoffs[current] > at_rank[rank]:
            points[current] += best
            current -= 1
    while current >= 0:
        points[current] += best
        current -= 1
    return points


def inferred(
    judgments: str | Path | Sequence[StratifiedJudgment],
    run: RunLike,
    *,
    compat: Literal["sample_eval"] | None = None,
) -> InferredEstimates:
    """xinfAP, infNDCG and the inferred precisions of ``run`` from a stratified sample.

    Parameters
    ----------
    judgments:
        A stratified qrels file (``topic iteration doc_id stratum relevance``, relevance -1
        for a document of the population that was not sampled) or its rows
        (:func:`cranfield.io.sampled_judgments.read_stratified`).
    run:
        The run (a path, a ``Run``, a dict ...).
    compat:
        ``"sample_eval"``: ``sample_eval.pl``'s numbers (see the module notes); ``None``:
        the published estimators.

    Examples
    --------
    >>> from cranfield.io.sampled_judgments import StratifiedJudgment as J
    >>> rows = [J("1", "a", "1", "1", 1.0, 1), J("1", "b", "1", "0", 0.0, 2),
    ...         J("1", "c", "2", "-1", -1.0, 3), J("1", "d", "2", "1", 1.0, 4)]
    >>> est = inferred(rows, {"1": {"a": 3.0, "c": 2.0, "d": 1.0}})
    >>> round(est.summary["infAP"], 4), est.summary["inum_rel"]
    (0.8889, 3.0)
    """
    mode = check_choice("compat", compat, ("sample_eval", None))
    strict = mode == "sample_eval"
    rows = read_stratified(judgments) if isinstance(judgments, (str, Path)) else list(judgments)
    strata = _strata(rows)
    ranked, lines, run_order = _ranked(run, strict)
    order = [q for q in run_order if q in strata] if strict else sorted(strata)
    if not order:
        raise EvaluationError(
            "no topic of the run is in the sampled judgments: nothing to estimate."
        )
    per_topic: dict[str, dict[str, float]] = {}
    curves: dict[str, tuple[float, float, dict[int, float]]] = {}
    for q in order:
        values, at_rank = _inferred_topic(strata[q], ranked.get(q, []), strict)
        values["num_ret"] = float(lines.get(q, 0))
        per_topic[q] = values
        if at_rank:
            curves[q] = (values["inum_rel"], values["inum_rel_ret"], at_rank)
    n = len(order)
    summary = {m: sum(per_topic[q][m] for q in order) / n for m in ("infAP", "infNDCG")}
    points = [0.0] * len(RECALL_LEVELS)
    for q in sorted(curves):  # the script sums these in string order of the topics
        for i, p in enumerate(_eleven_points(*curves[q])):
            points[i] += p
    for i, p in enumerate(points):
        summary[f"iprec@rec{i / 10:4.2f}"] = p / n
    for c in CUTOFFS:
        summary[f"iP{c}"] = sum(per_topic[q][f"iP{c}"] for q in order) / n
    summary["inum_rel_ret"] = sum(per_topic[q]["inum_rel_ret"] for q in order)
    summary["inum_rel"] = sum(_estimated_relevant(strata[q]) for q in sorted(strata))
    summary["num_ret"] = float(sum(min(len(ranked[q]), MAX_RESULTS) for q in order if q in ranked))
    notes = (
        (
            "sample_eval.pl's numbers: averaged over the topics of both the run and the "
            "judgments, estimated counts smoothed by 1e-5 and 3e-5.",
        )
        if strict
        else (
            "Averaged over every topic of the judgments (a topic the run does not answer "
            "scores 0); estimated counts not smoothed.",
        )
    )
    return InferredEstimates(
        compat=mode, topics=tuple(order), per_topic=per_topic, summary=summary, notes=notes
    )


# ------------------------------------------------------------------------ statistical


@dataclass(frozen=True)
class StatTopic:
    """One topic of :func:`statistical`.

    ``kind`` is ``"NEU"``, ``"MIXED"`` or ``"UMASS"`` (the Million Query track's judging
    sites; a UMass-only topic is not scored); ``ap``, ``rp`` and ``pc`` are ``None`` for a
    topic with no sampled relevant document (not scored). ``ndcg`` and ``var_ap`` are what
    the script prints (in compat mode a topic with no relevant document repeats the previous
    topic's values, as the script does). ``sampled_relevant`` is ``None`` in compat mode
    where the script never set its counter (a topic whose id equals the previous topic's as
    a number, ``"abc"`` after ``"xyz"``, and with no relevant document: it prints nothing).
    """

    topic: str
    kind: str
    relevant: float
    sampled: int
    sampled_relevant: int | None
    sampled_in_list: int
    sampled_relevant_in_list: int
    ap: float | None
    rp: float | None
    pc: float | None
    ndcg: float | None
    var_ap: float | None


@dataclass(frozen=True, eq=False)
class StatisticalEstimates:
    """What :func:`statistical` returns: each topic, and the means over the topics scored
    (``statMAP``, ``statMRP``, ``statMPC@30``, ``statMNDCG``; ``var_map``: the variance of
    statMAP, the sum of the topics' variances over the number of topics squared)."""

    compat: str | None
    topics: tuple[StatTopic, ...]
    valid_topics: int
    summary: dict[str, float]
    notes: tuple[str, ...] = ()


@dataclass
class _Sample:
    umass: int = 0
    neu: int = 0
    sampled: int = 0
    relevant: int = 0
    very_relevant: int = 0
    docs: dict[str, tuple[float, float]] = field(default_factory=dict)  # doc -> (rel, prob)
    started: bool = False  # compat: the script set this topic's counters to 0 (its id changed)


def _samples(rows: Sequence[Prel], compat: bool) -> tuple[dict[str, _Sample], list[str]]:
    """Each topic's sample, and the topics in the order of insertion into the script's
    ``%qrel_judged_NEU`` (a topic starts there when its id changes as a number, or at its
    first line of a NEU method)."""
    topics: dict[str, _Sample] = {}
    judged: list[str] = []
    old: float | None = None
    for row in rows:
        if row.relevance == LEFT_OUT:
            continue
        key = perl_number(row.topic) if compat else row.topic
        if compat and old != key:  # the script starts a topic afresh when the id changes
            kept = topics.get(row.topic, _Sample()).docs
            topics[row.topic] = _Sample(docs=kept, started=True)
            judged.append(row.topic)
            old = key  # type: ignore[assignment]
        sample = topics.setdefault(row.topic, _Sample())
        if row.left_out:
            continue
        prob = row.probability
        if prob is None:  # left_out covers it
            continue
        if row.method in (0, 2):
            sample.umass += 1
        if row.method in (1, 2, 4):
            sample.neu += 1
            judged.append(row.topic)
        if row.method in (0, 2):
            prob = 1.0  # the script's "collision" probability
        if row.relevance == 1:
            sample.relevant += 1
        if row.relevance > 1:
            sample.relevant += 1
            sample.very_relevant += 1
        sample.docs[row.doc_id] = (row.relevance, prob)
        sample.sampled += 1
    return topics, judged


def _rating(rel: float) -> float:
    return float((1 << int(rel)) - 1) if rel > 0 else 0.0


def _discount(rank: int) -> float:
    return math.log(rank + 1) / math.log(2)


def _stat_ideal(sample: _Sample, compat: bool) -> float:
    ideal = 0.0
    for r in range(1, sample.very_relevant + 1):
        if r <= STAT_CUTOFF:
            ideal += _rating(2) / _discount(r)
    last = sample.relevant - sample.very_relevant if compat else sample.relevant
    for r in range(sample.very_relevant + 1, last + 1):
        if r <= STAT_CUTOFF:
            ideal += _rating(1) / _discount(r)
    return ideal


def _stat_topic(  # noqa: PLR0912, PLR0915, C901 -- the estimator's steps, top to bottom
    sample: _Sample, docs: Sequence[str | None], compat: bool
) -> dict[str, Any]:
    # the script walks the judged documents in the key order of its hash
    judged = perl_keys(sample.docs) if compat else list(sample.docs)
    relevant_est = 0.0
    for key in judged:
        rel, prob = sample.docs[key]
        if rel > 0:
            relevant_est += 1 / prob
    out: dict[str, Any] = {"relevant": relevant_est, "in_list": 0, "relevant_in_list": 0}
    if relevant_est <= 0:
        return out
    where = {d: r for r, d in enumerate(docs, start=1) if d is not None}
    rounded = int(relevant_est + 0.5)
    pc = rp = -1.0
    sum_prec = up = ndcg_sum = 0.0
    probs: list[float] = []
    precs: list[float] = []
    ranks: list[int] = []
    in_list = 0
    for r, doc in enumerate(docs, start=1):
        rel = 0.0
        if doc is not None and doc in sample.docs:
            in_list += 1
            rel, prob = sample.docs[doc]
            if rel > 0:
                prec = (1 + sum_prec) / r
                up += prec / prob
                probs.append(prob)
                precs.append(prec)
                ranks.append(r)
                sum_prec += 1 / prob
        if r <= STAT_CUTOFF:
            ndcg_sum += _rating(rel) / _discount(r)
        if r == STAT_CUTOFF:
            pc = sum_prec / r
        if r == rounded:
            rp = sum_prec / r
    ideal = _stat_ideal(sample, compat)
    if pc < 0:
        pc = sum_prec / STAT_CUTOFF
    if rp < 0:
        rp = sum_prec / relevant_est
    ap = up / relevant_est
    found = len(precs)
    ys = [(p - ap) / ip for p, ip in zip(precs, probs, strict=True)]
    for key in judged:
        rel, prob = sample.docs[key]
        if rel > 0 and key not in where:
            probs.append(prob)
            ys.append(-ap / prob)
    sum1 = sum2 = sum3 = sum4 = 0.0
    for i in range(found):
        ip, yy = probs[i], ys[i]
        sum1 += (1 - ip) * yy * yy
        sum4 += (1 - ip) / ip / ip
        for j in range(i):
            sum2 += 2 * yy * ys[j]
        sum3 += sum4 / ranks[i] / ranks[i]
    for i in range(found, len(ys)):
        ip, yy = probs[i], ys[i]
        sum1 += (1 - ip) * yy * yy
        for j in range(i):
            sum2 += 2 * yy * ys[j]
    if sample.sampled < 2:
        raise EvaluationError(
            "a topic with one sampled document has no variance estimate (the script divides "
            "by the sampled documents minus one)."
        )
    var = (sum1 - sum2 / (sample.sampled - 1) + sum3) / relevant_est / relevant_est
    out.update(
        ap=ap,
        rp=rp,
        pc=pc,
        ndcg=ndcg_sum / ideal if ideal else math.nan,
        var=var,
        in_list=in_list,
        relevant_in_list=found,
    )
    return out


def _stat_runs(
    run: RunLike, topics: Mapping[str, _Sample], compat: bool
) -> dict[str, list[str | None]]:
    """Each sampled topic's documents of ``run``, ranked (statAP reads the whole list).

    Score descending; ties by doc id descending, or in ``compat`` mode as the script's
    stable sort by score leaves them: in the key order of a Perl hash that got the
    documents in the order of the run's lines."""
    loaded = load_run(run)
    out: dict[str, list[str | None]] = {}
    if not compat:
        for q, docs in ranked_doc_ids(loaded).items():
            if q in topics:
                out[q] = list(docs)
        return out
    frame = loaded.frame
    for (qid,), group in frame.group_by("query_id", maintain_order=True):
        if str(qid) not in topics:
            continue
        score = dict(
            zip(
                group.get_column("doc_id").to_list(),
                group.get_column("score").to_list(),
                strict=True,
            )
        )
        out[str(qid)] = sorted(perl_keys(score), key=lambda d: -score[d])
    return out


def statistical(
    prels: str | Path | Sequence[Prel],
    run: RunLike,
    *,
    compat: Literal["statap"] | None = None,
) -> StatisticalEstimates:
    """statAP, statRP, statPC@30, statNDCG and the variance of statAP from prels.

    Parameters
    ----------
    prels:
        A prels file (``topic doc_id relevance method probability``) or its rows
        (:func:`cranfield.io.sampled_judgments.read_prels`).
    run:
        The run.
    compat:
        ``"statap"``: ``statAP_MQ_eval_v3.pl``'s numbers (see the module notes); ``None``:
        the published estimators.

    Examples
    --------
    >>> from cranfield.io.sampled_judgments import Prel
    >>> rows = [Prel("1", "a", 1, 1, 0.5, 1), Prel("1", "b", 0, 1, 0.5, 2)]
    >>> est = statistical(rows, {"1": {"a": 2.0, "b": 1.0}})
    >>> est.summary["statMAP"], est.topics[0].relevant
    (1.0, 2.0)
    """
    mode = check_choice("compat", compat, ("statap", None))
    strict = mode == "statap"
    rows = read_prels(prels) if isinstance(prels, (str, Path)) else list(prels)
    samples, judged = _samples(rows, strict)
    runs = _stat_runs(run, samples, strict)
    # the script: sort {$a<=>$b} keys %qrel_judged_NEU, a stable sort of the hash's keys
    order = sorted(perl_keys(judged), key=perl_number) if strict else sorted(samples)
    topics: list[StatTopic] = []
    sums = {"statMAP": 0.0, "statMRP": 0.0, "statMPC@30": 0.0, "statMNDCG": 0.0, "var": 0.0}
    valid = 0
    stale_ndcg: float | None = None
    stale_var: float | None = None
    for q in order:
        if q not in runs and strict:
            continue
        sample = samples[q]
        kind = "UMASS" if sample.neu == 0 else ("NEU" if sample.umass == 0 else "MIXED")
        if kind == "UMASS":
            topics.append(StatTopic(q, kind, 0.0, 0, 0, 0, 0, None, None, None, None, None))
            continue
        r = _stat_topic(sample, runs.get(q, []), strict)
        if "ap" in r:
            valid += 1
            stale_ndcg, stale_var = r["ndcg"], r["var"]
            for key, name in (
                ("ap", "statMAP"),
                ("rp", "statMRP"),
                ("pc", "statMPC@30"),
                ("ndcg", "statMNDCG"),
                ("var", "var"),
            ):
                sums[name] += r[key]
        topics.append(
            StatTopic(
                topic=q,
                kind=kind,
                relevant=r["relevant"],
                sampled=sample.sampled,
                sampled_relevant=(
                    None
                    if strict and not sample.started and not sample.relevant
                    else sample.relevant
                ),
                sampled_in_list=r["in_list"],
                sampled_relevant_in_list=r["relevant_in_list"],
                ap=r.get("ap"),
                rp=r.get("rp"),
                pc=r.get("pc"),
                ndcg=r.get("ndcg", stale_ndcg if strict else None),
                var_ap=r.get("var", stale_var if strict else None),
            )
        )
    if valid == 0:
        raise EvaluationError(
            "no topic has a sampled relevant document the run could be scored on."
        )
    summary = {k: v / valid for k, v in sums.items() if k != "var"}
    summary["var_map"] = sums["var"] / valid / valid
    notes = (
        ("statAP_MQ_eval_v3.pl's numbers: its ideal nDCG, its averaging over the topics scored.",)
        if strict
        else (
            "Averaged over the topics with a sampled relevant document; ideal nDCG@30 of "
            "every sampled relevant document.",
        )
    )
    return StatisticalEstimates(
        compat=mode, topics=tuple(topics), valid_topics=valid, summary=summary, notes=notes
    )
