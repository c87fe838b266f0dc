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

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..io import FileSpec

__all__ = [
    "NUMPY_INTEGER",
    "ALONE_KEY",
    "DUCKDB",
    "Dialect",
    "HASHED_ALONE_KEY",
    "PARTS",
    "SPARK",
    "SparkDialect",
    "alone_repeats_sql",
    "alone_sql",
    "cell_sums_sql",
    "cell_totals_sql",
    "cells_and_lone_records_sql",
    "cells_sql",
    "cells_with_rows_sql",
    "cluster_stats_sql",
    "cluster_sums_sql",
    "coded_cells_sql",
    "dominant_sums_sql",
    "dominated_sql",
    "duplicates_sql",
    "expand_exact_sums",
    "first_rows_sql",
    "fixed_twinless_sql",
    "fixed_twinless_sums_sql",
    "hard_cells_sql",
    "hard_rows_sql",
    "ident",
    "joined_cells_sql",
    "key_sql",
    "keyed_cells_sql",
    "lone_surplus_sql",
    "lone_twinless_sql",
    "marginal_stats_sql",
    "merged_lone_records_sql",
    "mismatch_examples_sql",
    "missing_count_sql",
    "nulls_sql",
    "plain_zero",
    "part_nulls_sql",
    "parts_sql",
    "quote",
    "repeated_sql",
    "shared_twinless_sql",
    "side_sql",
    "singletons_sql",
    "size_distribution_sql",
    "sizes_sql",
    "source_cells_sql",
    "source_pairs_sql",
    "source_sql",
    "undecided_cells_sql",
    "undecided_twinless_sql",
    "undecided_rows_sql",
]

#: DuckDB's integer types whose values NumPy holds (not HUGEINT's 128 bits).
NUMPY_INTEGER = re.compile(r"U?(?:TINYINT|SMALLINT|INTEGER|BIGINT)")


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
    wide : str
        An exact integer type for sums of squares.
    fsum : str
        The most accurate sum of floats (the in-memory engine sums pairwise, to a
        few ulps).
    native_arrow : bool
        Whether query results stream to NumPy as Arrow batches at little cost (then
        the statistics are reduced in NumPy from the streamed groups; otherwise by
        aggregate statements alone).

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
    wide: str
    fsum: str
    native_arrow: bool

    def quote(self, text: str) -> str:
        """``text`` as a string literal of this dialect."""
        if self.backslash_escapes:
            return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
        return "'" + text.replace("'", "''") + "'"

    def ident(self, column: str) -> str:
        """``column`` as a quoted identifier of this dialect."""
        q = self.identifier_quote
        return q + column.replace(q, q + q) + q

    def ordered_sum(self, value: str, order: str) -> str:
        """The sum of the doubles ``value`` added one after another in the order of
        ``order`` (so that it rounds as a sequential sum in that order does)."""
        return f"sum({value} ORDER BY {order})"

    def keeps_order(self, order: str) -> str:
        """The clause ordering the rows of a table made from a query, when the
        backend keeps that order for later ordered sums (else nothing)."""
        return f" ORDER BY {order}"


@dataclass(frozen=True)
class SparkDialect(Dialect):
    """Spark SQL: no ordered aggregate, so an ordered sum folds the sorted list of
    its terms; a table keeps no order."""

    def ordered_sum(self, value: str, order: str) -> str:
        """The sum of ``value`` in the order of ``order`` (see :meth:`Dialect.ordered_sum`)."""
        return (
            f"aggregate(array_sort(collect_list(named_struct('k', {order}, 'w', {value}))), "
            "CAST(0 AS DOUBLE), (acc, s) -> acc + s.w)"
        )

    def keeps_order(self, order: str) -> str:
        """Nothing: a Spark table keeps no order."""
        return ""


#: DuckDB's SQL (standard quoting; HUGEINT sums, compensated float sums ``fsum``).
DUCKDB = Dialect("duckdb", '"', False, "VARCHAR", "ANTI JOIN", "HUGEINT", "fsum", True)
#: Spark SQL's (backticks, backslash escapes in string literals, ``STRING``;
#: DECIMAL(38, 0) sums; float sums exact, ``exact_sum(x)``, which is no Spark function
#: but is expanded by :func:`expand_exact_sums` before a statement runs).
SPARK = SparkDialect(
    "spark", "`", True, "STRING", "LEFT ANTI JOIN", "DECIMAL(38, 0)", "exact_sum", False
)


def quote(text: str, *, dialect: Dialect = DUCKDB) -> str:
    """``text`` as an SQL string literal."""
    return dialect.quote(text)


def ident(column: str, *, dialect: Dialect = DUCKDB) -> str:
    """``column`` as a quoted SQL identifier."""
    return dialect.ident(column)


def source_sql(spec: FileSpec, columns: list[str]) -> str:
    """The DuckDB table function reading ``spec`` by the rules of :mod:`ereval.io`.

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


def key_sql(
    columns: list[str], kinds: list[str], *, as_text: bool = False, dialect: Dialect = DUCKDB
) -> str:
    """The key of one or several columns of the given kinds (``"text"`` or ``"integer"``).

    One column is used as it is. Several make the JSON array text that
    :mod:`ereval.io` builds for keys of several columns (``["a",1]``); with
    ``as_text`` their integer parts are written as decimal text, quoted
    (``["a","1"]``), as :class:`ereval.io.KeyParts` does for ``id_type="string"``.
    """
    d = dialect
    if len(columns) == 1:
        return d.ident(columns[0])
    parts = []
    quote = d.quote(chr(34))
    for column, kind in zip(columns, kinds, strict=True):
        if kind == "text":
            escaped = (
                f"replace(replace({d.ident(column)}, {d.quote(chr(92))}, {d.quote(chr(92) * 2)}), "
                f"{d.quote(chr(34))}, {d.quote(chr(92) + chr(34))})"
            )
            parts.append(f"{quote} || {escaped} || {quote}")
        elif as_text:
            parts.append(f"{quote} || CAST({d.ident(column)} AS {d.text_type}) || {quote}")
        else:
            parts.append(f"CAST({d.ident(column)} AS {d.text_type})")
    return d.quote("[") + " || " + f" || {d.quote(',')} || ".join(parts) + " || " + d.quote("]")


#: The column of a side's view holding the parts of a record key of several columns
#: as one value (:func:`parts_sql`), which joins without the key's text.
PARTS = "rk"


def parts_sql(columns: list[str], kinds: list[str], *, as_text: bool = False) -> str:
    """The parts of a key of several columns as one DuckDB struct (``{'k0': ..., 'k1':
    ...}``), equal exactly where the keys' JSON text (:func:`key_sql`) is when both
    sides' parts are of the same kinds: integer parts by value (whatever their width),
    text parts as written; with ``as_text``, integer parts as their decimal text.

    Examples
    --------
    >>> print(parts_sql(["s", "id"], ["text", "integer"], as_text=True))
    {'k0': "s", 'k1': CAST("id" AS VARCHAR)}
    """
    fields = []
    for k, (column, kind) in enumerate(zip(columns, kinds, strict=True)):
        value = ident(column)
        if as_text and kind == "integer":
            value = f"CAST({value} AS VARCHAR)"
        fields.append(f"'k{k}': {value}")
    return "{" + ", ".join(fields) + "}"


def side_sql(
    source: str,
    record: str,
    cluster: str,
    *,
    record_as_text: bool = False,
    extra: tuple[tuple[str, str], ...] = (),
    dialect: Dialect = DUCKDB,
) -> str:
    """One clustering as the two columns ``r`` (record key) and ``c`` (cluster key),
    followed by the ``extra`` columns ``(alias, SQL)`` (a record's name, say)."""
    r = f"CAST({record} AS {dialect.text_type})" if record_as_text else record
    more = "".join(f", {expr} AS {alias}" for alias, expr in extra)
    return f"SELECT {r} AS r, {cluster} AS c{more} FROM {source}"


def size_distribution_sql(side: str) -> str:
    """The cluster sizes of ``side`` and how many clusters have each: rows ``(size,
    clusters)``, as few as there are distinct sizes, in no particular order."""
    return (
        "SELECT b AS size, count(*) AS clusters FROM "
        f"(SELECT c, count(*) AS b FROM {side} GROUP BY c) AS sizes GROUP BY b"
    )


def plain_zero(key: str, type_sql: str) -> str:
    """A key of floats with ``-0.0`` read as ``0.0`` (``x + 0`` in the key's own type),
    so that every query groups, joins, hashes and writes the two as one id.

    Examples
    --------
    >>> plain_zero('"c"', "DOUBLE")
    '("c" + CAST(0 AS DOUBLE))'
    """
    return f"({key} + CAST(0 AS {type_sql}))"


def nulls_sql(
    side: str,
    *,
    record_text: bool,
    cluster_text: bool,
    parts: Sequence[tuple[str, bool]] = (),
    floats: tuple[bool, bool] = (False, False),
) -> str:
    """Rows, missing record keys and missing cluster keys of ``side`` (empty text is
    missing, and NaN where the key is of floats: ``floats``, for the record key and
    the cluster key).

    NULLs are counted as ``count(*) - count(key)``, which DuckDB answers from the
    statistics of Parquet files without reading the columns; only empty text needs
    the values. ``parts``, for a record key of several columns, are the SQL of each
    of its parts in ``side`` and whether it is text: a key is missing where a part
    is NULL, or empty text (its own text is never made here); the missing values of
    each part follow, in their order.

    Examples
    --------
    >>> print(nulls_sql("t", record_text=False, cluster_text=False, parts=[("a", True)]))
    SELECT count(*), count(*) FILTER (WHERE a IS NULL OR a = ''), count(*) - count(c), \
count(*) FILTER (WHERE a IS NULL OR a = '') FROM t
    """
    empty_c = " + count(*) FILTER (WHERE c = '')" if cluster_text else ""
    empty_c += " + count(*) FILTER (WHERE isnan(c))" if floats[1] else ""
    if parts:
        each = _missing_parts(parts)
        missing_r = f"count(*) FILTER (WHERE {' OR '.join(each)})"
        per_part = "".join(f", count(*) FILTER (WHERE {one})" for one in each)
    else:
        missing_r = "count(*) - count(r)" + (
            " + count(*) FILTER (WHERE r = '')" if record_text else ""
        )
        missing_r += " + count(*) FILTER (WHERE isnan(r))" if floats[0] else ""
        per_part = ""
    return f"SELECT count(*), {missing_r}, count(*) - count(c){empty_c}{per_part} FROM {side}"


def part_nulls_sql(source: str, parts: Sequence[tuple[str, bool]]) -> str:
    """The missing values of each of ``parts`` (as in :func:`nulls_sql`) in ``source``.

    Examples
    --------
    >>> print(part_nulls_sql("s", [('"a"', True), ('"b"', False)]))
    SELECT count(*) FILTER (WHERE "a" IS NULL OR "a" = ''), count(*) FILTER (WHERE "b" IS NULL) FROM s
    """
    counts = ", ".join(f"count(*) FILTER (WHERE {one})" for one in _missing_parts(parts))
    return f"SELECT {counts} FROM {source}"


def _missing_parts(parts: Sequence[tuple[str, bool]]) -> list[str]:
    """For each part (its SQL, whether it is text), where its value is missing."""
    return [f"{part} IS NULL" + (f" OR {part} = ''" if text else "") for part, text in parts]


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


#: A joined record's key when it is on one side only, NULL when it is on both (over
#: ``truth AS t FULL OUTER JOIN pred AS p``).
ALONE_KEY = "CASE WHEN t.r IS NULL OR p.r IS NULL THEN coalesce(t.r, p.r) END"
#: :data:`ALONE_KEY` as a 64-bit hash, its lowest bit the side the record is on (1 for
#: the prediction's): eight bytes to group by where a key of text or parts takes
#: more. Two records of one side may share it (a collision, which the caller rules
#: out); two records of different sides never do.
HASHED_ALONE_KEY = (
    "CASE WHEN t.r IS NULL OR p.r IS NULL THEN "
    "(hash(coalesce(t.r, p.r)) >> 1 << 1) | CAST(t.r IS NULL AS UBIGINT) END"
)


def cells_and_lone_records_sql(truth: str, pred: str, *, hashed: bool = False) -> str:
    """The groups of :func:`cells_sql` for the records on both sides, and a group of its
    own for each record of one side only, from one full outer join.

    Rows are ``(tc, pc, n)`` as in :func:`cells_sql`; a record of one side only is a
    row of ``n`` 1 unless its key repeats on its side (then ``n`` is its rows there,
    and its ``tc`` one of its clusters). So the records of one side only are counted
    per cluster, and their repeats found, without a second join (which costs about
    as much as the first). A record is never on the truth's side only and on the
    prediction's only, so its key alone names its group.

    With ``hashed``, such a record is grouped by :data:`HASHED_ALONE_KEY`: two records
    of one side may then share a group, which looks like a repeat; the caller tells
    the two apart (a repeat is an error) and groups again without ``hashed``.
    """
    both = "ra IS NULL"
    alone = HASHED_ALONE_KEY if hashed else ALONE_KEY
    return (
        "SELECT any_value(tc) AS tc, any_value(pc) AS pc, count(*) AS n FROM "
        f"(SELECT t.c AS tc, p.c AS pc, {alone} AS ra "
        f"FROM {truth} AS t FULL OUTER JOIN {pred} AS p ON t.r = p.r) "
        f"GROUP BY CASE WHEN {both} THEN tc END, CASE WHEN {both} THEN pc END, ra"
    )


def lone_surplus_sql(cells: str) -> str:
    """Over the groups of :func:`cells_and_lone_records_sql`, the surplus rows of the
    records of the truth's only and of the prediction's only that repeat."""
    return (
        "SELECT sum(n - 1) FILTER (WHERE pc IS NULL), sum(n - 1) FILTER (WHERE tc IS NULL) "
        f"FROM {cells} WHERE tc IS NULL OR pc IS NULL"
    )


def merged_lone_records_sql(cells: str) -> str:
    """The groups of :func:`cells_sql` from those of :func:`cells_and_lone_records_sql`:
    the records of one side only counted by cluster."""
    return (
        f"SELECT tc, pc, n FROM {cells} WHERE tc IS NOT NULL AND pc IS NOT NULL UNION ALL "
        f"SELECT tc, pc, CAST(sum(n) AS BIGINT) FROM {cells} WHERE tc IS NULL OR pc IS NULL "
        "GROUP BY tc, pc"
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


def keyed_cells_sql(cells: str, *, common_only: bool) -> str:
    """The groups of :func:`cells_sql` with their cluster keys (NULL for the side a
    record is missing from), to be numbered where they arrive rather than by a
    window over every group (which Spark runs in one task); ``common_only`` as in
    :func:`coded_cells_sql`."""
    where = " WHERE tc IS NOT NULL AND pc IS NOT NULL" if common_only else ""
    return f"SELECT tc, pc, n FROM {cells}{where}"


def duplicates_sql(side: str) -> str:
    """The surplus rows of the record keys ``side`` repeats (0 when none repeats), and
    the number of keys repeated: a GROUP BY, which DuckDB spills under its memory
    limit (a distinct count does not, and ran out of memory at 10^8 rows under 1 GB)."""
    return (
        "SELECT coalesce(sum(k - 1), 0), count(*) FROM "
        f"(SELECT count(*) AS k FROM {side} GROUP BY r HAVING count(*) > 1)"
    )


def alone_sql(truth: str, pred: str) -> str:
    """The records of one side only, from one full join on the record key: ``tc`` (NULL
    for those of the prediction's only) and ``ra``, the record key."""
    return (
        "SELECT t.c AS tc, coalesce(t.r, p.r) AS ra "
        f"FROM {truth} AS t FULL OUTER JOIN {pred} AS p ON t.r = p.r "
        "WHERE t.r IS NULL OR p.r IS NULL"
    )


def alone_repeats_sql(alone: str) -> str:
    """Over ``alone(tc, ra)`` (:func:`alone_sql`, or the rows of the join's passes whose
    ``ra`` is set), the surplus rows of the records repeated among those of the
    truth's only (``pred_side`` false) and of the prediction's only (true); a GROUP BY
    of the records of one side only, which spills under a memory limit."""
    return (
        "SELECT pred_side, sum(k - 1) FROM (SELECT tc IS NULL AS pred_side, count(*) AS k "
        f"FROM {alone} WHERE ra IS NOT NULL GROUP BY tc IS NULL, ra HAVING count(*) > 1) "
        "GROUP BY pred_side"
    )


def mismatch_examples_sql(
    side: str, other: str, *, limit: int = 3, dialect: Dialect = DUCKDB
) -> str:
    """The smallest record keys of ``side`` that ``other`` lacks."""
    return (
        f"SELECT s.r FROM {side} AS s {dialect.anti_join} {other} AS o ON s.r = o.r "
        f"ORDER BY s.r LIMIT {int(limit)}"
    )


def singletons_sql(truth: str, pred: str, *, dialect: Dialect = DUCKDB) -> str:
    """The prediction ``pred`` completed with a cluster of its own for every record of
    ``truth`` it lacks (``on_mismatch="singletons"``): columns ``r`` and ``c``, the
    cluster keys as text, ``p`` before a key of the prediction and ``s`` before the
    record key of an added singleton, so that the two never meet."""
    t = dialect.text_type
    return (
        f"SELECT r, {dialect.quote('p')} || CAST(c AS {t}) AS c FROM {pred} UNION ALL "
        f"SELECT s.r, {dialect.quote('s')} || CAST(s.r AS {t}) AS c "
        f"FROM {truth} AS s {dialect.anti_join} {pred} AS o ON s.r = o.r"
    )


def missing_count_sql(truth: str, pred: str, *, dialect: Dialect = DUCKDB) -> str:
    """The number of rows of ``truth`` whose record ``pred`` lacks."""
    return f"SELECT count(*) FROM {truth} AS s {dialect.anti_join} {pred} AS o ON s.r = o.r"


def source_cells_sql(truth: str, pred: str) -> str:
    """The groups of :func:`cells_sql` split by the data set ``src`` of the truth's view
    (a link-only evaluation): rows ``(tc, s, pc, n)``, ``s`` NULL for the records of the
    prediction only."""
    return (
        "SELECT t.c AS tc, t.src AS s, p.c AS pc, count(*) AS n "
        f"FROM {truth} AS t FULL OUTER JOIN {pred} AS p ON t.r = p.r GROUP BY ALL"
    )


def first_rows_sql(
    table: str, columns: str, order: str, groups: str, limit: int, dialect: Dialect = DUCKDB
) -> str:
    """The first ``limit`` rows of each group of ``groups`` (comma-separated columns) of
    ``table`` in the order of the expression ``order``: ``columns`` (comma-separated)
    and the group's columns. DuckDB keeps a group's first ``limit`` rows in an
    aggregate (``arg_min`` of ``limit`` values), whose state is as small as that and
    which spills; a window over every row ran out of memory on predicted clusters
    of millions of records. Other dialects number the rows with a window."""
    if dialect.name == "duckdb":
        kept = ", ".join(f"{c} := {c}" for c in (c.strip() for c in columns.split(",")))
        return (
            f"SELECT unnest(arg_min(struct_pack({kept}), {order}, {int(limit)}), "
            f"recursive := true), {groups} FROM {table} GROUP BY {groups}"
        )
    return (
        f"SELECT {columns}, {groups} FROM (SELECT *, row_number() OVER "
        f"(PARTITION BY {groups} ORDER BY {order}) AS k FROM {table}) "
        f"WHERE k <= {int(limit)}"
    )


def repeated_sql(side: str, *, limit: int = 3) -> str:
    """The smallest record keys that ``side`` repeats."""
    return f"SELECT r FROM {side} GROUP BY r HAVING count(*) > 1 ORDER BY r LIMIT {int(limit)}"


# -- sufficient statistics -----------------------------------------------------------
#
# The statistics of :mod:`ereval.statistics` are computed from the groups of
# :func:`cells_sql` (a table ``cells(tc, pc, n)``) in a few aggregate statements,
# every one a GROUP BY or a join: no window function, no sort. Integer sums are
# taken over a wide integer type (exact), the halvings of ``C(x, 2)`` are left
# to the caller; a float is computed per cell or per cluster by the same
# operations, in the same order, as the in-memory engine does.


def expand_exact_sums(query: str) -> str:
    """``exact_sum(x)`` written out as Spark SQL: the terms are added in
    ``DECIMAL(38, 18)`` (each rounded to 1e-18), so the total does not depend on the
    order in which Spark's partitions add up (its sums of doubles drift past 1e-12
    relative over 10^6 rows), and the total is rounded to a double once.

    Examples
    --------
    >>> expand_exact_sums("SELECT exact_sum(a / (b + 1)), count(*) FROM t")
    'SELECT CAST(sum(CAST(a / (b + 1) AS DECIMAL(38, 18))) AS DOUBLE), count(*) FROM t'
    """
    out, rest = [], query
    while (start := rest.find("exact_sum(")) >= 0:
        depth, end = 0, start + len("exact_sum")
        for end in range(start + len("exact_sum"), len(rest)):
            depth += {"(": 1, ")": -1}.get(rest[end], 0)
            if depth == 0:
                break
        inner = expand_exact_sums(rest[start + len("exact_sum(") : end])
        out.append(rest[:start] + f"CAST(sum(CAST({inner} AS DECIMAL(38, 18))) AS DOUBLE)")
        rest = rest[end + 1 :]
    return "".join(out) + rest


def _double(x: str) -> str:
    return f"CAST({x} AS DOUBLE)"


def sizes_sql(cells: str, side: str, *, common_only: bool, dialect: Dialect = DUCKDB) -> str:
    """Per cluster of ``side`` (``"t"`` or ``"p"``), what needs no other cluster's size:
    ``k`` its key, ``size``, ``common`` (its records on both sides), ``s2`` (the sum of
    its cells' squares, exact) and ``deg`` (its non-zero cells)."""
    own, other = ("tc", "pc") if side == "t" else ("pc", "tc")
    where = f"{own} IS NOT NULL" + (f" AND {other} IS NOT NULL" if common_only else "")
    return (
        f"SELECT {own} AS k, sum(n) AS size, "
        f"sum(CASE WHEN {other} IS NOT NULL THEN n ELSE 0 END) AS common, "
        f"sum(CASE WHEN {other} IS NOT NULL THEN CAST(n AS {dialect.wide}) * n ELSE 0 END) "
        f"AS s2, count({other}) AS deg FROM {cells} WHERE {where} GROUP BY {own}"
    )


def cells_with_rows_sql(cells: str, rows: str) -> str:
    """The non-zero cells with their row's size, records on both sides and number of
    cells: ``tc, pc, n, a, ac, rdeg`` (one join per statement, so that each can
    spill on its own)."""
    return (
        "SELECT c.tc, c.pc, c.n, r.size AS a, r.common AS ac, r.deg AS rdeg "
        f"FROM {cells} AS c JOIN {rows} AS r ON c.tc = r.k"
    )


def joined_cells_sql(cells_with_rows: str, cols: str) -> str:
    """The cells of :func:`cells_with_rows_sql` with their column's: ``tc, pc, n, a,
    b, ac, bc, rdeg, cdeg`` and CEAF's weights ``w3 = n`` and ``w4 = 2 n / (a + b)``."""
    return (
        "SELECT c.tc, c.pc, c.n, c.a, k.size AS b, c.ac, k.common AS bc, c.rdeg, "
        "k.deg AS cdeg, "
        f"{_double('c.n')} AS w3, "
        f"{_double('2 * c.n')} / {_double('c.a + k.size')} AS w4 "
        f"FROM {cells_with_rows} AS c JOIN {cols} AS k ON c.pc = k.k"
    )


def cluster_stats_sql(joined: str, side: str) -> str:
    """Per cluster of ``side`` with several non-zero cells, what needs the other
    side's sizes, from :func:`joined_cells_sql`: ``k``, ``s1 = sum n``, ``jac`` (best
    Jaccard), ``star`` (its component holds no other cluster of its side), the
    largest CEAF weights ``top3``, ``top4`` and the sum ``sum4`` of its weights ``w4``
    (that of ``w3`` is ``s1``). A cluster with a single cell needs no grouping: the
    cell is its maximum and its sum (:func:`cell_sums_sql`)."""
    own, own_deg, other_deg = ("tc", "rdeg", "cdeg") if side == "t" else ("pc", "cdeg", "rdeg")
    return (
        f"SELECT {own} AS k, sum(n) AS s1, max({_jaccard()}) AS jac, "
        f"max({other_deg}) = 1 AS star, "
        "max(w3) AS top3, max(w4) AS top4, sum(w4) AS sum4 "
        f"FROM {joined} WHERE {own_deg} > 1 GROUP BY {own}"
    )


def _jaccard() -> str:
    return f"{_double('n')} / (a + b - n)"


def _entropy_term(x: str, y: str) -> str:
    """``x ln(x / y)`` in floating point: a term of an entropy before the division by
    ``N`` (:func:`_over_records`).

    The division comes after the sum: the terms are then of the order of one, not
    ``1 / N``. A sum in fixed point (Spark's ``exact_sum``, to 1e-18) rounds each
    term, and the terms of an entropy take few distinct values (cells of one to a
    few records), so that those roundings add up instead of cancelling: at 10^8
    records the conditional entropies of terms of ``1e-8`` were off by 6.4e-12
    relative, those of terms of one are exact to the last digit or two."""
    return f"{_double(x)} * ln({_double(x)} / {_double(y)})"


def _over_records(total: str, n_records: int) -> str:
    """``total / N``, in floating point."""
    return f"({total} / {_double(str(int(n_records)))})"


def marginal_stats_sql(sizes: str, n_records: int, dialect: Dialect = DUCKDB) -> str:
    """Over the clusters of one side (:func:`sizes_sql`): their number, records,
    ``sum size^2``, ``sum common``, ``sum common^2`` and ``sum s2`` (exact); B-cubed's
    ``sum s2 / size`` and ``sum s2 / size^2``; LEA's ``sum size res / link(size)``
    over the clusters of two records or more (``res = (s2 - common) / 2`` links
    resolved; a single record's link is counted from the cells); ``sum (size / N)
    ln(size / N)`` and the twinless records' share of the other side's conditional
    entropy, ``sum (size - common) (1 / N) ln(1 / size)``; the largest size; for the
    twinless variants ``sum (size - common) / size``, the clusters with a record of
    one side only and those of such a single record."""
    wide, fsum = dialect.wide, dialect.fsum
    size = _double("size")
    links = f"({size} * ({size} - 1) / 2)"
    res = f"({_double('s2 - common')} / 2)"
    entropy = _entropy_term("size", str(int(n_records)))
    extra = _double("size - common")
    twinless = f"CASE WHEN size > common THEN {extra} * {_entropy_term('1', 'size')} ELSE 0 END"
    return (
        f"SELECT count(*), sum(size), sum(CAST(size AS {wide}) * size), sum(common), "
        f"sum(CAST(common AS {wide}) * common), sum(s2), "
        f"{fsum}({_double('s2')} / size), {fsum}({_double('s2')} / ({size} * {size})), "
        f"{fsum}(CASE WHEN size > 1 THEN {size} * {res} / {links} ELSE 0 END), "
        f"{_over_records(f'{fsum}({entropy})', n_records)}, "
        f"{_over_records(f'{fsum}({twinless})', n_records)}, max(size), "
        f"{fsum}(CASE WHEN size > common THEN {extra} / {size} ELSE 0 END), "
        "sum(CASE WHEN size > common THEN 1 ELSE 0 END), "
        f"sum(CASE WHEN size = 1 AND common = 0 THEN 1 ELSE 0 END) FROM {sizes}"
    )


def cluster_sums_sql(clusters: str, dialect: Dialect = DUCKDB) -> str:
    """Over :func:`cluster_stats_sql`: the best Jaccards and CEAF's best weights over
    the star components centred on this side with several cells (``w3``, then
    ``w4``)."""
    fsum = dialect.fsum
    return (
        f"SELECT {fsum}(jac), {fsum}(CASE WHEN star THEN top3 ELSE 0 END), "
        f"{fsum}(CASE WHEN star THEN top4 ELSE 0 END) FROM {clusters}"
    )


def cell_sums_sql(joined: str, n_records: int, dialect: Dialect = DUCKDB) -> str:
    """Over the non-zero cells: their number, exact matches, cells of a single record
    on both sides (LEA's resolved singleton links), ``sum n^2 / (a b)``, the cells'
    shares of ``H(T|P)`` and ``H(P|T)`` (before the sign), the Jaccards of the cells
    alone in their row, then in their column, and the CEAF weights ``w3``, ``w4`` of
    the cells alone in both (components of one cell)."""
    n2 = f"{_double('n')} * {_double('n')}"
    fsum = dialect.fsum
    by_pred, by_true = _entropy_term("n", "b"), _entropy_term("n", "a")
    return (
        "SELECT count(*), sum(CASE WHEN n = a AND n = b THEN 1 ELSE 0 END), "
        "sum(CASE WHEN a = 1 AND b = 1 THEN 1 ELSE 0 END), "
        f"{fsum}({n2} / ({_double('a')} * {_double('b')})), "
        f"{_over_records(f'{fsum}({by_pred})', n_records)}, "
        f"{_over_records(f'{fsum}({by_true})', n_records)}, "
        f"{fsum}(CASE WHEN rdeg = 1 THEN {_jaccard()} ELSE 0 END), "
        f"{fsum}(CASE WHEN cdeg = 1 THEN {_jaccard()} ELSE 0 END), "
        f"{fsum}(CASE WHEN rdeg = 1 AND cdeg = 1 THEN w3 ELSE 0 END), "
        f"{fsum}(CASE WHEN rdeg = 1 AND cdeg = 1 THEN w4 ELSE 0 END), "
        f"{fsum}({n2} / {_double('bc')}) "
        f"FROM {joined}"
    )


def _less(both: bool) -> str:
    """A cell's weight for ``CEAF_sys`` (:mod:`ereval._algorithms._twinless`): its
    records, less one when its row holds a record of one side only, and (``both``,
    precision's weight) one when its column does."""
    col = " - CASE WHEN b > bc THEN 1 ELSE 0 END" if both else ""
    return f"(n - CASE WHEN a > ac THEN 1 ELSE 0 END{col})"


def lone_twinless_sql(joined: str) -> str:
    """Over the cells alone in their row and column (:func:`joined_cells_sql`), the
    sums of ``CEAF_sys``'s positive weights: precision's, then recall's."""
    p, r = _less(True), _less(False)
    return (
        f"SELECT sum(CASE WHEN {p} > 0 THEN {p} ELSE 0 END), "
        f"sum(CASE WHEN {r} > 0 THEN {r} ELSE 0 END) "
        f"FROM {joined} WHERE rdeg = 1 AND cdeg = 1"
    )


def shared_twinless_sql(joined: str) -> str:
    """The other cells whose recall's weight for ``CEAF_sys`` is positive (precision's
    is at most it): ``tc, pc, n``, their row's and column's records on both sides
    (``ac``, ``bc``), whether their row (``dr``) and column (``dc``) hold a record of
    one side only (1 or 0), and whether the cell is fixed for precision's weight
    (``fp``) and for recall's (``fr``): heavier than the rest of its row and column,
    ``3 n - d - e > ac + bc`` (:func:`ereval._algorithms._twinless.fix_twinless`)."""
    dr, dc = "CASE WHEN a > ac THEN 1 ELSE 0 END", "CASE WHEN b > bc THEN 1 ELSE 0 END"
    return (
        "SELECT tc, pc, n, ac, bc, dr, dc, 3 * n - dr - dc > ac + bc AS fp, "
        "3 * n - dr > ac + bc AS fr "
        f"FROM (SELECT tc, pc, n, ac, bc, {dr} AS dr, {dc} AS dc FROM {joined} "
        f"WHERE (rdeg > 1 OR cdeg > 1) AND {_less(False)} > 0) AS s"
    )


def fixed_twinless_sql(shared: str, key: str) -> str:
    """The rows (``key="tc"``) or columns (``"pc"``) of :func:`shared_twinless_sql`
    holding a fixed cell: ``k``, ``hp``, ``hr`` (1 when they hold one for precision's
    weight, for recall's)."""
    return (
        f"SELECT {key} AS k, max(CASE WHEN fp THEN 1 ELSE 0 END) AS hp, "
        f"max(CASE WHEN fr THEN 1 ELSE 0 END) AS hr FROM {shared} WHERE fp OR fr GROUP BY {key}"
    )


def undecided_twinless_sql(shared: str, rows: str, cols: str) -> str:
    """The cells of :func:`shared_twinless_sql` left to the exact alignment: ``tc, pc,
    n, dr, dc``, and for each weight (``up``: precision's, ``ur``: recall's) whether
    neither its row nor its column holds a fixed cell and the weight is positive."""
    free = "coalesce(r.{0}, 0) = 0 AND coalesce(c.{0}, 0) = 0"
    up = f"({free.format('hp')} AND s.n - s.dr - s.dc > 0)"
    ur = f"({free.format('hr')})"
    return (
        f"SELECT s.tc, s.pc, s.n, s.dr, s.dc, {up} AS up, {ur} AS ur FROM {shared} AS s "
        f"LEFT JOIN {rows} AS r ON s.tc = r.k LEFT JOIN {cols} AS c ON s.pc = c.k "
        f"WHERE {up} OR {ur}"
    )


def fixed_twinless_sums_sql(shared: str) -> str:
    """The totals of the fixed cells' weights: precision's, then recall's."""
    return (
        "SELECT sum(CASE WHEN fp THEN n - dr - dc ELSE 0 END), "
        f"sum(CASE WHEN fr THEN n - dr ELSE 0 END) FROM {shared}"
    )


def hard_rows_sql(joined: str, rows: str) -> str:
    """The cells of :func:`joined_cells_sql` whose row is not the centre of a star
    (a row of one cell is one when its column has one cell too), with the sums of
    their row's weights ``rs3``, ``rs4``."""
    return (
        "SELECT x.tc, x.pc, x.n, x.a, x.b, x.rdeg, x.cdeg, x.w3, x.w4, "
        "CASE WHEN x.rdeg = 1 THEN x.n ELSE r.s1 END AS rs3, "
        "CASE WHEN x.rdeg = 1 THEN x.w4 ELSE r.sum4 END AS rs4 "
        f"FROM {joined} AS x LEFT JOIN {rows} AS r ON x.tc = r.k "
        "WHERE (x.rdeg = 1 AND x.cdeg > 1) OR (x.rdeg > 1 AND NOT r.star)"
    )


def hard_cells_sql(hard_rows: str, cols: str, margin: float) -> str:
    """The cells of the components with several clusters on each side (those of
    :func:`hard_rows_sql` whose column is not a star's centre either), each with
    whether it is *dominant* for CEAF's weight ``w3`` (``f3``) and ``w4`` (``f4``):
    heavier than the other weights of its row plus those of its column, so heavier
    than the largest of each, and some best alignment holds it (see
    :mod:`ereval._algorithms`). With ``S`` the sums of a row and of a column, the
    test is ``3 w > S_row + S_col``: in exact integers for ``w3 = n``, with a
    relative ``margin`` for ``w4`` (:func:`ereval._algorithms.dominance_margin`)."""
    cs3 = "CASE WHEN h.cdeg = 1 THEN h.n ELSE c.s1 END"
    cs4 = "CASE WHEN h.cdeg = 1 THEN h.w4 ELSE c.sum4 END"
    f3 = f"3 * h.n > h.rs3 + {cs3}"
    f4 = f"3 * h.w4 > (h.rs4 + {cs4}) * {1 + float(margin)!r}"
    return (
        f"SELECT h.tc, h.pc, h.n, h.a, h.b, h.w3, h.w4, {f3} AS f3, {f4} AS f4 "
        f"FROM {hard_rows} AS h LEFT JOIN {cols} AS c ON h.pc = c.k "
        "WHERE (h.cdeg = 1 AND h.rdeg > 1) OR (h.cdeg > 1 AND NOT c.star)"
    )


def dominant_sums_sql(hard: str, dialect: Dialect = DUCKDB) -> str:
    """The total weights of the dominant cells (``w3``, then ``w4``)."""
    fsum = dialect.fsum
    return (
        f"SELECT {fsum}(CASE WHEN f3 THEN w3 ELSE 0 END), "
        f"{fsum}(CASE WHEN f4 THEN w4 ELSE 0 END) "
        f"FROM {hard}"
    )


def dominated_sql(hard: str, side: str) -> str:
    """The rows (``side="t"``) or columns (``"p"``) holding a dominant cell of
    :func:`hard_cells_sql`: ``k``, ``d3``, ``d4`` (1 when they hold one for that weight)."""
    key = "tc" if side == "t" else "pc"
    return (
        f"SELECT {key} AS k, max(CASE WHEN f3 THEN 1 ELSE 0 END) AS d3, "
        f"max(CASE WHEN f4 THEN 1 ELSE 0 END) AS d4 FROM {hard} WHERE f3 OR f4 GROUP BY {key}"
    )


def undecided_rows_sql(hard: str, dominated_rows: str) -> str:
    """The cells of :func:`hard_cells_sql` with whether their row holds a dominant
    cell (``d3``, ``d4``), those whose row holds one for both weights left out."""
    return (
        "SELECT h.tc, h.pc, h.n, h.a, h.b, coalesce(r.d3, 0) AS d3, coalesce(r.d4, 0) AS d4 "
        f"FROM {hard} AS h LEFT JOIN {dominated_rows} AS r ON h.tc = r.k "
        "WHERE coalesce(r.d3, 0) = 0 OR coalesce(r.d4, 0) = 0"
    )


def undecided_cells_sql(undecided_rows: str, dominated_cols: str) -> str:
    """The cells whose row and column hold no dominant cell, for either weight:
    ``tc, pc, n, a, b, u3, u4`` (``u3``: undecided for ``w3``)."""
    u3 = "(h.d3 = 0 AND coalesce(c.d3, 0) = 0)"
    u4 = "(h.d4 = 0 AND coalesce(c.d4, 0) = 0)"
    return (
        f"SELECT h.tc, h.pc, h.n, h.a, h.b, {u3} AS u3, {u4} AS u4 FROM {undecided_rows} AS h "
        f"LEFT JOIN {dominated_cols} AS c ON h.pc = c.k WHERE {u3} OR {u4}"
    )


def source_pairs_sql(groups: str, *, common_only: bool, dialect: Dialect = DUCKDB) -> str:
    """Twice the pair counts within data sets of the groups of :func:`source_cells_sql`
    (the fields of :class:`ereval.contingency.SourcePairs` after ``n_sources``, each as
    ``sum x^2 - sum x`` in exact integers, halved by the caller), then the number of
    data sets and of records of the prediction only. ``common_only`` counts the
    records on both sides only (``on_mismatch="intersection"``).

    DuckDB runs one scalar subquery a count (:func:`_source_pairs_by_subqueries`), in
    one plan; Spark would run each as jobs of its own, some fifty, so there the groups
    are read once (:func:`_source_pairs_by_grouping_sets`), which DuckDB runs slower."""
    by = _source_pairs_by_subqueries if dialect.name == "duckdb" else _source_pairs_by_grouping_sets
    return by(groups, common_only=common_only, dialect=dialect)


def _source_pairs_by_subqueries(groups: str, *, common_only: bool, dialect: Dialect) -> str:
    """:func:`source_pairs_sql`, a scalar subquery a count."""
    both = "tc IS NOT NULL AND pc IS NOT NULL"
    on_t = both if common_only else "tc IS NOT NULL"
    on_p = both if common_only else "pc IS NOT NULL AND s IS NOT NULL"
    known = both if common_only else "s IS NOT NULL"

    def twice(where: str, by: str | None) -> str:
        inner = f"{groups} WHERE {where}"
        if by is not None:
            inner = f"(SELECT sum(n) AS n FROM {inner} GROUP BY {by}) AS g"
        return f"(SELECT sum(CAST(n AS {dialect.wide}) * n) - sum(n) FROM {inner})"

    parts = [
        twice(both, None),
        twice(on_t, "tc, s"),
        twice(on_p, "pc, s"),
        twice(both, "tc, s"),
        twice(both, "pc, s"),
        twice(known, "s"),
        twice(on_t, "s"),
        twice(on_p, "s"),
        twice(both, "s"),
        f"(SELECT count(DISTINCT s) FROM {groups} WHERE {known})",
        f"(SELECT sum(n) FROM {groups} WHERE tc IS NULL)",
    ]
    return "SELECT " + ", ".join(parts)


def _source_pairs_by_grouping_sets(groups: str, *, common_only: bool, dialect: Dialect) -> str:
    """:func:`source_pairs_sql` in one pass over the groups: grouping sets by true
    cluster and data set, predicted cluster and data set, and data set alone, each
    summing the records of every filter the counts need; then one aggregate of those
    sums."""
    both = "tc IS NOT NULL AND pc IS NOT NULL"
    filters = {
        "b": both,
        "t": both if common_only else "tc IS NOT NULL",
        "p": both if common_only else "pc IS NOT NULL AND s IS NOT NULL",
        "k": both if common_only else "s IS NOT NULL",
    }
    sums = [f"sum(n) FILTER (WHERE {where}) AS x{name}" for name, where in filters.items()]
    inner = (
        "SELECT grouping(tc) AS gt, grouping(pc) AS gp, s, "
        + ", ".join(sums)
        + f", sum(CAST(n AS {dialect.wide}) * n) FILTER (WHERE {both}) AS sq"
        + ", sum(n) FILTER (WHERE tc IS NULL) AS lone"
        + f" FROM {groups} GROUP BY GROUPING SETS ((tc, s), (pc, s), (s))"
    )
    by = {"tc": "gt = 0", "pc": "gp = 0", "s": "gt = 1 AND gp = 1"}

    def twice(name: str, group: str) -> str:
        x, on = f"x{name}", by[group]
        return (
            f"sum(CAST({x} AS {dialect.wide}) * {x}) FILTER (WHERE {on}) "
            f"- sum({x}) FILTER (WHERE {on})"
        )

    parts = [
        f"sum(sq) FILTER (WHERE {by['s']}) - sum(xb) FILTER (WHERE {by['s']})",
        twice("t", "tc"),
        twice("p", "pc"),
        twice("b", "tc"),
        twice("b", "pc"),
        twice("k", "s"),
        twice("t", "s"),
        twice("p", "s"),
        twice("b", "s"),
        f"count(*) FILTER (WHERE {by['s']} AND s IS NOT NULL AND xk IS NOT NULL)",
        f"sum(lone) FILTER (WHERE {by['s']})",
    ]
    return "SELECT " + ", ".join(parts) + f" FROM ({inner}) AS g"
