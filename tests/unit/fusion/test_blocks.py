"""cranfield.fusion.blocks: fusing in blocks of whole queries gives the file that fusing the
whole runs gives, byte for byte (streamed in small blocks, or cut for workers); streaming
holds a bounded amount of memory; runs that streaming cannot read are refused in one
sentence."""

from __future__ import annotations

import tracemalloc
from typing import TYPE_CHECKING

import numpy as np
import pytest

from cranfield import save_run
from cranfield.errors import EvaluationError, InputError, OptionError
from cranfield.evaluation.execution import Execution
from cranfield.fusion import METHODS, fuse, train
from cranfield.fusion.blocks import FusionPlan, fuse_stream, fuse_to_file

if TYPE_CHECKING:
    from pathlib import Path


def write_runs(folder: Path, n_queries: int, depth: int = 30, seed: int = 7) -> list[Path]:
    """Three TREC runs, queries in bytewise order: scores with ties (two decimals), a doc
    set that overlaps between runs, a query that only the first run has, one the third
    lacks."""
    rng = np.random.default_rng(seed)
    queries = sorted(f"q{i}" for i in range(n_queries))
    paths = []
    for r in range(3):
        lines = []
        for k, q in enumerate(queries):
            if (r > 0 and k == 0) or (r == 2 and k == 1):
                continue
            docs = rng.choice(3 * depth, size=depth, replace=False)
            scores = np.sort(np.round(rng.random(depth) * 5, 2))[::-1]
            lines += [
                f"{q} Q0 d{d} {i + 1} {s} r{r}\n"
                for i, (d, s) in enumerate(zip(docs, scores, strict=True))
            ]
        path = folder / f"r{r}.txt"
        path.write_text("".join(lines))
        paths.append(path)
    return paths


CASES = [
    ("rrf", "min-max", None),
    ("wsum", "zmuv", (0.2, 0.5, 0.3)),
    ("mnz", "sum", None),
    ("med", "min-max", None),  # grouped by polars, not by the sorted keys
    ("bordafuse", "min-max", None),
    ("w_bordafuse", "min-max", (1.0, 2.0, 0.5)),
    ("sum", "borda", None),
    ("isr", "min-max-inverted", None),
]


@pytest.mark.parametrize(("method", "norm", "weights"), CASES)
def test_streamed_in_small_blocks_equals_fused_whole(
    tmp_path: Path, method: str, norm: str, weights: tuple[float, ...] | None
) -> None:
    paths = write_runs(tmp_path, 40)
    whole = tmp_path / "whole.run"
    save_run(fuse(paths, method, norm=norm, weights=weights), whole)  # type: ignore[arg-type]
    streamed = tmp_path / "streamed.run"
    plan = FusionPlan(("r0", "r1", "r2"), method, norm, weights)  # type: ignore[arg-type]
    # about 3 queries a block: the blocks of the three runs end at different queries
    lines, queries = fuse_stream(paths, streamed, plan, block_bytes=2_000)
    assert streamed.read_bytes() == whole.read_bytes()
    assert queries == 40
    assert lines == whole.read_text().count("\n")


def _some_qrels(n_queries: int, depth: int = 30) -> dict[str, dict[str, int]]:
    """Qrels of every other query of :func:`write_runs`' runs: a third of the doc ids
    relevant."""
    return {f"q{i}": {f"d{d}": 1 for d in range(0, 3 * depth, 3)} for i in range(0, n_queries, 2)}


def test_every_method_streamed_equals_fused_whole(tmp_path: Path) -> None:
    """Condorcet sorts each query on its own; a trained method's training, learnt once up
    front, scores every block: both give the whole fusion's file in blocks too."""
    paths = write_runs(tmp_path, 12, depth=10)
    training = train(_some_qrels(12, 10), paths)
    for method, spec in METHODS.items():
        weights = (0.3, 0.3, 0.4) if spec.weighted else None
        learnt = training if spec.trained else None
        whole = tmp_path / f"{method}.whole"
        save_run(fuse(paths, method, weights=weights, training=learnt), whole)
        streamed = tmp_path / f"{method}.streamed"
        plan = FusionPlan(("a", "b", "c"), method, weights=weights, training=learnt)
        fuse_stream(paths, streamed, plan, block_bytes=700)
        assert streamed.read_bytes() == whole.read_bytes(), method


def test_a_trained_method_needs_its_training_before_any_block(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="'training' option must be given for method"):
        FusionPlan(("a", "b"), "posfuse")
    training = train(_some_qrels(4, 30), write_runs(tmp_path, 4))
    with pytest.raises(OptionError, match="learnt from the same 2 runs"):
        FusionPlan(("a", "b"), "posfuse", training=training)
    with pytest.raises(OptionError, match="learnt from runs ranked as they are fused"):
        FusionPlan(("a", "b", "c"), "posfuse", "min-max-inverted", training=training)


@pytest.mark.parametrize("method", ["rrf", "wsum", "bordafuse", "w_condorcet", "probfuse"])
def test_cut_for_workers_equals_fused_whole(tmp_path: Path, method: str) -> None:
    from cranfield import load_run

    paths = write_runs(tmp_path, 30)
    runs = [load_run(p) for p in paths]
    weights = (0.2, 0.5, 0.3) if METHODS[method].weighted else None
    training = train(_some_qrels(30), runs) if METHODS[method].trained else None
    whole = tmp_path / "whole.run"
    save_run(fuse(runs, method, weights=weights, training=training), whole)  # type: ignore[arg-type]
    cut = tmp_path / "cut.run"
    plan = FusionPlan(("r0", "r1", "r2"), method, weights=weights, training=training)  # type: ignore[arg-type]
    # this process, but the queries cut into 4 blocks as for 1 worker
    assert fuse_to_file(runs, cut, plan, Execution()) == (len(load_run(whole)), 30)
    assert cut.read_bytes() == whole.read_bytes()


def _peak(call: object) -> int:
    tracemalloc.start()
    try:
        call()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_streaming_holds_a_bounded_amount_of_memory(tmp_path: Path) -> None:
    """Eight times the queries: the streamed fusion's peak of Python and numpy memory stays
    that of a few blocks, while fusing the runs whole grows with them."""
    small, large = tmp_path / "small", tmp_path / "large"
    small.mkdir()
    large.mkdir()
    plan = FusionPlan(("r0", "r1", "r2"), "rrf")
    peaks = {}
    warm = write_runs(tmp_path, 5, depth=5)  # modules imported before anything is traced
    fuse_stream(warm, tmp_path / "w.run", plan, block_bytes=10_000)
    fuse(warm, "rrf")
    for folder, n in ((small, 50), (large, 400)):
        paths = write_runs(folder, n, depth=40)
        peaks[n, "stream"] = _peak(
            lambda paths=paths, folder=folder: fuse_stream(
                paths, folder / "s.run", plan, block_bytes=10_000
            )
        )
        peaks[n, "whole"] = _peak(lambda paths=paths: fuse(paths, "rrf"))
    # the fused whole grows with the runs (8 times the queries: over 4 times the memory);
    # streamed, a few blocks and the readers' buffers whatever the runs' size: the peak
    # grows by less than a tenth of the whole's growth (the ids of the queries done, kept to
    # check that each query is one stretch)
    assert peaks[400, "whole"] > 4 * peaks[50, "whole"]
    assert peaks[400, "stream"] < 1.2 * peaks[50, "stream"]
    grown = peaks[400, "stream"] - peaks[50, "stream"]
    assert grown < (peaks[400, "whole"] - peaks[50, "whole"]) / 10


def test_queries_out_of_bytewise_order_are_refused_in_one_sentence(tmp_path: Path) -> None:
    a = tmp_path / "a.run"
    a.write_text("q1 Q0 d1 1 2.0 a\nq2 Q0 d1 1 2.0 a\nq10 Q0 d2 1 1.0 a\n")  # numeric order
    b = tmp_path / "b.run"
    b.write_text("q1 Q0 d1 1 2.0 b\n")
    out = tmp_path / "out.run"
    with pytest.raises(InputError) as exc:
        fuse_stream([a, b], out, FusionPlan(("a", "b")), block_bytes=1_000)
    assert str(exc.value) == (
        f"{a}: data line 3: query 'q10' comes after query 'q2'; fusing with --stream needs "
        "each run's queries in bytewise order (sort the file with 'LC_ALL=C sort -s -k1,1', "
        "or fuse without --stream)"
    )
    assert not out.exists()


def test_a_query_in_two_stretches_is_refused(tmp_path: Path) -> None:
    a = tmp_path / "a.run"
    a.write_text("q1 Q0 d1 1 2.0 a\nq2 Q0 d1 1 2.0 a\nq1 Q0 d2 1 1.0 a\n")
    b = tmp_path / "b.run"
    b.write_text("q1 Q0 d1 1 2.0 b\n")
    with pytest.raises(InputError, match="not contiguous; streaming needs a run grouped by query"):
        fuse_stream([a, b], tmp_path / "out.run", FusionPlan(("a", "b")), block_bytes=1_000)


def test_runs_sharing_no_query_leave_no_output(tmp_path: Path) -> None:
    a = tmp_path / "a.run"
    a.write_text("q1 Q0 d1 1 2.0 a\n")
    b = tmp_path / "b.run"
    b.write_text("q2 Q0 d1 1 2.0 b\n")
    out = tmp_path / "out.run"
    with pytest.raises(EvaluationError) as exc:
        fuse_stream([a, b], out, FusionPlan(("a", "b")), block_bytes=1_000)
    assert str(exc.value) == (
        "The runs share no query, so there is nothing to fuse: 'a' (1 query), 'b' (1 query)."
    )
    assert not out.exists()


def test_a_plan_checks_its_options_before_anything_is_read() -> None:
    from cranfield.errors import OptionError

    with pytest.raises(OptionError, match="one weight per run"):
        FusionPlan(("a", "b"), "wsum", weights=(1.0,))
