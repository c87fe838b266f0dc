"""The result of a threshold curve: :class:`ThresholdCurve`."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from .._validation import check_in_range
from ..results import FrameRepr, json_ready

__all__ = ["ThresholdCurve"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class ThresholdCurve(FrameRepr):
    """Metrics of scored pairs at many thresholds.

    :meth:`best` and :meth:`threshold_for` look at every distinct score, whatever
    thresholds :attr:`frame` reports (a grid only thins what is shown).

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per threshold, ascending: ``threshold``, ``n_accepted`` (pairs
        with a score ``>= threshold``), the link counts ``links_tp``,
        ``links_fp``, ``links_fn``, ``links_tn`` and ``links_precision``,
        ``links_recall``, ``links_f1`` (the pairs as scored, not made
        transitive), ``n_pred_clusters`` and the metrics of the
        connected-components clustering, under their canonical names.
    summary : dict
        ``n_records``, ``n_true_clusters``, ``n_pairs`` (scored pairs kept),
        ``n_pairs_dropped``, ``n_true_pairs`` (``sum_i C(a_i, 2)``),
        ``n_true_pairs_scored``, ``pairs_completeness`` (share of the true pairs
        that were scored at all), ``reduction_ratio`` (``1 - n_pairs / C(N, 2)``),
        ``roc_auc`` and ``average_precision`` (over the scored pairs).
    beta : float
        The weight of recall in the ``*_fbeta`` columns (present when not 1).
    """

    frame: pd.DataFrame
    summary: dict[str, Any]
    beta: float = 1.0
    _roc: dict[str, FloatArray] = field(default_factory=dict, repr=False)
    #: ``exact(metric, None)`` gives the thresholds and ``metric`` at every distinct
    #: score, ``exact(metric, t)`` every column at the thresholds ``t``; ``None`` when
    #: :attr:`frame` holds every distinct score already.
    _exact: Callable[[str, FloatArray | None], tuple[FloatArray, pd.DataFrame]] | None = field(
        default=None, repr=False
    )

    def to_frame(self) -> pd.DataFrame:
        """One row per threshold: a copy of :attr:`frame`."""
        return self.frame.copy()

    def to_dict(self) -> dict[str, Any]:
        """``{"summary": ..., "beta": ..., "rows": [one dict per threshold]}`` in plain JSON
        types (NaN as ``None``)."""
        out: dict[str, Any] = json_ready(
            {
                "summary": dict(self.summary),
                "beta": self.beta,
                "rows": self.frame.to_dict(orient="records"),
            }
        )
        return out

    def _column(self, metric: str) -> FloatArray:
        if metric not in self.frame.columns or metric in ("threshold",):
            known = [c for c in self.frame.columns if c != "threshold"]
            raise InputError(
                f"'metric' must be a column of the curve ({known}); received {metric!r}"
            )
        return np.asarray(self.frame[metric], dtype=np.float64)

    def _row(self, k: int) -> dict[str, Any]:
        """Row ``k`` as a dict of Python numbers (counts stay integers)."""
        row: dict[str, Any] = self.frame.iloc[[k]].to_dict(orient="records")[0]
        return row

    def _every(self, metric: str) -> tuple[FloatArray, FloatArray]:
        """The thresholds and ``metric`` at every distinct score, ascending."""
        self._column(metric)  # a column of the curve, or an error naming them
        if self._exact is None:
            return np.asarray(self.frame["threshold"], dtype=np.float64), self._column(metric)
        t, frame = self._exact(metric, None)
        return t, np.asarray(frame[metric], dtype=np.float64)

    def _row_at(self, threshold: float) -> dict[str, Any]:
        """Every column at ``threshold``: a row of :attr:`frame`, or computed."""
        at = np.flatnonzero(np.asarray(self.frame["threshold"]) == threshold)
        if at.size or self._exact is None:
            return self._row(int(at[0]))
        _, frame = self._exact("threshold", np.asarray([threshold], dtype=np.float64))
        row: dict[str, Any] = frame.iloc[[0]].to_dict(orient="records")[0]
        return row

    def best(self, metric: str = "pairwise_f1") -> dict[str, Any]:
        """The row (threshold and every metric) where ``metric`` is largest, over every
        distinct score (not only the thresholds :attr:`frame` reports).

        Among equal maxima the highest threshold is chosen. NaN values are skipped;
        raises when ``metric`` is NaN at every threshold.
        """
        thresholds, values = self._every(metric)
        if values.size == 0 or np.isnan(values).all():
            raise InputError(f"'metric' {metric!r} is undefined at every threshold")
        best = np.nanmax(values)
        return self._row_at(float(thresholds[np.flatnonzero(values == best)[-1]]))

    def threshold_for(
        self, target: float, metric: str = "links_precision"
    ) -> dict[str, Any] | None:
        """The row of the lowest threshold at which ``metric >= target`` (``None`` if none).

        With a precision as ``metric`` this is the threshold that accepts the most
        pairs while the precision there meets the target. Every distinct score is
        looked at, not only the thresholds :attr:`frame` reports.
        """
        target = check_in_range("target", target, low=-math.inf, high=math.inf)
        thresholds, values = self._every(metric)
        hits = np.flatnonzero(values >= target)
        if hits.size == 0:
            return None
        return self._row_at(float(thresholds[hits[0]]))

    def roc(self) -> pd.DataFrame:
        """The ROC curve over the scored pairs: ``threshold``, ``fpr``, ``tpr``, from (0, 0).

        A true pair that was never scored is not in it (see :attr:`summary`'s
        ``pairs_completeness`` for their share).
        """
        return pd.DataFrame(
            {"threshold": self._roc["threshold"], "fpr": self._roc["fpr"], "tpr": self._roc["tpr"]}
        )

    def pr(self) -> pd.DataFrame:
        """The precision-recall curve over the scored pairs (recall of the scored true pairs)."""
        return pd.DataFrame(
            {
                "threshold": self._roc["threshold"][1:],
                "precision": self._roc["precision"],
                "recall": self._roc["tpr"][1:],
            }
        )
