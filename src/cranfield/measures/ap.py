"""Average-precision family: AP (MAP), GMAP, RR, binG, YAAP."""

from cranfield.kernels import binary as k
from cranfield.measures._spec import (
    REL,
    TIES,
    TREC_CUTOFFS,
    MeasureSpec,
    PeerName,
    TrecForm,
    register,
)

BOUNDED = frozenset({"bounded", "perfect_is_one"})

register(
    MeasureSpec(
        name="AP",
        aliases=("MAP",),
        peers=(PeerName("ranx", "map"),),
        trec=(TrecForm("map"), TrecForm("map_cut", "cutoffs", TREC_CUTOFFS)),
        kernel=k.average_precision,
        params=(REL,),
        at="cutoff",
        tags=BOUNDED,
        summary="Average precision (non-interpolated), normalised by R; AP@k stops at rank k.",
        formula="AP@k = (1/R) · Σ_{i<=k, d_i relevant} rr(i)/i",
        notes="The denominator is the full R even with a cutoff (trec_eval map_cut). "
        "0 when R = 0 or nothing relevant is retrieved." + " " + TIES,
        citation="Buckley & Voorhees, 'Retrieval system evaluation', in TREC, MIT Press 2005.",
    )
)
register(
    MeasureSpec(
        name="GMAP",
        trec=(TrecForm("gm_map"),),
        kernel=k.average_precision,
        params=(REL,),
        at="none",
        aggregate="gmean",
        tags=frozenset({"bounded"}),
        summary="Geometric mean of AP over topics.",
        formula="exp(mean over topics of ln(max(AP, 0.00001)))",
        notes="Per topic the stored value is AP; the aggregate clamps at 1e-5 before the log."
        + " A topic with R = 0 or nothing relevant retrieved has AP 0, which the geometric mean "
        "floors at epsilon (evaluate(epsilon=...), 1e-5 as trec_eval); an empty list likewise."
        + " "
        + TIES,
        citation="Robertson, 'On GMAP', CIKM 2006.",
    )
)
register(
    MeasureSpec(
        name="RR",
        aliases=("MRR", "RecipRank"),
        peers=(PeerName("ranx", "mrr"),),
        trec=(TrecForm("recip_rank"),),
        kernel=k.reciprocal_rank,
        params=(REL,),
        at="cutoff",
        tags=BOUNDED,
        summary="Reciprocal rank of the first relevant document (mean: MRR).",
        formula="RR@k = 1 / rank of the first relevant document within k (0 if none)",
        citation="Voorhees, 'The TREC-8 question answering track report', 1999.",
        notes="0 when nothing relevant is retrieved within k, which covers R = 0 and an empty list. "
        + TIES
        + (
            " The mean (MRR) treats an ordinal scale as an interval one (Fuhr 2017); "
            "evaluate(aggregate='median') gives the median RR."
        ),
    )
)
register(
    MeasureSpec(
        name="binG",
        trec=(TrecForm("binG"),),
        kernel=k.binary_g,
        params=(REL,),
        tags=BOUNDED,
        summary="Binary G: AP-like gain discounted by the non-relevant documents above.",
        formula="(1/R) · Σ_{d_i relevant} 1 / log2(2 + non-relevant documents above d_i)",
        notes="trec_eval experimental measure. 0 when R = 0."
        + " An empty list gives 0."
        + " "
        + TIES,
        citation="trec_eval 10, m_binG.c (experimental).",
    )
)
register(
    MeasureSpec(
        name="YAAP",
        trec=(TrecForm("yaap"),),
        kernel=k.yaap,
        params=(REL,),
        summary="Yet another AP: log-odds form of AP·R.",
        formula="ln((1 + S) / (1 + R − S)), S = Σ_{d_i relevant} rr(i)/i",
        notes="trec_eval 10 measure, in no nickname. For a topic missing from the run under "
        "missing='zero' the value is ln(1/(1+R)), not 0 (trec_eval -c behaviour)."
        + " R = 0 with nothing retrieved gives 0; an empty list gives ln(1/(1+R))."
        + " "
        + TIES,
        citation="trec_eval 10, m_yaap.c.",
    )
)
