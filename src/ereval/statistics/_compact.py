"""Per-cluster arrays narrow enough to hold every cluster of 10^9 records.

The sweeps of :mod:`ereval.statistics._swept` keep, for every cluster of both
sides, its size and a sum of CEAFe's weights. At 10^9 records there are some
2.5 * 10^8 clusters a side: as 32-bit sizes and 64-bit sums their arrays take
4.5 GB. Most clusters are small, so a size is held in one byte, the few of
:data:`WIDE` records or more in a side table (:class:`ByteCounts`), and a sum,
which the sweeps only compare, as the least float32 at or above it
(:func:`rounded_up`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["BLOCK", "WIDE", "ByteCounts", "rounded_up"]

#: Codes per block of :class:`ByteCounts`: the byte of a wide count is its rank
#: among the wide counts of its block.
BLOCK = 64
#: Counts of this many or more are held in the side table.
WIDE = 256 - BLOCK
#: Codes narrowed (sums rounded) at a time: the temporaries stay small.
STEP = 1 << 20


class ByteCounts:
    """Non-negative counts per code, one byte each. A count below :data:`WIDE` is its
    byte. A larger one is held in a side table, in the order of the codes; its
    byte is ``WIDE`` plus its rank among those of its block of :data:`BLOCK` codes,
    and a number a block (the wide counts before it) finds its place: a lookup
    is two gathers, whichever the code.

    Examples
    --------
    >>> counts = ByteCounts(np.array([3, 0, 300, 255, 7]), np.int32)
    >>> counts[np.array([2, 0, 3, 2])].tolist(), counts.top, counts.small.dtype.name
    ([300, 3, 255, 300], 300, 'uint8')
    """

    __slots__ = ("before", "block", "dtype", "small", "top", "wide")

    def __init__(self, counts: npt.NDArray[Any], dtype: Any) -> None:
        self.dtype = np.dtype(dtype)
        self.block = block = BLOCK  # kept: the bytes' meaning depends on it
        wide_from = 256 - block
        size = counts.shape[0]
        self.small = np.empty(size, dtype=np.uint8)
        blocks = -(-size // block)
        self.before = np.zeros(blocks + 1, dtype=np.int64)
        wide = []
        step = max(block, STEP // block * block)
        for lo in range(0, size, step):  # no temporary of the counts' size
            part = counts[lo : lo + step]
            flag = part >= wide_from
            padded = np.zeros(-(-flag.shape[0] // block) * block, dtype=np.uint8)
            padded[: flag.shape[0]] = flag
            # the wide counts up to each code of a block, and in the whole block
            ranks = padded.reshape(-1, block).cumsum(axis=1, dtype=np.uint8)
            first = lo // block + 1
            self.before[first : first + ranks.shape[0]] = ranks[:, -1]
            rank = ranks.ravel()[: flag.shape[0]] - flag
            self.small[lo : lo + step] = np.where(flag, wide_from + rank, part)
            wide.append(part[flag].astype(self.dtype))
        np.cumsum(self.before, out=self.before)
        self.wide = np.concatenate(wide) if wide else np.zeros(0, dtype=self.dtype)
        self.top = int(counts.max(initial=0))

    @staticmethod
    def most_bytes(span: int, total: int, item: int) -> int:
        """The most bytes the counts of ``span`` codes summing to at most ``total``
        take, ``item`` bytes a wide count: a byte a code, eight a block, and the
        side table of at most ``total // WIDE`` counts."""
        return span + (span // BLOCK + 2) * 8 + min(span, total // WIDE) * item

    def __getitem__(self, at: npt.NDArray[Any]) -> npt.NDArray[Any]:
        small = self.small[at]
        out: npt.NDArray[Any] = small.astype(self.dtype)
        if self.wide.size:
            wide_from = 256 - self.block
            wide = small >= wide_from
            if wide.any():
                rank = small[wide] - wide_from
                out[wide] = self.wide[self.before[at[wide] // self.block] + rank]
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
