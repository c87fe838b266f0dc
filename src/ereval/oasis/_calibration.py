r"""How far to trust the pool's match probabilities: a recalibration learnt from the labels.

The model of the unlabelled pairs (:mod:`ereval.oasis._intervals`) starts from the
pool's match probabilities ``p``, which may be miscalibrated (a score mapped to a
probability by a guess, a classifier trained on other data).  The labelled pairs
say by how much.  With ``l = logit p`` the labels are modelled as

.. math:: P(y = 1 \mid p) = \operatorname{expit}(\delta + l), \qquad \delta \sim N(0, 2^2),

a shift of the log-odds (the intercept of a logistic recalibration, Cox 1958),
``delta = 0`` when the probabilities are calibrated.  The prior lets the
probabilities be off by a factor of up to ``e^4`` (about 55) in the odds, so that
a handful of labels gives a wide model; labels pin ``delta`` down.  Which pairs get
labelled depends only on their scores and on earlier labels, so the labelled
pairs' labels are a fair sample given ``p`` and the fit needs no weights.

A slope (``expit(delta + beta l)``) is not fitted: the samplers label mostly the
few high-score strata, and a slope learnt there is extrapolated to the far tail,
where most pairs are.  In seeded runs (``docs/oasis.md``) a fitted slope, or
only its uncertainty, widened the intervals several-fold (restaurant, importance
sampling, 2,000 labels: 0.42 against 0.20) and on the Amazon-Google stand-in
made them miss the true value more often.

The posterior of ``delta`` is approximated by a normal distribution at its mode
(Laplace) and integrated by three sigma points (the unscented transform of
Julier & Uhlmann 1997 in one dimension, ``kappa = 2``): the mode with weight 2/3
and the mode ``+- sqrt(3)`` standard deviations, 1/6 each.

References
----------
D. R. Cox, "Two further applications of a model for binary regression",
Biometrika 45, 1958.  S. J. Julier and J. K. Uhlmann, "A new extension of the
Kalman filter to nonlinear systems", 1997.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["PRIOR_SHIFT_SD", "Recalibration", "logit", "recalibrate"]

FloatArray = npt.NDArray[np.float64]

#: Prior standard deviation of the shift ``delta`` of the log-odds.
PRIOR_SHIFT_SD = 2.0

_CLIP = 1e-12


def logit(p: FloatArray) -> FloatArray:
    """``log(p / (1 - p))`` with ``p`` clipped to ``[1e-12, 1 - 1e-12]``.

    >>> logit(np.array([0.5, 0.0])).round(2).tolist()
    [0.0, -27.63]
    """
    q = np.clip(np.asarray(p, dtype=np.float64), _CLIP, 1.0 - _CLIP)
    out: FloatArray = np.log(q) - np.log1p(-q)
    return out


def _expit(x: FloatArray) -> FloatArray:
    out: FloatArray = 0.5 * (1.0 + np.tanh(0.5 * x))
    return out


def recalibrate(prob: FloatArray, delta: float) -> FloatArray:
    """``expit(delta + logit(p))``: the probabilities with their odds times ``e^delta``.

    >>> recalibrate(np.array([0.5, 0.1]), 0.0).round(6).tolist()
    [0.5, 0.1]
    >>> recalibrate(np.array([0.5]), math.log(3.0)).round(6).tolist()
    [0.75]
    """
    return _expit(delta + logit(prob))


@dataclass(frozen=True)
class Recalibration:
    """Posterior of the shift ``delta``: its mode and standard deviation (Laplace).

    Attributes
    ----------
    mode : float
    sd : float
    """

    mode: float
    sd: float

    @classmethod
    def fit(cls, probabilities: FloatArray, labels: FloatArray) -> Recalibration:
        """Fit it to labelled pairs (their pool probabilities and 0/1 labels) by Newton's method.

        With no labels it is the prior.

        Examples
        --------
        Probabilities 0.1 for 200 pairs half of which are matches: the shift goes to
        about ``logit(0.5) - logit(0.1) = 2.2``, a little less under the prior.

        >>> fit = Recalibration.fit(np.full(200, 0.1), np.arange(200) % 2)
        >>> round(fit.mode, 2), round(fit.sd, 3)
        (2.19, 0.141)
        >>> Recalibration.fit(np.empty(0), np.empty(0))
        Recalibration(mode=0.0, sd=2.0)
        """
        x = logit(np.asarray(probabilities, dtype=np.float64))
        y = np.asarray(labels, dtype=np.float64)
        prior = 1.0 / PRIOR_SHIFT_SD**2
        delta = 0.0
        for _ in range(100):
            p = _expit(delta + x)
            grad = float(np.sum(y - p)) - delta * prior
            curv = float(np.sum(p * (1.0 - p))) + prior
            # damped: the likelihood of rare events is flat far out
            step = max(-2.0, min(2.0, grad / curv))
            delta += step
            if abs(step) < 1e-10:
                break
        p = _expit(delta + x)
        return cls(float(delta), 1.0 / math.sqrt(float(np.sum(p * (1.0 - p))) + prior))

    def points(self) -> list[tuple[float, float]]:
        """Sigma points ``(weight, delta)`` of the posterior (module docstring).

        >>> [(round(w, 3), round(d, 3)) for w, d in Recalibration(0.0, 1.0).points()]
        [(0.667, 0.0), (0.167, 1.732), (0.167, -1.732)]
        """
        spread = math.sqrt(3.0) * self.sd
        return [
            (2.0 / 3.0, self.mode),
            (1.0 / 6.0, self.mode + spread),
            (1.0 / 6.0, self.mode - spread),
        ]
