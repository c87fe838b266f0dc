"""A sampler's estimates as it spends its labels: :func:`convergence`.

The sampler is run to a growing series of label budgets; after each it
estimates F-alpha, precision and recall (:meth:`Sampler.run
<ereval.oasis.OASISSampler.run>`). The estimates form an
:class:`~ereval.results.EstimateCurve` on the axis ``"labels"`` (the distinct
labelled pairs after each step): how the intervals narrow as labels are spent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._errors import InputError
from .._validation import check_in_range, check_int
from ..results import EstimateCurve, FrameRepr, json_ready
from ._base import Oracle, Sampler
from ._estimates import Estimates

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Convergence", "convergence"]

#: The measures of each step, in order.
MEASURES = ("f_measure", "precision", "recall")


@dataclass(frozen=True, eq=False)
class Convergence(FrameRepr):
    """A sampler's estimates after each step of its label budget.

    Attributes
    ----------
    curve : ereval.results.EstimateCurve
        On the axis ``"labels"`` (distinct labelled pairs after each step), the
        quantities ``f_measure``, ``precision`` and ``recall``.
    final : Estimates
        The estimates after the last step.
    pool_size : int
        Pairs in the sampler's pool.
    """

    curve: EstimateCurve
    final: Estimates
    pool_size: int

    def to_dict(self) -> dict[str, Any]:
        """``pool_size``, ``final`` (:meth:`Estimates.to_dict`) and ``curve``
        (:meth:`EstimateCurve.to_dict`), in plain JSON types."""
        out: dict[str, Any] = json_ready(
            {
                "pool_size": self.pool_size,
                "final": self.final.to_dict(),
                "curve": self.curve.to_dict(),
            }
        )
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per step (:meth:`EstimateCurve.to_frame`)."""
        return self.curve.to_frame()


def budget_steps(budget: int, *, steps: int = 25, first: int = 20) -> list[int]:
    """``steps`` budgets evenly from ``min(first, budget)`` to ``budget``, rounded, distinct.

    >>> budget_steps(100, steps=5)
    [20, 40, 60, 80, 100]
    """
    budget = check_int("budget", budget, minimum=1)
    steps = check_int("steps", steps, minimum=1)
    first = check_int("first", first, minimum=1)
    grid = np.unique(np.linspace(min(first, budget), budget, steps).round().astype(int))
    return [int(b) for b in grid]


def convergence(
    sampler: Sampler,
    budget: int,
    oracle: Oracle | None = None,
    *,
    steps: int = 25,
    first: int = 20,
    confidence: float = 0.95,
) -> Convergence:
    """Run ``sampler`` to ``steps`` growing budgets up to ``budget`` and keep each estimate.

    Parameters
    ----------
    sampler : ereval.oasis.Sampler
        Any sampler of :func:`ereval.oasis.make_sampler`; it is run further at each
        step (its labels accumulate).
    budget : int
        The last budget (distinct labels); at most the pool's size.
    oracle : callable, optional
        Answers the sampler's queries; the pool's labels by default.
    steps, first : int
        The budgets: ``steps`` values evenly from ``min(first, budget)`` to
        ``budget`` (:func:`budget_steps`).
    confidence : float, default 0.95
        Level of the intervals.

    Returns
    -------
    Convergence

    Examples
    --------
    >>> from ereval.oasis import make_sampler, synthetic_pool
    >>> sampler = make_sampler("oasis", synthetic_pool(2_000, imbalance=20, seed=1), seed=0)
    >>> run = convergence(sampler, 100, steps=5)
    >>> run.curve.points.tolist(), run.final.labels_used
    ([20, 40, 60, 80, 100], 100)
    """
    if not isinstance(sampler, Sampler):
        raise InputError(f"'sampler' must be an ereval.oasis sampler; received {type(sampler)!r}")
    level = check_in_range(
        "confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True
    )
    budgets = budget_steps(budget, steps=steps, first=first)
    used: list[int] = []
    runs: list[Estimates] = []
    for b in budgets:
        est = sampler.run(oracle, budget=b, confidence=level)
        used.append(est.labels_used)
        runs.append(est)
    curve = EstimateCurve.from_estimates(
        "labels",
        used,
        {name: [getattr(e, name) for e in runs] for name in MEASURES},
        level=level,
        method=sampler.method,
    )
    return Convergence(curve, runs[-1], sampler.pool.size)
