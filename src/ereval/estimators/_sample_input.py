"""Reading a labelled sample and its per-cluster / per-unit attributes.

Helpers of :func:`ereval.estimators.as_sample`: each attribute that belongs to a
cluster or a unit (sampling probability, block, number of draws, subgroup) may
be given as a column of the sample table — then it must be constant within
the cluster or unit — or as a mapping from cluster / unit id to value.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError, InputTypeError
from .._validation import describe, examples
from ..io import (
    Columns,
    as_membership,
    column_ids,
    column_names,
    factorize,
    keyed_frame,
    read_table,
    to_numpy,
)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def _values(column: Any) -> npt.NDArray[Any]:
    return to_numpy(column_ids(column))


def plain(value: Any) -> Any:
    """A NumPy scalar as the Python value (for readable error messages)."""
    return value.item() if isinstance(value, np.generic) else value


@dataclass(frozen=True, eq=False)
class SampleTable:
    """The sampled records with their cluster codes, and the table they came from."""

    records: npt.NDArray[Any]
    clusters: npt.NDArray[Any]
    codes: IntArray
    labels: npt.NDArray[Any]
    frame: pd.DataFrame | None

    @property
    def n_clusters(self) -> int:
        return int(self.labels.shape[0])

    def column(self, col: str, *, name: str) -> npt.NDArray[Any]:
        """Values of column ``col`` per record; errors name the option ``name``."""
        if self.frame is None:
            raise InputError(
                f"'{name}' names a column ('{col}') but 'sample' is not a table; give a "
                "mapping from cluster id to value instead"
            )
        if col not in self.frame.columns:
            cols = [str(c) for c in self.frame.columns]
            raise InputError(f"'{name}': the sample has no column '{col}'; its columns are {cols}")
        return _values(self.frame[col])


def as_frame(
    sample: Any, id_columns: tuple[str, ...] = (), *, name: str = "sample"
) -> pd.DataFrame | None:
    """A file (read with ``id_columns`` as text), pandas, polars or pyarrow table as a pandas
    DataFrame; None for anything else (a mapping, a list of clusters, ...)."""
    if isinstance(sample, str | os.PathLike):
        return read_table(sample, name=name, text_columns=id_columns)
    if isinstance(sample, pd.DataFrame):
        return sample
    module = type(sample).__module__
    if module.startswith(("polars", "pyarrow")) and type(sample).__name__ in ("DataFrame", "Table"):
        frame: pd.DataFrame = sample.to_pandas()
        return frame
    return None


def sample_table(sample: Any, *, record_col: Columns, cluster_col: str) -> SampleTable:
    """Validate the sampled clusters (records unique, no missing ids)."""
    key_cols = column_names(record_col, name="record_col")
    frame = as_frame(sample, (*key_cols, cluster_col))
    if frame is not None:
        frame, record_col = keyed_frame(frame, key_cols, name="sample")
    else:
        record_col = key_cols[0]
    if frame is not None and record_col in frame.columns and cluster_col in frame.columns:
        _check_repeated_records(frame, record_col, cluster_col)
    source = frame if frame is not None else sample
    m = as_membership(source, name="sample", record_col=record_col, cluster_col=cluster_col)
    codes, labels = factorize(m.clusters)
    return SampleTable(m.records, m.clusters, codes.astype(np.int64), np.asarray(labels), frame)


def _check_repeated_records(frame: pd.DataFrame, record_col: str, cluster_col: str) -> None:
    recs = frame[record_col]
    dup = recs.duplicated(keep=False)
    if not dup.any():
        return
    sub = frame.loc[dup.to_numpy(), [record_col, cluster_col]]
    n_clusters = sub.groupby(record_col, sort=False)[cluster_col].nunique()
    split = n_clusters[n_clusters > 1]
    if len(split):
        rec = split.index[0]
        where = sub.loc[sub[record_col] == rec, cluster_col].unique().tolist()
        raise InputError(
            f"'sample': {len(split)} record(s) belong to several sampled clusters (e.g. record "
            f"{plain(rec)!r} is in clusters {where!r}); a record belongs to one true cluster. If one "
            "true cluster was labelled under several ids, merge them; if a cluster was drawn "
            "more than once, list it once and pass 'draws'"
        )
    rec = recs[dup.to_numpy()].iloc[0]
    raise InputError(
        f"'sample' lists {int(dup.sum())} rows for repeated records (e.g. {plain(rec)!r}); list each "
        "sampled cluster once and give repeated draws with 'draws'"
    )


def _per_group(
    values: npt.NDArray[Any],
    group: IntArray,
    n_groups: int,
    group_labels: npt.NDArray[Any],
    *,
    name: str,
    what: str,
) -> npt.NDArray[Any]:
    """Collapse per-record values to one per group, checking they agree within a group."""
    missing = pd.isna(values)
    if np.asarray(missing).any():
        g = group[np.flatnonzero(missing)[0]]
        raise InputError(
            f"'{name}' is missing (None/NaN) for {int(np.sum(missing))} sampled record(s), "
            f"e.g. in {what} {plain(group_labels[g])!r}"
        )
    nunique = pd.Series(values).groupby(group).nunique()
    split = nunique.index[nunique.to_numpy() > 1]
    if len(split):
        g = int(split[0])
        seen = pd.unique(values[group == g])[:3].tolist()
        raise InputError(
            f"'{name}' must be constant within each sampled {what}; {len(split)} {what}(s) "
            f"have several values (e.g. {what} {plain(group_labels[g])!r} has {seen!r})"
        )
    first = np.full(n_groups, -1, dtype=np.int64)
    order = np.arange(group.shape[0] - 1, -1, -1)
    first[group[order]] = order
    return values[first]


def _lookup(
    spec: Mapping[Any, Any] | pd.Series, labels: npt.NDArray[Any], *, name: str, what: str
) -> npt.NDArray[Any]:
    series = spec if isinstance(spec, pd.Series) else pd.Series(dict(spec), dtype=object)
    if not series.index.is_unique:
        raise InputError(
            f"'{name}' has repeated keys (e.g. {plain(series.index[series.index.duplicated()][0])!r})"
        )
    pos = series.index.get_indexer(pd.Index(labels, dtype=object))
    if (pos < 0).any():
        miss = labels[pos < 0]
        raise InputError(
            f"'{name}' has no value for {miss.shape[0]} sampled {what}(s) (e.g. {examples(miss)})"
        )
    out: npt.NDArray[Any] = np.asarray(_values(series))[pos]
    return out


def _numeric(values: npt.NDArray[Any], *, name: str) -> FloatArray:
    if values.dtype.kind in "iuf":
        return values.astype(np.float64)
    try:
        out = np.asarray(pd.to_numeric(pd.Series(values), errors="raise"), dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputTypeError(
            f"'{name}' must hold numbers; received e.g. {examples(values)}"
        ) from exc
    if any(isinstance(v, str | bool) for v in values[:100]):
        raise InputTypeError(f"'{name}' must hold numbers; received e.g. {examples(values)}")
    return out


def unit_codes(
    table: SampleTable, *, design: str, blocks: Any
) -> tuple[IntArray, npt.NDArray[Any]]:
    """The sampling unit of each cluster code, and the id of each unit."""
    k = table.n_clusters
    if design in ("record", "cluster"):
        if blocks is not None:
            raise InputError(f"'blocks' is used only by the block designs; design is '{design}'")
        return np.arange(k, dtype=np.int64), table.labels
    if blocks is None:
        if design == "block":
            raise InputError(
                "design='block' needs 'blocks': a column of the sample or a mapping from "
                "cluster id to block id"
            )
        return np.zeros(k, dtype=np.int64), np.asarray(["single block"], dtype=object)
    if isinstance(blocks, str):
        per_record = table.column(blocks, name="blocks")
        missing = np.asarray(pd.isna(per_record))
        if missing.any():
            raise InputError(
                f"'blocks' is missing for {int(missing.sum())} sampled record(s), e.g. record "
                f"{plain(table.records[np.flatnonzero(missing)[0]])!r}"
            )
        nunique = pd.Series(per_record).groupby(table.codes).nunique()
        cut = nunique.index[nunique.to_numpy() > 1]
        if len(cut):
            c = int(cut[0])
            parts = pd.unique(per_record[table.codes == c])[:3].tolist()
            raise InputError(
                f"{len(cut)} true cluster(s) are cut by the blocks (e.g. cluster "
                f"{plain(table.labels[c])!r} lies in blocks {parts!r}); block sampling needs every "
                "true cluster inside one block (Binette et al. 2022, Lemma 3)"
            )
        per_cluster = _per_group(
            per_record, table.codes, k, table.labels, name="blocks", what="cluster"
        )
    elif isinstance(blocks, Mapping | pd.Series):
        per_cluster = _lookup(blocks, table.labels, name="blocks", what="cluster")
    else:
        raise InputTypeError(
            "'blocks' must be a column name or a mapping from cluster id to block id; "
            f"received {describe(blocks)}"
        )
    codes, labels = factorize(per_cluster)
    if design == "single_block" and labels.shape[0] != 1:
        raise InputError(
            f"design='single_block' but the sample spans {labels.shape[0]} blocks "
            f"(e.g. {examples(np.asarray(labels))}); use design='block'"
        )
    return codes.astype(np.int64), np.asarray(labels)


def per_unit_values(
    table: SampleTable,
    spec: Any,
    units: IntArray,
    unit_labels: npt.NDArray[Any],
    *,
    name: str,
    what: str = "unit",
) -> FloatArray:
    """Numeric per-unit values from a column (constant per unit) or a mapping."""
    if isinstance(spec, str):
        per_record = table.column(spec, name=name)
        raw = _per_group(
            per_record, units[table.codes], unit_labels.shape[0], unit_labels, name=name, what=what
        )
    elif isinstance(spec, Mapping | pd.Series):
        raw = _lookup(spec, unit_labels, name=name, what=what)
    else:
        raise InputTypeError(
            f"'{name}' must be 'uniform', 'cluster_size', a column name or a mapping from unit "
            f"id to value; received {describe(spec)}"
        )
    missing = np.asarray(pd.isna(raw))
    if missing.any():
        raise InputError(
            f"'{name}' is missing (None/NaN) for {int(missing.sum())} sampled {what}(s), e.g. "
            f"{examples(unit_labels[missing])}"
        )
    return _numeric(raw, name=name)


def draw_codes(
    table: SampleTable, draws: Any, units: IntArray, unit_labels: npt.NDArray[Any]
) -> IntArray:
    """The drawn units in draw order (repeats allowed)."""
    n_units = unit_labels.shape[0]
    if draws is None:
        return np.arange(n_units, dtype=np.int64)
    if isinstance(draws, str) or isinstance(draws, Mapping | pd.Series):
        if isinstance(draws, str):
            per_record = table.column(draws, name="draws")
            counts_raw = _per_group(
                per_record, units[table.codes], n_units, unit_labels, name="draws", what="unit"
            )
        else:
            series = draws if isinstance(draws, pd.Series) else pd.Series(dict(draws), dtype=object)
            unknown = ~series.index.isin(pd.Index(unit_labels, dtype=object))
            if unknown.any():
                raise InputError(
                    f"'draws' names {int(unknown.sum())} unit(s) that are not in the sample "
                    f"(e.g. {examples(np.asarray(series.index[unknown]))})"
                )
            counts_raw = _lookup(series, unit_labels, name="draws", what="unit")
        counts = _counts(counts_raw)
        return np.repeat(np.arange(n_units, dtype=np.int64), counts)
    if isinstance(draws, Sequence | np.ndarray):
        seq = np.asarray(list(draws), dtype=object)
        pos = pd.Index(unit_labels, dtype=object).get_indexer(seq)
        if (pos < 0).any():
            raise InputError(
                f"'draws' holds {int((pos < 0).sum())} id(s) that are not sampled units "
                f"(e.g. {examples(seq[pos < 0])})"
            )
        never = np.setdiff1d(np.arange(n_units), pos)
        if never.size:
            raise InputError(
                f"'draws' never draws {never.size} sampled unit(s) (e.g. "
                f"{examples(unit_labels[never])}); every sampled unit is drawn at least once"
            )
        drawn: IntArray = pos.astype(np.int64)
        return drawn
    raise InputTypeError(
        "'draws' must be a column name, a mapping from unit id to count, or the sequence of "
        f"drawn unit ids; received {describe(draws)}"
    )


def _counts(raw: npt.NDArray[Any]) -> IntArray:
    values = np.asarray(raw)
    if values.dtype == object:
        if not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in values):
            raise InputTypeError(
                f"'draws' counts must be integers; received e.g. {examples(values)}"
            )
        values = values.astype(np.int64)
    if values.dtype.kind not in "iu":
        raise InputTypeError(f"'draws' counts must be integers; received e.g. {examples(values)}")
    if (values < 1).any():
        raise InputError(
            f"'draws' counts must be >= 1 for every sampled unit; received {examples(values[values < 1])}"
        )
    return values.astype(np.int64)
