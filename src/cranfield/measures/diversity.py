"""Intent-aware (diversity) measures on subtopic judgments: alpha_nDCG.

Subtopic judgments come as ``evaluate(qrels, run, measures, intents=...)``: an intent
qrels file (``qid subtopic docno rel``, the second column is the subtopic, so a document
may appear once per subtopic), read with :func:`cranfield.io.intents.read_intents`.
"""

from cranfield.kernels import diversity as k
from cranfield.measures._spec import REL, MeasureSpec, Param, register

register(
    MeasureSpec(
        name="alpha_nDCG",
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
