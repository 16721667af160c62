"""trec_eval's judgment-group measures (``-R qrels_jg``, nickname ``qrels_jg``).

A judgment-group qrels file has one set of judgments per *judgment group* (a user, an
assessor) and topic: the second qrels column names the group. Each measure is computed on
the topic's ranking once per group, with that group's judgments, and averaged over the
topic's groups (a group that retrieves nothing relevant still counts, with 0). Groups are
processed in bytewise order of their names (``form_res_rels_jg.c``).

Per group g, with the retrieved list d_1..d_n, ``rel_g(d)`` the group's judgment of d
(a document the group did not judge, or judged negative, is never relevant), L the
relevance level and ``R_g`` the number of the group's judgments with value >= max(L, 0):

* ``map_avgjg`` = (1/G) Σ_g AP_g, AP_g = (1/R_g) Σ_{i: rel_g(d_i) >= L} rr_g(i) / i,
  where rr_g(i) counts relevant documents among d_1..d_i (AP_g = 0 if none is retrieved).
* ``P_avgjg_k`` = (1/G) Σ_g rr_g(min(k, n)) / k: a list shorter than k is padded with
  non-relevant documents.
* ``Rprec_mult_avgjg_m`` = (1/G) Σ_g P_g@c, precision at c = ⌊m R_g + 0.9⌋ documents
  (truncated toward zero, the "add 0.9" rounding trec_eval's ``Rprec_mult`` uses), padded
  as for ``P_avgjg``; 0 when c <= 0 (e.g. R_g = 0).

Every value is divided by G only when G > 1 (which changes nothing numerically).

Citation: C. Buckley, trec_eval 9.0/10.0, ``form_res_rels_jg.c``, ``m_map_avgjg.c``,
``m_P_avgjg.c``, ``m_Rprec_mult_avgjg.c`` (usnistgov/trec_eval).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np

from cranfield.errors import EvaluationError, InputError, MeasureError

if TYPE_CHECKING:
    import polars as pl
    from numpy.typing import NDArray

__all__ = [
    "JUDGMENT_GROUP_MEASURES",
    "JUDGMENT_GROUP_SUMMARY",
    "evaluate_judgment_groups",
    "judgment_group_measure_names",
]

JUDGMENT_GROUP_MEASURES: tuple[str, ...] = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
"""The judgment-group measures' trec_eval names, in trec_eval's order: declared here, where
they are computed, and read by :mod:`cranfield.measures.trec_names`."""

JUDGMENT_GROUP_SUMMARY: dict[str, Literal["sum", "mean"]] = dict.fromkeys(
    JUDGMENT_GROUP_MEASURES, "mean"
)
"""How trec_eval summarises each measure (by base name) on the ``all`` line: every one is
the per-topic values added in topic order and divided once by the number of topics."""

_QRELS_COLUMNS = ("query_id", "iteration", "doc_id", "relevance")
_NOT_IN_POOL = -1
_UNJUDGED = -2


def judgment_group_measure_names(
    cutoffs: list[int] | tuple[int, ...], multipliers: list[float] | tuple[float, ...]
) -> list[str]:
    """Output names in trec_eval's order: ``map_avgjg``, ``P_avgjg_<k>``, ``Rprec_mult_avgjg_<m>``.

    ``m`` is formatted as C ``%3.2f`` (``0.125`` gives ``0.12``).

    Examples
    --------
    >>> judgment_group_measure_names([5, 10], [1.0])
    ['map_avgjg', 'P_avgjg_5', 'P_avgjg_10', 'Rprec_mult_avgjg_1.00']
    """
    map_jg, p_jg, rprec_jg = JUDGMENT_GROUP_MEASURES
    return [
        map_jg,
        *(f"{p_jg}_{k}" for k in cutoffs),
        *(f"{rprec_jg}_{m:3.2f}" for m in multipliers),  # same as C %3.2f
    ]


def evaluate_judgment_groups(
    qrels: pl.DataFrame,
    ranked: dict[str, list[str]],
    *,
    relevance_level: int,
    cutoffs: list[int],
    multipliers: list[float],
) -> tuple[list[str], dict[str, NDArray[np.float64]]]:
    """Per-topic ``map_avgjg``, ``P_avgjg_<k>`` and ``Rprec_mult_avgjg_<m>``.

    Parameters
    ----------
    qrels:
        Judgments with the qrels columns ``query_id``, ``iteration`` (the judgment group),
        ``doc_id`` (strings) and ``relevance`` (integer), e.g. from
        :func:`cranfield.io.prefs.read_qrels_jg`. A document may be judged once per group.
        Negative relevance means "pooled but not judged". Not modified.
    ranked:
        Query id -> retrieved doc ids, best first, already sorted (score descending, ties
        by doc id descending, bytewise, as in every ordinary measure) and cut to the
        ``-M`` depth. A topic mapped to an empty list retrieved nothing.
    relevance_level:
        Minimum judged value counted as relevant (trec_eval ``-l``, default there 1).
    cutoffs:
        Document cutoffs k for ``P_avgjg_<k>``, each an integer >= 1, distinct (trec_eval's
        default: ``cranfield.measures._spec.TREC_CUTOFFS``).
    multipliers:
        Multiples m of R for ``Rprec_mult_avgjg_<m>``; their ``%3.2f`` names must be
        distinct (trec_eval's default: ``cranfield.measures._spec.TREC_MULTIPLIERS``).

    Returns
    -------
    topics : list of str
        The evaluated topics, bytewise order: query ids in ``qrels`` that are keys of
        ``ranked``.
    values : dict of str to numpy.ndarray
        Float64 per-topic values aligned to ``topics``, keyed (in trec_eval's output
        order) by :func:`judgment_group_measure_names`.

    Raises
    ------
    MeasureError
        A cutoff that is not an integer >= 1, repeated cutoffs or repeated multiplier
        names.
    InputError
        ``qrels`` lacks a column or holds nulls.
    EvaluationError
        A document judged twice in one group, or ranked twice in one list.

    Notes
    -----
    As in trec_eval v10, the topics are those of the qrels; v10 stops when one is missing
    from the run unless ``-c`` is given, which evaluates it on a one-document placeholder
    ranking (the same values as an empty list here: all 0). Map missing topics to ``[]``
    to reproduce ``-c``, leave them out for trec_eval 9.x (intersection only). Run topics
    without judgments are never evaluated.

    Examples
    --------
    >>> import polars as pl
    >>> qrels = pl.DataFrame({"query_id": ["1"] * 4, "iteration": ["u1", "u1", "u2", "u2"],
    ...                       "doc_id": ["a", "b", "a", "b"], "relevance": [1, 0, 0, 1]})
    >>> topics, v = evaluate_judgment_groups(qrels, {"1": ["a", "b"]}, relevance_level=1,
    ...                                      cutoffs=[1], multipliers=[1.0])
    >>> [v[name].tolist() for name in ("map_avgjg", "P_avgjg_1", "Rprec_mult_avgjg_1.00")]
    [[0.75], [0.5], [0.5]]
    """
    _check_parameters(cutoffs, multipliers)
    _check_qrels(qrels)
    names = judgment_group_measure_names(cutoffs, multipliers)
    judged_topics = set(qrels.get_column("query_id").unique().to_list())
    topics = sorted(judged_topics.intersection(ranked))  # str order == bytewise for UTF-8
    values = {name: np.zeros(len(topics), dtype=np.float64) for name in names}
    if not topics:
        return topics, values
    by_topic = qrels.select(_QRELS_COLUMNS).partition_by("query_id", as_dict=True)
    for index, qid in enumerate(topics):
        ranking = ranked[qid]
        _check_unique_ranking(qid, ranking)
        rows = by_topic[(qid,)].sort("iteration", "doc_id")
        groups = rows.partition_by("iteration", as_dict=True, maintain_order=True)
        totals = np.zeros(len(names), dtype=np.float64)
        for (jg,), group in groups.items():
            totals += _group_values(
                group,
                ranking,
                qid=qid,
                jg=str(jg),
                level=relevance_level,
                cutoffs=cutoffs,
                multipliers=multipliers,
            )
        if len(groups) > 1:
            totals /= len(groups)
        for name, value in zip(names, totals, strict=True):
            values[name][index] = value
    return topics, values


def _group_values(
    group: pl.DataFrame,
    ranking: list[str],
    *,
    qid: str,
    jg: str,
    level: int,
    cutoffs: list[int],
    multipliers: list[float],
) -> NDArray[np.float64]:
    """``[AP, P@k..., P@(m R)...]`` of one judgment group."""
    docs = group.get_column("doc_id").to_list()
    rels = group.get_column("relevance").to_list()
    judgment = dict(zip(docs, rels, strict=True))
    if len(judgment) != len(docs):
        dup = next(d for d in docs if docs.count(d) > 1)
        raise EvaluationError(
            f"query {qid!r}: document {dup!r} is judged twice in judgment group {jg!r}."
        )
    # Codes as trec_eval builds them: judged value, -2 pooled but unjudged, -1 not pooled.
    codes = np.array(
        [
            _NOT_IN_POOL if d not in judgment else (judgment[d] if judgment[d] >= 0 else _UNJUDGED)
            for d in ranking
        ],
        dtype=np.int64,
    )
    relevant = codes >= level
    num_rel = sum(1 for r in rels if r >= 0 and r >= level)
    num_rel_ret = int(np.count_nonzero((codes >= 0) & relevant))
    n = codes.size
    found = np.cumsum(relevant)  # rr(i) for i = 1..n

    out = np.zeros(1 + len(cutoffs) + len(multipliers), dtype=np.float64)
    if found.size and found[-1]:
        positions = np.flatnonzero(relevant)
        precisions = found[positions] / (positions + 1.0)
        total = 0.0
        for p in precisions:  # left to right, as C adds them
            total += float(p)
        out[0] = total / num_rel if num_rel else float("inf")
    for j, k in enumerate(cutoffs, start=1):
        out[j] = (found[min(k, n) - 1] if n else 0) / k
    for j, m in enumerate(multipliers, start=1 + len(cutoffs)):
        c = int(m * num_rel + 0.9)  # C (long) cast: truncation toward zero
        if c > n:
            out[j] = num_rel_ret / c
        elif c > 0:
            # trec_eval counts back from num_rel_ret, which differs from rr(c) only when
            # unjudged codes count as relevant (a relevance level below 0).
            rel_at = num_rel_ret - int(np.count_nonzero(relevant[c:]))
            out[j] = rel_at / c if rel_at > 0 else 0.0
    return out


def _check_parameters(cutoffs: list[int], multipliers: list[float]) -> None:
    for k in cutoffs:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise MeasureError(f"The cutoffs of P_avgjg must be integers >= 1, got {k!r}.")
    if len(set(cutoffs)) != len(cutoffs):
        raise MeasureError(f"The cutoffs of P_avgjg must be distinct, got {list(cutoffs)}.")
    names = [f"{m:3.2f}" for m in multipliers]
    if len(set(names)) != len(names):
        raise MeasureError(
            "The multipliers of Rprec_mult_avgjg must be distinct at two decimals, "
            f"got {list(multipliers)}."
        )


def _check_qrels(qrels: pl.DataFrame) -> None:
    label = "<qrels_jg DataFrame>"
    missing = [c for c in _QRELS_COLUMNS if c not in qrels.columns]
    if missing:
        raise InputError(label, None, f"is missing the column(s) {', '.join(missing)}")
    for column in _QRELS_COLUMNS:
        if qrels.get_column(column).null_count():
            raise InputError(label, None, f"has null values in column {column!r}")
    if not qrels.schema["relevance"].is_integer():
        raise InputError(label, None, "column 'relevance' must be integer")


def _check_unique_ranking(qid: str, ranking: list[str]) -> None:
    if len(set(ranking)) == len(ranking):
        return
    seen: set[str] = set()
    for d in ranking:
        if d in seen:
            raise EvaluationError(f"query {qid!r}: document {d!r} is ranked twice.")
        seen.add(d)
