"""What the SQL engines share around their statements: the options they read, and
the contingency table from the coded groups they return.

The rows ``(i, j, n)`` of :func:`ereval.engines.sql.coded_cells_sql` (``-1`` for
the side a record is missing from) give the cluster sizes and the cells, put in
the order of the in-memory table here, in NumPy, so that no statement has to
sort them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InputError, RecordMismatchError
from .._validation import check_choice, examples
from ..contingency import ContingencyTable, SourcePairs
from ..io import (
    MISMATCH_POLICIES,
    AlignOptions,
    MismatchPolicy,
    check_link_only,
    column_names,
    mismatch_error,
    missing_columns_error,
)
from . import sql
from ._plan import planned_cells

__all__ = [
    "SideSpec",
    "check_columns",
    "check_side",
    "check_totals",
    "check_unique",
    "checked_cells",
    "coded_table",
    "completed_rows",
    "is_link_only",
    "key_of",
    "keyed_table",
    "name_columns",
    "push_table",
    "read_options",
    "side_specs",
    "size_distribution",
    "sizes_of_codes",
    "table_from_codes",
    "within_source",
]


def read_options(
    options: AlignOptions,
) -> tuple[MismatchPolicy, str, dict[str, tuple[list[str], list[str]]]]:
    """The mismatch policy, the id type and each side's record and cluster columns
    of the options of :func:`ereval.io.align`, checked.

    Examples
    --------
    >>> policy, id_type, columns = read_options({"pred_cluster_col": "c"})
    >>> policy, id_type, columns["pred"]
    ('error', 'exact', (['record_id'], ['c']))
    """
    policy = check_choice("on_mismatch", options.get("on_mismatch", "error"), MISMATCH_POLICIES)
    id_type = check_choice("id_type", options.get("id_type", "exact"), ("exact", "string"))
    rc = options.get("record_col", "record_id")
    cc = options.get("cluster_col", "cluster_id")
    given = {
        "truth": (options.get("truth_record_col"), options.get("truth_cluster_col")),
        "pred": (options.get("pred_record_col"), options.get("pred_cluster_col")),
    }
    columns = {
        side: (
            column_names(records or rc, name=f"{side}_record_col"),
            column_names(clusters or cc, name=f"{side}_cluster_col"),
        )
        for side, (records, clusters) in given.items()
    }
    return policy, id_type, columns


@dataclass(frozen=True)
class SideSpec:
    """One clustering for an SQL engine to load as the view ``view(r, c, ...)``.

    Attributes
    ----------
    view : str
        The name of the view (``t``, ``p``...).
    data : Any
        The input: a file (path, glob or folder of parts), or a relation / DataFrame
        of the engine.
    name : str
        The argument's name, for error messages (``"truth"``, ``"pred"``).
    records, clusters : list of str
        The columns of the record key and of the cluster key.
    extra : tuple of (alias, columns)
        More columns of the view: each alias holds the key of its columns (one
        column as it is, several as the text key of :mod:`ereval.io`), e.g.
        ``(("s", ("first", "last")),)`` for a record's name. They are not checked
        for missing values.
    """

    view: str
    data: Any
    name: str
    records: list[str]
    clusters: list[str]
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()
    extra_option: str = "names"
    allow_empty: bool = False

    @property
    def columns(self) -> list[str]:
        """Every column the side reads, each once."""
        wanted = self.records + self.clusters + [c for _, cols in self.extra for c in cols]
        return list(dict.fromkeys(wanted))


def key_of(
    cols: list[str], kinds: list[str], *, name: str, as_text: bool = False, dialect: Any = None
) -> tuple[str, tuple[str, ...], bool]:
    """The SQL of the key of ``cols`` (of the given kinds as read), the kinds of its
    parts as compared (integers as text under ``as_text``, as
    :func:`ereval.io._keys.comparable_ids` does), and whether a key of one integer column
    must be cast to text.

    Examples
    --------
    >>> key_of(["s", "id"], ["text", "integer"], name="pred", as_text=True)[1:]
    (('text', 'text'), False)
    >>> key_of(["id"], ["integer"], name="pred", as_text=True)[1:]
    (('text',), True)
    """
    d = sql.DUCKDB if dialect is None else dialect
    if len(cols) > 1:
        for c, kind in zip(cols, kinds, strict=True):
            if kind not in ("text", "integer"):
                raise InputError(
                    f"'{name}': column '{c}' of a key made of several columns must hold "
                    f"integers or text; it holds {kind} values"
                )
        compared = tuple("text" if as_text and k == "integer" else k for k in kinds)
        return sql.key_sql(cols, kinds, as_text=as_text, dialect=d), compared, False
    kind = kinds[0]
    if as_text and kind != "text":
        if kind != "integer":
            raise InputError(
                f"'{name}': only integer and text ids can be compared as text; received {kind} ids"
            )
        return sql.key_sql(cols, kinds, dialect=d), ("text",), True
    return sql.key_sql(cols, kinds, dialect=d), (kind,), False


def name_columns(columns: list[str]) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], list[str]]:
    """The ``extra`` columns of a :class:`SideSpec` for a record's name held in
    ``columns``: the name's key as ``s``, and with several columns each of them on
    its own as ``s0``, ``s1``... (for their missing values); and the aliases whose
    missing values count (``["s"]`` for one column).

    Examples
    --------
    >>> name_columns(["first", "last"])
    ((('s', ('first', 'last')), ('s0', ('first',)), ('s1', ('last',))), ['s0', 's1'])
    """
    extra = (("s", tuple(columns)),)
    if len(columns) == 1:
        return extra, ["s"]
    each = tuple((f"s{k}", (c,)) for k, c in enumerate(columns))
    return extra + each, [alias for alias, _ in each]


def check_columns(spec: SideSpec, present: list[str]) -> None:
    """The error of the in-memory path when a column of ``spec`` is not among ``present``:
    the key columns first; a column of ``extra`` only (a record's name) is named as one
    of ``'names'``."""
    keys = spec.records + spec.clusters
    missing = [c for c in keys if c not in present]
    if missing:
        raise missing_columns_error(spec.name, missing, present, "'record_col' / 'cluster_col'")
    absent = [c for c in spec.columns if c not in present]
    if absent:
        raise InputError(
            f"'{spec.extra_option}': '{spec.name}' has no column {absent[0]!r}; its columns "
            f"are {present}"
        )


def side_specs(
    options: AlignOptions, sides: Sequence[tuple[str, Any, str]]
) -> tuple[MismatchPolicy, str, list[SideSpec]]:
    """The policy, the id type and the :class:`SideSpec` of each ``(view, data, name)``
    (``name`` ``"truth"`` or ``"pred"``) read from the options of
    :func:`ereval.io.align`."""
    policy, id_type, columns = read_options(options)
    source = check_link_only(options.get("link_only", False), options.get("source_col"))
    specs = []
    for view, data, name in sides:
        # an empty prediction predicts no pair: the records it lacks are then the
        # mismatch to settle (on_mismatch="singletons" makes each its own cluster)
        spec = SideSpec(
            _given_view(view, name, policy), data, name, *columns[name], allow_empty=name == "pred"
        )
        if source is not None and name == "truth":  # its data sets, as the view's src
            cols = tuple(column_names(source, name="source_col"))
            spec = replace(spec, extra=(("src", cols),), extra_option="source_col")
        specs.append(spec)
    return policy, id_type, specs


def is_link_only(specs: Sequence[SideSpec]) -> bool:
    """Whether the truth's view carries each record's data set (``src``)."""
    return any(alias == "src" for spec in specs for alias, _ in spec.extra)


def within_source(
    con: Any, policy: MismatchPolicy, dialect: sql.StatsDialect = sql.DUCKDB_STATS
) -> SourcePairs:
    """The pair counts within data sets of the views ``t`` (with its data sets ``src``)
    and ``p``, computed where they are (:func:`ereval.engines.sql.source_pairs_sql`);
    the errors of the in-memory path for a missing data set and for records of the
    prediction only, whose data set is unknown."""
    text = _dialect_of(dialect).text_type
    missing = con.execute(
        f"SELECT count(*) FILTER (WHERE src IS NULL OR CAST(src AS {text}) = '') FROM t"
    ).fetchall()[0][0]
    if missing:
        raise InputError(f"'truth' has {missing} missing data sets (column(s) 'source_col')")
    con.execute("CREATE TEMP TABLE wcells AS " + sql.source_cells_sql("t", "p"))
    common_only = policy == "intersection"
    got = con.execute(sql.source_pairs_sql("wcells", common_only=common_only, dialect=dialect))
    *twice, n_sources, only_p = got.fetchall()[0]
    if only_p and not common_only:
        shown = _column(con, sql.mismatch_examples_sql("p", "t", dialect=_dialect_of(dialect)))
        raise RecordMismatchError(
            f"'link_only': {int(only_p)} record(s) of 'pred' are not in 'truth' "
            f"(e.g. {examples(shown)}), so their data set is unknown; pass "
            "on_mismatch='intersection' to score the common records only"
        )
    halves = [int(v or 0) // 2 for v in twice]
    return SourcePairs(int(n_sources or 0), *halves)


def _dialect_of(stats: sql.StatsDialect) -> sql.Dialect:
    return sql.SPARK if stats == sql.SPARK_STATS else sql.DUCKDB


def _given_view(view: str, name: str, policy: MismatchPolicy) -> str:
    """The view of a side as read: under ``"singletons"`` the prediction is read as
    ``p0`` and completed into ``p`` by :func:`completed_rows`."""
    return view + "0" if policy == "singletons" and name == "pred" else view


def completed_rows(
    con: Any,
    specs: Sequence[SideSpec],
    rows: Sequence[int],
    policy: MismatchPolicy,
    dialect: sql.Dialect = sql.DUCKDB,
) -> list[int]:
    """The rows of the views ``t`` and ``p``: under ``policy="singletons"`` the view
    ``p`` is first made of the prediction as read and a cluster of its own for every
    record of the truth it lacks (:func:`ereval.engines.sql.singletons_sql`)."""
    if policy != "singletons":
        return list(rows)
    truth, given = specs[0].view, specs[1].view
    view = given[:-1]
    con.execute(f"CREATE TEMP VIEW {view} AS " + sql.singletons_sql(truth, given, dialect=dialect))
    added = con.execute(sql.missing_count_sql(truth, given, dialect=dialect)).fetchall()[0][0]
    return [rows[0], rows[1] + int(added)]


def sizes_of_codes(
    codes: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """Cluster sizes: the counts summed per code (``-1`` left out).

    Examples
    --------
    >>> sizes_of_codes(np.array([0, 1, -1, 0]), np.array([2, 1, 5, 3])).tolist()
    [5, 1]
    """
    present = codes >= 0
    width = int(codes.max()) + 1 if present.any() else 0
    # float64 sums are exact below 2**53, far beyond any record count
    return np.bincount(codes[present], weights=counts[present], minlength=width).astype(np.int64)


def table_from_codes(
    i: npt.NDArray[np.int64],
    j: npt.NDArray[np.int64],
    n: npt.NDArray[np.int64],
    policy: MismatchPolicy,
) -> ContingencyTable:
    """The table of the coded groups: sizes from every group, cells from those with both
    codes, sorted by ``(i, j)``.

    Examples
    --------
    >>> t = table_from_codes(np.array([1, 0, 0]), np.array([0, 0, -1]),
    ...                      np.array([2, 1, 4]), "twinless")
    >>> t.rows.tolist(), t.cols.tolist(), t.counts.tolist(), t.true_sizes.tolist()
    ([0, 1], [0, 0], [1, 2], [5, 2])
    """
    true_sizes = sizes_of_codes(i, n)
    pred_sizes = sizes_of_codes(j, n)
    paired = (i >= 0) & (j >= 0)
    i, j, n = i[paired], j[paired], n[paired]
    order = np.argsort(i * max(pred_sizes.shape[0], 1) + j)  # cells sorted by (i, j)
    return ContingencyTable(i[order], j[order], n[order], true_sizes, pred_sizes, policy)


def push_table(con: Any, name: str, table: Any) -> None:
    """Make the Arrow table ``table`` the view ``name`` of an engine's connection (DuckDB
    reads it where it is; Spark copies it in)."""
    if hasattr(con, "push"):
        con.push(name, table)
    else:
        con.register(name, table)


# The checks below run on a connection with DuckDB's ``execute(query).fetchall()``
# and ``.fetchnumpy()`` (a DuckDB connection, or the Spark engine's connection).


def _column(con: Any, query: str) -> list[Any]:
    return [r[0] for r in con.execute(query).fetchall()]


def check_side(
    name: str, n: int, n_null_records: int, n_null_clusters: int, *, allow_empty: bool = False
) -> None:
    """The counts of one side's scan (:func:`ereval.engines.sql.nulls_sql`): it has rows
    (unless ``allow_empty``) and no missing id."""
    if n == 0 and not allow_empty:
        raise InputError(f"'{name}' is empty; expected at least one record")
    if n_null_records:
        raise InputError(f"'{name}' has {n_null_records} missing record ids (empty, null or NaN)")
    if n_null_clusters:
        raise InputError(f"'{name}' has {n_null_clusters} missing cluster ids (empty, null or NaN)")


def size_distribution(con: Any, view: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The distinct cluster sizes of ``view`` in increasing order and the number of
    clusters of each (as :func:`ereval.summary.size_distribution`)."""
    got = con.execute(sql.size_distribution_sql(view)).fetchnumpy()
    sizes = np.asarray(got["size"], dtype=np.int64)
    counts = np.asarray(got["clusters"], dtype=np.int64)
    order = np.argsort(sizes)
    return sizes[order], counts[order]


def check_unique(con: Any, view: str, name: str) -> None:
    """An error naming the repeated record ids of ``view``, if any."""
    n, n_distinct = con.execute(sql.duplicates_sql(view)).fetchall()[0]
    if n_distinct != n:
        ex = examples(_column(con, sql.repeated_sql(view)))
        raise InputError(
            f"'{name}' has {n - n_distinct} duplicate record ids (e.g. {ex}); "
            "each record must belong to exactly one cluster"
        )


def checked_cells(
    con: Any,
    views: tuple[str, str],
    rows: tuple[int, int],
    policy: MismatchPolicy,
    dialect: sql.Dialect = sql.DUCKDB,
    passes: int = 1,
) -> tuple[int, int, int]:
    """Join the sides (the views ``(truth, pred)`` of ``rows`` rows) into the table
    ``cells`` and check it for duplicate and mismatched records
    (:func:`check_totals`); return the records on both sides, on the truth's only
    and on the prediction's only. With ``passes`` > 1 (DuckDB only) the join runs
    in that many passes over the records (:func:`ereval.engines._plan.planned_cells`)."""
    t, p = views
    if passes > 1:
        planned_cells(con, (t, p), passes)
    else:
        con.execute("CREATE TEMP TABLE cells AS " + sql.cells_sql(t, p))
    totals = con.execute(sql.cell_totals_sql("cells")).fetchall()[0]
    both, only_t, only_p = (int(v or 0) for v in totals)
    return check_totals(con, views, rows, (both, only_t, only_p), policy, dialect)


def check_totals(
    con: Any,
    views: tuple[str, str],
    rows: tuple[int, int],
    totals: tuple[int, int, int],
    policy: MismatchPolicy,
    dialect: sql.Dialect = sql.DUCKDB,
) -> tuple[int, int, int]:
    """Check the groups of the join of the views ``(truth, pred)`` (of ``rows`` rows)
    for duplicate and mismatched records from their ``totals``, the records on both
    sides, on the truth's only and on the prediction's only (the groups of a NULL
    key); return ``totals``.

    The detailed queries over the views run only when the totals do not add up to
    the sides' rows, or for the records of one side only."""
    t, p = views
    both, only_t, only_p = totals
    if both + only_t != rows[0] or both + only_p != rows[1]:  # a matched record id repeats
        check_unique(con, t, "truth")
        check_unique(con, p, "pred")
    sides = ((t, p, "truth", only_t), (p, t, "pred", only_p))
    for side, other, name, only in sides:
        query = sql.twinless_duplicates_sql(side, other, dialect=dialect)
        if only and con.execute(query).fetchall()[0][0]:
            check_unique(con, side, name)
    if (only_t or only_p) and policy in ("error", "singletons"):
        shown = [
            _column(con, sql.mismatch_examples_sql(side, other, dialect=dialect)) if only else []
            for side, other, _, only in sides
        ]
        raise mismatch_error(only_t, shown[0], only_p, shown[1], policy)
    if policy == "intersection" and both == 0:
        raise RecordMismatchError("'truth' and 'pred' have no record in common")
    return both, only_t, only_p


def _key_codes(column: Any) -> npt.NDArray[np.int64]:
    """Codes of an Arrow column of cluster keys numbering them in sorted order, as
    :func:`ereval.engines.sql.coded_cells_sql` does; ``-1`` for NULL."""
    import pyarrow as pa
    import pyarrow.compute as pc

    values = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    valid = np.asarray(values.is_valid(), dtype=bool)
    out = np.full(len(values), -1, dtype=np.int64)
    if valid.any():
        present = values.filter(pa.array(valid))
        encoded = pc.dictionary_encode(present)
        dictionary = encoded.dictionary
        rank = np.empty(len(dictionary), dtype=np.int64)
        rank[np.asarray(pc.sort_indices(dictionary))] = np.arange(len(dictionary))
        indices = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        out[valid] = rank[indices]
    return out


def keyed_table(con: Any, policy: MismatchPolicy) -> ContingencyTable:
    """The table from the keyed groups of ``cells``, numbered here (the codes of
    :func:`coded_table`, without a window over every group in the engine)."""
    keyed = con.execute(
        sql.keyed_cells_sql("cells", common_only=policy == "intersection")
    ).fetch_arrow_table()
    i, j = _key_codes(keyed.column("tc")), _key_codes(keyed.column("pc"))
    n = keyed.column("n").to_numpy().astype(np.int64)
    return table_from_codes(i, j, n, policy)


def coded_table(con: Any, policy: MismatchPolicy) -> ContingencyTable:
    """The table from the coded groups of ``cells``, the only rows that come back."""
    coded = con.execute(
        sql.coded_cells_sql("cells", common_only=policy == "intersection")
    ).fetchnumpy()
    i, j, n = (np.asarray(coded[k], dtype=np.int64) for k in ("i", "j", "n"))
    return table_from_codes(i, j, n, policy)
