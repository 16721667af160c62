"""User-oriented measures: Coverage, Novelty, RelRecall, RecallEffect.

They compare the retrieved set with the relevant documents the user already knows, an
extra qrels-like input given as ``evaluate(qrels, run, measures, known=...)`` (a path,
``Qrels``, DataFrame or dict, read like the qrels; a document is known-relevant when its
value is ``>= rel``). ``Rk`` = retrieved known documents, ``Ru`` = retrieved relevant
documents (by the main qrels) the user did not know, ``U`` = known documents.
"""

from cranfield.kernels import user as k
from cranfield.measures._spec import REL, MeasureSpec, register

KNOWN = frozenset({"known"})
BAEZA_YATES = (
    "Baeza-Yates & Ribeiro-Neto, Modern Information Retrieval, Addison-Wesley 1999, §3.2.5 "
    "(Korfhage 1997); Chen, NTNU slides 'Retrieval Evaluation - Measures' (seed 002)."
)
USER_NOTES = (
    " Needs evaluate(..., known=...). With @k the retrieved set is the first k documents. "
    "A known document counts as relevant whatever the main qrels say. A judged topic absent "
    "from the run retrieves nothing. Ties in score matter only across rank k."
)

register(
    MeasureSpec(
        name="Coverage",
        kernel=k.coverage,
        params=(REL,),
        at="cutoff",
        needs=KNOWN,
        tags=frozenset({"bounded"}),
        summary="Coverage ratio: the fraction of the relevant documents known to the user that "
        "were retrieved.",
        formula="|Rk| / |U|",
        notes="High coverage: the system finds most of the documents the user expected. "
        "0 when the user knows no relevant document (U = ∅)."
        + USER_NOTES
        + " R = 0 (by the main qrels) does not matter: only known documents count.",
        citation=BAEZA_YATES,
    )
)
register(
    MeasureSpec(
        name="Novelty",
        kernel=k.novelty,
        params=(REL,),
        at="cutoff",
        needs=KNOWN,
        tags=frozenset({"bounded"}),
        summary="Novelty ratio: the fraction of the relevant documents retrieved that were "
        "unknown to the user.",
        formula="|Ru| / (|Ru| + |Rk|)",
        notes="High novelty: the system reveals many relevant documents the user did not know. "
        "0 when no relevant document is retrieved (R = 0 included)." + USER_NOTES,
        citation=BAEZA_YATES,
    )
)
register(
    MeasureSpec(
        name="RelRecall",
        aliases=("RelativeRecall",),
        kernel=k.relative_recall,
        params=(REL,),
        at="cutoff",
        needs=KNOWN,
        summary="Relative recall: relevant documents found by the system per relevant document "
        "the user expects.",
        formula="(|Rk| + |Ru|) / |U|",
        notes="Can exceed 1 when the system finds more relevant documents than the user knew. "
        "0 when U = ∅."
        + USER_NOTES
        + " R = 0 (by the main qrels) leaves only the known documents found.",
        citation=BAEZA_YATES,
    )
)
register(
    MeasureSpec(
        name="RecallEffect",
        aliases=("RecallEffort",),
        kernel=k.recall_effect,
        params=(REL,),
        at="cutoff",
        needs=KNOWN,
        summary="Recall effect (effort): relevant documents the user expects per document the "
        "system returned.",
        formula="|U| / |Ret|",
        notes="Seed 002's wording ('the number of relevant docs the user expects to find over "
        "the number of docs found by the system'); Baeza-Yates & Ribeiro-Neto call it recall "
        "effort, with the documents examined in the denominator, which @k models. Can exceed "
        "1. 0 for an empty list."
        + USER_NOTES
        + " R = 0 does not matter: |U| comes from the known documents.",
        citation=BAEZA_YATES,
    )
)
