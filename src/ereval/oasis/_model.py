"""The pure maths of OASIS: initial guesses, Beta-Bernoulli posterior, instrumental pmf.

Notation of Marchant & Rubinstein (2017): ``K`` strata with weights
``omega_k = N_k / N``, mean prediction ``lambda_k`` and match probability
``pi_k``; ``alpha`` weighs precision against recall in

.. math:: F_\\alpha = \\frac{TP}{\\alpha (TP + FP) + (1 - \\alpha)(TP + FN)}.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "epsilon_greedy",
    "initial_f_guess",
    "optimal_item_weights",
    "optimal_strata_weights",
    "posterior_mean",
    "prior_pseudo_counts",
]

FloatArray = npt.NDArray[np.float64]


def initial_f_guess(alpha: float, sizes: Any, pi: Any, lam: Any) -> float:
    """Guess of F-alpha from score-based match probabilities (Algorithm 2, line 8).

    .. math:: \\hat F^{(0)}_\\alpha = \\frac{\\sum_k N_k \\pi_k \\lambda_k}
              {\\alpha \\sum_k N_k \\lambda_k + (1 - \\alpha) \\sum_k N_k \\pi_k}

    Works per stratum (``sizes = N_k``) or per pair (``sizes = 1``).  Returns 1/2
    when the denominator is 0.

    Examples
    --------
    >>> initial_f_guess(0.5, [2, 8], [0.5, 0.0], [1.0, 0.0])
    0.6666666666666666
    """
    n = np.asarray(sizes, dtype=np.float64)
    p = np.asarray(pi, dtype=np.float64)
    lm = np.asarray(lam, dtype=np.float64)
    num = float(np.sum(n * p * lm))
    den = alpha * float(np.sum(n * lm)) + (1.0 - alpha) * float(np.sum(n * p))
    return num / den if den > 0 else 0.5


def prior_pseudo_counts(pi0: Any, strength: float) -> tuple[FloatArray, FloatArray]:
    """Beta prior of each stratum: ``gamma_1 = s pi0_k`` matches and
    ``gamma_0 = s (1 - pi0_k)`` non-matches, with ``s`` pseudo-labels per stratum.

    (The paper's eq. after Algorithm 2 writes the prior as ``eta [pi0; 1 - pi0]``,
    ``s = eta``; the samplers pass ``s = eta / K`` by default, as the authors' code
    does, and ``s = eta`` with ``prior_scale="per_stratum"``; see
    :class:`~ereval.oasis.OASISSampler`.)
    """
    p = np.asarray(pi0, dtype=np.float64)
    return strength * p, strength * (1.0 - p)


def posterior_mean(
    n_match: Any,
    n_labelled: Any,
    prior_match: Any,
    prior_nonmatch: Any,
    *,
    decaying: bool = True,
) -> FloatArray:
    """Posterior mean of each stratum's match probability (eqs. 10-11, Remark 4).

    .. math:: \\hat\\pi_k = \\frac{m_k + c_k \\gamma_{1,k}}{n_k + c_k (\\gamma_{1,k} + \\gamma_{0,k})},
              \\qquad c_k = 1 / \\max(n_k, 1) \\text{ (decaying prior) or } 1,

    with ``m_k`` matches among ``n_k`` labels drawn from stratum ``k``.

    Examples
    --------
    Prior 1.5 matches / 0.5 non-matches, then 1 match in 3 labels: with a decaying
    prior ``(1 + 1.5/3) / (3 + 2/3) = 0.409``; without it ``2.5 / 5 = 0.5``.

    >>> posterior_mean([1], [3], [1.5], [0.5]).round(3).tolist()
    [0.409]
    >>> posterior_mean([1], [3], [1.5], [0.5], decaying=False).tolist()
    [0.5]
    """
    m = np.asarray(n_match, dtype=np.float64)
    n = np.asarray(n_labelled, dtype=np.float64)
    g1 = np.asarray(prior_match, dtype=np.float64)
    g0 = np.asarray(prior_nonmatch, dtype=np.float64)
    c = 1.0 / np.maximum(n, 1.0) if decaying else np.ones_like(n)
    out: FloatArray = (m + c * g1) / (n + c * (g1 + g0))
    return out


def optimal_strata_weights(alpha: float, f: float, pi: Any, lam: Any, weights: Any) -> FloatArray:
    """Stratified asymptotically optimal instrumental pmf ``v*`` (paper §4.2.3).

    .. math:: v^*_k \\propto \\omega_k \\Big[(1 - \\alpha)(1 - \\lambda_k) F \\sqrt{\\pi_k}
              + \\lambda_k \\sqrt{\\alpha^2 F^2 (1 - \\pi_k) + (1 - F)^2 \\pi_k}\\Big]

    Normalised to sum to 1; when every term is 0 the pmf is ``omega`` (passive).

    Examples
    --------
    Two strata of equal weight, one all predicted matches with ``pi = 0.5``, one
    all non-matches with ``pi = 0.04``; ``alpha = 1/2``, ``F = 1/2``:
    terms ``sqrt(1/16 * 1/2 + 1/4 * 1/2) = 0.3953`` and ``1/2 * 1/2 * 0.2 = 0.05``.

    >>> optimal_strata_weights(0.5, 0.5, [0.5, 0.04], [1.0, 0.0], [0.5, 0.5]).round(4).tolist()
    [0.8877, 0.1123]
    """
    p = np.asarray(pi, dtype=np.float64)
    lm = np.asarray(lam, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    a2f2 = (alpha * f) ** 2
    raw = w * (
        (1.0 - alpha) * (1.0 - lm) * f * np.sqrt(p)
        + lm * np.sqrt(np.maximum(a2f2 * (1.0 - p) + (1.0 - f) ** 2 * p, 0.0))
    )
    total = float(raw.sum())
    if not math.isfinite(total) or total <= 0.0:
        out: FloatArray = w / float(w.sum())
        return out
    out = raw / total
    return out


def optimal_item_weights(alpha: float, f: float, prob: Any, pred: Any) -> FloatArray:
    """Pair-level asymptotically optimal pmf ``q*`` of eq. (5) for a uniform ``p(z)``.

    .. math:: q^*(z) \\propto (1 - \\alpha)(1 - \\hat\\ell(z)) F \\sqrt{p(1|z)}
              + \\hat\\ell(z) \\sqrt{\\alpha^2 F^2 (1 - p(1|z)) + (1 - F)^2 p(1|z)}

    (Sawade et al. 2010), with ``p(1|z)`` replaced by the pool's probabilities.
    """
    n = np.asarray(pred, dtype=np.float64).size
    return optimal_strata_weights(alpha, f, prob, pred, np.full(n, 1.0 / n) if n else [])


def epsilon_greedy(optimal: Any, passive: Any, epsilon: float) -> FloatArray:
    """The epsilon-greedy mixture of eq. (12): ``v = epsilon omega + (1 - epsilon) v*``.

    >>> epsilon_greedy([0.9, 0.1], [0.5, 0.5], 0.1).round(12).tolist()
    [0.86, 0.14]
    """
    out: FloatArray = epsilon * np.asarray(passive, dtype=np.float64) + (
        1.0 - epsilon
    ) * np.asarray(optimal, dtype=np.float64)
    return out
