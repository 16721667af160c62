"""Training the fusion methods that learn from qrels: :func:`train` reads the qrels and the
runs, ranks the runs as :func:`~cranfield.fusion.fuse` does, and keeps which positions of
each run hold relevant documents on the training queries (:mod:`cranfield.fusion.supervised`
says what each method makes of it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cranfield.fusion.fuse import FusionInputs, _loaded, fusion_inputs
from cranfield.fusion.supervised import FusionTraining, training_table

if TYPE_CHECKING:
    from cranfield._types import FusionNormalization
    from cranfield.fusion.fuse import RankSource
    from cranfield.io.load import QrelsLike, RunLike

__all__ = ["train"]


def train(
    qrels: QrelsLike,
    runs: Sequence[RunLike] | Mapping[str, RunLike] | FusionInputs,
    *,
    queries: Sequence[str] | None = None,
    norm: FusionNormalization = "min-max",
    ranks: RankSource = "score",
    relevance_level: int = 1,
) -> FusionTraining:
    """Learn, for each run, which positions of its ranking hold relevant documents on the
    training queries: what BayesFuse, PosFuse, ProbFuse, SegFuse, SlideFuse and MAPFuse fuse
    with (``fuse(runs, "posfuse", training=train(qrels, runs))``).

    Parameters
    ----------
    qrels:
        The judgments of the training queries (any qrels :func:`cranfield.load_qrels` reads).
        A document is relevant at ``relevance_level`` or above (default 1, ranx's level).
    runs:
        The runs, as for :func:`~cranfield.fusion.fuse` (the same runs, in the same order,
        as those fused later).
    queries:
        The training queries (default: every query of ``qrels``); each must be in ``qrels``.
    norm, ranks:
        How each run is ranked, as for :func:`~cranfield.fusion.fuse` (only
        ``min-max-inverted`` changes the ranking).
    relevance_level:
        The lowest relevance that counts as relevant (``-l`` on the command line).

    Raises
    ------
    cranfield.errors.OptionError
        A training query that the qrels do not judge, or no training query.

    Examples
    --------
    >>> from cranfield import load_qrels, load_run
    >>> from cranfield.fusion import fuse
    >>> a = load_run({"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 2.0, "d4": 1.0}}, name="a")
    >>> b = load_run({"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d4": 2.0, "d3": 1.0}}, name="b")
    >>> qrels = load_qrels({"q1": {"d1": 1}})  # a finds it first, b second
    >>> t = train(qrels, [a, b])
    >>> t.position_probs(0).tolist(), t.position_probs(1).tolist()
    ([1.0, 0.0], [0.0, 1.0])
    >>> fuse([a, b], "posfuse", training=t).to_dict()["q2"]  # P_a(0) + P_b(1), P_a(1) + P_b(0)
    {'d3': 2.0, 'd4': 0.0}
    """
    from cranfield.io.load import load_qrels

    inputs = (
        runs
        if isinstance(runs, FusionInputs)
        else fusion_inputs(_loaded(runs), ranks=ranks, inverted=norm == "min-max-inverted")
    )
    return training_table(
        load_qrels(qrels),
        inputs.table,
        inputs.names,
        table_queries=inputs.queries,
        queries=queries,
        norm=norm,
        ranks=inputs.ranks,
        relevance_level=relevance_level,
    )
