"""Peers' objects where cranfield takes a measure, judgments or a run: ir_measures' measure
objects and ranx's ``Qrels``/``Run``, each giving the peer's own numbers on the same data, or
refused in one sentence when cranfield has no measure known to give them."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import cranfield
from cranfield import MeasureError

# Peer oracles (ir_measures through pytrec_eval and gdeval, ranx with numba): slow.
pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.fixture(scope="module")
def graded() -> tuple[cranfield.Qrels, cranfield.Run]:
    return cranfield.load_qrels(EXAMPLES / "qrels.txt"), cranfield.load_run(EXAMPLES / "bm25.run")


def _ir_measures_values(measure: object, qrels: cranfield.Qrels, run: cranfield.Run) -> dict:
    import ir_measures

    q = [ir_measures.Qrel(t, d, r) for t, docs in qrels.to_dict().items() for d, r in docs.items()]
    s = [
        ir_measures.ScoredDoc(t, d, v) for t, docs in run.to_dict().items() for d, v in docs.items()
    ]
    return {r.query_id: r.value for r in ir_measures.iter_calc([measure], q, s)}


# (the ir_measures measure, the cranfield measure it is); gdeval's providers print 5 decimals
IR_MEASURES = [
    ("nDCG@10", "nDCG@10"),
    ("nDCG", "nDCG"),
    ("NDCG@5", "nDCG@5"),
    ("AP", "AP"),
    ("MAP", "AP"),
    ("AP(rel=2)", "AP(rel=2)"),
    ("AP@10", "AP@10"),
    ("P@5", "P@5"),
    ("P(rel=2)@5", "P(rel=2)@5"),
    ("R@10", "R@10"),
    ("RR", "RR"),
    ("RR(rel=2)@10", "RR(rel=2)@10"),
    ("Rprec", "Rprec"),
    ("Bpref", "Bpref"),
    ("Judged@10", "Judged@10"),
    ("Success@10", "Success@10"),
    ("SetP", "SetP"),
    ("SetR", "SetR"),
    ("SetF", "SetF"),
    ("NumRet", "NumRet"),
    ("NumRel", "NumRel"),
    ("NumQ", "NumQ"),
    ("IPrec@0.5", "IPrec@0.5"),
    ("ERR@10", "ERR@10"),
    ("infAP", "infAP"),
    ("SetAP", "SetAP"),
    ("nDCG(dcg='exp-log2')@10", "nDCGx(exp=True)@10"),
]


@pytest.mark.parametrize(("theirs", "ours"), IR_MEASURES)
def test_an_ir_measures_object_gives_its_own_values(
    graded: tuple[cranfield.Qrels, cranfield.Run], theirs: str, ours: str
) -> None:
    import ir_measures

    measure = ir_measures.parse_measure(theirs)
    qrels, run = graded
    res = cranfield.evaluate(qrels, run, measure, missing="skip")  # the object itself
    assert [str(m) for m in res.measures] == [ours]
    peer = _ir_measures_values(measure, qrels, run)
    values = res.per_query(measure)  # looked up by the object too
    assert set(peer) == set(values)
    tolerance = 5e-6 if "dcg=" in theirs or theirs.startswith("ERR") else 1e-12
    assert max(abs(values[q] - v) for q, v in peer.items()) <= tolerance
    assert cranfield.parse_measures(measure) == [cranfield.parse_measure(ours)]


def test_a_list_mixing_objects_and_names() -> None:
    import ir_measures

    res = cranfield.evaluate(
        {"q": {"a": 1}}, {"q": {"a": 2.0, "b": 1.0}}, [ir_measures.P @ 2, "AP", ir_measures.RR]
    )
    assert res.means() == {"P@2": 0.5, "AP": 1.0, "RR": 1.0}


def test_ir_measures_rbp_default_is_not_cranfields_and_is_refused() -> None:
    import ir_measures

    with pytest.raises(MeasureError, match=r"^ir_measures' RBP has no measure here known to give"):
        cranfield.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ir_measures.RBP)


def test_ir_measures_setf_beta_is_trec_evals_beta_squared(
    graded: tuple[cranfield.Qrels, cranfield.Run],
) -> None:
    import ir_measures

    measure = ir_measures.SetF(beta=0.5)
    with pytest.raises(MeasureError, match=r"SetF\(beta=0\.707107\) gives its values") as info:
        cranfield.parse_measures(measure)
    assert str(info.value).count(". ") == 0  # one sentence
    qrels, run = graded
    peer = _ir_measures_values(measure, qrels, run)
    ours = cranfield.evaluate(qrels, run, f"SetF(beta={math.sqrt(0.5)})").per_query(
        f"SetF(beta={math.sqrt(0.5)})"
    )
    assert max(abs(ours[q] - v) for q, v in peer.items()) < 1e-12


@pytest.mark.parametrize(
    ("theirs", "why"),
    [
        ("SDCG@10", "no measure here known to give its values"),
        ("Compat(p=0.8)", "no measure here known to give its values"),
        ("nDCG(judged_only=True)@10", "an option of the whole evaluation"),
    ],
)
def test_ir_measures_objects_without_an_equivalent_are_refused(theirs: str, why: str) -> None:
    import ir_measures

    with pytest.raises(MeasureError, match=why):
        cranfield.parse_measures(ir_measures.parse_measure(theirs))


def test_ranx_qrels_and_run_give_ranx_numbers(
    graded: tuple[cranfield.Qrels, cranfield.Run],
) -> None:
    import ranx

    qrels, run = graded
    rq = ranx.Qrels(qrels.to_dict())
    rr = ranx.Run(run.to_dict(), name="bm25-ranx")
    res = cranfield.evaluate(rq, rr, ["nDCG@10", "AP"])
    assert res.run_name == "bm25-ranx"
    theirs = ranx.evaluate(rq, rr, ["ndcg@10", "map"])
    assert res["nDCG@10"] == pytest.approx(theirs["ndcg@10"], abs=1e-12)
    assert res["AP"] == pytest.approx(theirs["map"], abs=1e-12)
    table = cranfield.evaluate_many(rq, [rr, ranx.Run(run.to_dict(), name="again")], "AP")
    assert table.names == ["bm25-ranx", "again"]
    with pytest.raises(TypeError, match="a ranx Qrels was given where a run is expected"):
        cranfield.evaluate(rq, rq, "AP")
