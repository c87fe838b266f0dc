"""The DuckDB engine's statistics, from the groups of the join streamed as integer codes:
the same as in memory whatever the chunking, the kind of cluster key (integers by
offset, with a few unused codes or many, or too sparse for offsets; text) and the mismatch policy; the
aggregate-only SQL path agrees; DuckDB's memory limit is set back after it was lent."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval.engines import DuckDBDatabase, DuckDBEngine, NumpyEngine
from ereval.engines import _dialect as sql
from ereval.engines import _duckdb as duckdb_engine
from ereval.statistics import FLOAT_STATISTICS, INTEGER_STATISTICS, compute_table, table_statistics
from ereval.statistics import _sizes as size_terms
from ereval.statistics import _sql as duckdb_stats


def _frames(keys: str, policy: str, seed: int = 3) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n, k = 400, 90
    truth = rng.integers(0, k, size=n)
    pred = truth.copy()
    moved = rng.random(n) < 0.3
    pred[moved] = rng.integers(0, k, size=int(moved.sum()))
    pred[:40] = 7  # one larger predicted cluster: stars and shared rows
    ids = rng.permutation(n) * 5 + 2
    t_keys: Any = truth * 10 + 3 if keys == "gaps" else truth
    p_keys: Any = pred
    if keys == "few-gaps":  # two unused codes of 90 on each side: kept, of size 0
        t_keys, p_keys = np.where(truth == 5, 6, truth), np.where(pred == 11, 12, pred)
    if keys == "sparse":
        t_keys, p_keys = truth * 10**12, pred * 7 * 10**11 - 5
    elif keys == "text":
        t_keys, p_keys = [f"t{v}" for v in truth], [f"p{v}" for v in pred]
    t = pd.DataFrame({"record_id": ids, "cluster_id": t_keys})
    order = rng.permutation(n)
    p = pd.DataFrame({"record_id": ids[order], "cluster_id": np.asarray(p_keys)[order]})
    if policy != "error":
        t, p = t.iloc[:380].reset_index(drop=True), p.iloc[25:].reset_index(drop=True)
    return t, p


def _cells(con: Any, t: pd.DataFrame, p: pd.DataFrame, policy: str) -> tuple[int, int, int]:
    con.push("tf", t)
    con.push("pf", p)
    side = "(SELECT record_id AS r, cluster_id AS c FROM {})"
    con.execute("CREATE TEMP TABLE cells AS " + sql.cells_sql(side.format("tf"), side.format("pf")))
    both, only_t, only_p = (
        int(v or 0)
        for v in con.execute(
            "SELECT sum(n) FILTER (WHERE tc IS NOT NULL AND pc IS NOT NULL), "
            "sum(n) FILTER (WHERE pc IS NULL), sum(n) FILTER (WHERE tc IS NULL) FROM cells"
        ).fetchall()[0]
    )
    return (both, 0, 0) if policy == "intersection" else (both, only_t, only_p)


def _same(got: Any, expected: Any) -> None:
    for name in INTEGER_STATISTICS:
        value = getattr(got, name)
        assert isinstance(value, int) and value == getattr(expected, name), name
    for name in FLOAT_STATISTICS:
        a, b = getattr(got, name), getattr(expected, name)
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), (name, a, b)


@pytest.mark.parametrize("keys", ["dense", "few-gaps", "gaps", "sparse", "text"])
@pytest.mark.parametrize("policy", ["error", "intersection", "twinless"])
def test_coded_statistics_match_memory_in_small_chunks(
    monkeypatch: pytest.MonkeyPatch, keys: str, policy: str
) -> None:
    monkeypatch.setattr(duckdb_stats, "SMALL", 7)
    monkeypatch.setattr(size_terms, "SMALL", 7)
    monkeypatch.setattr(duckdb_stats, "CHUNK", 13)
    monkeypatch.setattr(duckdb_stats, "_BATCH", 50)
    monkeypatch.setattr(duckdb_engine, "LEND_FROM", 0)
    t, p = _frames(keys, policy)
    reference = table_statistics(compute_table(NumpyEngine(), t, p, on_mismatch=policy))
    con = DuckDBDatabase(DuckDBEngine())
    con.execute("SET memory_limit = '300MB'")
    before = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    counts = _cells(con, t, p, policy)
    got = duckdb_stats.duckdb_table_statistics(con, "cells", policy, *counts)  # type: ignore[arg-type]
    _same(got, reference)
    # the limit lent to NumPy is set back (DuckDB shows it to 0.1 MiB)
    after = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    assert before.endswith(" MiB") and after.endswith(" MiB")
    assert abs(float(after[:-4]) - float(before[:-4])) <= 0.11
    # the aggregate statements alone (another dialect's path) agree
    _same(duckdb_stats.sql_table_statistics(con, "cells", policy, *counts), reference)  # type: ignore[arg-type]


@pytest.mark.parametrize("key_type", ["VARCHAR", "BIGINT"])
def test_no_group_at_all(key_type: str) -> None:
    got = []
    for compute in (duckdb_stats.duckdb_table_statistics, duckdb_stats.sql_table_statistics):
        con = DuckDBDatabase(DuckDBEngine())
        con.execute(f"CREATE TABLE cells (tc {key_type}, pc {key_type}, n BIGINT)")
        got.append(compute(con, "cells", "error", 0, 0, 0))
    assert got[0].n_cells == got[0].n_true_clusters == got[0].pairs_both == 0
    _same(got[0], got[1])


@pytest.mark.filterwarnings("ignore::ereval.io._align.IdenticalColumnsWarning")
@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(1, 150),
    k=st.integers(1, 40),
    moved=st.sampled_from([0.0, 0.2, 0.6, 1.0]),
)
def test_ceaf_sys_in_aggregate_statements_is_the_alignment_in_memory(
    seed: int, n: int, k: int, moved: float
) -> None:
    """CEAF_sys's totals as the aggregate statements find them (the cells alone in
    their row and column and the fixed cells summed in the engine, the undecided
    ones aligned in memory) against the rewritten table aligned in memory, on tables
    of ties, of records of one side only and of clusters shared every way."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, size=n)
    pred = np.where(rng.random(n) < moved, rng.integers(0, k, size=n), truth)
    ids = np.arange(n)
    t = pd.DataFrame({"record_id": ids, "cluster_id": truth})
    p = pd.DataFrame({"record_id": ids, "cluster_id": pred})
    t, p = t[rng.random(n) < 0.85], p[rng.random(n) < 0.85]
    if len(t) == 0 or len(p) == 0 or not set(t["record_id"]) & set(p["record_id"]):
        return
    reference = table_statistics(compute_table(NumpyEngine(), t, p, on_mismatch="twinless"))
    con = DuckDBDatabase(DuckDBEngine())
    counts = _cells(con, t.reset_index(drop=True), p.reset_index(drop=True), "twinless")
    got = duckdb_stats.sql_table_statistics(con, "cells", "twinless", *counts)  # type: ignore[arg-type]
    for name in ("ceaf_sys_precision_total", "ceaf_sys_recall_total"):
        assert getattr(got, name) == getattr(reference, name), name
