"""Generated inputs for the sampling estimators: stratified qrels, prels and tie-free runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def write_inputs(folder: Path, seed: int, *, topics: int = 4, docs: int = 120) -> dict[str, Path]:
    """A stratified qrels file (three strata by rank, sampled at 1, 1/2 and 1/8), prels with
    inclusion probabilities, and a tie-free run that retrieves some documents of neither.

    Probabilities are powers of 1/2 so that sums of 1/p are exact in any order (statAP's
    script sums them in Perl's hash order), and the relevant documents a run misses share one
    probability per topic (the script orders them by hash too).
    """
    rng = np.random.default_rng(seed)
    qrels, prels, run = [], [], []
    for t in range(topics):
        topic = str(301 + 7 * t)
        pool = [f"D{seed}-{t}-{i:04d}" for i in range(docs)]
        grades = rng.choice([0, 0, 0, 1, 1, 2], size=docs)
        strata = np.where(
            np.arange(docs) < docs // 6, 1, np.where(np.arange(docs) < docs // 2, 2, 3)
        )
        rates = {1: 1.0, 2: 0.5, 3: 0.125}
        for i, doc in enumerate(pool):
            s = int(strata[i])
            sampled = s == 1 or rng.random() < rates[s]
            rel = int(grades[i]) if sampled else -1
            qrels.append(f"{topic} 0 {doc} {s} {rel}")
            if sampled:
                prels.append(f"{topic} {doc} {int(grades[i])} 1 {rates[s]!r}")
        # the run: a shuffled part of the pool plus unjudged documents, distinct scores
        picked = rng.permutation(docs)[: int(docs * 0.8)]
        retrieved = [pool[i] for i in picked] + [f"X{seed}-{t}-{i}" for i in range(30)]
        order = rng.permutation(len(retrieved))
        scores = rng.permutation(np.arange(len(retrieved)) * 3 + 7) / 7.0
        for k in order:
            run.append(f"{topic} Q0 {retrieved[k]} 0 {float(scores[k])!r} gen")
        # statAP: the relevant documents the run misses get one probability
        missed = {pool[i] for i in range(docs)} - {pool[i] for i in picked}
        prels = [
            line
            if line.split()[1] not in missed or line.split()[2] == "0"
            else " ".join([*line.split()[:4], "0.5"])
            for line in prels
        ]
    paths = {
        "qrels": folder / "qrels.txt",
        "prels": folder / "prels.txt",
        "run": folder / "run.txt",
    }
    paths["qrels"].write_text("\n".join(qrels) + "\n")
    paths["prels"].write_text("\n".join(prels) + "\n")
    paths["run"].write_text("\n".join(run) + "\n")
    return paths
