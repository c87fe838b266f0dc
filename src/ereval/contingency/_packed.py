"""Contingency cells of two clusterings keyed by integer record ids, found by sorting.

Each side's records are packed with their cluster codes into one 64-bit key per
record, ``(record - min) << shift | code``, and the keys are sorted: sorting
64-bit integers is several times cheaper than scattering them through a position
table indexed by record id, or hashing them, and touches no memory beyond the
keys. Once sorted, two sides holding the same distinct records line up record by
record; each record's two codes then give its cell key ``row * width + col``
(written over the truth's keys), and sorting those gives the cells in
``(row, col)`` order, counted by their runs.

The passes over the keys go a block at a time (:data:`BLOCK` records, which stay
in the CPU cache), so no array as long as the input is allocated besides the
two key arrays.

When the sides hold different records and the policy scores them anyway
(``twinless``, ``intersection``, ``singletons``), each block of the truth's
records is looked up in the prediction's sorted keys (through a table of their
positions, written and read in order, when the ids are dense; else by a binary
search); the records found line up as above, the others count as the policy
says. The two halves of the truth's records are looked up at once, in two
threads, unless the policy numbers records left alone in their order. When a side
holds a record twice, or the policy refuses the records, the caller takes the
general path (which names the problem).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._threads import both
from ..io import sorted_search

__all__ = [
    "BLOCK",
    "PackedCells",
    "PackedSide",
    "cells_of_sorted",
    "matched_cells",
    "pack_side",
    "packed_cells",
    "paired_cells",
]

IntArray = npt.NDArray[np.int64]

#: Records handled at a time by the passes over the keys.
BLOCK = 1 << 16


@dataclass(frozen=True, eq=False)
class PackedSide:
    """One clustering as sorted keys ``(record - lo) << shift | code``.

    ``lo`` and ``hi`` are the smallest and largest record ids, ``n_codes`` the
    number of cluster codes (every code is below it).
    """

    keys: IntArray
    shift: int
    lo: int
    hi: int
    n_codes: int

    def __len__(self) -> int:
        return int(self.keys.shape[0])


def pack_side(records: Any, codes: IntArray, n_codes: int) -> PackedSide | None:
    """Pack integer ``records`` with their cluster ``codes`` (``0 <= code < n_codes``)
    into sorted keys, written over ``codes`` (which the caller gives up); ``None`` when
    the records are not integers or their range and the codes do not fit 63 bits
    (``codes`` is then left as it is).

    Examples
    --------
    >>> side = pack_side(np.array([12, 10, 11]), np.array([1, 0, 1]), 2)
    >>> side.keys.tolist(), side.shift, side.lo
    ([0, 3, 5], 1, 10)
    """
    if not isinstance(records, np.ndarray) or records.dtype.kind not in "iu" or records.size == 0:
        return None
    if codes.dtype != np.int64 or codes.shape != records.shape or not codes.flags.writeable:
        return None
    lo, hi = int(records.min()), int(records.max())
    shift = max(int(n_codes - 1).bit_length(), 1)
    if hi >= 2**63 or (hi - lo) >> (63 - shift):
        return None
    for start in range(0, records.shape[0], BLOCK):
        part = slice(start, start + BLOCK)
        rel = records[part].astype(np.int64)
        rel -= lo
        rel <<= shift
        codes[part] |= rel
    codes.sort()
    return PackedSide(codes, shift, lo, hi, int(n_codes))


def paired_cells(truth: PackedSide, pred: PackedSide) -> tuple[IntArray, IntArray, IntArray] | None:
    """The cells ``(rows, cols, counts)`` of the codes of the two sides record by record,
    sorted by ``(row, col)``; ``None`` unless both hold the same records, each once.

    The records are first seen to line up, block by block, and only then are the
    truth's keys overwritten (by the cell keys): after ``None`` both sides' keys are
    as they were, for :func:`matched_cells`.

    Examples
    --------
    >>> t = pack_side(np.array([1, 2, 3]), np.array([0, 0, 1]), 2)
    >>> p = pack_side(np.array([3, 1, 2]), np.array([0, 0, 1]), 2)
    >>> [x.tolist() for x in paired_cells(t, p)]
    [[0, 0, 1], [0, 1, 0], [1, 1, 1]]
    """
    n = len(truth)
    width = max(pred.n_codes, 1)
    if (
        n != len(pred)
        or (truth.lo, truth.hi) != (pred.lo, pred.hi)
        or truth.n_codes * width >= 2**63
    ):
        return None
    kt, kp = truth.keys, pred.keys
    last = -1
    for start in range(0, n, BLOCK):
        part = slice(start, start + BLOCK)
        rec = kt[part] >> truth.shift
        # sorted keys: the same records on both sides, each once, iff the record parts
        # are equal and strictly increasing
        if not _rising(rec, last):
            return None
        if not np.array_equal(rec, kp[part] >> pred.shift):
            return None
        last = int(rec[-1])
    mask_t = np.int64((1 << truth.shift) - 1)
    mask_p = np.int64((1 << pred.shift) - 1)
    for start in range(0, n, BLOCK):
        part = slice(start, start + BLOCK)
        cell = kt[part] & mask_t
        cell *= width
        cell += kp[part] & mask_p
        kt[part] = cell
    kt.sort()
    return cells_of_sorted(kt, width)


@dataclass(frozen=True, eq=False)
class PackedCells:
    """The cells ``(rows, cols, counts)`` of two packed sides, sorted by ``(row, col)``,
    and the sizes of the clusters by code (``None``: the sums of the cells)."""

    rows: IntArray
    cols: IntArray
    counts: IntArray
    true_sizes: IntArray | None = None
    pred_sizes: IntArray | None = None


#: The policies under which records of one side only are still scored here.
MATCHED_POLICIES = ("twinless", "intersection", "singletons")


def packed_cells(truth: PackedSide, pred: PackedSide, policy: str) -> PackedCells | None:
    """The cells of two packed sides under ``policy`` (see :func:`paired_cells` and
    :func:`matched_cells`); ``None`` sends the caller to the general path. Sides of
    one length and one range of ids are first taken to hold the same records; if
    they do not (two files of as many rows, say), they are matched as any two
    sides are."""
    if len(truth) == len(pred) and (truth.lo, truth.hi) == (pred.lo, pred.hi):
        cells = paired_cells(truth, pred)
        if cells is not None:
            return PackedCells(*cells)
    return matched_cells(truth, pred, policy)


def matched_cells(truth: PackedSide, pred: PackedSide, policy: str) -> PackedCells | None:
    """The cells of the records both sides hold, and the sizes ``policy`` gives the
    clusters; ``None`` when a side holds a record twice, when the policy refuses the
    records of one side only (``error``; ``singletons`` with records only in the
    prediction), when no record is common, or when the keys cannot be compared in 63
    bits.

    * ``twinless``: the cells of the common records; the sizes count every record
      of each side.
    * ``intersection``: the common records alone (sizes are the sums of the cells).
    * ``singletons``: each record only in the truth is alone in a predicted cluster
      of its own, numbered after the prediction's codes in the truth's record order.

    Both sides' keys are overwritten.

    Examples
    --------
    >>> t = pack_side(np.array([1, 2, 3]), np.array([0, 0, 1]), 2)
    >>> p = pack_side(np.array([2, 3, 4]), np.array([0, 1, 1]), 2)
    >>> c = matched_cells(t, p, "twinless")
    >>> [x.tolist() for x in (c.rows, c.cols, c.counts, c.true_sizes, c.pred_sizes)]
    [[0, 1], [0, 1], [1, 1], [2, 1], [1, 2]]
    """
    if policy not in MATCHED_POLICIES or not len(truth) or not len(pred):
        return None
    n_t, n_p = len(truth), len(pred)
    start = min(truth.lo, pred.lo)
    # a truth record's offset from the prediction's lowest id, shifted as the
    # prediction's keys are, must fit 63 bits either way
    if (truth.hi - pred.lo) >> (63 - pred.shift) or (pred.lo - start) >> (63 - pred.shift):
        return None
    alone = n_t if policy == "singletons" else 0
    width = max(pred.n_codes + alone, 1)
    if truth.n_codes * width >= 2**63 or not _increasing(pred):
        return None
    kt, kp = truth.keys, pred.keys
    true_sizes = pred_sizes = None
    if policy == "twinless":  # both sides' sizes, one in each thread
        true_sizes, pred_sizes = both(
            lambda side: _code_counts(side.keys, side.shift, side.n_codes),
            truth,
            pred,
            size=max(n_t, n_p),
        )
    elif policy == "singletons":
        pred_sizes = _code_counts(kp, pred.shift, pred.n_codes)
    lookup = _Lookup(truth, pred, _positions(pred, truth), width, bool(alone))
    # without records left alone (numbered in the truth's order), each half of the
    # truth's records in its own thread, the second half's cell keys then moved to
    # follow the first's
    half = 0 if alone else n_t // 2 // BLOCK * BLOCK
    if half:
        first, second = both(
            lookup.scan, (0, half, -1), (half, n_t, int(kt[half - 1] >> truth.shift)), size=half
        )
        if first is None or second is None:
            return None
        kt[first[0] : first[0] + second[0]] = kt[half : half + second[0]]
        written, n_found, n_alone = (a + b for a, b in zip(first, second, strict=True))
    else:
        got = lookup.scan((0, n_t, -1))
        if got is None:
            return None
        written, n_found, n_alone = got
    if not n_found or (alone and n_found < n_p):
        return None
    keys = kt[:written]
    keys.sort()
    rows, cols, counts = cells_of_sorted(keys, width)
    if pred_sizes is not None and alone:
        pred_sizes = np.concatenate([pred_sizes, np.ones(n_alone, dtype=np.int64)])
    return PackedCells(rows, cols, counts, true_sizes, pred_sizes)


@dataclass(frozen=True, eq=False)
class _Lookup:
    """The truth's records looked up in the prediction's sorted keys, a block at a
    time: through ``position`` (:func:`_positions`) when given, else by a search;
    each record's cell key ``row * width + col`` written over the truth's keys."""

    truth: PackedSide
    pred: PackedSide
    position: tuple[npt.NDArray[np.signedinteger[Any]], int] | None
    width: int
    alone: bool

    def scan(self, span: tuple[int, int, int]) -> tuple[int, int, int] | None:
        """The truth's records ``lo:hi`` (``lo`` a multiple of :data:`BLOCK`), after the
        record ``last``, looked up, and their cell keys written from ``kt[lo]`` on:
        those of the records found (``alone`` false), or of every record, one not
        found alone in a predicted cluster of its own (numbered from the
        prediction's codes on, in order). Returns how many keys were written, how
        many records found and how many left alone; ``None`` for a record held
        twice."""
        lo, hi, last = span
        truth, pred = self.truth, self.pred
        kt, kp, n_p = truth.keys, pred.keys, len(pred)
        mask_t = np.int64((1 << truth.shift) - 1)
        mask_p = np.int64((1 << pred.shift) - 1)
        offset = np.int64(truth.lo - pred.lo)
        previous: Any = np.int64(last)
        written, n_found, n_alone = lo, 0, 0
        for at in range(lo, hi, BLOCK):
            stop = min(at + BLOCK, hi)
            rec = kt[at:stop] >> truth.shift
            if not _rising(rec, previous):
                return None  # a truth record twice
            previous = rec[-1]
            rec += offset  # the record less the prediction's lowest id
            if self.position is not None:  # each id's slot: its position, or -1
                table, start = self.position
                if start:
                    rec -= start
                where = table[rec]
                found = where >= 0
            else:
                rec <<= pred.shift  # the smallest key the record can have in the prediction
                where = sorted_search(kp, rec)
                found = where < n_p
                found[found] = (kp[where[found]] >> pred.shift) == (rec[found] >> pred.shift)
            codes = kt[at:stop] & mask_t
            codes *= self.width
            if self.alone:  # every record keeps its place: a cell key of its own if not found
                lone = ~found
                k = int(np.count_nonzero(lone))
                codes[lone] += pred.n_codes + n_alone + np.arange(k, dtype=np.int64)
                n_alone += k
                codes[found] += kp[where[found]] & mask_p
                kt[at:stop] = codes
                written += codes.shape[0]
            else:  # the cell keys of the records found, gathered at the front
                cells = codes[found]
                cells += kp[where[found]] & mask_p
                kt[written : written + cells.shape[0]] = cells
                written += cells.shape[0]
            n_found += int(np.count_nonzero(found))
        return written - lo, n_found, n_alone


def _positions(
    pred: PackedSide, truth: PackedSide
) -> tuple[npt.NDArray[np.signedinteger[Any]], int] | None:
    """A table of each prediction record's position in its keys, and ``start``: the
    table is indexed by the record less ``start`` (``-1`` where no record), records
    counted from the prediction's lowest id; ``None`` when the two sides' ids span
    more slots than they have records (a binary search is then cheaper in memory).
    Both sides' records are sorted, so the table is written and read in order."""
    start = min(truth.lo, pred.lo) - pred.lo
    span = max(truth.hi, pred.hi) - pred.lo - start + 1
    n_p = len(pred)
    if span > len(truth) + n_p:
        return None
    kind: type[np.signedinteger[Any]] = np.int32 if n_p < 2**31 else np.int64
    table: npt.NDArray[np.signedinteger[Any]] = np.full(span, -1, dtype=kind)
    for at in range(0, n_p, BLOCK):
        rec = pred.keys[at : at + BLOCK] >> pred.shift
        if start:
            rec -= start
        table[rec] = np.arange(at, at + rec.shape[0], dtype=kind)
    return table, start


def _code_counts(keys: IntArray, shift: int, n_codes: int) -> IntArray:
    """The records of each code (the low ``shift`` bits of ``keys``), counted in chunks as long as the
    counts at least (no temporary as long as the keys: fresh memory costs more to
    map than to count)."""
    mask = np.int64((1 << shift) - 1)
    counts = np.zeros(n_codes, dtype=np.int64)
    step = max(1 << 20, n_codes)
    for at in range(0, keys.shape[0], step):
        counts += np.bincount(keys[at : at + step] & mask, minlength=n_codes)
    return counts


def _rising(rec: IntArray, last: Any) -> bool:
    """Whether a block of sorted records is strictly increasing and above ``last``,
    the previous block's last record (each record held once)."""
    return bool(rec[0] > last and (rec[1:] > rec[:-1]).all())


def _increasing(side: PackedSide) -> bool:
    """Whether the side's records are strictly increasing (each held once)."""
    last = np.int64(-1)
    for at in range(0, len(side), BLOCK):
        rec = side.keys[at : at + BLOCK] >> side.shift
        if not _rising(rec, last):
            return False
        last = rec[-1]
    return True


def cells_of_sorted(keys: IntArray, width: int) -> tuple[IntArray, IntArray, IntArray]:
    """The cells ``(rows, cols, counts)`` of sorted cell keys ``row * width + col``
    (one key per record), sorted by ``(row, col)``.

    Examples
    --------
    >>> [x.tolist() for x in cells_of_sorted(np.array([0, 0, 4, 5, 5, 5]), 3)]
    [[0, 1, 1], [0, 1, 2], [2, 1, 3]]
    """
    if keys.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), empty.copy()
    starts = np.flatnonzero(keys[1:] != keys[:-1])
    starts += 1
    counts = np.diff(starts, prepend=0, append=keys.shape[0])
    first = np.empty(starts.shape[0] + 1, dtype=np.int64)
    first[0] = keys[0]
    np.take(keys, starts, out=first[1:])
    rows, cols = np.divmod(first, np.int64(width))
    return rows, cols, counts.astype(np.int64, copy=False)
