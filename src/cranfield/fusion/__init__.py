"""``cranfield.fusion``: runs fused into one (CombSUM and its family, weighted sums, RRF,
ISR, RBC, BordaFuse, Condorcet, and the methods that learn from training qrels), after a
per-query normalisation of their scores, and the parameters of a method tuned on training
folds and scored on held-out queries.

>>> from cranfield import load_run
>>> from cranfield.fusion import fuse
>>> a = load_run({"q1": {"d1": 2.0, "d2": 1.0}}, name="a")
>>> b = load_run({"q1": {"d2": 5.0, "d3": 4.0}}, name="b")
>>> fuse([a, b], "mnz").to_dict()
{'q1': {'d2': 2.0, 'd1': 1.0, 'd3': 0.0}}
"""

from cranfield.fusion.fuse import RANK_SOURCES, FusionInputs, RankSource, fuse, fusion_inputs
from cranfield.fusion.methods import (
    METHODS,
    NORMALIZATIONS,
    MethodSpec,
    NormalizationSpec,
    ParamSpec,
)
from cranfield.fusion.supervised import FusionTraining
from cranfield.fusion.training import train

__all__ = [
    "METHODS",
    "NORMALIZATIONS",
    "RANK_SOURCES",
    "FusionInputs",
    "FusionTraining",
    "MethodSpec",
    "NormalizationSpec",
    "ParamSpec",
    "RankSource",
    "fuse",
    "fusion_inputs",
    "train",
]
