"""Synthetic pools with a known, controllable class imbalance (for tests and benchmarks)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import check_in_range, check_int, check_rng
from ._pool import Pool

__all__ = ["synthetic_pool"]


def synthetic_pool(
    n_pairs: int,
    *,
    imbalance: float = 1000.0,
    separation: float = 4.5,
    seed: Any = None,
) -> Pool:
    """A pool of SVM-margin-like scores with calibrated probabilities and labels.

    Labels are Bernoulli with match rate ``1 / (1 + imbalance)``; scores are
    Gaussian with unit variance, centred at ``+1`` for matches and
    ``1 - separation`` for non-matches; the prediction is ``score >= 0``.  The
    exact posterior match probability is logistic in the score,

    .. math:: p(1|s) = \\operatorname{expit}\\big(\\log\\tfrac{\\rho}{1-\\rho}
              + d\\,(s - \\mu_1 + d/2)\\big), \\quad d = \\text{separation},

    so the pool's probabilities are calibrated.  With the defaults about 84% of
    the matches are predicted and a pool of 10^5 pairs has ~100 matches,
    F1 about 0.8.

    Examples
    --------
    >>> pool = synthetic_pool(10_000, imbalance=100, seed=0)
    >>> pool.size, int(pool.labels.sum())
    (10000, 87)
    """
    n = check_int("n_pairs", n_pairs, minimum=1)
    ratio = check_in_range("imbalance", imbalance, low=0.0, low_open=True)
    d = check_in_range("separation", separation, low=0.0, low_open=True)
    rng = check_rng(seed)
    rate = 1.0 / (1.0 + ratio)
    labels = (rng.random(n) < rate).astype(np.int8)
    mu1 = 1.0
    mu0 = mu1 - d
    scores = rng.normal(np.where(labels == 1, mu1, mu0), 1.0)
    logit = math.log(rate / (1.0 - rate)) + d * (scores - (mu1 + mu0) / 2.0)
    probs = 0.5 * (1.0 + np.tanh(0.5 * logit))
    return Pool.from_arrays(
        scores,
        (scores >= 0.0).astype(np.int8),
        labels=labels,
        probabilities=probs,
        score_kind="real",
        threshold=0.0,
    )
