"""Measure names people type: other case, other tools' spellings, and what is refused.

Each accepted spelling must give exactly the values of its canonical measure on a real
qrels/run pair (the graded example collection, so exponential gain differs from linear);
each refused one must say precisely why. The spellings are declared on the measures' specs
(``aliases`` and ``peers``), so this table checks the declarations, not a copy of them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cranfield
from cranfield import MeasureError, parse_measure, parse_measures
from cranfield.measures import _spec, all_specs
from cranfield.measures._spec import MeasureSpec, PeerName

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

# (what people type, the canonical measure it is)
ACCEPTED = [
    ("p@10", "P@10"),
    ("P@10", "P@10"),
    ("p(rel=2)@5", "P(rel=2)@5"),
    ("r-precision", "Rprec"),
    ("R-PRECISION", "Rprec"),
    ("rprec", "Rprec"),
    ("ap", "AP"),
    ("Ap@10", "AP@10"),
    ("mAP", "AP"),
    ("rr", "RR"),
    ("Ndcg@10", "nDCG@10"),
    ("success@10", "Success@10"),
    ("err@10", "ERR@10"),
    ("dcg_burges@10", "DCGx(exp=True)@10"),
    ("ndcg_burges@10", "nDCGx(exp=True)@10"),
    ("ndcg_burges", "nDCGx(exp=True)"),
    ("ndcg@10", "nDCG@10"),
    ("hit_rate@10", "Success@10"),
    ("hits@10", "Hits@10"),
    ("hits@5-l2", "Hits(rel=2)@5"),
    ("r_precision", "Rprec"),
    ("precision@5-l2", "P(rel=2)@5"),
    ("f1", "SetF"),
    ("nDCG(dcg='exp-log2')@10", "nDCGx(exp=True)@10"),
    ('nDCG(dcg="exp-log2")@10', "nDCGx(exp=True)@10"),
    ("NDCG(dcg='exp-log2')@10", "nDCGx(exp=True)@10"),
    ("nDCG(dcg='exp-log2',gains={1:1,2:3})@10", "nDCGx(exp=True,gains={1:1,2:3})@10"),
    ("nDCG(dcg='log2')@10", "nDCG@10"),
]
# the intent-aware names of ir_measures (its pyndeval provider); their values are checked
# against pyndeval in tests/parity/test_ndeval_family.py
INTENT_AWARE = [
    ("ERR_IA@20", "ERR_IA@20"),
    ("err_ia@20", "ERR_IA@20"),
    ("nERR_IA@5", "nERR_IA@5"),
    ("NRBP", "NRBP"),
    ("nNRBP(beta=0.8)", "nNRBP(beta=0.8)"),
    ("P_IA@10", "P_IA@10"),
    ("AP_IA", "AP_IA"),
    ("StRecall@10", "StRecall@10"),
    ("SubtopicRecall@10", "StRecall@10"),
    # ndeval's own column names (its defaults are the measures' defaults)
    ("ERR-IA@20", "ERR_IA@20"),
    ("nERR-IA@5", "nERR_IA@5"),
    ("alpha-nDCG@20", "alpha_nDCG@20"),
    ("P-IA@10", "P_IA@10"),
    ("MAP-IA", "AP_IA"),
    ("strec@10", "StRecall@10"),
    ("strec", "StRecall"),
    ("nNRBP", "nNRBP"),
]


@pytest.mark.parametrize(("typed", "canonical"), ACCEPTED + INTENT_AWARE)
def test_spelling_is_the_canonical_measure(typed: str, canonical: str) -> None:
    assert [str(m) for m in parse_measures(typed)] == [canonical]
    assert parse_measure(typed) == parse_measure(canonical)


@pytest.fixture(scope="module")
def example() -> tuple[cranfield.Qrels, cranfield.Run]:
    return (
        cranfield.load_qrels(EXAMPLES / "qrels.txt"),
        cranfield.load_run(EXAMPLES / "bm25.run"),
    )


@pytest.mark.parametrize(("typed", "canonical"), ACCEPTED)
def test_spelling_gives_the_canonical_values(
    example: tuple[cranfield.Qrels, cranfield.Run], typed: str, canonical: str
) -> None:
    qrels, run = example
    ours = cranfield.evaluate(qrels, run, [typed]).per_query(typed)
    theirs = cranfield.evaluate(qrels, run, [canonical]).per_query(canonical)
    assert ours == theirs


def test_exponential_gain_spellings_are_not_linear_gain(
    example: tuple[cranfield.Qrels, cranfield.Run],
) -> None:
    """The example judgments are graded, so the exp-gain spellings are a different measure."""
    qrels, run = example
    res = cranfield.evaluate(qrels, run, ["ndcg_burges@10", "nDCG@10"])
    exp = np.array(list(res.per_query("ndcg_burges@10").values()))
    lin = np.array(list(res.per_query("nDCG@10").values()))
    assert not np.array_equal(exp, lin)


# (what people type, a fragment of the precise message)
REFUSED = [
    ("f1@10", "ranx f1@k has no exact equivalent: its precision divides by k"),
    (
        "nDCG(judged_only=True)@10",
        "an option of the whole evaluation: evaluate(..., judged_only=True) or --judged-only "
        "(-J), then write nDCG@10.",
    ),
    (
        "nDCG(judged_only=True,dcg='exp-log2')@10",
        "then write nDCGx(exp=True)@10.",
    ),
    ("nDCG(dcg='exp')@10", "nDCG accepts dcg='exp-log2' or dcg='log2'."),
    ("nDCG(dcg=True)@10", "nDCG accepts dcg='exp-log2' or dcg='log2'."),
    ("ndcg@10-l2", "nDCG takes no relevance threshold"),
    ("dcg_burges@10-l2", "DCGx takes no relevance threshold"),
    ("rbp.95@10", "ranx rbp takes no cutoff; write rbp.95 for p = 0.95."),
    ("P_IA", "P_IA needs a cutoff, e.g. P_IA@10."),
    ("ERR_IA", "ERR_IA needs a cutoff, e.g. ERR_IA@10."),
    ("NRBP@10", "NRBP takes no @ cutoff, got @10."),
    ("ERR-IA", "ndeval's ERR-IA needs a cutoff, as in ERR-IA@20."),
    ("MAP-IA@10", "ndeval's MAP-IA takes no cutoff: it scores the whole ranking."),
]


@pytest.mark.parametrize(("typed", "fragment"), REFUSED)
def test_refused_spelling_says_why(typed: str, fragment: str) -> None:
    with pytest.raises(MeasureError) as exc:
        parse_measures(typed)
    message = str(exc.value)
    assert fragment in message
    assert "\n" not in message
    assert message.endswith(".")


@pytest.mark.parametrize(
    ("typed", "suggestion"), [("pp@10", "P"), ("ndcg_burgess@10", "ndcg_burges")]
)
def test_unknown_name_gets_the_nearest_names(typed: str, suggestion: str) -> None:
    with pytest.raises(MeasureError, match="Unknown measure") as exc:
        parse_measures(typed)
    did_you_mean = str(exc.value).split("Did you mean ", 1)[1].split("?", 1)[0].split(", ")
    assert suggestion in did_you_mean


def test_names_differing_only_by_case_are_ambiguous(monkeypatch: pytest.MonkeyPatch) -> None:
    """When two measures differ only by case, a third spelling names both instead of guessing."""
    ap = parse_measure("AP").spec
    twin = MeasureSpec(name="Ap", summary="", formula="", kernel=ap.kernel, params=ap.params)
    monkeypatch.setitem(_spec._REGISTRY, "Ap", twin)
    assert parse_measure("Ap").name == "Ap"  # exact spellings still win
    assert parse_measure("AP").name == "AP"
    with pytest.raises(MeasureError) as exc:
        parse_measures("ap@10")
    assert str(exc.value) == (
        "Measure 'ap@10' is ambiguous: AP and Ap differ only by case; write one of them exactly."
    )


def test_no_two_measures_differ_only_by_case() -> None:
    """Case-insensitive matching is unambiguous for every registered name today."""
    seen: dict[str, str] = {}
    for spec in all_specs():
        for key in (spec.name, *spec.aliases):
            assert seen.setdefault(key.casefold(), spec.name) == spec.name, key


def test_peer_names_are_declared_once() -> None:
    spec = parse_measure("AP").spec
    with pytest.raises(ValueError, match="declared twice"):
        _spec.register(
            MeasureSpec(
                name="APTwin",
                summary="",
                formula="",
                kernel=spec.kernel,
                peers=(PeerName("ranx", "map"),),
            )
        )
    assert _spec.lookup("APTwin") is None


def test_peer_names_set_only_parameters_the_measure_has() -> None:
    spec = parse_measure("AP").spec
    with pytest.raises(ValueError, match="unknown parameter"):
        _spec.register(
            MeasureSpec(
                name="APTwin",
                summary="",
                formula="",
                kernel=spec.kernel,
                peers=(PeerName("ranx", "ap_twin", fixed=(("exp", True),)),),
            )
        )
    assert _spec.lookup("APTwin") is None
