"""Fusing runs: :func:`fuse`, every method of :mod:`cranfield.fusion.methods` over all
queries at once.

The runs become one long table, one row per (run, query, document), with each row's
normalised score, its position in its run's ranking and its run's list length; the
normalisations are numpy over each run's per-query segments. The rows are grouped by
(query, document) with one stable sort of 64-bit keys (query code, doc id hash; rows that
share a key are confirmed to share the doc id, and polars' ``group_by`` on the strings takes
over if two ids' hashes collide), and each method is numpy's ``reduceat`` over the groups
(its sums, counts and extremes). No Python loop runs over queries or documents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final, Literal

import numpy as np

from cranfield._types import FUSION_METHODS, FUSION_NORMALIZATIONS
from cranfield._validate import check_choice, check_float, check_int
from cranfield.errors import EvaluationError, OptionError
from cranfield.fusion.methods import CONDORCET, METHODS, MethodSpec, ParamSpec

if TYPE_CHECKING:
    import polars as pl
    from numpy.typing import NDArray

    from cranfield._types import FusionMethod, FusionNormalization
    from cranfield.data.run import Run
    from cranfield.fusion.supervised import FusionTraining
    from cranfield.io.load import RunLike

__all__ = ["RANK_SOURCES", "FusionInputs", "RankSource", "fuse", "fusion_inputs", "method_params"]

RankSource = Literal["score", "input"]
"""Where a run's ranking comes from: its scores (descending, ties by doc id descending, as
trec_eval and ranx rank), or the order of its lines (as pyserini's RRF reads the rank column
of a file that numbers its lines in order)."""
RANK_SOURCES: Final = ("score", "input")
_FLOOR: Final = 1e-9  # ranx's smallest denominator of a normalisation


@dataclass(frozen=True, eq=False)
class FusionInputs:
    """The runs to fuse as one long table, read and ranked once: what :func:`fuse` and the
    tuning share, so that trying many parameters reads and ranks the runs once.

    ``table`` has one row per (run, query, document): ``query_id``, ``doc_id``, ``r`` (the
    run's position), ``score`` (as given), ``rank`` (0-based position in the run's
    ranking) and ``m`` (the length of the run's list for the query). ``segments`` are the
    lengths of the table's (run, query) stretches, in order.
    """

    names: tuple[str, ...]
    table: pl.DataFrame
    segments: NDArray[np.int64]
    ranks: RankSource
    inverted: bool
    queries: list[str]
    """Every query of any run, bytewise; the table's ``qc`` column is a row's position here."""

    @cached_property
    def groups(self) -> Groups | None:
        """The table's rows grouped by (query, document), shared by every method and setting
        fused from these inputs; ``None`` when a hash could not tell two documents apart
        (then :func:`fuse` groups the strings themselves)."""
        return _grouped(self.table, len(self.queries))


@dataclass(frozen=True, eq=False)
class Groups:
    """Rows of a :class:`FusionInputs` table grouped by (query, document): ``order`` sorts
    the rows so that each group is one stretch starting at ``starts`` (groups by query code,
    the rows of a group in the order of the runs); ``query_codes`` is each group's query."""

    order: NDArray[np.int64]
    starts: NDArray[np.int64]
    query_codes: NDArray[np.int64]
    hashes: NDArray[np.uint64]
    """The 64-bit hash of each group's doc id (polars' ``hash()``, as ``doc_keys``)."""


_HASH_BITS: Final = 40  # of a doc id's 64-bit hash, beside 24 bits of query code


def _stable_order(columns: dict[str, NDArray[Any]], *, descending: list[bool]) -> NDArray[np.int64]:
    """The row order that sorts ``columns`` (numeric, the first the most significant), equal
    rows kept in their order: polars' multi-threaded sort, which is stable with
    ``maintain_order`` and faster than ``numpy.lexsort`` (2.5 s against 1.5 s of CPU for
    8M rows of two keys, measured once)."""
    import polars as pl

    frame = pl.DataFrame(columns).with_row_index("row")
    ordered = frame.sort(list(columns), descending=descending, maintain_order=True)
    return ordered.get_column("row").to_numpy().astype(np.int64)


def _grouped(table: pl.DataFrame, n_queries: int) -> Groups | None:
    """One stable sort of 64-bit keys (query code, then 40 bits of the doc id's hash); two
    rows with one key are checked to have one doc id, so a collision of hashes is found,
    never merged (``None``: the caller groups the strings)."""
    if table.height == 0 or n_queries >= 1 << (64 - _HASH_BITS):
        return None
    qc = table.get_column("qc").to_numpy().astype(np.uint64)
    hashed = table.get_column("doc_id").hash().to_numpy()  # as row_index.doc_keys hashes
    key = (qc << np.uint64(_HASH_BITS)) | (hashed >> np.uint64(64 - _HASH_BITS))
    order = _stable_order({"key": key}, descending=[False])
    sorted_keys = key[order]
    repeat = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1]) + 1
    if repeat.size:
        docs = table.get_column("doc_id")
        if not (docs.gather(order[repeat]) == docs.gather(order[repeat - 1])).all():
            return None
    new = np.ones(order.size, dtype=bool)
    new[repeat] = False
    starts = np.flatnonzero(new)
    return Groups(
        order,
        starts,
        (sorted_keys[starts] >> np.uint64(_HASH_BITS)).astype(np.int64),
        hashed[order[starts]],
    )


def fusion_inputs(
    runs: Sequence[Run], *, ranks: RankSource = "score", inverted: bool = False
) -> FusionInputs:
    """``runs`` ranked and stacked (:class:`FusionInputs`).

    ``inverted`` ranks each run by score ascending (ties by doc id descending): the ranking
    of ``norm="min-max-inverted"``, for runs whose scores are distances.

    Raises
    ------
    cranfield.errors.OptionError
        Fewer than 2 runs.
    cranfield.errors.EvaluationError
        Runs that share no query.
    """
    import polars as pl

    check_choice("ranks", ranks, RANK_SOURCES)
    if len(runs) < 2:
        raise OptionError("runs", "at least 2 runs", len(runs))
    query_sets = [set(run.topics) for run in runs]
    shared = set.intersection(*query_sets)
    if not shared:
        listed = ", ".join(
            f"'{run.name}' ({len(q)} quer{'y' if len(q) == 1 else 'ies'})"
            for run, q in zip(runs, query_sets, strict=True)
        )
        raise EvaluationError(f"The runs share no query, so there is nothing to fuse: {listed}.")
    every = sorted(set.union(*query_sets))  # code point order is UTF-8 byte order
    code = {q: i for i, q in enumerate(every)}
    frames = []
    segments = []
    for r, run in enumerate(runs):
        ordered = _ranked(run, ranks, inverted)
        queries, lens = _query_lengths(run, ordered)
        starts = np.concatenate(([0], np.cumsum(lens)[:-1]))
        rank = np.arange(ordered.height, dtype=np.int64) - np.repeat(starts, lens)
        qc = np.repeat(np.array([code[q] for q in queries], dtype=np.uint64), lens)
        frames.append(
            ordered.with_columns(
                pl.lit(r, dtype=pl.Int64).alias("r"),
                pl.Series("rank", rank),
                pl.Series("m", np.repeat(lens, lens)),
                pl.Series("qc", qc),
            )
        )
        segments.append(lens)
    return FusionInputs(
        names=tuple(run.name for run in runs),
        table=pl.concat(frames, how="vertical"),
        segments=np.concatenate(segments),
        ranks=ranks,
        inverted=inverted,
        queries=every,
    )


def _query_lengths(run: Run, ordered: pl.DataFrame) -> tuple[list[str], NDArray[np.int64]]:
    """The queries of ``ordered`` (``run``'s rows grouped by query, bytewise) and their
    lengths: from the run's own stretches when each query is one stretch, else counted."""
    from cranfield.data.row_index import stretches

    values, lens = run.query_stretches
    if len(set(values)) != len(values):
        return stretches(ordered.get_column("query_id"))
    pairs = sorted(zip(values, lens.tolist(), strict=True))
    return [q for q, _ in pairs], np.array([n for _, n in pairs], dtype=np.int64)


def _ranked(run: Run, ranks: RankSource, inverted: bool) -> pl.DataFrame:
    """``run``'s rows grouped by query (bytewise) in its ranking's order."""
    import polars as pl

    from cranfield.data.ranking import trec_eval_order
    from cranfield.data.run import Run

    frame = run.frame.select("query_id", "doc_id", "score")
    if ranks == "input":
        return frame.sort("query_id", maintain_order=True)
    if inverted:
        flipped = Run(frame.with_columns(-pl.col("score")), name=run.name)
        order = trec_eval_order(flipped)
    else:
        order = trec_eval_order(run)
    return frame.select(pl.all().gather(order))


def method_params(spec: MethodSpec, params: Mapping[str, Any] | None) -> dict[str, float]:
    """``params`` checked against ``spec``'s parameters, with the defaults of the others.

    Raises
    ------
    cranfield.errors.OptionError
        An unknown parameter, or a value out of its range.
    """
    given = dict(params or {})
    known = {p.name for p in spec.params}
    for key in given:
        if key not in known:
            takes = ", ".join(sorted(known)) if known else "none"
            raise OptionError(
                "params", f"parameters of method '{spec.name}' (it takes: {takes})", key
            )
    return {p.name: _checked_param(spec, p, given.get(p.name, p.default)) for p in spec.params}


def _checked_param(spec: MethodSpec, p: ParamSpec, value: object) -> float:
    try:
        if p.integer:
            return float(check_int(p.name, value, minimum=None if p.low is None else int(p.low)))
        return check_float(
            p.name, value, minimum=p.low, maximum=p.high, above=p.open_low, below=p.open_high
        )
    except OptionError as exc:
        raise OptionError(
            "params", f"{exc.expected} for '{p.name}' of method '{spec.name}'", value
        ) from None


def _weights(
    spec: MethodSpec, weights: Sequence[float] | None, names: Sequence[str]
) -> list[float]:
    if not spec.weighted:
        if weights is not None:
            raise OptionError(
                "weights", f"left out for method '{spec.name}', which takes no weights", weights
            )
        return [1.0] * len(names)
    if weights is None:
        return [1.0] * len(names)
    given = list(weights)
    if len(given) != len(names):
        raise OptionError(
            "weights", f"one weight per run ({len(names)}: {', '.join(names)})", given
        )
    out = [check_float("weights", w, minimum=0.0) for w in given]
    if not any(out):
        raise OptionError("weights", "numbers >= 0, not all 0", given)
    return out


def fuse(
    runs: Sequence[RunLike] | Mapping[str, RunLike] | FusionInputs,
    method: FusionMethod = "rrf",
    *,
    norm: FusionNormalization = "min-max",
    weights: Sequence[float] | None = None,
    params: Mapping[str, Any] | None = None,
    ranks: RankSource = "score",
    name: str | None = None,
    training: FusionTraining | None = None,
) -> Run:
    """Fuse ``runs`` into one run by ``method`` (:data:`cranfield.fusion.METHODS`).

    Parameters
    ----------
    runs:
        At least two runs: paths in any format cranfield reads, ``Run`` objects, DataFrames
        or dicts, as a list or a ``{name: run}`` mapping (named by
        :class:`~cranfield.io.runset.RunSet`); or the :class:`FusionInputs` of
        :func:`fusion_inputs`.
    method:
        ``sum``, ``mnz``, ``anz``, ``gmnz``, ``max``, ``min``, ``med``, ``wsum``, ``wmnz``,
        ``mixed``, ``rrf``, ``isr``, ``log_isr``, ``logn_isr``, ``rbc``, ``bordafuse``,
        ``w_bordafuse``, ``condorcet``, ``w_condorcet``, or the trained ``bayesfuse``,
        ``posfuse``, ``probfuse``, ``segfuse``, ``slidefuse``, ``mapfuse`` (each one's
        formula, paper and treatment of a missing document are
        in :data:`~cranfield.fusion.METHODS`).
    norm:
        The per-query normalisation of each run's scores before a score method
        (:data:`~cranfield.fusion.NORMALIZATIONS`; ranx's default, ``min-max``). A rank
        method reads only the runs' rankings, which every normalisation keeps except
        ``min-max-inverted`` (which reverses them); ``borda`` gives documents without a rank
        and is refused with a rank method.
    weights:
        One weight (a number >= 0) per run, for the weighted methods; 1 each if not given.
    params:
        The method's parameters (``{"k": 60}`` for ``rrf``, ``gamma`` for ``gmnz``,
        ``sigma`` for ``logn_isr``, ``phi`` for ``rbc``, ``n_segments`` for ``probfuse``,
        ``w`` for ``slidefuse``), checked against their ranges.
    ranks:
        ``"score"`` (default): each run is ranked by its scores, descending, ties by doc id
        descending (trec_eval's rule); ``"input"``: by the order of its lines in each query,
        as pyserini's RRF reads a file's rank column (it uses the number written, so a file
        numbered from 0 or out of line order gives pyserini other values).
    name:
        The fused run's name and tag (default: the method's name).
    training:
        What a trained method (``bayesfuse``, ``posfuse``, ``probfuse``, ``segfuse``,
        ``slidefuse``, ``mapfuse``) learnt from the qrels of training queries
        (:func:`cranfield.fusion.train`); required by those methods, refused by the others.

    Returns
    -------
    Run
        One row per (query, document) retrieved by any run, for every query of any run,
        ranked by fused score descending, ties by doc id descending.

    Raises
    ------
    cranfield.errors.OptionError
        An unknown method or normalisation, weights for a method without them or not one
        per run, a parameter out of range, ``borda`` with a rank method.
    cranfield.errors.EvaluationError
        Runs that share no query, or a score method given a score that is not finite.

    Notes
    -----
    Each method reproduces ranx 0.3's ``fuse`` (same documents, same order except inside
    ties, where ranx's order is not defined; scores within 1e-9 on real runs): Condorcet
    fusion given the same order of entry into its sort, which in ranx follows the process's
    string hash seed (:mod:`cranfield.fusion.condorcet`), and the trained methods given the
    same training queries (:mod:`cranfield.fusion.supervised`).

    Examples
    --------
    >>> from cranfield import load_run
    >>> a = load_run({"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, name="a")
    >>> b = load_run({"q1": {"d3": 0.9, "d1": 0.5}}, name="b")
    >>> fused = fuse([a, b], "rrf", params={"k": 0})
    >>> fused.to_dict()["q1"]  # d1: 1/1 + 1/2; d3: 1/3 + 1/1; d2: 1/2
    {'d1': 1.5, 'd3': 1.3333333333333333, 'd2': 0.5}
    >>> fuse([a, b], "sum", norm="none").to_dict()["q1"]
    {'d1': 3.5, 'd2': 2.0, 'd3': 1.9}
    """
    check_choice("method", method, FUSION_METHODS)
    check_choice("norm", norm, FUSION_NORMALIZATIONS)
    spec = METHODS[method]
    if spec.reads_ranks and norm == "borda":
        raise OptionError(
            "norm",
            f"not 'borda' for the rank method '{method}' (borda gives unranked documents "
            "scores, not ranks)",
            norm,
        )
    from cranfield.fusion.supervised import checked_training

    values = method_params(spec, params)
    inverted = norm == "min-max-inverted"
    if isinstance(runs, FusionInputs):
        inputs = runs
        if spec.reads_ranks and inputs.inverted != inverted:
            raise OptionError(
                "norm",
                f"{'min-max-inverted' if inputs.inverted else 'not min-max-inverted'} for "
                "inputs ranked that way by fusion_inputs",
                norm,
            )
    else:
        inputs = fusion_inputs(_loaded(runs), ranks=ranks, inverted=inverted and spec.reads_ranks)
    w = _weights(spec, weights, inputs.names)
    trained = checked_training(
        spec, training, inputs.names, inverted=inputs.inverted, ranks=inputs.ranks
    )
    if trained is not None or spec.name in CONDORCET:
        fused = _fused_apart(inputs, spec, norm, w, values, trained)
    else:
        fused = _fused(inputs, spec, norm, w, values)
    return _as_run(fused, name or method, method, norm)


def _fused_apart(
    inputs: FusionInputs,
    spec: MethodSpec,
    norm: str,
    weights: list[float],
    params: dict[str, float],
    training: FusionTraining | None,
) -> pl.DataFrame:
    """The methods fused outside the grouped sums: Condorcet (a comparison sort per query,
    :mod:`cranfield.fusion.condorcet`) and the trained ones
    (:mod:`cranfield.fusion.supervised`)."""
    from cranfield.fusion.supervised import trained_scores

    if training is None:
        from cranfield.fusion.condorcet import condorcet_scores

        return condorcet_scores(inputs.table, inputs.queries, weights)
    normalized = None
    if spec.kind == "score":
        _check_finite(inputs)
        normalized = _normalized(inputs, norm)
    return trained_scores(inputs.table, len(inputs.names), spec, training, params, normalized)


def _loaded(runs: Sequence[RunLike] | Mapping[str, RunLike]) -> list[Run]:
    """``runs`` loaded and named by :class:`~cranfield.io.runset.RunSet` (paths in any
    format, ``Run`` objects, dicts; a mapping names them)."""
    from cranfield.io.runset import RunSet, several_runs

    run_set = several_runs(runs) if not isinstance(runs, RunSet) else runs
    return [run_set.load(i) for i in range(len(run_set))]


def _per_segment(
    ufunc: np.ufunc, values: NDArray[np.float64], starts: NDArray[np.int64]
) -> NDArray[np.float64]:
    """``ufunc`` reduced over each segment of ``values`` starting at ``starts`` (none empty)."""
    return np.asarray(ufunc.reduceat(values, starts), dtype=np.float64)


def _normalized(inputs: FusionInputs, norm: str) -> NDArray[np.float64]:
    """Each row's score normalised within its (run, query) segment (not ``borda``)."""
    s = inputs.table.get_column("score").to_numpy().astype(np.float64, copy=False)
    lens = inputs.segments
    starts = np.concatenate(([0], np.cumsum(lens)[:-1]))

    def each(values: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.repeat(values, lens)

    out: NDArray[np.float64]
    if norm == "none":
        out = s
    elif norm == "rank":
        out = 1.0 - inputs.table.get_column("rank").to_numpy() / each(lens.astype(np.float64))
    elif norm in ("min-max", "min-max-inverted"):
        low = _per_segment(np.minimum, s, starts)
        high = _per_segment(np.maximum, s, starts)
        den = each(np.maximum(high - low, _FLOOR))
        out = (s - each(low)) / den if norm == "min-max" else (each(high) - s) / den
    elif norm == "max":
        out = s / each(np.maximum(_per_segment(np.maximum, s, starts), _FLOOR))
    elif norm == "sum":
        low = _per_segment(np.minimum, s, starts)
        den = np.maximum(_per_segment(np.add, s, starts) - low * lens, _FLOOR)
        out = (s - each(low)) / each(den)
    else:  # zmuv: the population standard deviation, as numpy's default
        centred = s - each(_per_segment(np.add, s, starts) / lens)
        std = np.sqrt(_per_segment(np.add, centred * centred, starts) / lens)
        out = centred / each(np.maximum(std, _FLOOR))
    return out


def _check_finite(inputs: FusionInputs) -> None:
    import polars as pl

    bad = inputs.table.filter(~pl.col("score").is_finite())
    if bad.height:
        row = bad.row(0, named=True)
        raise EvaluationError(
            f"Run '{inputs.names[row['r']]}' gives document '{row['doc_id']}' of query "
            f"'{row['query_id']}' the score {row['score']}: fusing scores needs finite scores."
        )


def _fused(
    inputs: FusionInputs,
    spec: MethodSpec,
    norm: str,
    weights: list[float],
    params: dict[str, float],
) -> pl.DataFrame:
    """``query_id, doc_id, score``: the fused score of every (query, document)."""
    import polars as pl

    table = inputs.table.with_columns(
        pl.Series("w", np.asarray(weights, dtype=np.float64)[inputs.table.get_column("r")])
    )
    if spec.kind == "score":
        _check_finite(inputs)
        if norm == "borda":
            table = _borda_dense(table, weights)
        else:
            table = table.with_columns(pl.Series("v", _normalized(inputs, norm)))
    groups = None if spec.name == "med" or norm == "borda" else inputs.groups
    if groups is not None:
        return _fused_sorted(inputs, table, groups, spec, weights, params)
    keys = ["query_id", "doc_id"]
    grouped = table.group_by(keys).agg(_aggregates(spec, params))
    if spec.name in ("bordafuse", "w_bordafuse"):
        return _borda_points(inputs, grouped, weights)
    return grouped.select(*keys, pl.col("score"))


def _fused_sorted(
    inputs: FusionInputs,
    table: pl.DataFrame,
    groups: Groups,
    spec: MethodSpec,
    weights: list[float],
    params: dict[str, float],
) -> pl.DataFrame:
    """``qc, query_id, doc_id, score`` by sums over the (query, document) groups of a stable
    sort (:attr:`FusionInputs.groups`): numpy's ``reduceat`` over each group, the rows of a
    group in the order of the runs."""
    import polars as pl

    order, starts = groups.order, groups.starts
    n = np.diff(np.append(starts, order.size)).astype(np.float64)

    def column(name: str) -> NDArray[np.float64]:
        return table.get_column(name).to_numpy().astype(np.float64, copy=False)[order]

    def total(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return _per_segment(np.add, x, starts)

    name = spec.name
    if spec.kind == "score":
        v = column("v")
        w = column("w")
        by_name = {
            "sum": lambda: total(v),
            "mnz": lambda: total(v) * n,
            "anz": lambda: total(v) / n,
            "gmnz": lambda: total(v) * n ** params.get("gamma", 1.0),
            "max": lambda: _per_segment(np.maximum, v, starts),
            "min": lambda: _per_segment(np.minimum, v, starts),
            "wsum": lambda: total(w * v),
            "wmnz": lambda: total(v) * total(w),
            "mixed": lambda: total(w * v) * np.sqrt(n),
        }
        score = by_name[name]()
    else:
        i = column("rank")
        if name == "rrf":
            score = total(1.0 / (params["k"] + i + 1.0))
        elif name in ("isr", "log_isr", "logn_isr"):
            inverse_square = total(1.0 / ((i + 1.0) * (i + 1.0)))
            factor = {"isr": n, "log_isr": np.log(n)}.get(name)
            score = inverse_square * (np.log(n + params["sigma"]) if factor is None else factor)
        elif name == "rbc":
            score = total((1.0 - params["phi"]) * np.power(params["phi"], i))
        else:  # bordafuse, w_bordafuse: see _borda_points
            w = column("w")
            qc = groups.query_codes
            c = np.bincount(qc, minlength=len(inputs.queries)).astype(np.float64)[qc]
            firsts = table.filter(pl.col("rank") == 0)
            wm = np.bincount(
                firsts.get_column("qc").to_numpy().astype(np.int64),
                weights=firsts.get_column("w").to_numpy() * firsts.get_column("m").to_numpy(),
                minlength=len(inputs.queries),
            )[qc]
            sw, all_w = total(w), float(sum(weights))
            score = (
                c / 2.0 * sw
                - total(w * i)
                + total(w * column("m")) / 2.0
                - sw / 2.0
                + (c * all_w + all_w - wm) / 2.0
            )
    doc = table.get_column("doc_id").gather(order[starts])
    return pl.DataFrame(
        {
            "hash": groups.hashes,
            "qc": groups.query_codes,
            "query_id": pl.Series(inputs.queries, dtype=pl.String).gather(groups.query_codes),
            "doc_id": doc,
            "score": score,
        }
    )


def _aggregates(spec: MethodSpec, params: dict[str, float]) -> list[pl.Expr]:
    import polars as pl

    v, w = pl.col("v"), pl.col("w")
    i = pl.col("rank").cast(pl.Float64)
    n = pl.len().cast(pl.Float64)
    inverse_square = (1.0 / ((i + 1.0) * (i + 1.0))).sum()
    name = spec.name
    by_name: dict[str, pl.Expr] = {
        "sum": v.sum(),
        "mnz": v.sum() * n,
        "anz": v.sum() / n,
        "max": v.max(),
        "min": v.min(),
        "med": v.median(),
        "wsum": (w * v).sum(),
        "wmnz": v.sum() * w.sum(),
        "mixed": (w * v).sum() * n.sqrt(),
        "isr": inverse_square * n,
        "log_isr": inverse_square * n.log(),
    }
    if name in by_name:
        return [by_name[name].alias("score")]
    if name == "gmnz":
        return [(v.sum() * n.pow(params["gamma"])).alias("score")]
    if name == "rrf":
        return [(1.0 / (params["k"] + i + 1.0)).sum().alias("score")]
    if name == "logn_isr":
        return [(inverse_square * (n + params["sigma"]).log()).alias("score")]
    if name == "rbc":
        phi = params["phi"]
        return [((1.0 - phi) * pl.lit(phi).pow(i)).sum().alias("score")]
    # bordafuse, w_bordafuse: the points of the runs that ranked the document, finished in
    # _borda_points once the number of candidates is known
    m = pl.col("m").cast(pl.Float64)
    return [w.sum().alias("sw"), (w * i).sum().alias("swi"), (w * m).sum().alias("swm")]


def _per_query_weighted_lengths(inputs: FusionInputs, weights: list[float]) -> pl.DataFrame:
    """``query_id, wm``: the sum over the runs of weight * list length, per query."""
    import polars as pl

    firsts = inputs.table.filter(pl.col("rank") == 0)
    w = np.asarray(weights, dtype=np.float64)[firsts.get_column("r").to_numpy()]
    return (
        firsts.select("query_id", (pl.Series(w) * pl.col("m").cast(pl.Float64)).alias("wm"))
        .group_by("query_id")
        .agg(pl.col("wm").sum())
    )


def _borda_points(
    inputs: FusionInputs, grouped: pl.DataFrame, weights: list[float]
) -> pl.DataFrame:
    """BordaFuse's points: a run gives ``c - i`` to the document at position ``i`` of its list
    and ``(c - m + 1) / 2`` to each document it did not retrieve (``c`` candidates of the
    query, ``m`` the run's list length). With ``p`` the runs that retrieved ``d``:
    ``sum_p w (c - i) + sum_{not p} w (c - m + 1) / 2 = sum_p w (c/2 - i + m/2 - 1/2) +
    (c W + W - sum_r w m) / 2``, ``W`` the sum of all the weights."""
    import polars as pl

    total = float(sum(weights))
    c = pl.len().over("query_id").cast(pl.Float64)
    per_query = _per_query_weighted_lengths(inputs, weights)
    return (
        grouped.join(per_query, on="query_id", how="left")
        .with_columns(
            (
                c / 2.0 * pl.col("sw")
                - pl.col("swi")
                + pl.col("swm") / 2.0
                - pl.col("sw") / 2.0
                + (c * total + total - pl.col("wm")) / 2.0
            ).alias("score")
        )
        .select("query_id", "doc_id", "score")
    )


def _borda_dense(table: pl.DataFrame, weights: list[float]) -> pl.DataFrame:
    """Borda normalisation: every run gets a row for every candidate of the query, ``v = 1 -
    i / c`` where it ranked the document, ``0.5 - (m - 1) / (2c)`` where it did not (``m`` 0
    for a query the run does not have)."""
    import polars as pl

    keys = ["query_id", "doc_id"]
    candidates = table.select(keys).unique().with_columns(pl.len().over("query_id").alias("c"))
    runs = pl.DataFrame(
        {"r": np.arange(len(weights), dtype=np.int64), "w": np.asarray(weights, dtype=np.float64)}
    )
    lengths = table.filter(pl.col("rank") == 0).select("r", "query_id", pl.col("m").alias("mq"))
    dense = (
        candidates.join(runs, how="cross")
        .join(table.select(*keys, "r", "rank"), on=[*keys, "r"], how="left")
        .join(lengths, on=["r", "query_id"], how="left")
    )
    c = pl.col("c").cast(pl.Float64)
    mq = pl.col("mq").fill_null(0).cast(pl.Float64)
    return dense.with_columns(
        pl.when(pl.col("rank").is_null())
        .then(0.5 - (mq - 1.0) / (2.0 * c))
        .otherwise(1.0 - pl.col("rank").cast(pl.Float64) / c)
        .alias("v"),
    )


def _as_run(fused: pl.DataFrame, name: str, method: str, norm: str) -> Run:
    """The fused run ranked: queries bytewise, score descending, ties by doc id descending."""
    import polars as pl

    from cranfield.data.ranking import tie_order
    from cranfield.data.row_index import TieOrder, hashed_keys
    from cranfield.data.run import Run

    note = f"fused by {method} (normalisation {norm}); ties by doc id descending"
    if "qc" not in fused.columns:
        frame = fused.sort(["query_id", "score", "doc_id"], descending=[False, True, True])
        return Run(frame.select("query_id", "doc_id", "score"), name=name, tag=name, notes=(note,))
    # numeric keys first (query code, score descending), then the runs of ties by doc id
    qc = fused.get_column("qc").to_numpy()
    score = fused.get_column("score").to_numpy()
    order = _stable_order({"qc": qc, "score": score}, descending=[False, True])
    counts = np.bincount(qc)
    lens = counts[counts > 0].astype(np.int64)
    doc = fused.get_column("doc_id").gather(order)
    ties = tie_order(score[order], doc, lens)
    if ties.positions.size:
        order[ties.positions] = order[ties.rows]
    frame = fused.select("query_id", "doc_id", "score").select(pl.all().gather(order))
    queries = frame.get_column("query_id").gather(np.cumsum(lens) - lens).to_list()
    empty = np.zeros(0, dtype=np.int64)
    return Run.indexed(
        frame,
        name=name,
        tag=name,
        notes=(note,),
        query_stretches=(queries, lens),
        doc_keys=hashed_keys(fused.get_column("hash").to_numpy()[order]),
        tie_order=TieOrder(True, empty, empty),  # already in trec_eval's order
    )
