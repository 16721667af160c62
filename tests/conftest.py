"""Shared test fixtures: where the shared data lives (``../shared`` beside the repository)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CRANFIELD_SHARED", REPO.parent / "shared"))
CONFORMANCE = SHARED / "conformance" / "trec_eval"
REAL = SHARED / "data" / "real"

# matplotlib without a screen, for every test that draws (the report, `cranfield plot`)
os.environ.setdefault("MPLBACKEND", "Agg")


def require(path: Path) -> Path:
    """Fail (never skip) when shared test data is missing: a silent skip would hide it."""
    if not path.exists():
        pytest.fail(
            f"shared test data not found at {path}; clone with ../shared beside the repo "
            "or set CRANFIELD_SHARED"
        )
    return path


def one_sentence(exc: pytest.ExceptionInfo[BaseException]) -> None:
    """The error message is one sentence: one line, a capital first, a full stop last."""
    msg = str(exc.value)
    assert "\n" not in msg
    assert msg[0].isupper()
    assert msg.endswith(".")
