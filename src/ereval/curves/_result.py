"""The result of a threshold curve: :class:`ThresholdCurve`."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from .._validation import check_in_range
from ..results import FrameRepr, json_ready

__all__ = ["CHUNK_ROWS", "RowMaker", "ThresholdCurve"]

FloatArray = npt.NDArray[np.float64]


#: ``rows(start, stop, wanted)``: rows ``start .. stop - 1`` of a curve's frame, with
#: every column (``wanted`` ``None``) or the threshold, link columns and ``wanted``.
RowMaker = Callable[[int, int, "Sequence[str] | None"], pd.DataFrame]
#: Rows of the frame made at a time by :meth:`ThresholdCurve.chunks`.
CHUNK_ROWS = 1 << 18


@dataclass(frozen=True, eq=False)
class ThresholdCurve(FrameRepr):
    """Metrics of scored pairs at many thresholds.

    :meth:`best` and :meth:`threshold_for` look at every distinct score, whatever
    thresholds :attr:`frame` reports (a grid only thins what is shown).

    The rows are made when first asked for: :attr:`frame` makes them all (and
    keeps them); :meth:`chunks` makes them a block at a time, so that a curve of
    many distinct scores is written without its whole frame in memory (some 256
    bytes a row); :meth:`best` and :meth:`threshold_for` make the column they
    look at and the rows they return; :meth:`column` makes one column.

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

    summary: dict[str, Any]
    beta: float
    #: the frame's thresholds, ascending
    _thresholds: FloatArray = field(repr=False)
    _rows: RowMaker = field(repr=False)
    #: the ROC and precision-recall points, made when asked for
    _roc: Callable[[], dict[str, FloatArray]] = field(repr=False)
    #: ``exact(metric, None)`` gives the thresholds and ``metric`` at every distinct
    #: score, ``exact(metric, t)`` every column at the thresholds ``t``; ``None`` when
    #: the frame holds every distinct score already.
    _exact: Callable[[str, FloatArray | None], tuple[FloatArray, pd.DataFrame]] | None = field(
        default=None, repr=False
    )

    @cached_property
    def frame(self) -> pd.DataFrame:
        """Every row (see the class's attributes), made once."""
        return self._rows(0, len(self), None)

    @cached_property
    def columns(self) -> list[str]:
        """The columns of :attr:`frame`, without making its rows."""
        return [str(c) for c in self._rows(0, 0, None).columns]

    def __len__(self) -> int:
        """The number of rows (thresholds) of :attr:`frame`."""
        return int(self._thresholds.shape[0])

    def rows(self, start: int, stop: int) -> pd.DataFrame:
        """Rows ``start .. stop - 1`` of :attr:`frame` (made anew unless it is made)."""
        if "frame" in self.__dict__:
            return self.frame.iloc[start:stop].reset_index(drop=True)
        return self._rows(start, stop, None)

    def chunks(self, rows: int | None = None) -> Iterator[pd.DataFrame]:
        """The rows of :attr:`frame` in order, ``rows`` (default :data:`CHUNK_ROWS`) at
        a time: at least one frame, empty for a curve of no row."""
        size = max(int(CHUNK_ROWS if rows is None else rows), 1)
        n = len(self)
        for start in range(0, max(n, 1), size):
            yield self.rows(start, min(start + size, n))

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

    def column(self, metric: str) -> FloatArray:
        """The column ``metric`` of :attr:`frame` (``"threshold"`` included) as floats,
        made a block of rows at a time unless the frame is made: no other column is
        held whole."""
        if metric not in self.columns:
            raise InputError(
                f"'metric' must be a column of the curve ({self.columns}); received {metric!r}"
            )
        if "frame" in self.__dict__:
            return np.asarray(self.frame[metric], dtype=np.float64)
        if metric == "threshold":
            return np.array(self._thresholds, dtype=np.float64)
        n = len(self)
        out = np.empty(n, dtype=np.float64)
        for start in range(0, n, CHUNK_ROWS):  # the other columns a block at a time
            stop = min(start + CHUNK_ROWS, n)
            out[start:stop] = self._rows(start, stop, [metric])[metric]
        return out

    def _row(self, k: int) -> dict[str, Any]:
        """Row ``k`` as a dict of Python numbers (counts stay integers)."""
        row: dict[str, Any] = self.rows(k, k + 1).to_dict(orient="records")[0]
        return row

    def _every(self, metric: str) -> tuple[FloatArray, FloatArray]:
        """The thresholds and ``metric`` at every distinct score, ascending."""
        known = [c for c in self.columns if c != "threshold"]
        if metric not in known:
            raise InputError(
                f"'metric' must be a column of the curve ({known}); received {metric!r}"
            )
        if self._exact is None:  # the frame's rows are every distinct score
            return self._thresholds, self.column(metric)
        t, frame = self._exact(metric, None)
        return t, np.asarray(frame[metric], dtype=np.float64)

    def _row_at(self, threshold: float) -> dict[str, Any]:
        """Every column at ``threshold``: a row of :attr:`frame`, or computed."""
        at = int(np.searchsorted(self._thresholds, threshold))
        found = at < len(self) and self._thresholds[at] == threshold
        if found or self._exact is None:
            return self._row(at)
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
        if self._exact is not None:  # and the frame's own (one above every score: no link)
            thresholds = np.concatenate([thresholds, self._thresholds])
            values = np.concatenate([values, self.column(metric)])
            order = np.argsort(thresholds, kind="stable")
            thresholds, values = thresholds[order], values[order]
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
        roc = self._roc()
        return pd.DataFrame({"threshold": roc["threshold"], "fpr": roc["fpr"], "tpr": roc["tpr"]})

    def pr(self) -> pd.DataFrame:
        """The precision-recall curve over the scored pairs (recall of the scored true pairs)."""
        roc = self._roc()
        return pd.DataFrame(
            {
                "threshold": roc["threshold"][1:],
                "precision": roc["precision"],
                "recall": roc["tpr"][1:],
            }
        )
