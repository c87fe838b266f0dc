"""Small numeric helpers shared by the metric modules."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from .._validation import check_beta

__all__ = ["check_beta", "coref_prf", "coref_scores", "f_beta", "ratio"]

FloatArray = npt.NDArray[np.float64]


def ratio(num: float, den: float) -> float:
    """``num / den``, or NaN for an undefined ``0 / 0`` (never a silent 1.0)."""
    if den == 0:
        return math.nan
    return float(num / den)


def f_beta(precision: float, recall: float, beta: float = 1.0) -> float:
    """Weighted harmonic mean ``(1 + b^2) P R / (b^2 P + R)``.

    NaN if either input is NaN; 0 when both are 0.
    """
    if math.isnan(precision) or math.isnan(recall):
        return math.nan
    b2 = beta * beta
    den = b2 * precision + recall
    if den == 0:
        return 0.0
    return float((1 + b2) * precision * recall / den)


def coref_prf(
    num_r: float, den_r: float, num_p: float, den_p: float, beta: float = 1.0
) -> tuple[float, float, float]:
    """Recall, precision and F as the CoNLL reference scorer (v8.01) computes them.

    An empty denominator gives 0 for that score, and F is 0 whenever either
    denominator is empty or ``P + R = 0``.
    """
    r = num_r / den_r if den_r > 0 else 0.0
    p = num_p / den_p if den_p > 0 else 0.0
    if den_r <= 0 or den_p <= 0:
        return float(r), float(p), 0.0
    b2 = beta * beta
    den = b2 * p + r
    f = (1 + b2) * p * r / den if den > 0 else 0.0
    return float(r), float(p), float(f)


def coref_scores(
    prefix: str, num_r: float, den_r: float, num_p: float, den_p: float, beta: float = 1.0
) -> dict[str, float]:
    """``<prefix>_precision``, ``_recall`` and ``_f1`` of :func:`coref_prf`, and
    ``_fbeta`` when ``beta`` is not 1."""
    r, p, f = coref_prf(num_r, den_r, num_p, den_p)
    out = {f"{prefix}_precision": p, f"{prefix}_recall": r, f"{prefix}_f1": f}
    if beta != 1.0:
        out[f"{prefix}_fbeta"] = coref_prf(num_r, den_r, num_p, den_p, beta)[2]
    return out
