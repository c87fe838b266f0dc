"""The reviewers' error rate, estimated from items that two reviewers labelled.

A reviewer of a drawn record ``r`` decides, for each candidate record ``x`` (the
records of ``r``'s predicted cluster, and those a reviewer added from search),
whether ``x`` belongs with ``r``. The model: every decision of every reviewer is
wrong with the same probability ``eps``, independently of the other reviewer and
of the other decisions (the symmetric, conditionally independent error model of
Dawid & Skene 1979 with two classes). Two reviewers then disagree on a decision
with probability::

    delta = 2 eps (1 - eps),   so   eps = (1 - sqrt(1 - 2 delta)) / 2   (delta <= 1/2)

whatever the truth is. ``delta`` is estimated from the double-reviewed items
``i`` (``m_i`` candidate decisions, ``d_i`` disagreements) by the ratio
estimator ``delta_hat = sum d_i / sum m_i`` with the items as sampled units (the
decisions within an item are not independent), its Taylor variance and its
interval (:func:`ereval.estimators.ratio_estimate`); ``eps_hat`` and its
interval are the map above applied to ``delta_hat`` and to the interval's ends
(the map is increasing, so the coverage is that of ``delta``'s interval).

What the sensitivity study (:mod:`ereval.estimators._reviewer_errors`) needs are
the error rates *given the label*: of the records a reviewer put with ``r``, the
share that does not belong (over-clustering), and of the candidates the reviewer
left out, the share that does belong (under-clustering). With ``q`` the share of
decisions that say "belongs" (``q = pi (1 - eps) + (1 - pi) eps``, ``pi`` the
true share) Bayes' rule gives::

    pi = (q - eps) / (1 - 2 eps)
    over  = P(wrong | "belongs")        = eps (1 - pi) / q
    under = P(wrong | "does not belong") = eps pi / (1 - q)

(``pi`` clipped into ``[0, 1]`` when ``q`` lies outside ``[eps, 1 - eps]``, with ``q``
then the model's ``pi (1 - eps) + (1 - pi) eps``, so that both rates stay in ``[0, 1]``.)

Their intervals map the ends of ``eps``'s interval with ``q`` held at its
estimate (``q`` comes from all decisions of both reviewers and is far better
determined than ``eps``).

Reference: A. P. Dawid and A. M. Skene (1979), Maximum likelihood estimation of
observer error-rates using the EM algorithm, Applied Statistics 28(1), 20-28;
Binette et al. (2022, §2.2) on reviewers' disagreement in benchmark data sets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from ..results import UNIT_RANGE, Estimate, FrameRepr, json_ready, normal_quantile
from ._ratio import ratio_estimate

__all__ = ["ReviewerErrorRate", "error_from_disagreement", "label_rates", "reviewer_error_rate"]

FloatArray = npt.NDArray[np.float64]


def error_from_disagreement(delta: npt.ArrayLike) -> FloatArray:
    """``eps = (1 - sqrt(1 - 2 delta)) / 2``, with ``delta`` above 1/2 mapped to 1/2.

    >>> error_from_disagreement([0.0, 0.18, 0.5, 0.7]).tolist()
    [0.0, 0.1, 0.5, 0.5]
    """
    d = np.clip(np.asarray(delta, dtype=np.float64), 0.0, 0.5)
    out: FloatArray = np.round((1.0 - np.sqrt(1.0 - 2.0 * d)) / 2.0, 15)
    return out


def label_rates(eps: float, q: float) -> tuple[float, float]:
    """``(over, under)``: the chance that a decision is wrong given its label.

    ``eps`` the per-decision error rate, ``q`` the share of decisions saying
    "belongs"; see the module docstring. NaN for a rate whose label never
    occurs under the model (``eps = 0`` with ``q`` 0 or 1).

    >>> over, under = label_rates(0.1, 0.5)
    >>> round(over, 6), round(under, 6)
    (0.1, 0.1)
    """
    if math.isnan(eps) or math.isnan(q):
        return math.nan, math.nan
    if eps >= 0.5:
        pi = 0.5
    else:
        pi = min(max((q - eps) / (1.0 - 2.0 * eps), 0.0), 1.0)
    # the share of "belongs" labels the model gives with this pi: q itself unless pi was
    # clipped into [0, 1] (q outside [eps, 1 - eps]), which keeps both rates in [0, 1]
    q_model = pi * (1.0 - eps) + (1.0 - pi) * eps
    over = min(eps * (1.0 - pi) / q_model, 1.0) if q_model > 0 else math.nan
    under = min(eps * pi / (1.0 - q_model), 1.0) if q_model < 1 else math.nan
    return over, under


@dataclass(frozen=True, eq=False)
class ReviewerErrorRate(FrameRepr):
    """The reviewers' error rate per decision and the rates given the label.

    Attributes
    ----------
    disagreement : Estimate
        ``delta``, the share of candidate decisions on which two reviewers differ.
    error : Estimate
        ``eps``, the chance that one reviewer's decision is wrong.
    over, under : Estimate
        The over- and under-clustering rates given the label (module docstring),
        the rates :func:`ereval.estimators.reviewer_sensitivity` takes.
    items : int
        Double-reviewed items used.
    decisions : int
        Candidate decisions over those items.
    included : float
        ``q``, the share of decisions (both reviewers) saying "belongs".
    """

    disagreement: Estimate
    error: Estimate
    over: Estimate
    under: Estimate
    items: int
    decisions: int
    included: float

    def rows(self) -> dict[str, Estimate]:
        """The four estimates by name."""
        return {
            "disagreement": self.disagreement,
            "error": self.error,
            "over": self.over,
            "under": self.under,
        }

    def to_dict(self) -> dict[str, Any]:
        """Each estimate's :meth:`~ereval.Estimate.to_dict`, and the counts."""
        out: dict[str, Any] = json_ready(
            {
                **{k: e.to_dict() for k, e in self.rows().items()},
                "items": self.items,
                "decisions": self.decisions,
                "included": self.included,
            }
        )
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per rate: ``rate, value, std, lower, upper, n``."""
        return pd.DataFrame(
            [
                {
                    "rate": k,
                    "value": e.value,
                    "std": e.std,
                    "lower": e.lower,
                    "upper": e.upper,
                    "n": e.n,
                }
                for k, e in self.rows().items()
            ]
        )


def _mapped(value: float, lo: float, hi: float, e: Estimate, method: str) -> Estimate:
    return Estimate(value, math.nan, (lo, hi), e.level, e.n, method, e.warnings)


def reviewer_error_rate(
    decisions: npt.ArrayLike,
    disagreements: npt.ArrayLike,
    included: npt.ArrayLike,
    *,
    level: float = 0.95,
) -> ReviewerErrorRate:
    """Estimate the per-decision error rate of reviewers from double-reviewed items.

    Parameters
    ----------
    decisions : array_like of int
        ``m_i``: candidate decisions of item ``i`` (records that either reviewer
        could put with the drawn record, the drawn record itself excluded).
    disagreements : array_like of int
        ``d_i``: of those, how many the two reviewers decided differently.
    included : array_like of int
        How many "belongs" decisions the two reviewers made together (0..2 m_i).
    level : float, default 0.95
        Confidence level.

    Returns
    -------
    ReviewerErrorRate
        ``disagreement`` is the ratio estimate of ``delta`` (standard error and
        interval as for the estimators); ``error``, ``over`` and ``under`` carry
        the mapped value and interval (their ``std`` is NaN).

    Raises
    ------
    InputError
        Arrays of different lengths, negative counts, ``d_i > m_i``,
        ``included > 2 m_i``, fewer than 2 items or no decision at all.

    Examples
    --------
    Four items of 5 decisions, the reviewers disagreeing on one decision in two of them:

    >>> r = reviewer_error_rate([5, 5, 5, 5], [1, 0, 1, 0], [6, 4, 5, 4])
    >>> round(r.disagreement.value, 4), round(r.error.value, 4)
    (0.1, 0.0528)
    """
    normal_quantile(level)
    m = np.asarray(decisions, dtype=np.float64)
    d = np.asarray(disagreements, dtype=np.float64)
    inc = np.asarray(included, dtype=np.float64)
    if not (m.ndim == d.ndim == inc.ndim == 1) or not (m.shape == d.shape == inc.shape):
        raise InputError(
            f"'decisions', 'disagreements' and 'included' must be 1-d of one length; received "
            f"shapes {m.shape}, {d.shape} and {inc.shape}"
        )
    if (m < 0).any() or (d < 0).any() or (inc < 0).any() or (d > m).any() or (inc > 2 * m).any():
        raise InputError(
            "'disagreements' must lie in 0..decisions and 'included' in 0..2*decisions per item"
        )
    if m.shape[0] < 2 or m.sum() == 0:
        raise InputError(
            f"the error rate needs at least 2 double-reviewed items with decisions; received "
            f"{m.shape[0]} item(s) with {int(m.sum())} decision(s)"
        )
    delta = ratio_estimate(
        d,
        m,
        level=level,
        name="disagreement",
        form="",
        bounds=UNIT_RANGE,
        proportion=True,
        design="",
    )
    eps_value, eps_lo, eps_hi = (
        float(x) for x in error_from_disagreement([delta.value, delta.lower, delta.upper])
    )
    q = float(inc.sum() / (2.0 * m.sum()))
    method = "symmetric independent error model, mapped from the disagreement's interval"
    error = _mapped(eps_value, eps_lo, eps_hi, delta, method)
    rates = [label_rates(x, q) for x in (eps_value, eps_lo, eps_hi)]
    over_lo, over_hi = sorted((rates[1][0], rates[2][0]))
    under_lo, under_hi = sorted((rates[1][1], rates[2][1]))
    over = _mapped(rates[0][0], over_lo, over_hi, delta, method)
    under = _mapped(rates[0][1], under_lo, under_hi, delta, method)
    return ReviewerErrorRate(delta, error, over, under, int(m.shape[0]), int(m.sum()), q)
