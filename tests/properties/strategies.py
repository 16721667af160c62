"""Hypothesis strategies of the property tests.

:func:`collections` builds small adversarial collections as plain dicts
``{qid: {docid: value}}``:

* query ids whose bytewise order is not numeric order (``"10" < "2" < "9" < "B" < "a"``);
* doc ids whose bytewise order differs from case-insensitive order (``"DOC3" < "Doc1" <
  "doc1"``, ``"_x"`` between upper and lower case, non-ASCII ``"é"``/``"ß"`` after ``"zz"``,
  and U+FF5E before U+1F600 as in UTF-8, the reverse of UTF-16 order);
* scores from a small pool, so ties are everywhere (including ``0.0`` vs ``-0.0``,
  infinities, and pairs that differ only beyond float32 precision);
* graded labels 0..4 and negative labels (pooled but unjudged), documents absent from the
  qrels, topics without relevant documents, topics only in the run or only in the qrels.

:func:`extended_collections` adds what the measures beyond trec_eval read: the documents
the user knows and subtopic judgments.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

QIDS = ("10", "2", "9", "a", "B", "é")
DOCS = (
    "Doc1",
    "doc1",
    "doc10",
    "doc2",
    "DOC3",
    "a",
    "B",
    "_x",
    "zz",
    "é",
    "E",
    "Z",
    "ß",
    "d-1",
    "d.1",
    "d~1",
    "\uff5e",
    "\U0001f600",
    *(f"d{i}" for i in range(12)),
)
SCORES = (
    0.0,
    -0.0,
    1.0,
    1.0,
    1.0,
    0.5,
    2.0,
    -1.0,
    3.0,
    0.1,
    0.1 + 1e-12,  # equal in float32
    1.0000000001,  # equal to 1.0 in float32
    1e-50,
    -1e-50,  # 0.0 and -0.0 in float32
    1e300,  # inf in float32
    math.inf,
    -math.inf,
)
LABELS = (-7, -2, -1, 0, 0, 0, 1, 1, 1, 2, 2, 3, 4)

Collection = tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]


@st.composite
def collections(draw: st.DrawFn, *, max_judged: int = 15, max_retrieved: int = 30) -> Collection:
    """``(qrels, run)`` with at least one judged topic that is also retrieved."""
    qids = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=4, unique=True))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    roles = st.sampled_from(("both", "both", "both", "qrels_only", "run_only"))
    for i, q in enumerate(qids):
        role = "both" if i == 0 else draw(roles)
        if role != "run_only":
            judged = draw(
                st.dictionaries(
                    st.sampled_from(DOCS),
                    st.sampled_from(LABELS),
                    min_size=1 if role == "both" and i == 0 else 0,
                    max_size=max_judged,
                )
            )
            if judged:
                qrels[q] = judged
        if role != "qrels_only":
            retrieved = draw(
                st.dictionaries(
                    st.sampled_from(DOCS),
                    st.sampled_from(SCORES),
                    min_size=1 if i == 0 else 0,
                    max_size=max_retrieved,
                )
            )
            if retrieved:
                run[q] = retrieved
    return qrels, run


def options() -> st.SearchStrategy[dict[str, Any]]:
    """Keyword options of ``evaluate`` (float32 excluded; it has its own test)."""
    return st.fixed_dictionaries(
        {
            "missing": st.sampled_from(("zero", "skip")),
            "relevance_level": st.integers(1, 3),
            "judged_only": st.booleans(),
            "depth": st.none() | st.integers(1, 50),
            "compat": st.sampled_from((9, 10)),
            # 0 (trec_eval's default) or a collection at least as large as any topic's documents
            "num_docs": st.sampled_from((0, 50, 1000)),
        }
    )


def integer_gains() -> st.SearchStrategy[dict[int, int]]:
    """Custom gain maps with integer gains (levels -2..5 include the unjudged codes)."""
    return st.dictionaries(st.integers(-2, 5), st.integers(-3, 6), min_size=1, max_size=4)


def same_values(a: float, b: float, tol: float = 1e-9) -> bool:
    """Equal within ``tol`` (relative or absolute); NaN equals NaN, inf equals inf."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


# --------------------------------------------------------------------------- extended collections
#
# For the measures beyond trec_eval: small collections with ties in scores, unjudged and
# negative-valued documents, topics absent from the run, documents the user knows, and
# subtopic judgments (a document may be relevant to several subtopics).

EXTENDED_DOCS = ("a", "b", "c", "d10", "d2", "d9", "e", "f", "g", "h", "zz")
EXTENDED_QIDS = ("1", "10", "2", "x")
ExtendedCollection = tuple[
    dict[str, dict[str, int]],
    dict[str, dict[str, float]],
    dict[str, dict[str, int]],
    dict[str, dict[str, dict[str, int]]],
]


@st.composite
def extended_collections(draw: st.DrawFn, max_docs: int = 8) -> ExtendedCollection:
    """(qrels, run, known, intents) with 1–3 topics."""
    qids = draw(st.lists(st.sampled_from(EXTENDED_QIDS), min_size=1, max_size=3, unique=True))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    known: dict[str, dict[str, int]] = {}
    intents: dict[str, dict[str, dict[str, int]]] = {}
    for i, q in enumerate(qids):
        qrels[q] = draw(
            st.dictionaries(
                st.sampled_from(EXTENDED_DOCS), st.integers(-1, 3), min_size=1, max_size=max_docs
            )
        )
        if i == 0 or draw(st.booleans()):
            run[q] = draw(
                st.dictionaries(
                    st.sampled_from(EXTENDED_DOCS),
                    st.sampled_from((0.5, 1.0, 1.5, 2.0, 3.0)),
                    min_size=1,
                    max_size=max_docs,
                )
            )
        k = draw(st.dictionaries(st.sampled_from(EXTENDED_DOCS), st.integers(0, 2), max_size=4))
        if k:
            known[q] = k
        subtopics = draw(st.integers(0, 3))
        topic_intents = {
            str(s): draw(
                st.dictionaries(
                    st.sampled_from(EXTENDED_DOCS), st.integers(0, 2), min_size=1, max_size=5
                )
            )
            for s in range(1, subtopics + 1)
        }
        if topic_intents:
            intents[q] = topic_intents
    return qrels, run, known, intents


def extended_options() -> st.SearchStrategy[dict[str, Any]]:
    """Keyword options of :func:`cranfield.evaluate` that every measure must respect."""
    return st.fixed_dictionaries(
        {
            "missing": st.sampled_from(("zero", "skip")),
            "depth": st.sampled_from((None, 3)),
            "judged_only": st.booleans(),
            "relevance_level": st.sampled_from((1, 2)),
            "num_docs": st.sampled_from((0, 1000)),
        }
    )
