"""The sufficient statistics of a contingency table, from the groups of a DuckDB join.

With DuckDB, the groups of the full outer join (the table ``cells(tc, pc, n)`` of
:func:`ereval.engines._dialect.cells_sql`) are read **once**, streamed as Arrow record
batches into compact NumPy arrays: the cluster keys of each side numbered (by
offset for integers in a range at most a few times the number of groups, as
:func:`ereval.io.encode` does, renumbered densely only when more than a tenth
of the codes are unused; else hashed once by Arrow) and the counts, 12 bytes
per group. DuckDB's memory limit is lowered meanwhile, so that
it writes its buffered tables to its temporary directory and the process's
memory goes to the arrays; it is set back afterwards. Every statistic is then a
reduction over chunks of the cells (``np.add.at``, ``np.maximum.at``, sums), no
longer a spilled hash GROUP BY per step:

1. each cluster's size and records on both sides;
2. one pass over the cells: exact matches, B-cubed's, LEA's and the entropies'
   per-cell terms, the best Jaccard per cluster and the sums of CEAFe's weights
   per cluster;
3. CEAFm and CEAFe together (:func:`ereval._algorithms.aligned_totals`): the
   cells heavier than the rest of their row and column are fixed in one pass,
   and only the cells of rows and columns holding none are solved exactly.

:func:`sql_table_statistics` computes the same statistics with aggregate
statements only, no array coming back (the path of another SQL dialect):

1. the clusters of each side with what needs no other cluster: size, records
   on both sides, exact sum of the squares of its cells, number of cells (two
   GROUP BYs over the groups);
2. the non-zero cells with their marginals and CEAF's two weights (two joins);
3. per cluster of each side with several cells, what needs the other side's
   sizes: the best Jaccard, whether it is a star's centre, its largest CEAF
   weights and their sums (a cluster of one cell is read off its cell);
4. global sums over the clusters and the cells, then CEAF's stars and dominant
   cells summed in the engine, and only the undecided cells brought back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from .._algorithms import (
    align_cells,
    aligned_totals,
    ceafe_weights,
    dominance_margin,
    twinless_totals,
)
from ..engines import _dialect as sql
from ..io import MismatchPolicy, arrow_to_numpy
from . import TableStatistics
from ._sizes import CHUNK, SMALL, chunks, size_entropy, twin_terms

__all__ = ["duckdb_table_statistics", "sql_table_statistics"]


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
    dialect: sql.Dialect = sql.DUCKDB,
) -> TableStatistics:
    """Every statistic of the table whose groups are ``cells`` (records on both sides
    ``both``, on the truth's only ``only_t``, on the prediction's only ``only_p``;
    0 for ``policy="intersection"``).

    With DuckDB (``dialect`` :data:`~ereval.engines._dialect.DUCKDB`) the groups are
    streamed once, as compact integer codes, into NumPy reductions
    (:func:`_coded_statistics`); another dialect computes them with the aggregate
    statements alone (:func:`sql_table_statistics`)."""
    if dialect.native_arrow:
        return _coded_statistics(con, cells, policy, both, only_t, only_p)
    return sql_table_statistics(con, cells, policy, both, only_t, only_p, dialect)


def sql_table_statistics(
    con: Any,
    cells: str,
    policy: MismatchPolicy,
    both: int,
    only_t: int,
    only_p: int,
    dialect: sql.Dialect = sql.DUCKDB,
) -> TableStatistics:
    """Every statistic of the table whose groups are ``cells``, from aggregate
    statements only (no array comes back): see the module's steps 1 to 4."""
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
    k, n_t, sq_t, common_t, sq_common_t, s2, b3_r, b3e_r, lea_r, ent_t, twin_t, top_t = side_t[:12]
    r, n_p, sq_p, common_p, sq_common_p, _, b3_p, _, lea_p, ent_p, twin_p, top_p = side_p[:12]
    (share_t, extra_t, _), (share_p, extra_p, lone) = side_t[12:], side_p[12:]
    rows = con.execute(sql.cluster_sums_sql("tr", dialect)).fetchall()[0]
    cols = con.execute(sql.cluster_sums_sql("pr", dialect)).fetchall()[0]
    n_cells, matches, singles, b3e_p, cond_tp, cond_pt, *alone, b0_p = con.execute(
        sql.cell_sums_sql("x", n_records, dialect)
    ).fetchall()[0]
    jac_rows, jac_cols, single3, single4 = (_float(v) for v in alone)
    twinless = only_t + only_p > 0
    sys = _twinless_totals(con, n_records) if twinless else None
    con.execute("DROP TABLE ts")
    con.execute("DROP TABLE ps")
    # records of one side only are singletons on the other: (1 / N) ln(1 / N) each
    single = (1.0 / n_records) * math.log(1.0 / n_records) if n_records else 0.0
    margin = dominance_margin(max(_int(top_t), _int(top_p)))
    ceafm, ceafe = _ceaf_totals(con, rows, cols, (single3, single4), margin, dialect, n_records)
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
        twinless_pred_singletons=_int(lone),
        ceaf_sys_precision_total=(
            _int(extra_t) + _int(extra_p) - _int(lone) + sys[0] if sys else round(ceafm)
        ),
        ceaf_sys_recall_total=_int(extra_t) + sys[1] if sys else round(ceafm),
        b3_twinless_recall_sum=_float(share_t),
        b3_twinless_precision_sum=_float(share_p),
        b3_common_precision_sum=_float(b0_p) if twinless else _float(b3_p),
    )


def _nonneg(h: float) -> float:
    return max(h, 0.0) + 0.0


def _twinless_totals(con: Any, n_records: int) -> tuple[int, int]:
    """The alignments of :func:`~ereval._algorithms.twinless_totals` over the cells
    ``x``, as it finds them: the cells alone in their row and column and those fixed
    (heavier than the rest of their row and column) summed in the engine, the others
    whose row and column hold no fixed cell brought back and aligned in memory (the
    engine's memory lent meanwhile, for the ``n_records`` records)."""
    lone = con.execute(sql.lone_twinless_sql("x")).fetchall()[0]
    con.execute("CREATE TEMP TABLE tws AS " + sql.shared_twinless_sql("x"))
    fixed = con.execute(sql.fixed_twinless_sums_sql("tws")).fetchall()[0]
    con.execute("CREATE TEMP TABLE twr AS " + sql.fixed_twinless_sql("tws", "tc"))
    con.execute("CREATE TEMP TABLE twc AS " + sql.fixed_twinless_sql("tws", "pc"))
    with con.lend_memory(n_records):
        got = con.execute(sql.undecided_twinless_sql("tws", "twr", "twc")).fetchnumpy()
    for table in ("tws", "twr", "twc"):
        con.execute(f"DROP TABLE {table}")
    totals = [_int(lone[0]) + _int(fixed[0]), _int(lone[1]) + _int(fixed[1])]
    if len(got["n"]):
        _, row = np.unique(np.asarray(got["tc"]), return_inverse=True)
        _, col = np.unique(np.asarray(got["pc"]), return_inverse=True)
        k, r = int(row.max()) + 1, int(col.max()) + 1
        recall = np.asarray(got["n"], dtype=np.int64) - np.asarray(got["dr"], dtype=np.int64)
        precision = recall - np.asarray(got["dc"], dtype=np.int64)
        for t, (flag, w) in enumerate(((got["up"], precision), (got["ur"], recall))):
            keep = np.asarray(flag, dtype=bool)
            if keep.any():
                solved = align_cells(row[keep], col[keep], w[keep].astype(np.float64), k, r)
                totals[t] += round(solved)  # integer weights: an exact integer
    return totals[0], totals[1]


def _ceaf_totals(
    con: Any,
    rows: tuple[Any, ...],
    cols: tuple[Any, ...],
    singles: tuple[float, float],
    margin: float,
    dialect: sql.Dialect,
    n_records: int,
) -> tuple[float, float]:
    """CEAFm's and CEAFe's best aligned totals: stars and dominant cells (``w4`` by the
    relative ``margin``) summed in the engine, the undecided cells solved in memory
    (the engine's memory lent meanwhile, for the ``n_records`` records)."""
    totals = [
        singles[0] + _float(rows[1]) + _float(cols[1]),
        singles[1] + _float(rows[2]) + _float(cols[2]),
    ]
    con.execute("CREATE TEMP TABLE hr AS " + sql.hard_rows_sql("x", "tr"))
    con.execute("DROP TABLE x")
    con.execute("CREATE TEMP TABLE hard AS " + sql.hard_cells_sql("hr", "pr", margin))
    con.execute("DROP TABLE hr")
    dominant = con.execute(sql.dominant_sums_sql("hard", dialect)).fetchall()[0]
    totals = [totals[0] + _float(dominant[0]), totals[1] + _float(dominant[1])]
    con.execute("CREATE TEMP TABLE dr AS " + sql.dominated_sql("hard", "t"))
    con.execute("CREATE TEMP TABLE dc AS " + sql.dominated_sql("hard", "p"))
    con.execute("CREATE TEMP TABLE ur AS " + sql.undecided_rows_sql("hard", "dr"))
    con.execute("DROP TABLE hard")
    con.execute("CREATE TEMP TABLE undecided AS " + sql.undecided_cells_sql("ur", "dc"))
    for table in ("ur", "dr", "dc", "tr", "pr"):
        con.execute(f"DROP TABLE {table}")
    with con.lend_memory(n_records):  # DuckDB's buffers go while NumPy solves them
        rest = con.execute("SELECT * FROM undecided").fetchnumpy()
        con.execute("DROP TABLE undecided")
        return _solved(rest, totals)


def _solved(rest: dict[str, Any], totals: list[float]) -> tuple[float, float]:
    """``totals`` plus CEAFm's and CEAFe's best alignments of the undecided cells
    ``rest`` (the columns of :func:`ereval.engines._dialect.undecided_cells_sql`)."""
    if len(rest["n"]) == 0:
        return totals[0], totals[1]
    true_keys, row = np.unique(np.asarray(rest["tc"]), return_inverse=True)
    pred_keys, col = np.unique(np.asarray(rest["pc"]), return_inverse=True)
    n, a, b = (np.asarray(rest[c], dtype=np.int64) for c in ("n", "a", "b"))
    weights = (n.astype(np.float64), ceafe_weights(n, a, b))
    for t, flag in enumerate(("u3", "u4")):
        keep = np.asarray(rest[flag], dtype=bool)
        if keep.any():
            totals[t] += align_cells(
                row[keep], col[keep], weights[t][keep], true_keys.size, pred_keys.size
            )
    return totals[0], totals[1]


# -- the groups as integer codes, reduced in NumPy -------------------------------------

_BATCH = 1 << 20  # rows per Arrow record batch fetched
_USED = 0.9  # codes are renumbered when fewer than this share of them is used
_INTEGER_TYPES = frozenset(
    ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER")
)


def _sum_squares(x: npt.NDArray[Any]) -> int:
    """``sum x^2``, exact (int64 over runs short enough not to overflow)."""
    if x.size == 0:
        return 0
    top = int(x.max())
    step = max(1, min(CHUNK, (2**63 - 1) // max(1, top * top)))
    total = 0
    for k in range(0, x.size, step):
        part = x[k : k + step].astype(np.int64, copy=False)
        total += int(np.dot(part, part))
    return total


def _code_dtype(n_codes: int) -> type[np.signedinteger[Any]]:
    return np.int32 if n_codes < 2**31 - 1 else np.int64


class _Codes:
    """The codes of one side's cluster keys, batch by batch: by offset from the
    smallest key for integers of known ``bounds`` (computed by DuckDB), kept when
    their range is at most a few times the number of groups (as
    :func:`ereval.io.encode`); else hashed once over all batches (Arrow's
    dictionary encoding). ``-1`` stands for the NULL key of the records on the
    other side only. Each batch is kept as a piece until the number of groups is
    known."""

    def __init__(self, bounds: tuple[Any, Any] | None, most: int) -> None:
        # offsets only where they may be codes: ``most`` is at least the number of groups
        lo, hi = bounds if bounds is not None and bounds[0] is not None else (0, -1)
        span = int(hi) - int(lo) + 1  # 0 without bounds
        self.lo = int(lo) if 0 < span <= 4 * most + 1024 else None
        self.span = span if self.lo is not None else 0
        self.parts: list[Any] = []

    def select(self, key: str) -> str:
        """The SQL of the column read for ``key``: by offset, DuckDB computes the codes
        (``-1`` for NULL) in the type of the codes, half the width of the keys."""
        if self.lo is None:
            return key
        kind = "INTEGER" if _code_dtype(self.span) == np.int32 else "BIGINT"
        return f"coalesce(CAST({key} - ({self.lo}) AS {kind}), -1) AS {key}"

    def coded(self, view: str) -> str:
        """The SQL of the side ``view(r, c)`` with its cluster keys replaced by their
        codes when by offset (a join then groups the narrower codes, read as they are
        by :meth:`select`); ``view`` itself otherwise."""
        if self.lo is None:
            return view
        codes = self.select("c")
        self.lo = 0  # the codes are their own offsets
        return f"(SELECT r, {codes} FROM {view})"

    def missing(self, column: Any) -> npt.NDArray[np.bool_]:
        """Which keys of a batch's ``column`` are NULL."""
        if self.lo is None:
            return np.asarray(column.is_null(), dtype=bool)
        return np.asarray(arrow_to_numpy(column) < 0)

    def add(self, column: Any, keep: npt.NDArray[np.bool_] | None) -> None:
        """Keep a batch's ``column`` (its rows where ``keep``, all for ``None``)."""
        if self.lo is None:
            self.parts.append(column if keep is None else column.filter(keep))
        else:
            codes = arrow_to_numpy(column)
            self.parts.append(codes.copy() if keep is None else codes[keep])

    def finish(self, m: int) -> tuple[npt.NDArray[Any], int]:
        """The codes of the ``m`` groups and the number of codes (some of them unused
        when by offset)."""
        if self.lo is not None and self.span <= 4 * m + 1024:
            return _joined(self.parts, m, _code_dtype(self.span)), self.span
        if m == 0:  # no group at all
            self.parts = []
            return np.zeros(0, dtype=np.int32), 0
        import pyarrow as pa
        import pyarrow.compute as pc

        # offsets too sparse to be codes: hashed as keys are (NULL for -1)
        parts = [pa.array(x, mask=x < 0) if isinstance(x, np.ndarray) else x for x in self.parts]
        self.parts = []
        encoded = pa.table({"k": pc.dictionary_encode(pa.chunked_array(parts))})
        del parts
        column = encoded.unify_dictionaries().column("k")
        n_codes = len(column.chunk(0).dictionary) if column.num_chunks else 0
        dtype = _code_dtype(n_codes)
        codes = np.empty(len(column), dtype=dtype)
        at = 0
        for chunk in column.chunks:
            indices = arrow_to_numpy(chunk.indices.fill_null(-1))
            codes[at : at + len(chunk)] = indices
            at += len(chunk)
        return codes, n_codes


def _joined(parts: list[Any], m: int, dtype: Any) -> npt.NDArray[Any]:
    """The ``m`` values of the arrays ``parts`` in one array, each part freed once
    copied (the extra memory is one part's)."""
    out = np.empty(m, dtype=dtype)
    parts.reverse()
    at = 0
    while parts:
        part = parts.pop()
        out[at : at + part.shape[0]] = part
        at += part.shape[0]
        del part
    return out


def _bounds(con: Any, source: str, key: str) -> tuple[Any, Any] | None:
    """The smallest and the largest ``key`` of ``source`` (a table, a view or a query in
    parentheses) when it holds integers, else ``None``."""
    described = con.execute(f"DESCRIBE SELECT {key} FROM {source}").fetchall()
    if str(described[0][1]) not in _INTEGER_TYPES:
        return None
    lo, hi = con.execute(f"SELECT min({key}), max({key}) FROM {source}").fetchall()[0]
    return lo, hi


class Fetched(NamedTuple):
    """The groups of a table of cells as arrays (:func:`_fetch`)."""

    i: npt.NDArray[Any]
    j: npt.NDArray[Any]
    n: npt.NDArray[Any]
    k: int
    r: int
    totals: tuple[int, int, int]
    #: the surplus rows of the records of the truth's only and of the prediction's only
    #: that repeat, when each such record is a group of its own
    surplus: tuple[int, int]


def _fetch(con: Any, cells: str, sides: list[_Codes], total: int, *, common_only: bool) -> Fetched:
    """The groups of ``cells(tc, pc, n)`` (a table, or a query in parentheses) as
    ``(i, j, n)`` arrays (codes of ``sides``, ``-1`` for a NULL key; the groups with
    a NULL key left out with ``common_only``) and the number of codes of each side,
    from one pass streamed as Arrow batches; the records on both sides, on the
    truth's only and on the prediction's only; and the surplus rows of the groups
    with a NULL key (what repeats, when each record of one side only is a group of
    its own: :func:`ereval.engines._dialect.cells_and_lone_records_sql`). ``total``
    is at least the sum of the counts when no record id repeats."""
    # every count and every sum of counts fits the type of the total (the totals are
    # summed from the counts as DuckDB gives them, repeated record ids and all)
    dtype = np.int32 if total < 2**31 else np.int64
    parts: list[npt.NDArray[Any]] = []
    columns = f"{sides[0].select('tc')}, {sides[1].select('pc')}, CAST(n AS BIGINT) AS n"
    both = only_t = only_p = groups_t = groups_p = 0
    # in the order of the truth's clusters: the reductions then read the arrays of
    # the rows in order, where in the order of the join every read missed the cache
    query = f"SELECT {columns} FROM {cells} ORDER BY tc"
    for batch in con.fetch_batches(query, _BATCH):
        n = arrow_to_numpy(batch.column(2))
        no_t, no_p = sides[0].missing(batch.column(0)), sides[1].missing(batch.column(1))
        only_t += int(n[no_p].sum(dtype=np.int64))
        only_p += int(n[no_t].sum(dtype=np.int64))
        groups_t += int(np.count_nonzero(no_p))
        groups_p += int(np.count_nonzero(no_t))
        keep = None
        if no_t.any() or no_p.any():
            keep = ~(no_t | no_p)
            both += int(n[keep].sum(dtype=np.int64))
        else:
            both += int(n.sum(dtype=np.int64))
        if not common_only:
            keep = None
        sides[0].add(batch.column(0), keep)
        sides[1].add(batch.column(1), keep)
        parts.append((n if keep is None else n[keep]).astype(dtype))
    m = sum(part.shape[0] for part in parts)
    counts = _joined(parts, m, dtype)
    (i, k), (j, r) = sides[0].finish(m), sides[1].finish(m)
    return Fetched(
        i, j, counts, k, r, (both, only_t, only_p), (only_t - groups_t, only_p - groups_p)
    )


def _sizes(
    codes: npt.NDArray[Any], counts: npt.NDArray[Any], n_codes: int
) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """Each code's records and the codes, renumbered over the clusters that have some
    when more than a tenth of the codes are unused (codes by offset leave gaps; a
    few unused codes, of size 0, cost less than a pass renumbering every cell);
    ``-1`` stays ``-1``."""
    sizes = np.zeros(n_codes + 1, dtype=counts.dtype)
    for part in chunks(codes.shape[0], SMALL):
        np.add.at(sizes, codes[part] + 1, counts[part])
    sizes = sizes[1:]
    present = sizes > 0
    if np.count_nonzero(present) < _USED * sizes.shape[0]:
        renumber = np.cumsum(present, dtype=np.int64) - 1
        renumber = np.append(renumber, -1).astype(codes.dtype)
        for part in chunks(codes.shape[0]):
            codes[part] = renumber[codes[part]]
        del renumber
        sizes = sizes[present]
    return sizes, codes


def _coded_statistics(
    con: Any, cells: str, policy: MismatchPolicy, both: int, only_t: int, only_p: int
) -> TableStatistics:
    """Every statistic from the groups fetched once as integer codes and counts: one
    pass over chunks of the cells for the per-cell sums and the per-cluster maxima,
    then CEAF (:func:`~ereval._algorithms.aligned_totals`)."""
    with con.lend_memory(only_t + only_p + both):
        total = _int(con.execute(f"SELECT sum(n) FROM {cells}").fetchall()[0][0])
        sides = [_Codes(_bounds(con, cells, key), total) for key in ("tc", "pc")]
        common_only = policy == "intersection"
        got = _fetch(con, cells, sides, total, common_only=common_only)
        return _statistics_of_codes(got, policy, only_t, only_p)


def _statistics_of_codes(
    got: Fetched, policy: MismatchPolicy, only_t: int, only_p: int
) -> TableStatistics:
    """The statistics of the fetched groups ``got`` (``only_t`` and ``only_p`` records
    of the truth's side only and of the prediction's only)."""
    i, j, n, k, r = got.i, got.j, got.n, got.k, got.r
    a, i = _sizes(i, n, k)
    b, j = _sizes(j, n, r)
    k, r = a.shape[0], b.shape[0]  # codes, some of them perhaps unused (size 0)
    rc, cc = a, b  # records on both sides per cluster: the sizes, without twinless groups
    if i.size and (i.min() < 0 or j.min() < 0):  # the groups of twinless records
        keep = (i >= 0) & (j >= 0)
        i, j, n = i[keep], j[keep], n[keep]
        del keep
        rc, cc = _counts(i, n, k), _counts(j, n, r)
    n_common = int(n.sum(dtype=np.int64))
    big_n = float(n_common + only_t + only_p)
    common = None if rc is a else (rc, cc)
    sums, weight_sums = _cell_pass(i, j, n, a, b, big_n, None if common is None else cc)
    ceaf = aligned_totals(i, j, n, a, b, common=(rc, cc), weight_sums=weight_sums)
    del weight_sums
    sys = None
    if common is not None:
        sys = twinless_totals(i, j, n, common, (a > rc, b > cc))
    cells = (i.shape[0], n_common, _sum_squares(n))
    sizes = size_terms(a, b, common, big_n)
    return assembled(sizes, sums, ceaf, cells, policy, only_t, only_p, sys)


@dataclass(frozen=True)
class SizeTerms:
    """What the statistics take from the clusters' sizes alone (:func:`size_terms`)."""

    records: tuple[int, int]
    clusters: tuple[int, int]
    squares: tuple[int, int]
    common_squares: tuple[int, int]
    entropies: tuple[float, float]
    twinless: tuple[float, float]
    shares: tuple[float, float] = (0.0, 0.0)
    extra: tuple[int, int] = (0, 0)
    lone: int = 0


def size_terms(
    a: npt.NDArray[Any],
    b: npt.NDArray[Any],
    common: tuple[npt.NDArray[Any], npt.NDArray[Any]] | None,
    big_n: float,
) -> SizeTerms:
    """The terms of the clusters of ``a`` and ``b`` records (codes some of them
    unused, of size 0), ``common`` on both sides (``None`` when no record is on one
    side only), of ``big_n`` records in all: records, clusters, sums of squares,
    entropies and the twinless records' shares of the conditional entropies; and
    for the twinless variants, each side's ``sum (s - c) / s`` and clusters with a
    record of one side only, and the prediction's clusters of one such record."""
    rc, cc = (a, b) if common is None else common
    sums = SizeTerms(
        records=(int(a.sum(dtype=np.int64)), int(b.sum(dtype=np.int64))),
        clusters=(int(np.count_nonzero(a)), int(np.count_nonzero(b))),
        squares=(_sum_squares(a), _sum_squares(b)),
        common_squares=(_sum_squares(rc), _sum_squares(cc)),
        entropies=(size_entropy(a, big_n), size_entropy(b, big_n)),
        twinless=(0.0, 0.0),
    )
    if common is None:
        return sums
    (twin_t, share_t, extra_t, _), (twin_p, share_p, extra_p, lone) = (
        twin_terms(a, rc, big_n),
        twin_terms(b, cc, big_n),
    )
    return replace(
        sums,
        twinless=(twin_t, twin_p),
        shares=(share_t, share_p),
        extra=(extra_t, extra_p),
        lone=lone,
    )


def assembled(
    sizes: SizeTerms,
    sums: dict[str, float],
    ceaf: tuple[float, float],
    cells: tuple[int, int, int],
    policy: MismatchPolicy,
    only_t: int,
    only_p: int,
    sys: tuple[int, int] | None = None,
) -> TableStatistics:
    """The statistics of a table whose clusters' terms are ``sizes``
    (:func:`size_terms`), with the per-cell ``sums`` of :func:`cell_terms`, CEAF's
    aligned totals ``ceaf``, and ``cells``: the number of cells, their records and
    the sum of the squares of their counts; ``sys`` the alignments of
    :func:`~ereval._algorithms.twinless_totals` when some record is on one side
    only (CEAFm's total otherwise)."""
    twinless = only_t + only_p > 0
    if sys is None:
        sys = (round(ceaf[0]), round(ceaf[0]))
    extra_t, extra_p = sizes.extra
    m, n_common, squares = cells
    n_records = n_common + only_t + only_p
    big_n = float(n_records)
    single = (1.0 / big_n) * math.log(1.0 / big_n) if n_records else 0.0
    (ent_t, ent_p), (twin_t, twin_p) = sizes.entropies, sizes.twinless
    n_t, n_p = sizes.records
    pairs_row, pairs_col = sizes.common_squares
    return TableStatistics(
        policy=policy,
        n_true_records=n_t,
        n_pred_records=n_p,
        n_common=n_common,
        n_true_clusters=sizes.clusters[0],
        n_pred_clusters=sizes.clusters[1],
        n_cells=m,
        pairs_both=_halve(squares - n_common),
        pairs_true=_halve(sizes.squares[0] - n_t),
        pairs_pred=_halve(sizes.squares[1] - n_p),
        pairs_row_common=_halve(pairs_row - n_common),
        pairs_col_common=_halve(pairs_col - n_common),
        exact_matches=int(sums["exact"]),
        b3_recall_sum=sums["b3r"],
        b3_precision_sum=sums["b3p"],
        b3_entity_recall_sum=sums["b3er"],
        b3_entity_precision_sum=sums["b3ep"],
        closest_recall_sum=sums["closest_r"],
        closest_precision_sum=sums["closest_p"],
        lea_recall_sum=sums["lear"] + int(sums["singles"]),
        lea_precision_sum=sums["leap"] + int(sums["singles"]),
        entropy_true=_nonneg(-(ent_t + only_p * single)),
        entropy_pred=_nonneg(-(ent_p + only_t * single)),
        entropy_true_given_pred=_nonneg(-(sums["htp"] + twin_p)),
        entropy_pred_given_true=_nonneg(-(sums["hpt"] + twin_t)),
        ceafm_total=ceaf[0],
        ceafe_total=ceaf[1],
        twinless_pred_singletons=sizes.lone,
        ceaf_sys_precision_total=extra_t + extra_p - sizes.lone + sys[0],
        ceaf_sys_recall_total=extra_t + sys[1],
        b3_twinless_recall_sum=sizes.shares[0],
        b3_twinless_precision_sum=sizes.shares[1],
        b3_common_precision_sum=sums["b0p"] if twinless else sums["b3p"],
    )


#: The per-cell sums of :func:`cell_terms`, by name.
TERMS = ("exact", "singles", "b3r", "b3p", "b3er", "b3ep", "lear", "leap", "htp", "hpt", "b0p")


def cell_terms(
    parts: dict[str, list[float]],
    x: npt.NDArray[Any],
    ai: npt.NDArray[Any],
    bj: npt.NDArray[Any],
    big_n: float,
    cj: npt.NDArray[Any] | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Add the per-cell sums of some cells (``x`` records, in clusters of ``ai`` and
    ``bj`` records, of ``big_n`` in all) to ``parts`` (one list per name of
    :data:`TERMS`): exact matches, B-cubed's, LEA's and the entropies' terms, and
    ``sum x^2 / cj`` when the columns' records on both sides ``cj`` are given (some
    record is on one side only); and return the cells' Jaccard similarities and
    CEAFe weights."""
    parts["exact"].append(int(((x == ai) & (x == bj)).sum()))
    parts["singles"].append(int(((ai == 1) & (bj == 1)).sum()))
    xf, af, bf = x.astype(np.float64), ai.astype(np.float64), bj.astype(np.float64)
    n2 = xf * xf
    parts["b3r"].append(float((n2 / af).sum()))
    parts["b3p"].append(float((n2 / bf).sum()))
    if cj is not None:
        parts["b0p"].append(float((n2 / cj.astype(np.float64)).sum()))
    parts["b3er"].append(float((n2 / (af * af)).sum()))
    parts["b3ep"].append(float((n2 / (af * bf)).sum()))
    # LEA: a cluster's a res / link(a) is the sum of its cells' n (n - 1) / (a - 1)
    pairs = n2 - xf
    parts["lear"].append(float((pairs / np.maximum(af - 1, 1)).sum()))
    parts["leap"].append(float((pairs / np.maximum(bf - 1, 1)).sum()))
    share = xf / big_n
    parts["htp"].append(float((share * np.log(xf / bf)).sum()))
    parts["hpt"].append(float((share * np.log(xf / af)).sum()))
    return xf / (af + bf - xf), ceafe_weights(x, af, bf)  # the sizes converted once


def _cell_pass(
    i: npt.NDArray[Any],
    j: npt.NDArray[Any],
    n: npt.NDArray[Any],
    a: npt.NDArray[Any],
    b: npt.NDArray[Any],
    big_n: float,
    cc: npt.NDArray[Any] | None,
) -> tuple[dict[str, float], tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]:
    """One pass over the cells, in steps small enough for their temporaries to stay in
    cache, each cell's row and column read once (and the columns' records on both
    sides ``cc`` when some record is on one side only): the sums of :func:`cell_terms`, the
    best Jaccard per cluster (summed), and the sums of CEAFe's weights per row and
    per column (for :func:`aligned_totals`)."""
    k, r = a.shape[0], b.shape[0]
    parts: dict[str, list[float]] = {name: [] for name in TERMS}
    best_r, best_c = np.zeros(k), np.zeros(r)
    s4r, s4c = np.zeros(k), np.zeros(r)
    for p in chunks(i.shape[0], SMALL):
        ii, jj = i[p], j[p]
        jac, w4 = cell_terms(parts, n[p], a[ii], b[jj], big_n, None if cc is None else cc[jj])
        np.maximum.at(best_r, ii, jac)
        np.maximum.at(best_c, jj, jac)
        np.add.at(s4r, ii, w4)
        np.add.at(s4c, jj, w4)
    sums = {name: math.fsum(values) for name, values in parts.items()}
    sums["closest_r"] = float(best_r.sum())
    sums["closest_p"] = float(best_c.sum())
    return sums, (s4r, s4c)


def _counts(codes: npt.NDArray[Any], n: npt.NDArray[Any], size: int) -> npt.NDArray[Any]:
    """The counts summed per code (records on both sides per cluster), exact."""
    total = np.zeros(size, dtype=n.dtype)
    for p in chunks(codes.shape[0], SMALL):
        np.add.at(total, codes[p], n[p])
    return total
