"""The DuckDB engine's statistics straight from its join, with no table of groups.

The full outer join of the two sides on the record key, grouped by the pair of
cluster keys (:func:`ereval.engines._dialect.cells_sql`), runs once: its groups stream
out of DuckDB's GROUP BY as Arrow record batches into the compact NumPy arrays of
:mod:`ereval.statistics._sql` (the cluster keys as integer codes, by offset
from the smallest key of the side's view for integers, computed before the join
so that it groups narrower keys, and the counts), which its reductions take as
they are. The same stream gives the records on both sides and
on one side only (the groups of a NULL key), from which the checks of
:func:`ereval.statistics._cells.check_totals` decide whether a record id repeats or
the sides cover different records; only then do the detailed queries over the
sides run.

Writing the groups to a table first (spilled to disk under a memory limit) and
reading it twice would cost more than the join itself at 10^8 records.

Under a memory limit the join runs in passes into the table ``cells`` first
(:func:`ereval.engines._plan.planned_cells`). Its groups are then streamed into
NumPy when their arrays fit in the limit (about :data:`CELL_BYTES` per group,
DuckDB's own memory being lent to them meanwhile). Otherwise, when the clusters'
arrays fit, the table is read in sweeps that hold per-cluster arrays only
(:func:`ereval.statistics._swept.swept_statistics`; cluster keys that are not
codes by offset are numbered first); failing that, every
statistic is computed by DuckDB's aggregate statements over the table
(:func:`ereval.statistics._sql.sql_table_statistics`, several times the CPU,
within the limit), so that a limit holds however many groups the join has.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engines import _dialect as sql
from ..engines._plan import planned_cells
from ..engines._repeats import key_repeats
from ..engines._sources import hashed_keys, joined_sides
from ..io import MismatchPolicy
from . import TableStatistics
from ._cells import check_totals, checked_totals
from ._sql import _bounds, _Codes, _fetch, _statistics_of_codes, sql_table_statistics
from ._swept import numbered_cells, swept_fits, swept_statistics

__all__ = ["CELL_BYTES", "statistics_within", "streamed_statistics"]

#: Peak bytes per group of the reductions in NumPy (codes and counts, 12 bytes; the
#: copies of the fetch; the per-cluster arrays, a cluster having at least one
#: group): measured at 7 * 10^6 groups, with a margin.
CELL_BYTES = 48


def streamed_statistics(
    con: Any,
    views: tuple[str, str],
    rows: tuple[int, int],
    policy: MismatchPolicy,
    *,
    checked: Callable[[], None] | None = None,
    passes: int = 1,
) -> TableStatistics:
    """Every statistic of the table of the views ``(truth, pred)`` (of ``rows`` rows,
    with the columns ``r`` and ``c`` of :func:`ereval.engines._dialect.side_sql`) of the
    DuckDB connection ``con``, from their join streamed once; ``checked`` is called
    once the groups are in and checked, before the reductions. With ``passes`` > 1
    the groups are computed in that many passes over the records first
    (:func:`ereval.engines._plan.planned_cells`), then streamed from their table.

    Raises the errors of :func:`ereval.statistics._cells.check_totals` (repeated record
    ids, records of one side only under ``policy="error"``, no record in common
    under ``policy="intersection"``).

    Examples
    --------
    >>> from ereval.engines import DuckDBDatabase, DuckDBEngine
    >>> con = DuckDBDatabase(DuckDBEngine())
    >>> _ = con.execute("CREATE VIEW t AS SELECT * FROM (VALUES (1, 10), (2, 10), (3, 11)) v(r, c)")
    >>> _ = con.execute("CREATE VIEW p AS SELECT * FROM (VALUES (1, 5), (2, 6), (3, 6)) v(r, c)")
    >>> stats = streamed_statistics(con, ("t", "p"), (3, 3), "error")
    >>> stats.n_cells, stats.pairs_true, stats.pairs_pred, stats.pairs_both
    (3, 1, 1, 0)
    """
    most = rows[0] + rows[1]  # records, and groups, once no record id repeats
    sides = [_Codes(_bounds(con, view, "c"), most) for view in views]
    common_only = policy == "intersection"
    joined = joined_sides(con, views)
    coded = (sides[0].coded(joined[0]), sides[1].coded(joined[1]))
    lone_records = passes == 1 and rows[0] != rows[1]  # some record is on one side only
    # their repeats looked for by flags over each side's integer keys, else by grouping
    # each on its own
    alone = key_repeats(con, joined, rows, sort=False) if lone_records else None
    lone_records = lone_records and alone is None
    hashed = lone_records and hashed_keys(con, joined[0])
    if passes > 1:
        cells, alone = planned_cells(con, coded, passes)
        budget = con.memory_bytes()
        m = int(con.execute(f"SELECT count(*) FROM {cells}").fetchall()[0][0])
        if budget is not None and m * CELL_BYTES > budget:
            limits = (budget, alone)
            return _beyond_the_limit(con, cells, views, rows, policy, checked, sides, limits)
    elif lone_records:  # each a group of its own: their repeats seen without a second join
        cells = f"({sql.cells_and_lone_records_sql(*coded, hashed=hashed)})"
    else:
        cells = f"({sql.cells_sql(*coded)})"
    got = _fetch(con, cells, sides, most, common_only=common_only)
    if hashed and any(got.surplus):  # a repeat, or two keys of one hash: grouped by the keys
        cells = f"({sql.cells_and_lone_records_sql(*coded)})"
        got = _fetch(con, cells, sides, most, common_only=common_only)
    if lone_records:
        alone = got.surplus
    _, only_t, only_p = check_totals(con, views, rows, got.totals, policy, alone=alone)
    if checked is not None:
        checked()
    if common_only:
        only_t = only_p = 0
    # the query is over, but DuckDB's allocator keeps much of what it used
    with con.lend_memory(most):
        return _statistics_of_codes(got, policy, only_t, only_p)


def _beyond_the_limit(
    con: Any,
    cells: str,
    views: tuple[str, str],
    rows: tuple[int, int],
    policy: MismatchPolicy,
    checked: Callable[[], None] | None,
    sides: list[_Codes],
    limits: tuple[int, tuple[int, int]],
) -> TableStatistics:
    """Every statistic of the groups of the table ``cells``, too many for their arrays
    to fit ``budget`` bytes (``limits``: it, and the repeats of the records of one
    side only that the passes counted), once the totals are checked: in sweeps over
    the table (:func:`ereval.statistics._swept.swept_statistics`) when the clusters'
    arrays fit (the keys that are not codes by offset numbered first,
    :func:`ereval.statistics._swept.numbered_cells`), else by aggregate statements."""
    budget, alone = limits
    both, only_t, only_p = checked_totals(con, cells, views, rows, policy, alone=alone)
    if checked is not None:
        checked()
    if policy == "intersection":
        only_t = only_p = 0
    return _swept_or_aggregated(con, cells, sides, policy, (both, only_t, only_p), budget)


def statistics_within(
    con: Any, cells: str, policy: MismatchPolicy, totals: tuple[int, int, int], budget: int | None
) -> TableStatistics:
    """Every statistic of the groups of the table ``cells`` (cluster keys ``tc`` and
    ``pc``, counts ``n``; ``totals``: the records on both sides, on the truth's only
    and on the prediction's only) within ``budget`` bytes: fetched once as codes
    when they fit (:data:`CELL_BYTES` a group), else in sweeps over the table, else
    by aggregate statements."""
    m, most = con.execute(f"SELECT count(*), sum(n) FROM {cells}").fetchall()[0]
    most = int(most or 0)  # every record, of one side only too
    sides = [_Codes(_bounds(con, cells, key), most) for key in ("tc", "pc")]
    if budget is None or int(m) * CELL_BYTES <= budget:
        with con.lend_memory(most):
            got = _fetch(con, cells, sides, most, common_only=policy == "intersection")
            return _statistics_of_codes(got, policy, totals[1], totals[2])
    return _swept_or_aggregated(con, cells, sides, policy, totals, budget)


def _swept_or_aggregated(
    con: Any,
    cells: str,
    sides: list[_Codes],
    policy: MismatchPolicy,
    totals: tuple[int, int, int],
    budget: int,
) -> TableStatistics:
    """The statistics of the groups of ``cells``, too many for their arrays to fit
    ``budget`` bytes: in sweeps when the clusters' arrays fit, else by aggregates."""
    both, only_t, only_p = totals
    twinless = only_t + only_p > 0
    keys, numbered = (_span(sides[0]), _span(sides[1])), None
    if keys[0] is not None and keys[1] is not None:
        spans = (keys[0], keys[1])
    elif _may_fit(con, cells, sides, budget, sum(totals), twinless=twinless):
        numbered, spans = numbered_cells(con, cells, keys)  # keys that are not codes
    else:
        return sql_table_statistics(con, cells, policy, both, only_t, only_p)
    try:
        if swept_fits(budget, spans, sum(totals), twinless=twinless):
            with con.lend_memory(sum(totals)):
                read = cells if numbered is None else numbered
                return swept_statistics(con, read, spans, policy, totals, budget)
    finally:  # a numbered copy goes once read, or when it does not fit
        if numbered is not None:
            con.execute(f"DROP TABLE {numbered}")
    return sql_table_statistics(con, cells, policy, both, only_t, only_p)


def _span(side: _Codes) -> int | None:
    return side.span if side.lo is not None else None


def _may_fit(
    con: Any, cells: str, sides: list[_Codes], budget: int, total: int, *, twinless: bool
) -> bool:
    """Whether the sweeps may fit once the keys that are not codes are numbered, from
    DuckDB's estimate of each side's distinct keys (HyperLogLog, within a few
    percent) less a tenth: a cheap scan that spares the numbering where even that
    many codes would not fit."""
    guess = con.execute(
        f"SELECT approx_count_distinct(tc), approx_count_distinct(pc) FROM {cells}"
    ).fetchall()[0]
    spans = [
        side.span if side.lo is not None else int(0.9 * int(count or 0))
        for side, count in zip(sides, guess, strict=True)
    ]
    return swept_fits(budget, (spans[0], spans[1]), total, twinless=twinless)
