"""Basic and generalized merge distance (Menestrina, Whang & Garcia-Molina 2010).

The merge distance is the cheapest sequence of cluster splits and merges that
turns the prediction into the truth. Menestrina et al. show that it is reached
by splitting every predicted cluster into its pieces ``P_j ∩ T_i`` and then
merging the pieces of every true cluster. A split of a cluster of ``x + y``
records into parts of ``x`` and ``y`` costs ``f_split(x, y)``; a merge of parts of
``x`` and ``y`` costs ``f_merge(x, y)``. Pieces are split off / merged one at a
time in a fixed order (the paper's algorithm; the total does not depend on the
order for the costs below).

* **BMD** (basic merge distance) uses unit costs: ``sum_j (c_j - 1) + sum_i (r_i - 1)``
  where ``c_j`` (``r_i``) counts the pieces of predicted (true) cluster ``j`` (``i``).
  It is the raw number of operations; Maidasani et al.'s table reports
  ``1 - BMD / (N - 1)``, available as ``bmd_normalized``.
* **GMD** with ``f(x, y) = x * y`` for both operations counts the pairwise errors
  (false-positive plus false-negative pairs): the default of :func:`gmd`.
* With ``f(x, y) = h(x + y) - h(x) - h(y)``, ``h(n) = (n / N) log n``, GMD equals the
  variation of information (Menestrina et al. 2010, Theorem 4.2).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InputError, InputTypeError
from ..contingency import ContingencyTable, pair_count
from ..statistics import Statistics, statistics_of

__all__ = [
    "CostFunction",
    "bmd",
    "bmd_normalized",
    "gmd",
    "gmd_pairwise",
    "pairwise_cost",
    "vi_costs",
]

CostFunction = Callable[[npt.NDArray[np.int64], npt.NDArray[np.int64]], Any]


def bmd(table: ContingencyTable | Statistics) -> float:
    """Basic merge distance: the minimum number of splits plus merges (raw count).

    Twinless records are singletons on the side that lacks them: each adds a
    cell and a cluster, so it counts ``cells - clusters`` as 0 on that side.
    """
    s = statistics_of(table)
    only_t, only_p = s.n_true_records - s.n_common, s.n_pred_records - s.n_common
    cells = s.n_cells + only_t + only_p
    return float((cells - s.n_pred_clusters - only_t) + (cells - s.n_true_clusters - only_p))


def bmd_normalized(table: ContingencyTable | Statistics) -> float:
    """``1 - BMD / (N - 1)`` as reported in Maidasani et al. (2012), Table 3; NaN for N = 1.

    BMD can reach ``2 (N - 1)`` (e.g. a prediction that is a derangement of pairs), so
    this normalised value is at most 1 but can be negative.
    """
    n = statistics_of(table).n_records
    if n <= 1:
        return float("nan")
    return 1.0 - bmd(table) / (n - 1)


def gmd_pairwise(table: ContingencyTable | Statistics) -> float:
    """GMD with the default costs ``x * y``: false-positive plus false-negative pairs,
    ``sum_j C(b_j, 2) + sum_i C(a_i, 2) - 2 sum_ij C(n_ij, 2)`` (equal to :func:`gmd`)."""
    s = statistics_of(table)
    return float(s.pairs_pred - s.pairs_both) + float(s.pairs_true - s.pairs_both)


def pairwise_cost(x: npt.NDArray[np.int64], y: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``f(x, y) = x * y``: the number of record pairs a split breaks or a merge creates."""
    return x * y


def vi_costs(n_records: int) -> CostFunction:
    """The cost ``h(x + y) - h(x) - h(y)`` with ``h(n) = (n / N) log n`` under which GMD is VI."""

    def cost(x: npt.NDArray[np.int64], y: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        xf, yf = x.astype(np.float64), y.astype(np.float64)

        def h(v: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
            return np.asarray(v * np.log(v) / n_records)

        return h(xf + yf) - h(xf) - h(yf)

    return cost


def _apply(
    cost: CostFunction, x: npt.NDArray[np.int64], y: npt.NDArray[np.int64], name: str
) -> float:
    if x.size == 0:
        return 0.0
    try:
        out = np.asarray(cost(x, y), dtype=np.float64)
    except (TypeError, ValueError):
        # a scalar cost function: evaluate it element by element
        scalar_cost: Callable[[int, int], Any] = cost  # type: ignore[assignment]
        out = np.fromiter(
            (float(scalar_cost(int(a), int(b))) for a, b in zip(x, y, strict=True)),
            dtype=np.float64,
            count=x.size,
        )
    if out.shape == ():
        out = np.full(x.shape, float(out))
    if out.shape != x.shape:
        raise InputError(
            f"'{name}' must return one cost per (x, y) pair; received shape {out.shape} for {x.size} pairs"
        )
    if not np.all(np.isfinite(out)) or (out < 0).any():
        raise InputError(f"'{name}' must return finite non-negative costs")
    return float(out.sum())


def _sequential(
    group: npt.NDArray[np.int64], sizes: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """For pieces grouped by ``group`` (sorted), pairs ``(piece, accumulated so far)``
    for every piece after the first of its group."""
    csum = np.cumsum(sizes)
    start = np.r_[True, group[1:] != group[:-1]]
    group_start_sum = np.maximum.accumulate(np.where(start, csum - sizes, 0))
    before = csum - sizes - group_start_sum
    later = ~start
    return sizes[later], before[later]


def gmd(
    table: ContingencyTable,
    *,
    split_cost: CostFunction = pairwise_cost,
    merge_cost: CostFunction = pairwise_cost,
) -> float:
    """Generalized merge distance with user-supplied split and merge costs.

    Parameters
    ----------
    table : ContingencyTable
    split_cost, merge_cost : callable, default ``x * y``
        Called with two integer NumPy arrays ``(x, y)`` of part sizes and
        returning one non-negative cost per pair (scalar functions of two ints
        also work, more slowly).

    Returns
    -------
    float
        The total cost. With the defaults it is the number of pairwise errors
        (false-positive plus false-negative pairs); with unit costs it is
        :func:`bmd`; with :func:`vi_costs` it is the variation of information.
    """
    for nm, fn in (("split_cost", split_cost), ("merge_cost", merge_cost)):
        if not callable(fn):
            raise InputTypeError(f"'{nm}' must be callable f(x, y); received {type(fn).__name__}")
    ext = table.extended_with_singletons()
    pieces = pair_count(ext.counts)
    # split each predicted cluster into its pieces (cells grouped by column)
    if split_cost is pairwise_cost:  # closed form: pairs broken = sum_j C(b_j, 2) - sum C(n_ij, 2)
        total = float(pair_count(ext.pred_sizes) - pieces)
    else:
        order = np.argsort(ext.cols, kind="stable")
        x, y = _sequential(ext.cols[order], ext.counts[order])
        total = _apply(split_cost, x, y, "split_cost")
    # merge the pieces of each true cluster (cells are sorted by row)
    if merge_cost is pairwise_cost:
        total += float(pair_count(ext.true_sizes) - pieces)
    else:
        x, y = _sequential(ext.rows, ext.counts)
        total += _apply(merge_cost, x, y, "merge_cost")
    return total
