"""The error table of a labelled sample: cluster-wise errors, sampling weights and features.

Each sampled true cluster gets its cluster-wise error metrics against the whole
prediction (Binette et al. 2024, Definition 4; records of the prediction outside
the sample still count, as ``on_mismatch="twinless"`` of
:func:`ereval.metrics.cluster_errors`), its sampling weight and its features.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError, RecordMismatchError
from .._validation import describe, examples
from ..engines import Engine, EngineName
from ..estimators import ClusterSample, Design, PreparedPrediction, as_sample, prepare_prediction
from ..estimators._sample_input import as_frame
from ..estimators._terms import prediction_engine
from ..io import Columns, Membership, column_names, keyed_frame
from ..metrics._records import cluster_errors
from ..results import FrameRepr, json_ready

__all__ = ["FeatureKey", "SampleErrors", "sample_errors"]

FeatureKey = Literal["record", "cluster"]

#: Columns of the error table that are not features.
ERROR_TABLE_COLUMNS = (
    "cluster_id",
    "n_pred_clusters",
    "EI",
    "SDE",
    "OCE",
    "UCE",
    "ROCE",
    "RUCE",
    "H",
    "draws",
    "probability",
    "weight",
)


@dataclass(frozen=True, eq=False)
class SampleErrors(FrameRepr):
    """The sampled true clusters with their errors, weights and features.

    Attributes
    ----------
    table : DataFrame
        One row per sampled true cluster, in the sample's cluster order:
        ``cluster_id, size, n_pred_clusters, EI, SDE, OCE, UCE, ROCE, RUCE, H``
        (:func:`ereval.metrics.cluster_errors` against the whole prediction),
        ``draws`` (times the cluster's unit was drawn), ``probability`` (its unit's
        sampling probability, up to a constant), ``weight`` (``draws /
        probability``), then the feature columns.
    features : tuple of str
        The feature columns of ``table``: ``size`` first, then the features given.
    sample : ClusterSample
        The validated sample (design, units, probabilities, draws).
    prediction : PreparedPrediction
        The whole prediction, factorised once for the subgroup estimates.
    """

    table: pd.DataFrame
    features: tuple[str, ...]
    sample: ClusterSample
    prediction: PreparedPrediction

    def to_frame(self) -> pd.DataFrame:
        """One row per sampled true cluster: a copy of :attr:`table`."""
        return self.table.copy()

    def to_dict(self) -> dict[str, Any]:
        """``design``, ``features`` and ``clusters`` (one dict per row of :attr:`table`) in
        plain JSON types (NaN and missing values as ``None``)."""
        rows = self.table.astype(object).where(self.table.notna(), None)
        out: dict[str, Any] = json_ready(
            {
                "design": self.sample.design,
                "features": list(self.features),
                "clusters": rows.to_dict(orient="records"),
            }
        )
        return out


def _blank_as_missing(values: pd.Series) -> pd.Series:
    """Empty or blank text is an unknown value, as an empty CSV cell is."""
    text = values.astype(object)
    blank = text.map(lambda v: isinstance(v, str) and not v.strip())
    return text.where(~blank.astype(bool), None)


def _mode(values: pd.Series) -> Any:
    """The most frequent non-missing value (ties: the smallest as text); NA when none."""
    counts = values.dropna().astype(object).value_counts(sort=False)
    if counts.empty:
        return pd.NA
    top = counts[counts == counts.max()].index
    return sorted(top, key=str)[0]


def _aggregate(
    frame: pd.DataFrame, codes: np.ndarray, columns: Sequence[str], shares: Sequence[str]
) -> pd.DataFrame:
    """Per-cluster features from per-record ones: numbers averaged, other values by mode."""
    frame = frame.copy()
    for col in columns:
        if not pd.api.types.is_numeric_dtype(frame[col]):
            frame[col] = _blank_as_missing(frame[col])
    grouped = frame[list(columns)].groupby(codes, sort=True)
    out: dict[str, Any] = {}
    for col in columns:
        values = frame[col]
        if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            out[col] = grouped[col].mean()
        else:
            out[col] = grouped[col].agg(_mode)
    for spec in shares:
        col, value = _share_spec(spec, frame.columns)
        hit = frame[col].astype(object).astype(str).eq(value) & frame[col].notna()
        out[f"{col}={value}"] = hit.groupby(codes, sort=True).mean()
    return pd.DataFrame(out)


def _share_spec(spec: str, columns: Iterable[Any]) -> tuple[str, str]:
    if not isinstance(spec, str) or "=" not in spec:
        raise InputError(f"'shares' items are 'column=value'; received {describe(spec)}")
    col, value = (part.strip() for part in spec.split("=", 1))
    _check_columns([col], columns, name="shares")
    return col, value


def _check_columns(wanted: Iterable[str], columns: Iterable[Any], *, name: str) -> None:
    have = [str(c) for c in columns]
    for col in wanted:
        if col not in have:
            raise InputError(
                f"'{name}': the features table has no column '{col}'; its columns are {have}"
            )


def _feature_frame(
    features: Any,
    sample: ClusterSample,
    *,
    key: FeatureKey | None,
    columns: Sequence[str] | None,
    shares: Sequence[str],
    record_col: Columns,
    cluster_col: str,
) -> pd.DataFrame:
    """One row per sampled cluster (by cluster code) with its features."""
    key_cols = column_names(record_col, name="record_col")
    frame = as_frame(features, (*key_cols, cluster_col), name="features")
    if frame is None:
        raise InputTypeError(
            f"'features' must be a table (DataFrame or CSV/Parquet file); received "
            f"{describe(features)}"
        )
    has_record = all(c in frame.columns for c in key_cols)
    if key is None:
        key = "record" if has_record else "cluster"
    if key == "record":
        frame, rec = keyed_frame(frame, key_cols, name="features")
        id_cols: list[str] = [rec, *key_cols]
        if rec not in frame.columns:
            raise InputError(
                f"'features' keyed by record needs the column(s) {key_cols}; its columns are "
                f"{[str(c) for c in frame.columns]}"
            )
    elif cluster_col not in frame.columns:
        raise InputError(
            f"'features' needs a record id column {key_cols} or a cluster id column "
            f"'{cluster_col}'; its columns are {[str(c) for c in frame.columns]}"
        )
    else:
        rec = cluster_col
        id_cols = [cluster_col, *key_cols]
    if columns is None:
        columns = [str(c) for c in frame.columns if str(c) not in id_cols]
    else:
        columns = list(columns)
        _check_columns(columns, frame.columns, name="feature_columns")
    taken = set(ERROR_TABLE_COLUMNS) | {"size"}
    clash = [c for c in columns if c in taken]
    if clash:
        raise InputError(
            f"'feature_columns': {clash} clash with columns of the error table; rename them"
        )
    ids = pd.Index(frame[rec].astype(object))
    if ids.has_duplicates:
        dup = ids[ids.duplicated()].unique()
        raise InputError(
            f"'features' has {len(dup)} duplicate {key} id(s) (e.g. {examples(np.asarray(dup))})"
        )
    wanted = sample.records if key == "record" else sample.cluster_labels
    pos = ids.get_indexer(pd.Index(np.asarray(wanted, dtype=object)))
    if (pos < 0).any():
        missing = np.asarray(wanted, dtype=object)[pos < 0]
        raise InputError(
            f"'features' has no row for {len(missing)} sampled {key}(s) (e.g. {examples(missing)})"
        )
    rows = frame.iloc[pos].reset_index(drop=True)
    if key == "cluster":
        if shares:
            raise InputError(
                "'shares' needs features keyed by record (shares of a cluster's records)"
            )
        picked = rows[columns].reset_index(drop=True)
        for col in columns:
            if not pd.api.types.is_numeric_dtype(picked[col]):
                picked[col] = _blank_as_missing(picked[col])
        return picked
    return _aggregate(rows, sample.cluster_codes, columns, shares).reset_index(drop=True)


def _whole(prepared: PreparedPrediction) -> Membership:
    """The prediction as a membership for the error table. A prediction an SQL engine
    prepared for the sample holds only the sampled records: the other records of
    the clusters they fall in are stood for by new ids (of the same kind, found in
    no clustering), so that every such cluster has its size over the whole
    prediction; the records of the other clusters play no part in the errors of
    the sampled clusters."""
    clusters = prepared.labels[prepared.codes]
    if prepared.total_records is None:
        return Membership(prepared.records, clusters)
    held = np.bincount(prepared.codes, minlength=prepared.sizes.shape[0])
    more = prepared.sizes - held
    extra_clusters = np.repeat(prepared.labels, more)
    records = prepared.records
    extra = _fillers(records, int(more.sum()))
    return Membership(np.concatenate([records, extra]), np.concatenate([clusters, extra_clusters]))


def _fillers(records: np.ndarray, k: int) -> np.ndarray:
    """``k`` ids of the kind of ``records`` and none of them: past the largest, for
    numbers, decimals, dates and times (below the least where the largest leaves no
    room); text found in no id otherwise.

    Examples
    --------
    >>> _fillers(np.array([2**64 - 2, 5], dtype=np.uint64), 2).tolist()
    [3, 4]
    >>> _fillers(np.array([2.0**53]), 2).tolist()
    [9007199254740994.0, 9007199254740996.0]
    >>> import datetime
    >>> _fillers(np.array([datetime.date(2000, 1, 1)], dtype=object), 1).tolist()
    [datetime.date(2000, 1, 2)]
    """
    if k == 0:
        return records[:0]
    if not records.size:
        return np.arange(1, k + 1, dtype=np.int64)
    kind = records.dtype.kind
    if kind in "iu":
        info = np.iinfo(records.dtype)
        top, least = int(records.max()), int(records.min())
        if top + k <= info.max:
            return np.arange(top + 1, top + 1 + k, dtype=records.dtype)
        return np.arange(least - k, least, dtype=records.dtype)
    if kind == "f":  # steps of at least 1 that stay apart where the floats thin out
        top_float, step = float(records.max()), 1.0
        while True:
            floats = top_float + step * np.arange(1, k + 1, dtype=np.float64)
            if np.unique(floats).shape[0] == k and floats[0] > top_float:
                return floats.astype(records.dtype)
            step *= 2.0
    if kind == "M":
        unit = np.datetime_data(records.dtype)[0]
        steps = np.arange(1, k + 1).astype(f"timedelta64[{unit}]")
        return np.asarray(records.max() + steps)
    values = records.tolist()
    first = values[0]
    if isinstance(first, dt.date) and all(isinstance(v, type(first)) for v in values):
        top_day = max(values)
        return np.array([top_day + dt.timedelta(days=i) for i in range(1, k + 1)], dtype=object)
    if isinstance(first, int | Decimal) and not isinstance(first, bool):
        if all(isinstance(v, int | Decimal) and not isinstance(v, bool) for v in values):
            top_number = max(values)
            return np.array([top_number + i for i in range(1, k + 1)], dtype=object)
    taken = set(values)
    prefix = "\x00filler-"
    while any(str(r).startswith(prefix) for r in taken):
        prefix += "\x00"
    return np.array([f"{prefix}{i}" for i in range(k)], dtype=object)


def sample_errors(
    pred: Any,
    sample: Any,
    *,
    features: Any = None,
    feature_key: FeatureKey | None = None,
    feature_columns: Sequence[str] | None = None,
    shares: Sequence[str] = (),
    design: Design | None = None,
    weights: Any = None,
    record_col: Columns = "record_id",
    cluster_col: str = "cluster_id",
    engine: EngineName | Engine = "auto",
) -> SampleErrors:
    """Cluster-wise errors of the sampled true clusters, with weights and features.

    Parameters
    ----------
    pred : clustering
        The prediction of the *whole* population (every record the sample could
        have been drawn from).
    sample : ClusterSample or clustering
        The labelled true clusters; a plain clustering needs ``design`` and
        ``weights`` as for :func:`ereval.estimators.as_sample`.
    features : DataFrame or path, optional
        Features keyed by record (``record_col``) or by true cluster
        (``cluster_col``). Per-record features are aggregated per cluster:
        numbers by their mean, other values by their most frequent value
        (missing values ignored; a cluster with none gets a missing value).
        Empty or blank text counts as missing.
    feature_key : {"record", "cluster"}, optional
        How ``features`` is keyed; by default by record when it has the record
        id column(s), else by cluster.
    feature_columns : list of str, optional
        The feature columns to keep (default: every column but the ids).
    shares : list of str, default ()
        ``"column=value"`` items: the share of each cluster's records with that
        value, as a feature named ``column=value`` (e.g. ``"source=census"``).
    design, weights
        See :func:`ereval.estimators.as_sample`.
    engine
        Who reads ``pred``, as in :func:`ereval.estimators.estimate`: DuckDB or
        Spark bring back only the sampled records' clusters with their sizes.

    Returns
    -------
    SampleErrors

    Notes
    -----
    A cluster's errors count every record of the prediction: a sampled record
    linked to an unsampled one is an over-clustering error of its cluster. So
    subgroup error rates read from this table are those of Binette et al.
    (2024, Remark 3), not those of a prediction restricted to the subgroup.

    Examples
    --------
    >>> pred = {1: "x", 2: "x", 3: "x", 4: "y"}
    >>> s = sample_errors(pred, {1: "a", 2: "a", 4: "b"}, design="cluster", weights="uniform")
    >>> s.table[["cluster_id", "size", "OCE", "UCE", "weight"]].values.tolist()
    [['a', 2, 1.0, 0.0, 1.0], ['b', 1, 0.0, 0.0, 1.0]]
    """
    if isinstance(sample, ClusterSample):
        s = as_sample(sample, design=design, weights=weights)
    else:
        s = as_sample(
            sample, design=design, weights=weights, record_col=record_col, cluster_col=cluster_col
        )
    if s.design == "predicted_cluster":
        raise InputError(
            "design='predicted_cluster' labels only the entities inside each predicted cluster, "
            "so the records an entity has elsewhere (its splits) are unknown; error analysis "
            "needs samples of whole true clusters"
        )
    chosen = prediction_engine(
        pred,
        engine,
    )
    prepared = (
        pred
        if isinstance(pred, PreparedPrediction)
        else prepare_prediction(
            pred,
            index=False,
            record_col=record_col,
            cluster_col=cluster_col,
            records=s.records,
            engine=chosen,
        )
    )
    absent = pd.Index(prepared.records).get_indexer(pd.Index(s.records)) < 0
    if absent.any():
        raise RecordMismatchError(
            f"{int(absent.sum())} record(s) of 'sample' are absent from 'pred' (e.g. "
            f"{examples(np.asarray(s.records)[absent])}); every sampled record needs a "
            "predicted cluster (give the prediction of the whole population)"
        )
    whole = _whole(prepared)
    errs = cluster_errors(s.membership(), whole, on_mismatch="twinless", id_type="exact")
    order = pd.Index(errs["cluster_id"].astype(object)).get_indexer(
        pd.Index(np.asarray(s.cluster_labels, dtype=object))
    )
    if (order < 0).any():  # the same ids on both sides: a failure here is a bug
        raise RuntimeError("the error table lost sampled clusters")
    table = errs.iloc[order].reset_index(drop=True)
    table["cluster_id"] = np.asarray(s.cluster_labels, dtype=object)
    unit = s.unit_of_cluster
    counts = np.bincount(s.draws, minlength=s.n_units)
    table["draws"] = counts[unit]
    table["probability"] = s.probabilities[unit]
    table["weight"] = table["draws"] / table["probability"]
    names: list[str] = ["size"]
    if features is not None:
        feats = _feature_frame(
            features,
            s,
            key=feature_key,
            columns=feature_columns,
            shares=shares,
            record_col=record_col,
            cluster_col=cluster_col,
        )
        for col in feats.columns:
            table[str(col)] = feats[col].to_numpy()
            names.append(str(col))
    elif shares:
        raise InputError("'shares' needs 'features' (a table of per-record features)")
    return SampleErrors(table, tuple(names), s, prepared)
