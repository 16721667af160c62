"""Fusing runs: :func:`fuse`, every method of :mod:`cranfield.fusion.methods` over all
queries at once.

The runs become one long table, one row per (run, query, document), with each row's query
as an integer code (its place among the queries, bytewise), its position in its run's
ranking and its run's list length; the normalisations are numpy over each run's per-query
segments. A run read grouped by query with scores that never rise inside a query (the usual
file) keeps its rows where they are: only its ranks are worked out, and its doc ids are never
copied or moved. The rows are grouped by (query, document) with one stable sort of 64-bit
keys (query code, doc id hash; rows that share a key are confirmed to share the doc id, and
polars' ``group_by`` takes over if two ids' hashes collide), and each method is numpy's
``reduceat`` over the groups (its sums, counts and extremes). The fused run is ranked on
numbers (query code, fused score) and only its runs of tied scores compare doc ids; the doc
ids are gathered once, in the fused run's order. No Python loop runs over queries or
documents.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
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

__all__ = [
    "RANK_SOURCES",
    "THREADED_ROWS",
    "FusionInputs",
    "RankSource",
    "checked_options",
    "fuse",
    "fused_parts",
    "fusion_inputs",
    "joined_runs",
    "method_params",
    "no_shared_query",
]

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

    ``table`` has one row per (run, query, document): ``qc`` (the query's place in
    :attr:`queries`), ``doc_id``, ``r`` (the run's position), ``score`` (as given), ``rank``
    (0-based position in the run's ranking) and ``m`` (the length of the run's list for the
    query). Each run's rows are grouped by query, in its ranking's order up to the order of
    tied scores (a run read in its ranking's order keeps its file's order); ``segments``
    are the lengths of the table's (run, query) stretches, in order.
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
    row_hashes: NDArray[np.uint64] | None
    """The 64-bit hash of each table row's doc id (polars' ``hash()``, as ``doc_keys``), if
    known."""

    @property
    def first_rows(self) -> NDArray[np.int64]:
        """The table row of each group's first member (where its doc id is)."""
        return self.order[self.starts]


@dataclass(frozen=True, eq=False)
class Grouped:
    """Where the ``row`` of a fused score grouped by :class:`Groups` points: the doc ids of
    the table the groups were made of, and their hashes if known."""

    doc_id: pl.Series
    row_hashes: NDArray[np.uint64] | None


_MIN_HASH_BITS: Final = 8  # of a doc id's hash in a packed key; fewer, and prefixes meet too often


def _by_query_then_score(qc: NDArray[np.int64], score: NDArray[np.float64]) -> NDArray[np.int64]:
    """The row order that sorts rows by query code, then score descending, equal rows kept in
    their order. Rows already grouped by query in code order (the usual case) are sorted
    inside each query, in parallel (0.6 s of CPU for 10M rows, measured once); any others by
    polars' two-key stable sort (2.0 s; numpy's two stable passes 2.3 s, ``numpy.lexsort``
    4.5 s)."""
    import polars as pl

    frame = pl.DataFrame({"qc": qc, "score": score})
    if qc.size and bool((qc[1:] >= qc[:-1]).all()):
        inside = pl.col("row").sort_by("score", descending=True, maintain_order=True)
        by_query = inside.over("qc", mapping_strategy="explode")
        order = frame.with_row_index("row").select(by_query).to_series().to_numpy()
        codes = qc[order]
        if bool((codes[1:] >= codes[:-1]).all()):  # the groups came out in their order
            return order.astype(np.int64)
    by = pl.arg_sort_by("qc", "score", descending=[False, True], maintain_order=True)
    return frame.select(by).to_series().to_numpy().astype(np.int64)


def _grouped(table: pl.DataFrame, n_queries: int) -> Groups | None:
    """The rows grouped by (query code, doc id), by one sort of packed 64-bit keys.

    Each key is the row's query code, the top bits of its doc id's 64-bit hash and the row's
    own number, so that numpy's (vectorised, unstable) sort of the keys is the stable sort of
    (query, hash prefix) and carries the row order with it (an ``argsort`` of the same keys
    takes about nine times as long). Two doc ids whose hash prefixes meet in a query (a few
    dozen on MS MARCO) are told apart by their whole hashes; rows whose whole hashes are
    equal are checked to share the doc id, so a collision of hashes is found, never merged
    (``None``: the caller groups the strings)."""
    n = table.height
    if n == 0:
        return None
    row_bits = max(1, (n - 1).bit_length())
    hash_bits = _hash_bits(n, n_queries)
    if hash_bits < _MIN_HASH_BITS:
        return None
    hashed = table.get_column("doc_id").hash().to_numpy()  # as row_index.doc_keys hashes
    key = table.get_column("qc").to_numpy().view(np.uint64) << np.uint64(hash_bits)  # codes >= 0
    key |= hashed >> np.uint64(64 - hash_bits)
    key <<= np.uint64(row_bits)
    key |= np.arange(n, dtype=np.uint64)
    key.sort()
    order = (key & np.uint64((1 << row_bits) - 1)).view(np.int64)  # row numbers < 2**63
    key >>= np.uint64(row_bits)  # (query code, hash prefix) of each sorted row
    repeat = np.flatnonzero(key[1:] == key[:-1]) + 1
    if repeat.size:
        split = hashed[order[repeat]] != hashed[order[repeat - 1]]
        if split.any():  # prefixes met: order those stretches by whole hash, then row
            _order_by_whole_hash(order, key, hashed, repeat[split])
            split = hashed[order[repeat]] != hashed[order[repeat - 1]]
            repeat = repeat[~split]
        docs = table.get_column("doc_id")
        if not (docs.gather(order[repeat]) == docs.gather(order[repeat - 1])).all():
            return None
    new = np.ones(n, dtype=bool)
    new[repeat] = False
    starts = np.flatnonzero(new)
    return Groups(order, starts, (key[starts] >> np.uint64(hash_bits)).astype(np.int64), hashed)


def _hash_bits(n_rows: int, n_queries: int) -> int:
    """The bits of a doc id's hash that fit in a packed key beside the query code and row."""
    return 64 - max(1, (n_rows - 1).bit_length()) - max(1, (n_queries - 1).bit_length())


def _order_by_whole_hash(
    order: NDArray[np.int64],
    prefix: NDArray[np.uint64],
    hashed: NDArray[np.uint64],
    split: NDArray[np.int64],
) -> None:
    """Reorder, in place, the stretches of equal ``prefix`` that hold a position of
    ``split`` (rows of two doc ids with one hash prefix) by whole hash, then row."""
    from cranfield.data.row_index import block_rows

    met = np.unique(prefix[split])  # prefix is sorted: each stretch is found by bisection
    lo = np.searchsorted(prefix, met, side="left")
    lens = np.searchsorted(prefix, met, side="right") - lo
    at = block_rows(lo, lens)
    rows = order[at]
    order[at] = rows[np.lexsort((rows, hashed[rows], np.repeat(lo, lens)))]


def fusion_inputs(
    runs: Sequence[Run],
    *,
    ranks: RankSource = "score",
    inverted: bool = False,
    shared_query: bool = True,
) -> FusionInputs:
    """``runs`` ranked and stacked (:class:`FusionInputs`).

    ``inverted`` ranks each run by score ascending (ties by doc id descending): the ranking
    of ``norm="min-max-inverted"``, for runs whose scores are distances. ``shared_query=False``
    accepts runs that share no query (a block of the queries of runs that share others,
    :mod:`cranfield.fusion.blocks`).

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
    if not shared and shared_query:
        raise no_shared_query([run.name for run in runs], [len(q) for q in query_sets])
    every = sorted(set.union(*query_sets))  # code point order is UTF-8 byte order
    code = {q: i for i, q in enumerate(every)}
    frames = []
    segments = []
    for r, run in enumerate(runs):
        ordered, queries, lens, rank = _ranked(run, ranks, inverted)
        qc = np.repeat(np.array([code[q] for q in queries], dtype=np.int64), lens)
        frames.append(
            pl.DataFrame(
                {
                    "qc": qc,
                    "doc_id": ordered.get_column("doc_id"),
                    "score": ordered.get_column("score"),
                    "r": np.full(ordered.height, r, dtype=np.int64),
                    "rank": rank,
                    "m": np.repeat(lens, lens),
                }
            )
        )
        segments.append(lens)
    table = pl.concat(frames, how="vertical")
    # the doc ids in one piece: a gather from a run's hundreds of blocks looks up the block
    # of each row (0.53 s for 10M rows, against 0.15 s to join them and 0.05 s to gather)
    return FusionInputs(
        names=tuple(run.name for run in runs),
        table=table.with_columns(table.get_column("doc_id").rechunk()),
        segments=np.concatenate(segments),
        ranks=ranks,
        inverted=inverted,
        queries=every,
    )


def no_shared_query(names: Sequence[str], counts: Sequence[int]) -> EvaluationError:
    """The error of runs named ``names``, with ``counts`` queries each, that share no query."""
    listed = ", ".join(
        f"'{name}' ({n} quer{'y' if n == 1 else 'ies'})"
        for name, n in zip(names, counts, strict=True)
    )
    return EvaluationError(f"The runs share no query, so there is nothing to fuse: {listed}.")


def _ranked(
    run: Run, ranks: RankSource, inverted: bool
) -> tuple[pl.DataFrame, list[str], NDArray[np.int64], NDArray[np.int64]]:
    """``run``'s rows grouped by query, in its ranking's order up to the order of tied
    scores; the query and length of each stretch; each row's 0-based rank.

    A run grouped by query whose scores never rise inside a query (or any run grouped by
    query, ranked by its lines) keeps its frame as it is: its ranks are the positions in
    each stretch, moved where trec_eval's order puts tied scores (their scores are equal, so
    every normalisation sums the same numbers in the same order). Any other run is sorted
    into its ranking's order, its queries bytewise."""
    import polars as pl

    from cranfield.data.ranking import tie_order_of, trec_eval_order
    from cranfield.data.row_index import stretches
    from cranfield.data.run import Run

    frame = run.frame.select("doc_id", "score")
    values, lens = run.query_stretches
    if len(set(values)) == len(values) and not inverted:
        ties = None if ranks == "input" else tie_order_of(run)
        if ties is None or ties.descending:
            base = np.arange(run.frame.height, dtype=np.int64)
            base -= np.repeat(np.cumsum(lens) - lens, lens)
            rank = base
            if ties is not None and ties.positions.size:
                rank = base.copy()
                rank[ties.rows] = base[ties.positions]
            return frame, list(values), lens, rank
    if ranks == "input":
        ordered = run.frame.sort("query_id", maintain_order=True)
    else:
        if inverted:
            flipped = run.frame.with_columns(-pl.col("score"))
            order = trec_eval_order(Run(flipped, name=run.name))
        else:
            order = trec_eval_order(run)
        ordered = run.frame.select(pl.all().gather(order))
    queries, counts = stretches(ordered.get_column("query_id"))
    rank = np.arange(ordered.height, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    return ordered.select("doc_id", "score"), queries, counts, rank


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
                "weights",
                f"left out for method '{spec.name}', which takes no weights",
                list(weights),  # as given, a list or a FusionPlan's tuple
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
    parts = list(
        fused_parts(
            runs,
            method,
            norm=norm,
            weights=weights,
            params=params,
            ranks=ranks,
            name=name,
            training=training,
        )
    )
    return joined_runs(parts, name or method)


def fused_parts(
    runs: Sequence[RunLike] | Mapping[str, RunLike] | FusionInputs,
    method: FusionMethod = "rrf",
    *,
    norm: FusionNormalization = "min-max",
    weights: Sequence[float] | None = None,
    params: Mapping[str, Any] | None = None,
    ranks: RankSource = "score",
    name: str | None = None,
    training: FusionTraining | None = None,
) -> Iterator[Run]:
    """:func:`fuse`'s run as the ranked runs of consecutive blocks of its queries, in order
    (one block unless the inputs are large, :data:`THREADED_ROWS`): what a writer can write
    one after another as they come (:func:`cranfield.io.trec.write_run_parts`) while the
    later blocks are fused. The parameters, and what is checked before the first block is
    asked for, are :func:`fuse`'s."""
    from cranfield.fusion.supervised import checked_training

    spec, values = _method_and_params(method, norm, params)
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
        fused, grouped = _fused_apart(inputs, spec, norm, w, values, trained), None
        return iter([_as_run(inputs, fused, grouped, name or method, method, norm)])
    return _ranked_blocks(inputs, spec, norm, w, values, name or method, method)


THREADED_ROWS: Final = 1 << 20
"""Inputs of at least this many rows (all runs together) are fused by blocks of queries on
threads, one per core: below it, fusing whole on one thread is as fast."""


def _ranked_blocks(
    inputs: FusionInputs,
    spec: MethodSpec,
    norm: str,
    weights: list[float],
    params: dict[str, float],
    name: str,
    method: str,
) -> Iterator[Run]:
    """The fused run of a method fused by grouped sums (:func:`_fused`), ranked, in blocks.

    Every method fuses each query on its own, so large inputs are cut into blocks of whole
    queries (about equal numbers of rows, a few per thread), each fused and ranked on a
    thread of its own (numpy's and polars' work lets go of the interpreter), and the ranked
    blocks come in the order of their queries: joined, they are the run fusing the table
    whole gives, line for line and bit for bit (a test checks it on every method)."""
    import polars as pl

    if spec.kind == "score":
        _check_finite(inputs)  # once, the first bad score in the table's order
    threads = min(_threads(), len(inputs.queries))
    if threads < 2 or inputs.table.height < THREADED_ROWS:
        fused, grouped = _fused(inputs, spec, norm, weights, params)
        yield _as_run(inputs, fused, grouped, name, method, norm)
        return
    from concurrent.futures import ThreadPoolExecutor

    def fused_block(block: tuple[NDArray[np.signedinteger[Any]], NDArray[np.int64]]) -> Run:
        rows, segments = block
        part = FusionInputs(
            names=inputs.names,
            table=inputs.table.select(pl.all().gather(rows)),
            segments=segments,
            ranks=inputs.ranks,
            inverted=inputs.inverted,
            queries=inputs.queries,
        )
        fused, grouped = _fused(part, spec, norm, weights, params)
        return _as_run(part, fused, grouped, name, method, norm)

    pool = ThreadPoolExecutor(threads, thread_name_prefix="cranfield-fuse")
    try:
        yield from pool.map(fused_block, _query_blocks(inputs, 4 * threads))
    finally:  # a writer that stops early leaves the blocks not begun undone
        pool.shutdown(cancel_futures=True)


def _threads() -> int:
    """The threads to fuse on: one per core polars may use (a worker of ``--jobs`` is given
    its share of the cores, and a process its affinity)."""
    import polars as pl

    from cranfield.evaluation.engines import all_cores

    return min(all_cores(), pl.thread_pool_size())


def _query_blocks(
    inputs: FusionInputs, pieces: int
) -> Iterator[tuple[NDArray[np.signedinteger[Any]], NDArray[np.int64]]]:
    """``inputs`` cut into at most ``pieces`` blocks of consecutive query codes with about
    equal numbers of rows: each block's rows of the table, in its order, and the lengths of
    their (run, query) stretches (a block keeps the query codes of the whole)."""
    from cranfield.data.row_index import block_rows

    lens = inputs.segments
    first = np.cumsum(lens) - lens
    segment_query = inputs.table.get_column("qc").to_numpy()[first]
    per_query = np.bincount(segment_query, weights=lens, minlength=len(inputs.queries))
    total = float(per_query.sum())
    cuts = np.searchsorted(np.cumsum(per_query), total * np.arange(1, pieces) / pieces) + 1
    bounds = np.unique(cuts[cuts < len(inputs.queries)])
    block_of = np.searchsorted(bounds, segment_query, side="right")
    for block in range(bounds.size + 1):
        picked = np.flatnonzero(block_of == block)
        if picked.size == 0:
            continue
        yield block_rows(first[picked], lens[picked]), lens[picked]


def joined_runs(parts: Sequence[Run], name: str) -> Run:
    """Fused runs of consecutive blocks of queries, each ranked (:func:`fuse`'s order), as
    one run in that order (so that the writer need not sort it again); one part is itself."""
    import polars as pl

    from cranfield.data.row_index import TieOrder
    from cranfield.data.run import Run

    if len(parts) == 1:
        return parts[0]
    empty = np.zeros(0, dtype=np.int64)
    return Run.indexed(
        pl.concat([part.frame for part in parts]),
        name=name,
        tag=name,
        notes=parts[0].notes,
        query_stretches=(
            [q for part in parts for q in part.query_stretches[0]],
            np.concatenate([part.query_stretches[1] for part in parts]),
        ),
        doc_keys=np.concatenate([part.doc_keys for part in parts]),
        tie_order=TieOrder(True, empty, empty),  # each part is in trec_eval's order
    )


def _method_and_params(
    method: str, norm: str, params: Mapping[str, Any] | None
) -> tuple[MethodSpec, dict[str, float]]:
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
    return spec, method_params(spec, params)


def checked_options(
    method: str,
    norm: str,
    weights: Sequence[float] | None,
    params: Mapping[str, Any] | None,
    names: Sequence[str],
    ranks: str = "score",
    training: FusionTraining | None = None,
) -> None:
    """The options of :func:`fuse` checked for runs named ``names``, before any is read
    (``training``: what a trained method learnt, :func:`cranfield.fusion.train`).

    Raises
    ------
    cranfield.errors.OptionError
        As :func:`fuse`.
    """
    from cranfield.fusion.supervised import checked_training

    spec, _ = _method_and_params(method, norm, params)
    check_choice("ranks", ranks, RANK_SOURCES)
    if len(names) < 2:
        raise OptionError("runs", "at least 2 runs", len(names))
    _weights(spec, weights, names)
    checked_training(spec, training, names, inverted=norm == "min-max-inverted", ranks=ranks)


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

        return condorcet_scores(inputs.table, weights)
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
            f"'{inputs.queries[row['qc']]}' the score {row['score']}: fusing scores needs "
            "finite scores."
        )


def _fused(
    inputs: FusionInputs,
    spec: MethodSpec,
    norm: str,
    weights: list[float],
    params: dict[str, float],
) -> tuple[pl.DataFrame, Grouped | None]:
    """``qc, doc_id, score``, the fused score of every (query, document); or, grouped by
    the keys' sort, ``qc, row, score`` and where ``row`` points (:class:`Grouped`). A score
    method's scores are finite (checked by the caller)."""
    import polars as pl

    table = inputs.table
    if spec.weighted or spec.name == "bordafuse":  # each row's run weight (1 for bordafuse)
        r = table.get_column("r").to_numpy()
        table = table.with_columns(pl.Series("w", np.asarray(weights, dtype=np.float64)[r]))
    if spec.kind == "score":
        if norm == "borda":
            table = _borda_dense(table, weights)
        else:
            table = table.with_columns(pl.Series("v", _normalized(inputs, norm)))
    if spec.name == "med":
        groups = None
    elif norm == "borda":  # every candidate has one row per run, in the order of the runs
        size, runs = table.height, len(weights)
        starts = np.arange(0, size, runs, dtype=np.int64)
        codes = table.get_column("qc").to_numpy()[starts].astype(np.int64)
        groups = Groups(np.arange(size, dtype=np.int64), starts, codes, None)
    else:
        groups = inputs.groups
    if groups is not None:
        fused = _fused_sorted(inputs, table, groups, spec, weights, params)
        return fused, Grouped(table.get_column("doc_id"), groups.row_hashes)
    keys = ["qc", "doc_id"]
    grouped = table.group_by(keys).agg(_aggregates(spec, params))
    if spec.name in ("bordafuse", "w_bordafuse"):
        return _borda_points(inputs, grouped, weights), None
    return grouped.select(*keys, pl.col("score")), None


def _fused_sorted(
    inputs: FusionInputs,
    table: pl.DataFrame,
    groups: Groups,
    spec: MethodSpec,
    weights: list[float],
    params: dict[str, float],
) -> pl.DataFrame:
    """``qc, row, score`` by sums over the (query, document) groups of a stable sort
    (:attr:`FusionInputs.groups`): numpy's ``reduceat`` over each group, the rows of a group
    in the order of the runs; ``row`` is the table row of the group's doc id."""
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
        by_name = {
            "sum": lambda: total(v),
            "mnz": lambda: total(v) * n,
            "anz": lambda: total(v) / n,
            "gmnz": lambda: total(v) * n ** params.get("gamma", 1.0),
            "max": lambda: _per_segment(np.maximum, v, starts),
            "min": lambda: _per_segment(np.minimum, v, starts),
            "wsum": lambda: total(column("w") * v),
            "wmnz": lambda: total(v) * total(column("w")),
            "mixed": lambda: total(column("w") * v) * np.sqrt(n),
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
    return pl.DataFrame(
        {
            "qc": groups.query_codes,
            "row": groups.first_rows,
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
    """``qc, wm``: the sum over the runs of weight * list length, per query."""
    import polars as pl

    firsts = inputs.table.filter(pl.col("rank") == 0)
    w = np.asarray(weights, dtype=np.float64)[firsts.get_column("r").to_numpy()]
    return (
        firsts.select("qc", (pl.Series(w) * pl.col("m").cast(pl.Float64)).alias("wm"))
        .group_by("qc")
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
    c = pl.len().over("qc").cast(pl.Float64)
    per_query = _per_query_weighted_lengths(inputs, weights)
    return (
        grouped.join(per_query, on="qc", how="left")
        .with_columns(
            (
                c / 2.0 * pl.col("sw")
                - pl.col("swi")
                + pl.col("swm") / 2.0
                - pl.col("sw") / 2.0
                + (c * total + total - pl.col("wm")) / 2.0
            ).alias("score")
        )
        .select("qc", "doc_id", "score")
    )


def _borda_dense(table: pl.DataFrame, weights: list[float]) -> pl.DataFrame:
    """Borda normalisation: every run gets a row for every candidate of the query, ``v = 1 -
    i / c`` where it ranked the document, ``0.5 - (m - 1) / (2c)`` where it did not (``m`` 0
    for a query the run does not have)."""
    import polars as pl

    keys = ["qc", "doc_id"]
    candidates = table.select(keys).unique().with_columns(pl.len().over("qc").alias("c"))
    runs = pl.DataFrame(
        {"r": np.arange(len(weights), dtype=np.int64), "w": np.asarray(weights, dtype=np.float64)}
    )
    lengths = table.filter(pl.col("rank") == 0).select("r", "qc", pl.col("m").alias("mq"))
    # the rows of a candidate in the order of the runs, so that its sums add the runs in
    # that order in every process and every block of queries
    dense = (
        candidates.join(runs, how="cross", maintain_order="left_right")
        .join(table.select(*keys, "r", "rank"), on=[*keys, "r"], how="left", maintain_order="left")
        .join(lengths, on=["r", "qc"], how="left", maintain_order="left")
    )
    c = pl.col("c").cast(pl.Float64)
    mq = pl.col("mq").fill_null(0).cast(pl.Float64)
    return dense.with_columns(
        pl.when(pl.col("rank").is_null())
        .then(0.5 - (mq - 1.0) / (2.0 * c))
        .otherwise(1.0 - pl.col("rank").cast(pl.Float64) / c)
        .alias("v"),
    )


def _as_run(
    inputs: FusionInputs,
    fused: pl.DataFrame,
    grouped: Grouped | None,
    name: str,
    method: str,
    norm: str,
) -> Run:
    """The fused run ranked: queries bytewise, score descending, ties by doc id descending."""
    import polars as pl

    from cranfield.data.ranking import tie_order
    from cranfield.data.row_index import TieOrder, doc_keys, hashed_keys
    from cranfield.data.run import Run

    note = f"fused by {method} (normalisation {norm}); ties by doc id descending"
    queries = pl.Series(inputs.queries, dtype=pl.String)
    if grouped is None:
        frame = fused.sort(["qc", "score", "doc_id"], descending=[False, True, True])
        frame = frame.select(
            queries.gather(frame.get_column("qc")).alias("query_id"), "doc_id", "score"
        )
        return Run(frame, name=name, tag=name, notes=(note,))
    # numeric keys first (query code, score descending), then the runs of ties by doc id,
    # whose ids alone are read; every doc id is then gathered once, in the run's order
    qc = fused.get_column("qc").to_numpy()
    order = _by_query_then_score(qc, fused.get_column("score").to_numpy())
    score = fused.get_column("score").to_numpy()[order]
    counts = np.bincount(qc)
    present = np.flatnonzero(counts)
    lens = counts[present].astype(np.int64)
    rows = fused.get_column("row").to_numpy()[order]  # the table row of each line's doc id
    doc = grouped.doc_id
    ties = tie_order(score, doc, lens, rows=rows)
    if ties.positions.size:
        rows[ties.positions] = ties.rows
    frame = pl.DataFrame(
        {
            "query_id": queries.gather(np.repeat(present, lens)),
            "doc_id": doc.gather(rows),
            "score": score,
        }
    )
    hashes = grouped.row_hashes
    keys = doc_keys(frame.get_column("doc_id")) if hashes is None else hashed_keys(hashes[rows])
    empty = np.zeros(0, dtype=np.int64)
    return Run.indexed(
        frame,
        name=name,
        tag=name,
        notes=(note,),
        query_stretches=(queries.gather(present).to_list(), lens),
        doc_keys=keys,
        tie_order=TieOrder(True, empty, empty),  # already in trec_eval's order
    )
