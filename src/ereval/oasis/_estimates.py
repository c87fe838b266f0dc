"""The estimates of one sampling run: F-alpha, precision and recall together.

Each measure is ``F_alpha = TP / (alpha PP + (1 - alpha) P)`` of estimated counts
(TP, PP = TP + FP, P = TP + FN): alpha = 1 is precision, alpha = 0 recall.  How
the counts are estimated and how the intervals are built is described in
:mod:`ereval.oasis._measures` and :mod:`ereval.oasis._intervals`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..results import Estimate, FrameRepr, json_ready

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Estimates"]


@dataclass(frozen=True)
class Estimates(FrameRepr):
    """F-alpha, precision and recall estimated together from one sampling run.

    Attributes
    ----------
    f_measure, precision, recall : ereval.Estimate
    alpha : float
        Weight of the F-measure (``f_measure`` is F-alpha).
    confidence : float
        Level of the intervals.
    labels_used : int
        Distinct pairs labelled (the label budget spent).
    iterations : int
        Draws made (a pair drawn again reuses its label).
    method : str
        Sampler that produced the estimates.
    """

    f_measure: Estimate
    precision: Estimate
    recall: Estimate
    alpha: float
    confidence: float
    labels_used: int
    iterations: int
    method: str

    def to_dict(self) -> dict[str, Any]:
        """Nested plain JSON types: each measure's :meth:`ereval.Estimate.to_dict` and the
        run's counts (NaN as ``None``)."""
        out: dict[str, Any] = json_ready(
            {
                "f_measure": self.f_measure.to_dict(),
                "precision": self.precision.to_dict(),
                "recall": self.recall.to_dict(),
                "labels_used": self.labels_used,
                "iterations": self.iterations,
                "alpha": self.alpha,
                "confidence": self.confidence,
                "method": self.method,
            }
        )
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per measure (``f_measure``, ``precision``, ``recall``): ``measure``
        and its :meth:`ereval.Estimate.to_frame` columns."""
        import pandas as pd

        parts = []
        for name in ("f_measure", "precision", "recall"):
            row = getattr(self, name).to_frame()
            row.insert(0, "measure", name)
            parts.append(row)
        return pd.concat(parts, ignore_index=True)

    @property
    def warnings(self) -> tuple[str, ...]:
        """The warnings of the three measures, each once."""
        both = (*self.f_measure.warnings, *self.precision.warnings, *self.recall.warnings)
        return tuple(dict.fromkeys(both))

    def measure(self, alpha: float) -> Estimate:
        """The estimate for weight ``alpha`` among 1 (precision), 0 (recall) and :attr:`alpha`."""
        if alpha == self.alpha:
            return self.f_measure
        if alpha == 1.0:
            return self.precision
        if alpha == 0.0:
            return self.recall
        raise KeyError(alpha)
