"""Check annotations against the monotonicity assumptions A.1 and A.2 of PAULA."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from .._validation import check_in_range

if TYPE_CHECKING:
    import pandas as pd

from ..results import FrameRepr, json_ready
from ._labels import PlanLabels, align_labels
from ._plan import PaulaPlan

__all__ = ["MonotonicityReport", "MonotonicityWarning", "Violation", "check_monotonicity"]

Assumption = Literal["A.1", "A.2"]
Quantity = Literal["local_precision", "precision"]


class MonotonicityWarning(UserWarning):
    """The annotations contradict (Delta, m)-monotonicity: PAULA's guarantee may fail."""


@dataclass(frozen=True)
class Violation:
    r"""One contradiction of an assumption, observed on two ranks ``a < b`` with ``b - a >= m``.

    Attributes
    ----------
    assumption : {"A.1", "A.2"}
        The assumption contradicted.
    quantity : {"local_precision", "precision"}
        What was compared: the local precisions :math:`p_\Delta(a) < p_\Delta(b)`
        (A.2), or the precisions :math:`p(a) < p(b)` (A.1, using bounds on them that
        need no assumption).
    earlier_rank, later_rank : int
        The ranks ``a`` and ``b``.
    earlier_value, later_value : float
        The two compared values; an assumption requires
        ``earlier_value >= later_value``.
    """

    assumption: Assumption
    quantity: Quantity
    earlier_rank: int
    later_rank: int
    earlier_value: float
    later_value: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "earlier_value", float(self.earlier_value))
        object.__setattr__(self, "later_value", float(self.later_value))

    def describe(self) -> str:
        """One line in words."""
        what = "local precision p_delta" if self.quantity == "local_precision" else "precision"
        return (
            f"{self.assumption}: {what} rises from {self.earlier_value:.4g} at rank "
            f"{self.earlier_rank} to {self.later_value:.4g} at rank {self.later_rank}"
        )


@dataclass(frozen=True)
class MonotonicityReport(FrameRepr):
    r"""What the annotations reveal about assumptions A.1/A.2 (§4.2).

    Attributes
    ----------
    violations : tuple of Violation
        The contradictions found, at most one per later rank and kind of comparison,
        in rank order. Empty
        means the annotations are consistent with the assumptions (they can never
        prove them: most of the list is unlabelled).
    unreliable_from : int or None
        The smallest rank from which the bounds may be wrong because of a
        violation, or None: with ``a`` the earliest earlier rank of a violation,
        ``max(a, g_ell) + 1`` (bounds at ranks up to ``a`` use labels and points up
        to ``a`` only; the annotated prefix is always exact).
    ratio_condition : bool
        Whether :math:`p(g_\ell) \ge p_\Delta(g_\ell)`, the extra hypothesis of
        Lemma 4 / Theorem 3 under which the bounds are within a factor
        :math:`\gamma` of each other at the points :math:`g_k`.
    max_rise : float
        The largest rise ``later_value - earlier_value`` among the violations
        (0 when there are none): a measure of how badly the assumptions fail.
    tolerance : float
        Rises up to this size were not reported.
    """

    violations: tuple[Violation, ...]
    unreliable_from: int | None
    ratio_condition: bool
    max_rise: float = 0.0
    tolerance: float = 0.0

    @property
    def holds(self) -> bool:
        """True when no contradiction of A.1/A.2 was found."""
        return not self.violations

    def summary(self) -> str:
        """A short human-readable account."""
        if self.holds:
            text = "annotations are consistent with the monotonicity assumptions A.1/A.2"
        else:
            first = self.violations[0].describe()
            text = (
                f"{len(self.violations)} violation(s) of the monotonicity assumptions "
                f"(largest rise {self.max_rise:.3g}); the bounds are not guaranteed from "
                f"rank {self.unreliable_from} on (first: {first})"
            )
        if not self.ratio_condition:
            text += (
                "; p(g_ell) < p_delta(g_ell), so the gamma ratio between the bounds is "
                "not guaranteed (Lemma 4)"
            )
        return text

    def to_frame(self) -> pd.DataFrame:
        """One row per violation: ``assumption, quantity, earlier_rank, later_rank,
        earlier_value, later_value``."""
        import pandas as pd

        columns = [
            "assumption",
            "quantity",
            "earlier_rank",
            "later_rank",
            "earlier_value",
            "later_value",
        ]
        return pd.DataFrame(
            [[getattr(v, c) for c in columns] for v in self.violations], columns=columns
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (NaN as ``None``)."""
        out: dict[str, Any] = json_ready(self._plain())
        return out

    def _plain(self) -> dict[str, Any]:
        return {
            "holds": self.holds,
            "n_violations": len(self.violations),
            "unreliable_from": self.unreliable_from,
            "ratio_condition": self.ratio_condition,
            "max_rise": self.max_rise,
            "tolerance": self.tolerance,
            "violations": [
                {
                    "assumption": v.assumption,
                    "quantity": v.quantity,
                    "earlier_rank": v.earlier_rank,
                    "later_rank": v.later_rank,
                    "earlier_value": v.earlier_value,
                    "later_value": v.later_value,
                }
                for v in self.violations
            ],
            "summary": self.summary(),
        }


def check_monotonicity(
    plan: PaulaPlan, ranks: Any, labels: Any, *, tolerance: float = 0.0
) -> MonotonicityReport:
    r"""Find where the annotations contradict the monotonicity assumptions A.1/A.2.

    Assumption A.2 ((Delta, m)-monotonicity from rank :math:`\tilde r`, Definition 3)
    requires, for :math:`\tilde r \le a` and :math:`b \ge a + m`,

    .. math:: p_\Delta(a) \;\ge\; \frac{1}{b-a}\sum_{i=a+1}^{b} v(t_i) \;\ge\; p_\Delta(b),

    read with the labels' average over :math:`(a, b]` in the middle (the form
    Lemma 3 uses: the yield gained between two points lies between the local
    precisions at its ends). Assumption A.1 (m-monotonicity, Definition 2) requires
    :math:`p(a) \ge p(b)`. The annotations reveal :math:`p_\Delta` exactly at every
    prefix rank :math:`\ge \tilde r` and at every planned point :math:`g_k`, the
    labels of the whole prefix, and bounds on :math:`p` that need no assumption;
    this function reports every pair ``a < b``, ``b - a >= m``, on which they
    contradict the assumptions:

    * A.2: :math:`p_\Delta(a) < p_\Delta(b)` (A.2 puts the precision of
      :math:`(a, b]` between the two, so they cannot rise);
    * A.1: an assumption-free lower bound on :math:`p(b)` above an assumption-free
      upper bound on :math:`p(a)`.

    It also checks :math:`p(g_\ell) \ge p_\Delta(g_\ell)`, the extra hypothesis of
    Lemma 4. A clean report does not prove the assumptions: the unlabelled ranks
    may still break them.

    Parameters
    ----------
    plan : PaulaPlan
    ranks, labels : array-like
        The planned ranks and their 0/1 labels (as for :func:`paula_bounds`).
    tolerance : float, default 0.0
        Report only rises larger than this (in precision units, in [0, 1]). The
        assumptions are strict, so the default reports every rise; real labels are
        noisy (a window of :math:`\Delta` labels has a standard error near
        :math:`\sqrt{p(1-p)/\Delta}`), and a tolerance of that size separates
        sampling noise from genuine departures such as a late rise in precision.

    Returns
    -------
    MonotonicityReport

    References
    ----------
    Sabharwal and Sedghi (2017), Definitions 1-3, §4.2 (A.1, A.2), Lemmas 3-4.

    Examples
    --------
    >>> import numpy as np
    >>> from ereval.paula import check_monotonicity, paula_plan
    >>> plan = paula_plan(2000, epsilon=0.25, delta=4)
    >>> v = np.r_[np.ones(500, int), np.zeros(1000, int), np.ones(500, int)]
    >>> report = check_monotonicity(plan, plan.ranks(), plan.select(v))
    >>> report.holds, report.unreliable_from
    (False, 1264)
    """
    return diagnose(plan, align_labels(plan, ranks, labels), tolerance=tolerance)


def _later_exceeds(
    ranks: npt.NDArray[np.int64],
    early: npt.NDArray[np.float64],
    late: npt.NDArray[np.float64],
    gap: int,
    slack: float,
) -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` with ``ranks[i] <= ranks[j] - gap`` and
    ``late[j] - early[i] > slack``: one per ``j``, with the latest such ``i`` (the
    witness closest to ``j``)."""
    if ranks.size == 0:
        return []
    running_min = np.minimum.accumulate(early)
    limit = np.searchsorted(ranks, ranks - gap, side="right") - 1
    out: list[tuple[int, int]] = []
    for j in np.flatnonzero(limit >= 0):
        stop = int(limit[j])
        if late[j] - running_min[stop] > slack:
            i = int(np.flatnonzero(late[j] - early[: stop + 1] > slack)[-1])
            out.append((i, int(j)))
    return out


def diagnose(plan: PaulaPlan, lab: PlanLabels, *, tolerance: float = 0.0) -> MonotonicityReport:
    """:func:`check_monotonicity` on labels already aligned with the plan."""
    tol = check_in_range("tolerance", tolerance, low=0.0, high=1.0)
    delta, m, p_end = plan.delta, plan.m, plan.prefix_end
    prefix = lab.prefix.astype(np.int64)
    cum = np.concatenate([[0], np.cumsum(prefix)])  # cum[r] = yield at rank r, r <= p_end
    ratio_condition = True
    if p_end >= delta:
        # p(g_ell) >= p_delta(g_ell)  <=>  delta * Y(g_ell) >= g_ell * window count
        ratio_condition = bool(delta * cum[p_end] >= p_end * (cum[p_end] - cum[p_end - delta]))

    start = max(plan.r_tilde, delta)
    pre = np.arange(start, p_end + 1, dtype=np.int64)
    ends = plan.window_ends
    win = lab.windows.sum(axis=1).astype(np.int64)
    anchors = np.concatenate([pre, ends])
    # Local precision (as window counts over the common denominator delta).
    counts = np.concatenate([cum[pre] - cum[pre - delta], win]).astype(np.float64)

    # At most one violation per later rank and kind of comparison (the first found).
    found: dict[tuple[int, str], Violation] = {}

    def add(v: Violation) -> None:
        found.setdefault((v.later_rank, v.quantity), v)

    for i, j in _later_exceeds(anchors, counts, counts, m, tol * delta):
        add(
            Violation(
                "A.2",
                "local_precision",
                int(anchors[i]),
                int(anchors[j]),
                counts[i] / delta,
                counts[j] / delta,
            )
        )

    # A.1 with assumption-free bounds on the yield: exact in the prefix; at g_k the
    # labelled windows give known positives (lower) and known negatives (upper).
    y0 = int(cum[p_end])
    known_pos = np.cumsum(win)
    known_neg = np.cumsum(delta - win)
    y_lo = np.concatenate([cum[pre], y0 + known_pos]).astype(np.float64)
    y_hi = np.concatenate([cum[pre], y0 + (ends - p_end) - known_neg]).astype(np.float64)
    a_all = anchors.astype(np.float64)
    for i, j in _later_exceeds(anchors, y_hi / a_all, y_lo / a_all, m, tol):
        # exact re-check of a strict rise: y_lo[j] / b > y_hi[i] / a
        if int(y_lo[j]) * int(anchors[i]) > int(y_hi[i]) * int(anchors[j]):
            add(
                Violation(
                    "A.1",
                    "precision",
                    int(anchors[i]),
                    int(anchors[j]),
                    y_hi[i] / a_all[i],
                    y_lo[j] / a_all[j],
                )
            )

    violations = tuple(sorted(found.values(), key=lambda v: (v.later_rank, v.earlier_rank)))
    unreliable = None
    if violations:
        # A contradiction on (a, b) puts in doubt every bound that relies on the
        # assumption across rank a. Bounds at ranks r <= a use labels and points up
        # to a only (the yield chain up to a, and anchors a' <= r or the first one
        # after r, which is at most a).
        first = min(v.earlier_rank for v in violations)
        unreliable = min(max(first, p_end) + 1, plan.n)
    max_rise = max((v.later_value - v.earlier_value for v in violations), default=0.0)
    return MonotonicityReport(
        violations=violations,
        unreliable_from=unreliable,
        ratio_condition=ratio_condition,
        max_rise=float(max_rise),
        tolerance=tol,
    )
