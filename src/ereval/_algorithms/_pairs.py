"""The best alignment of components with exactly two clusters on one side, all at once.

A component of a table's non-zero cells with two true clusters ``A`` and ``B`` (and
two or more predicted ones) aligns ``A`` to some column ``j`` and ``B`` to another,
or leaves one of them free. With every weight non-negative, the best total is the
largest of

* ``w(A, j) + best of B outside column j``, over the cells ``(A, j)``,
* the best cell of ``A`` alone, or of ``B`` alone,

and the best of ``B`` outside ``j`` is ``B``'s best weight, unless the one cell
``B``'s best was taken from lies in column ``j``: then it is the best of ``B``'s
other cells (``B`` holds one cell a column). The same holds with the sides
swapped. Tangled clusters leave mostly such components to the exact alignment: a
few thousand, each a handful of cells, which one at a time would cost a call of
the Hungarian method apiece.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["pair_total"]

IntLike = npt.NDArray[np.signedinteger[Any]]
Floats = npt.NDArray[np.float64]


def pair_total(node: IntLike, other: IntLike, w: Floats, comp: IntLike) -> float:
    """The best total of the components ``comp`` whose cells lie in exactly two ``node``
    values each (rows, say; ``other`` the columns, one cell per ``(node, other)``,
    weights ``w >= 0``), summed.

    Examples
    --------
    Rows 0 and 1 both prefer column 0: one of them takes it, the other column 1.

    >>> node, other = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])
    >>> pair_total(node, other, np.array([5.0, 1.0, 4.0, 3.0]), np.zeros(4, dtype=np.int64))
    8.0
    """
    # numbered afresh: the arrays below are as long as the cells, not the table
    n_comp, comp = _numbered(comp)
    size, node = _numbered(node)
    top = np.zeros(size)
    np.maximum.at(top, node, w)
    at_top = w == top[node]
    # the column of one cell at each node's best: the smallest
    top_col = np.full(size, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(top_col, node[at_top], other[at_top])
    # the best of a node's cells but that one (its best again where it is tied)
    taken = at_top & (other == top_col[node])
    second = np.zeros(size)
    np.maximum.at(second, node[~taken], w[~taken])
    # each cell's partner: the component's other node
    low = np.full(n_comp, size, dtype=np.int64)
    high = np.full(n_comp, -1, dtype=np.int64)
    np.minimum.at(low, comp, node)
    np.maximum.at(high, comp, node)
    partner = np.where(node == low[comp], high[comp], low[comp])
    outside = np.where(top_col[partner] == other, second[partner], top[partner])
    best = np.zeros(n_comp)
    np.maximum.at(best, comp, w + outside)  # w + outside >= w: a node alone is covered
    return float(best.sum())


def _numbered(codes: IntLike) -> tuple[int, npt.NDArray[np.intp]]:
    """The distinct ``codes`` numbered ``0..``: their number and each code's number."""
    distinct, number = np.unique(codes, return_inverse=True)
    return int(distinct.size), number
