"""Every statistic of a table of coded groups too large to hold, in sweeps over it.

Under a memory limit the join's groups ``cells(tc, pc, n)`` may be too many for
their arrays (:data:`~ereval.statistics._stream.CELL_BYTES` a group) while the
arrays of the clusters still fit: 10^8 records give some 3.4 * 10^7 groups and
2.5 * 10^7 clusters a side. When both sides' cluster keys are integer codes (by
offset, :class:`~ereval.statistics._sql._Codes`), the table is read in sweeps,
each keeping per-cluster arrays and never all the groups:

0. every group once: each cluster's size (records on one side only included),
   and its records on both sides when some record is on one side only; the
   terms of the sizes alone are taken, then the arrays narrowed to a byte a
   cluster (:class:`~ereval.statistics._compact.ByteCounts`), and a byte of flags
   a cluster made, which tells the clusters holding a record of one side only;
1. the cells by ranges of columns: the per-cell sums
   (:func:`~ereval.statistics._sql.cell_terms`), each column's best Jaccard
   (summed per range) and the sums of CEAFe's weights per column (kept rounded
   up to float32, which only makes the test of step 2 stricter);
2. the cells by ranges of rows, each range read twice: each row's best Jaccard
   and sum of CEAFe's weights, then the cells heavier than the rest of their
   row and column (:func:`~ereval._algorithms.aligned_totals`'s test, on the
   same sums) fixed, and the rows and columns holding one marked; when some
   record is on one side only, CEAF_sys's two weights are fixed in the same
   step (:func:`~ereval._algorithms.fix_twinless`, two more bits of the flags);
3. every cell once more: those of rows and columns holding no fixed cell are
   aligned exactly (:func:`~ereval._algorithms.align_cells`), for each weight.

A range is sized so that its arrays fit what the per-cluster arrays leave of the
budget; each sweep is a scan of the table filtered by range. The results are
those of the in-memory reductions: integers exactly, floats to the order of
their sums.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._algorithms import (
    PRECISION_BIT,
    RECALL_BIT,
    align_cells,
    ceafe_weights,
    dominance_margin,
    fix_dominant,
    fix_twinless,
    undecided_weights,
)
from ..io import MismatchPolicy, arrow_to_numpy
from . import TableStatistics
from ._compact import ByteCounts, rounded_up
from ._sizes import SMALL, chunks
from ._sql import TERMS, SizeTerms, _sum_squares, assembled, cell_terms, size_terms

__all__ = ["first_bytes", "kept_bytes", "numbered_cells", "swept_fits", "swept_statistics"]

#: Bytes a row of a range of rows takes (its best Jaccard and sum of CEAFe's weights).
ROW_BYTES = 16
#: Bytes a column of a range of columns takes (its best Jaccard and sum of CEAFe's
#: weights, before they are rounded up into the array kept).
COLUMN_BYTES = 16
#: The most ranges of rows (of columns) the sweeps read the table in.
MOST_RANGES = 16
#: The least memory a range is given.
LEAST_REST = 16 << 20
#: The bit of a row's flags when it holds a record of one side only (the bits of
#: the fixed cells are those of :func:`~ereval._algorithms.fix_dominant` and
#: :func:`~ereval._algorithms.fix_twinless`).
ROW_EXTRA = 16
#: The same for a column.
COLUMN_EXTRA = 32
#: Rows per Arrow record batch read.
_BATCH = 1 << 18
#: Bytes kept aside for a batch read (two codes and a count a group, the counts
#: converted) and the temporaries of its steps.
BATCH_BYTES = 16 << 20


def kept_bytes(spans: tuple[int, int], total: int, *, twinless: bool) -> int:
    """Bytes of the arrays the sweeps keep past sweep 0 for sides of ``spans`` codes
    and ``total`` records in all (``twinless`` when some record is on one side
    only): per row its size (:class:`~ereval.statistics._compact.ByteCounts`) and a
    flag; per column its size, a flag and its sum of CEAFe's weights (float32); per
    cluster its records on both sides too when ``twinless``; and the buffers of a
    batch."""
    item = int(np.dtype(_count_dtype(total)).itemsize)
    counts = 2 if twinless else 1
    sizes = sum(ByteCounts.most_bytes(span, total, item) for span in spans) * counts
    return sizes + spans[0] + spans[1] * 5 + BATCH_BYTES


def first_bytes(spans: tuple[int, int], total: int, *, twinless: bool) -> int:
    """Bytes of sweep 0's arrays (the sizes at full width, and the records on both
    sides too when ``twinless``), with one side's narrowed copy and a batch's."""
    item = int(np.dtype(_count_dtype(total)).itemsize)
    full = (spans[0] + spans[1]) * item * (2 if twinless else 1)
    return full + ByteCounts.most_bytes(max(spans), total, item) + BATCH_BYTES


def swept_fits(budget: int, spans: tuple[int, int], total: int, *, twinless: bool) -> bool:
    """Whether the sweeps of sides of ``spans`` codes (``total`` and ``twinless`` as for
    :func:`kept_bytes`) fit ``budget`` bytes: sweep 0 (:func:`first_bytes`), then the
    ranges in at most :data:`MOST_RANGES` of rows and of columns (more would scan
    the table too many times), with at least :data:`LEAST_REST` bytes for a range."""
    rest = budget - kept_bytes(spans, total, twinless=twinless)
    need = max(ROW_BYTES * spans[0], COLUMN_BYTES * spans[1]) // MOST_RANGES
    first = first_bytes(spans, total, twinless=twinless)
    return first <= budget and rest >= max(LEAST_REST, need)


def numbered_cells(
    con: Any, cells: str, spans: tuple[int | None, int | None]
) -> tuple[str, tuple[int, int]]:
    """The table of groups ``cells(tc, pc, n)`` with the keys of each side whose span
    is ``None`` (keys that are not codes: text, sparse integers) numbered ``0..``
    by DuckDB, in the order it meets them (a table of the side's distinct keys,
    joined once); its name and the spans of its codes."""
    m = int(con.execute(f"SELECT count(*) FROM {cells}").fetchall()[0][0])
    kind = "INTEGER" if m < 2**31 - 1 else "BIGINT"
    columns, joins, out, made = [], [], [], []
    for key, span in zip(("tc", "pc"), spans, strict=True):
        if span is not None:
            columns.append(f"c.{key}")
            out.append(span)
            continue
        keys = f"{key}_keys"
        made.append(keys)
        con.execute(
            f"CREATE TEMP TABLE {keys} AS SELECT k, CAST(row_number() OVER () - 1 AS {kind}) "
            f"AS code FROM (SELECT DISTINCT {key} AS k FROM {cells} WHERE {key} IS NOT NULL)"
        )
        out.append(int(con.execute(f"SELECT count(*) FROM {keys}").fetchall()[0][0]))
        columns.append(f"{keys}.code AS {key}")
        joins.append(f"LEFT JOIN {keys} ON c.{key} = {keys}.k")
    con.execute(
        f"CREATE TEMP TABLE numbered_cells AS SELECT {', '.join(columns)}, c.n "
        f"FROM {cells} AS c {' '.join(joins)}"
    )
    for keys in made:
        con.execute(f"DROP TABLE {keys}")
    return "numbered_cells", (out[0], out[1])


def _count_dtype(total: int) -> Any:
    return np.int32 if total < 2**31 else np.int64


@dataclass
class _Sides:
    """What sweep 0 gives: the sizes ``a`` and ``b`` (records on one side only
    included) and the records on both sides per cluster (the sizes again when every
    record is on both), held a byte each; the terms of the sizes; and the cells'
    totals."""

    a: ByteCounts
    b: ByteCounts
    common: tuple[ByteCounts, ByteCounts]
    terms: SizeTerms
    m: int
    n_common: int
    squares: int


def swept_statistics(
    con: Any,
    cells: str,
    spans: tuple[int, int],
    policy: MismatchPolicy,
    totals: tuple[int, int, int],
    budget: int,
) -> TableStatistics:
    """Every statistic of the table ``cells(tc, pc, n)`` of the DuckDB connection
    ``con``, whose keys are codes below ``spans`` (NULL for the records of one side
    only), from the sweeps of the module within ``budget`` bytes. ``totals`` are
    the records on both sides, on the truth's only and on the prediction's only
    (the latter two 0 under ``policy="intersection"``, whose groups of a NULL key
    are then left out); the sweeps fit ``budget`` (:func:`swept_fits`)."""
    _, only_t, only_p = totals
    dtype = _count_dtype(sum(totals))
    twinless = only_t + only_p > 0
    rest = budget - kept_bytes(spans, sum(totals), twinless=twinless)
    sides = _sizes(con, cells, spans, dtype, (only_t, only_p))
    a, b = sides.a, sides.b
    rc, cc = sides.common
    big_n = float(sides.n_common + only_t + only_p)
    parts: dict[str, list[float]] = {name: [] for name in TERMS}
    best: list[float] = []
    s4c = np.zeros(spans[1], dtype=np.float32)  # rounded up: a stricter test, still exact
    for lo, hi in _even_ranges(spans[1], max(1, rest // COLUMN_BYTES)):
        best_c, sums_c = np.zeros(hi - lo), np.zeros(hi - lo)
        for ii, jj, x in _cells(con, cells, "pc", (lo, hi), dtype):
            jac, w4 = cell_terms(parts, x, a[ii], b[jj], big_n, cc[jj] if twinless else None)
            np.maximum.at(best_c, jj - lo, jac)
            np.add.at(sums_c, jj - lo, w4)
        best.append(float(best_c.sum()))
        del best_c
        s4c[lo:hi] = rounded_up(sums_c)
        del sums_c
    sums = {name: math.fsum(values) for name, values in parts.items()}
    sums["closest_p"] = math.fsum(best)
    margin = 1.0 + dominance_margin(max(a.top, b.top))
    done = [_flags(a, rc, ROW_EXTRA), _flags(b, cc, COLUMN_EXTRA)]
    best, fixed3, fixed4, fixed_sys = [], [], [], [(0, 0)]
    for lo, hi in _even_ranges(spans[0], max(1, rest // ROW_BYTES)):
        best_r, s4r = np.zeros(hi - lo), np.zeros(hi - lo)
        for ii, jj, x in _cells(con, cells, "tc", (lo, hi), dtype):
            af, bf, xf = a[ii].astype(np.float64), b[jj].astype(np.float64), x.astype(np.float64)
            np.maximum.at(best_r, ii - lo, xf / (af + bf - xf))
            np.add.at(s4r, ii - lo, ceafe_weights(x, af, bf))
        best.append(float(best_r.sum()))
        del best_r
        for ii, jj, x in _cells(con, cells, "tc", (lo, hi), dtype):  # the range again
            ai, bj = a[ii], b[jj]
            w = ceafe_weights(x, ai, bj)
            ri, cj = (ai, bj) if rc is a else (rc[ii], cc[jj])
            sums3 = ri.astype(np.int64) + cj
            f3, f4 = fix_dominant(x, w, (sums3, s4r[ii - lo] + s4c[jj]), margin, (ii, jj), done)
            fixed3.append(f3)
            fixed4.append(f4)
            if twinless:
                fixed_sys.append(fix_twinless(x, sums3, (ai > ri, bj > cj), (ii, jj), done))
        del s4r
    sums["closest_r"] = math.fsum(best)
    del s4c
    fixed = (sum(fixed3), math.fsum(fixed4), *(sum(f) for f in zip(*fixed_sys, strict=True)))
    ceaf, sys = _undecided(con, cells, spans, done, (a, b), dtype, fixed, twinless=twinless)
    counts = (sides.m, sides.n_common, sides.squares)
    return assembled(
        sides.terms, sums, ceaf, counts, policy, only_t, only_p, sys if twinless else None
    )


def _flags(sizes: ByteCounts, common: ByteCounts, extra: int) -> npt.NDArray[np.uint8]:
    """The flags of the clusters of a side: ``extra`` for those holding a record of
    one side only (their ``sizes`` beyond their records on both sides, ``common``),
    the bits of the fixed cells added by the sweeps."""
    flags = np.zeros(sizes.small.shape[0], dtype=np.uint8)
    if common is not sizes:
        for p in chunks(flags.shape[0], SMALL):
            at = np.arange(p.start, p.stop)
            flags[p] = (sizes[at] > common[at]) * np.uint8(extra)
    return flags


def _batches(con: Any, query: str) -> Iterator[list[npt.NDArray[Any]]]:
    for batch in con.fetch_batches(query, _BATCH):
        yield [arrow_to_numpy(batch.column(c)) for c in range(batch.num_columns)]


def _select(cells: str, where: str = "tc IS NOT NULL AND pc IS NOT NULL") -> str:
    return f"SELECT tc, pc, CAST(n AS BIGINT) AS n FROM {cells} WHERE {where}"


def _sizes(
    con: Any, cells: str, spans: tuple[int, int], dtype: Any, only: tuple[int, int]
) -> _Sides:
    """Sweep 0 over every group (those of a NULL key only for the sizes, and only
    when some record is on one side only: ``only`` on the truth's, the
    prediction's); the sizes' terms taken, then their arrays narrowed."""
    k, r = spans
    twinless = sum(only) > 0
    a, b = np.zeros(k, dtype=dtype), np.zeros(r, dtype=dtype)
    common = (np.zeros(k, dtype=dtype), np.zeros(r, dtype=dtype)) if twinless else None
    m = n_common = squares = 0
    where = "tc IS NOT NULL OR pc IS NOT NULL" if twinless else "tc IS NOT NULL AND pc IS NOT NULL"
    query = (
        f"SELECT coalesce(tc, -1) AS tc, coalesce(pc, -1) AS pc, CAST(n AS BIGINT) AS n "
        f"FROM {cells} WHERE {where}"
    )
    for i, j, n in _batches(con, query):
        x = n.astype(dtype)
        if common is None:  # every group has both keys
            np.add.at(a, i, x)
            np.add.at(b, j, x)
        else:
            some_t, some_p = i >= 0, j >= 0
            np.add.at(a, i[some_t], x[some_t])
            np.add.at(b, j[some_p], x[some_p])
            both = some_t & some_p
            i, j, x, n = i[both], j[both], x[both], n[both]
            np.add.at(common[0], i, x)
            np.add.at(common[1], j, x)
        m += int(n.shape[0])
        n_common += int(n.sum())
        squares += _sum_squares(n)  # the counts as read, 64-bit: no copy to square
    terms = size_terms(a, b, common, float(n_common + sum(only)))
    a_bytes = ByteCounts(a, dtype)
    del a
    b_bytes = ByteCounts(b, dtype)
    del b
    if common is None:
        both_sides = (a_bytes, b_bytes)
    else:
        rc = ByteCounts(common[0], dtype)
        both_sides = (rc, ByteCounts(common[1], dtype))
    del common
    return _Sides(a_bytes, b_bytes, both_sides, terms, m, n_common, squares)


def _cells(
    con: Any, cells: str, key: str, bounds: tuple[int, int], dtype: Any
) -> Iterator[tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]]:
    """The cells whose ``key`` lies in ``bounds``, in steps of :data:`SMALL`."""
    lo, hi = bounds
    query = _select(cells, f"{key} >= {lo} AND {key} < {hi} AND tc IS NOT NULL AND pc IS NOT NULL")
    for i, j, n in _batches(con, query):
        x = n.astype(dtype)
        for p in chunks(i.shape[0], SMALL):
            yield i[p], j[p], x[p]


def _even_ranges(span: int, width: int) -> list[tuple[int, int]]:
    """``[0, span)`` in ranges of at most ``width`` codes, of about the same width."""
    count = max(1, math.ceil(span / width))
    step = math.ceil(span / count) if span else 1
    return [(lo, min(lo + step, span)) for lo in range(0, max(span, 1), step)]


def _undecided(
    con: Any,
    cells: str,
    spans: tuple[int, int],
    done: list[npt.NDArray[np.uint8]],
    sizes: tuple[ByteCounts, ByteCounts],
    dtype: Any,
    fixed: tuple[float, ...],
    *,
    twinless: bool,
) -> tuple[tuple[float, float], tuple[int, int]]:
    """CEAFm's and CEAFe's totals, and when some record is on one side only
    (``twinless``) those of
    :func:`~ereval._algorithms.twinless_totals`: the ``fixed`` cells' and the exact
    alignment of the cells of rows and columns holding no fixed cell (sweep 3),
    whose clusters' ``sizes`` give CEAFe's weights and whose flags ``done`` tell
    which hold a record of one side only; the flags are emptied once read."""
    a, b = sizes
    bits = (1, 2, PRECISION_BIT, RECALL_BIT) if twinless else (1, 2)
    left: list[list[list[npt.NDArray[Any]]]] = [[[], [], []] for _ in bits]
    for ii, jj, x in _cells(con, cells, "tc", (0, spans[0]), dtype):
        flags = done[0][ii] | done[1][jj]
        extra = ((flags & ROW_EXTRA) != 0, (flags & COLUMN_EXTRA) != 0) if twinless else None
        for t, bit in enumerate(bits):
            if extra is None or t < 2:
                keep, w = (flags & bit) == 0, x
            else:
                keep, weights = undecided_weights(x, extra, flags, bit)
                w = weights.astype(x.dtype)
            if keep.any():
                for got, values in zip(left[t], (ii, jj, w), strict=True):
                    got.append(values[keep])
    done.clear()  # the flags are read: their memory goes to the alignment
    totals = [float(f) for f in fixed]
    for t in range(len(bits)):
        if not left[t][0]:
            continue
        rows, cols, x = (_joined(got) for got in left[t])
        weights = ceafe_weights(x, a[rows], b[cols]) if t == 1 else x.astype(np.float64)
        del x
        totals[t] += align_cells(rows, cols, weights, spans[0], spans[1])
        del rows, cols, weights
    if not twinless:
        return (totals[0], totals[1]), (0, 0)
    return (totals[0], totals[1]), (round(totals[2]), round(totals[3]))


def _joined(parts: list[npt.NDArray[Any]]) -> npt.NDArray[Any]:
    """The ``parts`` in one array, the list emptied (its arrays freed as it goes)."""
    out = np.concatenate(parts)
    parts.clear()
    return out
