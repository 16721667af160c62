"""Set (unranked) measures over the whole retrieved list: SetP, SetR, SetAP, SetF, Utility."""

from cranfield.kernels import binary as kb
from cranfield.kernels import sets as k
from cranfield.measures._spec import REL, MeasureSpec, Param, register

register(
    MeasureSpec(
        name="SetP",
        trec_name="set_P",
        kernel=k.set_precision,
        params=(
            REL,
            Param(
                "relative",
                "bool",
                False,
                "divide by min(n, R) instead of n (trec_eval set_relative_P)",
            ),
        ),
        tags=frozenset({"bounded"}),
        summary="Precision of the retrieved set.",
        formula="rr(n) / n  (relative: rr(n) / min(n, R))",
        notes="0 for an empty list (and, relative, when R = 0).",
    )
)
register(
    MeasureSpec(
        name="SetR",
        trec_name="set_recall",
        kernel=kb.set_recall,
        params=(REL,),
        tags=frozenset({"bounded"}),
        summary="Recall of the retrieved set.",
        formula="rr(n) / R",
        notes="0 when R = 0.",
    )
)
register(
    MeasureSpec(
        name="SetAP",
        trec_name="set_map",
        kernel=k.set_average_precision,
        params=(REL,),
        tags=frozenset({"bounded"}),
        summary="Set precision times set recall (trec_eval set_map).",
        formula="rr(n)² / (n · R)",
    )
)
register(
    MeasureSpec(
        name="SetF",
        trec_name="set_F",
        kernel=k.set_f,
        params=(
            REL,
            Param("beta", "float", 1.0, "weight of recall relative to precision", minimum=0.0),
        ),
        tags=frozenset({"bounded"}),
        summary="F-measure of the retrieved set.",
        formula="F_β = (1 + β²)·P·R / (β²·P + R)",
        notes="0 when nothing relevant is retrieved. trec_eval's set_F parameter is β², so "
        "trec_eval 'set_F.0.5' is SetF(beta=0.7071…).",
        citation="van Rijsbergen, Information Retrieval, 2nd ed., 1979, ch. 7.",
    )
)
register(
    MeasureSpec(
        name="Utility",
        trec_name="utility",
        kernel=k.utility,
        zero_when_missing=True,
        params=(
            REL,
            Param("a", "float", 1.0, "gain per relevant retrieved document"),
            Param("b", "float", -1.0, "gain per non-relevant retrieved document"),
            Param("c", "float", 0.0, "gain per relevant document not retrieved"),
            Param("d", "float", 0.0, "gain per non-relevant document not retrieved"),
        ),
        summary="Linear utility of the retrieved set (TREC filtering).",
        formula="a·TP + b·FP + c·FN + d·TN, TN = N + TP − n − R with N the collection size",
        notes="N is evaluate(num_docs=...) (trec_eval -N), 0 by default as in trec_eval.",
        citation="Hull & Robertson, 'The TREC-8 filtering track final report', 1999.",
    )
)
