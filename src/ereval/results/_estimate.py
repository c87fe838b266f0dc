"""One shape for a number with uncertainty: :class:`Estimate`.

Every producer of ereval returns it — the ratio estimators of
:mod:`ereval.estimators`, the OASIS samplers of :mod:`ereval.oasis` (inside
:class:`~ereval.oasis.Estimates`), PAULA's bounds of :mod:`ereval.paula` — so a
report or an application reads them all alike, and :meth:`Estimate.to_dict` is the
one JSON form.

Ranges
------
A quantity with a known range (precision, recall, F, homogeneity... lie in
``[0, 1]``; an average cluster size is at least 1) gets the normal interval
``value +- z sd`` *intersected with its range* (each end clamped into it). The
true value lies in the range, so it lies in the clamped interval exactly when it
lies in the unclamped one: clamping never lowers coverage, it only drops values
that cannot be true. (An interval wholly outside the range holds no possible
value; it is replaced by the whole range, which covers and claims nothing.) The
point estimate itself is not clamped (the estimators' near-unbiasedness would
be lost); a value outside its range comes with a warning instead, and the
interval may then not contain it. The ratio estimators of scores and rates use
a beta (or Wilson) interval with the design's effective sample size instead
(:mod:`ereval.estimators._intervals`), which lies in ``[0, 1]`` by construction.

Warnings
--------
``Estimate.warnings`` holds one sentence per problem, saying why the number is
doubtful and what to do (label more units, ...). They are data, not Python
warnings: the CLI prints each on stderr, a report shows them beside the number.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._validation import check_in_range
from ._protocol import FrameRepr, json_ready

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Estimate",
    "UNIT_RANGE",
    "clamp_interval",
    "interval_estimate",
    "normal_estimate",
    "normal_quantile",
    "problem_warning",
    "range_problems",
]

#: The range of precision, recall, F and the other scores and rates.
UNIT_RANGE: tuple[float, float] = (0.0, 1.0)

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Estimate(FrameRepr):
    """A number with its uncertainty: point value, standard error, interval, warnings.

    Attributes
    ----------
    value : float
        The point estimate; NaN when the data cannot define it (a warning says
        why) and for PAULA's bounds, which bound the quantity without estimating it.
    std : float
        Estimated standard error; NaN when none can be estimated (one sampled
        unit, a naive value, PAULA's deterministic bounds).
    interval : (float, float)
        ``(lower, upper)``: an interval at ``level`` within the quantity's range
        (the ratio estimators' beta or Wilson interval, a normal interval clamped
        to the range), or PAULA's bounds. NaN ends when undefined.
    level : float
        Confidence level of ``interval``; 1.0 for PAULA's bounds, which hold
        with certainty under its monotonicity assumption.
    n : int
        Sample size behind the number: draws for the ratio estimators (distinct
        clusters for a naive value), distinct labelled pairs for OASIS,
        annotations for PAULA.
    method : str
        What produced it, e.g. ``"ratio estimator (block form, record design)"``,
        ``"oasis"``, ``"paula"``.
    warnings : tuple of str
        Reasons to doubt the number, each with what to do about it (see the
        module docstring); empty when there are none.

    Examples
    --------
    >>> e = normal_estimate(0.97, 0.02, level=0.95, n=400, method="example", bounds=UNIT_RANGE)
    >>> round(e.lower, 4), e.upper
    (0.9308, 1.0)
    >>> sorted(e.to_dict())
    ['interval', 'level', 'method', 'n', 'std', 'value', 'warnings']
    """

    value: float
    std: float
    interval: tuple[float, float]
    level: float
    n: int
    method: str
    warnings: tuple[str, ...] = ()

    @property
    def lower(self) -> float:
        """Lower end of :attr:`interval`."""
        return self.interval[0]

    @property
    def upper(self) -> float:
        """Upper end of :attr:`interval`."""
        return self.interval[1]

    @property
    def width(self) -> float:
        """``upper - lower``."""
        return self.interval[1] - self.interval[0]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types: ``value, std, interval: [lower, upper], level, n, method,
        warnings`` (NaN as ``None``)."""
        out: dict[str, Any] = json_ready(
            {
                "value": self.value,
                "std": self.std,
                "interval": [self.interval[0], self.interval[1]],
                "level": self.level,
                "n": self.n,
                "method": self.method,
                "warnings": list(self.warnings),
            }
        )
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row: ``value, std, lower, upper, level, n, method, warnings`` (the warnings
        joined by ``"; "``)."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "value": self.value,
                    "std": self.std,
                    "lower": self.lower,
                    "upper": self.upper,
                    "level": self.level,
                    "n": self.n,
                    "method": self.method,
                    "warnings": "; ".join(self.warnings),
                }
            ]
        )


def normal_quantile(level: float) -> float:
    """``z`` such that ``P(|Z| <= z) = level`` for a standard normal ``Z``.

    >>> round(normal_quantile(0.95), 6)
    1.959964
    """
    lvl = check_in_range("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
    return float(NormalDist().inv_cdf(0.5 + lvl / 2.0))


def clamp_interval(
    lower: Any, upper: Any, bounds: tuple[float, float] | None
) -> tuple[FloatArray, FloatArray]:
    """Intersect intervals with ``bounds`` (unchanged when ``bounds`` is None).

    Works on scalars and arrays alike; NaN ends stay NaN. For a true value ``t``
    in ``bounds``, ``lower <= t <= upper`` holds after clamping exactly when it
    held before, so coverage is unchanged. An interval wholly outside the range
    (possible only for a point estimate far outside it) contains no possible
    value; it becomes the whole range, which covers every value and claims
    nothing.

    >>> lo, hi = clamp_interval([-0.2, 0.9, 1.1], [0.3, 1.4, 1.5], (0.0, 1.0))
    >>> lo.tolist(), hi.tolist()
    ([0.0, 0.9, 0.0], [0.3, 1.0, 1.0])
    """
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(upper, dtype=np.float64)
    if bounds is None:
        return lo, hi
    low, high = bounds
    # an interval wholly outside the range contains no possible value: the whole range
    # is the honest answer (np.clip would collapse it onto one edge, a false certainty)
    outside = (lo > high) | (hi < low)
    lo_c = np.where(outside, low, np.clip(lo, low, high))
    hi_c = np.where(outside, high, np.clip(hi, low, high))
    return lo_c, hi_c


def _range_text(bounds: tuple[float, float]) -> str:
    low, high = bounds
    if math.isinf(high):
        return f"[{low:g}, inf)"
    return f"[{low:g}, {high:g}]"


def range_problems(
    value: float, std: float, *, level: float, bounds: tuple[float, float] | None
) -> list[str]:
    """What is wrong with an estimate of a quantity in ``bounds``, as phrases.

    The value lies outside the range, or the interval at ``level`` would be wider
    than the whole range (so it says little). Each phrase follows the quantity's
    name in a sentence (see :func:`problem_warning`).

    >>> range_problems(1.29, 0.15, level=0.95, bounds=(0.0, 1.0))
    ['= 1.29 lies outside [0, 1]']
    >>> range_problems(0.5, 0.3, level=0.95, bounds=(0.0, 1.0))
    ['has a standard error (0.3) too large for its range [0, 1], so its 95% interval says little']
    """
    if bounds is None or not math.isfinite(value):
        return []
    out: list[str] = []
    low, high = bounds
    if value < low or value > high:
        out.append(f"= {value:.3g} lies outside {_range_text(bounds)}")
    if math.isfinite(std) and math.isfinite(high - low):
        z = normal_quantile(level)
        if 2.0 * z * std > high - low:
            out.append(
                f"has a standard error ({std:.3g}) too large for its range "
                f"{_range_text(bounds)}, so its {level:.0%} interval says little"
            )
    return out


def problem_warning(quantity: str, problems: Iterable[str], advice: str) -> str | None:
    """One sentence: ``"<quantity> <problem>, <problem> and <problem>: <advice>"``.

    None when there is no problem.

    >>> problem_warning("'p'", ["= 1.29 lies outside [0, 1]"], "label more clusters")
    "'p' = 1.29 lies outside [0, 1]: label more clusters"
    """
    items = list(problems)
    if not items:
        return None
    text = items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
    return f"{quantity} {text}: {advice}" if advice else f"{quantity} {text}"


def normal_estimate(
    value: float,
    std: float,
    *,
    level: float,
    n: int,
    method: str,
    bounds: tuple[float, float] | None = None,
    quantity: str = "the estimate",
    advice: str = "",
    problems: Iterable[str] = (),
    warnings: Iterable[str] = (),
) -> Estimate:
    """An :class:`Estimate` with the normal interval ``value +- z std`` clamped to ``bounds``.

    Parameters
    ----------
    value, std : float
        Point estimate and standard error (NaN allowed: the interval is then NaN).
    level : float
        Confidence level, in (0, 1).
    n : int
        Sample size behind the estimate.
    method : str
        What produced it.
    bounds : (float, float), optional
        The quantity's range (e.g. :data:`UNIT_RANGE`); with it the interval is
        clamped (see :func:`clamp_interval`) and checked by :func:`range_problems`.
    quantity, advice : str
        The quantity's name and what to do, for the warning that lists its
        problems (see :func:`problem_warning`).
    problems : iterable of str
        Problems the caller found (phrases, as :func:`range_problems` returns);
        the range problems are added and all go into one warning.
    warnings : iterable of str
        Whole warnings the caller already has; they come first.

    Returns
    -------
    Estimate
    """
    z = normal_quantile(level)
    lo, hi = (math.nan, math.nan)
    if math.isfinite(value) and not math.isnan(std):
        lo_a, hi_a = clamp_interval(value - z * std, value + z * std, bounds)
        lo, hi = float(lo_a), float(hi_a)
    return interval_estimate(
        value,
        std,
        (lo, hi),
        level=level,
        n=n,
        method=method,
        bounds=bounds,
        quantity=quantity,
        advice=advice,
        problems=problems,
        warnings=warnings,
    )


def interval_estimate(
    value: float,
    std: float,
    interval: tuple[float, float],
    *,
    level: float,
    n: int,
    method: str,
    bounds: tuple[float, float] | None = None,
    quantity: str = "the estimate",
    advice: str = "",
    problems: Iterable[str] = (),
    warnings: Iterable[str] = (),
) -> Estimate:
    """An :class:`Estimate` with an interval computed elsewhere (e.g. a score interval).

    The options are those of :func:`normal_estimate`; the warnings are gathered
    the same way. ``interval`` should already lie in ``bounds``.
    """
    lo, hi = (float(interval[0]), float(interval[1]))
    notes = list(warnings)
    found = [*problems, *range_problems(value, std, level=level, bounds=bounds)]
    combined = problem_warning(quantity, found, advice)
    if combined is not None:
        notes.append(combined)
    return Estimate(
        value=float(value),
        std=float(std),
        interval=(lo, hi),
        level=float(level),
        n=int(n),
        method=method,
        warnings=tuple(dict.fromkeys(notes)),
    )
