"""Regenerate the bundled example collection (deterministic; run from the repository root).

Eight topics with graded judgments (0-2) and two runs of 20 documents per topic (documents
16-20 of each topic are unjudged): ``bm25.run``, a weak lexical baseline, and ``neural.run``,
a stronger re-ranker that returned nothing for topic 108, to show how a missing topic is
handled (it scores 0 and is counted); ``qrels-second.txt``, a second assessor of the
same topics, for ``cranfield agree``.
"""

import random

rng = random.Random(2026)
topics = [str(t) for t in range(101, 109)]
grades: dict[tuple[str, str], int] = {}
with open("examples/qrels.txt", "w") as q:
    for t in topics:
        for d in range(1, 16):
            rel = rng.choices([0, 1, 2], weights=[6, 3, 1])[0]
            grades[(t, f"D{t}-{d:02d}")] = rel
            q.write(f"{t} 0 D{t}-{d:02d} {rel}\n")


def run(name: str, signal: float, skip: set[str]) -> None:
    with open(f"examples/{name}.run", "w") as r:
        for t in topics:
            if t in skip:
                continue
            scored = []
            for n in range(1, 21):
                d = f"D{t}-{n:02d}"
                score = signal * grades.get((t, d), 0) + rng.random() * 2
                scored.append((round(score, 2), d))
            scored.sort(reverse=True)
            for rank, (score, d) in enumerate(scored, start=1):
                r.write(f"{t} Q0 {d} {rank} {score} {name}\n")


run("bm25", 0.6, set())
run("neural", 1.6, {"108"})

# A second assessor for the same topics (``cranfield agree``): most labels as the first, some
# one grade off, two documents judged by the first only and one by the second only. Its own
# random stream, so the files above do not change.
second = random.Random(2027)
with open("examples/qrels-second.txt", "w") as q:
    for (t, d), rel in grades.items():
        if (t, d) in {("101", "D101-15"), ("104", "D104-15")}:
            continue
        if second.random() < 0.25:
            rel = min(2, max(0, rel + second.choice([-1, 1])))
        q.write(f"{t} 0 {d} {rel}\n")
    q.write("105 0 D105-16 1\n")

# Sessions of an A/B test for `cranfield logs ab`: 40 users randomised to bucket A (control)
# or B; each user's sessions share the user's taste for clicking (so they are correlated),
# and B's ranker draws a few more clicks. One row per session.
ab = random.Random(20)
with open("examples/sessions.csv", "w") as s:
    s.write("session,user,bucket,clicks,shown\n")
    number = 0
    for u in range(1, 41):
        bucket = "A" if u % 2 else "B"
        taste = ab.uniform(0.05, 0.45) + (0.06 if bucket == "B" else 0.0)
        for _ in range(ab.randint(1, 6)):
            number += 1
            clicks = sum(ab.random() < taste for _ in range(10))
            s.write(f"s{number:03d},u{u:02d},{bucket},{clicks},10\n")


# The judging workbench's walk-through (docs/judging-workbench.md): the topics and documents of
# the runs above, as an assessor reads them. Its own generator: the files above stay as they are.
import json  # noqa: E402

words = random.Random(32)
SUBJECTS = {
    "101": ("heat pumps in cold climates", "How well do air-source heat pumps work below -10 C?"),
    "102": ("river flood forecasting", "Methods that forecast river floods days ahead."),
    "103": ("bicycle lane safety", "Do separated bicycle lanes reduce injuries?"),
    "104": ("sourdough starter care", "How to keep a sourdough starter alive and active."),
    "105": ("solar panel recycling", "What happens to solar panels at the end of their life?"),
    "106": ("urban beekeeping", "Keeping honey bees on city rooftops: rules and risks."),
    "107": ("<script>alert('topic')</script> markup in titles", "A topic whose text holds HTML."),
    "108": ("night train revival", "Why are night trains coming back in Europe?"),
}
FILLER = ["study", "report", "data", "field", "season", "city", "rate", "test", "model", "case"]
with open("examples/judging/topics.jsonl", "w") as f:
    for t, (title, desc) in SUBJECTS.items():
        f.write(json.dumps({"query_id": t, "title": title, "description": desc,
                            "narrative": "Relevant documents answer the question directly."}) + "\n")
with open("examples/judging/docs.jsonl", "w") as f:
    for t, (title, _) in SUBJECTS.items():
        for n in range(1, 21):
            body = " ".join(words.choice(FILLER) for _ in range(60))
            f.write(json.dumps({"doc_id": f"D{t}-{n:02d}", "title": f"On {title} ({n})",
                                "text": f"A document about {title}. {body}."}) + "\n")
