"""The example collection shared by seeds 002 and 004 (Baeza-Yates & Ribeiro-Neto, ex. 3.2).

One ranking of 15 documents, judged against two relevance sets: ``q1`` has ten relevant
documents (example 3.2), ``q2`` three (example 3.3). The graded versions are seed 002's
R_q1 and R_q2 of the DCG section.
"""

from __future__ import annotations

from tests.golden._helpers import ranked_run

RANKING = (
    "d123",
    "d84",
    "d56",
    "d6",
    "d8",
    "d9",
    "d511",
    "d129",
    "d187",
    "d25",
    "d38",
    "d48",
    "d250",
    "d113",
    "d3",
)
RQ1 = ("d3", "d5", "d9", "d25", "d39", "d44", "d56", "d71", "d89", "d123")
RQ2 = ("d3", "d56", "d129")
GRADED_Q1 = {
    "d3": 3,
    "d5": 3,
    "d9": 3,
    "d25": 2,
    "d39": 2,
    "d44": 2,
    "d56": 1,
    "d71": 1,
    "d89": 1,
    "d123": 1,
}
GRADED_Q2 = {"d3": 3, "d56": 2, "d129": 1}


def binary() -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Qrels (q1: example 3.2, q2: example 3.3) and the run ranking ``RANKING`` for both."""
    qrels = {"q1": dict.fromkeys(RQ1, 1), "q2": dict.fromkeys(RQ2, 1)}
    return qrels, {"q1": ranked_run(RANKING), "q2": ranked_run(RANKING)}


def graded() -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Graded qrels of seed 002's DCG section and the same run."""
    return {"q1": dict(GRADED_Q1), "q2": dict(GRADED_Q2)}, {
        "q1": ranked_run(RANKING),
        "q2": ranked_run(RANKING),
    }
