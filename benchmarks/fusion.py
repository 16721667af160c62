"""Fusing runs: ``cranfield fuse`` against ranx's fusion, and against evaluating (issue 34).

Usage::

    .venv/bin/python benchmarks/fusion.py [--profiles trecdl,msmarco] [--repeat 5] [--markdown]
        [--data /tmp/cranfield-bench] [--before SRC]

Two comparisons, each in fresh child processes alternated round-robin (the starting tool
rotates each round; ``--warmup`` rounds are not counted), medians of ``--repeat`` rounds,
CPU time and peak RSS beside the wall time (``benchmarks/run.py``'s ``run_child``):

``trecdl`` (two DL-scale runs, 200k lines each)
    ``cranfield fuse A B -o OUT --method rrf`` (the CLI: start-up, both runs read, ranked,
    fused, written) against ``peers/ranx_fuse_driver.py``: ranx's ``Run.from_file`` twice,
    ``fuse(norm="min-max", method="rrf")`` and ``save``, including ranx's import, both
    with numba's compilation in the process (``--cold``: an empty numba cache) and with the
    compiled functions read from numba's cache. The two fused runs are then compared: the
    same (query, document) pairs, scores within 1e-9.
``msmarco`` (two MS MARCO-scale runs, 6.98M lines each)
    ``cranfield fuse A B -o OUT --method rrf`` against ``cranfield evaluate QRELS A`` with the
    five measures of ``benchmarks/run.py`` (the issue's target: fusing within 2x of
    evaluating one of the runs); beside them ``cranfield fuse --stream`` on copies of A and B
    sorted by query bytewise (``LC_ALL=C sort -s -k1,1``, made once: what streaming needs),
    whose output is compared with the in-memory one byte for byte, and the floor of any
    fusion built on polars' reader and writer (``peers/polars_fuse_floor.py``: both runs
    read, as many lines written as fusing gives, nothing fused or checked).

``--before SRC`` adds the same ``cranfield fuse`` run from another checkout's ``src`` (an
older commit, for a before-and-after table in the same session). ``--data`` is where the
profiles' files are kept (default ``benchmarks/data``; generated when missing).

Run A is ``generate.py``'s profile (``benchmarks/data/PROFILE/run.txt``, generated when
missing). Run B (``run-b.txt`` beside it) is a second system on the same queries, made once
from A with a seeded generator: each query keeps a random half of A's documents, the other
half replaced by documents A did not retrieve, with fresh scores (three decimals, so some
tie), so the fused lists hold about 1.5 times a run's documents. Timings are a report,
never a pass/fail test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from run import (  # noqa: E402 -- the shared helpers of benchmarks/run.py, found beside it
    FIVE,
    Tool,
    ensure_data,
    log,
    machine,
    round_robin,
    seconds,
    table,
)

CRANFIELD = (
    "from cranfield.cli.main import run; run()"  # the command itself: its start-up settings too
)


def second_run(run_a: Path, out: Path, seed: int = 34) -> None:
    """Run B from run A (see the module notes), written once as TREC text."""
    import numpy as np
    import polars as pl

    if out.exists():
        return
    log(f"making {out} from {run_a} ...")
    a = pl.read_csv(
        run_a,
        separator=" ",
        has_header=False,
        new_columns=["q", "it", "doc", "rank", "score", "tag"],
        schema_overrides={"q": pl.String, "doc": pl.Int64},
    )
    rng = np.random.default_rng(seed)
    keep = rng.random(a.height) < 0.5
    doc = a.get_column("doc").to_numpy()
    new_doc = np.where(keep, doc, doc + 100_000_000)  # never in A: generate.py's ids are smaller
    score = np.round(rng.normal(20.0, 3.0, a.height), 3)
    b = (
        pl.DataFrame({"q": a.get_column("q"), "doc": new_doc, "score": score})
        .with_columns(pl.int_range(pl.len()).alias("order"))
        .sort(["q", "score", "order"], descending=[False, True, False], maintain_order=True)
        .with_columns((pl.int_range(pl.len()).over("q") + 1).alias("rank"))
    )
    b.select(
        "q", pl.lit("Q0").alias("it"), "doc", "rank", "score", pl.lit("dense").alias("tag")
    ).write_csv(out, separator=" ", include_header=False)


def sorted_copy(run: Path) -> Path:
    """``run`` sorted by query bytewise, lines of a query in file order (made once)."""
    out = run.with_name(run.stem + ".sorted.txt")
    if not out.exists():
        log(f"sorting {run} into {out} ...")
        with open(out, "wb") as handle:
            subprocess.run(
                ["sort", "-s", "-k1,1", "-S", "1G", str(run)],
                check=True,
                stdout=handle,
                env={**os.environ, "LC_ALL": "C"},
            )
    return out


def tools_for(profile: str, data: Path, workdir: Path, before: str | None) -> list[Tool]:
    py = sys.executable
    a, b, qrels = data / "run.txt", data / "run-b.txt", data / "qrels.txt"
    fuse = [py, "-c", CRANFIELD, "fuse", str(a), str(b), "--method", "rrf"]
    out = [Tool("cranfield fuse (rrf)", profile, [*fuse, "-o", str(workdir / "cf.run")], _none)]
    if before:
        older = ["env", f"PYTHONPATH={before}", *fuse, "-o", str(workdir / "before.run")]
        out.append(Tool("cranfield fuse (rrf), before", profile, older, _none))
    if profile == "trecdl":
        driver = str(HERE / "peers" / "ranx_fuse_driver.py")
        out += [
            Tool(
                "ranx fuse, numba compiling",
                profile,
                [py, driver, str(a), str(b), str(workdir / "ranx-cold.run"), "--cold"],
                _none,
            ),
            Tool(
                "ranx fuse, numba cache",
                profile,
                [py, driver, str(a), str(b), str(workdir / "ranx.run")],
                _none,
            ),
        ]
    else:
        evaluate = [py, "-c", CRANFIELD, "evaluate", str(qrels), str(a), "-m", *FIVE]
        out.append(Tool("cranfield evaluate A (five)", profile, [*evaluate, "-f", "tsv"], _none))
        floor = [py, str(HERE / "peers" / "polars_fuse_floor.py"), str(a), str(b)]
        lines = fused_lines(a, b)
        out.append(
            Tool(
                "polars alone: read A and B, write as many lines",
                profile,
                [*floor, str(workdir / "floor.run"), str(lines)],
                _none,
            )
        )
        sa, sb = sorted_copy(a), sorted_copy(b)
        streamed = [py, "-c", CRANFIELD, "fuse", str(sa), str(sb), "--method", "rrf", "--stream"]
        out.append(
            Tool(
                "cranfield fuse --stream (rrf), sorted runs",
                profile,
                [*streamed, "-o", str(workdir / "cf-stream.run")],
                _none,
            )
        )
    return out


def fused_lines(run_a: Path, run_b: Path) -> int:
    """How many lines fusing the two runs gives: their distinct (query, document) pairs
    (counted once, untimed, for the floor to write as many), in a child process: the timed
    children are forked from this one, and a child's peak RSS counts what it was forked
    with."""
    count = (
        "import sys, polars as pl; names = ['q', 'it', 'doc', 'rank', 'score', 'tag']; "
        "pairs = [pl.scan_csv(p, separator=' ', has_header=False, "
        "schema=dict.fromkeys(names, pl.String)).select('q', 'doc') for p in sys.argv[1:]]; "
        "print(pl.concat(pairs).unique().select(pl.len()).collect().item())"
    )
    done = subprocess.run(
        [sys.executable, "-c", count, str(run_a), str(run_b)],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout)


def _none(text: str) -> dict[str, Any]:
    return {}


def same_fusion(ours: Path, theirs: Path) -> str:
    """Whether two fused runs hold the same pairs with scores within 1e-9."""
    import polars as pl

    def read(path: Path) -> pl.DataFrame:
        return pl.read_csv(
            path,
            separator=" ",
            has_header=False,
            new_columns=["q", "it", "doc", "rank", "score", "tag"],
            schema_overrides={"q": pl.String, "doc": pl.String},
        ).select("q", "doc", "score")

    a, b = read(ours), read(theirs)
    joined = a.join(b, on=["q", "doc"], how="full", coalesce=True)
    missing = joined.filter(pl.col("score").is_null() | pl.col("score_right").is_null()).height
    worst = joined.select((pl.col("score") - pl.col("score_right")).abs().max()).item()
    return (
        f"{a.height:,} vs {b.height:,} lines, {missing} pairs in one only, max |Δscore| {worst:.2e}"
    )


def _same_bytes(folder: Path, ours: str, others: tuple[str, ...]) -> str:
    """Whether the other fused files written are byte for byte ``ours``."""
    said = ""
    for other in others:
        if (folder / other).exists() and (folder / ours).exists():
            same = (folder / other).read_bytes() == (folder / ours).read_bytes()
            said += f"\n\n{other} {'==' if same else '!='} {ours} byte for byte"
    return said


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", default="trecdl,msmarco")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--data", type=Path, default=HERE / "data")
    parser.add_argument("--before", help="another checkout's src, timed beside this one")
    args = parser.parse_args(argv)
    os.environ["PYTHONPATH"] = str(REPO / "src")  # this checkout's cranfield in every child
    before = machine()
    sections = []
    with tempfile.TemporaryDirectory(prefix="cranfield-fusion-bench-") as tmp:
        for profile in args.profiles.split(","):
            data = args.data / profile
            ensure_data(profile, data, 0, None)
            second_run(data / "run.txt", data / "run-b.txt")
            tools = tools_for(profile, data, Path(tmp), args.before)
            log(f"{profile}: {len(tools)} tools, {args.warmup} warm-up + {args.repeat} rounds")
            round_robin(tools, args.warmup, args.repeat)
            base = tools[0]
            rows = []
            for tool in tools:
                if tool.error or not tool.times:
                    rows.append([tool.name, "failed", "", "", "", tool.error[:80]])
                    continue
                rows.append(
                    [
                        tool.name,
                        seconds(tool.median),
                        f"{seconds(min(tool.times))}–{seconds(max(tool.times))}",
                        seconds(statistics.median(tool.cpu)),
                        f"{max(tool.rss_kib) / 1024:.0f}",
                        f"{tool.median / base.median:.2f}" if base.times else "",
                    ]
                )
            headers = [
                "tool",
                "median s",
                "min–max s",
                "median CPU s",
                "peak RSS MiB",
                "time ÷ fuse's",
            ]
            text = table(headers, rows, args.markdown)
            if profile == "trecdl" and not base.error and not tools[-1].error:
                text += "\n\nvalues: " + same_fusion(Path(tmp) / "cf.run", Path(tmp) / "ranx.run")
            text += _same_bytes(Path(tmp), "cf.run", ("before.run", "cf-stream.run"))
            sections.append(f"{profile}\n\n{text}")
    after = os.getloadavg()
    print(
        f"machine: {before.get('cpu')}, {before.get('cpus_usable')} usable CPUs, "
        f"{before.get('memory_gib')} GiB; git {before.get('git')}; packages "
        f"{before.get('packages')}"
    )
    print(f"load average before {before['load_average']}, after {after}\n")
    print("\n\n".join(sections))
    return 0


if __name__ == "__main__":
    sys.exit(main())
