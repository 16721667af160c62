"""Hypothesis strategies: small adversarial collections with the extra inputs.

Collections have ties in scores, unjudged and negative-valued documents, topics absent from
the run, documents the user knows, and subtopic judgments (a document may be relevant to
several subtopics).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

DOCS = ("a", "b", "c", "d10", "d2", "d9", "e", "f", "g", "h", "zz")
QIDS = ("1", "10", "2", "x")
Collection = tuple[
    dict[str, dict[str, int]],
    dict[str, dict[str, float]],
    dict[str, dict[str, int]],
    dict[str, dict[str, dict[str, int]]],
]


@st.composite
def collections(draw: st.DrawFn, max_docs: int = 8) -> Collection:
    """(qrels, run, known, intents) with 1–3 topics."""
    qids = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=3, unique=True))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    known: dict[str, dict[str, int]] = {}
    intents: dict[str, dict[str, dict[str, int]]] = {}
    for i, q in enumerate(qids):
        qrels[q] = draw(
            st.dictionaries(
                st.sampled_from(DOCS), st.integers(-1, 3), min_size=1, max_size=max_docs
            )
        )
        if i == 0 or draw(st.booleans()):
            run[q] = draw(
                st.dictionaries(
                    st.sampled_from(DOCS),
                    st.sampled_from((0.5, 1.0, 1.5, 2.0, 3.0)),
                    min_size=1,
                    max_size=max_docs,
                )
            )
        k = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(0, 2), max_size=4))
        if k:
            known[q] = k
        subtopics = draw(st.integers(0, 3))
        topic_intents = {
            str(s): draw(
                st.dictionaries(st.sampled_from(DOCS), st.integers(0, 2), min_size=1, max_size=5)
            )
            for s in range(1, subtopics + 1)
        }
        if topic_intents:
            intents[q] = topic_intents
    return qrels, run, known, intents


def options() -> st.SearchStrategy[dict[str, Any]]:
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
