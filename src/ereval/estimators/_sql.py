"""The prediction as the estimators need it, prepared by an SQL engine for one sample.

For a big prediction and a small sample, the estimators' per-cluster terms
(:func:`ereval.estimators.cluster_terms`) need only the clusters the sample
touches, with their sizes over the whole prediction, and a few constants of the
whole prediction. DuckDB or Spark reads the prediction where it is (a file, a
glob or a folder of parts, a DuckDB relation, a Spark DataFrame); the sample's
record ids are pushed into the engine as an Arrow table, joined to the
prediction, and only these come back (:mod:`ereval.estimators._sql`):

* per sampled record its predicted cluster and that cluster's size;
* with names, the record's name and how many records of the prediction carry it;
* the size distribution of the prediction (one row per distinct size), from
  which ``N``, the number of clusters, the number of pairs (exact integers) and
  the entropy are computed.

The result is a :class:`~ereval.estimators.PreparedPrediction` restricted to
those records, clusters and names, with the population constants given
explicitly, so that :func:`~ereval.estimators.cluster_terms` runs unchanged and
gives the terms of the in-memory path (integers exactly, floats to the last
bits). Nothing of the prediction's size comes back to Python.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa

from .._errors import InputError
from .._validation import examples
from ..engines import Database, Engine, EngineName
from ..engines._sources import SideSpec, check_unique, name_columns, push_table, size_distribution
from ..io import Columns, column_names, factorize, to_arrow_ids
from ._terms import (
    PreparedPrediction,
    absent_error,
    check_id_kinds,
    prediction_engine,
    prepare_prediction,
)

__all__ = [
    "PopulationConstants",
    "engine_prediction",
    "first_records_sql",
    "missing_name_examples_sql",
    "missing_names_sql",
    "population_constants",
    "prediction_for_sample",
    "sampled_records_sql",
    "touched_sql",
]

#: ``(N, number of clusters, number of pairs, entropy)`` of a whole prediction.
PopulationConstants = tuple[int, int, int, float]


def first_records_sql(pred: str, *, limit: int = 2) -> str:
    """A few record keys of ``pred`` (to compare their kind with the sample's)."""
    return f"SELECT r FROM {pred} LIMIT {int(limit)}"


def missing_names_sql(pred: str, columns: list[str]) -> str:
    """Per name column of ``pred`` (its aliases ``columns``), the records without a name."""
    counts = ", ".join(f"count(*) FILTER (WHERE {c} IS NULL)" for c in columns)
    return f"SELECT {counts} FROM {pred}"


def missing_name_examples_sql(pred: str, column: str, *, limit: int = 3) -> str:
    """The smallest record keys of ``pred`` without a value in the name column ``column``."""
    return f"SELECT r FROM {pred} WHERE {column} IS NULL ORDER BY r LIMIT {int(limit)}"


def sampled_records_sql(sample: str, pred: str, *, names: bool) -> str:
    """The sampled records found in ``pred``: ``(r, c[, s])``, one row per record (the
    prediction's record keys being unique)."""
    name = ", p.s AS s" if names else ""
    return f"SELECT q.r AS r, p.c AS c{name} FROM {sample} AS q JOIN {pred} AS p ON q.r = p.r"


def touched_sql(sampled: str, pred: str, *, names: bool) -> str:
    """Per sampled record of ``sampled`` (:func:`sampled_records_sql`): ``(r, c, b[, s,
    k])``, with ``b`` the size of cluster ``c`` and ``k`` the number of records named
    ``s``, both counted over the whole of ``pred`` but only for the clusters and names
    the sample touches."""
    sizes = f"SELECT c, count(*) AS b FROM {pred} WHERE c IN (SELECT c FROM {sampled}) GROUP BY c"
    query = "SELECT x.r AS r, x.c AS c, z.b AS b"
    joins = f" FROM {sampled} AS x JOIN ({sizes}) AS z ON x.c = z.c"
    if names:
        counts = (
            f"SELECT s, count(*) AS k FROM {pred} WHERE s IN (SELECT s FROM {sampled}) GROUP BY s"
        )
        query += ", x.s AS s, w.k AS k"
        joins += f" JOIN ({counts}) AS w ON x.s = w.s"
    return query + joins


def population_constants(
    sizes: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]
) -> PopulationConstants:
    """``N``, the number of clusters, the number of pairs ``sum C(b, 2)`` (exact) and the
    entropy ``-sum (b / N) log(b / N)`` (nats) of the size distribution (``counts[i]``
    clusters of size ``sizes[i]``).

    Examples
    --------
    >>> population_constants(np.array([1, 3]), np.array([2, 1]))[:3]
    (5, 3, 3)
    """
    s = [int(x) for x in sizes]
    m = [int(x) for x in counts]
    n = sum(a * b for a, b in zip(s, m, strict=True))
    pairs = sum(k * (b * (b - 1) // 2) for b, k in zip(s, m, strict=True))
    if n == 0:
        return 0, 0, 0, 0.0
    p = np.asarray(sizes, dtype=np.float64) / float(n)
    entropy = max(float(-(np.asarray(counts, dtype=np.float64) * p * np.log(p)).sum()), 0.0)
    return n, sum(m), pairs, entropy


def prediction_for_sample(
    pred: Any,
    records: Any,
    *,
    names: Any = None,
    index: bool = False,
    record_col: Columns = "record_id",
    cluster_col: str = "cluster_id",
    engine: EngineName | Engine = "auto",
    progress: Callable[[str], None] | None = None,
    read: Any = None,
) -> PreparedPrediction:
    """The prediction prepared for the sample whose record ids are ``records``: in memory
    by :func:`~ereval.estimators.prepare_prediction` when ``engine`` is (or picks) NumPy,
    else by :func:`engine_prediction`.

    ``engine`` is a name (``"auto"`` looks at ``pred`` alone) or an engine of
    :func:`ereval.engines.get_engine`. ``read``, when given, is ``pred`` already read
    as a table, which the in-memory path uses instead of reading it again.
    """
    chosen = prediction_engine(pred, engine)
    if isinstance(pred, PreparedPrediction):
        return prepare_prediction(pred, names=names)
    job = _PredictionJob(
        pred, records, names, record_col, cluster_col, progress, index=index, in_memory=True
    )
    job.read = read
    prepared: PreparedPrediction = chosen.run(job)
    return prepared


def _name_columns(names: Any) -> list[str] | None:
    if names is None:
        return None
    if isinstance(names, Mapping | pd.Series) or not isinstance(names, str | list | tuple):
        raise InputError(
            "'names': an SQL engine reads the names from the prediction itself; give the "
            f"column(s) of 'pred' that hold them, not a {type(names).__name__}"
        )
    return column_names(names if isinstance(names, str) else list(names), name="names")


def engine_prediction(
    engine: Engine,
    pred: Any,
    records: Any,
    *,
    names: Any = None,
    record_col: Columns = "record_id",
    cluster_col: str = "cluster_id",
    progress: Callable[[str], None] | None = None,
) -> PreparedPrediction:
    """The prediction ``pred`` prepared by ``engine`` (DuckDB or Spark) for the sample whose
    record ids are ``records``: the sampled records, the clusters they fall in with their
    sizes, their names with their counts, and the population's constants.

    Raises
    ------
    InputError
        Repeated record ids in ``pred`` (with the message of the in-memory path), a
        missing column or name, record ids of another kind than the sample's.
    RecordMismatchError
        Sampled records absent from ``pred``.
    """
    if not callable(getattr(engine, "run", None)):
        raise InputError(
            f"'engine': expected an engine (NumPy, DuckDB or Spark); received {engine!r}"
        )
    job = _PredictionJob(pred, records, names, record_col, cluster_col, progress)
    job.refusal = f"'engine': {engine!r} cannot run SQL; use 'duckdb' or 'spark'"
    prepared: PreparedPrediction = engine.run(job)
    return prepared


class _PredictionJob:
    """The prediction prepared for one sample: in memory, or by an SQL engine which
    brings back only what the sample touches."""

    def __init__(
        self,
        pred: Any,
        records: Any,
        names: Any,
        record_col: Columns,
        cluster_col: str,
        progress: Callable[[str], None] | None,
        *,
        index: bool = False,
        in_memory: bool = False,
    ) -> None:
        self.pred, self.records, self.names = pred, records, names
        self.record_col, self.cluster_col, self.progress = record_col, cluster_col, progress
        self.index, self.memory = index, in_memory
        self.refusal = "'engine': this needs an SQL engine ('duckdb' or 'spark')"
        #: ``pred`` already read as a table, for the in-memory path.
        self.read: Any = None

    def in_memory(self, engine: Any) -> PreparedPrediction:
        if not self.memory:
            raise InputError(self.refusal)
        return prepare_prediction(
            self.pred if self.read is None else self.read,
            names=self.names,
            index=self.index,
            record_col=self.record_col,
            cluster_col=self.cluster_col,
        )

    def in_sql(self, db: Database) -> PreparedPrediction:
        records, progress = self.records, self.progress
        if records is None:
            raise InputError(
                f"'records': engine {db.name!r} prepares the prediction for one sample; "
                "give the sample's record ids"
            )
        name_cols = _name_columns(self.names)
        sample_ids = to_arrow_ids(records)
        sample_np = np.asarray(records)
        extra = () if name_cols is None else name_columns(name_cols)[0]
        spec = SideSpec(
            "p",
            self.pred,
            "pred",
            column_names(self.record_col, name="record_col"),
            column_names(self.cluster_col, name="cluster_col"),
            extra,
        )
        if progress is not None:
            progress(f"reading the prediction ({db.name})")
        db.load([spec])
        con = db
        check_unique(con, "p", "pred")
        if name_cols is not None:
            _check_names(con, name_cols)
        # the kind the engine read (a fetch would turn decimals into floats, dates into
        # timestamps), a key of several columns compared as its text
        kind = db.kinds[0][0] if len(db.kinds[0]) == 1 else "text"
        first = [row[0] for row in con.execute(first_records_sql("p")).fetchall()]
        check_id_kinds(sample_np, first, pred_kind=kind)
        if progress is not None:
            progress(f"joining the sample to the prediction ({db.name})")
        ids = sample_ids if isinstance(sample_ids, pa.Array) else pa.array(sample_ids)
        push_table(con, "q", pa.table({"r": ids}))
        with_names = name_cols is not None
        con.execute("CREATE TEMP TABLE x AS " + sampled_records_sql("q", "p", names=with_names))
        got = _exact_records(db.fetch_arrow(touched_sql("x", "p", names=with_names)))
        found = np.asarray(got["r"])
        absent = pd.Index(found).get_indexer(pd.Index(sample_np)) < 0
        if absent.any():
            raise absent_error(int(absent.sum()), sample_np[absent])
        if progress is not None:
            progress(f"counting the prediction's clusters ({db.name})")
        constants = population_constants(*size_distribution(con, "p"))
        return _prepared(got, constants, with_names)


def _exact_records(table: pa.Table) -> dict[str, Any]:
    """The columns of ``table`` as NumPy arrays, its record ids ``r`` as the in-memory
    path reads a file's (decimals stay decimals, but for Spark's ``DECIMAL(20,0)``
    of unsigned ids, which are integers, and dates are Python's dates, as pandas reads
    them; NumPy's fetch would make them floats and timestamps)."""
    got = {name: table[name].to_numpy() for name in table.column_names if name != "r"}
    column = table["r"]
    ids = to_arrow_ids(column)
    if isinstance(ids, pa.Array) or pa.types.is_date(column.type):
        got["r"] = np.asarray(column.to_pylist(), dtype=object)
    else:
        got["r"] = ids
    return got


def _check_names(con: Any, name_cols: list[str]) -> None:
    """The error of the in-memory path for records without a name."""
    aliases = name_columns(name_cols)[1]
    counts = con.execute(missing_names_sql("p", aliases)).fetchall()[0]
    for column, alias, count in zip(name_cols, aliases, counts, strict=True):
        if count:
            ex = [r[0] for r in con.execute(missing_name_examples_sql("p", alias)).fetchall()]
            more = f" and {int(count) - len(ex)} more" if count > len(ex) else ""
            raise InputError(
                f"'names' is missing (empty, None or NaN) for {int(count)} record(s) "
                f"in column {column!r}, e.g. {examples(np.asarray(ex, dtype=object))}{more}"
            )


def _first_of_codes(codes: npt.NDArray[np.int64], values: npt.NDArray[Any], k: int) -> Any:
    """The value of each code ``0..k-1`` (equal within a code)."""
    at = np.zeros(k, dtype=np.int64)
    at[codes[::-1]] = np.arange(codes.shape[0] - 1, -1, -1)
    return values[at]


def _prepared(
    got: Mapping[str, Any], constants: PopulationConstants, with_names: bool
) -> PreparedPrediction:
    records = np.asarray(got["r"])
    if records.dtype.kind == "U":
        records = records.astype(object)
    codes, labels = factorize(np.asarray(got["c"]))
    codes = codes.astype(np.int64)
    k = int(labels.shape[0])
    sizes = _first_of_codes(codes, np.asarray(got["b"], dtype=np.int64), k)
    name_codes = name_counts = None
    if with_names:
        name_codes, name_labels = factorize(np.asarray(got["s"]))
        name_codes = name_codes.astype(np.int64)
        name_counts = _first_of_codes(
            name_codes, np.asarray(got["k"], dtype=np.int64), int(name_labels.shape[0])
        )
    n, n_clusters, n_pairs, entropy = constants
    return PreparedPrediction(
        records,
        codes,
        np.asarray(labels),
        sizes,
        name_codes,
        name_counts,
        indexed=True,
        total_records=n,
        total_clusters=n_clusters,
        total_pairs=n_pairs,
        total_entropy=entropy,
    )
