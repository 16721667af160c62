"""Batch kernels: numpy code over all topics at once (segment offsets, cumulative sums).

Each kernel takes an :class:`~cranfield.kernels.context.EvalContext` and keyword
parameters and returns one float64 value per topic. Slow per-topic reference versions
live in the tests (``tests/reference.py``) and are used only as oracles.
"""
