"""Deterministic synthetic TREC qrels and runs for cranfield's benchmarks (issue #4).

Usage::

    python benchmarks/generate.py PROFILE OUTDIR [--seed N] [--queries N]

writes ``OUTDIR/qrels.txt`` (``qid 0 docno rel``), ``OUTDIR/run.txt``
(``qid Q0 docno rank score tag``) and ``OUTDIR/meta.json`` (the parameters and the measured
statistics of what was written). The same profile, seed and query count always give the same
bytes, whatever the machine: every block of 1,000 queries has its own numpy ``Generator``
seeded with ``(seed, profile code, block index)``, and the query ids come from a generator
seeded with ``(seed, profile code, 0)``. Files are written block by block, so memory is
bounded by one block (about 1M run lines) whatever the profile size.

Profiles
--------
``msmarco`` (modelled on MS MARCO passage dev-small with a BM25 run)
    6,980 queries x 1,000 documents = 6.98M run lines. Query ids: 6,980 distinct integers
    below 1,102,400, in ascending order. Docids: integers below 8,841,823 (the passage
    collection's size), unique within a query. Judgments: 1 + Poisson(0.1) per query
    (~1.1), all ``rel=1``. Each judged document is put in the run with probability 0.6, so
    ~60% of the relevant documents appear somewhere in the run.
``trecdl`` (modelled on TREC Deep Learning passage judgments)
    200 queries x 1,000 documents = 200k run lines. Judgments: uniform 150..250 per query
    (~200), graded 0/1/2/3 with probabilities 0.55/0.18/0.19/0.08; each judged document is in
    the run with probability 0.5 (~50%, ~100 judged documents per ranking).
``huge`` (the scale target)
    100,000 queries x 1,000 documents = 100M run lines (about 3.4 GB of text), otherwise the
    ``msmarco`` parameters; query ids below 10,000,000. ``--queries 10000`` gives the 10M-line
    point of the linearity check.

Rankings (all profiles)
    Documents not taken from the judgments are drawn uniformly from the docid space and are
    never judged for that query. Order: each document gets a latent score ``N(0, 1)`` plus a
    boost for judged documents (msmarco/huge: +2.0 for ``rel=1``; trecdl: +0.5/+1.0/+1.7/+2.3
    for grades 0/1/2/3) and the ranking is the descending latent order, so relevant documents
    tend to be near the top. The printed score is then a BM25-like number with exactly three
    decimals: the top score is uniform in [30, 45) and each next score is lower by a
    ``Geometric(0.04) - 1`` number of thousandths, so 4% of adjacent score pairs tie. Lines
    inside a tie are in random docid order (the latent order), which is how the ties exercise
    trec_eval's tie-break (docno descending). The rank column is the line's 1-based position.

Query counts can be changed with ``--queries`` (``--queries 2000`` on ``huge`` is a quick
check of the chunked writer).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import polars as pl

BLOCK = 1000
"""Queries per block: one generator, one write. Fixed so output never depends on memory."""


@dataclass(frozen=True)
class Profile:
    """Parameters of one synthetic collection (see the module docstring)."""

    name: str
    code: int
    queries: int
    depth: int
    doc_space: int
    qid_space: int
    judged: tuple[str, float, float]
    """How many judgments per query: ("poisson", base, lam) or ("uniform", lo, hi)."""
    grade_probs: tuple[float, ...]
    """Probability of each relevance grade 0, 1, 2, ... among the judged documents."""
    grade_boost: tuple[float, ...]
    """Latent-score boost of a judged document of each grade."""
    present: float
    """Probability that a judged document appears in the run."""
    tie_rate: float
    """Probability that a score equals the one above it."""
    top_score: tuple[float, float] = (30.0, 45.0)
    tag: str = "bm25"


PROFILES: dict[str, Profile] = {
    "msmarco": Profile(
        name="msmarco",
        code=1,
        queries=6980,
        depth=1000,
        doc_space=8_841_823,
        qid_space=1_102_400,
        judged=("poisson", 1, 0.1),
        grade_probs=(0.0, 1.0),
        grade_boost=(0.0, 2.0),
        present=0.6,
        tie_rate=0.04,
    ),
    "trecdl": Profile(
        name="trecdl",
        code=2,
        queries=200,
        depth=1000,
        doc_space=8_841_823,
        qid_space=1_200_000,
        judged=("uniform", 150, 250),
        grade_probs=(0.55, 0.18, 0.19, 0.08),
        grade_boost=(0.5, 1.0, 1.7, 2.3),
        present=0.5,
        tie_rate=0.04,
    ),
    "huge": Profile(
        name="huge",
        code=3,
        queries=100_000,
        depth=1000,
        doc_space=8_841_823,
        qid_space=10_000_000,
        judged=("poisson", 1, 0.1),
        grade_probs=(0.0, 1.0),
        grade_boost=(0.0, 2.0),
        present=0.6,
        tie_rate=0.04,
    ),
}


def _rng(seed: int, profile: Profile, stream: int) -> np.random.Generator:
    return np.random.default_rng([seed, profile.code, stream])


def query_ids(profile: Profile, seed: int, queries: int) -> np.ndarray:
    """``queries`` distinct integer query ids in ascending order."""
    space = max(profile.qid_space, 10 * queries)
    rng = _rng(seed, profile, 0)
    return np.sort(rng.choice(space, size=queries, replace=False)).astype(np.int64)


def _make_unique(
    rng: np.random.Generator,
    rows: np.ndarray,
    docs: np.ndarray,
    fixed: int,
    space: int,
) -> None:
    """Redraw ``docs[fixed:]`` in place until no (row, doc) pair repeats.

    ``docs[:fixed]`` are kept as they are (they must already be unique per row); a redrawn
    entry is always a later copy of a pair, so the result is deterministic.
    """
    while True:
        keys = rows * np.int64(space) + docs
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        later = order[1:][sorted_keys[1:] == sorted_keys[:-1]]
        if later.size == 0:
            return
        if (later < fixed).any():
            raise RuntimeError("fixed documents repeat within a query")
        docs[later] = rng.integers(0, space, size=later.size)


@dataclass
class Block:
    """One block of queries rendered as frames, with the counts used for the statistics."""

    qrels: pl.DataFrame
    run: pl.DataFrame
    judged: int
    relevant: int
    judged_present: int
    relevant_present: int
    adjacent_pairs: int
    adjacent_ties: int


def make_block(profile: Profile, seed: int, index: int, qids: np.ndarray) -> Block:
    """Qrels and run lines of the queries ``qids`` (block number ``index``)."""
    rng = _rng(seed, profile, index + 1)
    n_q, depth = qids.size, profile.depth

    # Judgments: how many per query, which documents, which grades.
    kind, a, b = profile.judged
    if kind == "poisson":
        n_judged = int(a) + rng.poisson(b, size=n_q)
    else:
        n_judged = rng.integers(int(a), int(b) + 1, size=n_q)
    j_row = np.repeat(np.arange(n_q, dtype=np.int64), n_judged)
    j_doc = rng.integers(0, profile.doc_space, size=j_row.size)
    _make_unique(rng, j_row, j_doc, 0, profile.doc_space)
    j_grade = rng.choice(len(profile.grade_probs), size=j_row.size, p=profile.grade_probs)

    # Which judged documents the run retrieves (at most `depth` per query).
    present = rng.random(j_row.size) < profile.present
    slot = np.zeros(j_row.size, dtype=np.int64)
    if j_row.size:
        cum = np.cumsum(present) - present  # present documents before this one, overall
        first = np.searchsorted(j_row, np.arange(n_q))
        slot = cum - cum[first[j_row]]  # ... within its query
    present &= slot < depth
    n_present = np.bincount(j_row[present], minlength=n_q)

    # The ranking matrix: present judged documents first, then fillers; then sort by latent.
    docs = rng.integers(0, profile.doc_space, size=(n_q, depth))
    boost = np.zeros((n_q, depth))
    docs[j_row[present], slot[present]] = j_doc[present]
    boost[j_row[present], slot[present]] = np.asarray(profile.grade_boost)[j_grade[present]]
    is_filler = np.arange(depth)[None, :] >= n_present[:, None]
    f_row = np.broadcast_to(np.arange(n_q)[:, None], (n_q, depth))[is_filler]
    # Fillers must differ from every judged document of their query (present or not).
    rows = np.concatenate([j_row, f_row])
    all_docs = np.concatenate([j_doc, docs[is_filler]])
    _make_unique(rng, rows, all_docs, j_row.size, profile.doc_space)
    docs[is_filler] = all_docs[j_row.size :]
    latent = rng.standard_normal((n_q, depth)) + boost
    order = np.argsort(-latent, axis=1)
    docs = np.take_along_axis(docs, order, axis=1)

    # Scores in thousandths: a random top, then geometric steps (0 = tie).
    lo, hi = (round(x * 1000) for x in profile.top_score)
    top = rng.integers(lo, hi, size=n_q)
    steps = rng.geometric(profile.tie_rate, size=(n_q, depth)) - 1
    steps[:, 0] = 0
    milli = np.maximum(top[:, None] - np.cumsum(steps, axis=1), 0)
    ties = int((milli[:, 1:] == milli[:, :-1]).sum())

    qrels = pl.DataFrame(
        {"qid": qids[j_row], "iter": np.zeros(j_row.size, np.int8), "doc": j_doc, "rel": j_grade}
    )
    run = pl.DataFrame(
        {
            "qid": np.repeat(qids, depth),
            "doc": docs.ravel(),
            "rank": np.tile(np.arange(1, depth + 1, dtype=np.int32), n_q),
            "milli": milli.ravel(),
        }
    ).select(
        "qid",
        pl.lit("Q0").alias("q0"),
        "doc",
        "rank",
        pl.concat_str(
            (pl.col("milli") // 1000).cast(pl.String),
            pl.lit("."),
            (pl.col("milli") % 1000).cast(pl.String).str.zfill(3),
        ).alias("score"),
        pl.lit(profile.tag).alias("tag"),
    )
    relevant = j_grade > 0
    return Block(
        qrels=qrels,
        run=run,
        judged=int(j_row.size),
        relevant=int(relevant.sum()),
        judged_present=int(present.sum()),
        relevant_present=int((present & relevant).sum()),
        adjacent_pairs=n_q * (depth - 1),
        adjacent_ties=ties,
    )


def generate(
    profile: Profile, outdir: Path, *, seed: int = 0, queries: int | None = None
) -> dict[str, object]:
    """Write ``qrels.txt``, ``run.txt`` and ``meta.json`` under ``outdir``; return the meta."""
    n_queries = profile.queries if queries is None else queries
    if n_queries < 1:
        raise ValueError(f"The number of queries must be >= 1, got {n_queries}.")
    outdir.mkdir(parents=True, exist_ok=True)
    qids = query_ids(profile, seed, n_queries)
    totals = dict.fromkeys(
        (
            "judged",
            "relevant",
            "judged_present",
            "relevant_present",
            "adjacent_pairs",
            "adjacent_ties",
        ),
        0,
    )
    start = time.perf_counter()
    qrels_path, run_path = outdir / "qrels.txt", outdir / "run.txt"
    with qrels_path.open("wb") as fq, run_path.open("wb") as fr:
        for index, lo in enumerate(range(0, n_queries, BLOCK)):
            block = make_block(profile, seed, index, qids[lo : lo + BLOCK])
            block.qrels.write_csv(fq, separator=" ", include_header=False, quote_style="never")
            block.run.write_csv(fr, separator=" ", include_header=False, quote_style="never")
            for key in totals:
                totals[key] += getattr(block, key)
    seconds = time.perf_counter() - start
    meta: dict[str, object] = {
        "profile": asdict(profile),
        "seed": seed,
        "queries": n_queries,
        "qrels_lines": totals["judged"],
        "run_lines": n_queries * profile.depth,
        "qrels_bytes": qrels_path.stat().st_size,
        "run_bytes": run_path.stat().st_size,
        "judged_per_query": totals["judged"] / n_queries,
        "relevant_per_query": totals["relevant"] / n_queries,
        "judged_present_fraction": totals["judged_present"] / max(totals["judged"], 1),
        "relevant_present_fraction": totals["relevant_present"] / max(totals["relevant"], 1),
        "adjacent_tie_fraction": totals["adjacent_ties"] / max(totals["adjacent_pairs"], 1),
        "generate_seconds": round(seconds, 3),
    }
    (outdir / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profile", choices=sorted(PROFILES))
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--queries", type=int, default=None, help="override the query count")
    args = parser.parse_args(argv)
    meta = generate(PROFILES[args.profile], args.outdir, seed=args.seed, queries=args.queries)
    shown = {k: v for k, v in meta.items() if k != "profile"}
    print(json.dumps(shown, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
