"""Seed 002, "Discounted Cumulated Gain" … "Normalized DCG": gain, CG, DCG and ideal vectors
for q1 and q2 over the top 15, their averages, and NCG/NDCG as ratios of the averages.

The DCG vector of the slides is Järvelin & Kekäläinen's with b = 2: DCG[1] = G[1],
DCG[i] = DCG[i−1] + G[i]/log2(i) (``jk=True``).

Slips in the slides (each asserted below with the correct value):

* G2 puts q2's grade-1 document (d129) at rank 9; the ranking has d129 at rank 8, and the
  slides' own CG2 and averaged CG use rank 8.
* CG1 and CG2 are printed with 16 entries for 15 ranks (an extra 7 in CG1, an extra 3 in
  CG2), and IG2 with 14; NDCG is printed with 16 entries (an extra 0.29).
* The averaged DCG prints 1.5 at rank 3 and 2.1 at rank 6: rounding already-rounded values
  (1.6 and 1.3; 2.8 and 1.3); the exact averages are 1.446 and 2.027 (1.4 and 2.0).
* NDCG at rank 15 prints 0.38 (3.3/8.7 from rounded values); exactly 3.262/8.732 = 0.37.
"""

from __future__ import annotations

import polars as pl
import pytest

from cranfield import curves
from tests.seeds._collection import graded
from tests.seeds._helpers import assert_printed


def _topic(frame: pl.DataFrame, q: str, column: str) -> list[float]:
    return frame.filter(pl.col("query_id") == q).sort("rank")[column].to_list()


@pytest.fixture(scope="module")
def per_topic() -> pl.DataFrame:
    return curves.gain_curves(*graded(), max_rank=15, jk=True, base=2.0)


@pytest.fixture(scope="module")
def mean() -> pl.DataFrame:
    return curves.mean_gain_curves(*graded(), max_rank=15, jk=True, base=2.0)


def test_seed_002_gain_vectors(per_topic: pl.DataFrame) -> None:
    assert _topic(per_topic, "q1", "gain") == [1, 0, 1, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 3]
    # slip: the slides print the 1 at rank 9
    assert _topic(per_topic, "q2", "gain") == [0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 3]


def test_seed_002_cumulated_gain_vectors(per_topic: pl.DataFrame) -> None:
    # slip: 16 printed entries (1, 1, 2, 2, 2, 5, 5, 5, 5, 7, 7, 7, 7, 7, 7, 10)
    assert _topic(per_topic, "q1", "cg") == [1, 1, 2, 2, 2, 5, 5, 5, 5, 7, 7, 7, 7, 7, 10]
    assert _topic(per_topic, "q1", "cg")[7] == 5  # "the cumulated gain at position 8 of CG1 is 5"
    # slip: 16 printed entries (0, 0, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 6)
    assert _topic(per_topic, "q2", "cg") == [0, 0, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 6]


def test_seed_002_dcg_vector_q1(per_topic: pl.DataFrame) -> None:
    assert_printed(
        _topic(per_topic, "q1", "dcg"),
        "1.0 1.0 1.6 1.6 1.6 2.8 2.8 2.8 2.8 3.4 3.4 3.4 3.4 3.4 4.2",
    )


def test_seed_002_average_cg_and_dcg(mean: pl.DataFrame) -> None:
    assert_printed(
        mean["cg"].to_list(), "0.5 0.5 2.0 2.0 2.0 3.5 3.5 4.0 4.0 5.0 5.0 5.0 5.0 5.0 8.0"
    )
    # slips at ranks 3 and 6 (printed 1.5 and 2.1)
    assert_printed(
        mean["dcg"].to_list(), "0.5 0.5 1.4 1.4 1.4 2.0 2.0 2.2 2.2 2.5 2.5 2.5 2.5 2.5 3.3"
    )
    assert mean["dcg"][2] == pytest.approx(1.446, abs=5e-4)
    assert mean["dcg"][5] == pytest.approx(2.027, abs=5e-4)


def test_seed_002_ideal_vectors(per_topic: pl.DataFrame) -> None:
    assert _topic(per_topic, "q1", "ideal_gain") == [3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    # slip: IG2 printed with 14 entries
    assert _topic(per_topic, "q2", "ideal_gain") == [3, 2, 1] + [0] * 12
    assert _topic(per_topic, "q1", "icg") == [
        3,
        6,
        9,
        11,
        13,
        15,
        16,
        17,
        18,
        19,
        19,
        19,
        19,
        19,
        19,
    ]
    assert_printed(
        _topic(per_topic, "q1", "idcg"),
        "3.0 6.0 7.9 8.9 9.8 10.5 10.9 11.2 11.5 11.8 11.8 11.8 11.8 11.8 11.8",
    )


def test_seed_002_average_ideal_vectors(mean: pl.DataFrame) -> None:
    assert_printed(
        mean["icg"].to_list(),
        "3.0 5.5 7.5 8.5 9.5 10.5 11.0 11.5 12.0 12.5 12.5 12.5 12.5 12.5 12.5",
    )
    assert_printed(
        mean["idcg"].to_list(), "3.0 5.5 6.8 7.3 7.7 8.1 8.3 8.4 8.6 8.7 8.7 8.7 8.7 8.7 8.7"
    )


def test_seed_002_ncg_and_ndcg_as_ratio_of_averages(mean: pl.DataFrame) -> None:
    assert_printed(
        mean["ncg"].to_list(),
        "0.17 0.09 0.27 0.24 0.21 0.33 0.32 0.35 0.33 0.40 0.40 0.40 0.40 0.40 0.64",
    )
    # slips: a 16th entry (an extra 0.29), and 0.38 for 0.37 at rank 15
    assert_printed(
        mean["ndcg"].to_list(),
        "0.17 0.09 0.21 0.20 0.19 0.25 0.25 0.26 0.26 0.29 0.29 0.29 0.29 0.29 0.37",
    )


def test_seed_002_mean_of_ratios_is_the_documented_alternative() -> None:
    ratio = curves.mean_gain_curves(*graded(), max_rank=15, jk=True, normalise="mean_of_ratios")
    per_topic = curves.gain_curves(*graded(), max_rank=15, jk=True)
    expected = per_topic.group_by("rank").agg(pl.col("ndcg").mean()).sort("rank")["ndcg"].to_list()
    assert ratio["ndcg"].to_list() == pytest.approx(expected)
    assert ratio["ndcg"][14] != pytest.approx(
        0.374, abs=1e-3
    )  # a different number than the slides'
