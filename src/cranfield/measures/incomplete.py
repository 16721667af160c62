"""Measures for incomplete judgments: Bpref, GMBpref, infAP, Judged@k, Unjudged@k, RBPResid."""

from cranfield.kernels import incomplete as k
from cranfield.measures._spec import REL, MeasureSpec, Param, register

register(
    MeasureSpec(
        name="Bpref",
        aliases=("BPref",),
        trec_name="bpref",
        kernel=k.bpref,
        params=(REL,),
        tags=frozenset({"bounded", "perfect_is_one"}),
        summary="Binary preference: how many judged non-relevant documents outrank each relevant one.",
        formula="(1/R) · Σ_{d relevant} (1 − min(nr_above(d), R) / min(N, R)), unjudged documents skipped",
        notes="N = judged non-relevant documents of the topic; a relevant document with no judged "
        "non-relevant above scores 1 (so N = 0 never divides by zero). 0 when R = 0. This is "
        "trec_eval's min(R, N) form.",
        citation="Buckley & Voorhees, 'Retrieval evaluation with incomplete information', SIGIR 2004.",
    )
)
register(
    MeasureSpec(
        name="GMBpref",
        trec_name="gm_bpref",
        kernel=k.bpref,
        params=(REL,),
        aggregate="gmean",
        tags=frozenset({"bounded"}),
        summary="Geometric mean of bpref over topics.",
        formula="exp(mean over topics of ln(max(bpref, 0.00001)))",
    )
)
register(
    MeasureSpec(
        name="infAP",
        trec_name="infAP",
        kernel=k.inferred_ap,
        params=(REL,),
        summary="Inferred AP: AP estimated from a random sample of the judging pool.",
        formula="(1/R) · Σ_{d_j relevant} [1/(j+1) + j/(j+1) · (r−1+nr+u)/j · (r−1+ε)/(r−1+nr+2ε)]",
        notes="j is the 0-based rank, r the relevant count so far, nr and u the judged non-relevant "
        "and pooled-unjudged counts above, ε = 1e-5. Equals AP when no pooled-unjudged document "
        "(negative qrels value) is ranked above a relevant one, up to ε.",
        citation="Yilmaz & Aslam, 'Estimating average precision with incomplete and imperfect "
        "judgments', CIKM 2006.",
    )
)
register(
    MeasureSpec(
        name="Judged",
        kernel=k.judged_at,
        at="cutoff",
        tags=frozenset({"bounded"}),
        summary="Fraction of the top k retrieved documents that are judged.",
        formula="|{i <= min(k, n) : d_i judged}| / min(k, n)",
        notes="0 for an empty list. Negative qrels values count as unjudged.",
        citation="Sakai, 'Alternatives to bpref', SIGIR 2007; ir_measures Judged@k.",
    )
)
register(
    MeasureSpec(
        name="Unjudged",
        trec_name="unj",
        kernel=k.unjudged_at,
        at="cutoff_required",
        zero_when_missing=True,
        tags=frozenset({"bounded"}),
        summary="Fraction of the first k ranks holding unjudged documents (trec_eval unj).",
        formula="|{i <= k : d_i unjudged}| / k",
        notes="The denominator is k even for shorter lists.",
    )
)
register(
    MeasureSpec(
        name="RBPResid",
        trec_name="rbp_resid",
        kernel=k.rbp_residual,
        params=(
            Param(
                "p", "float", 0.9, "persistence", minimum=0.0, exclusive_minimum=True, maximum=1.0
            ),
        ),
        zero_when_missing=True,
        tags=frozenset({"bounded"}),
        summary="RBP residual: the RBP mass that unjudged documents and the unseen tail could add.",
        formula="p^n + (1 − p) · Σ_{d_i unjudged} p^(i−1), or 0 if no retrieved document is unjudged",
        notes="trec_eval 10 behaviour: when every retrieved document is judged the value is 0, "
        "not the tail mass p^n.",
        citation="Moffat & Zobel, ACM TOIS 27(1), 2008.",
    )
)
