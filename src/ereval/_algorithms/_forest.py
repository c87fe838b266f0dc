"""The spanning forest of pairs that arrive in batches, in the order of acceptance.

The components of accepted pairs only change when a pair joins two different
components (:mod:`ereval._algorithms._components`); those pairs are the maximum
spanning forest in the order of acceptance (Kruskal's algorithm). When the pairs
are too many to hold at once, :class:`StreamedForest` takes them batch by batch,
in order, and keeps only a union-find over the records (a parent and a size per
record, ``int32`` below ``2**31`` records: O(N) memory, whatever the number of
pairs) and the forest's edges (at most ``N - 1``, written into arrays of that
length as they are found: no copy at the end).

Each batch is processed with array operations: every endpoint is mapped to the
root of its component (pointer jumping, then the endpoints point at their roots);
the pairs within one component are dropped; among the rest, the pairs that merge
are the minimum spanning forest of the graph of the roots weighted by rank in the
batch (Kruskal's choice, as :func:`forest_edges` makes it), found by
:func:`scipy.sparse.csgraph.minimum_spanning_tree`; the roots each merge joins are
then hung under the largest of them (union by size, so that paths stay
``O(log N)`` long).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._components import IndexArray, index_dtype

__all__ = ["StreamedForest"]

IntArray = npt.NDArray[np.int64]


class StreamedForest:
    """The merging pairs of pairs given batch by batch in the order of acceptance.

    Parameters
    ----------
    n_records : int
        The records are ``0..n_records-1``.

    Examples
    --------
    >>> forest = StreamedForest(4)
    >>> forest.add(np.array([0, 1]), np.array([1, 0]))  # the second pair adds nothing
    >>> forest.add(np.array([2, 0]), np.array([3, 2]))
    >>> [a.tolist() for a in forest.merges()]
    [[0, 2, 0], [1, 3, 2], [1, 3, 4]]
    """

    def __init__(self, n_records: int) -> None:
        dt = index_dtype(n_records)
        self._parent = np.arange(n_records, dtype=dt)
        self._size = np.ones(n_records, dtype=dt)
        # the merges, at most n_records - 1: pages are touched only as they fill
        most = max(n_records - 1, 0)
        self._left = np.empty(most, dtype=dt)
        self._right = np.empty(most, dtype=dt)
        self._position = np.empty(most, dtype=np.int64)
        self._found = 0
        self._seen = 0

    def _roots(self, x: IntArray) -> IndexArray:
        """The root of the component of each record of ``x``; ``x`` then points at it."""
        parent = self._parent
        r = parent[x]
        while True:
            up = parent[r]
            if np.array_equal(up, r):
                break
            r = up
        parent[x] = r
        return r

    def add(self, left: IntArray, right: IntArray) -> None:
        """Accept the pairs ``(left[k], right[k])``, in that order, after those before."""
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

        left = np.asarray(left, dtype=np.int64)
        right = np.asarray(right, dtype=np.int64)
        start, self._seen = self._seen, self._seen + int(left.shape[0])
        if left.shape[0] == 0:
            return
        ru, rv = self._roots(left), self._roots(right)
        across = np.flatnonzero(ru != rv)
        if across.shape[0] == 0:
            return
        a, b = ru[across], rv[across]
        nodes, code = np.unique(np.concatenate((a, b)), return_inverse=True)
        code = code.reshape(-1)
        k = across.shape[0]
        lo = np.minimum(code[:k], code[k:])
        hi = np.maximum(code[:k], code[k:])
        # the first pair between two roots is the one that may merge them
        width = np.int64(nodes.shape[0])
        _, first = np.unique(lo * width + hi, return_index=True)
        size = int(width)
        # weights 1..k, by rank: scipy reads a zero weight as no edge
        graph = csr_matrix(
            (first.astype(np.float64) + 1.0, (lo[first], hi[first])), shape=(size, size)
        )
        tree = minimum_spanning_tree(graph)
        picked = np.sort(np.asarray(tree.tocoo().data, dtype=np.int64) - 1)
        chosen = across[picked]
        done, self._found = self._found, self._found + int(chosen.shape[0])
        self._left[done : self._found] = left[chosen]
        self._right[done : self._found] = right[chosen]
        self._position[done : self._found] = start + chosen + 1
        # union by size: each merged component hangs under its largest root
        _, label = connected_components(tree, directed=False)
        sizes = self._size[nodes]
        order = np.lexsort((-sizes, label))
        heads = order[np.r_[True, label[order][1:] != label[order][:-1]]]
        head_of = nodes[heads]  # by label: labels are 0.. in the order of their smallest node
        totals = np.zeros(head_of.shape[0], dtype=np.int64)
        np.add.at(totals, label, sizes)
        self._parent[nodes] = head_of[label]
        self._size[head_of] = totals

    def merges(self) -> tuple[IndexArray, IndexArray, IntArray]:
        """The merging pairs so far, in order: their two records and their positions
        (the number of pairs accepted when each merges, its rank plus one); views of
        the forest's arrays."""
        k = self._found
        return self._left[:k], self._right[:k], self._position[:k]
