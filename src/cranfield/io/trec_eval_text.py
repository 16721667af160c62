"""trec_eval's text output format: ``%-22s\\t%s\\t%6.4f`` lines.

This is the file format ``trec_eval`` writes (one ``label<TAB>query<TAB>value`` line per
measure and query), so both ``Results.to_trec_eval`` and the ``trec-eval`` command write
through it. Which label a measure prints under is the measures' business
(:func:`cranfield.measures.trec_names.trec_eval_label`); this module only formats.
"""

from __future__ import annotations

import math

__all__ = ["format_line", "format_value"]


def format_value(value: float, *, integer: bool = False) -> str:
    """``%6.4f`` (or ``%ld`` after truncation for counts), NaN as C prints it.

    Examples
    --------
    >>> format_value(0.5), format_value(3.0, integer=True), format_value(float("nan"))
    ('0.5000', '3', '   nan')
    """
    if math.isnan(value):
        return "  -nan" if math.copysign(1.0, value) < 0 else "   nan"
    if integer:
        return "%d" % int(value)  # noqa: UP031 - C printf semantics on purpose
    return "%6.4f" % value  # noqa: UP031


def format_line(label: str, qid: str, value: float | str, *, integer: bool = False) -> str:
    """One output line without its newline: the label padded to 22, the query, the value.

    A string value (the run tag, a relevance string) is printed as it is.

    Examples
    --------
    >>> format_line("map", "all", 0.25)
    'map                   \\tall\\t0.2500'
    """
    shown = value if isinstance(value, str) else format_value(value, integer=integer)
    return "%-22s\t%s\t%s" % (label, qid, shown)  # noqa: UP031
