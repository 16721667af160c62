"""Importing this module registers every measure family."""

from cranfield.measures import ap, counts, graded, incomplete, precision, sets

__all__ = ["ap", "counts", "graded", "incomplete", "precision", "sets"]
