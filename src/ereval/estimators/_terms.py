"""Per-cluster sufficient statistics of a sample of true clusters against a prediction.

For a sampled true cluster ``c`` of size ``a`` meeting predicted clusters ``j``
in ``n_j = |c ∩ ĉ_j|`` records, with ``b_j = |ĉ_j|`` counted over the *whole*
prediction, every estimator of :mod:`ereval.estimators` needs only:

* ``size = a``, ``sq = sum_j n_j^2``, ``nb = sum_j n_j b_j``;
* ``frac = sum_j n_j / b_j`` and ``b3p = sum_j n_j^2 / b_j``;
* ``ent_pred = sum_j n_j log(n_j / b_j)`` and ``ent_true = sum_j n_j log(n_j / a)``;
* ``exact`` (1 when ``c`` is a predicted cluster), and, with record names,
  ``homonym`` and ``variation`` indicators (Binette et al. 2024, eqs. 2-3).

In the notation of Binette et al. (2024, §3.3.1): ``sum_{r in c} UCE(r) =
a^2 - sq``, ``sum_{r in c} SDE(r) = nb - a^2``, ``sum_{r in c} ROCE(r) = a - b3p``
and ``EI(c) = 1 - exact``. The prediction is factorised once
(:func:`prepare_prediction`) and can be reused for many samples.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError, InputTypeError, RecordMismatchError
from .._validation import examples
from ..contingency import count_cells
from ..engines import Engine, EngineName, NumpyEngine, get_engine
from ..io import (
    Columns,
    Membership,
    as_membership,
    factorize,
    id_kind,
    int_offsets,
    keyed_frame,
    read_table,
    span_ids,
    to_arrow_ids,
    within_span,
)
from ..io import dense_int_span as _dense_int_span
from ..summary import name_codes as read_name_codes
from ..summary import name_indicators
from ._designs import ClusterSample

__all__ = [
    "ClusterTerms",
    "PreparedPrediction",
    "absent_error",
    "check_id_kinds",
    "cluster_terms",
    "prediction_engine",
    "prepare_prediction",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class PreparedPrediction:
    """A predicted clustering factorised once: cluster codes, sizes and (optionally) names.

    Build it with :func:`prepare_prediction` and pass it to
    :func:`ereval.estimators.estimate` to score many samples against one
    prediction without re-reading it.

    A prediction prepared by an SQL engine for one sample holds only the
    sampled records, the clusters they fall in (with their sizes over the whole
    prediction) and the names they carry (with their counts over the whole
    prediction); ``total_records``, ``total_clusters``, ``total_pairs`` and
    ``total_entropy`` then give the population's constants, which the arrays
    alone do not hold.
    """

    records: npt.NDArray[Any]
    codes: IntArray
    labels: npt.NDArray[Any]
    sizes: IntArray
    name_codes: IntArray | None = None
    name_counts: IntArray | None = None
    indexed: bool = False
    total_records: int | None = None
    total_clusters: int | None = None
    total_pairs: int | None = None
    total_entropy: float | None = None

    @property
    def n_records(self) -> int:
        """``N``, the number of records of the population."""
        if self.total_records is not None:
            return self.total_records
        return int(self.records.shape[0])

    @property
    def n_clusters(self) -> int:
        """``|Ĉ|``, the number of predicted clusters."""
        if self.total_clusters is not None:
            return self.total_clusters
        return int(self.sizes.shape[0])

    @cached_property
    def n_pairs(self) -> int:
        """``|P| = sum_j C(b_j, 2)``, the number of predicted pairs (exact)."""
        if self.total_pairs is not None:
            return self.total_pairs
        return int((self.sizes * (self.sizes - 1) // 2).sum(dtype=np.int64))

    @cached_property
    def entropy(self) -> float:
        """``H(Ĉ) = -sum_j (b_j/N) log(b_j/N)`` in nats."""
        if self.total_entropy is not None:
            return self.total_entropy
        p = self.sizes / float(self.n_records)
        return max(float(-(p * np.log(p)).sum()), 0.0)

    @cached_property
    def _index(self) -> pd.Index:
        return pd.Index(self.records)

    @cached_property
    def _dense(self) -> tuple[int, IntArray] | None:
        """``(min, position of each id - min)`` when the record ids are dense integers."""
        span = _dense_int_span(self.records)
        if span is None:
            return None
        lo, width = span
        pos = np.full(width, -1, dtype=np.int64)
        pos[int_offsets(self.records, lo)] = np.arange(self.n_records, dtype=np.int64)
        return lo, pos

    def locate(self, records: npt.NDArray[Any]) -> IntArray:
        """Positions of ``records`` in the prediction (``-1`` where absent)."""
        dense = self._dense if self.indexed or _dense_int_span(self.records) else None
        if dense is not None:
            lo, table = dense
            out = np.full(records.shape[0], -1, dtype=np.int64)
            if records.dtype.kind in "iu":
                inside = within_span(records, lo, table.shape[0])
                out[inside] = table[int_offsets(records[inside], lo)]
                return out
        if self.indexed:
            found: IntArray = self._index.get_indexer(records).astype(np.int64)
            return found
        small = pd.Index(records)
        hit = small.get_indexer(self.records)
        found = np.flatnonzero(hit >= 0)
        out = np.full(records.shape[0], -1, dtype=np.int64)
        out[hit[found]] = found
        return out


def prepare_prediction(
    pred: Any,
    *,
    names: Any = None,
    index: bool = True,
    record_col: Columns = "record_id",
    cluster_col: str = "cluster_id",
    records: Any = None,
    engine: EngineName | Engine = "numpy",
) -> PreparedPrediction:
    """Factorise a predicted clustering once for repeated estimation.

    Parameters
    ----------
    pred : clustering or PreparedPrediction
        The prediction over the *whole* population the sample was drawn from
        (any form of :func:`ereval.io.as_membership`).
    names : str, mapping or Series, optional
        A name (label) per record, for the homonymy and name-variation rates
        (Binette et al. 2024, Definition 2): a column of the prediction table,
        or a mapping from record id to name covering every record of ``pred``.
    index : bool, default True
        Build a hash index of the record ids now, so that each later sample is
        located in time proportional to its size (otherwise every lookup scans
        the prediction once).
    record_col, cluster_col : str
        Column names for tables and files.
    records : array-like, optional
        The record ids of the one sample the prediction is prepared for; needed
        by an SQL engine, which brings back only what the sample touches.
    engine : {"numpy", "auto", "duckdb", "spark"} or Engine, default "numpy"
        Who reads the prediction: in memory (NumPy), or DuckDB / Spark, which
        read a big prediction where it is (a file, a glob or folder of parts, a
        DuckDB relation, a Spark DataFrame) and return it restricted to the
        sampled records, with the population's constants (see
        :mod:`ereval.estimators._sql`); ``names`` must then be column(s)
        of ``pred``. ``"auto"`` picks by :func:`ereval.engines.get_engine`.

    Returns
    -------
    PreparedPrediction
    """
    if records is not None or engine != "numpy":
        from ._sql import prediction_for_sample

        return prediction_for_sample(
            pred,
            records,
            names=names,
            index=index,
            record_col=record_col,
            cluster_col=cluster_col,
            engine=engine,
        )
    if isinstance(pred, PreparedPrediction):
        if names is not None:
            raise InputError("'names' must be given when the prediction is prepared, not later")
        return pred
    frame = (
        read_table(pred, name="pred", text_columns="all")
        if isinstance(pred, str | os.PathLike)
        else pred
    )
    if not isinstance(frame, Mapping | pd.Series) and hasattr(frame, "columns"):
        frame, record_col = keyed_frame(frame, record_col, name="pred")
    m = as_membership(frame, name="pred", record_col=record_col, cluster_col=cluster_col)
    codes, labels = _cluster_codes(m.clusters)
    sizes = np.bincount(codes).astype(np.int64)
    name_codes, name_counts = _names(names, frame, m)
    out = PreparedPrediction(
        m.records, codes, np.asarray(labels), sizes, name_codes, name_counts, indexed=index
    )
    if index:
        out.locate(m.records[:1])  # builds the hash table once
    return out


_PREPARED_IN_MEMORY = (
    "'engine': the prediction is already prepared in memory; give the prediction "
    "itself (a file, a relation or a DataFrame) to use an SQL engine"
)


class _InMemoryOnly:
    """The engine itself when it works in memory; an SQL engine is refused."""

    def in_memory(self, engine: Engine) -> Engine:
        return engine

    def in_sql(self, db: Any) -> Engine:
        raise InputError(_PREPARED_IN_MEMORY)


def prediction_engine(pred: Any, engine: Any, **options: Any) -> Engine:
    """The engine reading ``pred`` (``"auto"`` looks at it alone) with the options of
    :func:`ereval.engines.get_engine`, checked before any work."""
    given = {k: v for k, v in options.items() if v is not None}
    if isinstance(pred, PreparedPrediction):
        if given:
            raise InputError(_PREPARED_IN_MEMORY)
        if engine == "auto":
            return NumpyEngine()
        chosen: Engine = get_engine(engine).run(_InMemoryOnly())
        return chosen
    return get_engine(engine, truth=pred, **given)


def _cluster_codes(clusters: npt.NDArray[Any]) -> tuple[IntArray, npt.NDArray[Any]]:
    """Dense codes ``0..R-1`` of the cluster ids, and the id of each code."""
    span = _dense_int_span(clusters)
    if span is None:
        codes, labels = factorize(clusters)
        return codes.astype(np.int64), np.asarray(labels)
    lo, width = span
    offset = int_offsets(clusters, lo)
    present = np.bincount(offset, minlength=width) > 0
    remap = np.cumsum(present, dtype=np.int64) - 1
    return remap[offset], span_ids(np.flatnonzero(present), lo, clusters.dtype)


def _names(names: Any, frame: Any, m: Membership) -> tuple[IntArray | None, IntArray | None]:
    if names is None:
        return None, None
    codes = read_name_codes(names, m, table=frame, source="pred")
    return codes, np.bincount(codes).astype(np.int64)


@dataclass(frozen=True, eq=False)
class ClusterTerms:
    """Per-cluster sufficient statistics (indexed by sample cluster code) and population constants.

    ``rows, cols, counts`` are the sample's contingency cells against the
    prediction (``cols`` are prediction cluster codes). ``name_rows``,
    ``name_codes`` and ``name_counts`` give, per (cluster, name) pair, how many of
    the cluster's records carry the name (for the naive homonymy rate).
    """

    size: FloatArray
    sq: FloatArray
    nb: FloatArray
    frac: FloatArray
    b3p: FloatArray
    ent_pred: FloatArray
    ent_true: FloatArray
    exact: FloatArray
    homonym: FloatArray | None
    variation: FloatArray | None
    rows: IntArray
    cols: IntArray
    counts: IntArray
    name_rows: IntArray | None
    name_codes: IntArray | None
    name_counts: IntArray | None
    n_records: int
    n_pred_clusters: int
    n_pred_pairs: int
    pred_entropy: float

    @property
    def n_clusters(self) -> int:
        return int(self.size.shape[0])

    @property
    def has_names(self) -> bool:
        return self.homonym is not None


def _sum_by(index: IntArray, values: npt.ArrayLike, k: int) -> FloatArray:
    out: FloatArray = np.bincount(
        index, weights=np.asarray(values, dtype=np.float64), minlength=k
    ).astype(np.float64)
    return out


def check_id_kinds(
    sample_records: npt.NDArray[Any], pred_records: Any, *, pred_kind: str | None = None
) -> None:
    """An error unless the record ids of the sample and of the prediction are of one kind
    (judged from the first 1000 of each, or ``pred_kind``, the kind an engine read)."""
    k_pred = id_kind(to_arrow_ids(pred_records[:1000])) if pred_kind is None else pred_kind
    k_sample = id_kind(to_arrow_ids(sample_records[:1000]))
    if k_pred != k_sample:
        raise InputTypeError(
            f"record ids of 'sample' are {k_sample} (e.g. {examples(sample_records[:2])}) but "
            f"those of 'pred' are {k_pred} (e.g. {examples(pred_records[:2])}), so no "
            "sampled record can be found; give both files the same id type (a CSV file's ids "
            "are text: write the Parquet file's ids as text, or read both from CSV)"
        )


def absent_error(n_absent: int, absent: npt.NDArray[Any]) -> RecordMismatchError:
    """The error for sampled records that the prediction lacks (``absent``: some of them)."""
    return RecordMismatchError(
        f"{n_absent} sampled record(s) are absent from 'pred' (e.g. "
        f"{examples(absent)}); the prediction must cover every record of "
        "the population the sample was drawn from"
    )


def cluster_terms(prepared: PreparedPrediction, sample: ClusterSample) -> ClusterTerms:
    """Compute the per-cluster statistics of ``sample`` against the whole prediction.

    Raises :class:`~ereval.RecordMismatchError` when sampled records are absent
    from the prediction (the prediction must cover the whole population).
    """
    check_id_kinds(sample.records, prepared.records)
    pos = prepared.locate(sample.records)
    absent = pos < 0
    if absent.any():
        raise absent_error(int(absent.sum()), sample.records[absent])
    k = sample.n_clusters
    tc = sample.cluster_codes
    pc = prepared.codes[pos]
    rows, cols, counts = count_cells(tc, pc, prepared.sizes.shape[0])
    n = counts.astype(np.float64)
    b = prepared.sizes[cols].astype(np.float64)
    a = np.bincount(tc, minlength=k).astype(np.float64)
    a_cell = a[rows]
    exact_cell = (n == a_cell) & (n == b)
    homonym = variation = None
    name_rows = name_codes = name_counts = None
    if prepared.name_codes is not None and prepared.name_counts is not None:
        nc = prepared.name_codes[pos]
        name_rows, name_codes, name_counts = count_cells(tc, nc, prepared.name_counts.shape[0])
        has_homonym, has_variation = name_indicators(
            name_rows, name_codes, name_counts, prepared.name_counts, k
        )
        homonym = has_homonym.astype(np.float64)
        variation = has_variation.astype(np.float64)
    return ClusterTerms(
        size=a,
        sq=_sum_by(rows, n * n, k),
        nb=_sum_by(rows, n * b, k),
        frac=_sum_by(rows, n / b, k),
        b3p=_sum_by(rows, n * n / b, k),
        ent_pred=_sum_by(rows, n * np.log(n / b), k),
        ent_true=_sum_by(rows, n * np.log(n / a_cell), k),
        exact=(_sum_by(rows, exact_cell, k) > 0).astype(np.float64),
        homonym=homonym,
        variation=variation,
        rows=rows,
        cols=cols,
        counts=counts,
        name_rows=name_rows,
        name_codes=name_codes,
        name_counts=name_counts,
        n_records=prepared.n_records,
        n_pred_clusters=prepared.n_clusters,
        n_pred_pairs=prepared.n_pairs,
        pred_entropy=prepared.entropy,
    )


def log_ratio(size: FloatArray, n_records: int) -> FloatArray:
    """``a log(a / N)`` per cluster (the entropy term of Binette et al. 2024, Lemma 5)."""
    return size * (np.log(size) - math.log(n_records))
