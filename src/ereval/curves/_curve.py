"""Every metric at every threshold of scored pairs: :func:`threshold_curve`."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._algorithms import cross_steps, replay_merges
from .._errors import InputError, InputTypeError
from .._validation import as_1d_array, check_beta, check_choice, check_in_range, check_int
from ..contingency import pairs_of_groups
from ..engines import Database, Engine, EngineName, get_engine
from ..io import (
    CURVE_MISMATCH_POLICIES,
    Columns,
    CurveMismatchPolicy,
    IdType,
    ScoredPairs,
    check_link_only,
    read_scored_pairs,
)
from ..metrics._registry import resolve_metrics
from ._metrics import INCREMENTAL_METRICS, fbeta, from_scratch, incremental, ratio
from ._ranked import RankedPairs, ranked_in_memory
from ._result import ThresholdCurve
from ._sql import BATCH_ROWS, ranked_in_sql

__all__ = [
    "CurveJob",
    "curve_from_ranked",
    "curve_from_scored_pairs",
    "evaluate_pairs",
    "threshold_curve",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


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
    link_only: bool = False,
    source_col: Columns | None = None,
    engine: EngineName | Engine = "auto",
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
        As in :func:`ereval.io.align`.
    thresholds : None, int or sequence of float
        Where to report: ``None`` at every distinct score (after every pair with
        that score is accepted); an int ``G`` at ``G`` of the distinct scores,
        evenly spaced in rank; a sequence at those thresholds. When a metric
        without an incremental form is requested (CEAF, BLANC, LEA,
        closest-cluster, merge distances), ``None`` means 100 grid points.
    metrics : str or list of str, optional
        Metrics of the clustering (names or families, as
        :func:`ereval.evaluate` takes them); default
        :data:`INCREMENTAL_METRICS`. Those are updated merge by merge; the
        others are computed from scratch with :func:`ereval.evaluate` at each
        reported threshold.
    beta : float, default 1.0
        Weight of recall; when not 1 every F also has an ``*_fbeta`` column.
    progress : callable, optional
        Called with the name of each step.
    link_only : bool, default False
        A two-file linkage (see :mod:`ereval.contingency._link_only`): every pair count
        (``links_tn``, ``links_fn``, pairs completeness, reduction ratio, and the
        pairwise and Rand metrics of the clustering) is over the pairs across data
        sets only. Needs ``source_col``; a scored pair within one data set is an
        error.
    source_col : str or list of str, optional
        The column(s) of the truth naming each record's data set.
    engine : {"auto", "numpy", "duckdb", "spark"} or Engine, default "auto"
        Who computes (:func:`ereval.engines.get_engine`). NumPy reads every pair into
        memory. DuckDB and Spark read files (or their own relations / DataFrames)
        where they are: the link counts by a ``GROUP BY`` and running sums over the
        scores, the clustering from the pairs streamed in descending order of score
        into a union-find over the records, so that memory grows with the records
        and the distinct scores, not with the pairs (:mod:`ereval.curves._sql`).
        Counts are the same on every engine and floats agree to rounding.

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
    check_choice("on_mismatch", on_mismatch, CURVE_MISMATCH_POLICIES)
    check_choice("id_type", id_type, ("exact", "string"))
    source = check_link_only(link_only, source_col)
    if not isinstance(score_col, str) or not score_col:
        raise InputTypeError(f"'score_col' must be a column name; received {score_col!r}")
    options: dict[str, Any] = {
        "score_col": score_col,
        "left_col": left_col,
        "right_col": right_col,
        "record_col": record_col,
        "cluster_col": cluster_col,
        "on_mismatch": on_mismatch,
        "id_type": id_type,
    }
    job = CurveJob(
        truth,
        pairs,
        options,
        source_col=source,
        thresholds=thresholds,
        metrics=names,
        beta=beta,
        progress=progress,
    )
    curve: ThresholdCurve = get_engine(engine, truth=truth, pred=pairs).run(job)
    return curve


class CurveJob:
    """The curve of :func:`threshold_curve` as an engine's job: read in memory
    (:func:`read_scored_pairs`) or computed where the data is (:func:`ranked_in_sql`),
    then made by :func:`curve_from_ranked` either way. ``batch_rows`` pairs are
    streamed at a time from an SQL engine."""

    def __init__(
        self,
        truth: Any,
        pairs: Any,
        options: dict[str, Any],
        *,
        source_col: Columns | None,
        thresholds: int | Sequence[float] | npt.NDArray[Any] | None,
        metrics: Sequence[str],
        beta: float,
        progress: Callable[[str], None] | None,
        batch_rows: int = BATCH_ROWS,
    ) -> None:
        self.truth, self.pairs, self.options, self.source_col = truth, pairs, options, source_col
        self.thresholds, self.metrics, self.beta = thresholds, metrics, beta
        self.progress, self.batch_rows = progress, batch_rows

    def in_memory(self, engine: Any) -> ThresholdCurve:
        """Every pair read into memory."""
        if self.progress is not None:
            self.progress("reading")
        data = read_scored_pairs(
            self.truth,
            self.pairs,
            link_only=self.source_col is not None,
            source_col=self.source_col,
            allow_empty=True,
            **self.options,
        )
        return curve_from_scored_pairs(
            data,
            thresholds=self.thresholds,
            metrics=self.metrics,
            beta=self.beta,
            progress=self.progress,
        )

    def in_sql(self, db: Database) -> ThresholdCurve:
        """The counts and the merges computed by the engine of ``db``."""
        ranked = ranked_in_sql(
            db,
            self.truth,
            self.pairs,
            source_col=self.source_col,
            batch_rows=self.batch_rows,
            progress=self.progress,
            **self.options,
        )
        if len(self.metrics):  # the merges stream from the connection while it has its memory
            merges = ranked.merges()
            ranked = replace(ranked, merges=lambda: merges)
        # then the replay holds some 85 bytes per merge (at most N - 1) and 25 per
        # record, about fourteen 8-byte values: the engine gives back the memory it
        # keeps meanwhile
        with db.lend_memory(14 * ranked.n_records):
            return curve_from_ranked(
                ranked,
                thresholds=self.thresholds,
                metrics=self.metrics,
                beta=self.beta,
                progress=self.progress,
            )


def _report_positions(
    scores: FloatArray, thresholds: Any, needs_grid: bool
) -> tuple[FloatArray, IntArray]:
    """Thresholds (ascending) and the number of distinct scores accepted at each
    (``scores``: the distinct scores, descending)."""
    if scores.shape[0] == 0:  # no pair: rows only at thresholds given as such
        given = isinstance(thresholds, Sequence | np.ndarray)
        t = np.unique(np.asarray(thresholds, dtype=np.float64)) if given else np.zeros(0)
        return t, np.zeros(t.shape[0], dtype=np.int64)
    if thresholds is None and needs_grid:
        thresholds = 100
    if thresholds is None:
        t = scores
        j = np.arange(1, scores.shape[0] + 1, dtype=np.int64)
    elif isinstance(thresholds, int | np.integer):
        pick = np.unique(np.round(np.linspace(0, scores.shape[0] - 1, int(thresholds))))
        sel = pick.astype(np.int64)
        t = scores[sel]
        j = sel + 1
    else:
        t = np.unique(np.asarray(thresholds, dtype=np.float64))[::-1]
        j = np.searchsorted(-scores, -t, side="right").astype(np.int64)
    # views: a curve of every distinct score keeps no second copy of them
    return t[::-1], np.asarray(j[::-1], dtype=np.int64)


def _giving(names: tuple[str, ...], wanted: Sequence[str]) -> tuple[str, ...]:
    """The metrics of ``names`` whose columns hold those ``wanted`` (besides the link
    columns, always made): a metric's F-beta (and V(beta)) come with its F1 (and V),
    ``n_pred_clusters`` with any metric of the clustering.

    >>> _giving(("pairwise_f1", "b3_f1", "v_measure"), ["b3_fbeta", "v_measure_beta"])
    ('b3_f1', 'v_measure')
    """
    asked = set(wanted)
    return tuple(
        x
        for k, x in enumerate(names)
        if {x, x.replace("_f1", "_fbeta"), f"{x}_beta"} & asked
        or (k == 0 and "n_pred_clusters" in asked)
    )


#: Distinct scores whose ROC and precision-recall points are made at a time.
ROC_CHUNK = 1 << 20


def _roc_areas(acc: IntArray, cum_true: IntArray, n_pos: int, n_neg: int) -> tuple[float, float]:
    """ROC AUC (trapezoids) and average precision (steps) over the scored pairs, from
    the pairs and true pairs accepted down to each distinct score (``acc[0] = 0``),
    :data:`ROC_CHUNK` points at a time; NaN where undefined (no true, or no false,
    scored pair)."""
    auc, ap = 0.0, 0.0
    last_tpr, last_fpr = 0.0, 0.0
    for lo in range(1, acc.shape[0], ROC_CHUNK):
        at = slice(lo, min(lo + ROC_CHUNK, acc.shape[0]))
        tpr_at, fpr_at, precision = _roc_points(acc, cum_true, at, n_pos, n_neg)
        tpr, fpr = np.r_[last_tpr, tpr_at], np.r_[last_fpr, fpr_at]
        auc += float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
        ap += float(np.sum(np.diff(tpr) * precision))
        last_tpr, last_fpr = float(tpr[-1]), float(fpr[-1])
    return (auc if n_neg and n_pos else math.nan), (ap if n_pos else math.nan)


def _roc_points(
    acc: IntArray, cum_true: IntArray, at: slice, n_pos: int, n_neg: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The true and false positive rates and the precision at the distinct scores
    ``at`` (positions in ``acc``, the pairs accepted down to each, ``acc[0] = 0``)."""
    ctp = cum_true[at]
    return ratio(ctp, n_pos), ratio(acc[at] - ctp, n_neg), ratio(ctp, acc[at])


def curve_from_scored_pairs(
    data: ScoredPairs,
    *,
    thresholds: int | Sequence[float] | npt.NDArray[Any] | None = None,
    metrics: Sequence[str] = INCREMENTAL_METRICS,
    beta: float = 1.0,
    progress: Callable[[str], None] | None = None,
) -> ThresholdCurve:
    """:func:`threshold_curve` over pairs already read by :func:`read_scored_pairs`."""
    if progress is not None:
        progress("sorting pairs")
    return curve_from_ranked(
        ranked_in_memory(data),
        thresholds=thresholds,
        metrics=metrics,
        beta=beta,
        progress=progress,
    )


def curve_from_ranked(
    data: RankedPairs,
    *,
    thresholds: int | Sequence[float] | npt.NDArray[Any] | None = None,
    metrics: Sequence[str] = INCREMENTAL_METRICS,
    beta: float = 1.0,
    progress: Callable[[str], None] | None = None,
) -> ThresholdCurve:
    """:func:`threshold_curve` from the counts per distinct score and the merges of
    :class:`RankedPairs` (computed in memory or by an SQL engine)."""
    beta = check_beta(beta)
    names = resolve_metrics(list(metrics)) if len(metrics) else ()
    scratch = tuple(n for n in names if n not in INCREMENTAL_METRICS)
    n = data.n_records
    true_of = data.true_of
    a_sizes = np.bincount(true_of).astype(np.int64)
    k_true = int(a_sizes.shape[0])
    n_true_pairs = int((a_sizes * (a_sizes - 1) // 2).sum())
    all_pairs = n * (n - 1) // 2
    if data.source_of is not None:  # link-only: the pairs across data sets only
        n_true_pairs -= pairs_of_groups([true_of, data.source_of])
        all_pairs -= pairs_of_groups([data.source_of])

    s = data.scores
    # pairs (and true pairs) accepted once the first j distinct scores are
    acc = np.r_[np.int64(0), data.accepted].astype(np.int64)
    cum_true = np.r_[np.int64(0), data.true_accepted].astype(np.int64)
    n_scored_true = int(cum_true[-1])
    m = data.n_pairs
    t, j = _report_positions(s, thresholds, bool(scratch))
    source_of = data.source_of
    # the merges until they are replayed, then let go (in memory they hold every pair);
    # the curve's rows, made later, keep no other part of ``data``
    pending = [data.merges]
    merged: list[tuple[Any, Any]] = []

    def merges() -> tuple[Any, Any]:
        """The merges of the components, replayed once (with what they add within data
        sets, for a link-only evaluation)."""
        if not merged:
            if progress is not None:
                progress("merging components")
            steps = replay_merges(true_of, *pending.pop()())
            cross = None
            if source_of is not None:
                within = cross_steps(steps, true_of, source_of)
                cross = (within, n_true_pairs, all_pairs)
            merged.append((steps, cross))
        return merged[0]

    def rows(t: FloatArray, j: IntArray, wanted: Sequence[str]) -> dict[str, Any]:
        """Every column at the thresholds ``t`` (the first ``j`` distinct scores
        accepted at each): the links and the metrics ``wanted`` of the clustering."""
        k = acc[j]
        tp = cum_true[j]
        fp = k - tp
        fn = n_true_pairs - tp
        tn = all_pairs - tp - fp - fn
        cols: dict[str, Any] = {"threshold": t, "n_accepted": k}
        cols.update(links_tp=tp, links_fp=fp, links_fn=fn, links_tn=tn)
        lp, lr = ratio(tp, k), ratio(tp, n_true_pairs)
        cols.update(links_precision=lp, links_recall=lr, links_f1=fbeta(lp, lr, 1.0))
        if beta != 1.0:
            cols["links_fbeta"] = fbeta(lp, lr, beta)
        if wanted:
            steps, cross = merges()
            n_merges = np.searchsorted(steps.position, k, side="right")
            cols["n_pred_clusters"] = n - n_merges
            inc = [x for x in wanted if x in INCREMENTAL_METRICS]
            cols.update(incremental(steps, n_merges, a_sizes, n, inc, beta, cross))
            hard = tuple(x for x in wanted if x not in INCREMENTAL_METRICS)
            if hard:  # computed once per distinct clustering
                at, back = np.unique(n_merges, return_inverse=True)
                once = from_scratch(
                    true_of, source_of, steps, at.astype(np.int64), hard, beta, progress
                )
                cols.update({key: v[back.ravel()] for key, v in once.items()})
        return cols

    def made(start: int, stop: int, wanted: Sequence[str] | None) -> pd.DataFrame:
        """Rows ``start .. stop - 1`` of the frame: every column, or the links and the
        columns ``wanted`` (with the metrics that give them)."""
        chosen = names if wanted is None else _giving(names, wanted)
        at, jj = t[start:stop].copy(), j[start:stop]  # a copy: the frame's own thresholds
        got = pd.DataFrame(rows(at, jj, chosen), copy=False)
        if wanted is not None and not set(wanted) <= set(got.columns):
            got = pd.DataFrame(rows(at, jj, names), copy=False)
        return got

    def exact(metric: str, at: FloatArray | None) -> tuple[FloatArray, pd.DataFrame]:
        """``metric`` at every distinct score (ascending), or every column at the
        thresholds ``at``."""
        if at is not None:
            jj = np.searchsorted(-s, -at, side="right").astype(np.int64)
            return at, pd.DataFrame(rows(at, jj, names), copy=False)
        every_t, every_j = _report_positions(s, None, False)
        wanted = _giving(names, [metric])
        return every_t, pd.DataFrame(rows(every_t, every_j, wanted), copy=False)

    n_neg = m - n_scored_true

    def roc() -> dict[str, FloatArray]:
        """ROC and precision-recall points over the scored pairs, at every distinct
        score (made when asked for: a curve of many scores keeps no copy)."""
        tpr, fpr, precision = _roc_points(acc, cum_true, slice(1, None), n_scored_true, n_neg)
        return {
            "threshold": np.r_[np.inf, s],
            "fpr": np.r_[0.0, fpr],
            "tpr": np.r_[0.0, tpr],
            "precision": precision,
        }

    roc_auc, ap = _roc_areas(acc, cum_true, n_scored_true, n_neg)
    summary: dict[str, Any] = {
        "n_records": n,
        **({} if data.source_of is None else {"n_sources": int(data.source_of.max()) + 1}),
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
    every = thresholds is None and not scratch  # the frame holds every distinct score
    curve = ThresholdCurve(summary, beta, t, made, roc, None if every else exact)
    _ = curve.columns  # the merges replayed now (in the memory an engine lends for them)
    return curve


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
    link_only: bool = False,
    source_col: Columns | None = None,
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
    link_only, source_col
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
        ``threshold``, ``n_accepted``, the link counts and scores, the metrics
        (NaN where undefined) and the counts :func:`ereval.evaluate` gives
        (``n_records``, ``n_true_clusters``, ``n_pred_clusters``).

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
        link_only=link_only,
        source_col=source_col,
        allow_empty=True,
    )
    if threshold is not None:
        t = threshold
    else:  # every pair accepted (none at all: any threshold accepts nothing)
        t = float(data.scores.min()) if data.n_pairs else 0.0
    curve = curve_from_scored_pairs(data, thresholds=[t], metrics=names, beta=beta)
    row = dict(curve.frame.iloc[0].to_dict())
    for key in ("n_accepted", "links_tp", "links_fp", "links_fn", "links_tn", "n_pred_clusters"):
        row[key] = int(row[key])
    row["n_records"] = int(curve.summary["n_records"])
    row["n_true_clusters"] = int(curve.summary["n_true_clusters"])
    if threshold is None:
        row["threshold"] = None
    return row


def _single(value: Columns, name: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"'{name}' must be one column name for pairs given as a list")
    return value
