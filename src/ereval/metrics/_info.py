"""Information-theoretic comparisons: variation of information, homogeneity,
completeness and V-measure.

Entropies use the natural log (nats), as scikit-learn does::

    H(T) = -sum_i (a_i/N) log(a_i/N)           H(T|P) = -sum_ij (n_ij/N) log(n_ij/b_j)
    VI = H(T|P) + H(P|T)                        (Meila 2007)
    h = 1 - H(T|P) / H(T)    c = 1 - H(P|T) / H(P)   (Rosenberg & Hirschberg 2007)
    V_beta = (1 + beta) h c / (beta h + c)

Conventions: following Rosenberg & Hirschberg (and scikit-learn), homogeneity
is 1 when ``H(T) = 0`` (a single true cluster: every predicted cluster is
trivially homogeneous) and completeness is 1 when ``H(P) = 0``; V is 0 when
``h + c = 0``. These metrics compare partitions of one record set: with twinless
records each side's missing records are added as singletons.
"""

from __future__ import annotations

from ..contingency import ContingencyTable
from ..statistics import Statistics, statistics_of
from ._util import check_beta

__all__ = ["entropies", "info_scores"]


def entropies(table: ContingencyTable | Statistics) -> tuple[float, float, float, float]:
    """``(H(T), H(P), H(T|P), H(P|T))`` in nats over the union of records."""
    s = statistics_of(table)
    return (
        _nonneg(s.entropy_true),
        _nonneg(s.entropy_pred),
        _nonneg(s.entropy_true_given_pred),
        _nonneg(s.entropy_pred_given_true),
    )


def _nonneg(h: float) -> float:
    # exact zeros when there is no uncertainty (no rounding noise below 0, and no -0.0:
    # max(-0.0, 0.0) is -0.0, adding +0.0 makes it +0.0)
    return max(h, 0.0) + 0.0


def info_scores(table: ContingencyTable | Statistics, *, beta: float = 1.0) -> dict[str, float]:
    """VI, homogeneity, completeness and V-measure (V-beta when ``beta != 1``)."""
    beta = check_beta(beta)
    h_t, h_p, h_tp, h_pt = entropies(table)
    hom = 1.0 if h_t == 0 else 1.0 - h_tp / h_t
    com = 1.0 if h_p == 0 else 1.0 - h_pt / h_p

    def v(bb: float) -> float:
        den = bb * hom + com
        return 0.0 if den == 0 else (1 + bb) * hom * com / den

    out = {
        "variation_of_information": h_tp + h_pt,
        "homogeneity": hom,
        "completeness": com,
        "v_measure": v(1.0),
    }
    if beta != 1.0:
        out["v_measure_beta"] = v(beta)
    return out
