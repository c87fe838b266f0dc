"""The maximum-weight one-to-one alignment of the cells of a contingency table.

CEAF (Luo 2005) and ACE align true and predicted clusters one-to-one so as to
maximise the total weight of the aligned cells. Every weight of a cell with no
record in common is 0, so only non-zero cells can be aligned: the
maximum-weight matching is solved exactly on each connected component of the
bipartite graph of non-zero cells. Components that are a single true or a
single predicted cluster (the vast majority in practice) are read off
directly, and those of exactly two on one side all at once (:mod:`._pairs`);
the rest are solved one at a time by the Hungarian method, or together as one
sparse assignment problem. No dense ``K x R`` matrix is ever built.

CEAFm's and CEAFe's totals are computed together by :func:`aligned_totals`,
which first fixes, for both weights in one pass, every cell heavier than all
the other cells of its row and its column together, and leaves only the rest
to :func:`align_cells`.

References
----------
Luo, X. (2005). On coreference resolution performance metrics. HLT/EMNLP, 25-32.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np
import numpy.typing as npt

from ..contingency import ContingencyTable
from ._components import component_labels
from ._pairs import pair_total

__all__ = [
    "DOMINANCE_MARGIN",
    "align_cells",
    "aligned_totals",
    "ceafe_weights",
    "dominance_margin",
    "max_weight_alignment",
]

IntLike = npt.NDArray[np.signedinteger[Any]]

_STRUCTURE_LOCK = threading.Lock()


def ceafe_weights(counts: Any, true_at: Any, pred_at: Any) -> npt.NDArray[np.float64]:
    """CEAFe's weights ``2 n / (a + b)`` of cells of ``counts`` records whose clusters
    have ``true_at`` and ``pred_at`` records (the same IEEE operations everywhere).

    Examples
    --------
    >>> ceafe_weights(np.array([2, 1]), np.array([3, 3]), np.array([2, 1])).tolist()
    [0.8, 0.5]
    """
    return np.asarray(2.0 * counts / (true_at.astype(np.float64) + pred_at), dtype=np.float64)


def _first_per_group(
    group: npt.NDArray[np.int64], candidate: npt.NDArray[np.bool_], size: int
) -> npt.NDArray[np.bool_]:
    """Mask of the first candidate cell (lowest position) of each group."""
    pos = np.flatnonzero(candidate)
    first_pos = np.full(size, group.size, dtype=np.int64)
    np.minimum.at(first_pos, group[pos], pos)
    out = np.zeros(group.size, dtype=bool)
    out[pos] = first_pos[group[pos]] == pos
    return out


def _best_other(
    group: npt.NDArray[np.int64], w: npt.NDArray[np.float64], size: int
) -> npt.NDArray[np.float64]:
    """Per cell, the best weight of the other cells of its group (0 if none): the
    group's best, or for the one cell at the best (no tie) the best of the rest."""
    top = np.zeros(size)
    np.maximum.at(top, group, w)
    best = top[group]
    at_top = w == best
    ties = np.bincount(group[at_top], minlength=size)
    second = np.zeros(size)
    below = ~at_top
    np.maximum.at(second, group[below], w[below])
    alone = at_top & (ties[group] == 1)
    best[alone] = second[group[alone]]
    return best


def _leaf_cells(
    leaf_side: npt.NDArray[np.int64],
    other_side: npt.NDArray[np.int64],
    w: npt.NDArray[np.float64],
    n_leaf: int,
    n_other: int,
) -> npt.NDArray[np.bool_]:
    """Cells whose ``leaf_side`` node has no other cell and whose weight is the best of
    its ``other_side`` node (one such cell per ``other_side`` node)."""
    degree = np.bincount(leaf_side, minlength=n_leaf)
    best = np.zeros(n_other)
    np.maximum.at(best, other_side, w)
    ok = (degree[leaf_side] == 1) & (w >= best[other_side])
    return _first_per_group(other_side, ok, n_other)


#: Nodes per block of :func:`_renumber` (a node's rank within its block fits a byte).
RANK_BLOCK = 128


def _renumber(nodes: npt.NDArray[Any], size: int) -> tuple[int, npt.NDArray[np.int64]]:
    """The distinct ``nodes`` (each below ``size``) numbered 0.. in increasing order:
    their number and codes. A byte a node marks them and is turned into each marked
    node's rank within its block of :data:`RANK_BLOCK`, and a count a block gives
    the rank before it: a byte a node where a running count took eight (2 GB for the
    2.7 * 10^8 clusters of 10^9 records), and half the time."""
    width = -(-size // RANK_BLOCK) * RANK_BLOCK
    ranks = np.zeros(width, dtype=np.uint8)
    ranks[nodes] = 1
    blocks = ranks.reshape(-1, RANK_BLOCK)
    np.add.accumulate(blocks, axis=1, out=blocks)  # at most RANK_BLOCK: a byte
    before = np.zeros(blocks.shape[0] + 1, dtype=np.int64)
    np.cumsum(blocks[:, -1], out=before[1:])
    codes = before[nodes // RANK_BLOCK] + ranks[nodes] - 1
    return int(before[-1]), codes.astype(np.int64, copy=False)


def _fix_dominant_cells(
    rows: npt.NDArray[np.int64],
    cols: npt.NDArray[np.int64],
    w: npt.NDArray[np.float64],
    k: int,
    r: int,
) -> tuple[float, npt.NDArray[np.bool_]]:
    """Exact reductions that align cells some optimal alignment is known to contain.

    * Dominance: if ``w_ij > R_i + C_j``, where ``R_i`` (``C_j``) is the largest other
      weight in row ``i`` (column ``j``), exchanging ``(i, j)`` into any alignment
      never lowers its total. Such cells never share a row or a column, so all of
      them are fixed at once.
    * Leaves: a row with a single cell ``(i, j)`` whose weight is the best of column
      ``j`` can take ``j`` from any partner without loss (one such row per column);
      likewise for columns with a single cell.

    Fixed rows and columns leave the problem and the rules are applied again to
    what remains. Returns the fixed total and the mask of cells still undecided.
    """
    # the undecided cells, compacted after every change: their positions, rows,
    # columns and weights (still sorted by position)
    idx = np.arange(rows.size)
    ri, ci, wi = rows, cols, w
    done_rows = np.zeros(k, dtype=bool)
    done_cols = np.zeros(r, dtype=bool)
    total = 0.0
    for _ in range(100):
        changed = False
        for rule in ("dominance", "leaf_rows", "leaf_cols"):
            if idx.size == 0:
                break
            if rule == "dominance":
                fixed = wi > _best_other(ri, wi, k) + _best_other(ci, wi, r)
            elif rule == "leaf_rows":
                fixed = _leaf_cells(ri, ci, wi, k, r)
            else:
                fixed = _leaf_cells(ci, ri, wi, r, k)
            if not fixed.any():
                continue
            changed = True
            total += float(wi[fixed].sum())
            done_rows[ri[fixed]] = True
            done_cols[ci[fixed]] = True
            keep = ~(done_rows[ri] | done_cols[ci])
            idx, ri, ci, wi = idx[keep], ri[keep], ci[keep], wi[keep]
            if 8 * idx.size < k + r:
                # few cells left: number their rows and columns afresh (in the same
                # order), so that per-node arrays shrink with them
                k, ri = _renumber(ri, k)
                r, ci = _renumber(ci, r)
                done_rows = np.zeros(k, dtype=bool)
                done_cols = np.zeros(r, dtype=bool)
        if not changed or idx.size == 0:
            break
    active = np.zeros(rows.size, dtype=bool)
    active[idx] = True
    return total, active


def _cell_structure(
    table: ContingencyTable,
) -> tuple[
    npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.int64], npt.NDArray[np.int64]
]:
    """What the alignment needs of ``table`` whatever the weights, kept with the table
    (CEAFm, CEAFe, ... share it): the mask of the isolated cells (alone in their row
    and their column), the mask of the others and the others' rows and columns."""
    with _STRUCTURE_LOCK:  # families computed in parallel share one computation
        got = table._cache.get("ceaf_cells")
        if got is None or got[0] is not table.rows or got[1] is not table.cols:
            # a cell alone in its row and its column is aligned as it is
            isolated = (table.row_cells[table.rows] == 1) & (table.col_cells[table.cols] == 1)
            rest = ~isolated
            got = (table.rows, table.cols, isolated, rest, table.rows[rest], table.cols[rest])
            table._cache["ceaf_cells"] = got
    return got[2:]


def max_weight_alignment(table: ContingencyTable, weights: npt.NDArray[np.float64]) -> float:
    """Maximum total weight of a one-to-one alignment using only non-zero cells.

    ``weights`` holds one non-negative weight per cell of ``table``. Cells alone
    in their row and column are aligned directly; the rest go to :func:`_align`.
    """
    if table.rows.size == 0:
        return 0.0
    isolated, rest, rows, cols = _cell_structure(table)
    total = float(weights[isolated].sum())
    return total + _align(rows, cols, weights[rest], table.n_true_clusters, table.n_pred_clusters)


def _align(
    rows: npt.NDArray[np.int64],
    cols: npt.NDArray[np.int64],
    w: npt.NDArray[np.float64],
    k: int,
    r: int,
) -> float:
    """The best total of the cells ``(rows, cols)`` (codes below ``k`` and ``r``) with
    weights ``w``: dominant cells are fixed first (:func:`_fix_dominant_cells`); the
    rest is split into connected components, stars are read off, and the remaining
    components are solved exactly as one sparse assignment problem. Stars found
    without the components (:func:`_stars`) are read off first: a prediction of
    singletons is all stars, which the reductions would take pass after pass."""
    total, (rows, cols, w) = _stars(rows, cols, w, k, r)
    return total + _solved(rows, cols, w, k, r) if rows.size else total


def _solved(
    rows: npt.NDArray[np.int64],
    cols: npt.NDArray[np.int64],
    w: npt.NDArray[np.float64],
    k: int,
    r: int,
) -> float:
    """The best total of cells of which no star shows in the degrees alone: the
    reductions, the components and the assignments of :func:`_align`."""
    total, active = _fix_dominant_cells(rows, cols, w, k, r)
    rows, cols, w = rows[active], cols[active], w[active]
    if rows.size == 0:
        return total
    label = component_labels(rows, cols + k, k + r)
    comp = label[rows]
    n_comp = int(label.max()) + 1
    row_has = np.zeros(k, dtype=bool)
    row_has[rows] = True
    col_has = np.zeros(r, dtype=bool)
    col_has[cols] = True
    rows_per = np.bincount(label[:k][row_has], minlength=n_comp)
    cols_per = np.bincount(label[k:][col_has], minlength=n_comp)
    star = (rows_per[comp] == 1) | (cols_per[comp] == 1)
    # a component with one true (or one predicted) cluster aligns its best cell
    best = np.zeros(n_comp)
    np.maximum.at(best, comp[star], w[star])
    total += float(best.sum())
    # one with two true (or two predicted) clusters: the rule of :mod:`._pairs`
    two_rows = ~star & (rows_per[comp] == 2)
    two_cols = ~star & ~two_rows & (cols_per[comp] == 2)
    for two, node, other in ((two_rows, rows, cols), (two_cols, cols, rows)):
        if two.any():
            total += pair_total(node[two], other[two], w[two], comp[two])
    hard = ~(star | two_rows | two_cols)
    if hard.any():
        total += _assignment(rows[hard], cols[hard], w[hard], comp[hard])
    return total


def _stars(
    rows: IntLike, cols: IntLike, w: npt.NDArray[np.float64], k: int, r: int
) -> tuple[float, tuple[IntLike, IntLike, npt.NDArray[np.float64]]]:
    """The best total of the stars that show in the degrees alone
    (:func:`_star_cells`), and the other cells."""
    star = _star_cells(rows, cols, k, r)
    rest = ~(star[0] | star[1])
    total = _star_total(rows, cols, w, star, k, r)
    return total, (rows, cols, w) if rest.all() else (rows[rest], cols[rest], w[rest])


def _star_cells(
    rows: IntLike, cols: IntLike, k: int, r: int
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """The cells of the stars that show in the degrees alone, whatever the weights: a
    row none of whose columns holds another cell is a component of its own, which
    aligns its best cell (the first mask); likewise a column none of whose rows
    holds another cell (the second; a single cell is counted once, with its row)."""
    shared_col = np.bincount(cols, minlength=r)[cols] > 1  # its column holds another cell
    shared_row = np.bincount(rows, minlength=k)[rows] > 1
    by_row = np.bincount(rows[shared_col], minlength=k)[rows] == 0
    by_col = (np.bincount(cols[shared_row], minlength=r)[cols] == 0) & ~by_row
    return by_row, by_col


def _star_total(
    rows: IntLike,
    cols: IntLike,
    w: npt.NDArray[np.float64],
    star: tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]],
    k: int,
    r: int,
) -> float:
    """The best total of the stars ``star`` (:func:`_star_cells`): each star's best
    weight."""
    total = 0.0
    for mask, centre, size in ((star[0], rows, k), (star[1], cols, r)):
        best = np.zeros(size)
        np.maximum.at(best, centre[mask], w[mask])
        total += float(best.sum())
    return total


#: The least relative margin by which a float weight must beat a sum of weights.
DOMINANCE_MARGIN = 1e-12


def dominance_margin(max_size: int) -> float:
    """The relative margin by which a float weight ``w`` must beat a sum ``S`` of the
    weights of a row and a column (``3 w > S (1 + margin)``) for the comparison to
    hold of the exact sum: a sum of ``d`` non-negative floats, in any order, is off
    by at most ``(d - 1) 2^-53`` of itself, and a row or a column holds at most
    ``max_size`` cells (its cluster's records). At least :data:`DOMINANCE_MARGIN`.

    Examples
    --------
    >>> dominance_margin(10) == DOMINANCE_MARGIN, dominance_margin(10**6) > 1e-10
    (True, True)
    """
    return max(DOMINANCE_MARGIN, (2 * max(int(max_size), 0) + 8) * 2.0**-53)


def fix_dominant(
    counts: IntLike,
    w4: npt.NDArray[np.float64],
    sums: tuple[IntLike, npt.NDArray[np.float64]],
    margin: float,
    at: tuple[IntLike, IntLike],
    done: list[npt.NDArray[np.uint8]],
) -> tuple[int, float]:
    """The test of :func:`aligned_totals` on some cells (``counts`` records, CEAFe
    weights ``w4``, the sums of their row's and column's weights ``sums`` for each
    weight, rows and columns ``at``): each cell heavier than a third of those sums
    (CEAFe's by ``margin``, ``1 +`` :func:`dominance_margin`) is fixed, and its row
    and column marked in ``done`` (bit 1 for CEAFm, bit 2 for CEAFe). Returns the
    fixed cells' CEAFm and CEAFe totals."""
    f3 = 3 * counts.astype(np.int64) > sums[0]
    f4 = 3.0 * w4 > sums[1] * margin
    # a row (column) holds at most one fixed cell per weight, so the codes of each
    # mask below are distinct; most fixed cells are fixed for both weights at once
    both = f3 & f4
    marks = [(both, 3), (f3 & ~both, 1), (f4 & ~both, 2)]
    for side, codes in zip(done, at, strict=True):
        for fixed, bits in marks:
            side[codes[fixed]] |= bits
    return int(counts[f3].sum(dtype=np.int64)), float(w4[f4].sum())


#: Cells per step of :func:`aligned_totals` (its temporary arrays stay in cache).
_STEP = 1 << 16


def aligned_totals(
    rows: IntLike,
    cols: IntLike,
    counts: IntLike,
    true_sizes: IntLike,
    pred_sizes: IntLike,
    *,
    common: tuple[IntLike, IntLike] | None = None,
    weight_sums: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None = None,
    step: int = _STEP,
) -> tuple[float, float]:
    """CEAFm's and CEAFe's best aligned totals, computed together.

    The cells ``(rows[c], cols[c], counts[c])`` are the non-zero cells of a table
    (in any order) whose clusters have ``true_sizes`` and ``pred_sizes`` records
    (twinless records included, as CEAF counts them). The weights are
    ``w3 = n_ij`` (CEAFm) and ``w4 = 2 n_ij / (a_i + b_j)`` (CEAFe).

    For both weights in one pass over the cells, a cell heavier than all the other
    cells of its row and of its column together (``3 w > S_row + S_col``, the sums
    ``S`` including the cell) is fixed: it beats the best other cell of its row plus
    that of its column, so some best alignment holds it, and no two such cells
    share a row or a column. CEAFe's weights are floats: there a cell must win by the
    relative margin of :func:`dominance_margin`, beyond any rounding. The cells of
    the rows and columns that hold no fixed cell go to the exact alignment of
    :func:`max_weight_alignment`. Where there are at least as many clusters of one
    record as cells (one side all singletons, say), the stars that show in the
    degrees alone (:func:`_star_cells`) are aligned before the test, which would
    fix few of them.

    Parameters
    ----------
    rows, cols, counts : array of int
        The cells; ``rows`` below ``len(true_sizes)``, ``cols`` below
        ``len(pred_sizes)``.
    true_sizes, pred_sizes : array of int
        Each cluster's size.
    common : pair of arrays, optional
        The sums of ``counts`` per row and per column, when already known.
    weight_sums : pair of arrays, optional
        The sums of ``w4`` per row and per column, when already known.
    step : int
        Cells per step: the temporary arrays hold this many values.

    Returns
    -------
    tuple of float
        ``(CEAFm total, CEAFe total)``.

    Examples
    --------
    >>> import numpy as np
    >>> rows, cols, counts = np.array([0, 0, 1]), np.array([0, 1, 1]), np.array([2, 1, 2])
    >>> aligned_totals(rows, cols, counts, np.array([3, 2]), np.array([2, 3]))
    (4.0, 1.6)
    """
    k, r, m = true_sizes.shape[0], pred_sizes.shape[0], counts.shape[0]
    if m == 0:
        return 0.0, 0.0
    if common is None:
        common = (
            np.bincount(rows, weights=counts, minlength=k).astype(np.int64),
            np.bincount(cols, weights=counts, minlength=r).astype(np.int64),
        )
    star_totals = [0.0, 0.0]
    # where nearly every cell has a cluster of one record to itself (one side all
    # singletons, say), most cells lie in stars, which the test below would fix one
    # in a few: they are aligned first (whole components, so the sums of the rows
    # and columns left stay those of their cells)
    if np.count_nonzero(common[0] == 1) + np.count_nonzero(common[1] == 1) >= m:
        star = _star_cells(rows, cols, k, r)
        w4_all = ceafe_weights(counts, true_sizes[rows], pred_sizes[cols])
        star_totals = [
            _star_total(rows, cols, w, star, k, r) for w in (counts.astype(np.float64), w4_all)
        ]
        rest = ~(star[0] | star[1])
        del star, w4_all
        rows, cols, counts = rows[rest], cols[rest], counts[rest]
        m = counts.shape[0]
        if m == 0:
            return star_totals[0], star_totals[1]
    steps = [slice(s, min(s + step, m)) for s in range(0, m, step)]

    def w4(p: Any) -> npt.NDArray[np.float64]:
        return ceafe_weights(counts[p], true_sizes[rows[p]], pred_sizes[cols[p]])

    if weight_sums is None:
        weight_sums = (np.zeros(k), np.zeros(r))
        for p in steps:
            w = w4(p)
            np.add.at(weight_sums[0], rows[p], w)
            np.add.at(weight_sums[1], cols[p], w)
    rc, cc = common
    s4r, s4c = weight_sums
    # without twinless records the sums of the counts are the sizes: gathered once
    shared = rc is true_sizes and cc is pred_sizes
    fixed3: list[int] = []
    fixed4: list[float] = []
    # per row and per column: bit 1 once it holds a fixed cell for w3, bit 2 for w4
    done = [np.zeros(k, dtype=np.uint8), np.zeros(r, dtype=np.uint8)]
    top = max(int(true_sizes.max(initial=0)), int(pred_sizes.max(initial=0)))
    margin = 1.0 + dominance_margin(top)
    for p in steps:
        ii, jj, x = rows[p], cols[p], counts[p]
        ai, bj = true_sizes[ii].astype(np.int64), pred_sizes[jj]
        w = ceafe_weights(x, ai, bj)
        sum3 = ai + bj if shared else rc[ii].astype(np.int64) + cc[jj]
        f3, f4 = fix_dominant(x, w, (sum3, s4r[ii] + s4c[jj]), margin, (ii, jj), done)
        fixed3.append(f3)
        fixed4.append(f4)
    totals = [float(sum(fixed3)) + star_totals[0], math.fsum([*fixed4, star_totals[1]])]
    left: tuple[list[IntLike], list[IntLike]] = ([], [])
    for p in steps:
        flags = done[0][rows[p]] | done[1][cols[p]]
        left[0].append(np.flatnonzero((flags & 1) == 0) + p.start)
        left[1].append(np.flatnonzero((flags & 2) == 0) + p.start)
    del done
    for t in (0, 1):
        at = np.concatenate(left[t])
        if at.size:
            weights = counts[at].astype(np.float64) if t == 0 else w4(at)
            totals[t] += align_cells(rows[at], cols[at], weights, k, r)
    return totals[0], totals[1]


def align_cells(
    rows: IntLike, cols: IntLike, weights: npt.NDArray[np.float64], k: int, r: int
) -> float:
    """The best total of a one-to-one alignment of some cells (rows below ``k``,
    columns below ``r``, non-negative ``weights``), solved exactly: the stars that
    show in the degrees read off (:func:`_stars`), the other cells' rows and columns
    numbered afresh (in the same order), then the reductions, components and
    assignments of :func:`max_weight_alignment`.

    Examples
    --------
    >>> align_cells(np.array([0, 0, 1]), np.array([0, 1, 0]), np.array([3.0, 2.0, 2.0]), 2, 2)
    4.0
    """
    total, (rows, cols, weights) = _stars(rows, cols, weights, k, r)
    if not rows.size:
        return total
    k, row = _renumber(rows, k)
    r, col = _renumber(cols, r)
    return total + _solved(row, col, weights, k, r)


#: Components at most this many clusters wide on each side are aligned densely.
_DENSE_SIDE = 48
#: At most this many components are aligned densely, one at a time; beyond, every
#: component goes to the sparse solver at once.
_DENSE_COMPONENTS = 2048


def _assignment(
    rows: npt.NDArray[np.int64],
    cols: npt.NDArray[np.int64],
    weights: npt.NDArray[np.float64],
    comp: npt.NDArray[np.int64],
) -> float:
    """The best total of the cells of the components ``comp``, solved exactly: small
    components one at a time by :func:`_dense_assignment` (few of them), else all
    together by :func:`_sparse_assignment`."""
    order = np.argsort(comp, kind="stable")
    rows, cols, weights, comp = rows[order], cols[order], weights[order], comp[order]
    starts = np.flatnonzero(np.concatenate(([True], comp[1:] != comp[:-1])))
    if starts.size > _DENSE_COMPONENTS:
        return _sparse_assignment(rows, cols, weights)
    ends = np.append(starts[1:], comp.size)
    total = 0.0
    large = []
    for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
        ri, row = np.unique(rows[a:b], return_inverse=True)
        ci, col = np.unique(cols[a:b], return_inverse=True)
        if min(ri.size, ci.size) > _DENSE_SIDE:
            large.append(slice(a, b))
            continue
        dense = np.zeros((ri.size, ci.size))
        dense[row, col] = weights[a:b]
        total += _dense_assignment(dense if ri.size <= ci.size else dense.T)
    if large:
        at = np.concatenate([np.arange(p.start, p.stop) for p in large])
        total += _sparse_assignment(rows[at], cols[at], weights[at])
    return total


def _dense_assignment(benefit: npt.NDArray[np.float64]) -> float:
    """The largest total of a one-to-one assignment of the rows of ``benefit`` (no
    more rows than columns, every entry non-negative: a zero entry is as good as no
    assignment) to its columns: the Hungarian method with potentials, each step over
    all the columns at once."""
    n, m = benefit.shape
    cost = -benefit
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    owner = np.zeros(m + 1, dtype=np.int64)  # 1-based row holding each column; 0: free
    way = np.zeros(m + 1, dtype=np.int64)
    for i in range(1, n + 1):
        owner[0] = i
        j0 = 0
        low = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = owner[j0]
            reduced = cost[i0 - 1] - u[i0] - v[1:]
            free = ~used[1:]
            better = free & (reduced < low[1:])
            low[1:][better] = reduced[better]
            way[1:][better] = j0
            candidates = np.where(free, low[1:], np.inf)
            j1 = int(np.argmin(candidates)) + 1
            delta = candidates[j1 - 1]
            u[owner[used]] += delta
            v[used] -= delta
            low[1:][free] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:  # the augmenting path, back to the new row
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    taken = np.flatnonzero(owner[1:])
    return float(benefit[owner[1:][taken] - 1, taken].sum())


def _sparse_assignment(
    rows: npt.NDArray[np.int64], cols: npt.NDArray[np.int64], weights: npt.NDArray[np.float64]
) -> float:
    """Exact maximum-weight matching on a sparse bipartite graph (LAPJVsp)."""
    # imported here: slow to import, and needed only for many or large components
    import scipy.sparse as sp
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    ri, row_index = np.unique(rows, return_inverse=True)
    ci, col_index = np.unique(cols, return_inverse=True)
    m, n = ri.size, ci.size
    # one private zero-benefit column per row guarantees a full matching of rows;
    # shifting every weight by +1 keeps all edges explicit and non-zero.
    data = np.concatenate([weights + 1.0, np.ones(m)])
    ii = np.concatenate([row_index, np.arange(m)])
    jj = np.concatenate([col_index, n + np.arange(m)])
    biadj = sp.csr_matrix((data, (ii, jj)), shape=(m, n + m))
    row_match, col_match = min_weight_full_bipartite_matching(biadj, maximize=True)
    matched = np.asarray(biadj[row_match, col_match]).ravel()
    return float(matched.sum() - row_match.size)
