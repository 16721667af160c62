"""Every measure is documented from its single declaration: formula, parameters, edge cases
(R = 0, nothing retrieved, ties) and a citation, all printed by ``cranfield measures``."""

from __future__ import annotations

import io

import pytest

from cranfield.cli.commands import main
from cranfield.measures import MeasureSpec, all_specs

SPECS = all_specs()


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_measure_documents_formula_edge_cases_and_citation(spec: MeasureSpec) -> None:
    assert spec.summary
    assert spec.formula
    assert spec.citation, f"{spec.name} has no citation"
    notes = spec.notes
    assert "R = 0" in notes, f"{spec.name}: the R = 0 case is not documented"
    assert "empty" in notes or "nothing" in notes, f"{spec.name}: the empty list is not documented"
    assert "tie" in notes.lower(), f"{spec.name}: ties are not documented"
    for p in spec.params:
        assert p.doc, f"{spec.name}.{p.name} has no description"


def test_cranfield_measures_prints_every_measure() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["measures"], out, err) == 0
    text = out.getvalue()
    for spec in SPECS:
        assert f"\n{spec.name}" in "\n" + text, spec.name
        assert spec.formula in text
        assert spec.citation in text


@pytest.mark.parametrize(
    "name",
    [
        "SetFallout",
        "SetE",
        "SetAccuracy",
        "AP_min",
        "AP_ret",
        "IntPrec",
        "AP11",
        "ERR",
        "nDCGx",
        "CG",
        "nCG",
        "BprefR",
        "Bpref10",
        "Coverage",
        "Novelty",
        "RelRecall",
        "RecallEffect",
        "T11U",
        "T11SU",
        "T11F",
        "alpha_nDCG",
        "BEP",
    ],
)
def test_cranfield_measures_explains_one_measure(name: str) -> None:
    out = io.StringIO()
    assert main(["measures", name], out, io.StringIO()) == 0
    assert "formula:" in out.getvalue()
    assert "cite:" in out.getvalue()


def test_accuracy_explains_why_it_misleads() -> None:
    (spec,) = [s for s in SPECS if s.name == "SetAccuracy"]
    assert "returns nothing" in spec.notes
    assert "0.9999999" in spec.notes


def test_dcg_family_documents_which_peer_uses_which() -> None:
    from cranfield.measures import dcg_variants

    doc = dcg_variants.__doc__ or ""
    for peer in (
        "trec_eval",
        "ir_measures",
        "ranx",
        "gdeval",
        "scikit-learn",
        "TorchMetrics",
        "Järvelin",
    ):
        assert peer in doc
