"""TREC-11 (2002) filtering measures: T11U, T11SU, T11F (linear utility is ``Utility``).

Seed 004 gives, with R⁺/N⁺ the relevant/non-relevant documents retrieved and R⁻ the
relevant ones not retrieved: ``T11U = 2·R⁺ − N⁺``, ``P = R⁺/(R⁺ + N⁺)``,
``R = R⁺/(R⁺ + R⁻)``, ``T11F = 1.25 / (0.25/R + 1/P)``, and says the utility is averaged
after normalisation; the normalisation is the track's scaled utility T11SU.
"""

from cranfield.kernels import contingency as c
from cranfield.measures._spec import REL, MeasureSpec, register

TRACK = (
    "Robertson & Soboroff, 'The TREC 2002 filtering track report', TREC 2002; "
    "Zhang Rong, ECNU lecture 'Retrieval evaluation' (seed 004)."
)
NOTES = (
    " The retrieved set is the whole list (use evaluate(depth=k) to cut it). A judged topic "
    "absent from the run retrieves nothing. Ties in score do not matter."
)

register(
    MeasureSpec(
        name="T11U",
        kernel=c.set_kernel(c.t11_utility),
        params=(REL,),
        tags=frozenset({"set"}),
        summary="TREC-11 linear utility: 2 per relevant document retrieved, −1 per non-relevant.",
        formula="T11U = 2·R⁺ − N⁺   (Utility(a=2,b=-1))",
        notes="Unbounded; its mean is dominated by topics with many relevant documents, hence "
        "T11SU. Linear in the counts, so pooling them (micro) would only give the sum: no "
        "micro average. 0 for an empty set and for R = 0 with nothing retrieved." + NOTES,
        citation=TRACK,
    )
)
register(
    MeasureSpec(
        name="T11SU",
        kernel=c.set_kernel(c.t11_scaled_utility),
        micro=c.set_micro(c.t11_scaled_utility),
        params=(REL,),
        tags=frozenset({"bounded", "set"}),
        summary="TREC-11 scaled (normalised) utility, the track's averaged utility measure.",
        formula="T11SU = (max(T11U / MaxU, MinNU) − MinNU) / (1 − MinNU),  MaxU = 2·(R⁺ + R⁻), "
        "MinNU = −0.5",
        notes="Retrieving nothing scores 1/3; retrieving exactly the relevant documents scores 1. "
        "0 when R = 0 (MaxU = 0; the track had no such topic)." + NOTES,
        citation=TRACK,
    )
)
register(
    MeasureSpec(
        name="T11F",
        kernel=c.set_kernel(c.t11_f),
        micro=c.set_micro(c.t11_f),
        params=(REL,),
        tags=frozenset({"bounded", "set"}),
        summary="TREC-11 F-measure: F_β with β = 0.5 (precision weighted more).",
        formula="T11F = 1.25·P·R / (0.25·P + R) = 1.25 / (0.25/R + 1/P)",
        notes="SetF(beta=0.5) on the whole list. 0 when nothing relevant is retrieved (R⁺ = 0), "
        "which the track also used for an empty set." + NOTES + "R = 0 gives 0.",
        citation=TRACK,
    )
)
