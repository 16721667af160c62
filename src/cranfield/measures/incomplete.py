"""Measures for incomplete judgments: Bpref (three forms), GMBpref, infAP, Judged@k,
Unjudged@k, RBPResid."""

from cranfield.kernels import incomplete as k
from cranfield.kernels import ranked_variants as kv
from cranfield.measures._spec import REL, TIES, MeasureSpec, Param, PeerName, TrecForm, register

register(
    MeasureSpec(
        name="Bpref",
        aliases=("BPref",),
        peers=(PeerName("ranx", "bpref"),),
        trec=(TrecForm("bpref"),),
        kernel=k.bpref,
        params=(REL,),
        tags=frozenset({"bounded", "perfect_is_one"}),
        summary="Binary preference: how many judged non-relevant documents outrank each relevant one.",
        formula="(1/R) · Σ_{d relevant} (1 − min(nr_above(d), R) / min(N, R)), unjudged documents skipped",
        notes="N = judged non-relevant documents of the topic; a relevant document with no judged "
        "non-relevant above scores 1 (so N = 0 never divides by zero). 0 when R = 0. This is "
        "trec_eval's min(R, N) form." + " An empty list gives 0." + " " + TIES,
        citation="Buckley & Voorhees, 'Retrieval evaluation with incomplete information', SIGIR 2004.",
    )
)
register(
    MeasureSpec(
        name="BprefR",
        kernel=kv.bpref_original,
        params=(REL,),
        tags=frozenset({"bounded", "perfect_is_one"}),
        summary="bpref as first published: judged non-relevant documents above each relevant "
        "one, over R.",
        formula="(1/R) · Σ_{r relevant retrieved} (1 − min(|n ranked above r|, R) / R)",
        notes="n ranges over the judged non-relevant documents; unjudged documents are skipped. "
        "Only the first R judged non-relevant documents count (the cap keeps the value in "
        "[0, 1]). 0 when R = 0; relevant documents not retrieved add 0. Unstable when R is 1 "
        "or 2, hence Bpref10 and trec_eval's min(R, N) form (Bpref). Ties: docno descending."
        + " An empty list gives 0.",
        citation="Buckley & Voorhees, 'Retrieval evaluation with incomplete information', "
        "SIGIR 2004.",
    )
)
register(
    MeasureSpec(
        name="Bpref10",
        kernel=kv.bpref_10,
        params=(REL,),
        tags=frozenset({"bounded", "perfect_is_one"}),
        summary="bpref-10: bpref with 10 + R in place of R, for topics with few relevant documents.",
        formula="(1/R) · Σ_{r relevant retrieved} (1 − min(|n ranked above r|, 10 + R) / (10 + R))",
        notes="n ranges over the judged non-relevant documents (only the first 10 + R count); "
        "unjudged documents are skipped. 0 when R = 0. Ties: docno descending."
        + " An empty list gives 0.",
        citation="Buckley & Voorhees, SIGIR 2004.",
    )
)
register(
    MeasureSpec(
        name="GMBpref",
        trec=(TrecForm("gm_bpref"),),
        kernel=k.bpref,
        params=(REL,),
        aggregate="gmean",
        tags=frozenset({"bounded"}),
        summary="Geometric mean of bpref over topics.",
        formula="exp(mean over topics of ln(max(bpref, 0.00001)))",
        notes="R = 0 or an empty list gives bpref 0, floored at epsilon (1e-5) by the geometric mean. "
        + TIES,
        citation="trec_eval 10, m_gm_bpref.c; Buckley & Voorhees, SIGIR 2004.",
    )
)
register(
    MeasureSpec(
        name="infAP",
        trec=(TrecForm("infAP"),),
        kernel=k.inferred_ap,
        params=(REL,),
        summary="Inferred AP: AP estimated from a random sample of the judging pool.",
        formula="(1/R) · Σ_{d_j relevant} [1/(j+1) + j/(j+1) · (r−1+nr+u)/j · (r−1+ε)/(r−1+nr+2ε)]",
        notes="j is the 0-based rank, r the relevant count so far, nr and u the judged non-relevant "
        "and pooled-unjudged counts above, ε = 1e-5. Equals AP when no pooled-unjudged document "
        "(negative qrels value) is ranked above a relevant one, up to ε."
        + " 0 when R = 0 or nothing relevant is retrieved (an empty list too)."
        + " "
        + TIES,
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
        notes="0 for an empty list. Negative qrels values count as unjudged."
        + " R = 0 does not matter. Ties matter only across rank k (docno descending).",
        citation="Sakai, 'Alternatives to bpref', SIGIR 2007; ir_measures Judged@k.",
    )
)
register(
    MeasureSpec(
        name="Unjudged",
        trec=(TrecForm("unj", "cutoffs", (5, 10, 20), in_v9=False),),
        kernel=k.unjudged_at,
        at="cutoff_required",
        zero_when_missing=True,
        tags=frozenset({"bounded"}),
        summary="Fraction of the first k ranks holding unjudged documents (trec_eval unj).",
        formula="|{i <= k : d_i unjudged}| / k",
        notes="The denominator is k even for shorter lists."
        + " 0 for an empty list; R = 0 does not matter. Ties matter only across rank k (docno "
        "descending).",
        citation="trec_eval 10, m_unj.c.",
    )
)
register(
    MeasureSpec(
        name="RBPResid",
        trec=(TrecForm("rbp_resid", "gains", c_float=True, in_v9=False),),
        kernel=kv.rbp_residual_tail,
        params=(
            Param(
                "p", "float", 0.9, "persistence", minimum=0.0, exclusive_minimum=True, maximum=1.0
            ),
            Param(
                "tail",
                "bool",
                False,
                "always add the tail mass p^n (Moffat & Zobel); by default, as trec_eval 10, "
                "the residual is 0 when every retrieved document is judged",
            ),
        ),
        zero_when_missing=True,
        tags=frozenset({"bounded"}),
        summary="RBP residual: the RBP mass that unjudged documents and the unseen tail could add.",
        formula="p^n + (1 − p) · Σ_{d_i unjudged} p^(i−1), or 0 if no retrieved document is unjudged",
        notes="trec_eval 10 behaviour: when every retrieved document is judged the value is 0, "
        "not the tail mass p^n; tail=True gives Moffat & Zobel's residual p^n + (1 − p)·Σ "
        "over unjudged ranks, so RBP ≤ true RBP ≤ RBP + residual. 0 for a judged topic "
        "absent from the run (trec_eval -c). Ties: docno descending."
        + " R = 0 does not matter. An empty list: 0, or 1 (= p^0) with tail=True.",
        citation="Moffat & Zobel, ACM TOIS 27(1), 2008.",
    )
)
