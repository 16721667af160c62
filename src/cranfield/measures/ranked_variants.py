"""Ranked measures the textbooks define beyond trec_eval: AP_min, AP_ret, IntPrec, AP11, ERR."""

from cranfield.kernels import ranked_variants as k
from cranfield.measures._spec import REL, MeasureSpec, Param, register

ELEVEN = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
TIES = (
    "Tied scores are ordered by docno descending (trec_eval), so a tie between a relevant "
    "and a non-relevant document is decided by their ids."
)

register(
    MeasureSpec(
        name="AP_min",
        kernel=k.ap_min,
        params=(REL,),
        at="cutoff",
        tags=frozenset({"bounded", "perfect_is_one"}),
        summary="AP@k normalised by min(k, R): a ranking that fills the first k ranks with "
        "relevant documents scores 1.",
        formula="AP_min@k = (1/min(k, R)) · Σ_{i<=k, d_i relevant} P@i",
        notes="Seed 000's AP₁@k (Webis lecture) and ml_metrics' apk. Without @ it is AP (map). "
        "With k >= max(n, R) it equals AP. 0 when R = 0 or nothing relevant is in the first "
        "k; a relevant document not found contributes 0. " + TIES,
        citation="Potthast et al., Webis lecture notes IR:VIII 'Evaluation' (seed 000); "
        "Manning, Raghavan & Schütze, IIR 2008, §8.4.",
    )
)
register(
    MeasureSpec(
        name="AP_ret",
        kernel=k.ap_retrieved,
        params=(REL,),
        at="cutoff",
        tags=frozenset({"bounded", "perfect_is_one"}),
        summary="AP over the retrieved relevant documents only (ignores recall).",
        formula="AP_ret@k = (1/rr(k)) · Σ_{i<=k, d_i relevant} P@i",
        notes="Seed 004's 'AP computed only over the returned relevant documents': it favours "
        "systems that return a few relevant documents early and does not consider recall. "
        "0 when nothing relevant is retrieved (also R = 0 and an empty list). " + TIES,
        citation="Zhang Rong, ECNU lecture 'Retrieval evaluation' (seed 004).",
    )
)
register(
    MeasureSpec(
        name="IntPrec",
        kernel=k.interpolated_precision_at,
        params=(REL,),
        at="recall_required",
        tags=frozenset({"bounded", "perfect_is_one"}),
        summary="Interpolated precision at a recall level, recall compared exactly (textbook).",
        formula="IntPrec@p = max{P@j : rr(j)/R >= p}, 0 if recall p is never reached",
        notes="The textbook rule (Salton & McGill; seeds 000, 002, 004): for R = 3 the levels "
        "0.4–0.6 take the precision at the 2nd relevant document. trec_eval's IPrec instead "
        "rounds p·R to a count (lround), so IPrec@0.4 with R = 3 looks at the 1st. p = 0 is the "
        "best precision anywhere. 0 when R = 0, for an empty list, or if nothing relevant is "
        "retrieved. " + TIES,
        citation="Salton & McGill, Introduction to Modern Information Retrieval, 1983; "
        "Manning, Raghavan & Schütze, IIR 2008, §8.4.",
    )
)
register(
    MeasureSpec(
        name="AP11",
        aliases=("InterpAP",),
        kernel=k.interpolated_ap,
        params=(
            REL,
            Param("levels", "levels", ELEVEN, "recall levels averaged over"),
        ),
        tags=frozenset({"bounded", "perfect_is_one"}),
        summary="11-point interpolated average precision (textbook exact-recall rule).",
        formula="AP11 = (1/11) · Σ_{p in 0, 0.1, …, 1} IntPrec@p",
        notes="Seed 000's AP₂ and seed 004's 11-point average. Differs from trec_eval's "
        "11pt_avg (IPrecAvg), which rounds p·R. 0 when R = 0 or nothing relevant is "
        "retrieved. " + TIES,
        citation="Salton & McGill, Introduction to Modern Information Retrieval, 1983.",
    )
)
register(
    MeasureSpec(
        name="ERR",
        kernel=k.err,
        params=(
            Param(
                "max_level",
                "int",
                4,
                "highest relevance grade of the scale; stop probability (2^g − 1)/2^max_level",
                minimum=1,
            ),
        ),
        at="cutoff",
        tags=frozenset({"bounded"}),
        summary="Expected reciprocal rank: a cascade user stops at rank i with probability R_i.",
        formula="ERR@k = Σ_{i<=k} (1/i) · R_i · Π_{j<i} (1 − R_j),  R_i = (2^g_i − 1) / 2^max_level",
        notes="g is the judged level clipped to [0, max_level]; unjudged documents stop no one. "
        "max_level = 4 as gdeval.pl (TREC Web). Graded; no relevance threshold. 0 for an empty "
        "list or when nothing relevant is retrieved; never reaches 1 (R_i < 1). R = 0 gives 0. "
        + TIES,
        citation="Chapelle, Metzler, Zhang & Grinspan, 'Expected reciprocal rank for graded "
        "relevance', CIKM 2009.",
    )
)
