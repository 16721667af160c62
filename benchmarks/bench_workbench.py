"""Load test of the judging workbench (issue 32; on demand, not in CI).

    python benchmarks/bench_workbench.py                  # 20 assessors reading 1 s, 3 x 20 s
    python benchmarks/bench_workbench.py --think 0        # as fast as they can

A synthetic project (``--assessors`` / 2 topics, three runs of 150 documents a topic pooled at
depth 150, about 2 kB of text a document) is made in a temporary folder, then for each
repetition a fresh ``cranfield judge serve PROJECT --port 0`` process serves it on 127.0.0.1
(one line of log per request, to a file).

**The clients do not run in the server's process, nor in this one**: ``--processes`` client
processes (default 1) share the assessors, each an asyncio loop driving a minimal HTTP/1.1
client on plain sockets (keep-alive, one connection an assessor; a request costs the client
tens of microseconds, not the milliseconds of a full HTTP library). Each assessor logs in
(argon2 at its default cost), waits for the start, then judges for ``--seconds``: one step is
"judge and show next", the POST of the judgment and the GET of the next screen it redirects
to, timed on the client from the first byte sent to the last byte of the screen received;
then the assessor reads the screen for 0.5 to 1.5 times ``--think`` seconds (default 1; drawn
uniformly, seeded by the assessor's name; the first step after 0 to ``--think`` seconds), so
that the assessors do not move in lockstep, as people do not.

Each run also times a baseline with as many clients for as long: one GET of a static file a
step (the floor of the HTTP stack on this machine), before the judging in one run and after it
in the next. Reported per repetition, then the medians: judgments per second, p50 and p99 of a
step on the client and of the two requests as the server logged them, the server's CPU time
per step (``/proc/PID/stat``: what the step costs, whatever else the machine does), the
judgments the clients saw accepted against the rows and events in the database (lost:
accepted but not stored; duplicated: stored twice), the server's resident memory (VmRSS)
after the log-ins, at the middle and at the end, and the load average of the machine at the
start and end of each run (the machine is shared: read the latencies with it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import platform
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

CSRF = re.compile(rb'name="csrf" value="([^"]+)"')
DOC = re.compile(rb'name="doc" value="([^"]+)"')
LOGGED = re.compile(r'"(GET|POST) (/judge)\S* (\d+) ([\d.]+)ms$')
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


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (all its threads) so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------- the client


class Client:
    """One keep-alive HTTP/1.1 connection with a cookie jar: just what the workbench needs."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.cookies: dict[str, str] = {}
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, form: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        body = urlencode(form).encode() if form is not None else b""
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        if self.cookies:
            head.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        if form is not None:
            head += [
                "Content-Type: application/x-www-form-urlencoded",
                f"Content-Length: {len(body)}",
            ]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        headers: dict[str, str] = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "set-cookie":
                key, _, rest = value.partition("=")
                cookie = rest.split(";", 1)[0]
                if cookie and "max-age=0" not in value.lower():
                    self.cookies[key] = cookie
                else:
                    self.cookies.pop(key, None)
            headers[name] = value
        data = await self.reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, headers, data

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = self.reader = None


async def assessor(
    url: str,
    name: str,
    password: str,
    topic: str,
    start: asyncio.Event,
    deadline: list[float],
    logged_in: list[str],
) -> tuple[int, list[float]]:
    """Log in, wait for the start, then judge and show next until the deadline; the judgments
    accepted and the time of each step."""
    parts = urlsplit(url)
    c = Client(parts.hostname or "127.0.0.1", parts.port or 80)
    steps: list[float] = []
    accepted = 0
    think = deadline[1]
    rng = random.Random(name)  # each assessor reads at their own pace, the same every run
    _, _, page = await c.request("GET", "/login")
    token = CSRF.search(page)
    assert token is not None
    form = {"csrf": token.group(1).decode(), "name": name, "password": password}
    status, _, _ = await c.request("POST", "/login", form)
    if status != 303:
        raise RuntimeError(f"{name} could not log in: {status}")
    _, _, page = await c.request("GET", f"/judge?topic={topic}")
    logged_in.append(name)
    await start.wait()
    await asyncio.sleep(rng.uniform(0.0, think))  # assessors do not start in step
    while time.time() < deadline[0]:
        doc, token = DOC.search(page), CSRF.search(page)
        if doc is None or token is None:
            break  # the topic is done
        form = {
            "csrf": token.group(1).decode(),
            "topic": topic,
            "doc": doc.group(1).decode(),
            "label": str(accepted % 4),
        }
        started = time.perf_counter()
        status, headers, _ = await c.request("POST", "/judge", form)
        if status != 303:
            raise RuntimeError(f"{name}: {status}")
        _, _, page = await c.request("GET", headers["location"])
        steps.append(time.perf_counter() - started)
        accepted += 1
        if think:  # the assessor reads the next document: 0.5 to 1.5 times --think
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
    await c.close()
    return accepted, steps


async def static_client(url: str, deadline: float, think: float) -> list[float]:
    """The baseline: one GET of a static file a step, the floor of the HTTP stack here."""
    parts = urlsplit(url)
    c = Client(parts.hostname or "127.0.0.1", parts.port or 80)
    steps = []
    while time.time() < deadline:
        started = time.perf_counter()
        status, _, _ = await c.request("GET", "/static/workbench.css")
        if status != 200:
            raise RuntimeError(f"static file: {status}")
        steps.append(time.perf_counter() - started)
        if think:
            await asyncio.sleep(think)
    await c.close()
    return steps


def client_process(
    url: str,
    team: list[tuple[str, str, str]],
    think: float,
    ready: Any,
    go: Any,
    results: Any,
) -> None:
    """One client process: its assessors log in, say so, wait for the start time, judge."""

    async def run() -> tuple[int, list[float], float]:
        start = asyncio.Event()
        deadline = [0.0, think]
        logged_in: list[str] = []
        tasks = [
            asyncio.create_task(assessor(url, n, pw, q, start, deadline, logged_in))
            for n, pw, q in team
        ]
        loop = asyncio.get_running_loop()
        while len(logged_in) < len(tasks):  # every log-in of this process first
            if any(t.done() for t in tasks):
                await asyncio.gather(*tasks)  # raises the failed log-in
            await asyncio.sleep(0.01)
        ready.put(len(team))
        begin, seconds = await loop.run_in_executor(None, go.get)
        deadline[0] = begin + seconds
        await asyncio.sleep(max(0.0, begin - time.time()))
        cpu = time.process_time()
        start.set()
        done = await asyncio.gather(*tasks)
        return (
            sum(a for a, _ in done),
            [s for _, steps in done for s in steps],
            time.process_time() - cpu,
        )

    results.put(asyncio.run(run()))


def static_process(url: str, clients: int, deadline: float, think: float, results: Any) -> None:
    async def run() -> list[float]:
        found = await asyncio.gather(*(static_client(url, deadline, think) for _ in range(clients)))
        return [s for steps in found for s in steps]

    results.put(asyncio.run(run()))


# ---------------------------------------------------------------------- one run


@dataclass
class Result:
    """One run of the load test."""

    accepted: int = 0
    per_second: float = 0.0
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    server_post_p50_ms: float = 0.0
    server_get_p50_ms: float = 0.0
    server_post_p99_ms: float = 0.0
    server_get_p99_ms: float = 0.0
    server_cpu_ms_per_step: float = 0.0
    client_cpu_ms_per_step: float = 0.0
    rss_mib: list[float] = field(default_factory=list)
    stored: int = 0
    duplicated: int = 0
    static_p50_ms: float = 0.0
    static_p99_ms: float = 0.0
    load: tuple[float, float] = (0.0, 0.0)

    @property
    def lost(self) -> int:
        return self.accepted - self.stored


def quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))] if values else float("nan")


def static_baseline(url: str, clients: int, seconds: float, think: float) -> tuple[float, float]:
    """p50 and p99 (ms) of the baseline step with as many clients, from another process."""
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    worker = ctx.Process(
        target=static_process, args=(url, clients, time.time() + seconds, think, results)
    )
    worker.start()
    steps = results.get()
    worker.join()
    return 1000 * quantile(steps, 0.5), 1000 * quantile(steps, 0.99)


def judging(
    url: str,
    team: dict[str, tuple[str, str]],
    seconds: float,
    pid: int,
    think: float,
    processes: int,
    log: Path,
) -> Result:
    ctx = mp.get_context("spawn")
    ready, go, results = ctx.Queue(), ctx.Queue(), ctx.Queue()
    members = [(n, pw, q) for n, (pw, q) in team.items()]
    workers = [
        ctx.Process(
            target=client_process,
            args=(url, members[k::processes], think, ready, go, results),
        )
        for k in range(processes)
    ]
    for w in workers:
        w.start()
    for _ in workers:
        ready.get()  # every log-in answered (argon2: the slow part of a start)
    memory = [rss_kib(pid)]
    load_start = os.getloadavg()[0]
    begin = time.time() + 0.5
    skip = len(log.read_text().splitlines())  # the server's log of the log-ins
    for _ in workers:
        go.put((begin, seconds))
    time.sleep(max(0.0, begin - time.time()))
    cpu = cpu_seconds(pid)
    while time.time() < begin + seconds:
        time.sleep(1.0)
        memory.append(rss_kib(pid))
    found = [results.get() for _ in workers]
    server_cpu = cpu_seconds(pid) - cpu
    for w in workers:
        w.join()
    elapsed = time.time() - begin
    accepted = sum(a for a, _, _ in found)
    steps = [s for _, st, _ in found for s in st]
    times = server_times(log, skip)
    return Result(
        server_post_p50_ms=quantile(times["POST"], 0.5),
        server_post_p99_ms=quantile(times["POST"], 0.99),
        server_get_p50_ms=quantile(times["GET"], 0.5),
        server_get_p99_ms=quantile(times["GET"], 0.99),
        accepted=accepted,
        per_second=accepted / elapsed,
        p50_ms=1000 * quantile(steps, 0.5),
        p99_ms=1000 * quantile(steps, 0.99),
        server_cpu_ms_per_step=1000 * server_cpu / max(1, accepted),
        client_cpu_ms_per_step=1000 * sum(c for _, _, c in found) / max(1, accepted),
        rss_mib=[m / 1024 for m in (memory[0], memory[len(memory) // 2], memory[-1])],
        load=(load_start, os.getloadavg()[0]),
    )


DUPLICATES = (
    "select count(*) from (select 1 from judgments "
    "group by assessor_id, query_id, doc_id having count(*) > 1)"
)
JUDGED = "select count(*) from events where action = 'judge'"


def server_times(log: Path, skip: int) -> dict[str, list[float]]:
    """The milliseconds the server logged for each POST and GET of ``/judge`` after line
    ``skip`` of its log."""
    found: dict[str, list[float]] = {"POST": [], "GET": []}
    for line in log.read_text().splitlines()[skip:]:
        m = LOGGED.search(line)
        if m is not None:
            found[m.group(1)].append(float(m.group(4)))
    return found


def one_run(
    project: Path,
    team: dict[str, tuple[str, str]],
    seconds: float,
    think: float,
    first: bool,
    processes: int,
) -> Result:
    log_path = project / "serve.log"
    log = log_path.open("w")
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
        static = static_baseline(url, len(team), seconds, think) if first else None
        result = judging(url, team, seconds, server.pid, think, processes, log_path)
        if static is None:
            static = static_baseline(url, len(team), seconds, think)
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
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--think", type=float, default=1.0, help="seconds each assessor reads a document (1)"
    )
    ap.add_argument(
        "--processes", type=int, default=1, help="client processes sharing the assessors (1)"
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
            res = one_run(project, team, args.seconds, args.think, r % 2 == 0, args.processes)
            results.append(res)
            print(
                f"run {r + 1}: {res.accepted} judgments ({res.per_second:.1f}/s), step p50 "
                f"{res.p50_ms:.1f} ms p99 {res.p99_ms:.1f} ms; server POST p50/p99 "
                f"{res.server_post_p50_ms:.1f}/{res.server_post_p99_ms:.1f} ms, GET "
                f"{res.server_get_p50_ms:.1f}/{res.server_get_p99_ms:.1f} ms; server CPU "
                f"{res.server_cpu_ms_per_step:.2f} ms a step (clients "
                f"{res.client_cpu_ms_per_step:.2f}); static GET p50/p99 "
                f"{res.static_p50_ms:.1f}/{res.static_p99_ms:.1f} ms; lost {res.lost}, "
                f"duplicated {res.duplicated}; RSS "
                + " -> ".join(f"{m:.1f}" for m in res.rss_mib)
                + f" MiB; load average {res.load[0]:.2f} -> {res.load[1]:.2f}",
                flush=True,
            )
    print(
        f"\n{args.assessors} assessors, {topics} topics, {args.seconds:g} s a run, "
        f"think {args.think:g} s, {args.processes} client process(es), {args.repeat} runs; "
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs"
    )
    keys = (
        "per_second",
        "p50_ms",
        "p99_ms",
        "server_post_p50_ms",
        "server_post_p99_ms",
        "server_get_p50_ms",
        "server_get_p99_ms",
        "server_cpu_ms_per_step",
        "client_cpu_ms_per_step",
        "static_p50_ms",
        "static_p99_ms",
    )
    for key in keys:
        print(f"median {key}: {statistics.median(getattr(r, key) for r in results):.2f}")
    for i, when in enumerate(("after log-in", "middle", "end")):
        print(f"median rss_mib {when}: {statistics.median(r.rss_mib[i] for r in results):.1f}")
    loads = [x for r in results for x in r.load]
    print(f"load average (1 min) during the runs: {min(loads):.2f} to {max(loads):.2f}")
    print(
        f"lost: {sum(r.lost for r in results)} of {sum(r.accepted for r in results)}, "
        f"duplicated: {sum(r.duplicated for r in results)}"
    )


if __name__ == "__main__":
    main()
