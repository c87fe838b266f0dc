"""Regenerate the bundled example clustering pair (seeded; run from the repo root).

A toy author-disambiguation: 600 name mentions of 180 true authors with skewed
cluster sizes; the prediction splits some authors and merges some homonyms, as a
real disambiguation does.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np


def main() -> None:
    rng = np.random.default_rng(20261122)
    n_authors = 180
    sizes = np.minimum(rng.zipf(2.0, size=n_authors), 40)
    truth = np.repeat(np.arange(n_authors), sizes)
    rng.shuffle(truth)
    truth = truth[:600] if truth.size > 600 else truth
    records = [f"m{i:04d}" for i in range(truth.size)]
    pred = truth.copy()
    # split: move ~8% of mentions to a new cluster of their own author
    movers = rng.choice(truth.size, size=truth.size * 8 // 100, replace=False)
    pred[movers] = pred[movers] + 1000
    # merge: join ~6% of authors into another author's cluster (homonyms)
    merged = rng.choice(n_authors, size=n_authors * 6 // 100, replace=False)
    targets = rng.choice(n_authors, size=merged.size)
    for src, dst in zip(merged, targets, strict=True):
        pred[pred == src] = dst
    here = Path(__file__).parent
    for name, labels, prefix in (("truth.csv", truth, "A"), ("pred.csv", pred, "P")):
        with open(here / name, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["record_id", "cluster_id"])
            for rec, lab in zip(records, labels, strict=True):
                writer.writerow([rec, f"{prefix}{lab}"])


if __name__ == "__main__":
    main()
