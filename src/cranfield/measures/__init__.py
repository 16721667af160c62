"""Measure declarations (one spec per measure), the name grammar and trec_eval's table."""

from cranfield.measures._parse import parse_measure, parse_measures, peer_measure
from cranfield.measures._spec import Measure, MeasureSpec, Param, PeerName, all_specs

__all__ = [
    "Measure",
    "MeasureSpec",
    "Param",
    "PeerName",
    "all_specs",
    "parse_measure",
    "parse_measures",
    "peer_measure",
]
