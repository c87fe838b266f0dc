"""Connected components: of a graph at once, and as scored pairs are accepted.

:func:`component_labels` numbers the connected components of a graph given by
its edges (the CEAF solver splits the cells of a table with it).

The rest follows the components as pairs are accepted in descending order of
score (the curves of :mod:`ereval.curves`). The components only change when an
accepted pair joins two different components; those pairs are the edges of
the maximum spanning forest (Kruskal's algorithm over the pairs in
that order), found with :func:`scipy.sparse.csgraph.minimum_spanning_tree` on
the pairs' ranks. The merges are then replayed with a union-find (the smaller
component merged into the larger) that knows each component's composition over
true clusters: a component within one true cluster by its root's cluster and its
size, a mixed one by a dictionary of its open cells ``{i: n_ij}`` (those with
``n_ij < a_i``; a complete cell is never shared again). Each merge records how it
changes the sums every incremental metric is made of:

* ``sum_ij C(n_ij, 2)`` and ``sum_j C(b_j, 2)`` (pairwise, Rand; exact integers);
* the number of non-zero cells ``n_ij`` (MUC) and of predicted clusters equal
  to a true cluster (cluster precision and recall; exact integers);
* ``sum_ij n_ij^2 / a_i``, ``sum_ij n_ij^2 / b_j`` (B-cubed) and
  ``sum_ij n_ij^2 / a_i^2``, ``sum_ij n_ij^2 / (a_i b_j)`` (entity-weighted B-cubed);
* ``sum_ij n_ij log n_ij`` and ``sum_j b_j log b_j`` (entropies).

The state after the first ``k`` accepted pairs is the cumulative sum of the
changes of the merges among them. Memory is O(records): some 25 bytes a record
for the union-find and 85 bytes a merge (at most ``N - 1``) for the changes,
written into their final arrays as the merges are replayed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import numpy.typing as npt

__all__ = [
    "CHUNK",
    "CrossSteps",
    "IndexArray",
    "MergeSteps",
    "component_labels",
    "cross_steps",
    "forest_edges",
    "index_dtype",
    "merge_steps",
    "replay_merges",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
#: Record numbers (and counts up to the number of records): see :func:`index_dtype`.
IndexArray = npt.NDArray[np.signedinteger[Any]]


def _view(a: npt.NDArray[Any]) -> memoryview[Any]:
    """The values of the contiguous array ``a`` as a memoryview: Python ints and
    floats read and written one at a time without making NumPy scalars."""
    return cast("memoryview[Any]", a.data)


def component_labels(u: IntArray, v: IntArray, size: int) -> IntArray:
    """The connected components of the graph of ``size`` nodes and the edges ``(u, v)``:
    each node's component, numbered ``0..`` in the order of their smallest nodes
    (nodes without an edge are components of their own).

    Each round hooks every node onto the smallest label across its edges, then
    follows the labels to their roots (pointer jumping).

    Examples
    --------
    >>> component_labels(np.array([3, 0]), np.array([1, 4]), 5).tolist()
    [0, 1, 2, 1, 0]
    """
    label = np.arange(size, dtype=np.int64)
    while True:
        low = np.minimum(label[u], label[v])
        hooked = label.copy()
        np.minimum.at(hooked, label[u], low)
        np.minimum.at(hooked, label[v], low)
        while True:  # every node to its root
            jumped = hooked[hooked]
            if np.array_equal(jumped, hooked):
                break
            hooked = jumped
        if np.array_equal(hooked, label):
            break
        label = hooked
    # a component's root is its smallest node: number the roots in order
    number = np.cumsum(label == np.arange(size, dtype=np.int64)) - 1
    return np.asarray(number[label], dtype=np.int64)


def forest_edges(n_records: int, left: IntArray, right: IntArray, rank: IntArray) -> IntArray:
    """The ranks of the pairs that join two components when pairs are taken in rank order.

    ``rank`` holds distinct integers ``0..m-1`` (the position of each pair in the
    order of acceptance). Returns the ranks of the merging pairs, ascending.
    """
    lo = np.minimum(left, right)
    hi = np.maximum(left, right)
    # SciPy is imported here only: the CEAF solver imports this module for
    # component_labels, and a metrics command without CEAF never loads SciPy
    import scipy.sparse as sp
    from scipy.sparse.csgraph import minimum_spanning_tree

    # weights 1..m: scipy reads a zero weight as no edge
    graph = sp.csr_matrix((rank.astype(np.float64) + 1.0, (lo, hi)), shape=(n_records, n_records))
    tree = minimum_spanning_tree(graph).tocoo()
    return np.sort(np.asarray(tree.data, dtype=np.int64) - 1)


def index_dtype(n: int) -> type[np.signedinteger[Any]]:
    """The integer type of record numbers ``0..n-1`` (and of counts up to ``n``):
    ``int32`` below ``2**31``, else ``int64``."""
    return np.int32 if n < 2**31 else np.int64


@dataclass(frozen=True, eq=False)
class MergeSteps:
    """What every merge changes, in merge order (see the module docstring).

    ``position[m]`` is the number of accepted pairs after which merge ``m`` has
    happened (its pair's rank plus one). ``initial`` holds each sum for the
    all-singletons clustering. Record numbers and counts bounded by the number of
    records are ``int32`` (below ``2**31`` records), the change of the number of
    exact clusters ``int8``; pair counts ``int64``.
    """

    position: IntArray
    pairs_both: IntArray
    pairs_pred: IntArray
    cells_lost: IndexArray
    exact: npt.NDArray[np.int8]
    b3_recall: FloatArray
    b3_precision: FloatArray
    b3e_recall: FloatArray
    b3e_precision: FloatArray
    nlogn_cells: FloatArray
    nlogn_pred: FloatArray
    initial: dict[str, float]
    #: The records each merge joins (its pair's two records).
    left: IndexArray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    right: IndexArray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))


def merge_steps(true_of: IntArray, left: IntArray, right: IntArray, order: IntArray) -> MergeSteps:
    """Replay the merges of the pairs taken in ``order`` (indices into ``left``/``right``)."""
    m = int(order.shape[0])
    rank = np.empty(m, dtype=np.int64)
    rank[order] = np.arange(m, dtype=np.int64)
    ranks = forest_edges(int(true_of.shape[0]), left, right, rank)
    edges = order[ranks]
    return replay_merges(true_of, left[edges], right[edges], ranks + 1)


#: Merges derived at a time by the array operations after the replay.
CHUNK = 1 << 20


def replay_merges(
    true_of: IntArray, merge_left: IndexArray, merge_right: IndexArray, position: IntArray
) -> MergeSteps:
    """Replay the merges of the spanning forest: merge ``m`` joins the components of
    records ``merge_left[m]`` and ``merge_right[m]`` after ``position[m]`` accepted
    pairs (each joins two different components, in the order given).

    The union-find keeps, per record, a parent and a size (``int32``), ``sum_i
    n_ij^2`` (``int64``), ``sum_i n_ij^2 / a_i`` (``float64``) and whether its
    component is *pure* (within one true cluster: its composition is then its
    root's true cluster and its size). A mixed component keeps a dictionary of its
    *open* cells only, ``{i: n_ij}`` with ``n_ij < a_i``: a cell holding all of its
    true cluster can never be shared with another component. The order of every
    sum over the shared cells is that of the cells' first appearance (the larger
    component's first), whatever is left out. Every output is written into its
    final array as the merges are replayed; the pairs and ``n log n`` of the
    predicted clusters are derived afterwards from the sizes, :data:`CHUNK` merges
    at a time, the pair counts in place of the sizes.
    """
    n = int(true_of.shape[0])
    m = int(merge_left.shape[0])
    dt = index_dtype(n)
    true_of = np.ascontiguousarray(true_of, dtype=np.int64)
    a_sizes = np.bincount(true_of).astype(np.int64)
    inv_a = 1.0 / a_sizes.astype(np.float64)
    initial = {
        "pairs_both": 0.0,
        "pairs_pred": 0.0,
        "cells": float(n),
        "exact": float(int((a_sizes == 1).sum())),
        "b3_recall": float(inv_a[true_of].sum()),
        "b3_precision": float(n),
        "b3e_recall": float((inv_a * inv_a)[true_of].sum()),
        "b3e_precision": float(inv_a[true_of].sum()),
        "nlogn_cells": 0.0,
        "nlogn_pred": 0.0,
    }
    left = np.ascontiguousarray(merge_left, dtype=dt)
    right = np.ascontiguousarray(merge_right, dtype=dt)
    position = np.ascontiguousarray(position, dtype=np.int64)

    # the outputs, written merge by merge through memoryviews (8 bytes a float)
    both_out = np.empty(m, dtype=np.int64)
    lost_out = np.empty(m, dtype=dt)
    exact_out = np.empty(m, dtype=np.int8)
    floats = [np.empty(m, dtype=np.float64) for _ in range(5)]
    # the two sizes of each merge, side by side: later the pairs of each merge in place
    sizes = np.empty((m, 2), dtype=dt)
    b3_recall, b3_precision, b3e_recall, b3e_precision, nlogn_cells = floats
    _replay(true_of, a_sizes, inv_a, left, right, (both_out, lost_out, exact_out, sizes), floats)
    del floats

    nlogn_pred = np.empty(m, dtype=np.float64)
    pairs_pred = sizes.view(np.int64).reshape(m) if dt is np.int32 else np.empty(m, np.int64)
    for lo in range(0, m, CHUNK):
        hi = min(lo + CHUNK, m)
        bu = sizes[lo:hi, 0].astype(np.int64)
        bv = sizes[lo:hi, 1].astype(np.int64)
        bu_f, bv_f, bn_f = (x.astype(np.float64) for x in (bu, bv, bu + bv))
        nlogn_pred[lo:hi] = bn_f * np.log(bn_f) - bu_f * np.log(bu_f) - bv_f * np.log(bv_f)
        pairs_pred[lo:hi] = bu * bv  # over the sizes just read (the same bytes for int32)
    del sizes

    return MergeSteps(
        left=left,
        right=right,
        position=position,
        pairs_both=both_out,
        pairs_pred=pairs_pred,
        cells_lost=lost_out,
        exact=exact_out,
        b3_recall=b3_recall,
        b3_precision=b3_precision,
        b3e_recall=b3e_recall,
        b3e_precision=b3e_precision,
        nlogn_cells=nlogn_cells,
        nlogn_pred=nlogn_pred,
        initial=initial,
    )


def _replay(
    true_of: IntArray,
    a_sizes: IntArray,
    inv_a: FloatArray,
    left: IndexArray,
    right: IndexArray,
    outputs: tuple[IntArray, IndexArray, npt.NDArray[np.int8], IndexArray],
    floats: list[FloatArray],
) -> None:
    """The loop of :func:`replay_merges`: its outputs written into ``outputs`` (the
    pairs of both clusterings, the cells lost, the change of the exact clusters, the
    two sizes) and ``floats`` (the B-cubed numerators and ``n log n`` of the cells)."""
    n = int(true_of.shape[0])
    dt = left.dtype
    both_out, lost_out, exact_out, sizes = outputs
    truth = _view(true_of)
    a_of = _view(a_sizes)
    parent_a = np.arange(n, dtype=dt)
    size_a = np.ones(n, dtype=dt)
    sq_a_a = inv_a[true_of]
    parent, size = _view(parent_a), _view(size_a)
    sq = _view(np.ones(n, dtype=np.int64))
    sq_a = _view(sq_a_a)
    pure = bytearray(b"\x01") * n  # the component of this root is within one true cluster
    # per mixed component root: its open cells {true cluster: n_ij} (n_ij < a_i)
    comp: dict[int, dict[int, int]] = {}
    w_both, w_lost, w_exact = _view(both_out), _view(lost_out), _view(exact_out)
    w_sizes = _view(sizes.reshape(-1))
    w_b3r, w_b3p, w_b3er, w_b3ep, w_xl = (_view(x) for x in floats)
    log = math.log

    k = 0
    for u, v in zip(_view(left), _view(right), strict=True):
        while parent[u] != u:  # find, with path halving
            parent[u] = u = parent[parent[u]]
        while parent[v] != v:
            parent[v] = v = parent[parent[v]]
        bu, bv = size[u], size[v]
        if bu < bv:
            u, v, bu, bv = v, u, bv, bu
        b_new = bu + bv
        both = shared = ex_change = 0
        cross = cross2 = xlog = 0.0
        if pure[u] and pure[v] and truth[u] == truth[v]:
            # one cell each, shared: the sums over {i: bv} against {i: bu}
            a = a_of[truth[u]]
            shared = 1
            both = bv * bu
            cross += 2.0 * both / a
            cross2 += 2.0 * both / (a * a)
            xlog += b_new * log(b_new) - bv * log(bv) - bu * log(bu)
            ex_change = 1 if a == b_new else 0
        else:
            if pure[u]:
                i = truth[u]
                complete = a_of[i] == bu
                ex_change -= complete
                big = {} if complete else {i: bu}
            else:
                big = comp.get(u, {})
            if pure[v]:
                i = truth[v]
                complete = a_of[i] == bv
                ex_change -= complete
                small = {} if complete else {i: bv}
            else:
                small = comp.pop(v, {})
            for i, c in small.items():
                c2 = big.get(i)
                if c2 is None:
                    big[i] = c
                    continue
                shared += 1
                prod = c * c2
                both += prod
                a = a_of[i]
                cross += 2.0 * prod / a
                cross2 += 2.0 * prod / (a * a)
                s = c + c2
                xlog += s * log(s) - c * log(c) - c2 * log(c2)
                if s == a:  # the cell is complete: never shared again
                    del big[i]
                else:
                    big[i] = s
            if big:
                comp[u] = big
            else:
                comp.pop(u, None)
            pure[u] = 0
        sq_u, sq_v, sqa_u, sqa_v = sq[u], sq[v], sq_a[u], sq_a[v]
        sq_new = sq_u + sq_v + 2 * both
        sqa_new = sqa_u + sqa_v + cross
        bu_f, bv_f, bn_f = float(bu), float(bv), float(b_new)
        w_both[k], w_lost[k], w_exact[k] = both, shared, ex_change
        w_sizes[2 * k], w_sizes[2 * k + 1] = bu, bv
        w_b3r[k], w_b3er[k], w_xl[k] = cross, cross2, xlog
        w_b3p[k] = float(sq_new) / bn_f - float(sq_u) / bu_f - float(sq_v) / bv_f
        w_b3ep[k] = sqa_new / bn_f - sqa_u / bu_f - sqa_v / bv_f
        parent[v] = u
        size[u] = b_new
        sq[u] = sq_new
        sq_a[u] = sqa_new
        k += 1


@dataclass(frozen=True, eq=False)
class CrossSteps:
    """For a link-only evaluation, what each merge of :class:`MergeSteps` adds to the
    pairs within one data set: ``within_both`` (pairs sharing a true cluster and a data
    set) and ``within_pred`` (pairs sharing a data set), both in merge order."""

    within_both: IntArray
    within_pred: IntArray


def _group_pairs(groups: IntArray, left: IndexArray, right: IndexArray) -> IntArray:
    """The pairs of records of one group that each merge joins (the merges replayed
    with a union-find keeping, for each component mixing groups, its count per
    group that does not hold all of the group yet; a component within one group
    has its root's group and its size)."""
    n = int(groups.shape[0])
    dt = index_dtype(n)
    of = _view(np.ascontiguousarray(groups, dtype=np.int64))
    total = _view(np.bincount(groups).astype(np.int64))
    parent = _view(np.arange(n, dtype=dt))
    size = _view(np.ones(n, dtype=dt))
    pure = bytearray(b"\x01") * n
    comp: dict[int, dict[int, int]] = {}
    out = np.empty(int(left.shape[0]), dtype=np.int64)
    w_out = _view(out)
    k = 0
    lefts = _view(np.ascontiguousarray(left))
    rights = _view(np.ascontiguousarray(right))
    for u, v in zip(lefts, rights, strict=True):
        while parent[u] != u:
            parent[u] = u = parent[parent[u]]
        while parent[v] != v:
            parent[v] = v = parent[parent[v]]
        bu, bv = size[u], size[v]
        if bu < bv:
            u, v, bu, bv = v, u, bv, bu
        if pure[u] and pure[v] and of[u] == of[v]:
            joined = bu * bv
        else:
            joined = 0
            if pure[u]:
                big = {} if total[of[u]] == bu else {of[u]: bu}
            else:
                big = comp.get(u, {})
            if pure[v]:
                small = {} if total[of[v]] == bv else {of[v]: bv}
            else:
                small = comp.pop(v, {})
            for g, c in small.items():
                c2 = big.get(g)
                if c2 is None:
                    big[g] = c
                    continue
                joined += c * c2
                if c + c2 == total[g]:
                    del big[g]
                else:
                    big[g] = c + c2
            if big:
                comp[u] = big
            else:
                comp.pop(u, None)
            pure[u] = 0
        w_out[k] = joined
        k += 1
        parent[v] = u
        size[u] = bu + bv
    return out


def cross_steps(steps: MergeSteps, true_of: IntArray, source_of: IntArray) -> CrossSteps:
    """The :class:`CrossSteps` of the merges of ``steps`` (records' true clusters
    ``true_of`` and data sets ``source_of``)."""
    n_src = int(source_of.max()) + 1 if source_of.size else 1
    # the (true cluster, data set) of each record, numbered 0..
    _, refined = np.unique(true_of * n_src + source_of, return_inverse=True)
    return CrossSteps(
        within_both=_group_pairs(refined.reshape(-1).astype(np.int64), steps.left, steps.right),
        within_pred=_group_pairs(source_of, steps.left, steps.right),
    )
