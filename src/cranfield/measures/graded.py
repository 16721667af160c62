"""Graded-relevance measures on trec_eval's gain table: nDCG, DCG, IDCG, nDCG_rel, RnDCG, G, RBP."""

from cranfield.kernels import graded as k
from cranfield.measures._spec import (
    GAINS,
    REL,
    TIES,
    TREC_CUTOFFS,
    MeasureSpec,
    Param,
    PeerName,
    TrecForm,
    register,
)

GAIN_NOTES = (
    "Gains: each judged level is its own gain unless 'gains' maps it (levels -1 and -2 address "
    "documents not in the qrels and pooled-unjudged documents). Relevance thresholds (rel) do "
    "not apply. The ideal ranking is built from all judged documents of the topic, as trec_eval "
    "does, including trec_eval's truncating gain sort for fractional gains."
)

register(
    MeasureSpec(
        name="nDCG",
        aliases=("NDCG",),
        peers=(PeerName("ranx", "ndcg"), PeerName("ir_measures", "nDCG", given=(("dcg", "log2"),))),
        trec=(
            TrecForm("ndcg", "gains", c_float=True),
            TrecForm("ndcg_cut", "cutoffs", TREC_CUTOFFS),
        ),
        kernel=k.ndcg,
        params=(GAINS,),
        at="cutoff",
        tags=frozenset({"bounded", "perfect_is_one"}),
        summary="Normalised discounted cumulative gain (linear gain, log2 discount).",
        formula="nDCG@k = DCG@k / IDCG@k, DCG@k = Σ_{i<=k} g(d_i) / log2(i + 1)",
        notes=GAIN_NOTES + " 0 when the ideal DCG is 0. Without @ the whole list is used "
        "(trec_eval ndcg); with @k both lists are cut at k (trec_eval ndcg_cut.k)."
        + " R = 0 (no positive gain judged) and an empty list give 0. Ties: tied scores are ordered"
        " by docno descending (trec_eval), so tied documents are ranked by id. scikit-learn "
        "averages over ties instead.",
        citation="Järvelin & Kekäläinen, 'Cumulated gain-based evaluation of IR techniques', "
        "ACM TOIS 20(4), 2002.",
    )
)
register(
    MeasureSpec(
        name="DCG",
        peers=(PeerName("ranx", "dcg"),),
        trec=(TrecForm("dcg", "gains", c_float=True, in_v9=False),),
        kernel=k.dcg,
        params=(GAINS,),
        at="cutoff",
        summary="Discounted cumulative gain of the ranking.",
        formula="DCG@k = Σ_{i<=k} g(d_i) / log2(i + 1)",
        notes=GAIN_NOTES
        + " 0 for an empty list, and when R = 0 with the default gains."
        + " "
        + TIES,
        citation="Järvelin & Kekäläinen, ACM TOIS 20(4), 2002.",
    )
)
register(
    MeasureSpec(
        name="IDCG",
        trec=(TrecForm("ideal_dcg", "gains", c_float=True, in_v9=False),),
        kernel=k.ideal_dcg,
        params=(GAINS,),
        at="cutoff",
        summary="DCG of the ideal ranking of all judged documents.",
        formula="IDCG@k = Σ_{i<=k} g*(i) / log2(i + 1), g* the gains sorted descending",
        notes=GAIN_NOTES
        + " 0 when R = 0 (no positive gain judged); independent of the run, so nothing retrieved "
        "and ties play no part.",
        citation="Järvelin & Kekäläinen, ACM TOIS 20(4), 2002.",
    )
)
register(
    MeasureSpec(
        name="nDCG_rel",
        trec=(TrecForm("ndcg_rel", "gains", c_float=True),),
        kernel=k.ndcg_rel,
        params=(GAINS,),
        summary="nDCG averaged over the positions of relevant (positive-gain) documents.",
        formula="(1/P) · [Σ_{g(d_i)>0} DCG@i / IDCG@min(i,P) + (P − count)·DCG@n / IDCG@P]",
        notes=GAIN_NOTES
        + " P = number of positive-gain ideal positions. trec_eval experimental measure."
        + " 0 when R = 0 (no positive gain) or nothing is retrieved."
        + " "
        + TIES,
        citation="trec_eval 10, m_ndcg_rel.c (experimental).",
    )
)
register(
    MeasureSpec(
        name="RnDCG",
        trec=(TrecForm("Rndcg", "gains"),),
        kernel=k.rndcg,
        params=(GAINS, REL),
        summary="nDCG averaged at the R-levels where the ideal gain changes.",
        formula="mean of DCG@min(i,n)/IDCG@i over ideal gain changes i, plus DCG@n/IDCG@P when n > P+1",
        notes=GAIN_NOTES
        + " 0 when R = 0 (at rel); NaN when no point exists. trec_eval experimental measure."
        + " An empty list gives 0."
        + " "
        + TIES,
        citation="trec_eval 10, m_Rndcg.c (experimental).",
    )
)
register(
    MeasureSpec(
        name="G",
        trec=(TrecForm("G", "gains", c_float=True),),
        kernel=k.g_measure,
        params=(GAINS,),
        tags=frozenset({"bounded"}),
        summary="Normalised gain G: each gain discounted by the shortfall against the ideal so far.",
        formula="(1/Σg*) · Σ_{g(d_i)≠0} g(d_i) / log2(2 + Σ_{j<=i} max(g*(j),1) − Σ_{j<=i} g(d_j))",
        notes=GAIN_NOTES
        + " trec_eval experimental measure."
        + " 0 when R = 0 (no positive ideal gain) or nothing is retrieved."
        + " "
        + TIES,
        citation="trec_eval 10, m_G.c (experimental).",
    )
)
register(
    MeasureSpec(
        name="RBP",
        peers=(PeerName("ranx", "rbp"),),
        trec=(TrecForm("rbp", "gains", c_float=True, in_v9=False),),
        kernel=k.rbp,
        params=(
            Param(
                "p",
                "float",
                0.9,
                "persistence: probability of looking at the next document",
                minimum=0.0,
                exclusive_minimum=True,
                maximum=1.0,
            ),
            GAINS,
        ),
        tags=frozenset({"bounded"}),
        summary="Rank-biased precision (graded): expected gain of a user who continues with probability p.",
        formula="(1 − p) · Σ_i g'(d_i) · p^(i−1)",
        notes="g' is the gain rescaled to [0, 1] per topic by (g − min)/(max − min) over the topic's gain "
        "table when any gain lies outside [0, 1] (trec_eval 10), so graded qrels give graded RBP."
        + " 0 for an empty list and when R = 0 (no gain anywhere)."
        + " "
        + TIES,
        citation="Moffat & Zobel, 'Rank-biased precision for measurement of retrieval effectiveness', "
        "ACM TOIS 27(1), 2008.",
    )
)
