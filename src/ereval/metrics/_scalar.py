"""One function per canonical metric name (thin wrappers over the families)."""

from __future__ import annotations

from typing import Any

from .._errors import InputError
from ..contingency import ContingencyTable, contingency_table
from ..io import MismatchPolicy
from ._merge import CostFunction, pairwise_cost
from ._merge import gmd as _gmd
from ._muc import EmptyLinks, muc_scores
from ._registry import evaluate


def _one(
    name: str, truth: Any, pred: Any, on_mismatch: MismatchPolicy, record_col: str, cluster_col: str
) -> float:
    return evaluate(
        truth,
        pred,
        metrics=[name],
        on_mismatch=on_mismatch,
        record_col=record_col,
        cluster_col=cluster_col,
    )[name]


def _muc(
    name: str,
    truth: Any,
    pred: Any,
    on_mismatch: MismatchPolicy,
    record_col: str,
    cluster_col: str,
    empty_links: EmptyLinks,
) -> float:
    if empty_links not in ("zero", "one"):
        raise InputError(f"'empty_links' must be 'zero' or 'one'; received {empty_links!r}")
    if empty_links == "zero":
        return _one(name, truth, pred, on_mismatch, record_col, cluster_col)
    if isinstance(truth, ContingencyTable) and pred is None:
        table = truth
    else:
        table = contingency_table(
            truth, pred, on_mismatch=on_mismatch, record_col=record_col, cluster_col=cluster_col
        )
    return muc_scores(table, empty_links=empty_links)[name]


def pairwise_precision(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Pairwise precision. See :mod:`ereval.metrics._pairwise` for the formula and conventions."""
    return _one("pairwise_precision", truth, pred, on_mismatch, record_col, cluster_col)


def pairwise_recall(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Pairwise recall. See :mod:`ereval.metrics._pairwise` for the formula and conventions."""
    return _one("pairwise_recall", truth, pred, on_mismatch, record_col, cluster_col)


def pairwise_f1(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Pairwise F1 (harmonic mean of precision and recall). See :mod:`ereval.metrics._pairwise` for the formula and conventions."""
    return _one("pairwise_f1", truth, pred, on_mismatch, record_col, cluster_col)


def cluster_precision(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Cluster (exact match) precision. See :mod:`ereval.metrics._cluster` for the formula and conventions."""
    return _one("cluster_precision", truth, pred, on_mismatch, record_col, cluster_col)


def cluster_recall(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Cluster (exact match) recall. See :mod:`ereval.metrics._cluster` for the formula and conventions."""
    return _one("cluster_recall", truth, pred, on_mismatch, record_col, cluster_col)


def cluster_f1(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Cluster (exact match) F1 (harmonic mean of precision and recall). See :mod:`ereval.metrics._cluster` for the formula and conventions."""
    return _one("cluster_f1", truth, pred, on_mismatch, record_col, cluster_col)


def closest_cluster_precision(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Closest-cluster (best Jaccard) precision. See :mod:`ereval.metrics._cluster` for the formula and conventions."""
    return _one("closest_cluster_precision", truth, pred, on_mismatch, record_col, cluster_col)


def closest_cluster_recall(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Closest-cluster (best Jaccard) recall. See :mod:`ereval.metrics._cluster` for the formula and conventions."""
    return _one("closest_cluster_recall", truth, pred, on_mismatch, record_col, cluster_col)


def closest_cluster_f1(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Closest-cluster (best Jaccard) F1 (harmonic mean of precision and recall). See :mod:`ereval.metrics._cluster` for the formula and conventions."""
    return _one("closest_cluster_f1", truth, pred, on_mismatch, record_col, cluster_col)


def muc_precision(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
    empty_links: EmptyLinks = "zero",
) -> float:
    """MUC precision. See :mod:`ereval.metrics._muc` for the formula and conventions.

    ``empty_links="one"`` scores a side without links 1 instead of 0 (Maidasani et
    al. 2012, Table 3, result 7); see :func:`ereval.metrics._muc.muc_scores`.
    """
    return _muc("muc_precision", truth, pred, on_mismatch, record_col, cluster_col, empty_links)


def muc_recall(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
    empty_links: EmptyLinks = "zero",
) -> float:
    """MUC recall. See :mod:`ereval.metrics._muc` for the formula and conventions.

    ``empty_links="one"`` scores a side without links 1 instead of 0 (Maidasani et
    al. 2012, Table 3, result 7); see :func:`ereval.metrics._muc.muc_scores`.
    """
    return _muc("muc_recall", truth, pred, on_mismatch, record_col, cluster_col, empty_links)


def muc_f1(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
    empty_links: EmptyLinks = "zero",
) -> float:
    """MUC F1 (harmonic mean of precision and recall). See :mod:`ereval.metrics._muc` for the formula and conventions.

    ``empty_links="one"`` scores a side without links 1 instead of 0 (Maidasani et
    al. 2012, Table 3, result 7); see :func:`ereval.metrics._muc.muc_scores`.
    """
    return _muc("muc_f1", truth, pred, on_mismatch, record_col, cluster_col, empty_links)


def b3_precision(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Record-weighted B-cubed precision. See :mod:`ereval.metrics._bcubed` for the formula and conventions."""
    return _one("b3_precision", truth, pred, on_mismatch, record_col, cluster_col)


def b3_recall(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Record-weighted B-cubed recall. See :mod:`ereval.metrics._bcubed` for the formula and conventions."""
    return _one("b3_recall", truth, pred, on_mismatch, record_col, cluster_col)


def b3_f1(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Record-weighted B-cubed F1 (harmonic mean of precision and recall). See :mod:`ereval.metrics._bcubed` for the formula and conventions."""
    return _one("b3_f1", truth, pred, on_mismatch, record_col, cluster_col)


def b3_entity_precision(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Entity-weighted B-cubed precision. See :mod:`ereval.metrics._bcubed` for the formula and conventions."""
    return _one("b3_entity_precision", truth, pred, on_mismatch, record_col, cluster_col)


def b3_entity_recall(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Entity-weighted B-cubed recall. See :mod:`ereval.metrics._bcubed` for the formula and conventions."""
    return _one("b3_entity_recall", truth, pred, on_mismatch, record_col, cluster_col)


def b3_entity_f1(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Entity-weighted B-cubed F1 (harmonic mean of precision and recall). See :mod:`ereval.metrics._bcubed` for the formula and conventions."""
    return _one("b3_entity_f1", truth, pred, on_mismatch, record_col, cluster_col)


def ceafm_precision(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Mention-based CEAF (phi3) precision. See :mod:`ereval.metrics._ceaf` for the formula and conventions."""
    return _one("ceafm_precision", truth, pred, on_mismatch, record_col, cluster_col)


def ceafm_recall(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Mention-based CEAF (phi3) recall. See :mod:`ereval.metrics._ceaf` for the formula and conventions."""
    return _one("ceafm_recall", truth, pred, on_mismatch, record_col, cluster_col)


def ceafm_f1(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Mention-based CEAF (phi3) F1 (harmonic mean of precision and recall). See :mod:`ereval.metrics._ceaf` for the formula and conventions."""
    return _one("ceafm_f1", truth, pred, on_mismatch, record_col, cluster_col)


def ceafe_precision(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Entity-based CEAF (phi4) precision. See :mod:`ereval.metrics._ceaf` for the formula and conventions."""
    return _one("ceafe_precision", truth, pred, on_mismatch, record_col, cluster_col)


def ceafe_recall(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Entity-based CEAF (phi4) recall. See :mod:`ereval.metrics._ceaf` for the formula and conventions."""
    return _one("ceafe_recall", truth, pred, on_mismatch, record_col, cluster_col)


def ceafe_f1(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Entity-based CEAF (phi4) F1 (harmonic mean of precision and recall). See :mod:`ereval.metrics._ceaf` for the formula and conventions."""
    return _one("ceafe_f1", truth, pred, on_mismatch, record_col, cluster_col)


def blanc_precision(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """BLANC precision. See :mod:`ereval.metrics._blanc` for the formula and conventions."""
    return _one("blanc_precision", truth, pred, on_mismatch, record_col, cluster_col)


def blanc_recall(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """BLANC recall. See :mod:`ereval.metrics._blanc` for the formula and conventions."""
    return _one("blanc_recall", truth, pred, on_mismatch, record_col, cluster_col)


def blanc_f1(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """BLANC F1 (harmonic mean of precision and recall). See :mod:`ereval.metrics._blanc` for the formula and conventions."""
    return _one("blanc_f1", truth, pred, on_mismatch, record_col, cluster_col)


def lea_precision(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """LEA precision. See :mod:`ereval.metrics._lea` for the formula and conventions."""
    return _one("lea_precision", truth, pred, on_mismatch, record_col, cluster_col)


def lea_recall(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """LEA recall. See :mod:`ereval.metrics._lea` for the formula and conventions."""
    return _one("lea_recall", truth, pred, on_mismatch, record_col, cluster_col)


def lea_f1(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """LEA F1 (harmonic mean of precision and recall). See :mod:`ereval.metrics._lea` for the formula and conventions."""
    return _one("lea_f1", truth, pred, on_mismatch, record_col, cluster_col)


def bmd(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Basic merge distance: raw number of splits and merges. See :mod:`ereval.metrics._merge`."""
    return _one("bmd", truth, pred, on_mismatch, record_col, cluster_col)


def variation_of_information(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Variation of information in nats. See :mod:`ereval.metrics._info`."""
    return _one("variation_of_information", truth, pred, on_mismatch, record_col, cluster_col)


def homogeneity(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Homogeneity (Rosenberg & Hirschberg 2007). See :mod:`ereval.metrics._info`."""
    return _one("homogeneity", truth, pred, on_mismatch, record_col, cluster_col)


def completeness(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Completeness (Rosenberg & Hirschberg 2007). See :mod:`ereval.metrics._info`."""
    return _one("completeness", truth, pred, on_mismatch, record_col, cluster_col)


def v_measure(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """V-measure, beta = 1. See :mod:`ereval.metrics._info`."""
    return _one("v_measure", truth, pred, on_mismatch, record_col, cluster_col)


def rand_index(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Rand index. See :mod:`ereval.metrics._rand`."""
    return _one("rand_index", truth, pred, on_mismatch, record_col, cluster_col)


def adjusted_rand_index(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Adjusted Rand index (Hubert & Arabie 1985). See :mod:`ereval.metrics._rand`."""
    return _one("adjusted_rand_index", truth, pred, on_mismatch, record_col, cluster_col)


def fowlkes_mallows(
    truth: Any,
    pred: Any = None,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Fowlkes-Mallows index. See :mod:`ereval.metrics._rand`."""
    return _one("fowlkes_mallows", truth, pred, on_mismatch, record_col, cluster_col)


def gmd(
    truth: Any,
    pred: Any = None,
    *,
    split_cost: CostFunction = pairwise_cost,
    merge_cost: CostFunction = pairwise_cost,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> float:
    """Generalized merge distance with split/merge cost functions (default ``x * y``).

    See :func:`ereval.metrics._merge.gmd`.
    """
    from ..contingency import contingency_table

    table = contingency_table(
        truth, pred, on_mismatch=on_mismatch, record_col=record_col, cluster_col=cluster_col
    )
    return _gmd(table, split_cost=split_cost, merge_cost=merge_cost)
