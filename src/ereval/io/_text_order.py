"""Short ASCII text ids put in the order of their bytes, eight bytes at a time.

Arrow sorts a column of strings by comparing them, some 6-8 CPU s for 10^7 ids.
Laid out as rows of 64-bit words (:func:`~._words.word_rows`: each id padded with
NUL bytes, which no id holds, so that a shorter id comes before the longer ones
it begins), the ids are in the order of their rows read as big-endian words. They
are sorted by their first word; the ids that tie are then sorted again, within
their run of ties, by the next bits, until none ties: a radix sort from the most
significant end whose digits are 64-bit words.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from ._words import word_rows, word_width

__all__ = ["text_order", "text_sort"]

IntArray = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]


def text_order(ids: pa.Array) -> IntArray | None:
    """The positions of ``ids`` (distinct ids of a column of strings) in increasing
    order of their bytes, as ``pyarrow.compute.array_sort_indices`` gives them; ``None``
    where the ids cannot be laid out in words (not text, not ASCII, a NUL byte,
    longer than :data:`~._words.MAX_BYTES`, or of lengths too uneven): then sort
    them by Arrow (:func:`text_sort`).

    Examples
    --------
    >>> text_order(pa.array(["rec-10", "rec-9", "rec-1", "a"])).tolist()
    [3, 2, 0, 1]
    """
    if not (pa.types.is_string(ids.type) or pa.types.is_large_string(ids.type)):
        return None
    width = word_width([ids])
    rows = None if width is None else word_rows(ids, width)
    if rows is None:
        return None
    n_words = rows.shape[1]
    first = 0  # words every id shares (a common prefix) tell none apart
    while first < n_words - 1 and bool((rows[:, first] == rows[0, first]).all()):
        first += 1
    key = rows[:, first].byteswap()  # every id in one run: its word read in place
    order: IntArray = np.argsort(key)
    tied, runs = _ties(key[order])
    del key
    bit, end = (first + 1) * 64, n_words * 64
    while tied.shape[0] and bit < end:
        # the tied ids, sorted by their run (the major key) and the next bits
        at = order[tied]
        run_bits = int(runs[-1]).bit_length()
        step = min(64 - run_bits, end - bit)
        key = _bits(rows, at, bit, step)
        if run_bits:
            key |= runs.astype(np.uint64) << np.uint64(step)
        by = np.argsort(key)
        order[tied] = at[by]
        bit += step
        still, runs = _ties(key[by])
        tied = tied[still]
    return order


def text_sort(ids: pa.Array) -> IntArray:
    """The positions of ``ids`` (distinct values of an Arrow array) in increasing
    order (text by its bytes): :func:`text_order`, else Arrow's sort."""
    order = text_order(ids)
    if order is None:
        order = np.asarray(pc.array_sort_indices(ids), dtype=np.int64)
    return order


def _ties(ordered: U64) -> tuple[IntArray, IntArray]:
    """The positions of the sorted keys ``ordered`` equal to a neighbour, and the number
    of each one's run of equal keys (``0, 1, ...``)."""
    tie = ordered[1:] == ordered[:-1]
    in_run = np.zeros(ordered.shape[0], dtype=bool)
    in_run[1:] = tie
    in_run[:-1] |= tie
    at = np.flatnonzero(in_run)
    if not at.shape[0]:
        return at, at
    # a position starts a new run unless it ties with the one before it
    runs = np.cumsum(np.r_[True, ~tie[at[1:] - 1]]) - 1
    return at, runs


def _bits(rows: U64, at: IntArray, bit: int, count: int) -> U64:
    """The ``count`` bits (at most 64) from bit ``bit`` of the rows ``at``, the rows read
    as big-endian words, as numbers."""
    word, shift = divmod(bit, 64)
    out: U64 = rows[at, word].byteswap()
    if shift:
        out <<= np.uint64(shift)
        if word + 1 < rows.shape[1]:
            out |= rows[at, word + 1].byteswap() >> np.uint64(64 - shift)
    if count < 64:
        out >>= np.uint64(64 - count)
    return out
