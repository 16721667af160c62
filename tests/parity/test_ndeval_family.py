"""ndeval's intent-aware family agrees with pyndeval (ndeval's C code) to 1e-9 per topic.

ERR_IA, nERR_IA, NRBP, nNRBP, P_IA, AP_IA (ndeval's MAP-IA) and StRecall (ndeval's strec)
on the TREC 2013 Web track diversity judgments (topics 201-250) and the wt13 run, for the
default α, β and relevance level and for others, and on a small hand-written file with the
edge cases: a topic with no relevant subtopic judgment (S = 0), unjudged and non-relevant
documents, a list shorter than k, and ERR-IA@1, which ndeval leaves unnormalised.

pyndeval ranks by score then docno ascending; the run is first made tie-free in cranfield's
order so both sides see the same ranking. ndeval computes at most 20 ranks, hence cutoffs
<= 20 here.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import cranfield
from cranfield.io.intents import IntentQrels, read_intents
from tests.conftest import REAL, require
from tests.parity.test_peer_variants import tie_free

# Parity with peer tools on real TREC data: slow, left out by scripts/check --fast.
pytestmark = pytest.mark.slow

pyndeval = pytest.importorskip("pyndeval")

WT13_INTENTS = REAL / "qrels-misc" / "anserini-tools" / "qrels.web.201-250.ndeval.txt.gz"
WT13_RUN = REAL / "trec-web-2009-2014" / "runs" / "test.wt13.run.gz"


def measures(alpha: float, beta: float, rel: int) -> list[tuple[str, str]]:
    """(cranfield name, pyndeval name) for every measure of the family."""
    a, ab = f"alpha={alpha},rel={rel}", f"alpha={alpha},beta={beta},rel={rel}"
    return [
        (f"ERR_IA({a})@1", "ERR-IA@1"),
        (f"ERR_IA({a})@5", "ERR-IA@5"),
        (f"ERR_IA({a})@20", "ERR-IA@20"),
        (f"nERR_IA({a})@1", "nERR-IA@1"),
        (f"nERR_IA({a})@7", "nERR-IA@7"),
        (f"nERR_IA({a})@20", "nERR-IA@20"),
        (f"NRBP({ab})", "NRBP"),
        (f"nNRBP({ab})", "nNRBP"),
        (f"P_IA(rel={rel})@3", "P-IA@3"),
        (f"P_IA(rel={rel})@20", "P-IA@20"),
        (f"AP_IA(rel={rel})", "MAP-IA"),
        (f"StRecall(rel={rel})@1", "strec@1"),
        (f"StRecall(rel={rel})@10", "strec@10"),
    ]


def compare(
    intents: IntentQrels,
    run: dict[str, dict[str, float]],
    alpha: float,
    beta: float,
    rel: int,
) -> None:
    pairs = measures(alpha, beta, rel)
    judged = [(t, s, d, r) for t, s, d, r in intents.frame.iter_rows()]
    scored = [(t, d, v) for t, docs in run.items() for d, v in docs.items()]
    peer = pyndeval.RelevanceEvaluator(
        judged, [theirs for _, theirs in pairs], relevance_level=rel, alpha=alpha, beta=beta
    ).evaluate(scored)
    res = cranfield.evaluate(
        intents.to_qrels(), run, [ours for ours, _ in pairs], intents=intents, missing="skip"
    )
    for ours, theirs in pairs:
        values = res.per_query(ours)
        assert set(peer) <= set(values)
        for topic, row in peer.items():
            if math.isnan(row[theirs]):
                # ndeval divides 0 by 0 for a topic without a relevant subtopic (S = 0)
                assert theirs == "nNRBP"
                assert row["NRBP"] == 0.0
                assert values[topic] == 0.0
            else:
                assert abs(values[topic] - row[theirs]) <= 1e-9, (ours, topic)


@pytest.fixture(scope="module")
def wt13() -> tuple[IntentQrels, dict[str, dict[str, float]]]:
    intents = read_intents(require(WT13_INTENTS))
    run = tie_free(cranfield.load_run(require(WT13_RUN)), intents.to_qrels().topics)
    return intents, run


@pytest.mark.parametrize(
    ("alpha", "beta", "rel"),
    [(0.5, 0.5, 1), (0.3, 0.8, 1), (0.5, 0.5, 2), (1.0, 0.2, 3), (0.0, 0.9, 1)],
)
def test_trec_2013_web_diversity(
    wt13: tuple[IntentQrels, dict[str, dict[str, float]]], alpha: float, beta: float, rel: int
) -> None:
    intents, run = wt13
    compare(intents, run, alpha, beta, rel)


EDGE_INTENTS = """\
1 1 d1 1
1 1 d2 0
1 2 d3 1
1 2 d1 2
2 1 d9 0
3 1 d1 1
3 2 d2 1
3 2 d5 3
"""
EDGE_RUN = {
    "1": {"d4": 3.0, "d3": 2.0, "d1": 1.0},  # unjudged first, then both subtopics
    "2": {"d9": 1.0},  # S = 0: only a non-relevant judgment
    "3": {"d2": 1.0},  # shorter than every cutoff
}


@pytest.mark.parametrize(("alpha", "beta", "rel"), [(0.5, 0.5, 1), (0.3, 0.8, 2)])
def test_hand_written_edge_cases(tmp_path: Path, alpha: float, beta: float, rel: int) -> None:
    path = tmp_path / "intents.txt"
    path.write_text(EDGE_INTENTS)
    compare(read_intents(path), EDGE_RUN, alpha, beta, rel)


# One topic of three answered on purpose: the overlap warning is expected and not the point.
@pytest.mark.filterwarnings("ignore::cranfield.errors.QueryOverlapWarning")
def test_err_ia_at_1_is_unnormalised_as_in_ndeval(tmp_path: Path) -> None:
    """The first document covering both subtopics of topic 1 scores 2 at rank 1, not 1."""
    path = tmp_path / "intents.txt"
    path.write_text(EDGE_INTENTS)
    intents = read_intents(path)
    run = {"1": {"d1": 1.0}}
    res = cranfield.evaluate(
        intents.to_qrels(), run, ["ERR_IA@1", "ERR_IA@2"], intents=intents, missing="skip"
    )
    assert res.per_query("ERR_IA@1")["1"] == 2.0
    assert res.per_query("ERR_IA@2")["1"] == pytest.approx(2.0 / (2 * (1 + 0.5 / 2)))
