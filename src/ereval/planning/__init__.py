"""Plan a labelling campaign: how many draws each design needs for a target precision.

>>> from ereval.planning import required_draws
>>> required_draws(0.5, 0.02, 1.959964)  # n = ceil((z sigma / h)^2)
2401

See ``docs/planning.md`` for the formulas and how a plan is checked.
"""

from __future__ import annotations

from ._formulas import assured_half_width, expected_half_width, fpc, required_draws
from ._plan import DEFAULT_METRICS, PlanResult, check_plan, plan, plan_designs

__all__ = [
    "DEFAULT_METRICS",
    "PlanResult",
    "assured_half_width",
    "check_plan",
    "expected_half_width",
    "fpc",
    "plan",
    "plan_designs",
    "required_draws",
]
