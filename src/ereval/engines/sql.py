"""SQL text of the engines, built by pure functions in one place.

Each function returns a string and runs nothing, so the statements can be read
and tested without a database. The statements use standard SQL plus the few
table functions of DuckDB that read files (:func:`source_sql`); an engine for
another SQL dialect would replace only those.

Every side of a comparison is first projected to two columns, ``r`` (the record
key) and ``c`` (the cluster key), by :func:`side_sql`; everything after that
reads only ``r`` and ``c``.

The few differences between SQL dialects (quoting of identifiers and string
literals, the text type, the anti-join keyword) are held by one small
:class:`Dialect` object per engine, :data:`DUCKDB` or :data:`SPARK`, passed as
``dialect=`` (DuckDB's by default). Spark reads files through its own
DataFrame reader, so :func:`source_sql` is DuckDB's only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..files import FileSpec

__all__ = [
    "DUCKDB",
    "Dialect",
    "SPARK",
    "cell_totals_sql",
    "cells_sql",
    "coded_cells_sql",
    "duplicates_sql",
    "ident",
    "key_sql",
    "mismatch_examples_sql",
    "nulls_sql",
    "quote",
    "repeated_sql",
    "side_sql",
    "source_sql",
    "twinless_duplicates_sql",
]


@dataclass(frozen=True)
class Dialect:
    """What differs between the SQL of two engines.

    Attributes
    ----------
    name : str
        The engine's name.
    identifier_quote : str
        The character around a quoted identifier (doubled inside it).
    backslash_escapes : bool
        Whether a backslash escapes the next character of a string literal
        (Spark's default) rather than standing for itself (standard SQL).
    text_type : str
        The type of text in a ``CAST``.
    anti_join : str
        The keyword of an anti-join.

    Examples
    --------
    >>> SPARK.quote("it's")
    "'it\\\\'s'"
    >>> SPARK.ident("record id")
    '`record id`'
    """

    name: Literal["duckdb", "spark"]
    identifier_quote: str
    backslash_escapes: bool
    text_type: str
    anti_join: str

    def quote(self, text: str) -> str:
        """``text`` as a string literal of this dialect."""
        if self.backslash_escapes:
            return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
        return "'" + text.replace("'", "''") + "'"

    def ident(self, column: str) -> str:
        """``column`` as a quoted identifier of this dialect."""
        q = self.identifier_quote
        return q + column.replace(q, q + q) + q


#: DuckDB's SQL (standard quoting).
DUCKDB = Dialect("duckdb", '"', False, "VARCHAR", "ANTI JOIN")
#: Spark SQL's (backticks, backslash escapes in string literals, ``STRING``).
SPARK = Dialect("spark", "`", True, "STRING", "LEFT ANTI JOIN")


def quote(text: str, *, dialect: Dialect = DUCKDB) -> str:
    """``text`` as an SQL string literal."""
    return dialect.quote(text)


def ident(column: str, *, dialect: Dialect = DUCKDB) -> str:
    """``column`` as a quoted SQL identifier."""
    return dialect.ident(column)


def source_sql(spec: FileSpec, columns: list[str]) -> str:
    """The DuckDB table function reading ``spec`` by the rules of :mod:`ereval.files`.

    ``columns`` is the header of a CSV file: every column is read as text,
    exactly as written, an empty field being a missing value. Parquet keeps its
    types.
    """
    paths = [quote(str(part)) for part in spec.parts]
    path = paths[0] if len(paths) == 1 else "[" + ", ".join(paths) + "]"
    if spec.format == "parquet":
        return f"read_parquet({path})"
    names = ", ".join(f"{quote(c)}: 'VARCHAR'" for c in columns)
    compression = "gzip" if spec.gzip else "none"
    return (
        f"read_csv({path}, header = true, auto_detect = false, columns = {{{names}}}, "
        f"delim = {quote(spec.delimiter)}, quote = '\"', escape = '\"', nullstr = '', "
        f"compression = '{compression}')"
    )


def key_sql(columns: list[str], kinds: list[str], *, dialect: Dialect = DUCKDB) -> str:
    """The key of one or several columns of the given kinds (``"text"`` or ``"integer"``).

    One column is used as it is. Several make the JSON array text that
    :mod:`ereval.io` builds for keys of several columns (``["a",1]``).
    """
    d = dialect
    if len(columns) == 1:
        return d.ident(columns[0])
    parts = []
    for column, kind in zip(columns, kinds, strict=True):
        if kind == "text":
            escaped = (
                f"replace(replace({d.ident(column)}, {d.quote(chr(92))}, {d.quote(chr(92) * 2)}), "
                f"{d.quote(chr(34))}, {d.quote(chr(92) + chr(34))})"
            )
            parts.append(f"{d.quote(chr(34))} || {escaped} || {d.quote(chr(34))}")
        else:
            parts.append(f"CAST({d.ident(column)} AS {d.text_type})")
    return d.quote("[") + " || " + f" || {d.quote(',')} || ".join(parts) + " || " + d.quote("]")


def side_sql(
    source: str,
    record: str,
    cluster: str,
    *,
    record_as_text: bool = False,
    dialect: Dialect = DUCKDB,
) -> str:
    """One clustering as the two columns ``r`` (record key) and ``c`` (cluster key)."""
    r = f"CAST({record} AS {dialect.text_type})" if record_as_text else record
    return f"SELECT {r} AS r, {cluster} AS c FROM {source}"


def nulls_sql(side: str, *, record_text: bool, cluster_text: bool) -> str:
    """Rows, missing record keys and missing cluster keys of ``side`` (empty text is missing)."""
    empty_r = " OR r = ''" if record_text else ""
    empty_c = " OR c = ''" if cluster_text else ""
    return (
        f"SELECT count(*), count(*) FILTER (WHERE r IS NULL{empty_r}), "
        f"count(*) FILTER (WHERE c IS NULL{empty_c}) FROM {side}"
    )


def cells_sql(truth: str, pred: str) -> str:
    """The cells of the two clusterings, from one full outer join on the record key.

    Each row is ``(tc, pc, n)``: ``n`` records in true cluster ``tc`` and
    predicted cluster ``pc``. ``pc`` is NULL for the records only in the truth
    and ``tc`` for those only in the prediction (cluster keys are never NULL,
    having been checked).
    """
    return (
        f"SELECT t.c AS tc, p.c AS pc, count(*) AS n "
        f"FROM {truth} AS t FULL OUTER JOIN {pred} AS p ON t.r = p.r GROUP BY ALL"
    )


def cell_totals_sql(cells: str) -> str:
    """Records on both sides, on the truth's side only and on the prediction's only, from
    the groups of :func:`cells_sql`."""
    return (
        "SELECT sum(n) FILTER (WHERE tc IS NOT NULL AND pc IS NOT NULL), "
        f"sum(n) FILTER (WHERE pc IS NULL), sum(n) FILTER (WHERE tc IS NULL) FROM {cells}"
    )


def coded_cells_sql(cells: str, *, common_only: bool) -> str:
    """The groups of :func:`cells_sql` with each cluster key replaced by its code.

    Rows are ``(i, j, n)``; codes number the clusters of each side in the sorted
    order of their keys, as the in-memory engine does, and ``-1`` stands for
    the NULL key of the records on the other side only. ``common_only`` keeps
    only the groups of records on both sides (the table of
    ``on_mismatch="intersection"``, whose clusters are those with a common
    record). Rows come in no particular order.
    """
    where = " WHERE tc IS NOT NULL AND pc IS NOT NULL" if common_only else ""
    codes = [
        f"CASE WHEN {key} IS NULL THEN -1 ELSE CAST(dense_rank() OVER "
        f"(PARTITION BY {key} IS NULL ORDER BY {key}) - 1 AS BIGINT) END AS {code}"
        for key, code in (("tc", "i"), ("pc", "j"))
    ]
    return f"SELECT {codes[0]}, {codes[1]}, n FROM {cells}{where}"


def duplicates_sql(side: str) -> str:
    """Rows and distinct record keys of ``side``."""
    return f"SELECT count(*), count(DISTINCT r) FROM {side}"


def twinless_duplicates_sql(side: str, other: str, *, dialect: Dialect = DUCKDB) -> str:
    """Surplus rows among the records of ``side`` that ``other`` lacks."""
    return (
        f"SELECT count(*) - count(DISTINCT r) FROM "
        f"(SELECT s.r FROM {side} AS s {dialect.anti_join} {other} AS o ON s.r = o.r)"
    )


def mismatch_examples_sql(
    side: str, other: str, *, limit: int = 3, dialect: Dialect = DUCKDB
) -> str:
    """The smallest record keys of ``side`` that ``other`` lacks."""
    return (
        f"SELECT s.r FROM {side} AS s {dialect.anti_join} {other} AS o ON s.r = o.r "
        f"ORDER BY s.r LIMIT {int(limit)}"
    )


def repeated_sql(side: str, *, limit: int = 3) -> str:
    """The smallest record keys that ``side`` repeats."""
    return f"SELECT r FROM {side} GROUP BY r HAVING count(*) > 1 ORDER BY r LIMIT {int(limit)}"
