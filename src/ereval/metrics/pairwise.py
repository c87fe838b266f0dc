"""Pairwise precision, recall and F-measure (Maidasani et al. 2012, §3.1).

A pair of records is *predicted* when both records share a predicted cluster and
*true* when they share a true cluster. With ``TP = sum_ij C(n_ij, 2)``,
``|pred| = sum_j C(b_j, 2)`` and ``|true| = sum_i C(a_i, 2)``:

    P = TP / |pred|,   R = TP / |true|,   F_beta = (1 + b^2) P R / (b^2 P + R).

Counts are exact integers until the final division. An empty denominator
(no predicted or no true pair) gives NaN.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._errors import InputError, RecordMismatchError
from .._validation import check_choice, examples
from ..contingency import ContingencyTable, pair_count, pairs_of_groups
from ..io import (
    Columns,
    IdType,
    MismatchPolicy,
    PairList,
    as_pairs,
    check_link_only,
    encode,
    locate_pairs,
    read_membership,
    to_numpy,
)
from ..statistics import Statistics, pair_space
from ._util import check_beta, f_beta, ratio

__all__ = ["PairCounts", "pair_counts", "pairwise_scores", "pairwise_scores_from_pairs"]


@dataclass(frozen=True)
class PairCounts:
    """Exact pair confusion counts.

    ``true_positives`` pairs are together in both clusterings; ``false_positives``
    only in the prediction; ``false_negatives`` only in the truth;
    ``true_negatives`` apart in both (over all ``C(n, 2)`` pairs of records).
    """

    true_positives: int
    false_positives: int
    false_negatives: int
    true_negatives: int


def pair_counts(table: ContingencyTable | Statistics) -> PairCounts:
    """Pair confusion counts from the contingency table or its statistics, over the
    union of records (a twinless record is a singleton on the side that lacks it,
    which adds no pair); for a link-only evaluation over the pairs across data sets
    (:func:`~ereval.statistics.pair_space`)."""
    s = pair_space(table)
    tp = s.both
    fp = s.pred - tp
    fn = s.true - tp
    tn = s.records - tp - fp - fn
    return PairCounts(tp, fp, fn, tn)


def _scores(tp: int, n_pred: int, n_true: int, beta: float) -> dict[str, float]:
    p = ratio(tp, n_pred)
    r = ratio(tp, n_true)
    out = {
        "pairwise_precision": p,
        "pairwise_recall": r,
        "pairwise_f1": f_beta(p, r, 1.0),
    }
    if beta != 1.0:
        out["pairwise_fbeta"] = f_beta(p, r, beta)
    return out


def pairwise_scores(table: ContingencyTable | Statistics, *, beta: float = 1.0) -> dict[str, float]:
    """Pairwise precision, recall, F1 (and F-beta when ``beta != 1``).

    With twinless records, predicted pairs are counted over the prediction's
    records and true pairs over the truth's records; a pair involving a record
    missing from the other side is never a true positive. For a link-only
    evaluation every count is over the pairs across data sets.
    """
    beta = check_beta(beta)
    s = pair_space(table)
    return _scores(s.both, s.pred, s.true, beta)


def pairwise_scores_from_pairs(
    truth: Any,
    pairs: Any,
    *,
    beta: float = 1.0,
    on_mismatch: MismatchPolicy = "error",
    record_col: Columns = "record_id",
    cluster_col: Columns = "cluster_id",
    left_col: Columns = "record_id_1",
    right_col: Columns = "record_id_2",
    id_type: IdType = "exact",
    link_only: bool = False,
    source_col: Columns | None = None,
) -> dict[str, float]:
    """Pairwise scores of predicted pairs that need not be transitive.

    Parameters
    ----------
    truth : clustering
        The true clustering (any form of :func:`ereval.io.as_membership`).
    pairs : pairs
        Predicted matching pairs (any form of :func:`ereval.io.as_pairs`).
    beta : float, default 1.0
        Weight of recall in F-beta.
    on_mismatch : {"error", "intersection", "twinless"}
        Pairs naming records absent from ``truth``: raise (default), drop those
        pairs, or keep them as false positives.
    record_col, cluster_col : str or list of str
        Columns of the truth table or file.
    left_col, right_col : str or list of str
        The two record id columns of a pair table or file.
    id_type : {"exact", "string"}
        As in :func:`ereval.io.align`.
    link_only, source_col
        As in :func:`ereval.io.align`: the true pairs are those across data
        sets, and a predicted pair of two records of one data set is an error.

    Notes
    -----
    ``P = TP / |pairs|`` and ``R = TP / sum_i C(a_i, 2)``, where ``TP`` counts
    the given pairs whose two records share a true cluster. The result also
    holds the counts ``pairwise_tp``, ``pairwise_fp`` and ``pairwise_fn``
    (integers). No pair at all gives precision NaN (undefined) and recall 0.

    Examples
    --------
    >>> s = pairwise_scores_from_pairs([[1, 2, 3], [4]], [(1, 2), (2, 4)])
    >>> s["pairwise_precision"], s["pairwise_recall"]
    (0.5, 0.3333333333333333)
    """
    beta = check_beta(beta)
    policy = check_choice("on_mismatch", on_mismatch, ("error", "intersection", "twinless"))
    source = check_link_only(link_only, source_col)
    t = read_membership(
        truth, name="truth", record_col=record_col, cluster_col=cluster_col, source_col=source
    )[0]
    pl: PairList = as_pairs(pairs, name="pairs", left_col=left_col, right_col=right_col)
    t_codes, _ = encode(t.cluster_ids, sort=False)
    s_codes = None if t.sources is None else encode(t.sources, sort=False)[0]
    n_true = pair_count(np.bincount(t_codes).astype(np.int64))
    if s_codes is not None:  # link-only: the true pairs across data sets
        n_true -= pairs_of_groups([t_codes, s_codes])
    if len(pl) == 0:  # nothing predicted: precision undefined, recall 0
        return _with_counts(_scores(0, 0, n_true, beta), 0, 0, n_true)
    lrec, rrec, left, right = locate_pairs(t, pl, id_type=id_type)
    m = len(pl)
    cl = np.where(lrec >= 0, t_codes[lrec], -1)
    cr = np.where(rrec >= 0, t_codes[rrec], -1)
    unknown = (cl < 0) | (cr < 0)
    n_pred = m
    if unknown.any():
        if policy == "error" or (s_codes is not None and policy == "twinless"):
            bad = np.where(cl < 0, to_numpy(left), to_numpy(right))[unknown]
            why = (
                "; a link-only evaluation needs every record's data set, so pass "
                "on_mismatch='intersection' to drop them"
                if policy == "twinless"
                else "; pass on_mismatch='intersection' to drop them or 'twinless' to count "
                "them as false positives"
            )
            raise RecordMismatchError(
                f"'pairs' names {int(unknown.sum())} pair(s) with records absent from 'truth' "
                f"(e.g. {examples(bad)}){why}"
            )
        if policy == "intersection":
            n_pred = int((~unknown).sum())
    if s_codes is not None:
        known = ~unknown
        inside = known & (s_codes[np.maximum(lrec, 0)] == s_codes[np.maximum(rrec, 0)])
        if inside.any():
            k = int(np.flatnonzero(inside)[0])
            raise InputError(
                f"'pairs' has {int(inside.sum())} pair(s) of two records of one data set "
                f"(e.g. {(to_numpy(left)[k], to_numpy(right)[k])!r}); a link-only evaluation "
                "scores pairs across data sets only: leave those pairs out, or evaluate "
                "without link_only"
            )
    tp = int(((cl == cr) & ~unknown).sum())
    return _with_counts(_scores(tp, n_pred, n_true, beta), tp, n_pred, n_true)


def _with_counts(scores: dict[str, float], tp: int, n_pred: int, n_true: int) -> dict[str, float]:
    """The scores with the counts behind them: true and false positives, false negatives."""
    return {**scores, "pairwise_tp": tp, "pairwise_fp": n_pred - tp, "pairwise_fn": n_true - tp}
