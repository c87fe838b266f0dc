"""The one curve-with-uncertainty shape: :class:`EstimateCurve`.

A quantity estimated (or bounded) at many points of an axis — OASIS's precision,
recall and F at every threshold (:func:`ereval.oasis.estimated_curve`), PAULA's
bounds on precision at every rank (:meth:`ereval.paula.PaulaBounds.curve`), the
baseline of uniform sampling (:func:`ereval.paula.random_sampling_curve`), an
estimate over releases (:meth:`ereval.Monitoring.curve`), OASIS's
estimates as labels are spent (:func:`ereval.oasis.convergence`) — is an
:class:`EstimateCurve`: the axis, its points, and per quantity one
:class:`~ereval.Estimate` per point, kept as columns (:class:`EstimateSeries`).
Figures and the report read every such curve alike.

>>> from ereval.results import Estimate
>>> e = [Estimate(0.8, 0.05, (0.7, 0.9), 0.95, 40, "m"), Estimate(0.6, 0.1, (0.4, 0.8), 0.95, 40, "m")]
>>> curve = EstimateCurve.from_estimates("threshold", [0.2, 0.5], {"precision": e})
>>> curve["precision"].lower.tolist(), curve.estimate("precision", 1).value
([0.7, 0.4], 0.6)
>>> list(curve.to_frame().columns)
['threshold', 'precision', 'precision_std', 'precision_lower', 'precision_upper']
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._errors import InputError
from ._estimate import Estimate
from ._protocol import FrameRepr, json_ready

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EstimateCurve", "EstimateSeries"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class EstimateSeries:
    """The estimates of one quantity along a curve's axis, as columns.

    Point ``i`` is the :class:`~ereval.Estimate` ``(value[i], std[i], (lower[i],
    upper[i]), level, n[i], method, warnings[i])`` of its curve.

    Attributes
    ----------
    value, std, lower, upper : numpy.ndarray of float64
        NaN where undefined (or where there is no estimate at that point).
    n : numpy.ndarray of int64
        Sample size behind each point (0 where there is no estimate).
    warnings : tuple of tuple of str
        The warnings of each point (empty tuples when none).
    """

    value: FloatArray
    std: FloatArray
    lower: FloatArray
    upper: FloatArray
    n: IntArray
    warnings: tuple[tuple[str, ...], ...]

    def __post_init__(self) -> None:
        sizes = {len(self.value), len(self.std), len(self.lower), len(self.upper), len(self.n)}
        if len(sizes) != 1 or len(self.warnings) not in sizes:
            raise InputError(
                "an EstimateSeries needs one value, std, lower, upper, n and warnings per point"
            )

    def __len__(self) -> int:
        return len(self.value)

    @property
    def width(self) -> FloatArray:
        """``upper - lower`` at each point."""
        out: FloatArray = self.upper - self.lower
        return out

    @classmethod
    def bounds(
        cls,
        lower: npt.ArrayLike,
        upper: npt.ArrayLike,
        *,
        n: int | npt.ArrayLike,
        warnings: Sequence[tuple[str, ...]] | None = None,
    ) -> EstimateSeries:
        """Bounds that hold with certainty (level 1): the value is known only where the
        two meet (then its std is 0); elsewhere value and std are NaN."""
        lo = np.asarray(lower, dtype=np.float64)
        hi = np.asarray(upper, dtype=np.float64)
        exact = lo == hi
        return cls(
            np.where(exact, lo, np.nan),
            np.where(exact, 0.0, np.nan),
            lo,
            hi,
            np.broadcast_to(np.asarray(n, dtype=np.int64), lo.shape).copy(),
            tuple(warnings) if warnings is not None else ((),) * lo.shape[0],
        )


@dataclass(frozen=True, eq=False)
class EstimateCurve(FrameRepr):
    """Quantities with uncertainty along one axis (see the module docstring).

    Attributes
    ----------
    axis : str
        What the points are: ``"threshold"``, ``"rank"``, ``"release"``, ``"labels"``...
    points : numpy.ndarray
        The axis values in order (numbers, or labels such as release names).
    series : dict of str to EstimateSeries
        Per quantity (e.g. ``"precision"``), its estimates at the points.
    level : float
        Confidence level of every interval (1 for bounds that hold with certainty).
    method : str
        What produced the estimates.
    details : dict
        Plain facts of the producer (e.g. OASIS's ``alpha`` and ``labels_used``,
        PAULA's ``n_positives``), in :meth:`to_dict` under ``"details"``.
    """

    axis: str
    points: npt.NDArray[Any]
    series: dict[str, EstimateSeries]
    level: float
    method: str
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, s in self.series.items():
            if len(s) != len(self.points):
                raise InputError(
                    f"quantity {name!r} has {len(s)} points; the axis {self.axis!r} has "
                    f"{len(self.points)}"
                )

    @property
    def quantities(self) -> tuple[str, ...]:
        """The quantities, in order."""
        return tuple(self.series)

    def __getitem__(self, quantity: str) -> EstimateSeries:
        try:
            return self.series[quantity]
        except KeyError:
            raise KeyError(
                f"{quantity!r} is not a quantity of the curve ({list(self.series)})"
            ) from None

    def __len__(self) -> int:
        return len(self.points)

    def estimate(self, quantity: str, i: int) -> Estimate:
        """The :class:`~ereval.Estimate` of ``quantity`` at point ``i``."""
        s = self[quantity]
        return Estimate(
            float(s.value[i]),
            float(s.std[i]),
            (float(s.lower[i]), float(s.upper[i])),
            self.level,
            int(s.n[i]),
            self.method,
            s.warnings[i],
        )

    def estimates(self, quantity: str) -> tuple[Estimate, ...]:
        """One :class:`~ereval.Estimate` of ``quantity`` per point."""
        return tuple(self.estimate(quantity, i) for i in range(len(self.points)))

    @property
    def warnings(self) -> tuple[str, ...]:
        """Every warning of every point, each once, in order."""
        seen = (w for s in self.series.values() for ws in s.warnings for w in ws)
        return tuple(dict.fromkeys(seen))

    @classmethod
    def from_estimates(
        cls,
        axis: str,
        points: Sequence[Any] | npt.NDArray[Any],
        series: Mapping[str, Sequence[Estimate | None]],
        *,
        level: float | None = None,
        method: str | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> EstimateCurve:
        """A curve from one :class:`~ereval.Estimate` (or None: no estimate there) per
        point and quantity.

        ``level`` and ``method`` default to those of the estimates (every estimate
        must have the same level; several methods are joined by ``"; "``).
        """
        given = [e for ests in series.values() for e in ests if e is not None]
        levels = {e.level for e in given}
        if level is None:
            if len(levels) > 1:
                raise InputError(
                    f"the estimates of a curve need one confidence level; received {sorted(levels)}"
                )
            level = levels.pop() if levels else math.nan
        if method is None:
            method = "; ".join(dict.fromkeys(e.method for e in given))
        nan = math.nan
        out: dict[str, EstimateSeries] = {}
        for name, ests in series.items():
            out[name] = EstimateSeries(
                np.asarray([nan if e is None else e.value for e in ests], dtype=np.float64),
                np.asarray([nan if e is None else e.std for e in ests], dtype=np.float64),
                np.asarray([nan if e is None else e.lower for e in ests], dtype=np.float64),
                np.asarray([nan if e is None else e.upper for e in ests], dtype=np.float64),
                np.asarray([0 if e is None else e.n for e in ests], dtype=np.int64),
                tuple(() if e is None else e.warnings for e in ests),
            )
        return cls(axis, np.asarray(points), out, float(level), method, dict(details or {}))

    def to_frame(self) -> pd.DataFrame:
        """One row per point: the axis, then each quantity's value, ``_std``, ``_lower``
        and ``_upper``."""
        import pandas as pd

        data: dict[str, Any] = {self.axis: self.points}
        for name, s in self.series.items():
            data[name] = s.value
            data[f"{name}_std"] = s.std
            data[f"{name}_lower"] = s.lower
            data[f"{name}_upper"] = s.upper
        return pd.DataFrame(data)

    def to_dict(self) -> dict[str, Any]:
        """``axis, level, method, details`` and ``rows``: one per point, the axis value and
        each quantity's :meth:`Estimate.to_dict`."""
        rows = []
        for i, point in enumerate(self.points.tolist()):
            row: dict[str, Any] = {self.axis: point}
            for name in self.series:
                row[name] = self.estimate(name, i).to_dict()
            rows.append(row)
        out = {
            "axis": self.axis,
            "level": self.level,
            "method": self.method,
            "details": dict(self.details),
            "rows": rows,
        }
        ready: dict[str, Any] = json_ready(out)
        return ready
