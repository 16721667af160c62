"""Many judges: crowd labels combined, a model judge behind an endpoint, judges judged.

* :mod:`cranfield.judges.aggregation`: :func:`combine` (majority vote, Dawid-Skene, one-coin,
  GLAD), each worker's quality, gold pairs;
"""

from __future__ import annotations

from cranfield.judges.aggregation import METHODS, Combined, Method, WorkerQuality, combine

__all__ = ["METHODS", "Combined", "Method", "WorkerQuality", "combine"]
