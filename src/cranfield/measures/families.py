"""Importing this module registers every measure family."""

from cranfield.measures import (
    ap,
    counts,
    dcg_variants,
    diversity,
    filtering,
    graded,
    incomplete,
    precision,
    ranked_variants,
    sets,
    user,
)

__all__ = [
    "ap",
    "counts",
    "dcg_variants",
    "diversity",
    "filtering",
    "graded",
    "incomplete",
    "precision",
    "ranked_variants",
    "sets",
    "user",
]
