"""The names of trec_eval's 14 preference measures, and how each is summarised over topics.

The one list of them: trec_eval's measure table (:mod:`cranfield.measures.trec_names`) reads
it at import without importing the kernel that computes them (:mod:`cranfield.kernels.prefs`,
which re-exports both names), so that every command pays for the names only.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["PREFS_MEASURES", "PREFS_SUMMARY"]

PREFS_MEASURES: tuple[str, ...] = (
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
)
"""The 14 measure names, in trec_eval's output order."""

PREFS_SUMMARY: dict[str, Literal["sum", "mean"]] = {
    name: "sum" if name.startswith("prefs_num_") else "mean" for name in PREFS_MEASURES
}
"""How trec_eval summarises each measure over topics on the ``all`` line.

``"sum"``: the plain sum of the per-topic values, printed as an integer (``%ld``).
``"mean"``: the per-topic values added in topic order and divided once by the number of
evaluated topics.
"""
