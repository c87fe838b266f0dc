r"""Bounds on measures beyond precision, carried from PAULA's bounds on the yield.

Sabharwal and Sedghi (2017, §2) note that recall, F1, Gain@k and average
precision are functions of the precision function :math:`p(r)`, :math:`r`,
:math:`|U_+|` and :math:`N`. PAULA bounds the yield :math:`Y(r) = r\,p(r)` at
every rank, :math:`Y_-(r) \le Y(r) \le Y_+(r)`, with certainty under the
monotonicity assumption A.2 (Lemma 3; :class:`ereval.paula.PaulaBounds`). Each
measure below is monotone in the yields (or in the ranks of the positives), so
the same bounds carry through with the same guarantee: level 1 under A.2.
:math:`N_+ = |U_+|` may be known exactly or as an interval
:math:`[N_+^{lo}, N_+^{hi}]`.

Recall at :math:`k`
    :math:`Y(k) / N_+` grows with :math:`Y(k)` and falls with :math:`N_+`:
    :math:`[Y_-(k) / N_+^{hi},\ \min(1, Y_+(k) / N_+^{lo})]`.
F1 at :math:`k`
    :math:`F_1 = 2PR/(P+R) = 2 Y(k) / (k + N_+)`, likewise:
    :math:`[2 Y_-(k) / (k + N_+^{hi}),\ \min(1, 2 Y_+(k) / (k + N_+^{lo}))]`.
Gain at :math:`k`
    The discounted cumulative gain with binary gains (Järvelin and Kekäläinen
    2002), :math:`DCG@k = \sum_{i \le k} v_i / \log_2(i + 1) = \sum_{j \le Y(k)}
    w(r_j)`, with :math:`r_j` the rank of the :math:`j`-th positive and
    :math:`w(i) = 1/\log_2(i+1)` decreasing. As :math:`Y` never decreases,
    :math:`Y(i) \ge L(i) = \max_{i' \le i} \lceil Y_-(i') \rceil` and
    :math:`Y(i) \le M(i) = \max_{i' \le i} \lfloor Y_+(i') \rfloor` (at the
    rank of a maximum, :math:`Y(i) \ge Y(i')` and :math:`Y` is a whole number):
    both are non-decreasing integer sequences with
    :math:`r_j \le r^+_j = \min\{i : L(i) \ge j\}` and
    :math:`r_j \ge r^-_j = \min\{i : M(i) \ge j\}` (at :math:`r_j`,
    :math:`M(r_j) \ge Y(r_j) = j`). Hence
    :math:`\sum_{j \le L(k)} w(r^+_j) \le DCG@k \le \sum_{j \le M(k)} w(r^-_j)`
    (fewer terms and later ranks can only lower the sum). The undiscounted
    cumulative gain :math:`CG@k` is the yield (:meth:`PaulaBounds.yield_at`).
Average precision
    :math:`AP = \frac{1}{N_+} \sum_{j \le Y(N)} p(r_j) = \frac{1}{N_+}
    \sum_{j \le Y(N)} j / r_j` (Davis and Goadrich 2006; positives the list
    never retrieves add 0). Each term falls with :math:`r_j`, so by the same
    argument :math:`S_- = \sum_{j \le L(N)} j / r^+_j \le N_+ AP \le S_+ =
    \sum_{j \le M(N)} j / r^-_j` and :math:`AP \in [S_- / N_+^{hi},\ \min(1,
    S_+ / N_+^{lo})]`. Without :math:`N_+`, AP is taken over the positives of
    the list, :math:`N_+ = Y(N) \in [L(N), M(N)]`.

The sums over :math:`j` are computed rank by rank: the positives
:math:`j \in (M(i-1), M(i)]` all have :math:`r^-_j = i`. Gain@k and AP need
the bounds at every rank up to :math:`k` (:math:`N` for AP): :math:`O(k)` time,
done in blocks of :data:`BLOCK` ranks.

References: A. Sabharwal and H. Sedghi (2017), UAI, §2 and Lemma 3;
K. Järvelin and J. Kekäläinen (2002), ACM TOIS 20(4), 422-446;
J. Davis and M. Goadrich (2006), ICML.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from .._errors import InputError
from .._validation import check_choice
from ..results import Estimate

if TYPE_CHECKING:
    from ._bounds import PaulaBounds

__all__ = [
    "BLOCK",
    "MEASURES",
    "Measure",
    "average_precision",
    "f1_at",
    "gain_at",
    "measure_at",
]

FloatArray = npt.NDArray[np.float64]
Measure = Literal["precision", "recall", "f1", "gain", "average_precision"]
MEASURES: tuple[Measure, ...] = ("precision", "recall", "f1", "gain", "average_precision")

#: Ranks evaluated at once by the rank-by-rank sums.
BLOCK = 1 << 18


def f1_at(bounds: PaulaBounds, k: int, *, n_positives: Any) -> Estimate:
    """Bounds on F1 of the top ``k`` items, ``2 Y(k) / (k + N_+)`` (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from ereval.paula import paula_bounds, paula_plan
    >>> plan = paula_plan(200, epsilon=0.5, delta=4)
    >>> b = paula_bounds(plan, plan.ranks(), plan.select(np.ones(200, dtype=int)))
    >>> e = f1_at(b, 200, n_positives=200)
    >>> e.lower <= 1.0 == e.upper
    True
    """
    r = bounds._rank(k)
    low, high = bounds._n_positives(n_positives)
    lo, hi = bounds._yield_envelope(r)
    kf = float(r[0])
    return bounds._bound(
        2.0 * float(lo[0]) / (kf + high),
        min(1.0, 2.0 * float(hi[0]) / (kf + low)),
        int(k),
        f"F1@{k}",
    )


def _positive_ranks_sum(
    bounds: PaulaBounds, k: int, term: Callable[[FloatArray, FloatArray, FloatArray], FloatArray]
) -> tuple[float, float, int, int]:
    """``sum_j term(j, r_j)`` over the positives, bounded with ``r^+`` (lower) and ``r^-`` (upper).

    ``term(first, last, rank)`` returns the sum of the terms of the positives
    ``j = first..last`` whose rank is ``rank`` (0 where ``last < first``); the
    terms must fall with the rank. Returns the lower sum, the upper sum and
    ``L(k)``, ``M(k)``.
    """
    low_sum = high_sum = 0.0
    l_prev = m_prev = 0.0
    for start in range(1, k + 1, BLOCK):
        r = np.arange(start, min(k, start + BLOCK - 1) + 1, dtype=np.int64)
        y_lo, y_hi = bounds._yield_envelope(r)
        # the yield is a whole number that never decreases
        lo_run = np.maximum.accumulate(np.maximum(np.ceil(y_lo - 1e-9), l_prev))
        hi_run = np.maximum.accumulate(np.maximum(np.floor(y_hi + 1e-9), m_prev))
        rf = r.astype(np.float64)
        prev_lo = np.concatenate([[l_prev], lo_run[:-1]])
        prev_hi = np.concatenate([[m_prev], hi_run[:-1]])
        low_sum += float(term(prev_lo + 1, lo_run, rf).sum())
        high_sum += float(term(prev_hi + 1, hi_run, rf).sum())
        l_prev, m_prev = float(lo_run[-1]), float(hi_run[-1])
    return low_sum, high_sum, int(l_prev), int(m_prev)


def _dcg_terms(first: FloatArray, last: FloatArray, rank: FloatArray) -> FloatArray:
    out: FloatArray = np.maximum(last - first + 1, 0.0) / np.log2(rank + 1.0)
    return out


def _ap_terms(first: FloatArray, last: FloatArray, rank: FloatArray) -> FloatArray:
    count = np.maximum(last - first + 1, 0.0)
    out: FloatArray = count * (first + last) / 2.0 / rank
    return out


def gain_at(bounds: PaulaBounds, k: int) -> Estimate:
    """Bounds on the discounted cumulative gain ``DCG@k = sum_{i<=k} v_i / log2(i+1)``.

    See the module docstring for the argument; ``O(k)`` time.

    Examples
    --------
    >>> import numpy as np
    >>> from ereval.paula import paula_bounds, paula_plan
    >>> plan = paula_plan(50, epsilon=0.5, delta=4)
    >>> truth = np.ones(50, dtype=int)
    >>> e = gain_at(paula_bounds(plan, plan.ranks(), plan.select(truth)), 3)
    >>> round(e.value, 6)  # 1/log2(2) + 1/log2(3) + 1/log2(4), the top ranks are labelled
    2.13093
    """
    r = bounds._rank(k)
    lo, hi, _, _ = _positive_ranks_sum(bounds, int(r[0]), _dcg_terms)
    if math.isclose(lo, hi, rel_tol=1e-12, abs_tol=1e-12):
        hi = lo
    return bounds._bound(lo, hi, int(k), f"Gain@{k}")


def average_precision(bounds: PaulaBounds, *, n_positives: Any = None) -> Estimate:
    """Bounds on the average precision of the whole list, ``(1/N_+) sum_j j / r_j``.

    ``n_positives`` (a number or a ``(low, high)`` pair) is :math:`N_+`; by
    default the positives of the list, ``Y(N)``, bounded by the yield bounds
    at ``N``. See the module docstring; ``O(N)`` time.

    Examples
    --------
    >>> import numpy as np
    >>> from ereval.paula import paula_bounds, paula_plan
    >>> plan = paula_plan(40, epsilon=0.5, delta=4)
    >>> truth = np.ones(40, dtype=int)
    >>> average_precision(paula_bounds(plan, plan.ranks(), plan.select(truth))).interval
    (0.975, 1.0)
    """
    n = bounds.plan.n
    lo, hi, l_n, m_n = _positive_ranks_sum(bounds, n, _ap_terms)
    if n_positives is None:
        low, high = float(max(l_n, 1)), float(max(m_n, 1))
    else:
        low, high = bounds._n_positives(n_positives)
    lower = lo / high
    upper = min(1.0, hi / low)
    if math.isclose(lower, upper, rel_tol=1e-12, abs_tol=1e-12):
        upper = lower
    return bounds._bound(lower, upper, n, "average precision")


def measure_at(
    bounds: PaulaBounds, measure: Measure, k: int | None = None, *, n_positives: Any = None
) -> Estimate:
    """Bounds on one measure: ``"precision"``, ``"recall"`` and ``"f1"`` at ``k`` (the
    latter two need ``n_positives``), ``"gain"`` (DCG) at ``k``, or
    ``"average_precision"`` of the whole list (``k`` must then be unset)."""
    measure = check_choice("measure", measure, MEASURES)
    if measure == "average_precision":
        if k is not None:
            raise InputError(
                "'k' does not apply to measure 'average_precision', a measure of the whole list"
            )
        return average_precision(bounds, n_positives=n_positives)
    rank = bounds.plan.n if k is None else k
    if measure in ("recall", "f1") and n_positives is None:
        raise InputError(f"measure '{measure}' needs 'n_positives' (the recall denominator)")
    if measure == "precision":
        return bounds.precision_at(rank)
    if measure == "recall":
        return bounds.recall_at(rank, n_positives=n_positives)
    if measure == "f1":
        return f1_at(bounds, rank, n_positives=n_positives)
    return gain_at(bounds, rank)
