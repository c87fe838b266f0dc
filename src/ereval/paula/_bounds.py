"""PAULA's bounds on the precision function (Sabharwal & Sedghi 2017, Algorithm 2)."""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError, InputTypeError
from .._validation import as_1d_array, check_choice, check_real, describe, examples
from ..results import Estimate, EstimateCurve, EstimateSeries, FrameRepr, json_ready
from ._diagnostics import MonotonicityReport, MonotonicityWarning, diagnose
from ._labels import PlanLabels, align_labels
from ._plan import PaulaPlan

__all__ = ["PaulaBounds", "paula_bounds"]

OnViolation = Literal["warn", "raise", "ignore"]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class PaulaBounds(FrameRepr):
    r"""Bounds on the precision function of a ranked list, from PAULA's annotations.

    Build it with :func:`paula_bounds`. Two pairs of bounds are offered:

    * :meth:`lower` / :meth:`upper`, the *envelope*: bounds on :math:`p(r)` at every
      rank :math:`r`, valid whenever assumption A.2 holds. At the points
      :math:`g_k` they are Algorithm 2's :math:`q^\pm(g_k) = Y_\pm^k / g_k`;
      between points they combine the yield bounds of the neighbouring points
      with the facts that the yield never decreases, grows by at most one per
      rank and, by A.2, by at most the local precision :math:`p_\Delta(a)` per rank
      after a point :math:`a \le r - m`.
    * :meth:`step_lower` / :meth:`step_upper`: the paper's output
      :math:`step^{q^-}_{\epsilon,\ell}`, :math:`step^{q^+}_{\epsilon,\ell}`
      (Definition 5), each a pointwise :math:`\gamma(1+\epsilon)`-approximation of
      :math:`p` (Theorem 3), but constant between points, so :math:`p` may leave
      them there.

    Ranks :math:`r \le g_\ell` are annotated, so every bound equals :math:`p(r)`.

    Attributes
    ----------
    plan : PaulaPlan
    grid : numpy.ndarray
        The points :math:`g_\ell, \dots, g_L`.
    window_positives : numpy.ndarray
        Positives among the :math:`\Delta` ranks ending at each point,
        :math:`\Delta\, p_\Delta(g_k)`.
    yield_lower_grid, yield_upper_grid : numpy.ndarray
        :math:`Y_-^k` and :math:`Y_+^k` (Definition 6) at each point.
    diagnostic : MonotonicityReport
        What the annotations reveal about assumptions A.1/A.2.
    """

    plan: PaulaPlan
    grid: IntArray = field(repr=False)
    window_positives: IntArray = field(repr=False)
    yield_lower_grid: FloatArray = field(repr=False)
    yield_upper_grid: FloatArray = field(repr=False)
    diagnostic: MonotonicityReport
    known_positives: int
    _prefix_yield: IntArray = field(repr=False)
    _anchor_rank: IntArray = field(repr=False)
    _anchor_lo: FloatArray = field(repr=False)
    _anchor_hi: FloatArray = field(repr=False)
    _anchor_pdelta: FloatArray = field(repr=False)

    # ------------------------------------------------------------------ helpers
    def _rank(self, k: Any) -> IntArray:
        """One rank ``k`` as a one-element array (rejecting sequences and non-integers)."""
        if isinstance(k, bool) or not isinstance(k, numbers.Integral):
            raise InputTypeError(f"'k' must be an integer rank; received {describe(k)}")
        return self._ranks(k, "k")

    def _ranks(self, ranks: Any, name: str = "ranks") -> IntArray:
        if isinstance(ranks, numbers.Integral) and not isinstance(ranks, bool):
            arr = np.asarray([int(ranks)], dtype=np.int64)
        else:
            raw = as_1d_array(name, ranks)
            if raw.dtype.kind not in "iu":
                raise InputTypeError(
                    f"'{name}' must hold integer ranks; received dtype {raw.dtype}"
                )
            arr = raw.astype(np.int64)
        bad = arr[(arr < 1) | (arr > self.plan.n)]
        if bad.size:
            raise InputError(
                f"'{name}' must lie in 1..{self.plan.n}; received {bad.size} rank(s) "
                f"outside it (e.g. {examples(bad)})"
            )
        return arr

    def _yield_envelope(self, r: IntArray) -> tuple[FloatArray, FloatArray]:
        p_end = self.plan.prefix_end
        lo = np.empty(r.size, dtype=np.float64)
        hi = np.empty(r.size, dtype=np.float64)
        exact = r <= p_end
        lo[exact] = hi[exact] = self._prefix_yield[r[exact]]
        rest = ~exact
        if not rest.any():
            return lo, hi
        x = r[rest]
        xf = x.astype(np.float64)
        a, ylo, yhi, pd_ = self._anchor_rank, self._anchor_lo, self._anchor_hi, self._anchor_pdelta
        n_a = a.size
        m = self.plan.m
        i0 = np.searchsorted(a, x, side="right") - 1  # last anchor <= r (>= g_ell)
        j0 = np.searchsorted(a, x, side="left")  # first anchor >= r
        i1 = np.searchsorted(a, x - m, side="right") - 1  # last anchor <= r - m
        has_j0, has_i1 = j0 < n_a, i1 >= 0
        j0c, i1c = np.minimum(j0, n_a - 1), np.maximum(i1, 0)

        # Upper bounds on the yield Y(r): at most one positive per rank after the
        # anchor before r; Y non-decreasing up to the anchor after r; and, by A.2 on
        # (a, r] with a <= r - m, at most p_delta(a) positives per rank after a.
        up = np.minimum(xf, yhi[i0] + (xf - a[i0]))
        up = np.where(has_j0, np.minimum(up, yhi[j0c]), up)
        up = np.where(has_i1, np.minimum(up, yhi[i1c] + (xf - a[i1c]) * pd_[i1c]), up)
        # Lower bounds: Y non-decreasing from the anchor before r; at most one
        # positive per rank between r and the anchor after it.
        low = ylo[i0].astype(np.float64)
        low = np.where(has_j0, np.maximum(low, ylo[j0c] - (a[j0c] - xf)), low)
        lo[rest] = np.maximum(low, 0.0)
        hi[rest] = up
        return lo, hi

    def _step(self, r: IntArray, grid_yield: FloatArray) -> FloatArray:
        out = np.empty(r.size, dtype=np.float64)
        exact = r <= self.plan.prefix_end
        out[exact] = self._prefix_yield[r[exact]] / r[exact]
        rest = ~exact
        if rest.any():
            k = np.searchsorted(self.grid, r[rest], side="right") - 1
            out[rest] = grid_yield[k] / self.grid[k]
        return out

    # ------------------------------------------------------------------ bounds
    def yield_lower(self, ranks: Any) -> FloatArray:
        """Lower bounds on the yield :math:`r\\,p(r)` (number of positives in the top r)."""
        r = self._ranks(ranks)
        return self._yield_envelope(r)[0]

    def yield_upper(self, ranks: Any) -> FloatArray:
        """Upper bounds on the yield :math:`r\\,p(r)`."""
        r = self._ranks(ranks)
        return self._yield_envelope(r)[1]

    def lower(self, ranks: Any) -> FloatArray:
        r"""Lower bounds on :math:`p(r)`, valid at every rank under A.2.

        For :math:`g_k \le r < g_{k+1}` (:math:`g_{L+1} = \infty`):

        .. math:: \max\bigl(Y_-^k,\; Y_-^{k+1} - (g_{k+1} - r)\bigr) / r

        (the yield never decreases, and grows by at most one per rank). It is
        :math:`q^-(g_k)` at the points and within a factor :math:`1+\epsilon` of it
        in between (the argument of Theorem 1).
        """
        r = self._ranks(ranks)
        return self._yield_envelope(r)[0] / r

    def upper(self, ranks: Any) -> FloatArray:
        r"""Upper bounds on :math:`p(r)`, valid at every rank under A.2.

        For :math:`g_k \le r < g_{k+1}` (:math:`g_{L+1} = \infty`):

        .. math:: \min\bigl(r,\; Y_+^k + (r - g_k),\; Y_+^{k+1},\;
                  Y_+(a) + (r - a)\,p_\Delta(a)\bigr) / r

        where :math:`a` is the last point (or annotated prefix rank
        :math:`\ge \tilde r`) with :math:`a \le r - m`: by A.2 the interval
        :math:`(a, r]` holds at most a :math:`p_\Delta(a)` share of positives. It is
        :math:`q^+(g_k)` at the points. Under A.2 and :math:`p(g_\ell) \ge
        p_\Delta(g_\ell)`, its ratio to :meth:`lower` is at most :math:`\gamma` at the
        points (Lemma 4) and below :math:`\gamma + \epsilon \le \gamma(1+\epsilon)`
        at every rank :math:`r \ge g_\ell + m`; just after :math:`g_\ell` it is below
        :math:`1 + m / Y(g_\ell)`.
        """
        r = self._ranks(ranks)
        return self._yield_envelope(r)[1] / r

    def step_lower(self, ranks: Any) -> FloatArray:
        r""":math:`step^{q^-}_{\epsilon,\ell}(r)`: :math:`p(r)` for :math:`r \le g_\ell`,
        else :math:`q^-(g_j) = Y_-^j / g_j` for the largest :math:`g_j \le r`
        (Definition 5, Algorithm 2)."""
        return self._step(self._ranks(ranks), self.yield_lower_grid)

    def step_upper(self, ranks: Any) -> FloatArray:
        r""":math:`step^{q^+}_{\epsilon,\ell}(r)`, as :meth:`step_lower` with :math:`Y_+`."""
        return self._step(self._ranks(ranks), self.yield_upper_grid)

    # ------------------------------------------------------------------ read-offs
    def _bound(self, lower: float, upper: float, k: int, name: str) -> Estimate:
        """PAULA's bounds at rank ``k`` as an :class:`ereval.Estimate` (see :meth:`precision_at`)."""
        report = self.diagnostic
        notes: tuple[str, ...] = ()
        if report.unreliable_from is not None and k >= report.unreliable_from:
            notes = (
                f"the bounds on {name} are not guaranteed: the annotations contradict PAULA's "
                f"monotonicity assumption from rank {report.unreliable_from} on "
                f"({report.summary()}); check the ranking there, or annotate more of it",
            )
        exact = lower == upper
        return Estimate(
            value=lower if exact else math.nan,
            std=0.0 if exact else math.nan,
            interval=(lower, upper),
            level=1.0,
            n=self.plan.annotations,
            method="paula",
            warnings=notes,
        )

    def precision_at(self, k: int) -> Estimate:
        """Bounds on Prec@k, the precision of the top ``k`` items.

        Returns
        -------
        ereval.Estimate
            ``interval`` holds the bounds; ``level`` is 1 (they hold with
            certainty under assumption A.2); ``n`` the annotations. PAULA bounds
            without estimating, so ``value`` and ``std`` are NaN — except where
            the bounds meet (``k`` in the annotated prefix), where ``value`` is
            the exact precision and ``std`` 0. ``warnings`` says when the
            annotations contradict the assumption at or before ``k``.
        """
        r = self._rank(k)
        lo, hi = self._yield_envelope(r)
        return self._bound(float(lo[0] / r[0]), float(hi[0] / r[0]), int(k), f"Prec@{k}")

    def yield_at(self, k: int) -> Estimate:
        """Bounds on the number of positives among the top ``k`` items (as :meth:`precision_at`)."""
        r = self._rank(k)
        lo, hi = self._yield_envelope(r)
        return self._bound(float(lo[0]), float(hi[0]), int(k), f"the yield at {k}")

    def recall_at(self, k: int, *, n_positives: Any) -> Estimate:
        """Bounds on the recall of the top ``k`` items, ``yield / n_positives`` (as
        :meth:`precision_at`)."""
        r = self._rank(k)
        low, high = self._n_positives(n_positives)
        lo, hi = self._yield_envelope(r)
        return self._bound(
            float(min(lo[0] / high, 1.0)), float(min(hi[0] / low, 1.0)), int(k), f"recall@{k}"
        )

    def f1_at(self, k: int, *, n_positives: Any) -> Estimate:
        """Bounds on F1 of the top ``k`` items, ``2 yield / (k + n_positives)`` (as
        :meth:`precision_at`; :mod:`ereval.paula._measures`)."""
        from ._measures import f1_at

        return f1_at(self, k, n_positives=n_positives)

    def gain_at(self, k: int) -> Estimate:
        """Bounds on Gain@k, the discounted cumulative gain ``sum_{i<=k} v_i / log2(i+1)`` (as
        :meth:`precision_at`; :mod:`ereval.paula._measures`)."""
        from ._measures import gain_at

        return gain_at(self, k)

    def average_precision(self, *, n_positives: Any = None) -> Estimate:
        """Bounds on the average precision of the whole list (as :meth:`precision_at`;
        :mod:`ereval.paula._measures`); ``n_positives`` defaults to the list's positives."""
        from ._measures import average_precision

        return average_precision(self, n_positives=n_positives)

    def measure_at(
        self, measure: str, k: int | None = None, *, n_positives: Any = None
    ) -> Estimate:
        """Bounds on ``"precision"``, ``"recall"``, ``"f1"``, ``"gain"`` at ``k`` (default
        ``n``) or ``"average_precision"`` (:func:`ereval.paula._measures.measure_at`)."""
        from ._measures import measure_at

        return measure_at(self, measure, k, n_positives=n_positives)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ curves
    def default_ranks(self, *, points_per_step: int = 4) -> IntArray:
        """Ranks at which to draw the curves: every prefix rank, each point
        :math:`g_k`, the envelope's break points ``g_k + m``, ``g_{k+1} - m`` and
        ``points_per_step`` evenly spaced ranks in each step, and ``n``."""
        p_end, n, m = self.plan.prefix_end, self.plan.n, self.plan.m
        parts = [np.arange(1, p_end + 1, dtype=np.int64), self.grid, np.asarray([n])]
        if self.grid.size and n > p_end:
            left = self.grid
            right = np.append(self.grid[1:], n)
            parts += [left + m - 1, left + m, right - m, right - m + 1, right - 1]
            for i in range(1, points_per_step + 1):
                parts.append(left + (right - left) * i // (points_per_step + 1))
        out = np.unique(np.concatenate(parts))
        return out[(out >= 1) & (out <= n)]

    def table_ranks(self) -> IntArray:
        r"""The geometric points :math:`\lceil(1+\epsilon)^j\rceil \le n` for
        :math:`j = 0, \dots, L`, plus ``n``: a log-spaced table of the whole list."""
        plan = self.plan
        pts = plan.geometric_points(0, plan.L)
        out = np.unique(np.concatenate([pts, np.asarray([plan.n])]))
        return out[(out >= 1) & (out <= plan.n)]

    def curve(self, ranks: Any = None, *, n_positives: Any = None) -> EstimateCurve:
        """Bounds on the precision-yield curve and, given ``n_positives``, the PR curve.

        The precision-yield curve is precision against yield ``r * p(r)``; the PR
        curve is precision against recall ``r * p(r) / n_positives``. Each is bounded
        by the curve of the lower bounds and the curve of the upper bounds.

        Parameters
        ----------
        ranks : array-like of int, optional
            Where to evaluate; :meth:`default_ranks` by default.
        n_positives : int, float or (low, high), optional
            The number of positive items in the universe (the recall denominator),
            known exactly or as an interval estimate. Recall bounds are
            ``yield_lower / high`` and ``min(1, yield_upper / low)``.

        Returns
        -------
        ereval.results.EstimateCurve
            On the axis ``"rank"``, the quantities ``precision``, ``yield`` and (given
            ``n_positives``) ``recall``, each as bounds that hold with certainty under
            PAULA's assumption (level 1; the value only where the bounds meet; ``n``:
            the annotated items); ``details``: ``n_positives`` as ``[low, high]`` or
            None.
        """
        r = self.default_ranks() if ranks is None else self._ranks(ranks)
        lo, hi = self._yield_envelope(r)
        rf = r.astype(np.float64)
        n = self.plan.annotations
        series = {
            "precision": EstimateSeries.bounds(lo / rf, hi / rf, n=n),
            "yield": EstimateSeries.bounds(lo, hi, n=n),
        }
        npos: tuple[float, float] | None = None
        if n_positives is not None:
            npos = self._n_positives(n_positives)
            series["recall"] = EstimateSeries.bounds(
                np.minimum(lo / npos[1], 1.0), np.minimum(hi / npos[0], 1.0), n=n
            )
        details = {"n_positives": None if npos is None else list(npos)}
        return EstimateCurve("rank", r, series, 1.0, "paula", details)

    def _n_positives(self, value: Any) -> tuple[float, float]:
        if isinstance(value, tuple | list):
            if len(value) != 2:
                raise InputError(
                    f"'n_positives' must be a number or a (low, high) pair; received {describe(value)}"
                )
            low = check_real("n_positives", value[0])
            high = check_real("n_positives", value[1])
            if low > high:
                raise InputError(
                    f"'n_positives' must be a (low, high) pair with low <= high; received {value!r}"
                )
        else:
            low = high = check_real("n_positives", value)
        if low <= 0:
            raise InputError(f"'n_positives' must be positive; received {low!r}")
        if high < self.known_positives:
            raise InputError(
                f"'n_positives' must be at least the {self.known_positives} positives already "
                f"seen among the annotated items; received {high!r}"
            )
        return low, high

    def table(self, ranks: Any = None, *, n_positives: Any = None) -> pd.DataFrame:
        """All bounds at ``ranks`` (default :meth:`table_ranks`) as a DataFrame.

        Columns: ``rank``, ``exact`` (rank in the annotated prefix),
        ``precision_lower``, ``precision_upper`` (the envelope), ``step_lower``,
        ``step_upper`` (Definition 5), ``yield_lower``, ``yield_upper`` and, given
        ``n_positives``, ``recall_lower``, ``recall_upper``.
        """
        r = self.table_ranks() if ranks is None else self._ranks(ranks)
        curve = self.curve(r, n_positives=n_positives)
        cols: dict[str, Any] = {
            "rank": r,
            "exact": r <= self.plan.prefix_end,
            "precision_lower": curve["precision"].lower,
            "precision_upper": curve["precision"].upper,
            "step_lower": self._step(r, self.yield_lower_grid),
            "step_upper": self._step(r, self.yield_upper_grid),
            "yield_lower": curve["yield"].lower,
            "yield_upper": curve["yield"].upper,
        }
        if "recall" in curve.series:
            cols["recall_lower"] = curve["recall"].lower
            cols["recall_upper"] = curve["recall"].upper
        return pd.DataFrame(cols)

    def to_frame(self) -> pd.DataFrame:
        """One row per rank of :meth:`table_ranks`: :meth:`table`."""
        return self.table()

    def to_dict(self) -> dict[str, Any]:
        """``plan`` (:meth:`PaulaPlan.to_dict` without its ranges), ``known_positives``,
        ``monotonicity`` (:meth:`MonotonicityReport.to_dict`) and ``table`` (one dict per
        row of :meth:`table`), in plain JSON types (NaN as ``None``)."""
        out: dict[str, Any] = json_ready(
            {
                "plan": self.plan.to_dict(include_ranges=False),
                "known_positives": self.known_positives,
                "monotonicity": self.diagnostic.to_dict(),
                "table": self.table().to_dict(orient="records"),
            }
        )
        return out


def paula_bounds(
    plan: PaulaPlan,
    ranks: Any,
    labels: Any,
    *,
    on_violation: OnViolation = "warn",
    tolerance: float = 0.0,
) -> PaulaBounds:
    r"""Bound the precision function from the labels of a PAULA plan (Algorithm 2).

    With the prefix :math:`1..g_\ell` and the windows before each :math:`g_k`
    labelled, Algorithm 2 computes the yield bounds of Definition 6,

    .. math::

        Y_-^{\ell} = Y_+^{\ell} = g_\ell\, p(g_\ell), \qquad
        Y_-^{k+1} = Y_-^k + (g_{k+1} - g_k)\, p_\Delta(g_{k+1}), \qquad
        Y_+^{k+1} = Y_+^k + (g_{k+1} - g_k)\, p_\Delta(g_k),

    and :math:`q^\pm(g_k) = Y_\pm^k / g_k`. Under A.2,
    :math:`Y_-^k \le g_k p(g_k) \le Y_+^k` (Lemma 3); if moreover
    :math:`p(g_\ell) \ge p_\Delta(g_\ell)`, :math:`\gamma Y_-^k \ge Y_+^k` (Lemma 4).
    The result offers these bounds at every rank (see :class:`PaulaBounds`). Sums
    are kept in exact integers (:math:`\Delta Y_\pm`) until the final division.

    Parameters
    ----------
    plan : PaulaPlan
        The plan whose ranks were labelled (:func:`paula_plan`).
    ranks : array-like of int
        The labelled ranks (1-based), exactly ``plan.ranks()`` in any order.
    labels : array-like of {0, 1} or bool
        The true label of each rank.
    on_violation : {"warn", "raise", "ignore"}, default "warn"
        What to do when the labels contradict the monotonicity assumptions (see
        :func:`check_monotonicity`): emit a :class:`MonotonicityWarning`, raise
        :class:`~ereval.InputError`, or only record it in ``diagnostic``.
    tolerance : float, default 0.0
        Rises of (local) precision up to this size are not counted as violations
        (see :func:`check_monotonicity`). The bounds themselves do not change.

    Returns
    -------
    PaulaBounds

    Raises
    ------
    InputError
        Labels for ranks outside the plan, planned ranks without a label, duplicate
        ranks, labels other than 0/1.

    References
    ----------
    Sabharwal and Sedghi (2017), Algorithm 2, Definitions 5-6, Lemmas 3-4, Theorem 3.

    Examples
    --------
    >>> import numpy as np
    >>> from ereval.paula import paula_bounds, paula_plan
    >>> plan = paula_plan(10_000, epsilon=0.1, delta=10)
    >>> plan.annotations
    580
    >>> truth = (np.arange(10_000) < 7_000).astype(int)  # the first 7,000 are correct
    >>> bounds = paula_bounds(plan, plan.ranks(), plan.select(truth))
    >>> iv = bounds.precision_at(10_000)  # the true Prec@10000 is 0.7
    >>> round(iv.lower, 4), round(iv.upper, 4), iv.level, iv.n
    (0.6429, 0.7072, 1.0, 580)
    """
    on_violation = check_choice("on_violation", on_violation, ("warn", "raise", "ignore"))
    lab = align_labels(plan, ranks, labels)
    report = diagnose(plan, lab, tolerance=tolerance)
    if not report.holds:
        if on_violation == "raise":
            raise InputError(f"the labels contradict PAULA's assumptions: {report.summary()}")
        if on_violation == "warn":
            warnings.warn(report.summary(), MonotonicityWarning, stacklevel=2)
    return _build(plan, lab, report)


def _build(plan: PaulaPlan, lab: PlanLabels, report: MonotonicityReport) -> PaulaBounds:
    delta, p_end = plan.delta, plan.prefix_end
    cum = np.concatenate([[0], np.cumsum(lab.prefix, dtype=np.int64)])
    win = lab.windows.sum(axis=1, dtype=np.int64)
    known = int(cum[p_end] + win.sum())
    if plan.exhaustive:
        empty_f = np.empty(0, dtype=np.float64)
        empty_i = np.empty(0, dtype=np.int64)
        return PaulaBounds(
            plan=plan,
            grid=empty_i,
            window_positives=empty_i,
            yield_lower_grid=empty_f,
            yield_upper_grid=empty_f,
            diagnostic=report,
            known_positives=known,
            _prefix_yield=cum,
            _anchor_rank=empty_i,
            _anchor_lo=empty_f,
            _anchor_hi=empty_f,
            _anchor_pdelta=empty_f,
        )
    grid = plan.grid
    s = np.concatenate([[cum[p_end] - cum[p_end - delta]], win]).astype(np.int64)
    gaps = np.diff(grid)
    exact_dtype: Any = np.int64 if delta * plan.n < 2**62 else object
    base = delta * int(cum[p_end])
    num_lo = base + np.concatenate([[0], np.cumsum(gaps.astype(exact_dtype) * s[1:])])
    num_hi = base + np.concatenate([[0], np.cumsum(gaps.astype(exact_dtype) * s[:-1])])
    y_lo = num_lo.astype(np.float64) / delta
    y_hi = num_hi.astype(np.float64) / delta

    pre = np.arange(plan.r_tilde, p_end + 1, dtype=np.int64)
    anchor_rank = np.concatenate([pre, grid[1:]])
    pre_y = cum[pre].astype(np.float64)
    anchor_lo = np.concatenate([pre_y, y_lo[1:]])
    anchor_hi = np.concatenate([pre_y, y_hi[1:]])
    anchor_pd = np.concatenate([(cum[pre] - cum[pre - delta]) / delta, s[1:] / delta])
    return PaulaBounds(
        plan=plan,
        grid=grid,
        window_positives=s,
        yield_lower_grid=y_lo,
        yield_upper_grid=y_hi,
        diagnostic=report,
        known_positives=known,
        _prefix_yield=cum,
        _anchor_rank=anchor_rank,
        _anchor_lo=anchor_lo,
        _anchor_hi=anchor_hi,
        _anchor_pdelta=anchor_pd.astype(np.float64),
    )
