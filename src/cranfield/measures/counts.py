"""Bookkeeping counts: NumQ, NumRet, NumRel, NumRelRet, NumNonRelJudgedRet."""

from cranfield.kernels import binary as k
from cranfield.measures._spec import REL, MeasureSpec, TrecForm, register

COUNT = frozenset({"count"})

register(
    MeasureSpec(
        name="NumQ",
        trec=(TrecForm("num_q", summary="count"),),
        kernel=k.num_q,
        aggregate="sum",
        tags=COUNT,
        summary="Number of topics evaluated.",
        formula="1 per topic; summed over topics",
        notes="1 for every evaluated topic, R = 0 or an empty list included; ties play no part.",
        citation="trec_eval 10, m_num_q.c.",
    )
)
register(
    MeasureSpec(
        name="NumRet",
        trec=(TrecForm("num_ret"),),
        kernel=k.num_ret,
        aggregate="sum",
        tags=COUNT,
        zero_when_missing=True,
        summary="Number of documents retrieved (after depth cut and judged-only filtering).",
        formula="n = |ranked list|",
        notes="0 for an empty list; R = 0 and ties play no part.",
        citation="trec_eval 10, m_num_ret.c.",
    )
)
register(
    MeasureSpec(
        name="NumRel",
        trec=(TrecForm("num_rel"),),
        kernel=k.num_rel,
        params=(REL,),
        aggregate="sum",
        tags=COUNT,
        summary="Number of relevant documents in the judgments (R).",
        formula="R = |{d in qrels : rel(d) >= rel}|",
        notes="Counts qrels entries whether or not they were retrieved. Negative judgments never count."
        + " 0 when R = 0; independent of the run, so nothing retrieved and ties play no part.",
        citation="trec_eval 10, m_num_rel.c.",
    )
)
register(
    MeasureSpec(
        name="NumRelRet",
        trec=(TrecForm("num_rel_ret"),),
        kernel=k.num_rel_ret,
        params=(REL,),
        aggregate="sum",
        tags=COUNT,
        summary="Number of relevant documents retrieved.",
        formula="|{retrieved d : rel(d) >= rel}|",
        notes="0 when R = 0 or nothing is retrieved; ties play no part (whole list).",
        citation="trec_eval 10, m_num_rel_ret.c.",
    )
)
register(
    MeasureSpec(
        name="NumNonRelJudgedRet",
        trec=(TrecForm("num_nonrel_judged_ret"),),
        kernel=k.num_nonrel_judged_ret,
        params=(REL,),
        aggregate="sum",
        tags=COUNT,
        summary="Number of retrieved documents judged non-relevant.",
        formula="|{retrieved d : 0 <= rel(d) < rel}|",
        notes="0 for an empty list; R = 0 does not matter; ties play no part (whole list).",
        citation="trec_eval 10, m_num_nonrel_judged_ret.c.",
    )
)
