"""Connected components: of a graph at once, and as scored pairs are accepted.

:func:`component_labels` numbers the connected components of a graph given by
its edges (the CEAF solver splits the cells of a table with it).

The rest follows the components as pairs are accepted in descending order of
score (the curves of :mod:`ereval.curves`). The components only change when an
accepted pair joins two different components; those pairs are the edges of
the maximum spanning forest (Kruskal's algorithm over the pairs in
that order), found with :func:`scipy.sparse.csgraph.minimum_spanning_tree` on
the pairs' ranks. The merges are then replayed with a union-find whose every
component keeps its composition over true clusters (``{i: n_ij}``, the smaller
merged into the larger), and each merge records how it changes the sums every
incremental metric is made of:

* ``sum_ij C(n_ij, 2)`` and ``sum_j C(b_j, 2)`` (pairwise, Rand; exact integers);
* the number of non-zero cells ``n_ij`` (MUC) and of predicted clusters equal
  to a true cluster (cluster precision and recall; exact integers);
* ``sum_ij n_ij^2 / a_i``, ``sum_ij n_ij^2 / b_j`` (B-cubed) and
  ``sum_ij n_ij^2 / a_i^2``, ``sum_ij n_ij^2 / (a_i b_j)`` (entity-weighted B-cubed);
* ``sum_ij n_ij log n_ij`` and ``sum_j b_j log b_j`` (entropies).

The state after the first ``k`` accepted pairs is the cumulative sum of the
changes of the merges among them.
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

__all__ = [
    "CrossSteps",
    "MergeSteps",
    "component_labels",
    "cross_steps",
    "forest_edges",
    "merge_steps",
    "replay_merges",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


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


@dataclass(frozen=True, eq=False)
class MergeSteps:
    """What every merge changes, in merge order (see the module docstring).

    ``position[m]`` is the number of accepted pairs after which merge ``m`` has
    happened (its pair's rank plus one). ``initial`` holds each sum for the
    all-singletons clustering.
    """

    position: IntArray
    pairs_both: IntArray
    pairs_pred: IntArray
    cells_lost: IntArray
    exact: IntArray
    b3_recall: FloatArray
    b3_precision: FloatArray
    b3e_recall: FloatArray
    b3e_precision: FloatArray
    nlogn_cells: FloatArray
    nlogn_pred: FloatArray
    initial: dict[str, float]
    #: The records each merge joins (its pair's two records).
    left: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    right: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


def merge_steps(true_of: IntArray, left: IntArray, right: IntArray, order: IntArray) -> MergeSteps:
    """Replay the merges of the pairs taken in ``order`` (indices into ``left``/``right``)."""
    m = int(order.shape[0])
    rank = np.empty(m, dtype=np.int64)
    rank[order] = np.arange(m, dtype=np.int64)
    ranks = forest_edges(int(true_of.shape[0]), left, right, rank)
    edges = order[ranks]
    return replay_merges(true_of, left[edges], right[edges], ranks + 1)


def replay_merges(
    true_of: IntArray, merge_left: IntArray, merge_right: IntArray, position: IntArray
) -> MergeSteps:
    """Replay the merges of the spanning forest: merge ``m`` joins the components of
    records ``merge_left[m]`` and ``merge_right[m]`` after ``position[m]`` accepted
    pairs (each joins two different components, in the order given)."""
    n = int(true_of.shape[0])
    a_sizes = np.bincount(true_of).astype(np.int64)
    a_list: list[int] = a_sizes.tolist()
    # the per-record state in typed arrays (8 bytes a value, not a Python object)
    truth = array("q", np.ascontiguousarray(true_of, dtype=np.int64).tobytes())
    lefts = array("q", np.ascontiguousarray(merge_left, dtype=np.int64).tobytes())
    rights = array("q", np.ascontiguousarray(merge_right, dtype=np.int64).tobytes())

    inv_a = 1.0 / a_sizes.astype(np.float64)
    parent = array("q", np.arange(n, dtype=np.int64).tobytes())
    size = array("q", [1]) * n
    # per component root: its composition {true cluster: n_ij} (absent for a singleton),
    # sum_i n_ij^2, sum_i n_ij^2 / a_i, and whether it equals a true cluster
    comp: dict[int, dict[int, int]] = {}
    sq = array("q", [1]) * n
    sq_a = array("d", inv_a[true_of].tobytes())
    exact = array("q", (a_sizes[true_of] == 1).astype(np.int64).tobytes())
    # per merge, flat: bu, bv, both, shared, change of exact, sq_big, sq_small
    ints = array("q")
    # per merge, flat: sq_a of both sides, sum 2 c c2 / a, sum 2 c c2 / a^2, change of n log n
    floats = array("d")
    add_ints, add_floats = ints.extend, floats.extend
    log = math.log

    for u, v in zip(lefts, rights, strict=True):
        while parent[u] != u:  # find, with path halving
            parent[u] = u = parent[parent[u]]
        while parent[v] != v:
            parent[v] = v = parent[parent[v]]
        bu, bv = size[u], size[v]
        if bu < bv:
            u, v, bu, bv = v, u, bv, bu
        big = comp.get(u)
        if big is None:
            big = {truth[u]: 1}
        small = comp.pop(v, None)
        if small is None:
            small = {truth[v]: 1}
        both = shared = 0
        cross = cross2 = xlog = 0.0
        for i, c in small.items():
            c2 = big.get(i)
            if c2 is None:
                big[i] = c
                continue
            shared += 1
            prod = c * c2
            both += prod
            a = a_list[i]
            cross += 2.0 * prod / a
            cross2 += 2.0 * prod / (a * a)
            s = c + c2
            xlog += s * log(s) - c * log(c) - c2 * log(c2)
            big[i] = s
        b_new = bu + bv
        ex_new = 0
        if len(big) == 1:
            (i_only,) = big
            ex_new = 1 if a_list[i_only] == b_new else 0
        sq_u, sq_v, sqa_u, sqa_v = sq[u], sq[v], sq_a[u], sq_a[v]
        add_ints((bu, bv, both, shared, ex_new - exact[u] - exact[v], sq_u, sq_v))
        add_floats((sqa_u, sqa_v, cross, cross2, xlog))
        parent[v] = u
        size[u] = b_new
        comp[u] = big
        sq[u] = sq_u + sq_v + 2 * both
        sq_a[u] = sqa_u + sqa_v + cross
        exact[u] = ex_new

    iv = np.frombuffer(ints, dtype=np.int64).reshape(-1, 7) if ints else np.zeros((0, 7), np.int64)
    fv = np.frombuffer(floats, dtype=np.float64).reshape(-1, 5) if floats else np.zeros((0, 5))
    bu_, bv_ = iv[:, 0], iv[:, 1]
    b_new_ = bu_ + bv_
    both_ = iv[:, 2]
    sq_new = iv[:, 5] + iv[:, 6] + 2 * both_
    sqa_new = fv[:, 0] + fv[:, 1] + fv[:, 2]
    bu_f, bv_f, bn_f = (x.astype(np.float64) for x in (bu_, bv_, b_new_))
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

    return MergeSteps(
        left=np.asarray(merge_left, dtype=np.int64),
        right=np.asarray(merge_right, dtype=np.int64),
        position=np.asarray(position, dtype=np.int64),
        pairs_both=both_,
        pairs_pred=bu_ * bv_,
        cells_lost=iv[:, 3],
        exact=iv[:, 4],
        b3_recall=fv[:, 2].copy(),
        b3_precision=sq_new / bn_f - iv[:, 5] / bu_f - iv[:, 6] / bv_f,
        b3e_recall=fv[:, 3].copy(),
        b3e_precision=sqa_new / bn_f - fv[:, 0] / bu_f - fv[:, 1] / bv_f,
        nlogn_cells=fv[:, 4].copy(),
        nlogn_pred=bn_f * np.log(bn_f) - bu_f * np.log(bu_f) - bv_f * np.log(bv_f),
        initial=initial,
    )


@dataclass(frozen=True, eq=False)
class CrossSteps:
    """For a link-only evaluation, what each merge of :class:`MergeSteps` adds to the
    pairs within one data set: ``within_both`` (pairs sharing a true cluster and a data
    set) and ``within_pred`` (pairs sharing a data set), both in merge order."""

    within_both: IntArray
    within_pred: IntArray


def _group_pairs(groups: IntArray, lefts: list[int], rights: list[int]) -> IntArray:
    """The pairs of records of one group that each merge joins (the merges replayed
    with a union-find keeping each component's count per group)."""
    n = int(groups.shape[0])
    parent = list(range(n))
    size = [1] * n
    comp: list[dict[int, int] | None] = [None] * n
    of: list[int] = groups.tolist()
    out: list[int] = []
    for u, v in zip(lefts, rights, strict=True):
        while parent[u] != u:
            parent[u] = u = parent[parent[u]]
        while parent[v] != v:
            parent[v] = v = parent[parent[v]]
        if size[u] < size[v]:
            u, v = v, u
        big = comp[u]
        if big is None:
            big = {of[u]: 1}
        small = comp[v]
        if small is None:
            small = {of[v]: 1}
        joined = 0
        for g, c in small.items():
            c2 = big.get(g)
            if c2 is None:
                big[g] = c
            else:
                joined += c * c2
                big[g] = c + c2
        out.append(joined)
        parent[v] = u
        size[u] += size[v]
        comp[u], comp[v] = big, None
    return np.asarray(out, dtype=np.int64)


def cross_steps(steps: MergeSteps, true_of: IntArray, source_of: IntArray) -> CrossSteps:
    """The :class:`CrossSteps` of the merges of ``steps`` (records' true clusters
    ``true_of`` and data sets ``source_of``)."""
    lefts: list[int] = steps.left.tolist()
    rights: list[int] = steps.right.tolist()
    n_src = int(source_of.max()) + 1 if source_of.size else 1
    refined = true_of * n_src + source_of
    return CrossSteps(
        within_both=_group_pairs(refined, lefts, rights),
        within_pred=_group_pairs(source_of, lefts, rights),
    )
