"""Terms of the clusters' sizes, in pure NumPy, shared by the statistics in memory and
those of the SQL engines: the entropy of a clustering, and the share of the
records on one side only.

The passes go a chunk at a time (:data:`SMALL` values), so their temporaries stay
in the CPU cache.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["CHUNK", "SMALL", "chunks", "size_entropy", "twin_terms"]

#: Cells per bincount (bounds the temporary arrays).
CHUNK = 1 << 23
#: Values per step of the per-cell passes (their temporaries stay in cache).
SMALL = 1 << 16


def chunks(m: int, size: int = CHUNK) -> list[slice]:
    """``0 .. m`` in slices of ``size``."""
    return [slice(k, min(k + size, m)) for k in range(0, m, size)]


def size_entropy(sizes: npt.NDArray[Any], big_n: float) -> float:
    """``sum (s / N) ln(s / N)`` over the clusters (in chunks)."""
    total = []
    for p in chunks(sizes.shape[0], SMALL):
        x = sizes[p][sizes[p] > 0].astype(np.float64) / big_n
        total.append(float(np.sum(x * np.log(x))))
    return math.fsum(total)


def twin_terms(
    sizes: npt.NDArray[Any], common: npt.NDArray[Any], big_n: float
) -> tuple[float, float, int, int]:
    """Over the clusters with records on this side only: those records' share of the
    other side's conditional entropy, ``sum (s - c) (1 / N) ln(1 / s)``; ``sum (s -
    c) / s``; the clusters; those of a single record."""
    entropy, shares, clusters, lone = [], [], 0, 0
    for p in chunks(sizes.shape[0], SMALL):
        extra = sizes[p].astype(np.int64) - common[p]
        some = extra > 0
        if some.any():
            s = sizes[p][some].astype(np.float64)
            entropy.append(float(np.sum(extra[some] * ((1.0 / big_n) * np.log(1.0 / s)))))
            shares.append(float(np.sum(extra[some] / s)))
            clusters += int(np.count_nonzero(some))
            lone += int(np.count_nonzero(s == 1.0))
    return math.fsum(entropy), math.fsum(shares), clusters, lone
