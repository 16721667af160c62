"""Shared pieces of the judges' tests: a simulated crowd with known worker accuracies."""

from __future__ import annotations

import numpy as np

from cranfield.io.crowd_labels import CrowdLabels


def simulated_crowd(
    *,
    pairs: int = 300,
    workers: int = 12,
    grades: int = 4,
    per_pair: int = 5,
    seed: int = 0,
) -> tuple[CrowdLabels, dict[tuple[str, str], int], dict[str, float]]:
    """A crowd whose workers label right with a known accuracy (uniform in [0.3, 0.9]) and
    otherwise draw a grade uniformly; the true labels and the accuracies."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, grades, pairs)
    accuracy = rng.uniform(0.3, 0.9, workers)
    rows = []
    for t in range(pairs):
        for w in rng.choice(workers, per_pair, replace=False):
            label = truth[t] if rng.random() < accuracy[w] else rng.integers(0, grades)
            rows.append((f"w{w:02d}", f"q{t // 10}", f"d{t:03d}", int(label)))
    w, q, d, lab = zip(*rows, strict=True)
    crowd = CrowdLabels(
        np.array(w, dtype=np.str_),
        np.array(q, dtype=np.str_),
        np.array(d, dtype=np.str_),
        np.array(lab, dtype=np.int64),
        (0, grades - 1),
        "<simulated>",
    )
    true = {(f"q{t // 10}", f"d{t:03d}"): int(truth[t]) for t in range(pairs)}
    return crowd, true, {f"w{i:02d}": float(a) for i, a in enumerate(accuracy)}
