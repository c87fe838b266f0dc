"""Sufficient statistics of the connected-components clustering as pairs are accepted.

Pairs are accepted in descending order of score. The components only change
when an accepted pair joins two different components; those pairs are the
edges of the maximum spanning forest (Kruskal's algorithm over the pairs in
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
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.sparse.csgraph import minimum_spanning_tree

__all__ = ["MergeSteps", "forest_edges", "merge_steps"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def forest_edges(n_records: int, left: IntArray, right: IntArray, rank: IntArray) -> IntArray:
    """The ranks of the pairs that join two components when pairs are taken in rank order.

    ``rank`` holds distinct integers ``0..m-1`` (the position of each pair in the
    order of acceptance). Returns the ranks of the merging pairs, ascending.
    """
    lo = np.minimum(left, right)
    hi = np.maximum(left, right)
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


def merge_steps(true_of: IntArray, left: IntArray, right: IntArray, order: IntArray) -> MergeSteps:
    """Replay the merges of the pairs taken in ``order`` (indices into ``left``/``right``)."""
    n = int(true_of.shape[0])
    m = int(order.shape[0])
    rank = np.empty(m, dtype=np.int64)
    rank[order] = np.arange(m, dtype=np.int64)
    ranks = forest_edges(n, left, right, rank)
    edges = order[ranks]
    a_sizes = np.bincount(true_of).astype(np.int64)
    a_list: list[int] = a_sizes.tolist()
    truth: list[int] = true_of.tolist()
    lefts: list[int] = left[edges].tolist()
    rights: list[int] = right[edges].tolist()

    parent = list(range(n))
    size = [1] * n
    comp: dict[int, dict[int, int]] = {}
    # per component: sum_i n_ij^2 (int), sum_i n_ij^2 / a_i (float), exact (0/1)
    sq: dict[int, int] = {}
    sq_a: dict[int, float] = {}
    exact: dict[int, int] = {}

    d_both: list[int] = []
    d_pred: list[int] = []
    d_cells: list[int] = []
    d_exact: list[int] = []
    d_b3r: list[float] = []
    d_b3p: list[float] = []
    d_er: list[float] = []
    d_ep: list[float] = []
    d_xlog: list[float] = []
    d_ylog: list[float] = []
    log = math.log

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def state(r: int) -> tuple[dict[int, int], int, float, int]:
        got = comp.get(r)
        if got is not None:
            return got, sq[r], sq_a[r], exact[r]
        i = truth[r]
        a = a_list[i]
        return {i: 1}, 1, 1.0 / a, 1 if a == 1 else 0

    for u, v in zip(lefts, rights, strict=True):
        ru, rv = find(u), find(v)
        if size[ru] < size[rv]:
            ru, rv = rv, ru
        big, sq_big, sqa_big, ex_big = state(ru)
        small, sq_small, sqa_small, ex_small = state(rv)
        bu, bv = size[ru], size[rv]
        both = 0
        shared = 0
        b3r = 0.0
        er = 0.0
        xlog = 0.0
        sqa_cross = 0.0
        for i, c in small.items():
            c2 = big.get(i)
            if c2 is None:
                big[i] = c
                continue
            shared += 1
            prod = c * c2
            both += prod
            a = a_list[i]
            b3r += 2.0 * prod / a
            er += 2.0 * prod / (a * a)
            sqa_cross += 2.0 * prod / a
            s = c + c2
            xlog += s * log(s) - c * log(c) - c2 * log(c2)
            big[i] = s
        b_new = bu + bv
        sq_new = sq_big + sq_small + 2 * both
        sqa_new = sqa_big + sqa_small + sqa_cross
        ex_new = 0
        if len(big) == 1:
            (i_only,) = big
            ex_new = 1 if a_list[i_only] == b_new else 0
        parent[rv] = ru
        size[ru] = b_new
        comp[ru] = big
        sq[ru], sq_a[ru], exact[ru] = sq_new, sqa_new, ex_new
        if rv in comp:
            del comp[rv], sq[rv], sq_a[rv], exact[rv]
        d_both.append(both)
        d_pred.append(bu * bv)
        d_cells.append(shared)
        d_exact.append(ex_new - ex_big - ex_small)
        d_b3r.append(b3r)
        d_b3p.append(sq_new / b_new - sq_big / bu - sq_small / bv)
        d_er.append(er)
        d_ep.append(sqa_new / b_new - sqa_big / bu - sqa_small / bv)
        d_xlog.append(xlog)
        d_ylog.append(b_new * log(b_new) - bu * log(bu) - bv * log(bv))

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

    def ints(values: list[int]) -> IntArray:
        return np.asarray(values, dtype=np.int64)

    def floats(values: list[float]) -> FloatArray:
        return np.asarray(values, dtype=np.float64)

    return MergeSteps(
        position=ranks + 1,
        pairs_both=ints(d_both),
        pairs_pred=ints(d_pred),
        cells_lost=ints(d_cells),
        exact=ints(d_exact),
        b3_recall=floats(d_b3r),
        b3_precision=floats(d_b3p),
        b3e_recall=floats(d_er),
        b3e_precision=floats(d_ep),
        nlogn_cells=floats(d_xlog),
        nlogn_pred=floats(d_ylog),
        initial=initial,
    )
