"""Fixtures of the lab tests: a toy collection and the real Cranfield collection."""

from __future__ import annotations

import pytest

from cranfield.lab import Collection, Document, Topic, read_cranfield
from tests.conftest import SHARED, require

TOY_DOCS = [
    Document("d1", "the boundary layer of a flat plate in supersonic flow", "boundary layers"),
    Document("d2", "heat transfer to a cooled wall at hypersonic speed", "heat transfer"),
    Document("d3", "wind tunnel tests of swept wings at low speed"),
    Document("d4", "buckling of thin cylindrical shells under axial compression"),
    Document("d5", "transition of the laminar boundary layer and heat transfer"),
    Document("d6", "flutter of a wing in a wind tunnel"),
]
TOY_TOPICS = [
    Topic("q1", "boundary layer transition"),
    Topic("q2", "heat transfer at hypersonic speeds"),
    Topic("q3", "wing flutter in wind tunnels"),
    Topic("q4", "buckling of shells"),
]
TOY_QRELS = {
    "q1": {"d1": 2, "d5": 1, "d3": 0},
    "q2": {"d2": 2, "d5": 1},
    "q3": {"d6": 2, "d3": 1},
    "q4": {"d4": 1},
}


@pytest.fixture(scope="session")
def toy() -> Collection:
    return Collection.from_documents("toy", TOY_DOCS, TOY_TOPICS, TOY_QRELS)


@pytest.fixture(scope="session")
def cranfield() -> Collection:
    return read_cranfield(require(SHARED / "data" / "cranfield"))
