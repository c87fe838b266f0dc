"""The sufficient statistics of a contingency table, computed inside DuckDB.

From the groups of the full outer join (the table ``cells(tc, pc, n)`` of
:func:`ereval.engines.sql.cells_sql`), a few aggregate statements compute every
statistic of :mod:`ereval.statistics`; only aggregates come back to Python:

1. the clusters of each side with what needs no other cluster: size, records
   on both sides, exact sum of the squares of its cells, number of cells (two
   GROUP BYs over the groups);
2. the non-zero cells with their marginals and CEAF's two weights (two joins);
3. per cluster of each side with several cells, what needs the other side's
   sizes: the best Jaccard, whether its component of the cell graph holds no
   other cluster of its side (a *star*), its largest CEAF weights and their sums
   (a cluster of one cell is read off its cell);
4. global sums over the clusters and the cells.

CEAF (CEAFm and CEAFe together, sharing every step): a star component aligns
its best cell, so the stars' best weights are summed in the engine. In the
components with several clusters on both sides, the cells heavier than the
largest other weight of their row plus that of their column are in some best
alignment (dominance, as in :mod:`ereval.metrics.ceaf`); they are summed in the
engine too. Only the cells of rows and columns that hold no such cell come back,
and the exact assignment of :func:`ereval.metrics.ceaf.max_weight_alignment`
(its own reductions, the connected components, a sparse assignment per
remaining component) finishes them in memory.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..contingency import ContingencyTable, MismatchPolicy
from ..statistics import TableStatistics
from . import sql

__all__ = ["duckdb_table_statistics"]


def _int(value: Any) -> int:
    return 0 if value is None else int(value)


def _float(value: Any) -> float:
    return 0.0 if value is None else float(value)


def _halve(twice: int) -> int:
    # sum x^2 - sum x = 2 sum C(x, 2): always even
    return twice // 2


def duckdb_table_statistics(
    con: Any,
    cells: str,
    policy: MismatchPolicy,
    both: int,
    only_t: int,
    only_p: int,
    dialect: sql.StatsDialect = sql.DUCKDB_STATS,
) -> TableStatistics:
    """Every statistic of the table whose groups are ``cells`` (records on both sides
    ``both``, on the truth's only ``only_t``, on the prediction's only ``only_p``;
    0 for ``policy="intersection"``)."""
    common_only = policy == "intersection"
    n_records = both + only_t + only_p
    for side in ("t", "p"):
        query = sql.sizes_sql(cells, side, common_only=common_only, dialect=dialect)
        con.execute(f"CREATE TEMP TABLE {side}s AS " + query)
    con.execute("CREATE TEMP TABLE xr AS " + sql.cells_with_rows_sql(cells, "ts"))
    con.execute("CREATE TEMP TABLE x AS " + sql.joined_cells_sql("xr", "ps"))
    con.execute("DROP TABLE xr")
    con.execute("CREATE TEMP TABLE tr AS " + sql.cluster_stats_sql("x", "t"))
    con.execute("CREATE TEMP TABLE pr AS " + sql.cluster_stats_sql("x", "p"))
    side_t = con.execute(sql.marginal_stats_sql("ts", n_records, dialect)).fetchall()[0]
    side_p = con.execute(sql.marginal_stats_sql("ps", n_records, dialect)).fetchall()[0]
    k, n_t, sq_t, common_t, sq_common_t, s2, b3_r, b3e_r, lea_r, ent_t, twin_t = side_t
    r, n_p, sq_p, common_p, sq_common_p, _, b3_p, _, lea_p, ent_p, twin_p = side_p
    rows = con.execute(sql.cluster_sums_sql("tr", dialect)).fetchall()[0]
    cols = con.execute(sql.cluster_sums_sql("pr", dialect)).fetchall()[0]
    n_cells, matches, singles, b3e_p, cond_tp, cond_pt, *alone = con.execute(
        sql.cell_sums_sql("x", n_records, dialect)
    ).fetchall()[0]
    jac_rows, jac_cols, single3, single4 = (_float(v) for v in alone)
    con.execute("DROP TABLE ts")
    con.execute("DROP TABLE ps")
    # records of one side only are singletons on the other: (1 / N) ln(1 / N) each
    single = (1.0 / n_records) * math.log(1.0 / n_records) if n_records else 0.0
    ceafm, ceafe = _ceaf_totals(con, rows, cols, (single3, single4), dialect)
    return TableStatistics(
        policy=policy,
        n_true_records=_int(n_t),
        n_pred_records=_int(n_p),
        n_common=_int(common_t),
        n_true_clusters=_int(k),
        n_pred_clusters=_int(r),
        n_cells=_int(n_cells),
        pairs_both=_halve(_int(s2) - _int(common_t)),
        pairs_true=_halve(_int(sq_t) - _int(n_t)),
        pairs_pred=_halve(_int(sq_p) - _int(n_p)),
        pairs_row_common=_halve(_int(sq_common_t) - _int(common_t)),
        pairs_col_common=_halve(_int(sq_common_p) - _int(common_p)),
        exact_matches=_int(matches),
        b3_recall_sum=_float(b3_r),
        b3_precision_sum=_float(b3_p),
        b3_entity_recall_sum=_float(b3e_r),
        b3_entity_precision_sum=_float(b3e_p),
        closest_recall_sum=_float(rows[0]) + jac_rows,
        closest_precision_sum=_float(cols[0]) + jac_cols,
        lea_recall_sum=_float(lea_r) + _int(singles),
        lea_precision_sum=_float(lea_p) + _int(singles),
        entropy_true=_nonneg(-(_float(ent_t) + only_p * single)),
        entropy_pred=_nonneg(-(_float(ent_p) + only_t * single)),
        entropy_true_given_pred=_nonneg(-(_float(cond_tp) + _float(twin_p))),
        entropy_pred_given_true=_nonneg(-(_float(cond_pt) + _float(twin_t))),
        ceafm_total=ceafm,
        ceafe_total=ceafe,
    )


def _nonneg(h: float) -> float:
    return max(h, 0.0) + 0.0


def _ceaf_totals(
    con: Any,
    rows: tuple[Any, ...],
    cols: tuple[Any, ...],
    singles: tuple[float, float],
    dialect: sql.StatsDialect,
) -> tuple[float, float]:
    """CEAFm's and CEAFe's best aligned totals: stars and dominant cells summed in the
    engine, the undecided cells solved in memory."""
    from ..metrics.ceaf import ceaf_similarity, max_weight_alignment

    totals = [
        singles[0] + _float(rows[1]) + _float(cols[1]),
        singles[1] + _float(rows[2]) + _float(cols[2]),
    ]
    con.execute("CREATE TEMP TABLE hr AS " + sql.hard_rows_sql("x", "tr"))
    con.execute("DROP TABLE x")
    con.execute("CREATE TEMP TABLE hard AS " + sql.hard_cells_sql("hr", "pr"))
    con.execute("DROP TABLE hr")
    dominant = con.execute(sql.dominant_sums_sql("hard", dialect)).fetchall()[0]
    totals = [totals[0] + _float(dominant[0]), totals[1] + _float(dominant[1])]
    con.execute("CREATE TEMP TABLE dr AS " + sql.dominated_sql("hard", "t"))
    con.execute("CREATE TEMP TABLE dc AS " + sql.dominated_sql("hard", "p"))
    con.execute("CREATE TEMP TABLE ur AS " + sql.undecided_rows_sql("hard", "dr"))
    con.execute("DROP TABLE hard")
    rest = con.execute(sql.undecided_cells_sql("ur", "dc")).fetchnumpy()
    if len(rest["n"]) == 0:
        return totals[0], totals[1]
    tc, pc = np.asarray(rest["tc"]), np.asarray(rest["pc"])
    _, row = np.unique(tc, return_inverse=True)
    _, col = np.unique(pc, return_inverse=True)
    n, a, b = (np.asarray(rest[c], dtype=np.int64) for c in ("n", "a", "b"))
    for k, (flag, phi) in enumerate((("u3", 3), ("u4", 4))):
        keep = np.asarray(rest[flag], dtype=bool)
        if not keep.any():
            continue
        sub = _sub_table(row[keep], col[keep], n[keep], a[keep], b[keep])
        totals[k] += max_weight_alignment(sub, ceaf_similarity(sub, phi))  # type: ignore[arg-type]
    return totals[0], totals[1]


def _sub_table(
    row: np.ndarray, col: np.ndarray, n: np.ndarray, a: np.ndarray, b: np.ndarray
) -> ContingencyTable:
    """The table of some cells, with their clusters' true sizes as marginals (for the
    weights; the marginals are not the cells' sums)."""
    _, rows = np.unique(row, return_inverse=True)
    _, cols = np.unique(col, return_inverse=True)
    true_sizes = np.zeros(int(rows.max()) + 1, dtype=np.int64)
    pred_sizes = np.zeros(int(cols.max()) + 1, dtype=np.int64)
    true_sizes[rows] = a
    pred_sizes[cols] = b
    order = np.lexsort((cols, rows))
    return ContingencyTable(
        rows[order].astype(np.int64),
        cols[order].astype(np.int64),
        n[order],
        true_sizes,
        pred_sizes,
    )
