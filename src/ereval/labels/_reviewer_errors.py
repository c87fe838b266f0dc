"""Reviewer errors in a cluster review: the rate from double-reviewed items and its effect.

For each drawn record ``r`` that two reviewers labelled (the first two, by order
of labelling; adjudications left out), the candidate decisions are the records
of ``ĉ(r) ∪ c_1(r) ∪ c_2(r)`` other than ``r`` (its predicted cluster and the two
true clusters the reviewers gave), the disagreements those in exactly one of
``c_1(r)``, ``c_2(r)``, and the "belongs" decisions those in ``c_1(r)`` plus
those in ``c_2(r)``. :func:`ereval.estimators.reviewer_error_rate` turns them
into the per-decision error rate and the over- and under-clustering rates given
the label; :func:`reviewer_error_study` then runs
:func:`ereval.estimators.reviewer_sensitivity` on the session's benchmark at
those rates, and at the upper ends of their intervals.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from ..estimators import (
    ReviewerErrorRate,
    ReviewerSensitivity,
    reviewer_error_rate,
    reviewer_sensitivity,
)
from ..results import FrameRepr, json_ready
from ._exports import export_labels
from ._review import ClusterReview
from ._store import LabelStore

__all__ = ["ReviewerErrorStudy", "double_review_counts", "reviewer_error_study"]

IntArray = npt.NDArray[np.int64]


def double_review_counts(store: LabelStore, session: str) -> tuple[IntArray, IntArray, IntArray]:
    """``(decisions, disagreements, included)`` per double-reviewed drawn record.

    Raises :class:`~ereval.InputError` for a session that is not a cluster review.
    """
    kind = store.session(session).kind
    if kind != "cluster":
        raise InputError(
            f"reviewer errors are estimated from a cluster review; session '{session}' is a "
            f"{kind} session"
        )
    review = ClusterReview(store, session)
    order: dict[str, list[str]] = {}
    for event in store.current_events(session):
        if event.action == "label" and event.item is not None:
            who = order.setdefault(event.item, [])
            if event.reviewer not in who:
                who.append(event.reviewer)
    labels = store.labels(session)
    decisions: list[int] = []
    disagreements: list[int] = []
    included: list[int] = []
    for item, who in order.items():
        given = labels.get(item, {})
        values = [given[r] for r in who if isinstance(given.get(r), dict)]
        if len(values) < 2:
            continue
        first = {str(x) for x in values[0].get("true_cluster", ())} - {item}
        second = {str(x) for x in values[1].get("true_cluster", ())} - {item}
        candidates = (set(review.predicted_cluster(item)) | first | second) - {item}
        decisions.append(len(candidates))
        disagreements.append(len(first ^ second))
        included.append(len(first) + len(second))
    as_int = np.int64
    return (
        np.asarray(decisions, dtype=as_int),
        np.asarray(disagreements, dtype=as_int),
        np.asarray(included, dtype=as_int),
    )


@dataclass(frozen=True, eq=False)
class ReviewerErrorStudy(FrameRepr):
    """The reviewers' error rate and the estimates' sensitivity to it.

    Attributes
    ----------
    rate : ReviewerErrorRate
    at_estimate : ReviewerSensitivity
        The sensitivity table at the estimated over- and under-clustering rates.
    at_upper : ReviewerSensitivity
        The same at the upper ends of their intervals.
    """

    rate: ReviewerErrorRate
    at_estimate: ReviewerSensitivity
    at_upper: ReviewerSensitivity

    def to_dict(self) -> dict[str, Any]:
        """``rate``, ``at_estimate`` and ``at_upper`` as their ``to_dict``."""
        out: dict[str, Any] = json_ready(
            {
                "rate": self.rate.to_dict(),
                "at_estimate": self.at_estimate.to_dict(),
                "at_upper": self.at_upper.to_dict(),
            }
        )
        return out

    def to_frame(self) -> pd.DataFrame:
        """The two sensitivity tables, with a column ``rates`` (``estimate``/``upper``)."""
        return pd.concat(
            [
                self.at_estimate.to_frame().assign(rates="estimate"),
                self.at_upper.to_frame().assign(rates="upper"),
            ],
            ignore_index=True,
        )


def _rate(value: float) -> float:
    return 0.0 if math.isnan(value) else min(max(value, 0.0), 1.0)


def reviewer_error_study(
    store: LabelStore,
    session: str,
    *,
    level: float = 0.95,
    repeats: int = 200,
    seed: int | None = None,
    metrics: str | Iterable[str] | None = None,
) -> ReviewerErrorStudy:
    """Estimate a cluster review's reviewer error rate and its effect on each estimate.

    Parameters
    ----------
    store : LabelStore
    session : str
        A cluster review with double-reviewed items (``overlap > 0``).
    level : float, default 0.95
        Confidence level of the rates' intervals and the shifts' ranges.
    repeats, seed
        Of the sensitivity study (:func:`ereval.estimators.reviewer_sensitivity`).
    metrics : str or list of str, optional
        Estimator keys (default: all the sample allows).

    Returns
    -------
    ReviewerErrorStudy
    """
    decisions, disagreements, included = double_review_counts(store, session)
    if decisions.shape[0] < 2:
        raise InputError(
            f"session '{session}' has {decisions.shape[0]} item(s) labelled by two reviewers; "
            "the error rate needs at least 2 (create the session with an overlap, e.g. "
            "--overlap 0.2)"
        )
    rate = reviewer_error_rate(decisions, disagreements, included, level=level)
    review = ClusterReview(store, session)
    exported = export_labels(store, session, kind="benchmark")
    frame = exported.frame.drop(columns=["tags"])
    pred = review.prediction
    common: dict[str, Any] = {
        "design": exported.design,
        "repeats": repeats,
        "seed": seed,
        "metrics": metrics,
        "level": level,
    }
    at_estimate = reviewer_sensitivity(
        pred, frame, over=_rate(rate.over.value), under=_rate(rate.under.value), **common
    )
    at_upper = reviewer_sensitivity(
        pred, frame, over=_rate(rate.over.upper), under=_rate(rate.under.upper), **common
    )
    return ReviewerErrorStudy(rate, at_estimate, at_upper)
