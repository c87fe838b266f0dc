"""Annotations each method needs for the same guaranteed approximation (Figure 1)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ._plan import paula_plan
from ._sampling import _precision, _prob, random_sampling_annotations
from ._stratified import stratified_annotations

__all__ = ["AnnotationCounts", "annotation_counts"]


@dataclass(frozen=True)
class AnnotationCounts:
    r"""Annotations each method needs for the same guaranteed approximation (Figure 1).

    Attributes
    ----------
    n, epsilon, delta : the list length, spacing and window.
    approximation : float
        :math:`1 + \alpha = \gamma(1+\epsilon)`, the factor all three guarantee.
    paula : int
        :math:`g_\ell + \Delta(L-\ell)` (Theorem 3), deterministic.
    stratified : int
        Theorem 2 with :math:`\beta = \gamma`, rounded up; holds with probability
        :math:`1-\delta`.
    random_sampling : int
        Eq. (5) with :math:`\alpha = \gamma(1+\epsilon) - 1` and
        :math:`p = p_{\min}`, rounded up; holds with probability :math:`1-\delta`.
    """

    n: int
    epsilon: float
    delta: int
    approximation: float
    paula: int
    stratified: int
    random_sampling: int

    @property
    def alpha(self) -> float:
        """:math:`\\alpha = \\gamma(1+\\epsilon) - 1`."""
        return self.approximation - 1.0


def annotation_counts(
    n: int,
    *,
    epsilon: float,
    delta: int,
    p_min: float,
    failure_probability: float,
    r_tilde: int | None = None,
) -> AnnotationCounts:
    r"""Annotations needed by PAULA, stratified and random sampling at equal accuracy.

    All three methods are set to guarantee the same factor
    :math:`1 + \alpha = \gamma(1+\epsilon)`: PAULA deterministically
    (:math:`g_\ell + \Delta(L-\ell)`, Theorem 3), logarithmic stratified sampling
    with :math:`\beta = \gamma` (Theorem 2) and uniform random sampling
    (eq. (5) with :math:`p = p_{\min}`), both with probability :math:`1-\delta`.
    Both logarithmic methods use the same :math:`\tilde r`, hence the same
    :math:`\ell`, :math:`L` and :math:`\gamma`. No count exceeds ``n``: labelling
    the whole list is always enough.

    Parameters
    ----------
    n : int
        Length of the list (Figure 1 uses :math:`10^7`).
    epsilon : float
        Geometric spacing in (0, 1].
    delta : int
        PAULA's window :math:`\Delta` (Figure 1: 100).
    p_min : float
        Lower bound on the precision for the sampling methods (Figure 1: 0.5).
    failure_probability : float
        :math:`\delta` of the sampling methods, e.g. 0.05.
    r_tilde : int, optional
        Default :math:`\lceil(\Delta+2)/\epsilon\rceil`.

    Returns
    -------
    AnnotationCounts

    References
    ----------
    Sabharwal and Sedghi (2017), §4.4.3-4.4.4, §5.1 and Figure 1.

    Examples
    --------
    >>> from ereval.paula import annotation_counts
    >>> c = annotation_counts(217_077, epsilon=0.03, delta=100, p_min=0.7,
    ...                       failure_probability=0.05)
    >>> c.paula, c.random_sampling, round(c.approximation, 4)
    (17392, 46336, 1.0812)
    """
    plan = paula_plan(n, epsilon=epsilon, delta=delta, r_tilde=r_tilde)
    p = _precision("p_min", p_min)
    fail = _prob("failure_probability", failure_probability)
    approx = plan.gamma * (1.0 + plan.epsilon)
    strat = stratified_annotations(
        plan.n, epsilon=plan.epsilon, r_tilde=plan.r_tilde, p_min=p, failure_probability=fail
    )
    rand = random_sampling_annotations(
        plan.n, alpha=approx - 1.0, precision=p, failure_probability=fail
    )
    return AnnotationCounts(
        n=plan.n,
        epsilon=plan.epsilon,
        delta=plan.delta,
        approximation=approx,
        paula=plan.annotations,
        stratified=min(math.ceil(strat), plan.n),
        random_sampling=min(math.ceil(rand), plan.n),
    )
