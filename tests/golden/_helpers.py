"""Building blocks for the seed worked examples: runs from relevance lists, printed numbers.

A worked example prints numbers rounded to a few decimals; :func:`printed` checks that a
computed value rounds to the printed text (half away from zero, with a hair of slack for
binary floating point, so 0.625 matches both "0.63" and "0.62" as a person rounding by hand
would print it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cranfield


def printed(value: float, text: str) -> bool:
    """Whether ``value`` rounds to the number printed as ``text`` (e.g. ``"0.78"``)."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(value - float(text)) <= 0.5 * 10.0**-decimals + 1e-12


def assert_printed(values: Sequence[float], texts: str | Sequence[str]) -> None:
    """Element-wise :func:`printed` (``texts`` may be one blank-separated string)."""
    if isinstance(texts, str):
        texts = texts.split()
    assert len(values) == len(texts), (len(values), len(texts))
    bad = [
        (i + 1, v, t)
        for i, (v, t) in enumerate(zip(values, texts, strict=True))
        if not printed(v, t)
    ]
    assert not bad, f"rank, computed, printed: {bad}"


def ranked_run(docs: Sequence[str]) -> dict[str, float]:
    """A run topic ranking ``docs`` in the given order (descending scores, no ties)."""
    return {d: float(len(docs) - i) for i, d in enumerate(docs)}


def from_grades(
    grades: Sequence[int], extra: Sequence[int] = (), query: str = "q"
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Qrels and run for one topic whose ranked documents have ``grades``, in order.

    Documents are ``r1, r2, ...``; ``extra`` grades are judged documents that were not
    retrieved (``x1, x2, ...``).
    """
    docs = [f"r{i + 1:03d}" for i in range(len(grades))]
    qrels = dict(zip(docs, grades, strict=True))
    qrels.update({f"x{i + 1:03d}": g for i, g in enumerate(extra)})
    return {query: qrels}, {query: ranked_run(docs)}


def binary_topic(
    relevant_ranks: Sequence[int], depth: int, num_rel: int
) -> tuple[dict[str, int], dict[str, float]]:
    """One topic: ``depth`` ranked documents, relevant at ``relevant_ranks`` (1-based), and
    ``num_rel - len(relevant_ranks)`` relevant documents never retrieved."""
    docs = [f"r{i + 1:03d}" for i in range(depth)]
    qrels = {d: (1 if i + 1 in relevant_ranks else 0) for i, d in enumerate(docs)}
    qrels.update({f"missed{i}": 1 for i in range(num_rel - len(relevant_ranks))})
    return qrels, ranked_run(docs)


def values(qrels: Any, run: Any, measures: Sequence[str], **options: Any) -> dict[str, float]:
    """``{measure: aggregate}`` of :func:`cranfield.evaluate`."""
    res = cranfield.evaluate(qrels, run, list(measures), **options)
    return {m: res[m] for m in measures}
