"""trec_eval's text format: ``%-22s\\t%s\\t%6.4f`` lines."""

from __future__ import annotations

import math

from cranfield.measures._spec import Measure


def format_value(value: float, *, integer: bool = False) -> str:
    """``%6.4f`` (or ``%ld`` after truncation for counts), NaN as C prints it (``  -nan``/``   nan``)."""
    if math.isnan(value):
        return "  -nan" if math.copysign(1.0, value) < 0 else "   nan"
    if integer:
        return "%d" % int(value)  # noqa: UP031 - C printf semantics on purpose
    return "%6.4f" % value  # noqa: UP031


def format_line(label: str, qid: str, value: float | str, *, integer: bool = False) -> str:
    shown = value if isinstance(value, str) else format_value(value, integer=integer)
    return "%-22s\t%s\t%s" % (label, qid, shown)  # noqa: UP031


def label_for(measure: Measure) -> str:
    """trec_eval's output name of a native measure if it has one, else its canonical name.

    Only measures with no explicit parameter get a trec_eval name (``P@5`` prints as
    ``P_5``; ``P(rel=2)@5`` keeps its canonical name, so two measures never share a label).
    """
    spec = measure.spec
    params = dict(measure.params)
    if spec.trec_name is None:
        return str(measure)
    if spec.name == "Rprec" and set(params) == {"mult"}:
        return f"Rprec_mult_{params['mult']:3.2f}"
    if spec.name == "SetP" and params == {"relative": True}:
        return "set_relative_P"
    if params:
        return str(measure)
    if spec.at in ("cutoff", "cutoff_required") and measure.at is not None:
        name = {"AP": "map_cut", "nDCG": "ndcg_cut"}.get(spec.name, spec.trec_name)
        return f"{name}_{measure.at}"
    if spec.at == "recall_required" and measure.at is not None:
        return f"{spec.trec_name}_{measure.at:3.2f}"
    return spec.trec_name
