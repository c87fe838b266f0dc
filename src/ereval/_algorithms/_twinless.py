"""The alignments of Cai & Strube's ``CEAF_sys``, on the cells of the table itself.

``CEAF_sys`` (Cai & Strube 2010) scores CEAFm on rewritten tables: every record of
the truth's side only joins the prediction as a singleton cluster; for precision
every record of the prediction's side only, not alone in its cluster, joins the
truth as a singleton cluster. A singleton added to row ``i`` has the weight 1
with ``i`` and nothing else, so that the best alignment of a rewritten table is

    |T+| (+ |U+|) + max over alignments M of the table of
                    sum over (i, j) in M of (n_ij - d_i - e_j)

with ``d_i`` 1 when row ``i`` holds a record of one side only (``T+`` those rows),
``e_j`` 1 when column ``j`` does and the column is kept (``U+``; for recall
``e = 0``): a row or column the alignment leaves free takes one of its own
singletons instead. Only cells of a positive weight ``n - d - e`` are ever worth
aligning.

The cells are aligned as CEAFm's are (:func:`~ereval._algorithms.aligned_totals`):
a cell whose weight beats all the other cells of its row and its column together
is fixed, in exact integers. The other cells' weights are at most their counts,
so the test ``w > (r_i - n) + (c_j - n)`` on the counts ``r_i``, ``c_j`` of the row
and the column is sound: ``3 n - d - e > r_i + c_j``. The rest is solved exactly
(:func:`~ereval._algorithms.align_cells`).

References
----------
Cai, J., & Strube, M. (2010). Evaluation metrics for end-to-end coreference
resolution systems. SIGDIAL, 28-36.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ._assignment import align_cells

__all__ = [
    "PRECISION_BIT",
    "RECALL_BIT",
    "fix_twinless",
    "twinless_totals",
    "undecided_weights",
]

IntLike = npt.NDArray[np.signedinteger[Any]]
Flags = npt.NDArray[np.bool_]

#: The bit of a row's (column's) flags once it holds a fixed cell for precision's weight.
PRECISION_BIT = 4
#: The same for recall's weight.
RECALL_BIT = 8


def fix_twinless(
    counts: IntLike,
    sums: IntLike,
    extra: tuple[Flags, Flags],
    at: tuple[IntLike, IntLike],
    done: list[npt.NDArray[np.uint8]],
) -> tuple[int, int]:
    """The test of the module on some cells (``counts`` records, ``sums`` the records
    of their row plus those of their column, ``extra`` whether their row and their
    column hold a record of one side only, rows and columns ``at``): each cell
    that beats the rest of its row and column for precision's weight ``n - d - e``
    (recall's ``n - d``) is fixed, its row and column marked in ``done`` with
    :data:`PRECISION_BIT` (:data:`RECALL_BIT`). Returns the fixed cells' totals
    of each weight."""
    x = counts.astype(np.int64)
    row_extra, col_extra = (e.astype(np.int64) for e in extra)
    recall_w = x - row_extra
    precision_w = recall_w - col_extra
    fixed = (3 * x - row_extra - col_extra > sums, 3 * x - row_extra > sums)
    for side, codes in zip(done, at, strict=True):
        side[codes[fixed[0]]] |= PRECISION_BIT  # one fixed cell a row (column) at most
        side[codes[fixed[1]]] |= RECALL_BIT
    return int(precision_w[fixed[0]].sum()), int(recall_w[fixed[1]].sum())


def undecided_weights(
    counts: IntLike, extra: tuple[Flags, Flags], flags: npt.NDArray[np.uint8], bit: int
) -> tuple[Flags, npt.NDArray[np.float64]]:
    """Which cells are left to the exact alignment for the weight of ``bit`` (their
    row and column, whose ``flags`` are or-ed, hold no fixed cell, and their weight
    is positive), and the cells' weights."""
    w = counts.astype(np.int64) - extra[0]
    if bit == PRECISION_BIT:
        w = w - extra[1]
    keep = ((flags & bit) == 0) & (w > 0)
    return keep, w.astype(np.float64)


#: Cells per step (the temporary arrays stay in cache).
_STEP = 1 << 16


def twinless_totals(
    rows: IntLike,
    cols: IntLike,
    counts: IntLike,
    common: tuple[IntLike, IntLike],
    extra: tuple[Flags, Flags],
    *,
    step: int = _STEP,
) -> tuple[int, int]:
    """The best aligned totals of ``n - d - e`` (precision) and ``n - d`` (recall) over
    the cells ``(rows, cols, counts)`` (non-zero, in any order), whose rows and
    columns hold ``common`` records on both sides and, per ``extra``, some record
    of one side only (``d``, ``e``): the part of ``CEAF_sys``'s totals the
    alignment gives (the module's formula, without ``|T+|`` and ``|U+|``).

    Examples
    --------
    >>> rows, cols, counts = np.array([0, 0, 1]), np.array([0, 1, 1]), np.array([2, 1, 2])
    >>> common = (np.array([3, 2]), np.array([2, 3]))
    >>> twinless_totals(rows, cols, counts, common, (np.array([True, False]), np.array([False, False])))
    (3, 3)
    """
    k, r, m = common[0].shape[0], common[1].shape[0], counts.shape[0]
    if m == 0:
        return 0, 0
    rc, cc = common
    row_extra, col_extra = extra
    done = [np.zeros(k, dtype=np.uint8), np.zeros(r, dtype=np.uint8)]
    steps = [slice(s, min(s + step, m)) for s in range(0, m, step)]
    totals = [0, 0]
    for p in steps:
        ii, jj = rows[p], cols[p]
        sums = rc[ii].astype(np.int64) + cc[jj]
        fixed = fix_twinless(counts[p], sums, (row_extra[ii], col_extra[jj]), (ii, jj), done)
        totals = [totals[0] + fixed[0], totals[1] + fixed[1]]
    bits = (PRECISION_BIT, RECALL_BIT)
    # the cells each weight leaves undecided, both read in one pass
    at: tuple[list[IntLike], list[IntLike]] = ([], [])
    weights: tuple[list[npt.NDArray[np.float64]], list[npt.NDArray[np.float64]]] = ([], [])
    for p in steps:
        ii, jj = rows[p], cols[p]
        flags = done[0][ii] | done[1][jj]
        step_extra = (row_extra[ii], col_extra[jj])
        for t, bit in enumerate(bits):
            keep, w = undecided_weights(counts[p], step_extra, flags, bit)
            at[t].append(np.flatnonzero(keep) + p.start)
            weights[t].append(w[keep])
    for t in range(len(bits)):
        cells = np.concatenate(at[t])
        if cells.size:
            solved = align_cells(rows[cells], cols[cells], np.concatenate(weights[t]), k, r)
            totals[t] += round(solved)  # integer weights: an exact integer
    return totals[0], totals[1]
