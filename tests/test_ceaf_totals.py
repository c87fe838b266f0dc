"""CEAFm's and CEAFe's totals computed together (:func:`aligned_totals`): against a
dense Hungarian assignment, against :func:`max_weight_alignment` one weight at a
time, in every step size, and on tables built to tie at the dominance threshold."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from ereval._algorithms import (
    DOMINANCE_MARGIN,
    aligned_totals,
    component_labels,
    dominance_margin,
    max_weight_alignment,
)
from ereval.contingency import contingency_table
from ereval.metrics._ceaf import ceaf_similarity


def _dense(rows: np.ndarray, cols: np.ndarray, w: np.ndarray, k: int, r: int) -> float:
    """The best one-to-one total by the Hungarian method on the full matrix."""
    if rows.size == 0:
        return 0.0
    mat = np.zeros((k, r))
    mat[rows, cols] = w
    ri, ci = linear_sum_assignment(mat, maximize=True)
    return float(mat[ri, ci].sum())


def _weights(rows: np.ndarray, cols: np.ndarray, n: np.ndarray, a: np.ndarray, b: np.ndarray):
    return n.astype(np.float64), 2.0 * n / (a[rows].astype(np.float64) + b[cols])


def _check(rows, cols, n, a, b, **options) -> None:
    got = aligned_totals(rows, cols, n, a, b, **options)
    w3, w4 = _weights(rows, cols, n, a, b)
    want = (_dense(rows, cols, w3, a.size, b.size), _dense(rows, cols, w4, a.size, b.size))
    assert got[0] == want[0]  # integer weights: exact
    assert math.isclose(got[1], want[1], rel_tol=1e-12, abs_tol=1e-12)


@st.composite
def tables(draw: st.DrawFn) -> tuple[np.ndarray, ...]:
    """The cells of a random table in a random order, its sizes with twinless records
    (a cluster may be larger than the sum of its cells)."""
    n_records = draw(st.integers(1, 60))
    k = draw(st.integers(1, 12))
    r = draw(st.integers(1, 12))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    t = rng.integers(0, k, n_records)
    p = rng.integers(0, r, n_records)
    key, n = np.unique(t * r + p, return_counts=True)
    rows, cols = key // r, key % r
    a = np.bincount(rows, weights=n, minlength=k).astype(np.int64)
    b = np.bincount(cols, weights=n, minlength=r).astype(np.int64)
    a += rng.integers(0, 3, k) * draw(st.booleans())  # twinless records
    b += rng.integers(0, 3, r) * draw(st.booleans())
    order = rng.permutation(rows.size)
    return rows[order], cols[order], n[order], a, b


@settings(max_examples=150, deadline=None)
@given(tables(), st.sampled_from([1, 2, 3, 7, 1 << 16]))
def test_both_totals_equal_the_dense_assignment(cells, step) -> None:
    _check(*cells, step=step)


@settings(max_examples=60, deadline=None)
@given(tables())
def test_known_sums_give_the_same_totals(cells) -> None:
    rows, cols, n, a, b = cells
    w3, w4 = _weights(rows, cols, n, a, b)
    common = (
        np.bincount(rows, weights=w3, minlength=a.size).astype(np.int64),
        np.bincount(cols, weights=w3, minlength=b.size).astype(np.int64),
    )
    sums = (
        np.bincount(rows, weights=w4, minlength=a.size),
        np.bincount(cols, weights=w4, minlength=b.size),
    )
    assert aligned_totals(rows, cols, n, a, b, common=common, weight_sums=sums) == aligned_totals(
        rows, cols, n, a, b
    )


@pytest.mark.parametrize(
    "truth, pred",
    [
        # a row [2, 2]: no cell beats the others, and the leaves decide
        ([[1, 2, 3, 4]], [[1, 2], [3, 4]]),
        # 3 w == S_row + S_col exactly (w = 2, row 2 + 1, column 2 + 1): not fixed
        ([[1, 2, 3], [4, 5]], [[1, 2, 4], [3, 5]]),
        # a cycle of equal cells: nothing is fixed, the assignment decides
        ([[1, 2], [3, 4], [5, 6]], [[2, 3], [4, 5], [6, 1]]),
        # one giant cluster against singletons
        ([list(range(50))], [[i] for i in range(50)]),
    ],
)
def test_ties_at_the_threshold_are_left_to_the_exact_alignment(truth, pred) -> None:
    table = contingency_table(truth, pred)
    got = aligned_totals(table.rows, table.cols, table.counts, table.true_sizes, table.pred_sizes)
    for phi, total in zip((3, 4), got, strict=True):
        want = max_weight_alignment(table, ceaf_similarity(table, phi))
        assert math.isclose(total, want, rel_tol=1e-15), (phi, total, want)
    _check(table.rows, table.cols, table.counts, table.true_sizes, table.pred_sizes)


def test_a_large_random_table_agrees_with_one_weight_at_a_time() -> None:
    rng = np.random.default_rng(7)
    n = 200_000
    truth = rng.integers(0, n // 4, n)
    pred = truth.copy()
    moved = rng.random(n) < 0.15
    pred[moved] = rng.integers(0, n // 4, int(moved.sum()))
    table = contingency_table(truth, pred)
    got = aligned_totals(
        table.rows, table.cols, table.counts, table.true_sizes, table.pred_sizes, step=4096
    )
    assert got[0] == max_weight_alignment(table, ceaf_similarity(table, 3))
    assert math.isclose(
        got[1], max_weight_alignment(table, ceaf_similarity(table, 4)), rel_tol=1e-12
    )


def test_empty_and_one_cell() -> None:
    empty = np.zeros(0, dtype=np.int64)
    assert aligned_totals(empty, empty, empty, np.zeros(2, np.int64), np.zeros(1, np.int64)) == (
        0.0,
        0.0,
    )
    one = np.array([0])
    assert aligned_totals(one, one, np.array([3]), np.array([4]), np.array([3])) == (3.0, 6 / 7)


def test_the_margin_covers_the_rounding_of_long_sums() -> None:
    assert dominance_margin(0) == dominance_margin(1000) == DOMINANCE_MARGIN
    # a sum of d terms is off by at most (d - 1) 2^-53 of itself: the margin is wider
    for d in (10**5, 10**7, 10**9):
        assert dominance_margin(d) > 2 * (d - 1) * 2.0**-53
    # and a sum of a million equal weights, rounded, never beats its exact value by it
    w = np.full(10**6, 0.1)
    assert abs(float(np.add.reduce(w)) - 1e5) < 1e5 * dominance_margin(10**6)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 40), st.integers(0, 60), st.integers(0, 2**32 - 1))
def test_components_are_those_of_scipy(size, n_edges, seed) -> None:
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    rng = np.random.default_rng(seed)
    u, v = rng.integers(0, size, n_edges), rng.integers(0, size, n_edges)
    got = component_labels(u, v, size)
    graph = sp.coo_matrix((np.ones(n_edges), (u, v)), shape=(size, size))
    n, want = connected_components(graph, directed=False)
    # the same partition: the pairs (got, want) are as many as the components
    assert got.max() + 1 == n == np.unique(got * size + want).size
    # numbered in the order of their smallest nodes
    assert np.array_equal(
        np.unique(got, return_index=True)[1], np.sort(np.unique(got, return_index=True)[1])
    )


def test_components_of_a_long_path_in_any_order() -> None:
    n = 50_000
    order = np.random.default_rng(3).permutation(n)
    labels = component_labels(order[:-1], order[1:], n + 2)  # two nodes without an edge
    assert np.array_equal(labels, [0] * n + [1, 2])


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 9), st.integers(0, 9), st.integers(0, 2**32 - 1), st.booleans())
def test_dense_assignment_is_the_hungarian_optimum(n, extra, seed, ties) -> None:
    from ereval._algorithms._assignment import _dense_assignment

    rng = np.random.default_rng(seed)
    m = n + extra
    benefit = rng.integers(0, 3, (n, m)).astype(np.float64) if ties else rng.random((n, m))
    benefit[rng.random((n, m)) < 0.4] = 0.0  # no cell
    ri, ci = linear_sum_assignment(benefit, maximize=True)
    assert math.isclose(
        _dense_assignment(benefit), benefit[ri, ci].sum(), rel_tol=1e-12, abs_tol=1e-12
    )


@pytest.mark.parametrize("side, components", [(48, 2048), (0, 2048), (48, 0)])
def test_small_and_large_components_give_the_same_totals(monkeypatch, side, components) -> None:
    """Dense per component, sparse for wide components, sparse for all at once."""
    from ereval._algorithms import _assignment

    monkeypatch.setattr(_assignment, "_DENSE_SIDE", side)
    monkeypatch.setattr(_assignment, "_DENSE_COMPONENTS", components)
    # cycles of equal cells: no reduction applies, every component is hard
    rng = np.random.default_rng(5)
    truth, pred = [], []
    for c in range(30):
        size = int(rng.integers(2, 7))
        recs = [f"{c}-{i}" for i in range(2 * size)]
        truth += [recs[2 * i : 2 * i + 2] for i in range(size)]
        pred += [[recs[2 * i + 1], recs[(2 * i + 2) % (2 * size)]] for i in range(size)]
    table = contingency_table(truth, pred)
    got = aligned_totals(table.rows, table.cols, table.counts, table.true_sizes, table.pred_sizes)
    assert got == (float(len(truth)), float(len(truth)) * 0.5)
    _check(table.rows, table.cols, table.counts, table.true_sizes, table.pred_sizes)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, 300), min_size=0, max_size=60),
    st.integers(0, 200),
    st.sampled_from([np.int32, np.int64]),
)
def test_nodes_numbered_as_unique_numbers_them(nodes: list[int], extra: int, dtype: type) -> None:
    """The nodes of the cells left to the exact alignment are numbered 0.. in
    increasing order, as ``np.unique`` numbers them, whatever the blocks of their
    ranks (a node alone, nodes at a block's edges, a block full)."""
    from ereval._algorithms import _assignment

    at = np.array(nodes, dtype=dtype)
    size = (int(at.max()) + 1 if at.size else 0) + extra
    distinct, inverse = np.unique(at, return_inverse=True)
    count, codes = _assignment._renumber(at, size)
    assert count == distinct.size
    assert codes.dtype == np.int64
    assert codes.tolist() == inverse.reshape(-1).tolist()


def test_a_full_block_of_nodes_is_numbered() -> None:
    from ereval._algorithms import _assignment

    block = _assignment.RANK_BLOCK
    at = np.arange(3 * block)[::-1]  # three full blocks, ranks up to the block's width
    count, codes = _assignment._renumber(at, 3 * block + 5)
    assert count == 3 * block
    assert codes.tolist() == at.tolist()


@pytest.mark.parametrize("side", ["pred", "truth"])
def test_a_clustering_of_singletons_is_all_stars(monkeypatch, side: str) -> None:
    """One side all singletons (a cautious linker's prediction): every component is a
    star (one cluster and the singletons it splits into), read off from the degrees
    alone, without the reductions; the totals of the dense assignment."""
    from ereval._algorithms import _assignment

    def refuse(*args: object) -> None:
        raise AssertionError("the reductions were run")

    monkeypatch.setattr(_assignment, "_fix_dominant_cells", refuse)
    rng = np.random.default_rng(4)
    clusters = rng.integers(0, 40, 150)
    singles = np.arange(150)
    t, p = (clusters, singles) if side == "pred" else (singles, clusters)
    tab = contingency_table(
        pd.DataFrame({"record_id": singles, "cluster_id": t}),
        pd.DataFrame({"record_id": singles, "cluster_id": p + 1000}),
    )
    _check(tab.rows, tab.cols, tab.counts, tab.true_sizes, tab.pred_sizes)


def test_stars_beside_a_component_that_is_not_one() -> None:
    """Stars centred on a row and on a column, a single cell, and a cycle of two rows
    and two columns that the stars must leave whole: the dense assignment's totals."""
    rows = np.array([0, 0, 0, 1, 2, 3, 4, 4, 5, 5])
    cols = np.array([0, 1, 2, 3, 3, 4, 5, 6, 5, 6])
    n = np.array([3, 1, 2, 2, 5, 1, 4, 1, 1, 4])
    a = np.bincount(rows, weights=n).astype(np.int64)
    b = np.bincount(cols, weights=n).astype(np.int64)
    _check(rows, cols, n, a, b)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), lone=st.integers(0, 40))
def test_stars_aligned_first_beside_tangled_clusters(seed: int, lone: int) -> None:
    """Clusters of one record on both sides (as many as there are cells, so that the
    stars are aligned before the test of dominance) beside a random tangle: the
    totals of the dense assignment."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    t = np.concatenate([rng.integers(0, 6, n), 100 + np.arange(lone)])
    p = np.concatenate([rng.integers(0, 6, n), 100 + rng.permutation(lone)])
    if lone:  # some of the lone records together in the prediction: stars of a column
        p[n : n + lone // 3] = 99
    key, counts = np.unique(t * 1000 + p, return_counts=True)
    rows, cols = (
        np.unique(key // 1000, return_inverse=True)[1],
        np.unique(key % 1000, return_inverse=True)[1],
    )
    a = np.bincount(rows, weights=counts).astype(np.int64)
    b = np.bincount(cols, weights=counts).astype(np.int64)
    _check(rows, cols, counts, a, b)
