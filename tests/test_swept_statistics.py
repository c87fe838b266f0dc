"""The statistics read in sweeps over a table of coded groups
(:mod:`ereval.statistics._swept`) are those of the same table in memory, whatever
the widths of the ranges of rows and columns."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval.engines import DuckDBDatabase, DuckDBEngine
from ereval.statistics import FLOAT_STATISTICS, INTEGER_STATISTICS, _swept, statistics_of
from ereval.statistics._cells import table_from_codes


@st.composite
def groups(draw: Any) -> tuple[pd.DataFrame, tuple[int, int]]:
    """Groups ``(tc, pc, n)`` of a join: distinct pairs of codes, some clusters
    unused, skewed or flat, and perhaps groups of records on one side only."""
    k = draw(st.integers(1, 40))
    r = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    m = draw(st.integers(1, 120))
    skew = draw(st.sampled_from(["flat", "one large row", "one large column"]))
    i = rng.integers(0, k, size=m)
    j = rng.integers(0, r, size=m)
    if skew == "one large row":
        i[: m // 2] = 0
    elif skew == "one large column":
        j[: m // 2] = r - 1
    cells = pd.DataFrame({"tc": i, "pc": j}).drop_duplicates()
    cells["n"] = rng.integers(1, 6, size=len(cells)) ** draw(st.integers(1, 3))
    frames = [cells.astype({"tc": "Int32", "pc": "Int32", "n": "int64"})]
    if draw(st.booleans()):  # records of one side only (the groups of a NULL key)
        for side, span in (("tc", k), ("pc", r)):
            codes = np.unique(rng.integers(0, span, size=draw(st.integers(0, 5))))
            lone = pd.DataFrame({side: codes, "n": rng.integers(1, 4, size=codes.size)})
            other = "pc" if side == "tc" else "tc"
            lone[other] = pd.NA
            frames.append(lone.astype({"tc": "Int32", "pc": "Int32", "n": "int64"}))
    return pd.concat(frames, ignore_index=True)[["tc", "pc", "n"]], (k, r)


@settings(max_examples=60, deadline=None)
@given(
    data=groups(),
    widths=st.tuples(st.integers(1, 45), st.integers(1, 45)),
    policy=st.sampled_from(["twinless", "intersection"]),
)
def test_sweeps_give_the_table_statistics(
    data: tuple[pd.DataFrame, tuple[int, int]], widths: tuple[int, int], policy: str
) -> None:
    frame, spans = data
    i = frame["tc"].fillna(-1).to_numpy(dtype=np.int64)
    j = frame["pc"].fillna(-1).to_numpy(dtype=np.int64)
    n = frame["n"].to_numpy(dtype=np.int64)
    if policy == "intersection":  # the groups of a NULL key are left out
        keep = (i >= 0) & (j >= 0)
        i, j, n = i[keep], j[keep], n[keep]
    # the table in memory numbers the clusters that have records only
    dense_i, dense_j = (_dense(codes) for codes in (i, j))
    ref = statistics_of(table_from_codes(dense_i, dense_j, n, "twinless"))
    both = int(n[(i >= 0) & (j >= 0)].sum())
    only_t, only_p = int(n[j < 0].sum()), int(n[i < 0].sum())
    con = _with_cells(frame)
    rest = 10**6
    totals = (both, only_t, only_p)
    budget = _swept.kept_bytes(spans, sum(totals), twinless=only_t + only_p > 0) + rest
    with pytest.MonkeyPatch.context() as patch:  # ranges of ``widths`` codes
        patch.setattr(_swept, "ROW_BYTES", rest // widths[0])
        patch.setattr(_swept, "COLUMN_BYTES", rest // widths[1])
        got = _swept.swept_statistics(con, "cells", spans, policy, totals, budget)  # type: ignore[arg-type]
    for field in INTEGER_STATISTICS:
        if field != "policy":
            assert getattr(got, field) == getattr(ref, field), field
    for field in FLOAT_STATISTICS:
        want, have = getattr(ref, field), getattr(got, field)
        assert math.isclose(have, want, rel_tol=1e-12, abs_tol=1e-12), field


def test_sweeps_align_cells_of_clusters_with_records_of_one_side_only() -> None:
    """Two true clusters of two records in each of two predicted ones, the first
    with a record of the truth's side only: no cell is heavier than the rest of its
    row and column, so sweep 3 aligns them all. For CEAF_sys the first row's
    weights are ``n - 1 = 1``: one aligned cell of each row gives 1 + 2, and the
    row with a record of one side only adds 1 (its singleton)."""
    frame = pd.DataFrame(
        {"tc": [0, 0, 1, 1, 0], "pc": [0, 1, 0, 1, None], "n": [2, 2, 2, 2, 1]}
    ).astype({"tc": "Int32", "pc": "Int32", "n": "int64"})
    con = _with_cells(frame)
    totals = (8, 1, 0)
    budget = _swept.kept_bytes((2, 2), 9, twinless=True) + 10**6
    got = _swept.swept_statistics(con, "cells", (2, 2), "twinless", totals, budget)
    assert (got.ceaf_sys_precision_total, got.ceaf_sys_recall_total) == (4, 4)
    assert got.ceafm_total == 4.0  # one cell of 2 a row


@pytest.mark.parametrize("row_bytes", [16, 10**6])
def test_the_sums_of_the_rows_decide_an_alignment_in_sweeps(row_bytes: int) -> None:
    """A table whose CEAFe alignment the rows' sums of weights decide: with half those
    sums a cell of the second row would be fixed, and CEAFe's total be 1.758...
    instead of 1.225. With 16 bytes a row the rows are read in one range; with a
    million, a range a row."""
    i, j, n = [1, 0, 1, 1, 0], [1, 1, 0, 2, 0], [2, 5, 2, 3, 4]
    frame = pd.DataFrame({"tc": i, "pc": j, "n": n}).astype(
        {"tc": "Int32", "pc": "Int32", "n": "int64"}
    )
    ref = statistics_of(table_from_codes(np.array(i), np.array(j), np.array(n), "twinless"))
    assert math.isclose(ref.ceafe_total, 1.225, rel_tol=1e-12)
    con = _with_cells(frame)
    budget = _swept.kept_bytes((2, 3), 18, twinless=False) + 10**6
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_swept, "ROW_BYTES", row_bytes)
        got = _swept.swept_statistics(con, "cells", (2, 3), "twinless", (18, 0, 0), budget)
    assert math.isclose(got.ceafe_total, ref.ceafe_total, rel_tol=1e-12)
    assert got.closest_recall_sum == ref.closest_recall_sum


def _with_cells(frame: pd.DataFrame) -> DuckDBDatabase:
    """A DuckDB connection holding ``frame`` as the table ``cells``."""
    con = DuckDBDatabase(DuckDBEngine())
    con.push("frame", frame)
    con.execute("CREATE TEMP TABLE cells AS SELECT * FROM frame")
    return con


def _dense(codes: np.ndarray) -> np.ndarray:
    """The codes numbered 0.. over those used, ``-1`` kept."""
    used = np.unique(codes[codes >= 0])
    return np.where(codes >= 0, np.searchsorted(used, codes), -1)


def test_ranges_cover_every_code_once() -> None:
    for span in (0, 1, 7, 100, 101):
        for width in (1, 3, 50, 200):
            ranges = _swept._even_ranges(span, width)
            covered = [c for lo, hi in ranges for c in range(lo, hi)]
            assert covered == list(range(span))
            assert all(hi - lo <= width for lo, hi in ranges)


def test_sweeps_fit_only_in_few_ranges() -> None:
    spans, total = (10**6, 2 * 10**6), 10**7
    kept = _swept.kept_bytes(spans, total, twinless=False)
    # a byte a size, 8 bytes a block of 64 sizes (and two), 4 bytes for each of at
    # most total // 192 wide sizes a side, a byte of flags a cluster, and a float32
    # sum of weights per column
    wide = min(10**6, total // 192) * 4
    rows = 10**6 + (10**6 // 64 + 2) * 8 + wide
    cols = 2 * 10**6 + (2 * 10**6 // 64 + 2) * 8 + wide
    assert kept == rows + cols + 10**6 + 2 * 10**6 * 5 + _swept.BATCH_BYTES
    assert _swept.kept_bytes(spans, 2**31, twinless=True) > kept  # wider counts, twice
    least = kept + _swept.LEAST_REST
    assert _swept.swept_fits(least, spans, total, twinless=False)
    assert not _swept.swept_fits(least - 1, spans, total, twinless=False)
    # a hundred times the columns: the ranges of columns would be more than MOST_RANGES
    many = (10**6, 2 * 10**8)
    kept = _swept.kept_bytes(many, total, twinless=False)
    need = _swept.COLUMN_BYTES * many[1] // _swept.MOST_RANGES
    assert not _swept.swept_fits(kept + need - 1, many, total, twinless=False)
    assert _swept.swept_fits(kept + need, many, total, twinless=False)


def test_sweep_zero_holds_the_sizes_at_full_width() -> None:
    """Before the sizes are narrowed, sweep 0 holds them (and the records on both
    sides when some record is on one side only) at 4 bytes a cluster: with twinless
    records that can take more than the later sweeps and their ranges."""
    spans, total = (10**7, 10**7), 10**8
    kept = _swept.kept_bytes(spans, total, twinless=True)
    need = _swept.ROW_BYTES * spans[0] // _swept.MOST_RANGES
    first = _swept.first_bytes(spans, total, twinless=True)
    narrowed = 10**7 + (10**7 // 64 + 2) * 8 + (total // 192) * 4
    assert first == 4 * 4 * 10**7 + narrowed + _swept.BATCH_BYTES
    assert first > kept + need
    assert not _swept.swept_fits(first - 1, spans, total, twinless=True)
    assert _swept.swept_fits(first, spans, total, twinless=True)
