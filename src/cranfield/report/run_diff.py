"""Plain text of a :class:`~cranfield.stats.run_diff.RunDiff` (``cranfield diff``).

Presentation only: the numbers come from the result object, four decimals as
:func:`cranfield.report.numbers.four_places` prints them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from cranfield.report.agreement import _grid
from cranfield.report.numbers import four_places

if TYPE_CHECKING:
    from cranfield.stats.run_diff import QueryDiff, RunDiff

__all__ = ["diff_text", "signed"]


def _num(v: float) -> str:
    return four_places(v) if math.isfinite(v) else "-"


def signed(v: float) -> str:
    """A difference with its sign (``+0.1250``, ``-0.0500``, ``0.0000``)."""
    if not math.isfinite(v):
        return "-"
    text = four_places(v)
    return text if text.startswith("-") or text == "0.0000" else "+" + text


def _rank(r: int | None) -> str:
    return "-" if r is None else str(r)


def _summary(d: RunDiff) -> list[str]:
    c = d.comparison
    tests = list(c.tests)
    level = f"{round(100 * (1 - c.alpha), 6):g}%"
    kinds = list(c.intervals)
    header = ["measure", d.run_a, d.run_b, "B - A"]
    header += [f"{level} {kind}" for kind in kinds]
    header += ["wins", "ties", "losses", *(f"p {t}" for t in tests)]
    rows = []
    for m in d.measures:
        pc = d.pair(m)
        row = [m, _num(c.means[m][d.run_a]), _num(c.means[m][d.run_b])]
        row.append(signed(pc.mean_difference))
        for kind in kinds:
            lo, hi = pc.intervals[kind]
            row.append(f"[{signed(lo)}, {signed(hi)}]")
        row += [str(pc.wins), str(pc.ties), str(pc.losses)]
        for t in tests:
            o = pc.tests[t]
            row.append(f"{o.p_adjusted:.4f}{' *' if o.significant else '  '}")
        rows.append(row)
    return _grid(header, rows)


def _largest(d: RunDiff, m: str) -> list[str]:
    lines: list[str] = []
    for word, ids in (("wins", d.wins[m]), ("losses", d.losses[m])):
        if not ids:
            lines.append(f"{m}: no query where {d.run_b} {'gains' if word == 'wins' else 'loses'}.")
            continue
        lines.append(f"{m}: largest {word} of {d.run_b} over {d.run_a}")
        rows = []
        for t in ids:
            q = d.query(t)
            rows.append([t, _num(q.scores_a[m]), _num(q.scores_b[m]), signed(q.delta(m))])
        lines += ["  " + line for line in _grid(["query", d.run_a, d.run_b, "B - A"], rows)]
    return lines


def _detail(d: RunDiff, q: QueryDiff) -> list[str]:
    scores = "; ".join(
        f"{m} {_num(q.scores_a[m])} -> {_num(q.scores_b[m])} ({signed(q.delta(m))})"
        for m in d.measures
    )
    lines = [f"Query {q.query_id}: {scores}; RBO {_num(q.rbo)}"]
    moves = q.relevant or ()
    shown = [m for m in moves if m.rank_a is not None or m.rank_b is not None]
    if shown:
        rows = [[m.doc_id, str(m.grade), _rank(m.rank_a), _rank(m.rank_b)] for m in shown]
        header = ["relevant document", "grade", f"rank in {d.run_a}", f"rank in {d.run_b}"]
        lines += ["  " + line for line in _grid(header, rows)]
    unseen = len(moves) - len(shown)
    if not moves:
        lines.append("  no judged relevant document.")
    elif unseen:
        lines.append(f"  {unseen} more relevant document(s) retrieved by neither run.")
    if q.entered:
        lines.append(f"  unjudged, entered the top {d.k} of {d.run_b}: {', '.join(q.entered)}")
    return lines


def diff_text(d: RunDiff, *, most_entered: int | None = None) -> str:
    """The means and tests, the largest wins and losses per measure, RBO, the unjudged
    documents that entered B's top k, and the relevant documents of the detailed queries.

    ``most_entered`` is how many queries with the most entered documents are named (default:
    the diff's ``top``). A dash stands for a document the run did not retrieve.

    Examples
    --------
    >>> from cranfield.stats import diff_runs
    >>> qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}}
    >>> a = {"q1": {"d1": 2.0, "x": 1.0}, "q2": {"d3": 1.0}}
    >>> b = {"q1": {"y": 2.0, "d1": 1.0}, "q2": {"d3": 1.0}}
    >>> d = diff_runs(qrels, a, b, ["P@1"], names=["a", "b"], queries=["q1"])
    >>> print(diff_text(d), end="")  # doctest: +NORMALIZE_WHITESPACE
    b vs a on 2 queries (B - A: b minus a)
    <BLANKLINE>
    measure       a       b    B - A               95% t  wins  ties  losses  p t-test
    P@1      1.0000  0.5000  -0.5000  [-6.8531, +5.8531]     0     1       1  0.5000
    <BLANKLINE>
    P@1: no query where b gains.
    P@1: largest losses of b over a
      query       a       b    B - A
      q1     1.0000  0.0000  -1.0000
    <BLANKLINE>
    RBO (p=0.9) between the rankings: mean 0.7250 over 2 queries.
    Unjudged documents in the top 10 of b and not in the top 10 of a: 1 in 1 of 2 queries;
    most: q1 (1).
    <BLANKLINE>
    Query q1: P@1 1.0000 -> 0.0000 (-1.0000); RBO 0.4500
      relevant document  grade  rank in a  rank in b
      d1                     1          1          2
      1 more relevant document(s) retrieved by neither run.
      unjudged, entered the top 10 of b: y
    <BLANKLINE>
    2 queries: every judged query, a run missing a query scores 0 on it (missing=zero).
    Test: paired t-test (two-sided, 1 degrees of freedom); Holm correction over
    1 comparison (1 pair × 1 measure).
    Mean differences have 95% confidence intervals: t.
    RBO with persistence p = 0.9 on the rankings as evaluated (ties by the ranking rule),
    mean over the queries either run ranks.
    * significant at alpha 0.05 (adjusted p-value).
    """
    n = len(d.queries)
    lines = [
        f"{d.run_b} vs {d.run_a} on {n} quer{'y' if n == 1 else 'ies'} "
        f"(B - A: {d.run_b} minus {d.run_a})",
        "",
        *_summary(d),
    ]
    for m in d.measures:
        lines += ["", *_largest(d, m)]
    defined = sum(1 for q in d.queries if math.isfinite(q.rbo))
    lines += [
        "",
        f"RBO (p={d.p:g}) between the rankings: mean {_num(d.rbo_mean)} over {defined} "
        f"quer{'y' if defined == 1 else 'ies'}.",
    ]
    entered = (
        f"Unjudged documents in the top {d.k} of {d.run_b} and not in the top {d.k} of "
        f"{d.run_a}: {d.entered_total} in {d.entered_queries} of {n} queries"
    )
    most = sorted(
        (q for q in d.queries if q.entered), key=lambda q: (-len(q.entered), q.query_id.encode())
    )[: d.top if most_entered is None else most_entered]
    if most:
        entered += "; most: " + ", ".join(f"{q.query_id} ({len(q.entered)})" for q in most)
    lines.append(entered + ".")
    for t in d.detailed:
        lines += ["", *_detail(d, d.query(t))]
    lines += ["", *d.notes(), f"* significant at alpha {d.comparison.alpha:g} (adjusted p-value)."]
    return "\n".join(lines) + "\n"
