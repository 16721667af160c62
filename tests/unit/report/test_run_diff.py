"""The text of ``cranfield diff``: every part of a :class:`RunDiff`, dashes for what is not
there, never ``nan``."""

from __future__ import annotations

from cranfield.report.run_diff import diff_text, signed
from cranfield.stats import diff_runs

QRELS = {"q1": {"a": 1}, "q2": {"b": 0}, "q3": {"c": 1}}
RUN_A = {"q1": {"a": 2.0, "x": 1.0}, "q2": {"b": 1.0}}
RUN_B = {"q1": {"x": 2.0, "a": 1.0}, "q2": {"y": 1.0}}


def test_a_query_without_relevant_documents_and_one_no_run_answers() -> None:
    d = diff_runs(QRELS, RUN_A, RUN_B, ["P@1"], names=["a", "b"], queries=["q2", "q3"], k=1)
    text = diff_text(d)
    assert "P@1: no query where b gains." in text
    assert (
        "Query q2: P@1 0.0000 -> 0.0000 (0.0000); RBO 0.0000\n  no judged relevant document."
        in (text)
    )
    # q3: neither run answers it: RBO is undefined, its relevant document retrieved by neither
    assert "Query q3: P@1 0.0000 -> 0.0000 (0.0000); RBO -\n" in text
    assert "  1 more relevant document(s) retrieved by neither run." in text
    assert "RBO (p=0.9) between the rankings: mean 0.4500 over 2 queries." in text
    assert "unjudged, entered the top 1 of b: y" in text
    assert "nan" not in text.lower()


def test_most_entered_names_the_queries_with_the_most() -> None:
    d = diff_runs(QRELS, RUN_A, RUN_B, ["P@1"], names=["a", "b"], k=1)  # x (q1), y (q2)
    assert "2 in 2 of 3 queries; most: q1 (1), q2 (1)." in diff_text(d)
    assert "2 in 2 of 3 queries; most: q1 (1)." in diff_text(d, most_entered=1)


def test_signed_differences() -> None:
    assert [signed(v) for v in (0.125, -0.05, -1e-9, 0.0, float("nan"))] == [
        "+0.1250",
        "-0.0500",
        "0.0000",
        "0.0000",
        "-",
    ]
