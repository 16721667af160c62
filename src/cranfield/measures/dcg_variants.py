"""The DCG family with every variant: nDCGx, DCGx, IDCGx (gain, discount, ideal), CG, nCG.

``nDCG``/``DCG``/``IDCG`` (in :mod:`graded`) are trec_eval's; the ``x`` forms take the
variant parameters and equal them exactly with the defaults. Which peer uses which:

======================  =================  ======================  ====================
variant                 gain               discount                ideal ranking
======================  =================  ======================  ====================
trec_eval ndcg          level (or map)     log2(i + 1)             all judged documents
ir_measures nDCG@k      level              log2(i + 1)             all judged documents
ranx ndcg               level              log2(i + 1)             all judged documents
ranx ndcg_burges        2^level − 1        log2(i + 1)             all judged documents
gdeval.pl (TREC Web)    2^level − 1        log2(i + 1)             all judged documents
Järvelin–Kekäläinen     level              1 for i < b, log_b(i)   all judged documents
scikit-learn ndcg_score level              log2(i + 1)             labels given (retrieved)
TorchMetrics nDCG       level              log2(i + 1)             labels given (retrieved)
======================  =================  ======================  ====================
"""

from cranfield.kernels import dcg_variants as k
from cranfield.measures._spec import GAINS, MeasureSpec, Param, PeerName, register

EXP = Param("exp", "bool", False, "exponential gain 2^g − 1 (Burges et al.) instead of g")
BASE = Param(
    "base",
    "float",
    2.0,
    "logarithm base b of the discount (with jk: also the first discounted rank)",
    minimum=1.0,
    exclusive_minimum=True,
)
JK = Param(
    "jk",
    "bool",
    False,
    "Järvelin–Kekäläinen discount: none before rank b, then log_b(i) (instead of log_b(i + 1))",
)
RETRIEVED_IDEAL = Param(
    "retrieved_ideal",
    "bool",
    False,
    "ideal ranking from the retrieved documents only (scikit-learn/TorchMetrics; for "
    "comparison only: it scores 1 when relevant documents are never retrieved)",
)
VARIANT_NOTES = (
    "g is the judged level, or its image under 'gains' (trec_eval's gain table), and with "
    "exp=True 2^g − 1 (equal to g for binary judgments). Unjudged documents gain 0. The ideal "
    "ranking sorts the positive gains of all judged documents of the topic (retrieved or "
    "not); retrieved_ideal=True uses only the retrieved ones. With log_b(i + 1) the base "
    "cancels in nDCG (any gain); it matters with jk=True, where no discount applies before "
    "rank b. Ties in score are ordered by docno descending, so equal-scored documents of "
    "different grades are ranked by their ids (scikit-learn averages over ties instead). "
    "With the defaults the value equals trec_eval's."
)
JK_CITE = (
    "Järvelin & Kekäläinen, 'Cumulated gain-based evaluation of IR techniques', ACM TOIS "
    "20(4), 2002; Burges et al., 'Learning to rank using gradient descent', ICML 2005."
)
VARIANTS = (GAINS, EXP, BASE, JK, RETRIEVED_IDEAL)

register(
    MeasureSpec(
        name="nDCGx",
        peers=(
            PeerName("ranx", "ndcg_burges", fixed=(("exp", True),)),
            PeerName("ir_measures", "nDCG", given=(("dcg", "exp-log2"),), fixed=(("exp", True),)),
        ),
        kernel=k.ndcg,
        params=VARIANTS,
        at="cutoff",
        tags=frozenset({"bounded", "perfect_is_one"}),
        summary="nDCG with a choice of gain, discount and ideal ranking.",
        formula="nDCG@k = DCG@k / IDCG@k,  DCG@k = Σ_{i<=k} g(d_i) / disc(i),  "
        "disc(i) = log_b(i + 1) or (jk) 1 for i < b else log_b(i)",
        notes=VARIANT_NOTES + " 0 when the ideal DCG is 0 (R = 0); an empty list scores 0.",
        citation=JK_CITE,
    )
)
register(
    MeasureSpec(
        name="DCGx",
        peers=(PeerName("ranx", "dcg_burges", fixed=(("exp", True),)),),
        kernel=k.dcg,
        params=VARIANTS,
        at="cutoff",
        summary="DCG with a choice of gain and discount.",
        formula="DCG@k = Σ_{i<=k} g(d_i) / disc(i)",
        notes=VARIANT_NOTES
        + " retrieved_ideal does not change DCG. 0 for an empty list."
        + " R = 0 gives 0 with non-negative gains.",
        citation=JK_CITE,
    )
)
register(
    MeasureSpec(
        name="IDCGx",
        kernel=k.ideal_dcg,
        params=VARIANTS,
        at="cutoff",
        summary="DCG of the ideal ranking, with a choice of gain, discount and ideal.",
        formula="IDCG@k = Σ_{i<=k} g*(i) / disc(i), g* the ideal gains sorted descending",
        notes=VARIANT_NOTES
        + " 0 when no judged document has a positive gain."
        + " R = 0 gives 0; independent of the run unless retrieved_ideal, so an empty list gives 0 "
        "only then.",
        citation=JK_CITE,
    )
)
register(
    MeasureSpec(
        name="CG",
        kernel=k.cg,
        params=(GAINS, EXP),
        at="cutoff",
        summary="Cumulated gain: the sum of the gains of the first k documents (no discount).",
        formula="CG@k = Σ_{i<=k} g(d_i)",
        notes="Insensitive to the order within the first k (seed 001). g as in nDCGx. 0 for "
        "an empty list. Ties do not matter except across rank k."
        + " R = 0 gives 0 with non-negative gains.",
        citation="Järvelin & Kekäläinen, ACM TOIS 20(4), 2002.",
    )
)
register(
    MeasureSpec(
        name="nCG",
        kernel=k.ncg,
        params=(GAINS, EXP, RETRIEVED_IDEAL),
        at="cutoff",
        tags=frozenset({"bounded", "perfect_is_one"}),
        summary="Normalised cumulated gain: CG@k over the ideal CG@k.",
        formula="nCG@k = CG@k / ICG@k",
        notes="g and the ideal ranking as in nDCGx. 0 when the ideal CG is 0 (R = 0). Bounded "
        "by 1 since the ideal holds the k largest gains."
        + " An empty list gives 0. Ties matter only across rank k (docno descending).",
        citation="Järvelin & Kekäläinen, ACM TOIS 20(4), 2002.",
    )
)
