"""The true clusters with the most misplaced records: the same ranking in memory and
on DuckDB, and both as a count by hand says."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval.engines import DuckDBEngine
from ereval.io import as_membership
from ereval.metrics._worst_sql import BLOCK_ROWS
from ereval.report._worst import worst_ranking


def _brute(truth: dict[Any, Any], pred: dict[Any, Any]) -> dict[str, Any]:
    """Counts and misplaced records per true cluster, record by record."""
    members: dict[Any, list[Any]] = defaultdict(list)
    for r, c in truth.items():
        members[c].append(r)
    pred_members: dict[Any, list[Any]] = defaultdict(list)
    for r, c in pred.items():
        pred_members[c].append(r)
    out: dict[Any, tuple[int, int, int]] = {}
    n_error = n_over = n_under = 0
    for c, rs in members.items():
        pieces = Counter(pred[r] for r in rs)
        split_off = len(rs) - max(pieces.values())
        foreign = sum(sum(truth[x] != c for x in pred_members[q]) for q in pieces)
        over, under = foreign > 0, len(pieces) > 1
        n_over += over
        n_under += under
        if over or under:
            n_error += 1
            out[c] = (split_off, foreign, len(rs))
    return {"clusters": len(members), "error": n_error, "over": n_over, "under": n_under, "by": out}


def _inputs(engine: Any, *frames: pd.DataFrame) -> list[Any]:
    """The clusterings as each engine takes them: memberships, or Arrow tables."""
    if engine == "numpy":
        return [as_membership(f) for f in frames]
    return [pa.Table.from_pandas(f, preserve_index=False) for f in frames]


def _data(seed: int, n: int, text: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    sizes = rng.zipf(1.6, n) % 9 + 1
    true_cluster = np.repeat(np.arange(sizes.shape[0]), sizes)[:n]
    pred_cluster = true_cluster.copy()
    moved = rng.random(n) < 0.25
    pred_cluster[moved] = rng.integers(0, max(n // 3, 1), int(moved.sum()))
    ids = rng.permutation(n) * 7 + 3
    if text:
        records = np.array([f"r{'x' * (k % 5)}{k}" for k in ids], dtype=object)
        true_ids = np.array([f"t{c}" for c in true_cluster], dtype=object)
    else:
        records, true_ids = ids, true_cluster * 10
    truth = pd.DataFrame({"record_id": records, "cluster_id": true_ids})
    pred = pd.DataFrame({"record_id": records, "cluster_id": pred_cluster})
    return truth, pred.sample(frac=1.0, random_state=seed).reset_index(drop=True)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(1, 160),
    text=st.booleans(),
    rank=st.sampled_from([1, 3, 100]),
)
def test_the_ranking_on_duckdb_is_the_ranking_in_memory(
    seed: int, n: int, text: bool, rank: int
) -> None:
    truth, pred = _data(seed, n, text)
    mem = worst_ranking("numpy", *_inputs("numpy", truth, pred), rank=rank)
    duck = DuckDBEngine(passes=2)
    sql = worst_ranking(duck, *_inputs(duck, truth, pred), rank=rank)
    brute = _brute(
        dict(zip(truth["record_id"], truth["cluster_id"], strict=True)),
        dict(zip(pred["record_id"], pred["cluster_id"], strict=True)),
    )
    for got in (mem, sql):
        assert (got.n_clusters, got.with_error, got.over, got.under) == (
            brute["clusters"],
            brute["error"],
            brute["over"],
            brute["under"],
        )
        # the order by hand: most misplaced, then largest, then smallest id
        order = sorted(brute["by"], key=lambda c: (-sum(brute["by"][c][:2]), -brute["by"][c][2], c))
        assert got.ranked["cluster_id"].tolist() == order[:rank]
        for row in got.ranked.itertuples(index=False):
            split_off, foreign, size = brute["by"][row.cluster_id]
            assert (row.split_off, row.foreign, row.misplaced, row.size) == (
                split_off,
                foreign,
                split_off + foreign,
                size,
            )
    # (an empty frame's text column may come back as object or as str)
    pd.testing.assert_frame_equal(
        sql.ranked, mem.ranked, check_exact=True, check_dtype=not mem.ranked.empty
    )
    key = ["record_id", "pred_cluster", "true_cluster"]
    assert sorted(map(tuple, sql.shown[key].astype(str).to_numpy().tolist())) == sorted(
        map(tuple, mem.shown[key].astype(str).to_numpy().tolist())
    )
    key = ["pred_cluster", "true_cluster", "records"]
    assert sorted(map(tuple, sql.groups[key].astype(str).to_numpy().tolist())) == sorted(
        map(tuple, mem.groups[key].astype(str).to_numpy().tolist())
    )


@pytest.mark.parametrize("engine", ["numpy", DuckDBEngine(passes=3)])
def test_large_clusters_come_back_as_counts_and_their_first_records(engine: Any) -> None:
    """Pairs of a predicted and a true cluster of more than BLOCK_ROWS records come
    back as their count and their first BLOCK_ROWS records in the order of their ids
    as text (``'100' < '99'``), however large."""
    n = 400
    ids = np.arange(5, 5 + n)
    true_cluster = np.where(ids % 4 == 0, 1, 2)  # two true clusters of 100 and 300
    pred_cluster = np.where(ids < 150, 7, 8)  # each split across two predictions
    truth = pd.DataFrame({"record_id": ids, "cluster_id": true_cluster})
    pred = pd.DataFrame({"record_id": ids, "cluster_id": pred_cluster}).iloc[::-1]
    got = worst_ranking(engine, *_inputs(engine, truth, pred), rank=5)
    pairs = pd.DataFrame({"p": pred_cluster, "t": true_cluster, "r": ids})
    want_groups = {(p, t): len(g) for (p, t), g in pairs.groupby(["p", "t"])}
    have_groups = {
        (int(p), int(t)): int(r)
        for p, t, r in got.groups[["pred_cluster", "true_cluster", "records"]].to_numpy()
    }
    assert have_groups == want_groups
    for (p, t), g in pairs.groupby(["p", "t"]):
        first = sorted(g["r"].astype(str))[:BLOCK_ROWS]
        mine = got.shown[(got.shown["pred_cluster"] == p) & (got.shown["true_cluster"] == t)]
        assert sorted(mine["record_id"].astype(str)) == first
    assert len(got.shown) == BLOCK_ROWS * len(want_groups)


def test_ties_in_misplaced_records_and_size_go_to_the_smallest_id() -> None:
    """Twelve 2-record entities each split in two (1 misplaced, size 2): the first
    three by id, whatever the order of the rows."""
    records = [f"r{k:02d}" for k in range(24)]
    names = [f"e{k // 2:02d}" for k in range(24)]
    truth = pd.DataFrame({"record_id": records, "cluster_id": names}).iloc[::-1]
    pred = pd.DataFrame({"record_id": records, "cluster_id": range(24)})
    for engine in ("numpy", DuckDBEngine()):
        got = worst_ranking(engine, *_inputs(engine, truth, pred), rank=3)
        assert got.ranked["cluster_id"].tolist() == ["e00", "e01", "e02"]
        assert got.ranked["misplaced"].tolist() == [1, 1, 1]
        assert sorted(got.shown["record_id"]) == records[:6]


@pytest.mark.parametrize("engine", ["numpy", DuckDBEngine()])
def test_a_perfect_prediction_has_no_cluster_to_show(engine: Any) -> None:
    truth = pd.DataFrame({"record_id": [1, 2, 3], "cluster_id": ["a", "a", "b"]})
    got = worst_ranking(engine, *_inputs(engine, truth, truth), rank=10)
    assert (got.n_clusters, got.with_error, got.over, got.under) == (2, 0, 0, 0)
    assert got.ranked.empty and got.shown.empty


@settings(max_examples=60, deadline=None)
@given(
    values=st.one_of(
        st.lists(st.integers(-(2**63), 2**63 - 1), unique=True, max_size=60),
        st.lists(st.integers(-120, 120), unique=True, max_size=60),
        st.lists(st.text(max_size=6), unique=True, max_size=40),
    )
)
def test_ids_are_ordered_as_their_text(values: list[Any]) -> None:
    """The first records of a pair are the first by their ids as text, as a page
    sorts them: for integers without text (``'-1' < '-10' < '0' < '10' < '9'``)."""
    from ereval.metrics._worst_sql import _text_order

    dtype = np.int64 if values and isinstance(values[0], int) else object
    ids = pd.Series(np.array(values, dtype=dtype))
    got = ids.iloc[_text_order(ids)].tolist()
    assert got == sorted(values, key=str)
