"""Bookkeeping counts: NumQ, NumRet, NumRel, NumRelRet, NumNonRelJudgedRet."""

from cranfield.kernels import binary as k
from cranfield.measures._spec import REL, MeasureSpec, register

COUNT = frozenset({"count"})

register(
    MeasureSpec(
        name="NumQ",
        trec_name="num_q",
        kernel=k.num_q,
        aggregate="sum",
        tags=COUNT,
        summary="Number of topics evaluated.",
        formula="1 per topic; summed over topics",
    )
)
register(
    MeasureSpec(
        name="NumRet",
        trec_name="num_ret",
        kernel=k.num_ret,
        aggregate="sum",
        tags=COUNT,
        zero_when_missing=True,
        summary="Number of documents retrieved (after depth cut and judged-only filtering).",
        formula="n = |ranked list|",
    )
)
register(
    MeasureSpec(
        name="NumRel",
        trec_name="num_rel",
        kernel=k.num_rel,
        params=(REL,),
        aggregate="sum",
        tags=COUNT,
        summary="Number of relevant documents in the judgments (R).",
        formula="R = |{d in qrels : rel(d) >= rel}|",
        notes="Counts qrels entries whether or not they were retrieved. Negative judgments never count.",
    )
)
register(
    MeasureSpec(
        name="NumRelRet",
        trec_name="num_rel_ret",
        kernel=k.num_rel_ret,
        params=(REL,),
        aggregate="sum",
        tags=COUNT,
        summary="Number of relevant documents retrieved.",
        formula="|{retrieved d : rel(d) >= rel}|",
    )
)
register(
    MeasureSpec(
        name="NumNonRelJudgedRet",
        trec_name="num_nonrel_judged_ret",
        kernel=k.num_nonrel_judged_ret,
        params=(REL,),
        aggregate="sum",
        tags=COUNT,
        summary="Number of retrieved documents judged non-relevant.",
        formula="|{retrieved d : 0 <= rel(d) < rel}|",
    )
)
