"""Precision- and recall-oriented ranked measures: P@k, R@k, RelP@k, Success@k, Hits@k, Rprec,
IPrec."""

from cranfield.kernels import binary as k
from cranfield.measures._spec import (
    REL,
    TIES,
    TREC_CUTOFFS,
    TREC_MULTIPLIERS,
    TREC_RECALL_LEVELS,
    MeasureSpec,
    Param,
    PeerName,
    TrecForm,
    register,
)

BOUNDED = frozenset({"bounded"})

register(
    MeasureSpec(
        name="P",
        aliases=("Precision",),
        peers=(PeerName("ranx", "precision"),),
        trec=(TrecForm("P", "cutoffs", TREC_CUTOFFS),),
        kernel=k.precision,
        params=(REL,),
        at="cutoff_required",
        tags=BOUNDED,
        summary="Precision at cutoff k.",
        formula="P@k = rr(k) / k, rr(k) = relevant documents among the first k",
        notes="A list shorter than k is padded with non-relevant documents (trec_eval), so the "
        "denominator is always k." + " R = 0 and an empty list give 0." + " " + TIES,
        citation="Manning, Raghavan & Schütze, Introduction to IR, 2008, §8.4.",
    )
)
register(
    MeasureSpec(
        name="R",
        aliases=("Recall",),
        peers=(PeerName("ranx", "recall"),),
        trec=(TrecForm("recall", "cutoffs", TREC_CUTOFFS),),
        kernel=k.recall,
        params=(REL,),
        at="cutoff",
        tags=BOUNDED,
        summary="Recall at cutoff k (whole list without @).",
        formula="R@k = rr(k) / R",
        notes="0 when the topic has no relevant document (R = 0)."
        + " An empty list gives 0."
        + " "
        + TIES,
        citation="Manning, Raghavan & Schütze, Introduction to IR, 2008, §8.3.",
    )
)
register(
    MeasureSpec(
        name="RelP",
        trec=(TrecForm("relative_P", "cutoffs", TREC_CUTOFFS),),
        kernel=k.relative_precision,
        params=(REL,),
        at="cutoff_required",
        tags=BOUNDED | {"perfect_is_one"},
        summary="Relative precision at k: precision normalised by the best achievable.",
        formula="RelP@k = rr(k) / min(k, R)",
        notes="0 when R = 0." + " An empty list gives 0." + " " + TIES,
        citation="trec_eval 10, m_relative_P.c.",
    )
)
register(
    MeasureSpec(
        name="Success",
        aliases=("Hit",),
        peers=(PeerName("ranx", "hit_rate"),),
        trec=(TrecForm("success", "cutoffs", (1, 5, 10)),),
        kernel=k.success,
        params=(REL,),
        at="cutoff_required",
        tags=BOUNDED | {"perfect_is_one"},
        summary="1 if a relevant document is among the first k, else 0 (success@k, hit@k).",
        formula="Success@k = [rr(k) > 0]",
        notes="0 when R = 0 or for an empty list. " + TIES,
        citation="trec_eval 10, m_success.c; ir_measures Success@k.",
    )
)
register(
    MeasureSpec(
        name="Hits",
        peers=(PeerName("ranx", "hits"),),
        kernel=k.hits,
        params=(REL,),
        at="cutoff",
        summary="The number of relevant documents among the first k (whole list without @).",
        formula="Hits@k = rr(k)",
        notes="Averaged over queries like every measure here (ranx's hits); NumRelRet is the "
        "same count over the whole list, summed over queries as trec_eval does. 0 when R = 0 "
        "or for an empty list. " + TIES,
        citation="ranx, 'hits'; Bassani, 'ranx: A blazing-fast Python library for ranking "
        "evaluation and comparison', ECIR 2022.",
    )
)
register(
    MeasureSpec(
        name="Rprec",
        aliases=("RPrec", "R-Precision", "BEP", "BreakEven"),
        peers=(PeerName("ranx", "r_precision"),),
        trec=(TrecForm("Rprec"), TrecForm("Rprec_mult", "multipliers", TREC_MULTIPLIERS)),
        kernel=k.r_precision,
        params=(
            REL,
            Param(
                "mult",
                "float",
                1.0,
                "multiple m of R used as the cutoff (trec_eval Rprec_mult)",
                minimum=0.0,
            ),
        ),
        tags=BOUNDED,
        summary="R-precision: precision at rank R (or at m·R with mult=m).",
        formula="Rprec = rr(R) / R; with mult=m: c = trunc(m·R + 0.9), value rr(min(c, n)) / c",
        notes="0 when R = 0. The trunc(m·R + 0.9) rounding is trec_eval's Rprec_mult rule. "
        "Rprec is also the precision/recall break-even point (BEP): P@k = rr(k)/k equals "
        "R@k = rr(k)/R exactly at k = R (or where nothing relevant is found yet), so the "
        "curve's P = R point is P@R. A list shorter than R counts as padded with non-relevant "
        "documents. Ties: docno descending.",
        citation="Buckley & Voorhees, 'Evaluating evaluation measure stability', SIGIR 2000.",
    )
)
register(
    MeasureSpec(
        name="IPrec",
        trec=(TrecForm("iprec_at_recall", "recall_levels", TREC_RECALL_LEVELS),),
        kernel=lambda ctx, *, rel, levels: k.interpolated_precision(ctx, rel=rel, levels=levels)[0],
        params=(REL,),
        at="recall_required",
        tags=BOUNDED,
        summary="Interpolated precision at a recall level (a point of the 11-point PR curve).",
        formula="IPrec@p = max{P@i : i >= rank of the c-th relevant document}, c = round(p·R)",
        notes="c = lround(p·R) (half away from zero) as trec_eval 10; trec_eval 9 used "
        "trunc(p·R + 0.9) (compat=9). 0 if fewer than c relevant documents are retrieved; for c = 0 "
        "the highest precision anywhere in the list, and NaN for an empty list (as trec_eval)."
        + " 0 when R = 0."
        + " "
        + TIES,
        citation="Manning, Raghavan & Schütze, Introduction to IR, 2008, §8.4.",
    )
)
register(
    MeasureSpec(
        name="IPrecAvg",
        aliases=("11pt_AP",),
        trec=(TrecForm("11pt_avg", "recall_list"),),
        kernel=k.interpolated_precision_avg,
        params=(
            REL,
            Param(
                "levels",
                "levels",
                (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
                "recall levels averaged over",
            ),
        ),
        tags=BOUNDED,
        summary="Mean interpolated precision over recall levels (11-point average by default).",
        formula="mean over p in levels of IPrec@p",
        notes="NaN for an empty list (IPrec@0 is NaN there)." + " 0 when R = 0." + " " + TIES,
        citation="Salton & McGill, Introduction to Modern IR, 1983.",
    )
)
