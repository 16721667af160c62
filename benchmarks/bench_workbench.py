"""Load test of the judging workbench (issue 32; on demand, not in CI).

    .venv/bin/python benchmarks/bench_workbench.py                    # 20 assessors, 30 s, SQLite
    .venv/bin/python benchmarks/bench_workbench.py --assessors 20 --seconds 60 --repeat 3

A synthetic project (``--topics`` topics, three runs of 150 documents a topic pooled at depth
150, about 2 kB of text a document) is made in a temporary folder, then for each repetition
a fresh ``cranfield judge serve PROJECT --port 0`` process serves it on 127.0.0.1 (one line
of log per request, to a file). ``--assessors`` simulated assessors (two per topic), each
with its own session, log in (argon2 with its default cost) and then judge as fast as the
server lets them for ``--seconds``: one step is "judge and show next", the POST of the
judgment and the GET of the next screen it redirects to, timed together on the client
(httpx, one asyncio loop in this process: the clients share the machine with the server).

Each run also times a baseline with as many clients for as long: one GET of a static file a
step (the floor of the HTTP stack on this machine), before the judging in one run and after it
in the next. Reported per repetition, then the medians: judgments per second, the p50 and p99 of one step,
the judgments the clients saw accepted against the rows and events in the database (lost:
accepted but not stored; duplicated: stored twice), and the server's resident memory (VmRSS)
sampled every second: after the log-ins, at the middle and at the end of the run; and the
ratio of the two steps' p50.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
DOC = re.compile(r'name="doc" value="([^"]+)"')
WORDS = [
    "crime",
    "solar",
    "energy",
    "panel",
    "court",
    "ring",
    "police",
    "market",
    "power",
    "grid",
    "cell",
    "battery",
    "wind",
]


def make_inputs(folder: Path, topics: int, seed: int) -> tuple[list[Path], Path, Path]:
    """Three runs of 150 documents a topic (overlapping), the topics and the documents."""
    rng = random.Random(seed)
    runs = []
    for r in range(3):
        lines = []
        for q in range(1, topics + 1):
            docs = rng.sample(range(400), 150)
            lines += [f"{q} Q0 t{q}d{d} {i + 1} {150 - i} run{r}\n" for i, d in enumerate(docs)]
        path = folder / f"run{r}.txt"
        path.write_text("".join(lines))
        runs.append(path)
    (folder / "topics.tsv").write_text(
        "".join(f"{q}\t{rng.choice(WORDS)} {rng.choice(WORDS)}\n" for q in range(1, topics + 1))
    )
    with (folder / "docs.jsonl").open("w") as out:
        for q in range(1, topics + 1):
            for d in range(400):
                text = " ".join(rng.choice(WORDS) for _ in range(300))
                out.write(
                    json.dumps({"doc_id": f"t{q}d{d}", "title": f"Doc {d}", "text": text}) + "\n"
                )
    return runs, folder / "topics.tsv", folder / "docs.jsonl"


def cranfield(*argv: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "cranfield.cli.main", *argv],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def assessor(
    url: str,
    name: str,
    password: str,
    topic: str,
    until: list[float],
    steps: list[float],
    ready: list[str],
    think: float,
) -> int:
    """Log in, wait for the start, then judge and show next until ``until[0]``; the judgments
    accepted."""
    accepted = 0
    async with httpx.AsyncClient(base_url=url, timeout=60.0) as c:
        page = await c.get("/login")
        token = CSRF.search(page.text)
        assert token is not None
        form = {"csrf": token.group(1), "name": name, "password": password}
        r = await c.post("/login", data=form)
        if r.status_code != 303:
            raise RuntimeError(f"{name} could not log in: {r.status_code}")
        page = await c.get(f"/judge?topic={topic}")
        ready.append(name)
        while not until:
            await asyncio.sleep(0.01)
        while time.monotonic() < until[0]:
            doc = DOC.search(page.text)
            if doc is None:
                break  # the topic is done
            token = CSRF.search(page.text)
            assert token is not None
            started = time.perf_counter()
            r = await c.post(
                "/judge",
                data={
                    "csrf": token.group(1),
                    "topic": topic,
                    "doc": doc.group(1),
                    "label": str(accepted % 4),
                },
            )
            if r.status_code != 303:
                raise RuntimeError(f"{name}: {r.status_code}")
            page = await c.get(r.headers["location"])
            steps.append(time.perf_counter() - started)
            accepted += 1
            if think:  # the assessor reads the next document
                await asyncio.sleep(think)
    return accepted


async def static_client(url: str, until: list[float], steps: list[float], think: float) -> None:
    """The baseline: one GET of a static file a step, the floor of the HTTP stack here."""
    async with httpx.AsyncClient(base_url=url, timeout=60.0) as c:
        while time.monotonic() < until[0]:
            started = time.perf_counter()
            r = await c.get("/static/workbench.css")
            r.raise_for_status()
            steps.append(time.perf_counter() - started)
            if think:
                await asyncio.sleep(think)


async def baseline(url: str, clients: int, seconds: float, think: float) -> tuple[float, float]:
    """p50 and p99 (ms) of the baseline step with as many clients."""
    until = [time.monotonic() + seconds]
    steps: list[float] = []
    await asyncio.gather(*(static_client(url, until, steps, think) for _ in range(clients)))
    steps.sort()
    return 1000 * steps[len(steps) // 2], 1000 * steps[min(len(steps) - 1, int(len(steps) * 0.99))]


@dataclass
class Result:
    """One run of the load test."""

    accepted: int
    per_second: float
    p50_ms: float
    p99_ms: float
    rss_start_mib: float
    rss_middle_mib: float
    rss_end_mib: float
    stored: int = 0
    duplicated: int = 0
    static_p50_ms: float = 0.0
    static_p99_ms: float = 0.0

    @property
    def lost(self) -> int:
        return self.accepted - self.stored


async def load(
    url: str, team: dict[str, tuple[str, str]], seconds: float, pid: int, think: float
) -> Result:
    until: list[float] = []
    steps: list[float] = []
    ready: list[str] = []
    tasks = [
        asyncio.create_task(assessor(url, n, pw, q, until, steps, ready, think))
        for n, (pw, q) in team.items()
    ]
    # every log-in first (argon2: the slow part of a start), then the clock
    while len(ready) < len(tasks):
        if any(t.done() for t in tasks):
            await asyncio.gather(*tasks)  # raises the failed log-in
        await asyncio.sleep(0.05)
    memory = [rss_kib(pid)]
    start = time.monotonic()
    until.append(start + seconds)
    while time.monotonic() < until[0]:
        await asyncio.sleep(1.0)
        memory.append(rss_kib(pid))
    accepted = sum(await asyncio.gather(*tasks))
    elapsed = time.monotonic() - start
    steps.sort()
    return Result(
        accepted,
        accepted / elapsed,
        1000 * steps[len(steps) // 2],
        1000 * steps[min(len(steps) - 1, int(len(steps) * 0.99))],
        memory[0] / 1024,
        memory[len(memory) // 2] / 1024,
        memory[-1] / 1024,
    )


DUPLICATES = (
    "select count(*) from (select 1 from judgments "
    "group by assessor_id, query_id, doc_id having count(*) > 1)"
)
JUDGED = "select count(*) from events where action = 'judge'"


def one_run(
    project: Path, team: dict[str, tuple[str, str]], seconds: float, think: float, first: bool
) -> Result:
    log = (project / "serve.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "cranfield.cli.main", "judge", "serve", str(project), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().split(" at ")[1].strip().rstrip("/")
        db = sqlite3.connect(project / "judgments.sqlite")
        before = db.execute(JUDGED).fetchone()[0]
        # the baseline before the judging in one run, after it in the next (alternating)
        static = asyncio.run(baseline(url, len(team), seconds, think)) if first else None
        result = asyncio.run(load(url, team, seconds, server.pid, think))
        if static is None:
            static = asyncio.run(baseline(url, len(team), seconds, think))
        result.static_p50_ms, result.static_p99_ms = static
        result.stored = db.execute(JUDGED).fetchone()[0] - before
        result.duplicated = db.execute(DUPLICATES).fetchone()[0]
        db.close()
        return result
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--assessors", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--think", type=float, default=0.0, help="seconds each assessor reads a document (0)"
    )
    args = ap.parse_args()
    topics = max(1, args.assessors // 2)
    with tempfile.TemporaryDirectory(prefix="cranfield-bench-judge-") as tmp:
        folder = Path(tmp)
        runs, topics_file, docs = make_inputs(folder, topics, args.seed)
        project = folder / "project"
        cranfield(
            *("judge", "init", str(project), "--pool", *map(str, runs)),
            *("--topics", str(topics_file), "--docs", str(docs), "--pool-depth", "150"),
        )
        team: dict[str, tuple[str, str]] = {}
        for i in range(args.assessors):
            topic = str(i % topics + 1)
            out = cranfield("judge", "assessor", "add", str(project), f"a{i}", "--query", topic)
            team[f"a{i}"] = (out.split("(shown once): ")[1].split()[0], topic)
        results = []
        for r in range(args.repeat):
            res = one_run(project, team, args.seconds, args.think, r % 2 == 0)
            results.append(res)
            print(f"run {r + 1}: {res} lost={res.lost}", flush=True)
    print(
        f"\n{args.assessors} assessors, {topics} topics, {args.seconds:.0f} s a run, "
        f"think {args.think:g} s, "
        f"{args.repeat} runs; Python {platform.python_version()} on {platform.machine()}"
    )
    keys = ("per_second", "p50_ms", "p99_ms", "static_p50_ms", "static_p99_ms")
    for key in (*keys, "rss_start_mib", "rss_middle_mib", "rss_end_mib"):
        print(f"median {key}: {statistics.median(getattr(r, key) for r in results):.1f}")
    ratio = statistics.median(r.p50_ms / r.static_p50_ms for r in results)
    print(f"median p50 ratio, judge and show next / static GET: {ratio:.1f}")
    lost = sum(r.lost for r in results)
    print(f"lost: {lost}, duplicated: {sum(r.duplicated for r in results)}")


if __name__ == "__main__":
    main()
