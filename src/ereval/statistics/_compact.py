"""Per-cluster arrays narrow enough to hold every cluster of 10^9 records.

The sweeps of :mod:`ereval.statistics._swept` keep, for every cluster of both
sides, its size and a sum of CEAFe's weights. At 10^9 records there are some
2.5 * 10^8 clusters a side: as 32-bit sizes and 64-bit sums their arrays take
4.5 GB. Most clusters are small, so a size is held in one byte, the few of
:data:`WIDE` records or more in a sorted side table (:class:`ByteCounts`), and a
sum, which the sweeps only compare, as the least float32 at or above it
(:func:`rounded_up`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["WIDE", "ByteCounts", "rounded_up"]

#: Counts of this many or more are held in the side table.
WIDE = 255
#: Codes narrowed (sums rounded) at a time: the temporaries stay small.
STEP = 1 << 20


class ByteCounts:
    """Non-negative counts per code, one byte each; those of :data:`WIDE` or more
    looked up in a sorted table of their codes and counts.

    Examples
    --------
    >>> counts = ByteCounts(np.array([3, 0, 300, 255, 7]), np.int32)
    >>> counts[np.array([2, 0, 3, 2])].tolist(), counts.top, counts.small.dtype.name
    ([300, 3, 255, 300], 300, 'uint8')
    """

    __slots__ = ("dtype", "small", "top", "wide", "wide_at")

    def __init__(self, counts: npt.NDArray[Any], dtype: Any) -> None:
        self.dtype = np.dtype(dtype)
        self.small = np.empty(counts.shape[0], dtype=np.uint8)
        wide_at = []
        for lo in range(0, counts.shape[0], STEP):  # no temporary of the counts' size
            part = counts[lo : lo + STEP]
            wide_at.append(np.flatnonzero(part >= WIDE) + lo)
            self.small[lo : lo + STEP] = np.minimum(part, WIDE)
        self.wide_at = np.concatenate(wide_at) if wide_at else np.zeros(0, dtype=np.intp)
        self.wide = counts[self.wide_at].astype(self.dtype)
        self.top = int(counts.max(initial=0))

    @staticmethod
    def most_bytes(span: int, total: int, item: int) -> int:
        """The most bytes the counts of ``span`` codes summing to at most ``total``
        take, ``item`` bytes a wide count: a byte a code, and the side table of at
        most ``total // WIDE`` codes."""
        return span + min(span, total // WIDE) * (8 + item)

    def __getitem__(self, at: npt.NDArray[Any]) -> npt.NDArray[Any]:
        out: npt.NDArray[Any] = self.small[at].astype(self.dtype)
        if self.wide.size:
            wide = out == WIDE
            if wide.any():
                out[wide] = self.wide[np.searchsorted(self.wide_at, at[wide])]
        return out


def rounded_up(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    """Each of ``x`` as the least float32 at or above it (finite ``x`` within the
    range of float32), in steps of :data:`STEP`.

    Examples
    --------
    >>> x = np.array([0.1, 0.5, 2.0 / 3.0])
    >>> bool((rounded_up(x).astype(np.float64) >= x).all()), rounded_up(x)[1] == 0.5
    (True, np.True_)
    """
    out = np.empty(x.shape[0], dtype=np.float32)
    for lo in range(0, x.shape[0], STEP):
        part = x[lo : lo + STEP].astype(np.float32)
        low = part.astype(np.float64) < x[lo : lo + STEP]
        part[low] = np.nextafter(part[low], np.float32(np.inf))
        out[lo : lo + STEP] = part
    return out
