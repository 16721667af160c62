"""A worker process killed at a random moment of ``--jobs 2`` (while the pool starts, while
it unpickles the evaluator, while it scores, after the last result) ends the evaluation with
one :class:`~cranfield.errors.EvaluationError`, or gives the numbers of this process when the
work was over; never a hang, never a process left behind (issue 30, item 4: a worker killed
while the pool started left the command running for ever)."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from cranfield.errors import CranfieldWarning, EvaluationError
from cranfield.evaluation.evaluator import Evaluator
from tests.fuzz.conftest import fuzz

pytestmark = pytest.mark.slow  # worker processes started for every example

QUERIES = 40


def _inputs(folder: Path) -> tuple[Path, list[Path]]:
    rng = np.random.default_rng(3)
    qrels = folder / "qrels.txt"
    qrels.write_text(
        "".join(
            f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n" for q in range(QUERIES) for d in range(20)
        )
    )
    runs = []
    for r in range(4):
        run = folder / f"run{r}.txt"
        run.write_text(
            "".join(
                f"q{q} Q0 d{d} 0 {rng.random():.6f} r{r}\n"
                for q in range(QUERIES)
                for d in rng.choice(60, size=30, replace=False)
            )
        )
        runs.append(run)
    return qrels, runs


def _children(besides: set[int]) -> list[multiprocessing.Process]:
    """This process's children but those in ``besides``: the workers of the evaluation, not
    the processes that fixtures of other tests keep alive (a session's Dask cluster, when
    pytest-xdist runs a Dask test before this one in the same process)."""
    return [p for p in multiprocessing.active_children() if p.pid not in besides]


def _kill_one(after: float, which: int, stop: threading.Event, besides: set[int]) -> None:
    """SIGKILL the ``which``-th worker seen, ``after`` seconds after it appeared."""
    while not stop.is_set():
        children = _children(besides)
        if len(children) > which:
            if stop.wait(after):
                return
            with contextlib.suppress(ProcessLookupError):  # it ended already: the work is over
                os.kill(children[which].pid, signal.SIGKILL)
            return
        time.sleep(0.001)


@fuzz(4)
@given(after=st.floats(0, 3), which=st.integers(0, 1))
def test_a_worker_killed_at_any_moment(
    tmp_path_factory: pytest.TempPathFactory, after: float, which: int
) -> None:
    folder = tmp_path_factory.mktemp("deaths")
    qrels, runs = _inputs(folder)
    here = Evaluator(qrels, ["AP", "nDCG@10"]).many(runs)
    before = {p.pid for p in multiprocessing.active_children() if p.pid is not None}
    stop = threading.Event()
    killer = threading.Thread(target=_kill_one, args=(after, which, stop, before), daemon=True)
    killer.start()
    died = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CranfieldWarning)
            there = Evaluator(qrels, ["AP", "nDCG@10"]).many(runs, jobs=2)
    except EvaluationError as exc:
        died = str(exc)
    finally:
        stop.set()
        killer.join()
    assert _children(before) == []
    if died is not None:
        event("a worker died: one error")
        assert died.startswith("a worker process died while run 'run"), died
        return
    event("the work was over first")
    for m in here.measures:
        np.testing.assert_array_equal(here.matrix(m), there.matrix(m))
