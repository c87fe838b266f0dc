"""Every metric at every threshold of scored pairs: :func:`threshold_curve`."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from .._validation import as_1d_array, check_beta, check_in_range, check_int
from ..contingency import ContingencyTable
from ..ids import IdType
from ..io import Columns
from ..metrics.registry import evaluate, resolve_metrics
from ._components import MergeSteps, merge_steps
from ._input import CurveMismatchPolicy, ScoredPairs, read_scored_pairs

__all__ = [
    "INCREMENTAL_METRICS",
    "ThresholdCurve",
    "curve_from_scored_pairs",
    "evaluate_pairs",
    "threshold_curve",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def _prf(prefix: str) -> tuple[str, str, str]:
    return (f"{prefix}_precision", f"{prefix}_recall", f"{prefix}_f1")


#: Metrics of the connected-components clustering updated merge by merge (the
#: others are computed from scratch at each reported threshold).
INCREMENTAL_METRICS: tuple[str, ...] = (
    *_prf("pairwise"),
    *_prf("cluster"),
    *_prf("muc"),
    *_prf("b3"),
    *_prf("b3_entity"),
    "variation_of_information",
    "homogeneity",
    "completeness",
    "v_measure",
    "rand_index",
    "adjusted_rand_index",
    "fowlkes_mallows",
)
_LINK_COLUMNS = (
    "threshold",
    "n_accepted",
    "links_tp",
    "links_fp",
    "links_fn",
    "links_tn",
    "links_precision",
    "links_recall",
    "links_f1",
)


# --------------------------------------------------------------------------- vector helpers
def _div(num: Any, den: Any) -> FloatArray:
    """``num / den`` elementwise, NaN where ``den == 0``."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _fbeta(p: FloatArray, r: FloatArray, beta: float) -> FloatArray:
    """F-beta elementwise: NaN if either is NaN, 0 when both are 0."""
    b2 = beta * beta
    den = b2 * p + r
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (1 + b2) * p * r / den
    out[den == 0] = 0.0  # P = R = 0 (a NaN input leaves den NaN, so F stays NaN)
    return np.asarray(out, dtype=np.float64)


def _coref(
    num_r: FloatArray, den_r: Any, num_p: FloatArray, den_p: Any, beta: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Recall, precision and F with the CoNLL scorer's conventions (empty denominator: 0)."""
    den_r = np.broadcast_to(np.asarray(den_r, dtype=np.float64), num_r.shape)
    den_p = np.broadcast_to(np.asarray(den_p, dtype=np.float64), num_p.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = num_r / den_r
        p = num_p / den_p
        r[den_r <= 0] = 0.0
        p[den_p <= 0] = 0.0
        b2 = beta * beta
        den = b2 * p + r
        f = (1 + b2) * p * r / den
    f[(den <= 0) | (den_r <= 0) | (den_p <= 0)] = 0.0
    return r, p, f


# --------------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class ThresholdCurve:
    """Metrics of scored pairs at many thresholds.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per threshold, ascending: ``threshold``, ``n_accepted`` (pairs
        with a score ``>= threshold``), the link counts ``links_tp``,
        ``links_fp``, ``links_fn``, ``links_tn`` and ``links_precision``,
        ``links_recall``, ``links_f1`` (the pairs as scored, not made
        transitive), ``n_pred_clusters`` and the metrics of the
        connected-components clustering, under their canonical names.
    summary : dict
        ``n_records``, ``n_true_clusters``, ``n_pairs`` (scored pairs kept),
        ``n_pairs_dropped``, ``n_true_pairs`` (``sum_i C(a_i, 2)``),
        ``n_true_pairs_scored``, ``pairs_completeness`` (share of the true pairs
        that were scored at all), ``reduction_ratio`` (``1 - n_pairs / C(N, 2)``),
        ``roc_auc`` and ``average_precision`` (over the scored pairs).
    beta : float
        The weight of recall in the ``*_fbeta`` columns (present when not 1).
    """

    frame: pd.DataFrame
    summary: dict[str, Any]
    beta: float = 1.0
    _roc: dict[str, FloatArray] = field(default_factory=dict, repr=False)

    def to_frame(self) -> pd.DataFrame:
        """A copy of :attr:`frame`."""
        return self.frame.copy()

    def to_dict(self) -> dict[str, Any]:
        """``{"summary": ..., "rows": [one dict per threshold]}`` (NaN kept as ``nan``)."""
        return {"summary": dict(self.summary), "rows": self.frame.to_dict(orient="records")}

    def _column(self, metric: str) -> FloatArray:
        if metric not in self.frame.columns or metric in ("threshold",):
            known = [c for c in self.frame.columns if c != "threshold"]
            raise InputError(
                f"'metric' must be a column of the curve ({known}); received {metric!r}"
            )
        return np.asarray(self.frame[metric], dtype=np.float64)

    def best(self, metric: str = "pairwise_f1") -> dict[str, Any]:
        """The row (threshold and every metric) where ``metric`` is largest.

        Among equal maxima the highest threshold is chosen. NaN values are skipped;
        raises when ``metric`` is NaN at every threshold.
        """
        values = self._column(metric)
        if np.isnan(values).all():
            raise InputError(f"'metric' {metric!r} is undefined at every threshold")
        best = np.nanmax(values)
        k = int(np.flatnonzero(values == best)[-1])
        return dict(self.frame.iloc[k].to_dict())

    def threshold_for(
        self, target: float, metric: str = "links_precision"
    ) -> dict[str, Any] | None:
        """The row of the lowest threshold at which ``metric >= target`` (``None`` if none).

        With a precision as ``metric`` this is the threshold that accepts the most
        pairs while the precision there meets the target.
        """
        target = check_in_range("target", target, low=-math.inf, high=math.inf)
        values = self._column(metric)
        hits = np.flatnonzero(values >= target)
        if hits.size == 0:
            return None
        return dict(self.frame.iloc[int(hits[0])].to_dict())

    def roc(self) -> pd.DataFrame:
        """The ROC curve over the scored pairs: ``threshold``, ``fpr``, ``tpr``, from (0, 0).

        A true pair that was never scored is not in it (see :attr:`summary`'s
        ``pairs_completeness`` for their share).
        """
        return pd.DataFrame(
            {"threshold": self._roc["threshold"], "fpr": self._roc["fpr"], "tpr": self._roc["tpr"]}
        )

    def pr(self) -> pd.DataFrame:
        """The precision-recall curve over the scored pairs (recall of the scored true pairs)."""
        return pd.DataFrame(
            {
                "threshold": self._roc["threshold"][1:],
                "precision": self._roc["precision"],
                "recall": self._roc["tpr"][1:],
            }
        )


# --------------------------------------------------------------------------- main
def threshold_curve(
    truth: Any,
    pairs: Any,
    *,
    score_col: str = "score",
    left_col: Columns = "record_id_1",
    right_col: Columns = "record_id_2",
    record_col: Columns = "record_id",
    cluster_col: Columns = "cluster_id",
    on_mismatch: CurveMismatchPolicy = "error",
    id_type: IdType = "exact",
    thresholds: int | Sequence[float] | npt.NDArray[Any] | None = None,
    metrics: str | Sequence[str] | None = None,
    beta: float = 1.0,
    progress: Callable[[str], None] | None = None,
) -> ThresholdCurve:
    """Every metric of scored pairs at every threshold.

    At threshold ``t`` the pairs with a score ``>= t`` are accepted. Two things
    are scored against the truth: the accepted pairs as given (``links_*``,
    not transitive) and the clustering by connected components of the accepted
    pairs, where a record in no accepted pair is a singleton.

    Parameters
    ----------
    truth : clustering
        The true clustering (any form of :func:`ereval.io.as_membership`). Its
        records define ``N``: records in no pair are singletons of the prediction.
    pairs : table or path
        Scored pairs: two record id columns and a score column (pandas, polars,
        pyarrow, or a CSV / Parquet file). Self-pairs, pairs repeated in either
        order and non-finite scores are errors.
    score_col, left_col, right_col : str
        Column names; ``left_col`` and ``right_col`` may be lists (keys of
        several columns).
    record_col, cluster_col : str or list of str
        Columns of the truth.
    on_mismatch : {"error", "intersection"}, default "error"
        Pairs naming records absent from the truth: raise, or drop those pairs.
    id_type : {"exact", "string"}, default "exact"
        As in :func:`ereval.contingency.align`.
    thresholds : None, int or sequence of float
        Where to report: ``None`` at every distinct score (after every pair with
        that score is accepted); an int ``G`` at ``G`` of the distinct scores,
        evenly spaced in rank; a sequence at those thresholds. When a metric
        without an incremental form is requested (CEAF, BLANC, LEA,
        closest-cluster, merge distances), ``None`` means 100 grid points.
    metrics : str or list of str, optional
        Metrics of the clustering (names or families of
        :func:`ereval.metrics.resolve_metrics`); default
        :data:`INCREMENTAL_METRICS`. Those are updated merge by merge; the
        others are computed from scratch with :func:`ereval.evaluate` at each
        reported threshold.
    beta : float, default 1.0
        Weight of recall; when not 1 every F also has an ``*_fbeta`` column.
    progress : callable, optional
        Called with the name of each step.

    Returns
    -------
    ThresholdCurve

    Notes
    -----
    ``links_fn`` counts every true pair not accepted, including true pairs that
    were never scored (missed by blocking); ``links_tn = C(N, 2) - TP - FP - FN``.
    ROC AUC and average precision are computed over the scored pairs only (as
    :func:`sklearn.metrics.roc_auc_score` on their labels and scores).

    Examples
    --------
    >>> import pandas as pd
    >>> truth = [["a", "b", "c"], ["d"]]
    >>> pairs = pd.DataFrame({"record_id_1": ["a", "b", "c"], "record_id_2": ["b", "c", "d"],
    ...                       "score": [0.9, 0.8, 0.3]})
    >>> curve = threshold_curve(truth, pairs, metrics="pairwise")
    >>> curve.frame[["threshold", "links_precision", "pairwise_precision"]].to_dict("list")
    {'threshold': [0.3, 0.8, 0.9], 'links_precision': [0.6666666666666666, 1.0, 1.0], \
'pairwise_precision': [0.5, 1.0, 1.0]}
    """
    beta = check_beta(beta)
    if metrics is None:
        names: tuple[str, ...] = INCREMENTAL_METRICS
    elif not isinstance(metrics, str) and len(metrics) == 0:
        names = ()  # the links only
    else:
        names = resolve_metrics(metrics)
    if isinstance(thresholds, int | np.integer) and not isinstance(thresholds, bool):
        check_int("thresholds", thresholds, minimum=1)
    elif thresholds is not None:
        grid = as_1d_array("thresholds", thresholds)
        if grid.size == 0 or grid.dtype.kind not in "iuf" or not np.isfinite(grid).all():
            raise InputError(
                "'thresholds' must be None, a number of grid points, or finite thresholds; "
                f"received {grid.size} value(s) of dtype {grid.dtype}"
            )
    if progress is not None:
        progress("reading")
    data = read_scored_pairs(
        truth,
        pairs,
        score_col=score_col,
        left_col=left_col,
        right_col=right_col,
        record_col=record_col,
        cluster_col=cluster_col,
        on_mismatch=on_mismatch,
        id_type=id_type,
    )
    return curve_from_scored_pairs(
        data, thresholds=thresholds, metrics=names, beta=beta, progress=progress
    )


def _report_positions(
    sorted_scores: FloatArray, thresholds: Any, needs_grid: bool
) -> tuple[FloatArray, IntArray]:
    """Thresholds (ascending) and the number of accepted pairs at each."""
    # sorted_scores is descending; the last pair of each run of equal scores
    ends = np.flatnonzero(np.r_[sorted_scores[1:] != sorted_scores[:-1], True])
    if thresholds is None and needs_grid:
        thresholds = 100
    if thresholds is None:
        t = sorted_scores[ends]
        k = ends + 1
    elif isinstance(thresholds, int | np.integer):
        pick = np.unique(np.round(np.linspace(0, ends.shape[0] - 1, int(thresholds))))
        sel = ends[pick.astype(np.int64)]
        t = sorted_scores[sel]
        k = sel + 1
    else:
        t = np.unique(np.asarray(thresholds, dtype=np.float64))[::-1]
        k = np.searchsorted(-sorted_scores, -t, side="right").astype(np.int64)
    return t[::-1].copy(), np.asarray(k[::-1], dtype=np.int64)


def curve_from_scored_pairs(
    data: ScoredPairs,
    *,
    thresholds: int | Sequence[float] | npt.NDArray[Any] | None = None,
    metrics: Sequence[str] = INCREMENTAL_METRICS,
    beta: float = 1.0,
    progress: Callable[[str], None] | None = None,
) -> ThresholdCurve:
    """:func:`threshold_curve` over pairs already read by :func:`read_scored_pairs`."""
    beta = check_beta(beta)
    names = tuple(metrics)
    scratch = tuple(n for n in names if n not in INCREMENTAL_METRICS)
    n = data.n_records
    true_of = data.true_of
    a_sizes = np.bincount(true_of).astype(np.int64)
    k_true = int(a_sizes.shape[0])
    n_true_pairs = int((a_sizes * (a_sizes - 1) // 2).sum())
    all_pairs = n * (n - 1) // 2

    if progress is not None:
        progress("sorting pairs")
    order = np.argsort(-data.scores, kind="stable")
    s = data.scores[order]
    is_true = true_of[data.left[order]] == true_of[data.right[order]]
    cum_true = np.r_[0, np.cumsum(is_true, dtype=np.int64)]
    n_scored_true = int(cum_true[-1])
    m = data.n_pairs
    t, k = _report_positions(s, thresholds, bool(scratch))

    tp = cum_true[k]
    fp = k - tp
    fn = n_true_pairs - tp
    tn = all_pairs - tp - fp - fn
    cols: dict[str, Any] = {"threshold": t, "n_accepted": k}
    cols.update(links_tp=tp, links_fp=fp, links_fn=fn, links_tn=tn)
    lp, lr = _div(tp, k), _div(tp, n_true_pairs)
    cols.update(links_precision=lp, links_recall=lr, links_f1=_fbeta(lp, lr, 1.0))
    if beta != 1.0:
        cols["links_fbeta"] = _fbeta(lp, lr, beta)

    if names:
        if progress is not None:
            progress("merging components")
        steps = merge_steps(true_of, data.left, data.right, order)
        n_merges = np.searchsorted(steps.position, k, side="right")
        cols["n_pred_clusters"] = n - n_merges
        incremental = [x for x in names if x in INCREMENTAL_METRICS]
        cols.update(_incremental(steps, n_merges, a_sizes, n, incremental, beta))
    if scratch:
        cols.update(_from_scratch(data, order, k, scratch, beta, progress))
    frame = pd.DataFrame(cols, copy=False)  # fresh arrays: one block each, no copy

    # ROC and PR over the scored pairs, at every distinct score
    ends = np.flatnonzero(np.r_[s[1:] != s[:-1], True])
    ctp = cum_true[ends + 1]
    cfp = ends + 1 - ctp
    n_neg = m - n_scored_true
    tpr = np.r_[0.0, _div(ctp, n_scored_true)]
    fpr = np.r_[0.0, _div(cfp, n_neg)]
    prec = _div(ctp, ends + 1)
    roc_auc = (
        float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
        if n_neg and n_scored_true
        else math.nan
    )
    ap = float(np.sum(np.diff(tpr) * prec)) if n_scored_true else math.nan
    summary: dict[str, Any] = {
        "n_records": n,
        "n_true_clusters": k_true,
        "n_pairs": m,
        "n_pairs_dropped": data.n_dropped,
        "n_true_pairs": n_true_pairs,
        "n_true_pairs_scored": n_scored_true,
        "pairs_completeness": math.nan if n_true_pairs == 0 else n_scored_true / n_true_pairs,
        "reduction_ratio": math.nan if all_pairs == 0 else 1.0 - m / all_pairs,
        "roc_auc": roc_auc,
        "average_precision": ap,
    }
    roc = {"threshold": np.r_[np.inf, s[ends]], "fpr": fpr, "tpr": tpr, "precision": prec}
    return ThresholdCurve(frame, summary, beta, roc)


def _incremental(
    steps: MergeSteps,
    n_merges: IntArray,
    a_sizes: IntArray,
    n: int,
    names: list[str],
    beta: float,
) -> dict[str, Any]:
    """The incremental metrics after ``n_merges`` merges, one value per row."""
    init = steps.initial

    def cum_int(name: str, deltas: IntArray) -> IntArray:
        start = int(init[name])
        values = np.concatenate(([start], start + np.cumsum(deltas, dtype=np.int64)))
        return np.asarray(values[n_merges], dtype=np.int64)

    def cum_float(name: str, deltas: FloatArray) -> FloatArray:
        values = np.concatenate(([init[name]], init[name] + np.cumsum(deltas)))
        return np.asarray(values[n_merges], dtype=np.float64)

    k_true = int(a_sizes.shape[0])
    n_true_pairs = int((a_sizes * (a_sizes - 1) // 2).sum())
    r_pred = n - n_merges
    both = cum_int("pairs_both", steps.pairs_both)
    pred = cum_int("pairs_pred", steps.pairs_pred)
    out: dict[str, Any] = {}
    families: dict[str, Callable[[], dict[str, Any]]] = {}

    def prf(prefix: str, p: FloatArray, r: FloatArray) -> dict[str, Any]:
        got = {f"{prefix}_precision": p, f"{prefix}_recall": r, f"{prefix}_f1": _fbeta(p, r, 1.0)}
        if beta != 1.0:
            got[f"{prefix}_fbeta"] = _fbeta(p, r, beta)
        return got

    def coref(prefix: str, nr: FloatArray, dr: Any, np_: FloatArray, dp: Any) -> dict[str, Any]:
        r, p, f = _coref(nr, dr, np_, dp, 1.0)
        got = {f"{prefix}_precision": p, f"{prefix}_recall": r, f"{prefix}_f1": f}
        if beta != 1.0:
            got[f"{prefix}_fbeta"] = _coref(nr, dr, np_, dp, beta)[2]
        return got

    families["pairwise"] = lambda: prf("pairwise", _div(both, pred), _div(both, n_true_pairs))

    def cluster() -> dict[str, Any]:
        exact = cum_int("exact", steps.exact)
        return prf("cluster", _div(exact, r_pred), _div(exact, k_true))

    def muc() -> dict[str, Any]:
        cells = cum_int("cells", -steps.cells_lost)
        correct = (n - cells).astype(np.float64)
        return coref("muc", correct, n - k_true, correct, n - r_pred)

    def b3() -> dict[str, Any]:
        nr = cum_float("b3_recall", steps.b3_recall)
        np_ = cum_float("b3_precision", steps.b3_precision)
        return coref("b3", nr, n, np_, n)

    def b3_entity() -> dict[str, Any]:
        r = cum_float("b3e_recall", steps.b3e_recall) / k_true
        p = cum_float("b3e_precision", steps.b3e_precision) / k_true
        return prf("b3_entity", p, r)

    def info() -> dict[str, Any]:
        x = cum_float("nlogn_cells", steps.nlogn_cells)
        y = cum_float("nlogn_pred", steps.nlogn_pred)
        a = a_sizes.astype(np.float64)
        h_t = max(float(-(a / n * np.log(a / n)).sum()), 0.0) + 0.0
        z = float((a * np.log(a)).sum())
        h_p = np.where(r_pred == 1, 0.0, np.maximum(math.log(n) - y / n, 0.0))
        h_tp = np.maximum(-(x - y) / n, 0.0) + 0.0
        h_pt = np.maximum(-(x - z) / n, 0.0) + 0.0
        hom = np.ones_like(h_tp) if h_t == 0 else 1.0 - h_tp / h_t
        com = np.where(h_p == 0, 1.0, 1.0 - h_pt / np.where(h_p == 0, 1.0, h_p))

        def v(bb: float) -> FloatArray:
            den = bb * hom + com
            return np.where(den == 0, 0.0, (1 + bb) * hom * com / np.where(den == 0, 1.0, den))

        got = {
            "variation_of_information": h_tp + h_pt,
            "homogeneity": hom,
            "completeness": com,
            "v_measure": v(1.0),
        }
        if beta != 1.0:
            got["v_measure_beta"] = v(beta)
        return got

    def rand() -> dict[str, Any]:
        total = n * (n - 1) // 2
        fp = pred - both
        fn = n_true_pairs - both
        tn = total - both - fp - fn
        num: npt.NDArray[Any]
        den: npt.NDArray[Any]
        fmi_den: npt.NDArray[Any]
        if total < 2**30:  # every product below fits int64: exact until the division
            num = 2 * (both * tn - fn * fp)
            den = (both + fn) * (fn + tn) + (both + fp) * (fp + tn)
            fmi_den = (both + fp) * (both + fn)
        else:  # the same formulas in float64 from the exact counts
            bf, fpf, fnf, tnf = (v.astype(np.float64) for v in (both, fp, fn, tn))
            num = 2 * (bf * tnf - fnf * fpf)
            den = (bf + fnf) * (fnf + tnf) + (bf + fpf) * (fpf + tnf)
            fmi_den = (bf + fpf) * (bf + fnf)
        fmi_den_f = np.asarray(fmi_den, dtype=np.float64)
        fmi = np.full(both.shape, np.nan)
        np.divide(both, np.sqrt(fmi_den_f), out=fmi, where=fmi_den_f != 0)
        return {
            "rand_index": _div(both + tn, total),
            "adjusted_rand_index": _div(num, den),
            "fowlkes_mallows": fmi,
        }

    families.update(cluster=cluster, muc=muc, b3=b3, b3_entity=b3_entity, info=info, rand=rand)
    family_of = {
        **{x: "pairwise" for x in _prf("pairwise")},
        **{x: "cluster" for x in _prf("cluster")},
        **{x: "muc" for x in _prf("muc")},
        **{x: "b3" for x in _prf("b3")},
        **{x: "b3_entity" for x in _prf("b3_entity")},
        **{
            x: "info"
            for x in ("variation_of_information", "homogeneity", "completeness", "v_measure")
        },
        **{x: "rand" for x in ("rand_index", "adjusted_rand_index", "fowlkes_mallows")},
    }
    computed: dict[str, Any] = {}
    for name in names:
        fam = family_of[name]
        if fam not in computed:
            computed[fam] = families[fam]()
        out[name] = computed[fam][name]
    if beta != 1.0:
        for name in names:
            extra = "v_measure_beta" if name == "v_measure" else name.replace("_f1", "_fbeta")
            if extra != name and extra in computed[family_of[name]]:
                out[extra] = computed[family_of[name]][extra]
    return out


def _from_scratch(
    data: ScoredPairs,
    order: IntArray,
    k: IntArray,
    names: tuple[str, ...],
    beta: float,
    progress: Callable[[str], None] | None,
) -> dict[str, Any]:
    """Metrics without an incremental form, from the contingency table at each row."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n = data.n_records
    true_of = data.true_of
    n_true = int(true_of.max()) + 1
    rows: list[dict[str, float]] = []
    for step, kk in enumerate(k.tolist()):
        if progress is not None and step % 10 == 0:
            progress(f"from scratch at threshold {step + 1} of {k.shape[0]}")
        sel = order[:kk]
        graph = csr_matrix(
            (np.ones(kk, dtype=np.int8), (data.left[sel], data.right[sel])), shape=(n, n)
        )
        _, labels = connected_components(graph, directed=False)
        table = ContingencyTable.from_codes(
            true_of,
            labels.astype(np.int64),
            n_true_codes=n_true,
            n_pred_codes=int(labels.max()) + 1,
        )
        rows.append(evaluate(table, metrics=list(names), beta=beta))
    keys = list(rows[0]) if rows else list(names)
    return {key: np.asarray([r[key] for r in rows], dtype=np.float64) for key in keys}


def evaluate_pairs(
    truth: Any,
    pairs: Any,
    *,
    threshold: float | None = None,
    score_col: str | None = None,
    left_col: Columns = "record_id_1",
    right_col: Columns = "record_id_2",
    record_col: Columns = "record_id",
    cluster_col: Columns = "cluster_id",
    on_mismatch: CurveMismatchPolicy = "error",
    id_type: IdType = "exact",
    metrics: str | Sequence[str] | None = None,
    beta: float = 1.0,
) -> dict[str, Any]:
    """Score predicted pairs (scored or not) at one threshold, as links and as clusters.

    The pairs with ``score >= threshold`` (every pair when ``threshold`` is None)
    are scored as given (``links_*``) and by the clustering of their connected
    components, with every canonical metric (or ``metrics``) of
    :func:`ereval.evaluate`.

    Parameters
    ----------
    truth, pairs, left_col, right_col, record_col, cluster_col, on_mismatch, id_type, beta
        As in :func:`threshold_curve`.
    threshold : float, optional
        Accept the pairs scored at least this (needs ``score_col``); all pairs when None.
    score_col : str, optional
        The score column; not needed without a threshold.
    metrics : str or list of str, optional
        Metrics of the clustering; default every canonical metric.

    Returns
    -------
    dict
        ``threshold``, ``n_accepted``, the link counts and scores,
        ``n_pred_clusters`` and the metrics (NaN where undefined).

    Examples
    --------
    >>> s = evaluate_pairs([["a", "b", "c"], ["d"]], [("a", "b"), ("b", "c"), ("c", "d")],
    ...                    metrics="pairwise")
    >>> s["links_precision"], s["pairwise_precision"]
    (0.6666666666666666, 0.5)
    """
    beta = check_beta(beta)
    if threshold is not None:
        threshold = check_in_range("threshold", threshold, low=-math.inf, high=math.inf)
        if score_col is None:
            raise InputError("'threshold' needs the score column: give 'score_col'")
    if isinstance(pairs, list | tuple):
        pairs = pd.DataFrame(
            list(pairs), columns=[_single(left_col, "left_col"), _single(right_col, "right_col")]
        )
    names = resolve_metrics("canonical" if metrics is None else metrics)
    data = read_scored_pairs(
        truth,
        pairs,
        score_col=score_col,
        left_col=left_col,
        right_col=right_col,
        record_col=record_col,
        cluster_col=cluster_col,
        on_mismatch=on_mismatch,
        id_type=id_type,
    )
    t = float(data.scores.min()) if threshold is None else threshold
    curve = curve_from_scored_pairs(data, thresholds=[t], metrics=names, beta=beta)
    row = dict(curve.frame.iloc[0].to_dict())
    for key in ("n_accepted", "links_tp", "links_fp", "links_fn", "links_tn", "n_pred_clusters"):
        row[key] = int(row[key])
    if threshold is None:
        row["threshold"] = None
    return row


def _single(value: Columns, name: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"'{name}' must be one column name for pairs given as a list")
    return value
