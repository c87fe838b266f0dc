"""Record sampling probabilities from match probabilities: the expected-error design.

When a linkage model scores pairs of records with match probabilities
``p_{r,r'}``, the expected number of records a reviewer removes from the
predicted cluster ``ĉ(r)`` of record ``r`` (over-clustering), and the expected
number of records they add to it (under-clustering), are (Binette et al. 2024,
§3.2.1, eqs. 7-8)::

    E|A_r| = sum_{r' in ĉ(r), r' != r} (1 - p_{r,r'})
    E|B_r| = sum_{r' not in ĉ(r)} p_{r,r'}

Drawing records with probability proportional to ``e_r = E|A_r| + E|B_r|`` sends
reviewing effort where errors are likely. A pair that was not scored has
``p = 0``: it adds nothing to ``E|B_r|`` and 1 to ``E|A_r|`` (two records of one
predicted cluster that the model never compared are not known to match).

Every record must keep a positive probability, or the clusters it reaches are
never drawn and no estimator can be unbiased; records are therefore drawn from
the defensive mixture (Hesterberg 1995)::

    q_r = (1 - floor) e_r / sum_r' e_r' + floor / N

so that each record keeps at least ``floor`` times its uniform probability.
Recovering the true cluster ``c`` of each drawn record draws ``c`` with
probability ``p_c = sum_{r in c} q_r`` (Binette et al. 2024, §3.2.1), which the
ratio estimators of :mod:`ereval.estimators._registry` use as ``B_s = f(c)/p_c``
and ``A_s = g(c)/p_c`` — consistent (the ratio's numerator and denominator are
unbiased) for every metric whose form does not assume draws proportional to
size.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from .._validation import check_in_range, examples
from ..io import Columns, to_numpy

__all__ = [
    "DEFAULT_FLOOR",
    "expected_errors",
    "expected_error_probabilities",
    "mixture_probabilities",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Default share of the uniform distribution in the record probabilities.
DEFAULT_FLOOR = 0.2


def expected_errors(
    pred_of: IntArray, left: IntArray, right: IntArray, scores: FloatArray
) -> FloatArray:
    """``e_r = E|A_r| + E|B_r|`` of every record (module docstring, eqs. 7-8).

    Parameters
    ----------
    pred_of : ndarray of int64, shape (N,)
        Predicted cluster code of each record.
    left, right : ndarray of int64
        The records of each scored pair (positions ``0..N-1``, each pair once).
    scores : ndarray of float64
        The match probability of each pair, in ``[0, 1]``.

    Examples
    --------
    >>> pred_of = np.array([0, 0, 1])
    >>> expected_errors(pred_of, np.array([0, 1]), np.array([1, 2]), np.array([0.9, 0.3]))
    array([0.1, 0.4, 0.3])
    """
    n = pred_of.shape[0]
    sizes = np.bincount(pred_of, minlength=int(pred_of.max()) + 1 if n else 0)
    same = pred_of[left] == pred_of[right]
    # each record starts with |ĉ(r)| - 1 unscored partners (p = 0, error 1) and each
    # scored partner inside ĉ(r) replaces its 1 by 1 - p; outside ĉ(r) it adds p
    per_pair = np.where(same, -scores, scores)
    out: FloatArray = (sizes[pred_of] - 1).astype(np.float64)
    out += np.bincount(left, weights=per_pair, minlength=n)
    out += np.bincount(right, weights=per_pair, minlength=n)
    return out


def mixture_probabilities(errors: npt.ArrayLike, *, floor: float = DEFAULT_FLOOR) -> FloatArray:
    """``q_r = (1 - floor) e_r / sum e + floor / N``: record probabilities summing to 1.

    Examples
    --------
    >>> mixture_probabilities([0.0, 1.0, 3.0], floor=0.25).round(4).tolist()
    [0.0833, 0.2708, 0.6458]
    """
    e = np.asarray(errors, dtype=np.float64)
    share = check_in_range("floor", floor, low=0.0, high=1.0)
    n = e.shape[0]
    if n == 0:
        raise InputError("the prediction has no record; expected at least one")
    total = float(e.sum())
    if total <= 0 or share == 1.0:
        return np.full(n, 1.0 / n)
    if share == 0.0 and (e <= 0).any():
        raise InputError(
            f"'floor' is 0 but {int((e <= 0).sum())} record(s) have no expected error, so "
            "their clusters could never be drawn; give a floor above 0 (default "
            f"{DEFAULT_FLOOR})"
        )
    out: FloatArray = (1.0 - share) * e / total + share / n
    return out


def expected_error_probabilities(
    pred: Any,
    pairs: Any,
    *,
    score_col: str = "match_probability",
    left_col: Columns = "record_id_1",
    right_col: Columns = "record_id_2",
    floor: float = DEFAULT_FLOOR,
    record_col: Columns = "record_id",
    cluster_col: Columns = "cluster_id",
) -> pd.Series:
    """Each record's probability of being drawn under the expected-error design.

    Parameters
    ----------
    pred : clustering
        The predicted clustering of the whole population.
    pairs : table or path
        Scored pairs with match probabilities in ``[0, 1]`` (e.g. Splink's
        ``match_probability``), read by :func:`ereval.io.read_scored_pairs`
        against ``pred``; every record they name must be in ``pred``.
    score_col, left_col, right_col : str
        The columns of ``pairs``.
    floor : float, default 0.2
        Share of the uniform distribution in the mixture (module docstring): each
        record keeps at least ``floor / N``.
    record_col, cluster_col : str
        The columns of ``pred``.

    Returns
    -------
    Series
        ``q_r`` indexed by record id (the prediction's ids, as read), summing to 1.

    Examples
    --------
    >>> pred = {"a": 1, "b": 1, "c": 2}
    >>> pairs = pd.DataFrame({"record_id_1": ["a", "b"], "record_id_2": ["b", "c"],
    ...                       "match_probability": [0.9, 0.3]})
    >>> expected_error_probabilities(pred, pairs, floor=0.0).round(3).tolist()
    [0.125, 0.5, 0.375]
    """
    from ..io import as_membership, read_scored_pairs

    share = check_in_range("floor", floor, low=0.0, high=1.0)
    scored = read_scored_pairs(
        pred,
        pairs,
        score_col=score_col,
        left_col=left_col,
        right_col=right_col,
        record_col=record_col,
        cluster_col=cluster_col,
        allow_empty=True,
    )
    bad = ~np.isfinite(scored.scores) | (scored.scores < 0) | (scored.scores > 1)
    if bad.any():
        raise InputError(
            f"'{score_col}' must hold match probabilities in [0, 1]; received "
            f"{examples(scored.scores[bad])}"
        )
    errors = expected_errors(scored.true_of, scored.left, scored.right, scored.scores)
    q = mixture_probabilities(errors, floor=share)
    m = as_membership(pred, name="pred", record_col=record_col, cluster_col=cluster_col)
    return pd.Series(q, index=pd.Index(to_numpy(m.records), dtype=object), name="probability")
