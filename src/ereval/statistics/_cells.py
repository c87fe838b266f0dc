"""What the SQL engines share around their statements: the options they read, and
the contingency table from the coded groups they return.

The rows ``(i, j, n)`` of :func:`ereval.engines._dialect.coded_cells_sql` (``-1`` for
the side a record is missing from) give the cluster sizes and the cells, put in
the order of the in-memory table here, in NumPy, so that no statement has to
sort them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InputError, RecordMismatchError
from .._validation import examples
from ..contingency import ContingencyTable, SourcePairs
from ..engines import _dialect as sql
from ..engines._plan import alone_repeats, planned_cells
from ..engines._repeats import key_repeats
from ..engines._sources import SideSpec, check_unique, column_of, hashed_keys, joined_sides
from ..io import (
    MismatchPolicy,
    mismatch_error,
)

__all__ = [
    "check_totals",
    "checked_cells",
    "checked_totals",
    "coded_table",
    "completed_rows",
    "keyed_table",
    "sizes_of_codes",
    "table_from_codes",
    "within_source",
]


def within_source(
    con: Any, policy: MismatchPolicy, dialect: sql.Dialect = sql.DUCKDB
) -> SourcePairs:
    """The pair counts within data sets of the views ``t`` (with its data sets ``src``)
    and ``p``, computed where they are (:func:`ereval.engines._dialect.source_pairs_sql`);
    the errors of the in-memory path for a missing data set and for records of the
    prediction only, whose data set is unknown."""
    text = dialect.text_type
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
        shown = column_of(con, sql.mismatch_examples_sql("p", "t", dialect=dialect))
        raise RecordMismatchError(
            f"'link_only': {int(only_p)} record(s) of 'pred' are not in 'truth' "
            f"(e.g. {examples(shown)}), so their data set is unknown; pass "
            "on_mismatch='intersection' to score the common records only"
        )
    halves = [int(v or 0) // 2 for v in twice]
    return SourcePairs(int(n_sources or 0), *halves)


def completed_rows(
    con: Any,
    specs: Sequence[SideSpec],
    rows: Sequence[int],
    policy: MismatchPolicy,
    dialect: sql.Dialect = sql.DUCKDB,
) -> list[int]:
    """The rows of the views ``t`` and ``p``: under ``policy="singletons"`` the view
    ``p`` is first made of the prediction as read and a cluster of its own for every
    record of the truth it lacks (:func:`ereval.engines._dialect.singletons_sql`)."""
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
    t, p = joined_sides(con, views, dialect)
    if passes > 1:
        _, counted = planned_cells(con, (t, p), passes)
        return checked_totals(con, "cells", views, rows, policy, dialect, alone=counted)
    # some record is on one side only: its repeats are looked for by flags over each
    # side's integer keys (:func:`ereval.engines._repeats.key_repeats`), else by
    # grouping it on its own (Spark's plan of that grouping cost more than its second
    # join: 25 s against 15 at 10^6 records of two files, local[2])
    lone = dialect is sql.DUCKDB and rows[0] != rows[1]
    alone = key_repeats(con, (t, p), rows, sort=False) if lone else None
    if lone and alone is None:
        alone = _cells_and_lone_records(con, t, p)
    else:
        con.execute("CREATE TEMP TABLE cells AS " + sql.cells_sql(t, p))
    return checked_totals(con, "cells", views, rows, policy, dialect, alone=alone)


def _cells_and_lone_records(con: Any, t: str, p: str) -> tuple[int, int]:
    """The table ``cells`` of :func:`ereval.engines._dialect.cells_sql` from the join
    that groups each record of one side only on its own
    (:func:`~ereval.engines._dialect.cells_and_lone_records_sql`), and the surplus rows
    of those records that repeat, on the truth's side and on the prediction's: their
    repeats found without a second full join. Keys of text or parts are grouped by their
    hash first, and again by themselves where that shows a repeat (perhaps two keys
    of one hash)."""
    hashed = hashed_keys(con, t)
    surplus = _lone_cells(con, t, p, hashed=hashed)
    if hashed and any(surplus):  # a repeat, or two keys of one hash: grouped by the keys
        surplus = _lone_cells(con, t, p, hashed=False)
    con.execute("CREATE TEMP TABLE cells AS " + sql.merged_lone_records_sql("lone_cells"))
    con.execute("DROP TABLE lone_cells")
    return surplus


def _lone_cells(con: Any, t: str, p: str, *, hashed: bool) -> tuple[int, int]:
    """The table ``lone_cells`` of :func:`ereval.engines._dialect.cells_and_lone_records_sql`
    and its surplus rows on each side."""
    grouped = sql.cells_and_lone_records_sql(t, p, hashed=hashed)
    con.execute("CREATE OR REPLACE TEMP TABLE lone_cells AS " + grouped)
    surplus = con.execute(sql.lone_surplus_sql("lone_cells")).fetchall()[0]
    return int(surplus[0] or 0), int(surplus[1] or 0)


def checked_totals(
    con: Any,
    cells: str,
    views: tuple[str, str],
    rows: tuple[int, int],
    policy: MismatchPolicy,
    dialect: sql.Dialect = sql.DUCKDB,
    *,
    alone: tuple[int, int] | None = None,
) -> tuple[int, int, int]:
    """The totals of the table of groups ``cells`` of the join of ``views`` (records on
    both sides, the truth's only, the prediction's only), checked by
    :func:`check_totals` (``alone`` as there)."""
    totals = con.execute(sql.cell_totals_sql(cells)).fetchall()[0]
    both, only_t, only_p = (int(v or 0) for v in totals)
    return check_totals(con, views, rows, (both, only_t, only_p), policy, dialect, alone=alone)


def check_totals(
    con: Any,
    views: tuple[str, str],
    rows: tuple[int, int],
    totals: tuple[int, int, int],
    policy: MismatchPolicy,
    dialect: sql.Dialect = sql.DUCKDB,
    *,
    alone: tuple[int, int] | None = None,
) -> tuple[int, int, int]:
    """Check the groups of the join of the views ``(truth, pred)`` (of ``rows`` rows)
    for duplicate and mismatched records from their ``totals``, the records on both
    sides, on the truth's only and on the prediction's only (the groups of a NULL
    key); return ``totals``. ``alone``, when the join's passes counted them
    (:func:`ereval.engines._plan.planned_cells`), are the surplus rows of the
    records repeated among those of the truth's only and of the prediction's only.

    The detailed queries over the views run only when the totals do not add up to
    the sides' rows, or for the records of one side only that may repeat: unless
    ``alone`` tells, each side's keys are read in NumPy for their repeats on DuckDB
    (:func:`ereval.engines._repeats.key_repeats`), else one more full join looks."""
    t, p = views
    both, only_t, only_p = totals
    if both + only_t != rows[0] or both + only_p != rows[1]:  # a matched record id repeats
        check_unique(con, t, "truth")
        check_unique(con, p, "pred")
    sides = ((t, p, "truth", only_t), (p, t, "pred", only_p))
    if only_t or only_p:  # a record of one side only repeats
        if alone is None:  # each side's keys read in NumPy, else a second join
            joined = joined_sides(con, views, dialect)
            if dialect is sql.DUCKDB:
                alone = key_repeats(con, joined, rows)
            if alone is None:
                alone = alone_repeats(con, f"({sql.alone_sql(*joined)})")
        for (side, _, name, _), extra in zip(sides, alone, strict=True):
            if extra:
                check_unique(con, side, name)
    if (only_t or only_p) and policy in ("error", "singletons"):
        shown = [
            column_of(con, sql.mismatch_examples_sql(side, other, dialect=dialect)) if only else []
            for side, other, _, only in sides
        ]
        raise mismatch_error(only_t, shown[0], only_p, shown[1], policy)
    if policy == "intersection" and both == 0:
        raise RecordMismatchError("'truth' and 'pred' have no record in common")
    return both, only_t, only_p


def _key_codes(column: Any) -> npt.NDArray[np.int64]:
    """Codes of an Arrow column of cluster keys numbering them in sorted order, as
    :func:`ereval.engines._dialect.coded_cells_sql` does; ``-1`` for NULL."""
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
