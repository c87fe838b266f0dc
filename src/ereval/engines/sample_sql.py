"""SQL text of the estimators' per-cluster terms, for a big prediction and a small sample.

The prediction is the view ``p(r, c[, s])`` of an engine (record key, cluster
key and, with names, the name key ``s``), the sample's record ids the pushed
view ``q(r)``. The statements bring back only what the sample touches: per
sampled record its predicted cluster with that cluster's size over the whole
prediction, and with names the record's name with that name's count over the
whole prediction. Each function returns a string and runs nothing; the same
text runs on DuckDB and on Spark.
"""

from __future__ import annotations

__all__ = [
    "first_records_sql",
    "missing_names_sql",
    "missing_name_examples_sql",
    "sampled_records_sql",
    "touched_sql",
]


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
