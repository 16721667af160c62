"""Per-topic sums and running sums equal a plain sequential loop, bit for bit.

trec_eval adds a topic's contributions one document at a time, so the kernels must round
exactly as that loop does, whichever shortcut they take (sums over non-zero rows only,
rows of equal-length topics summed in place, padded rows otherwise).
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield.data.ranking import Judgments, Ranking
from cranfield.kernels.context import EvalContext, segment_cumsum

_values = st.sampled_from([0.0, -0.0, 1.0, 0.1, 1e16, -1e16, 3.3, math.inf, math.nan, 2.0**-1074])


def _context(lengths: list[int]) -> EvalContext:
    n = len(lengths)
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    ranking = Ranking(
        topics=[f"t{i}" for i in range(n)],
        offsets=offsets,
        rel=np.zeros(int(offsets[-1]), dtype=np.int64),
        source_rows=np.arange(int(offsets[-1])),
        source_doc_id=None,  # type: ignore[arg-type]  # not read by the sums
        missing=np.zeros(n, dtype=bool),
        judgments=Judgments(
            np.zeros(n + 1, np.int64), np.zeros(0, np.int64), np.zeros(n, np.int64)
        ),
        run_tag="t",
    )
    return EvalContext(ranking)


def _sequential(values: list[float], lengths: list[int]) -> tuple[list[float], list[float]]:
    sums, running, start = [], [], 0
    for n in lengths:
        total = 0.0
        for v in values[start : start + n]:
            total += v
            running.append(total)
        sums.append(total)
        start += n
    return sums, running


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[float], list[int]]:
    same = draw(st.booleans())
    n = draw(st.integers(1, 6))
    if same:
        lengths = [draw(st.integers(1, 9))] * n
    else:
        lengths = draw(st.lists(st.integers(0, 20), min_size=n, max_size=n))
    sparse = draw(st.booleans())
    pick = st.sampled_from([0.0, -0.0, 0.0, 0.0, 0.1, 1e16]) if sparse else _values
    values = draw(st.lists(pick, min_size=sum(lengths), max_size=sum(lengths)))
    return values, lengths


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_sums_equal_the_sequential_loop(case: tuple[list[float], list[int]]) -> None:
    values, lengths = case
    ctx = _context(lengths)
    sums, running = _sequential(values, lengths)
    arr = np.array(values, dtype=np.float64)
    got_sums = ctx.per_topic_sum(arr)
    got_running = segment_cumsum(arr, ctx.offsets)
    np.testing.assert_array_equal(got_sums, np.array(sums))
    np.testing.assert_array_equal(got_running, np.array(running))
    # signs of zero too (assert_array_equal treats -0.0 == 0.0)
    assert [math.copysign(1, x) for x in got_sums] == [math.copysign(1, x) for x in sums]
    # booleans count
    flags = arr > 1
    np.testing.assert_array_equal(
        ctx.per_topic_sum(flags), np.array(_sequential([float(f) for f in flags], lengths)[0])
    )
