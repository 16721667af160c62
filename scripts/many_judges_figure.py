"""Draw docs/img/many-judges.svg: Cohen's kappa between the LLMJudge judges and the humans.

Run from the repository with ../shared beside it:
    PYTHONPATH=src .venv/bin/python scripts/many_judges_figure.py
It also prints the judge-judge numbers that docs/many-judges.md quotes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from cranfield.io.crowd_labels import crowd_from_qrels
from cranfield.stats.judge_agreement import fleiss_kappa, kappa_of_confusion

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "judges" / "llmjudge"


def main() -> int:
    files = sorted((DATA / "scores").glob("*.txt"))
    human = DATA / "data" / "llmjudge_test_qrel_idx.txt"
    names = ["humans"] + [f.stem for f in files]
    crowd = crowd_from_qrels([human, *files], names=names, scale=(0, 10))
    keys = np.char.add(np.char.add(crowd.queries, "|"), crowd.docs)
    pairs, where = np.unique(keys, return_inverse=True)
    matrix = np.full((len(names), pairs.size), -1, dtype=np.int64)
    row = {n: i for i, n in enumerate(names)}
    matrix[[row[w] for w in crowd.workers.tolist()], where] = crowd.labels
    assert (matrix >= 0).all(), "every judge labels every pair"
    k = len(names)
    kappas = np.ones((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            counts = np.bincount(matrix[i] * 11 + matrix[j], minlength=121).reshape(11, 11)
            kappas[i, j] = kappas[j, i] = kappa_of_confusion(counts)
    off = kappas[1:, 1:][~np.eye(k - 1, dtype=bool)]
    i, j = np.unravel_index(np.argmax(np.where(np.eye(k) == 1, -2, kappas)[1:, 1:]), (k - 1, k - 1))
    lo = np.unravel_index(np.argmin(kappas[1:, 1:]), (k - 1, k - 1))
    print(f"judge-judge kappa: mean {off.mean():.4f}, median {np.median(off):.4f}")
    print(f"most alike: {names[i + 1]} / {names[j + 1]} {kappas[i + 1, j + 1]:.4f}")
    print(
        f"least alike: {names[lo[0] + 1]} / {names[lo[1] + 1]} {kappas[lo[0] + 1, lo[1] + 1]:.4f}"
    )
    print(f"Fleiss' kappa of the 33 judges: {fleiss_kappa(matrix[1:].T):.4f}")
    print(f"mean kappa with the humans: {kappas[0, 1:].mean():.4f}")
    order = [0, *(1 + np.argsort(-kappas[0, 1:], kind="stable"))]
    fig, ax = plt.subplots(figsize=(10, 9))
    shown = kappas[np.ix_(order, order)]
    im = ax.imshow(shown, vmin=0, vmax=1, cmap="viridis")
    ax.set_xticks(range(k), [names[o] for o in order], rotation=90, fontsize=7)
    ax.set_yticks(range(k), [names[o] for o in order], fontsize=7)
    ax.set_title(
        "Cohen's kappa (4 grades) between the humans and the 33 LLMJudge judges,\n"
        "judges ordered by their kappa with the humans (first row)",
        fontsize=10,
    )
    fig.colorbar(im, ax=ax, shrink=0.8, label="Cohen's kappa")
    fig.tight_layout()
    out = ROOT / "docs" / "img" / "many-judges.svg"
    fig.savefig(out, metadata={"Date": None})
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
