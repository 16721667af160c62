"""Seed 002, "User-Oriented Measures": coverage, novelty, relative recall, recall effect.

The slides define them on a figure without numbers; this example follows the figure: the
user knows U = {d3, d56, d129, d5}; the run (example 3.3's ranking, top 15) retrieves the
known Rk = {d3, d56, d129} and the relevant documents d9, d25 the user did not know (Ru).
"""

from __future__ import annotations

import pytest

import cranfield
from cranfield.errors import EvaluationError
from tests.golden._collection import RANKING
from tests.golden._helpers import ranked_run

QRELS = {"q": {"d3": 1, "d56": 1, "d129": 1, "d5": 1, "d9": 1, "d25": 1, "d84": 0}}
KNOWN = {"q": {"d3": 1, "d56": 1, "d129": 1, "d5": 1}}
RUN = {"q": ranked_run(RANKING)}
MEASURES = ["Coverage", "Novelty", "RelRecall", "RecallEffect"]


def test_user_oriented_measures() -> None:
    res = cranfield.evaluate(QRELS, RUN, [*MEASURES, "Coverage@10", "Novelty@10"], known=KNOWN)
    assert res["Coverage"] == pytest.approx(3 / 4)  # |Rk| / |U|
    assert res["Novelty"] == pytest.approx(2 / 5)  # |Ru| / (|Ru| + |Rk|)
    assert res["RelRecall"] == pytest.approx(5 / 4)  # (|Rk| + |Ru|) / |U|
    assert res["RecallEffect"] == pytest.approx(4 / 15)  # |U| / |retrieved|
    assert res["Coverage@10"] == pytest.approx(2 / 4)  # d56, d129 in the top 10
    assert res["Novelty@10"] == pytest.approx(2 / 4)  # d9, d25 new


def test_user_oriented_measures_need_the_known_documents() -> None:
    with pytest.raises(EvaluationError, match="known"):
        cranfield.evaluate(QRELS, RUN, ["Coverage"])


def test_known_documents_from_a_file(tmp_path) -> None:
    path = tmp_path / "known.qrels"
    path.write_text("".join(f"q 0 {d} 1\n" for d in KNOWN["q"]))
    res = cranfield.evaluate(QRELS, RUN, ["Coverage"], known=path)
    assert res["Coverage"] == pytest.approx(3 / 4)
