"""Immutable columnar judgments (:class:`Qrels`) and result lists (:class:`Run`)."""

from cranfield.data.qrels import Qrels
from cranfield.data.run import Run

__all__ = ["Qrels", "Run"]
