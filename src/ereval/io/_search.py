"""Positions of keys in ascending order among sorted keys, a narrow range at a time.

``np.searchsorted`` bisects the whole sorted array for each key sought: for
millions of keys, each bisection's first steps land far apart in memory and miss
the cache. Keys sought in ascending order have ascending positions, so every
:data:`STEP`-th key is located first, and the keys between two of those are then
sought only between their positions: where both arrays spread alike (the keys of
two sides of one record set), a range about as long as the step, which stays in
the cache; never a longer one than the whole array.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import numpy.typing as npt

__all__ = ["STEP", "sorted_search"]

#: Keys sought at a time within one narrowed range.
STEP = 1 << 12


def sorted_search(
    haystack: npt.NDArray[np.generic], needles: npt.NDArray[np.generic], *, step: int = STEP
) -> npt.NDArray[np.intp]:
    """``np.searchsorted(haystack, needles)`` (the leftmost position where each needle
    would go in the sorted ``haystack``) for ``needles`` in ascending order, ``step``
    needles at a time within a narrowed range.

    Examples
    --------
    >>> sorted_search(np.array([1, 3, 5, 7]), np.array([0, 3, 4, 9])).tolist()
    [0, 1, 2, 4]
    """
    n = needles.shape[0]
    if n <= step:
        return np.searchsorted(haystack, needles)
    # the position of every step-th needle bounds those of the needles after it
    bounds = np.searchsorted(haystack, needles[::step]).tolist()
    bounds.append(haystack.shape[0])
    out = np.empty(n, dtype=np.intp)
    for k, (lo, hi) in enumerate(pairwise(bounds)):
        part = slice(k * step, (k + 1) * step)
        at = out[part]
        at[:] = np.searchsorted(haystack[lo:hi], needles[part])
        at += lo
    return out
