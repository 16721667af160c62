"""Intent-aware (diversity) measures on subtopic judgments: alpha_nDCG and ndeval's family
(ERR_IA, nERR_IA, NRBP, nNRBP, P_IA, AP_IA, StRecall).

Subtopic judgments come as ``evaluate(qrels, run, measures, intents=...)``: an intent
qrels file (``qid subtopic docno rel``, the second column is the subtopic, so a document
may appear once per subtopic), read with :func:`cranfield.io.intents.read_intents`.
"""

from cranfield.kernels import diversity as k
from cranfield.measures._spec import REL, MeasureSpec, Param, PeerName, register

ALPHA = Param(
    "alpha",
    "float",
    0.5,
    "redundancy penalty in [0, 1]: each earlier document covering a subtopic "
    "multiplies its gain by 1 − α",
    minimum=0.0,
)
BETA = Param(
    "beta",
    "float",
    0.5,
    "patience: the probability of going on to the next document",
    minimum=0.0,
    maximum=1.0,
)
INTENTS = frozenset({"intents"})
NDEVAL = (
    "ndeval (TREC Web track 2009-2014, version 4.5); Agrawal, Gollapudi, Halverson & Ieong, "
    "'Diversifying search results', WSDM 2009"
)
NDEVAL_NOTES = (
    "Binary subtopic judgments: J(d, s) = 1 when the document's subtopic-s judgment is >= "
    "rel. S is the number of the topic's subtopics with a relevant document; R = 0 (S = 0) "
    "gives 0. Needs evaluate(..., intents=...). As ndeval, the empty list gives 0, and "
    "unjudged documents count as not relevant. Ties in score: docno descending (ndeval sorts "
    "by its rank column unless -traditional). Agrees with pyndeval to 1e-9 per topic."
)
NOVELTY = (
    "g(i) = Σ_s J(d_i, s)·(1 − α)^{c_s(i)}, c_s(i) counting the documents above rank i "
    "relevant to s (α-nDCG's gain)"
)

register(
    MeasureSpec(
        name="alpha_nDCG",
        peers=(PeerName("ndeval", "alpha-nDCG"),),
        aliases=("AlphaNDCG",),
        kernel=k.alpha_ndcg,
        params=(
            Param(
                "alpha",
                "float",
                0.5,
                "redundancy penalty in [0, 1]: each earlier document covering a subtopic "
                "multiplies its gain by 1 − α",
                minimum=0.0,
            ),
            REL,
        ),
        at="cutoff",
        needs=frozenset({"intents"}),
        tags=frozenset({"bounded"}),
        summary="α-nDCG: nDCG whose gain rewards covering new subtopics and discounts redundancy.",
        formula="α-DCG@k = Σ_{i<=k} Σ_s J(d_i, s)·(1 − α)^{c_s(i)} / log2(i + 1);  "
        "α-nDCG@k = α-DCG@k / α-DCG@k of the greedy ideal ranking",
        notes="J(d, s) = 1 when the document's subtopic-s judgment is >= rel; c_s(i) counts the "
        "documents above rank i relevant to s. The ideal ranking is ndeval's greedy "
        "approximation over every document judged relevant to some subtopic (ties to the "
        "larger docno). α = 0 gives an nDCG whose gain is the number of subtopics covered. "
        "Needs evaluate(..., intents=...). α > 1 is refused when evaluated. 0 when the topic "
        "has no relevant subtopic judgment or the run gains nothing. Ties in score: docno "
        "descending (ndeval sorts by its rank column unless -traditional)."
        + " R = 0 (no subtopic judged relevant) gives 0.",
        citation="Clarke, Kolla, Cormack, Vechtomova, Ashkan, Büttcher & MacKinnon, 'Novelty "
        "and diversity in information retrieval evaluation', SIGIR 2008; ndeval (TREC Web).",
    )
)
register(
    MeasureSpec(
        name="ERR_IA",
        peers=(PeerName("ndeval", "ERR-IA"),),
        kernel=k.err_ia,
        params=(ALPHA, REL),
        at="cutoff_required",
        needs=INTENTS,
        summary="Intent-aware expected reciprocal rank, normalised by an ideal-ideal ranking.",
        formula="ERR-IA@k = Σ_{i<=k} g(i) / i  ÷  S·Σ_{i<=k} (1 − α)^{i−1} / i,  " + NOVELTY,
        notes="The normaliser is a ranking whose every document covers every subtopic "
        "(ndeval's collection-independent normalisation); as in ndeval, ERR_IA@1 is left "
        "unnormalised (the plain sum, up to S). " + NDEVAL_NOTES,
        citation="Chapelle, Metzler, Zhang & Grinspan, 'Expected reciprocal rank for graded "
        "relevance', CIKM 2009; " + NDEVAL + ".",
    )
)
register(
    MeasureSpec(
        name="nERR_IA",
        peers=(PeerName("ndeval", "nERR-IA"),),
        kernel=k.nerr_ia,
        params=(ALPHA, REL),
        at="cutoff_required",
        needs=INTENTS,
        summary="ERR-IA normalised by the ERR-IA of ndeval's greedy ideal ranking.",
        formula="nERR-IA@k = Σ_{i<=k} g(i) / i  ÷  the same sum over the greedy ideal ranking, "
        + NOVELTY,
        notes="The ideal ranking is α-nDCG's greedy one (ties to the larger docno); being "
        "greedy it can be beaten, so a value above 1 is possible. " + NDEVAL_NOTES,
        citation="Chapelle et al., CIKM 2009; " + NDEVAL + ".",
    )
)
register(
    MeasureSpec(
        name="NRBP",
        peers=(PeerName("ndeval", "NRBP"),),
        kernel=k.nrbp,
        params=(ALPHA, BETA, REL),
        needs=INTENTS,
        tags=frozenset({"bounded"}),
        summary="Novelty- and rank-biased precision over the whole ranking.",
        formula="NRBP = (1 − (1 − α)·β) / S · Σ_i β^{i−1}·g(i),  " + NOVELTY,
        notes="The whole ranking counts (no cutoff); 1 − (1 − α)β over S normalises by a "
        "ranking whose every document covers every subtopic. " + NDEVAL_NOTES,
        citation="Clarke, Kolla & Vechtomova, 'An effectiveness measure for ambiguous and "
        "underspecified queries', ICTIR 2009; " + NDEVAL + ".",
    )
)
register(
    MeasureSpec(
        name="nNRBP",
        peers=(PeerName("ndeval", "nNRBP"),),
        kernel=k.nnrbp,
        params=(ALPHA, BETA, REL),
        needs=INTENTS,
        summary="NRBP normalised by the NRBP of ndeval's greedy ideal ranking.",
        formula="nNRBP = Σ_i β^{i−1}·g(i)  ÷  the same sum over the greedy ideal ranking, "
        + NOVELTY,
        notes="The ideal ranking is α-nDCG's greedy one over every judged relevant document; "
        "being greedy it can be beaten. ndeval divides 0 by 0 (NaN) when S = 0, and for every "
        "topic when α = 0 and β = 1 (its NRBP is then 0); here the first gives 0 and the "
        "second the ratio of the two sums. " + NDEVAL_NOTES,
        citation="Clarke, Kolla & Vechtomova, ICTIR 2009; " + NDEVAL + ".",
    )
)
register(
    MeasureSpec(
        name="P_IA",
        peers=(PeerName("ndeval", "P-IA"),),
        kernel=k.precision_ia,
        params=(REL,),
        at="cutoff_required",
        needs=INTENTS,
        tags=frozenset({"bounded"}),
        summary="Intent-aware precision at k: precision averaged over the subtopics.",
        formula="P-IA@k = Σ_{i<=k} Σ_s J(d_i, s) / (k·S)",
        notes="A list shorter than k counts as padded with non-relevant documents (the "
        "denominator is always k). " + NDEVAL_NOTES,
        citation="Agrawal et al., WSDM 2009; " + NDEVAL + ".",
    )
)
register(
    MeasureSpec(
        name="AP_IA",
        peers=(PeerName("ndeval", "MAP-IA"),),
        kernel=k.ap_ia,
        params=(REL,),
        needs=INTENTS,
        tags=frozenset({"bounded"}),
        summary="Intent-aware average precision: AP against each subtopic, averaged (ndeval MAP-IA).",
        formula="AP-IA = (1/S) Σ_s (1/R_s) Σ_{i: J(d_i, s)} rr_s(i) / i, R_s the documents "
        "relevant to s, rr_s(i) those among the first i",
        notes="The whole ranking counts (no cutoff). " + NDEVAL_NOTES,
        citation="Agrawal et al., WSDM 2009; " + NDEVAL + ".",
    )
)
register(
    MeasureSpec(
        name="StRecall",
        peers=(PeerName("ndeval", "strec"),),
        aliases=("SubtopicRecall",),
        kernel=k.subtopic_recall,
        params=(REL,),
        at="cutoff",
        needs=INTENTS,
        tags=frozenset({"bounded"}),
        summary="Subtopic recall at k: the share of the topic's subtopics covered in the first k.",
        formula="S-recall@k = |{s : J(d_i, s) for some i <= k}| / S",
        notes="Without @ the whole ranking counts. " + NDEVAL_NOTES,
        citation="Zhai, Cohen & Lafferty, 'Beyond independent relevance', SIGIR 2003; "
        + NDEVAL
        + ".",
    )
)
