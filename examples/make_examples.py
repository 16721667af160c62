"""Regenerate the bundled example collection (deterministic; run from the repository root).

Eight topics with graded judgments (0-2) and two runs: ``bm25.run`` (a lexical baseline) and
``neural.run`` (a better re-ranker that returned nothing for topic 108, to show how missing
topics are handled).
"""

import random

rng = random.Random(2026)
topics = [str(t) for t in range(101, 109)]
with open("examples/qrels.txt", "w") as q:
    for t in topics:
        for d in range(1, 16):
            rel = rng.choices([0, 1, 2], weights=[6, 3, 1])[0]
            q.write(f"{t} 0 D{t}-{d:02d} {rel}\n")

def run(name: str, quality: float, skip: set[str]) -> None:
    with open(f"examples/{name}.run", "w") as r:
        for t in topics:
            if t in skip:
                continue
            docs = [f"D{t}-{d:02d}" for d in range(1, 21)]  # 16-20 are unjudged
            scored = []
            for d in docs:
                n = int(d.split("-")[1])
                boost = quality * (3 - (n % 3)) if n <= 15 else 0.0
                scored.append((round(boost + rng.random() * 4, 2), d))
            scored.sort(reverse=True)
            for rank, (score, d) in enumerate(scored, start=1):
                r.write(f"{t} Q0 {d} {rank} {score} {name}\n")

run("bm25", 0.5, set())
run("neural", 1.5, {"108"})
