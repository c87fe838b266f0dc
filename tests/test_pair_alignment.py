"""The alignment of components with two clusters on one side (``_algorithms._pairs``):
each against SciPy's Hungarian method, and the exact alignment taking that way."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from ereval._algorithms import align_cells
from ereval._algorithms._pairs import pair_total


def _hungarian(block: np.ndarray) -> float:
    ri, ci = linear_sum_assignment(block, maximize=True)
    return float(block[ri, ci].sum())


@st.composite
def pairs(draw: st.DrawFn) -> tuple[np.ndarray, ...]:
    """Components of two nodes each over their own columns, as cells in a random order
    with node codes far apart: weights of few values (ties) or random floats, some
    cells absent; and the blocks of the two nodes' weights (absent cells 0)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    ties = draw(st.booleans())
    node, other, w, comp, blocks = [], [], [], [], []
    column = 0
    n_comp = draw(st.integers(1, 25))
    codes_of = rng.choice(10**6, (n_comp, 2), replace=False) * 7 + 3  # a node in one component
    for c in range(n_comp):
        m = int(rng.integers(1, 7))
        block = rng.integers(0, 4, (2, m)).astype(np.float64) if ties else rng.random((2, m))
        block[rng.random((2, m)) < 0.3] = 0.0
        block[:, 0] += 1.0  # each node keeps a cell
        codes = codes_of[c]
        for i in range(2):
            for j in np.flatnonzero(block[i]):
                node.append(codes[i])
                other.append(column + j)
                w.append(block[i, j])
                comp.append(1000 - 3 * c)
        column += m
        blocks.append(block)
    order = rng.permutation(len(w))
    arrays = (np.array(node), np.array(other), np.array(w), np.array(comp))
    return (*(a[order] for a in arrays), blocks)


@settings(max_examples=300, deadline=None)
@given(pairs())
def test_each_pair_of_nodes_is_aligned_as_the_hungarian_method_aligns_it(case) -> None:
    node, other, w, comp, blocks = case
    want = math.fsum(_hungarian(b) for b in blocks)
    assert math.isclose(pair_total(node, other, w, comp), want, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize(
    "block, want",
    [
        ([[5.0, 1.0], [4.0, 3.0]], 8.0),  # both best at one column: the first yields
        ([[5.0, 0.0], [9.0, 1.0]], 9.0),  # the second alone beats 5 + 1
        ([[2.0, 0.0], [2.0, 2.0]], 4.0),  # tied best of the second node
        ([[1.0, 0.0, 0.0], [9.0, 0.0, 0.0]], 9.0),  # one column: a node alone
        ([[3.0, 3.0], [3.0, 0.0]], 6.0),  # the first node tied at its best
    ],
)
def test_hand_computed_pairs(block: list[list[float]], want: float) -> None:
    b = np.array(block)
    i, j = np.nonzero(b)
    assert pair_total(i, j, b[i, j], np.zeros(i.size, dtype=np.int64)) == want
    assert _hungarian(b) == want


@pytest.mark.parametrize("side", ["rows", "cols"])
def test_the_exact_alignment_takes_pairs_without_the_hungarian_method(monkeypatch, side) -> None:
    """Cycles of two true and two predicted clusters and chains of two rows over three
    columns, with weights no reduction fixes: every component goes to the rule of
    pairs (the general assignment refused), either side, with the optimum's total."""
    from ereval._algorithms import _assignment

    def refuse(*args: object) -> None:
        raise AssertionError("the general assignment was called")

    monkeypatch.setattr(_assignment, "_assignment", refuse)
    rng = np.random.default_rng(11)
    rows, cols, w = [], [], []
    for c in range(40):
        m = 2 + c % 2
        block = rng.integers(2, 5, (2, m)).astype(np.float64)
        block[:, :] = block.max()  # all equal: no cell dominates, no leaf
        for i in range(2):
            for j in range(m):
                rows.append(2 * c + i)
                cols.append(3 * c + j)
                w.append(block[i, j])
    r, c_ = np.array(rows), np.array(cols)
    if side == "cols":
        r, c_ = c_, r
    weights = np.array(w)
    k, n = int(r.max()) + 1, int(c_.max()) + 1
    dense = np.zeros((k, n))
    dense[r, c_] = weights
    assert align_cells(r, c_, weights, k, n) == _hungarian(dense)


def test_no_cell_aligns_nothing() -> None:
    none = np.zeros(0, dtype=np.int64)
    assert pair_total(none, none, np.zeros(0), none) == 0.0
