"""Agreement between reviewers: Cohen's kappa and Krippendorff's alpha (nominal data).

Cohen's kappa compares two raters over the units both labelled::

    kappa = (p_o - p_e) / (1 - p_e),   p_e = sum_k p_1k p_2k

(Cohen 1960). Krippendorff's alpha for nominal data takes any number of
raters per unit, with missing values, from the coincidence matrix
``o_ck = sum_u (pairs of values c, k in unit u) / (m_u - 1)`` over the units
with ``m_u >= 2`` values::

    alpha = 1 - (n - 1) sum_{c != k} o_ck / sum_{c != k} n_c n_k

(Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"). Both are
``nan`` when undefined (no pairable unit, or a single category throughout).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._errors import InputError

if TYPE_CHECKING:
    import pandas as pd

from ..results import FrameRepr
from ._common import canonical
from ._store import LabelStore

__all__ = ["Agreement", "cohen_kappa", "krippendorff_alpha", "session_agreement"]


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float:
    """Cohen's kappa of two raters' labels of the same units.

    Examples
    --------
    >>> round(cohen_kappa(["y", "y", "n", "n"], ["y", "n", "n", "n"]), 4)
    0.5
    """
    if len(first) != len(second):
        raise InputError(
            f"'second' must have one label per unit of 'first' ({len(first)}); "
            f"received {len(second)}"
        )
    n = len(first)
    if n == 0:
        return math.nan
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    c1, c2 = Counter(first), Counter(second)
    expected = sum(c1[k] * c2[k] for k in c1) / (n * n)
    if expected == 1.0:
        return math.nan
    return (observed - expected) / (1.0 - expected)


def krippendorff_alpha(units: Sequence[Sequence[Hashable]]) -> float:
    """Krippendorff's alpha for nominal data; ``units`` lists each unit's values.

    Units with fewer than two values are not pairable and are left out.

    Examples
    --------
    Krippendorff's (2011) reliability data, 4 observers and 12 units
    (missing values left out); he reports alpha = 0.743:

    >>> data = [[1, 1, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2],
    ...         [1, 2, 3, 4], [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [5, 5, 5],
    ...         [1, 1], [3]]
    >>> round(krippendorff_alpha(data), 3)
    0.743
    """
    coincidence: dict[tuple[Hashable, Hashable], float] = {}
    for values in units:
        m = len(values)
        if m < 2:
            continue
        counts = Counter(values)
        for c, nc in counts.items():
            for k, nk in counts.items():
                pairs = nc * (nk - 1) if c == k else nc * nk
                if pairs:
                    coincidence[(c, k)] = coincidence.get((c, k), 0.0) + pairs / (m - 1)
    totals: dict[Hashable, float] = {}
    for (c, _), v in coincidence.items():
        totals[c] = totals.get(c, 0.0) + v
    n = sum(totals.values())
    disagree = sum(v for (c, k), v in coincidence.items() if c != k)
    expected = sum(totals[c] * totals[k] for c in totals for k in totals if c != k)
    if n <= 1 or expected == 0:
        return math.nan
    return 1.0 - (n - 1) * disagree / expected


@dataclass(frozen=True)
class Agreement(FrameRepr):
    """Agreement of a session's reviewers over the items labelled by two or more.

    Attributes
    ----------
    units : int
        Items labelled by at least two reviewers.
    agreed, disagreed : int
        Of those, how many have all labels equal.
    kappa : float
        Cohen's kappa between each unit's first two reviewers (by order of labelling).
    alpha : float
        Krippendorff's alpha (nominal) over all labels of those units.
    table : dict
        Counts of (first reviewer's label, second reviewer's label).
    """

    units: int
    agreed: int
    disagreed: int
    kappa: float
    alpha: float
    table: dict[tuple[Any, Any], int]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (``nan`` -> ``None``; the table as a list of rows)."""
        return {
            "units": self.units,
            "agreed": self.agreed,
            "disagreed": self.disagreed,
            "cohen_kappa": None if math.isnan(self.kappa) else self.kappa,
            "krippendorff_alpha": None if math.isnan(self.alpha) else self.alpha,
            "table": [
                {"first": _plain(a), "second": _plain(b), "count": c}
                for (a, b), c in sorted(self.table.items(), key=lambda kv: str(kv[0]))
            ],
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per pair of labels: ``first, second, count`` (:attr:`table`)."""
        import pandas as pd

        return pd.DataFrame(self.to_dict()["table"], columns=["first", "second", "count"])


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def session_agreement(store: LabelStore, session: str) -> Agreement:
    """Agreement between the reviewers of a session (adjudications excluded)."""
    order: dict[str, list[str]] = {}
    for event in store.current_events(session):
        if event.action == "label" and event.item is not None:
            who = order.setdefault(event.item, [])
            if event.reviewer not in who:
                who.append(event.reviewer)
    labels = store.labels(session)
    units: list[list[Hashable]] = []
    first: list[Hashable] = []
    second: list[Hashable] = []
    agreed = 0
    for item, who in order.items():
        values = [canonical(labels[item][r]) for r in who if r in labels.get(item, {})]
        if len(values) < 2:
            continue
        units.append(values)
        first.append(values[0])
        second.append(values[1])
        agreed += len(set(values)) == 1
    table = Counter(zip(first, second, strict=True))
    return Agreement(
        units=len(units),
        agreed=agreed,
        disagreed=len(units) - agreed,
        kappa=cohen_kappa(first, second),
        alpha=krippendorff_alpha(units),
        table=dict(table),
    )
