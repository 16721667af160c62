"""Measure parameters and extra inputs: names kept in trec_eval's text, parameters refused
together or out of range, the collection size, and the inputs (``needs``) a measure declares."""

from __future__ import annotations

import pytest

import cranfield
from cranfield.errors import EvaluationError, MeasureError
from tests.conftest import one_sentence

QRELS = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 1}}
RUN = {"1": {"a": 3.0, "b": 2.0, "x": 1.0}, "2": {"e": 1.0, "y": 0.5}}


def test_set_measure_with_cutoff_keeps_its_name_in_trec_eval_text() -> None:
    res = cranfield.evaluate(QRELS, RUN, ["SetP", "SetP@2", "P@2"])
    text = res.to_trec_eval()
    assert "set_P " in text
    assert "SetP@2" in text
    assert "P_2 " in text


def test_setf_alpha_and_beta_together_are_refused() -> None:
    with pytest.raises(MeasureError, match="beta or alpha") as exc:
        cranfield.evaluate(QRELS, RUN, ["SetF(alpha=0.5,beta=2)"])
    one_sentence(exc)


def test_alpha_ndcg_alpha_above_one_is_refused() -> None:
    intents = {"1": {"s1": {"a": 1}}}
    with pytest.raises(MeasureError, match="must be <= 1") as exc:
        cranfield.evaluate(QRELS, RUN, ["alpha_nDCG(alpha=2)"], intents=intents)
    one_sentence(exc)


def test_collection_size_smaller_than_the_documents_is_an_error() -> None:
    with pytest.raises(EvaluationError, match="collection size") as exc:
        cranfield.evaluate(QRELS, RUN, ["SetFallout"], num_docs=2)
    one_sentence(exc)


def test_needs_are_declared_and_enforced() -> None:
    from cranfield.measures import all_specs

    needs = {s.name: s.needs for s in all_specs() if s.needs}
    assert needs == {
        "Coverage": {"known"},
        "Novelty": {"known"},
        "RelRecall": {"known"},
        "RecallEffect": {"known"},
        "alpha_nDCG": {"intents"},
        **{
            name: {"intents"}
            for name in ("ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA", "AP_IA", "StRecall")
        },
    }
    for name in ("alpha_nDCG@5", "ERR_IA@5", "NRBP", "AP_IA", "StRecall@5"):
        with pytest.raises(EvaluationError, match="intents") as exc:
            cranfield.evaluate(QRELS, RUN, [name])
        one_sentence(exc)


@pytest.mark.parametrize("name", ["ERR_IA(alpha=2)@5", "nERR_IA(alpha=2)@5", "NRBP(alpha=2)"])
def test_ndeval_family_alpha_above_one_is_refused(name: str) -> None:
    intents = {"1": {"s1": {"a": 1}}}
    with pytest.raises(MeasureError, match="must be <= 1") as exc:
        cranfield.evaluate(QRELS, RUN, [name], intents=intents)
    one_sentence(exc)
