"""Synthetic clusterings and a best-of timer shared by the benchmark scripts.

Run the scripts as ``python benchmarks/NAME.py``: this folder is then on the
import path.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

Labels = np.ndarray[Any, np.dtype[np.int64]]


def zipf_clusters(rng: np.random.Generator, n: int) -> Labels:
    """Cluster labels of ``n`` records, cluster sizes Zipf(2) capped at 1000, shuffled."""
    sizes = np.minimum(rng.zipf(2.0, size=n), 1000)
    labels = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)[:n]
    return labels[rng.permutation(n)]


def move_records(rng: np.random.Generator, labels: Labels, share: float) -> Labels:
    """``labels`` with a ``share`` of the records moved to the cluster of a random record."""
    out = labels.copy()
    at = rng.choice(labels.size, int(share * labels.size), replace=False)
    out[at] = labels[rng.integers(0, labels.size, at.size)]
    return out


def best_time(func: Callable[[], Any], repeat: int) -> float:
    """The shortest wall time of ``repeat`` calls of ``func`` (seconds)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best
