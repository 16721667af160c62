"""Time cranfield against its peers on the synthetic profiles of ``generate.py`` (issue #4).

Usage::

    .venv/bin/python benchmarks/run.py --profile msmarco --repeat 5 [--markdown]

One session, three comparisons (``--modes``):

``five``
    From files to the five means (AP, nDCG@10, RR@10, R@1000, P@10): ``cranfield evaluate``
    (the CLI), ``cranfield evaluate --stream`` (the same in bounded memory, reading the run in
    blocks of whole queries; the only cranfield timed by default on ``huge``, where the
    in-memory one needs ~10 GiB at 100M lines) and one small driver per peer in
    ``benchmarks/peers/`` that reads the files the way that peer's users do (pytrec_eval
    ``parse_qrel/parse_run`` + ``RelevanceEvaluator``; ranx ``Qrels.from_file/Run.from_file``
    + ``evaluate``; ir_measures ``read_trec_*`` + ``calc_aggregate``), the ``trec_eval``
    binary if one is on PATH, and two floors: a bare ``polars.read_csv`` and a bare
    ``pyarrow.csv.read_csv`` of the run file, plus the interpreter start-up and
    ``import cranfield.cli.main`` that every CLI call pays.
``all-trec``
    ``cranfield trec-eval -m all_trec`` against ``trec_eval -m all_trec`` if the binary is on
    PATH, else against pytrec_eval computing all of its ``supported_measures``.
``memory``
    ``cranfield.evaluate`` on preloaded ``Qrels``/``Run`` against ranx's warm ``evaluate`` on
    preloaded ``Qrels``/``Run`` (and pytrec_eval's prebuilt evaluator), in one process.

Every measurement of ``five`` and ``all-trec`` is a separate child process; the tools are
alternated round-robin (the starting tool rotates each round), the first ``--warmup`` rounds
are not counted, and the report gives the median wall time of the ``--repeat`` timed rounds,
the median CPU time and the peak RSS of the child (user + system time and ``ru_maxrss`` from
``os.wait4``; the RSS is the largest over the timed rounds) and each tool's median wall time
divided by cranfield's. It then checks that the tools print the same values where their
semantics agree (see ``SEMANTICS``): every peer against each cranfield that ran, and
``--stream`` against the in-memory ``cranfield evaluate`` (Δ ≤ 1e-12). Timings are a report,
never a pass/fail test: the exit status is 0 whatever the numbers are.

Missing data are generated first (``benchmarks/data/PROFILE``); missing peers are skipped
with the reason. Progress goes to stderr, the report to stdout (``--markdown`` for the
tables pasted into BENCHMARKS.md); ``--json FILE`` also saves every raw number.
"""

from __future__ import annotations

import argparse
import compileall
import datetime as dt
import importlib.metadata
import importlib.util
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PEERS = HERE / "peers"
FIVE = ["AP", "nDCG@10", "RR@10", "R@1000", "P@10"]
TREC_FIVE = {"map": "AP", "ndcg_cut_10": "nDCG@10", "recall_1000": "R@1000", "P_10": "P@10"}
EXACT = 1e-6
"""Tolerance where semantics agree and values are printed at full precision."""
FOUR_DECIMALS = 5e-5 + 1e-9
"""Tolerance against trec_eval-format output (values printed with 4 decimals)."""
SAME_CODE = 1e-12
"""Tolerance between ``cranfield evaluate --stream`` and ``cranfield evaluate`` (same code)."""
CF = "cranfield evaluate"
CF_STREAM = "cranfield evaluate --stream"

SEMANTICS = {
    "pytrec_eval": "trec_eval 9 semantics: float32 scores (compared with `cranfield evaluate "
    "--float32`); only topics in both run and qrels (the generated files have the same "
    "topics in both); RR@10 derived from per-topic recip_rank (>= 0.1)",
    "ir_measures": "pytrec_eval provider (float32) for AP, nDCG@10, R@1000, P@10; msmarco "
    "provider for RR@10, which orders tied scores by docno ascending (trec_eval: descending)",
    "ranx": "orders tied scores by numpy argsort of the negated scores, not by docno "
    "descending, so every measure may move when ties straddle a relevant document or a cut-off",
    "trec_eval": "4-decimal output; its recip_rank has no cut-off, so RR@10 is not compared",
}
EXPECTED_DIFF = {
    "ir_measures": {"RR@10": "msmarco provider breaks ties by docno ascending"},
    "ranx": dict.fromkeys(FIVE, "ranx's tie order"),
}


# --------------------------------------------------------------------------- measurement


@dataclass
class Tool:
    """One command timed as a child process."""

    name: str
    group: str
    argv: list[str]
    parse: Callable[[str], dict[str, Any]]
    floor: bool = False
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)
    stdout: str = ""
    error: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.times)


class Child(NamedTuple):
    """One finished child process."""

    wall: float
    """Wall-clock seconds from spawn to exit."""
    cpu: float
    """User + system CPU seconds of the child (all its threads)."""
    rss_kib: int
    """Peak resident set size (``ru_maxrss``, KiB on Linux)."""
    status: int
    stdout: str
    stderr: str


def run_child(argv: list[str]) -> Child:
    """Run ``argv`` with its output in temporary files; time it and read its rusage."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Child(
            wall,
            usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss,
            proc.returncode,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
        )


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def round_robin(tools: list[Tool], warmup: int, repeat: int) -> None:
    """Run every tool once per round, rotating the start; keep the timed rounds."""
    for round_ in range(warmup + repeat):
        live = [t for t in tools if not t.error]
        if not live:
            return
        shift = round_ % len(live)
        label = "warm-up" if round_ < warmup else f"round {round_ - warmup + 1}/{repeat}"
        for tool in live[shift:] + live[:shift]:
            child = run_child(tool.argv)
            log(
                f"  {label:>11}  {tool.name:<40} {child.wall:8.2f} s wall {child.cpu:8.2f} s CPU"
                f" {child.rss_kib / 1024:8.0f} MiB"
            )
            if child.status != 0:
                tool.error = f"exit status {child.status}: {child.stderr.strip()[-500:]}"
                log(f"    FAILED: {tool.error}")
                continue
            tool.stdout = child.stdout
            if round_ >= warmup:
                tool.times.append(child.wall)
                tool.cpu.append(child.cpu)
                tool.rss_kib.append(child.rss_kib)


# --------------------------------------------------------------------------- output parsers


def parse_tsv(text: str) -> dict[str, Any]:
    header, row = text.strip().splitlines()[:2]
    values = dict(zip(header.split("\t"), row.split("\t"), strict=True))
    return {k: float(v) for k, v in values.items() if k != "run"}


def parse_json(text: str) -> dict[str, Any]:
    return dict(json.loads(text.strip().splitlines()[-1]))


def parse_trec_eval(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            try:
                out[parts[0]] = float(parts[2])
            except ValueError:
                out[parts[0]] = parts[2]
    return out


def parse_trec_eval_five(text: str) -> dict[str, Any]:
    values = parse_trec_eval(text)
    return {name: values[key] for key, name in TREC_FIVE.items() if key in values}


# --------------------------------------------------------------------------- environment


def package_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)),
        "load_average": os.getloadavg(),
    }
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
        models = [
            ln.split(":", 1)[1].strip()
            for ln in cpuinfo.splitlines()
            if ln.startswith("model name")
        ]
        info["cpu"] = models[0] if models else platform.processor()
        meminfo = dict(
            ln.split(":", 1) for ln in Path("/proc/meminfo").read_text().splitlines() if ":" in ln
        )
        info["memory_gib"] = round(int(meminfo["MemTotal"].split()[0]) / 2**20, 1)
        info["memory_available_gib"] = round(int(meminfo["MemAvailable"].split()[0]) / 2**20, 1)
    except (OSError, KeyError, ValueError):
        info["cpu"] = platform.processor()
    if shutil.which("lscpu"):
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
        for line in lscpu.splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("Hypervisor vendor", "Thread(s) per core", "L3 cache"):
                info[key.strip()] = value.strip()
    info["packages"] = {
        name: package_version(name)
        for name in (
            "cranfield",
            "numpy",
            "polars",
            "pyarrow",
            "pytrec-eval-terrier",
            "ranx",
            "ir-measures",
            "numba",
        )
    }
    git = shutil.which("git")
    if git:  # read-only queries; no optional locks, so the index is never rewritten
        head = subprocess.run(
            [git, "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        dirty = subprocess.run(
            [git, "--no-optional-locks", "-C", str(REPO), "status", "--porcelain", "src"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.splitlines()
        info["git"] = f"{head} ({len(dirty)} changed/untracked paths under src/)" if head else None
    trec_eval = shutil.which("trec_eval")
    info["trec_eval"] = trec_eval
    return info


def available(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


# --------------------------------------------------------------------------- data


def ensure_data(profile: str, outdir: Path, seed: int, queries: int | None) -> dict[str, Any]:
    """Generate the profile's files unless ``outdir/meta.json`` says they are already there."""
    meta_path = outdir / "meta.json"
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        wanted = queries if queries is not None else meta["profile"]["queries"]
        same = (
            meta["profile"]["name"] == profile
            and meta["seed"] == seed
            and meta["queries"] == wanted
        )
        if same and (outdir / "run.txt").exists() and (outdir / "qrels.txt").exists():
            return dict(meta)
    log(f"generating {profile} into {outdir} ...")
    argv = [sys.executable, str(HERE / "generate.py"), profile, str(outdir), "--seed", str(seed)]
    if queries is not None:
        argv += ["--queries", str(queries)]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return dict(json.loads(meta_path.read_text()))


# --------------------------------------------------------------------------- value checks


@dataclass
class Check:
    tool: str
    measure: str
    ours: float
    theirs: float
    tolerance: float
    expected: str | None
    group: str = "five"
    ref: str = ""
    """The cranfield tool that gave ``ours`` ("" = the group's only cranfield tool)."""

    @property
    def delta(self) -> float:
        return abs(self.ours - self.theirs)

    @property
    def verdict(self) -> str:
        if self.delta <= self.tolerance:
            return "agree"
        return f"differs (expected: {self.expected})" if self.expected else "DIFFERS"


def check_five(
    tools: list[Tool],
    exact: dict[str, float],
    f32: dict[str, float] | None,
    has_ties: bool,
    ref: str = CF,
) -> list[Check]:
    """Every peer's five means against those of the cranfield tool ``ref``."""
    checks: list[Check] = []
    for tool in tools:
        if (
            tool.floor
            or tool.group != "five"
            or tool.name.startswith("cranfield")
            or not tool.stdout
        ):
            continue
        peer = tool.name
        values = tool.parse(tool.stdout)
        base = f32 if peer in ("pytrec_eval", "ir_measures") and f32 is not None else exact
        tol = FOUR_DECIMALS if peer == "trec_eval" else EXACT
        for m in FIVE:
            if m not in values:
                continue
            reason = EXPECTED_DIFF.get(peer, {}).get(m) if has_ties else None
            checks.append(Check(peer, m, base[m], float(values[m]), tol, reason, "five", ref))
    return checks


def check_stream(memory: dict[str, float], stream: dict[str, float]) -> list[Check]:
    """``cranfield evaluate --stream`` against ``cranfield evaluate``: same code, same values."""
    return [
        Check(CF_STREAM, m, memory[m], stream[m], SAME_CODE, None, "five", CF)
        for m in FIVE
        if m in memory and m in stream
    ]


def check_all_trec(ours: dict[str, Any], theirs: dict[str, Any], peer: str) -> list[Check]:
    checks = []
    for name, value in theirs.items():
        if name in ("runid", "num_queries") or name not in ours:
            continue
        if not isinstance(value, float | int) or not isinstance(ours[name], float | int):
            continue
        checks.append(
            Check(peer, name, float(ours[name]), float(value), FOUR_DECIMALS, None, "all-trec")
        )
    return checks


# --------------------------------------------------------------------------- report


NUMERIC = {
    "median s",
    "min–max s",
    "median CPU s",
    "peak RSS MiB",
    "time ÷ cranfield's",
    "s per M lines",
    "load s (once)",
    "median evaluate s",
    "measured",
}


def table(headers: list[str], rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = [
            "| " + " | ".join(headers) + " |",
            "|" + "|".join("---:" if h in NUMERIC else "---" for h in headers) + "|",
        ]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    return "\n".join(
        [fmt.format(*headers), fmt.format(*("-" * w for w in widths))]
        + [fmt.format(*r) for r in rows]
    )


def seconds(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.2f}"


def tool_rows(
    tools: list[Tool], base: Tool | None, verdicts: dict[str, str], lines: int
) -> list[list[str]]:
    rows = []
    for tool in tools:
        if tool.error or not tool.times:
            rows.append([tool.name, "failed", "", "", "", "", "", tool.error[:60]])
            continue
        ratio = f"{tool.median / base.median:.2f}" if base and base.times else ""
        per_m = f"{tool.median / lines * 1e6:.3f}" if lines and tool.argv[1] != "-c" else ""
        rows.append(
            [
                tool.name,
                seconds(tool.median),
                f"{seconds(min(tool.times))}–{seconds(max(tool.times))}",
                seconds(statistics.median(tool.cpu)),
                f"{max(tool.rss_kib) / 1024:.0f}",
                ratio,
                per_m,
                verdicts.get(tool.name, "reference" if tool is base else "–"),
            ]
        )
    return rows


def summarise(checks: list[Check]) -> dict[str, str]:
    by_tool: dict[str, list[Check]] = {}
    for c in checks:
        by_tool.setdefault(c.tool, []).append(c)
    out = {}
    for tool, cs in by_tool.items():
        bad = [c for c in cs if c.verdict != "agree"]
        if not bad:
            out[tool] = f"all {len(cs)} agree"
        else:
            worst = max(bad, key=lambda c: c.delta)
            unexpected = [c for c in bad if c.verdict == "DIFFERS"]
            out[tool] = (
                f"{len(cs) - len(bad)}/{len(cs)} agree; "
                f"{'UNEXPECTED ' if unexpected else ''}max Δ {worst.delta:.2g}"
            )
    return out


def stream_verdict(checks: list[Check]) -> str | None:
    """The ``--stream`` row: its five means against ``cranfield evaluate``'s, and whether
    every peer gets the same verdict against it as against ``cranfield evaluate``."""
    own = [c for c in checks if c.tool == CF_STREAM]
    if not own:
        return None
    same = sum(c.verdict == "agree" for c in own)
    worst = max(c.delta for c in own)
    text = f"{same}/{len(own)} identical to {CF} (max Δ {worst:.2g})"
    vs_memory = {(c.tool, c.measure): c.verdict for c in checks if c.ref == CF}
    vs_stream = {(c.tool, c.measure): c.verdict for c in checks if c.ref == CF_STREAM}
    if vs_stream:
        moved = sum(vs_memory.get(k) != v for k, v in vs_stream.items())
        text += "; peers: same verdicts" if not moved else f"; peers: {moved} verdicts DIFFER"
    return text


def target(rows: list[list[str]], text: str, shown: str | None, ok: bool | None) -> None:
    """One row of the targets table; ``ok=None`` with a value means "reported, no threshold"."""
    statuses = {None: "reported", True: "met", False: "not met"}
    rows.append([text, shown or "–", "not measured" if shown is None else statuses[ok]])


def report(ctx: dict[str, Any], markdown: bool) -> str:
    meta, env = ctx["meta"], ctx["machine"]
    lines_run = meta["run_lines"]
    out: list[str] = []
    h = "### " if markdown else "== "
    sub = "#### " if markdown else "-- "
    out.append(f"{h}{meta['profile']['name']} profile — {ctx['started']}")
    out.append("")
    out.append(f"Command: `{ctx['command']}`  ")
    out.append(
        f"Data: {meta['queries']:,} queries, {lines_run:,} run lines "
        f"({meta['run_bytes'] / 1e6:,.0f} MB), {meta['qrels_lines']:,} qrels lines; seed "
        f"{meta['seed']}; {meta['adjacent_tie_fraction']:.1%} of adjacent scores tie; "
        f"{meta['relevant_present_fraction']:.0%} of relevant documents retrieved.  "
    )
    load0, load1 = env["load_average"], ctx["load_end"]
    out.append(
        f"Machine: {env.get('cpu')}, {env['cpus_usable']} usable CPUs "
        f"({env.get('Hypervisor vendor', 'bare metal?')} guest), {env.get('memory_gib')} GiB "
        f"RAM ({env.get('memory_available_gib')} GiB available at start), {env['platform']}; "
        f"load average {load0[0]:.1f} at start, {load1[0]:.1f} at end.  "
    )
    pk = env["packages"]
    out.append(
        "Software: Python "
        + env["python"]
        + ", "
        + ", ".join(f"{k} {v}" for k, v in pk.items() if v)
        + f"; git {env.get('git')}; trec_eval: {env['trec_eval'] or 'not on PATH'}.  "
    )
    out.append(
        f"Protocol: {ctx['warmup']} warm-up round(s) then {ctx['repeat']} timed rounds, tools "
        "alternated round-robin, each measurement a fresh child process; median wall time; "
        "median CPU time (user + system, all threads); peak RSS = largest ru_maxrss of the "
        "child over the timed rounds."
    )
    headers = [
        "tool",
        "median s",
        "min–max s",
        "median CPU s",
        "peak RSS MiB",
        "time ÷ cranfield's",
        "s per M lines",
        "values vs cranfield",
    ]
    for group, title in (
        ("five", "From files to the five means (AP, nDCG@10, RR@10, R@1000, P@10)"),
        ("all-trec", "trec_eval -m all_trec"),
    ):
        tools = [t for t in ctx["tools"] if t.group == group]
        if not tools:
            continue
        base = next((t for t in tools if t.name.startswith("cranfield")), None)
        checks = [c for c in ctx["checks"] if c.group == group]
        verdicts = summarise([c for c in checks if not c.ref or (base and c.ref == base.name)])
        if base and base.name != CF_STREAM and (stream := stream_verdict(checks)):
            verdicts[CF_STREAM] = stream
        out += [
            "",
            f"{sub}{title}",
            "",
            table(headers, tool_rows(tools, base, verdicts, lines_run), markdown),
        ]
    mem = ctx.get("memory")
    if mem:
        base_m = mem.get("cranfield", {}).get("median")
        verdicts = summarise([c for c in ctx["checks"] if c.group == "memory"])
        rows = []
        for name, entry in mem.items():
            ratio = f"{entry['median'] / base_m:.2f}" if base_m else ""
            rows.append(
                [
                    name,
                    seconds(entry["load_seconds"]),
                    seconds(entry["median"]),
                    f"{seconds(min(entry['times']))}–{seconds(max(entry['times']))}",
                    ratio,
                    verdicts.get(name, "reference" if name == "cranfield" else "–"),
                ]
            )
        out += [
            "",
            f"{sub}In memory: evaluate on preloaded objects (one process)",
            "",
            table(
                [
                    "tool",
                    "load s (once)",
                    "median evaluate s",
                    "min–max s",
                    "time ÷ cranfield's",
                    "values vs cranfield",
                ],
                rows,
                markdown,
            ),
        ]
    out += [
        "",
        f"{sub}Targets of issue #4 (a report, not a test)",
        "",
        table(["target", "measured", "status"], ctx["targets"], markdown),
    ]
    notes = ctx["notes"]
    vs_memory = {(c.tool, c.measure, c.verdict) for c in ctx["checks"] if c.ref == CF}
    bad = [
        c
        for c in ctx["checks"]
        if c.verdict != "agree"
        and not (c.ref == CF_STREAM and (c.tool, c.measure, c.verdict) in vs_memory)
    ]  # a peer's difference from the stream is listed once when it is the same as from evaluate
    if bad:
        notes.append(
            "Value differences: "
            + "; ".join(
                f"{c.tool}{' (in memory)' if c.group == 'memory' else ''} {c.measure} "
                f"{c.theirs:.6g} vs {'cranfield' if c.ref in ('', CF) else c.ref} "
                f"{c.ours:.6g}, {c.verdict}"
                for c in bad[:20]
            )
            + (f"; … {len(bad) - 20} more" if len(bad) > 20 else "")
        )
    used = {t.name for t in ctx["tools"]}
    notes += [f"{k}: {v}." for k, v in SEMANTICS.items() if k in used]
    if notes:
        out += ["", f"{sub}Notes", ""] + [f"* {n}" for n in notes]
    return "\n".join(out) + "\n"


def targets(ctx: dict[str, Any]) -> list[list[str]]:
    """The issue's targets that this profile can speak to, with the measured numbers."""
    tools = {t.name: t for t in ctx["tools"] if t.times}
    profile = ctx["meta"]["profile"]["name"]
    rows: list[list[str]] = []
    cf = tools.get(CF)
    stream = tools.get(CF_STREAM)
    scale = stream or cf  # huge: the stream's targets (the in-memory tool's if it ran alone)
    peers = [tools[n] for n in ("pytrec_eval", "ranx", "ir_measures", "trec_eval") if n in tools]
    floors = [tools[n] for n in ("polars.read_csv", "pyarrow.csv.read_csv") if n in tools]
    if profile == "msmarco" and cf:
        if peers:
            fastest = min(peers, key=lambda t: t.median)
            r = fastest.median / cf.median
            target(
                rows,
                f"evaluate ≥ 5× faster than the fastest peer ({fastest.name})",
                f"{r:.2f}×",
                r >= 5,
            )
        else:
            target(rows, "evaluate ≥ 5× faster than the fastest peer", None, None)
        if floors:
            floor = min(floors, key=lambda t: t.median)
            r = cf.median / floor.median
            target(
                rows,
                f"evaluate within 1.5× of the fastest bare reader ({floor.name})",
                f"{r:.2f}×",
                r <= 1.5,
            )
    if profile == "msmarco" and cf:
        rss = max(cf.rss_kib) / 1024
        target(rows, "evaluate peak RSS ≤ 600 MiB", f"{rss:.0f} MiB", rss <= 600)
    if profile == "msmarco" and stream:
        rss = max(stream.rss_kib) / 1024
        target(rows, "evaluate --stream peak RSS (for information)", f"{rss:.0f} MiB", None)
    if profile == "huge" and scale:
        which = scale.name.removeprefix("cranfield ")
        rss = max(scale.rss_kib) / 1024
        target(rows, f"{which} peak RSS ≤ 4096 MiB", f"{rss:.0f} MiB", rss <= 4096)
        per_m = scale.median / ctx["meta"]["run_lines"] * 1e6
        target(
            rows,
            f"{which}: seconds per million lines at {ctx['meta']['run_lines'] / 1e6:g}M lines "
            "(linear: same at 10M and 100M)",
            f"{per_m:.3f} s",
            None,
        )
    if profile == "trecdl" and cf:
        for name, limit in (("pytrec_eval", 1.0), ("trec_eval", 1.5)):
            peer = tools.get(name)
            r = cf.median / peer.median if peer else None
            target(
                rows,
                f"whole CLI process ≤ {limit}× {name}'s",
                None if r is None else f"{r:.2f}×",
                r is not None and r <= limit,
            )
    mem = ctx.get("memory")
    if mem and "cranfield" in mem and "ranx" in mem:
        r = mem["ranx"]["median"] / mem["cranfield"]["median"]
        target(
            rows, "in-memory evaluate ≥ 3× faster than ranx's warm evaluate", f"{r:.2f}×", r >= 3
        )
    te = tools.get("cranfield trec-eval -m all_trec")
    other = tools.get("trec_eval -m all_trec") or tools.get("pytrec_eval (all measures)")
    if profile == "msmarco" and te and other:
        r = other.median / te.median
        target(rows, f"trec-eval -m all_trec ≥ 5× faster than {other.name}", f"{r:.2f}×", r >= 5)
    # Peers against one cranfield: the in-memory evaluate if it ran, else the stream.
    primary = CF if any(c.ref == CF for c in ctx["checks"]) else CF_STREAM
    compared = [
        c
        for c in ctx["checks"]
        if c.group in ("five", "memory") and c.tool != CF_STREAM and c.ref in ("", primary)
    ]
    if compared:
        unexpected = sum(c.verdict == "DIFFERS" for c in compared)
        agree = sum(c.verdict == "agree" for c in compared)
        known = len(compared) - agree - unexpected
        target(
            rows,
            "same five means as the peers where semantics agree (Δ ≤ 1e-6)",
            f"{agree} agree, {known} differ for a known reason, {unexpected} unexpected",
            not unexpected,
        )
    five = [c for c in ctx["checks"] if c.group == "five"]
    if shown := stream_verdict(five):
        ok = all(c.verdict == "agree" for c in five if c.tool == CF_STREAM)
        target(
            rows,
            "evaluate --stream gives evaluate's five means (Δ ≤ 1e-12) and the same peer verdicts",
            shown,
            ok and "DIFFER" not in shown,
        )
    return rows


# --------------------------------------------------------------------------- main


def build_tools(
    modes: set[str], wanted: set[str] | None, qrels: Path, run: Path, notes: list[str]
) -> list[Tool]:
    py = sys.executable
    cranfield = str(Path(sys.executable).parent / "cranfield")
    if not Path(cranfield).exists():
        cranfield = shutil.which("cranfield") or "cranfield"
    trec_eval = shutil.which("trec_eval")
    q, r = str(qrels), str(run)
    evaluate = [cranfield, "evaluate", q, r, "-m", *FIVE, "--format", "tsv"]
    candidates: list[tuple[str, str | None, Tool]] = []
    if "five" in modes:
        candidates += [
            ("cranfield", "cranfield", Tool(CF, "five", evaluate, parse_tsv)),
            (
                "cranfield-stream",
                "cranfield",
                Tool(CF_STREAM, "five", [*evaluate, "--stream"], parse_tsv),
            ),
            (
                "trec_eval",
                None,
                Tool(
                    "trec_eval",
                    "five",
                    [
                        trec_eval or "trec_eval",
                        "-m",
                        "map",
                        "-m",
                        "ndcg_cut.10",
                        "-m",
                        "recip_rank",
                        "-m",
                        "recall.1000",
                        "-m",
                        "P.10",
                        q,
                        r,
                    ],
                    parse_trec_eval_five,
                ),
            ),
            (
                "pytrec_eval",
                "pytrec_eval",
                Tool(
                    "pytrec_eval",
                    "five",
                    [py, str(PEERS / "pytrec_eval_driver.py"), q, r],
                    parse_json,
                ),
            ),
            (
                "ranx",
                "ranx",
                Tool("ranx", "five", [py, str(PEERS / "ranx_driver.py"), q, r], parse_json),
            ),
            (
                "ir_measures",
                "ir_measures",
                Tool(
                    "ir_measures",
                    "five",
                    [py, str(PEERS / "ir_measures_driver.py"), q, r],
                    parse_json,
                ),
            ),
            (
                "polars",
                "polars",
                Tool(
                    "polars.read_csv",
                    "five",
                    [py, str(PEERS / "polars_floor.py"), r],
                    parse_json,
                    floor=True,
                ),
            ),
            (
                "pyarrow",
                "pyarrow",
                Tool(
                    "pyarrow.csv.read_csv",
                    "five",
                    [py, str(PEERS / "pyarrow_floor.py"), r],
                    parse_json,
                    floor=True,
                ),
            ),
            (
                "startup",
                "cranfield",
                Tool(
                    "startup: import cranfield.cli.main",
                    "five",
                    [py, "-c", "import cranfield.cli.main"],
                    parse_json,
                    floor=True,
                ),
            ),
        ]
    if "all-trec" in modes:
        candidates.append(
            (
                "cranfield",
                "cranfield",
                Tool(
                    "cranfield trec-eval -m all_trec",
                    "all-trec",
                    [cranfield, "trec-eval", "-m", "all_trec", q, r],
                    parse_trec_eval,
                ),
            )
        )
        if trec_eval:
            candidates.append(
                (
                    "trec_eval",
                    None,
                    Tool(
                        "trec_eval -m all_trec",
                        "all-trec",
                        [trec_eval, "-m", "all_trec", q, r],
                        parse_trec_eval,
                    ),
                )
            )
        else:
            candidates.append(
                (
                    "pytrec_eval",
                    "pytrec_eval",
                    Tool(
                        "pytrec_eval (all measures)",
                        "all-trec",
                        [py, str(PEERS / "pytrec_eval_driver.py"), q, r, "--all"],
                        parse_json,
                    ),
                )
            )
    tools = []
    for key, module, tool in candidates:
        if wanted is not None and key not in wanted:
            continue
        if key == "trec_eval" and not trec_eval:
            notes.append(
                "trec_eval: skipped, no `trec_eval` binary on PATH"
                + (
                    " (all_trec compared with pytrec_eval's measures instead)"
                    if "all-trec" in modes
                    else ""
                )
                + "."
            )
            continue
        if module and module != "cranfield" and not available(module):
            notes.append(
                f"{tool.name}: skipped, `{module}` is not installed (`pip install -e '.[bench]'`)."
            )
            continue
        tools.append(tool)
    return tools


def compile_cranfield() -> None:
    """Byte-compile cranfield's modules, as pip does when it installs a package.

    The peers are installed wheels whose bytecode pip wrote at install time; an editable
    install of cranfield run with ``PYTHONDONTWRITEBYTECODE=1`` (as in some sandboxes and
    containers) would otherwise recompile its ~80 modules in every timed process.
    """
    spec = importlib.util.find_spec("cranfield")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        compileall.compile_dir(folder, quiet=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", choices=("msmarco", "trecdl", "huge"), default="msmarco")
    parser.add_argument("--repeat", type=int, default=5, help="timed rounds (default 5)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed rounds first (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--queries", type=int, default=None, help="override the profile's")
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help="data folder (default benchmarks/data/PROFILE[-qN][-sSEED])",
    )
    parser.add_argument(
        "--modes",
        default=None,
        help="comma list of five,all-trec,memory (default all three; huge: five)",
    )
    parser.add_argument(
        "--tools",
        default=None,
        help="comma list of cranfield,cranfield-stream,trec_eval,pytrec_eval,ranx,ir_measures,"
        "polars,pyarrow,startup (default all available; huge: cranfield-stream,polars,"
        "pyarrow,startup, since the in-memory evaluate needs ~10 GiB at 100M lines)",
    )
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    parser.add_argument("--json", type=Path, default=None, help="also save raw numbers here")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.warmup < 0:
        parser.error("--repeat must be >= 1 and --warmup >= 0")

    huge = args.profile == "huge"
    modes = set((args.modes or ("five" if huge else "five,all-trec,memory")).split(","))
    if unknown := modes - {"five", "all-trec", "memory"}:
        parser.error(f"unknown modes: {', '.join(sorted(unknown))}")
    tool_list = args.tools or ("cranfield-stream,polars,pyarrow,startup" if huge else None)
    wanted = set(tool_list.split(",")) if tool_list else None
    known = {
        "cranfield",
        "cranfield-stream",
        "trec_eval",
        "pytrec_eval",
        "ranx",
        "ir_measures",
        "polars",
        "pyarrow",
        "startup",
    }
    if wanted is not None and (unknown_tools := wanted - known):
        parser.error(f"unknown tools: {', '.join(sorted(unknown_tools))}")

    suffix = (f"-q{args.queries}" if args.queries else "") + (f"-s{args.seed}" if args.seed else "")
    data = args.data or HERE / "data" / f"{args.profile}{suffix}"
    meta = ensure_data(args.profile, data, args.seed, args.queries)
    qrels, run = data / "qrels.txt", data / "run.txt"

    started = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    env = machine()
    log(
        f"{args.profile}: {meta['run_lines']:,} run lines; {env.get('cpu')}, "
        f"{env['cpus_usable']} CPUs, load {env['load_average'][0]:.1f}"
    )
    notes: list[str] = []
    compile_cranfield()
    tools = build_tools(modes, wanted, qrels, run, notes)
    round_robin(tools, args.warmup, args.repeat)

    # Value checks: untimed reference runs where a peer follows other semantics.
    checks: list[Check] = []
    by_name = {t.name: t for t in tools}
    has_ties = meta["adjacent_tie_fraction"] > 0
    needs_f32 = any(t.name in ("pytrec_eval", "ir_measures") and t.stdout for t in tools)
    five_values: dict[str, dict[str, float]] = {}
    for name in (CF, CF_STREAM):  # each cranfield tool against every peer
        cf = by_name.get(name)
        if not (cf and cf.stdout):
            continue
        exact = five_values[name] = parse_tsv(cf.stdout)
        f32 = None
        if needs_f32:
            ref32 = run_child([*cf.argv, "--float32"])
            f32 = parse_tsv(ref32.stdout) if ref32.status == 0 else None
        checks += check_five(tools, exact, f32, has_ties, name)
    if CF in five_values and CF_STREAM in five_values:
        checks += check_stream(five_values[CF], five_values[CF_STREAM])
    te = by_name.get("cranfield trec-eval -m all_trec")
    if te and te.stdout:
        binary = by_name.get("trec_eval -m all_trec")
        if binary and binary.stdout:
            same = binary.stdout == te.stdout
            notes.append(
                "all_trec output of cranfield trec-eval and trec_eval is "
                + ("byte-identical." if same else "NOT byte-identical.")
            )
            found = check_all_trec(
                parse_trec_eval(te.stdout), parse_trec_eval(binary.stdout), binary.name
            )
        else:
            peer = by_name.get("pytrec_eval (all measures)")
            found = []
            if peer and peer.stdout:
                ref9 = run_child([*te.argv[:2], "--compat", "9", *te.argv[2:]])
                if ref9.status == 0:
                    found = check_all_trec(
                        parse_trec_eval(ref9.stdout), parse_json(peer.stdout), peer.name
                    )
                    notes.append(
                        "all_trec values: pytrec_eval (trec_eval 9 code, float32 "
                        "scores) compared with `cranfield trec-eval --compat 9` to 4 "
                        "decimals, on the measures both print."
                    )
        checks += found

    memory = None
    if "memory" in modes:
        names = [
            n
            for n in ("cranfield", "ranx", "pytrec_eval")
            if (wanted is None or n in wanted) and available(n)
        ]
        log(f"  in memory: {', '.join(names)} ...")
        mem_argv = [
            sys.executable,
            str(PEERS / "inmemory.py"),
            str(qrels),
            str(run),
            "--repeat",
            str(args.repeat),
            "--warmup",
            str(max(args.warmup, 1)),
            "--tools",
            ",".join(names),
        ]
        mem = run_child(mem_argv)
        if mem.status == 0:
            memory = parse_json(mem.stdout)
            for name, entry in memory.items():
                log(f"    {name:<12} median {entry['median']:.3f} s")
            ref = memory.get("cranfield", {}).get("values")
            for name in ("ranx", "pytrec_eval"):
                if ref and name in memory:
                    for m in FIVE:
                        reason = EXPECTED_DIFF.get(name, {}).get(m) if has_ties else None
                        checks.append(
                            Check(
                                name, m, ref[m], memory[name]["values"][m], EXACT, reason, "memory"
                            )
                        )
        else:
            notes.append(f"in-memory comparison failed: {mem.stderr.strip()[-300:]}")

    ctx: dict[str, Any] = {
        "meta": meta,
        "machine": env,
        "started": started,
        "load_end": os.getloadavg(),
        "command": shlex.join(
            [
                os.path.relpath(sys.executable, REPO),
                "benchmarks/run.py",
                *(sys.argv[1:] if argv is None else argv),
            ]
        ),
        "warmup": args.warmup,
        "repeat": args.repeat,
        "tools": tools,
        "checks": checks,
        "memory": memory,
        "notes": notes,
    }
    ctx["targets"] = targets(ctx)
    print(report(ctx, args.markdown))
    if args.json:
        raw = {
            "meta": meta,
            "machine": env,
            "started": started,
            "command": ctx["command"],
            "tools": [
                {
                    "name": t.name,
                    "group": t.group,
                    "argv": t.argv,
                    "times": t.times,
                    "cpu": t.cpu,
                    "rss_kib": t.rss_kib,
                    "error": t.error,
                }
                for t in tools
            ],
            "checks": [
                {
                    "tool": c.tool,
                    "measure": c.measure,
                    "group": c.group,
                    "reference": c.ref or None,
                    "cranfield": c.ours,
                    "peer": c.theirs,
                    "tolerance": c.tolerance,
                    "verdict": c.verdict,
                }
                for c in checks
            ],
            "memory": memory,
            "targets": ctx["targets"],
            "notes": notes,
        }
        args.json.write_text(json.dumps(raw, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
