"""Set (unranked) measures on the contingency table: SetP, SetR, SetF, SetAP, SetFallout,
SetE, SetAccuracy, Utility.

Every measure here except Utility is a formula of the per-topic contingency table
(:mod:`cranfield.kernels.contingency`), over the whole retrieved list or, with ``@k``,
over its first k documents; the same formula on counts pooled over topics is the micro
average (``evaluate(..., aggregate="micro")``).
"""

from cranfield.kernels import contingency as c
from cranfield.kernels import sets as k
from cranfield.measures._spec import REL, MeasureSpec, Param, PeerName, TrecForm, register

SET_NOTES = (
    "With @k only the first k retrieved documents form the set (a list shorter than k is "
    "not padded). Ties in score do not matter to a set measure unless they straddle rank "
    "k (then trec_eval's docno order decides). A judged topic absent from the run "
    "(missing='zero') is an empty set. Micro-averaging pools a, b, c, d over topics "
    "(evaluate(..., aggregate='micro'))."
)
UNIVERSE_NOTES = (
    " d needs the collection size: evaluate(num_docs=N) (trec_eval -N); when it is not "
    "given, the collection of a topic is its judged documents plus its retrieved unjudged "
    "documents, so d = judged non-relevant documents not retrieved."
)
VAN_RIJSBERGEN = "van Rijsbergen, Information Retrieval, 2nd ed., Butterworths 1979, ch. 7."
IIR = "Manning, Raghavan & Schütze, Introduction to Information Retrieval, CUP 2008, §8.3."
SET = frozenset({"bounded", "set"})


register(
    MeasureSpec(
        name="SetP",
        trec=(TrecForm("set_P"), TrecForm("set_relative_P", fixed=(("relative", True),))),
        kernel=c.set_kernel(c.precision),
        micro=c.set_micro(c.precision),
        params=(
            REL,
            Param(
                "relative",
                "bool",
                False,
                "divide by min(n, R) instead of n (trec_eval set_relative_P)",
            ),
        ),
        at="cutoff",
        tags=SET,
        summary="Precision of the retrieved set: the fraction of retrieved documents that are relevant.",
        formula="a / (a + b) = |Rel ∩ Ret| / |Ret|   (relative: a / min(a + b, R))",
        notes="0 when nothing is retrieved (undefined in the texts) and, relative, when R = 0. "
        + SET_NOTES,
        citation=IIR,
    )
)
register(
    MeasureSpec(
        name="SetR",
        trec=(TrecForm("set_recall"),),
        kernel=c.set_kernel(c.recall),
        micro=c.set_micro(c.recall),
        params=(REL,),
        at="cutoff",
        tags=SET,
        summary="Recall of the retrieved set: the fraction of relevant documents retrieved.",
        formula="a / (a + c) = |Rel ∩ Ret| / |Rel|",
        notes="0 when R = 0 (undefined in the texts). " + SET_NOTES,
        citation=IIR,
    )
)
register(
    MeasureSpec(
        name="SetAP",
        trec=(TrecForm("set_map"),),
        kernel=c.set_kernel(c.set_average_precision),
        micro=c.set_micro(c.set_average_precision),
        params=(REL,),
        at="cutoff",
        tags=SET,
        summary="Set precision times set recall (trec_eval set_map).",
        formula="P·R = a² / ((a + b)(a + c))",
        notes="0 when nothing is retrieved or R = 0. " + SET_NOTES,
        citation="trec_eval 10, m_set_map.c.",
    )
)
register(
    MeasureSpec(
        name="SetF",
        aliases=("F",),
        peers=(
            PeerName(
                "ranx",
                "f1",
                at_differs="its precision divides by k even when fewer than k documents are "
                "retrieved, SetF@k by the documents retrieved (the two differ for short lists)",
            ),
        ),
        trec=(TrecForm("set_F", "beta_squared"),),
        kernel=c.set_kernel(c.f_beta),
        micro=c.set_micro(c.f_beta),
        params=(
            REL,
            Param("beta", "float", 1.0, "weight of recall relative to precision", minimum=0.0),
            Param(
                "alpha",
                "float",
                None,
                "weight of precision in the α form 1/(α/P + (1−α)/R); sets β² = (1−α)/α",
                minimum=0.0,
                exclusive_minimum=True,
                maximum=1.0,
            ),
        ),
        at="cutoff",
        tags=SET,
        summary="F-measure of the retrieved set: weighted harmonic mean of precision and recall.",
        formula="F_β = (1 + β²)·P·R / (β²·P + R) = 1 / (α/P + (1 − α)/R), β² = (1 − α)/α",
        notes="β > 1 favours recall, β < 1 precision; β = 1 (α = 1/2) is F1, β = 0 (α = 1) is P. "
        "Give beta or alpha, not both (evaluation raises MeasureError). 0 when nothing relevant "
        "is retrieved (a = 0), which also covers R = 0 and an empty set. trec_eval's set_F "
        "parameter is β², so trec_eval 'set_F.0.5' is SetF(beta=0.7071…). " + SET_NOTES,
        citation=VAN_RIJSBERGEN,
    )
)
register(
    MeasureSpec(
        name="SetFallout",
        aliases=("Fallout",),
        kernel=c.set_kernel(c.fallout, universe=True),
        micro=c.set_micro(c.fallout, universe=True),
        params=(REL,),
        at="cutoff",
        tags=SET,
        summary="Fallout: the fraction of non-relevant documents that are retrieved (false positive rate).",
        formula="b / (b + d)",
        notes="0 when the collection holds no non-relevant document."
        + UNIVERSE_NOTES
        + " "
        + SET_NOTES
        + " With R = 0 every retrieved document is non-relevant.",
        citation=IIR,
    )
)
register(
    MeasureSpec(
        name="SetE",
        aliases=("EMeasure",),
        kernel=c.set_kernel(c.e_measure),
        micro=c.set_micro(c.e_measure),
        params=(
            REL,
            Param("b", "float", 1.0, "relative importance of recall over precision", minimum=0.0),
        ),
        at="cutoff",
        tags=SET,
        summary="van Rijsbergen's effectiveness measure E = 1 − F_b (lower is better).",
        formula="E_b = 1 − (1 + b²)·P·R / (b²·P + R)",
        notes="b = 1 is the complement of F1; b > 1 weighs recall more, b < 1 precision (seed 002). "
        "Seed 004 writes E = 1 − (1 + b²)/(b²/P + 1/R), where b weighs precision: its E(b) is "
        "SetE(b=1/b). 1 when nothing relevant is retrieved (a = 0). "
        + SET_NOTES
        + " R = 0 gives 1 (a = 0).",
        citation=VAN_RIJSBERGEN,
    )
)
register(
    MeasureSpec(
        name="SetAccuracy",
        kernel=c.set_kernel(c.accuracy, universe=True),
        micro=c.set_micro(c.accuracy, universe=True),
        params=(REL,),
        at="cutoff",
        tags=SET,
        summary="Accuracy of the retrieve/reject decisions (misleading in IR: see notes).",
        formula="(a + d) / (a + b + c + d)",
        notes="Relevant documents are a tiny share of a collection, so a system that returns "
        "nothing scores close to 1 (seed 004: 18 relevant of 20 returned, 82 missed, 10⁹ "
        "others gives 0.99999992, and returning nothing gives 0.9999999); users want some "
        "relevant documents and tolerate non-relevant ones, so IR reports P, R and F instead."
        + UNIVERSE_NOTES
        + " 0 for an empty universe. "
        + SET_NOTES
        + " R = 0 gives d/N: the share of documents not retrieved.",
        citation=IIR,
    )
)
register(
    MeasureSpec(
        name="Utility",
        trec=(TrecForm("utility", "coefficients"),),
        kernel=k.utility,
        zero_when_missing=True,
        params=(
            REL,
            Param("a", "float", 1.0, "gain per relevant retrieved document"),
            Param("b", "float", -1.0, "gain per non-relevant retrieved document"),
            Param("c", "float", 0.0, "gain per relevant document not retrieved"),
            Param("d", "float", 0.0, "gain per non-relevant document not retrieved"),
        ),
        summary="Linear utility of the retrieved set (TREC filtering): a·R⁺ + b·N⁺ + c·R⁻ + d·N⁻.",
        formula="a·TP + b·FP + c·FN + d·TN, TN = N + TP − n − R with N the collection size",
        notes="N is evaluate(num_docs=...) (trec_eval -N), 0 by default as in trec_eval, so TN "
        "is then negative; give num_docs when d ≠ 0. Unbounded. 0 for a judged topic absent "
        "from the run (trec_eval -c). T11U is Utility(a=2,b=-1)."
        + " R = 0 leaves b·n (+ d·TN); an empty list gives c·R (+ d·TN). Ties do not matter (whole "
        "list).",
        citation="Hull & Robertson, 'The TREC-8 filtering track final report', TREC 1999.",
    )
)
