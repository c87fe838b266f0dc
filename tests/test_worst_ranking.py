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


def _brute_blocks(
    truth: dict[Any, Any], pred: dict[Any, Any], ranked: list[Any]
) -> tuple[dict[Any, tuple[int, int, Any]], set[tuple[Any, Any]], dict[Any, list[Any]]]:
    """Each ranked cluster's block, record by record: its predicted clusters' number,
    their records and the largest (the smallest id among equals); the pairs of a
    cluster and a predicted cluster holding records of another ranked cluster too; and
    the first BLOCK_ROWS record ids shown (own first, then by predicted cluster, then
    by id as text)."""
    pred_members: dict[Any, list[Any]] = defaultdict(list)
    for r, c in pred.items():
        pred_members[c].append(r)
    blocks, shown = {}, {}
    holders: dict[Any, set[Any]] = defaultdict(set)
    for c in ranked:
        pieces = Counter(pred[r] for r, t in truth.items() if t == c and r in pred)
        for q in pieces:
            holders[q].add(c)
        main = min(pieces, key=lambda q: (-pieces[q], q))
        blocks[c] = (len(pieces), sum(len(pred_members[q]) for q in pieces), main)
        near = [(truth.get(r) != c, q, str(r), r) for q in pieces for r in pred_members[q]]
        shown[c] = [r for *_, r in sorted(near)[:BLOCK_ROWS]]
    overlaps = {(c, q) for q, cs in holders.items() if len(cs) > 1 for c in cs}
    return blocks, overlaps, shown


def _check_blocks(got: Any, truth: pd.DataFrame, pred: pd.DataFrame) -> None:
    ranked = got.ranked["cluster_id"].tolist()
    blocks, overlaps, shown = _brute_blocks(
        dict(zip(truth["record_id"], truth["cluster_id"], strict=True)),
        dict(zip(pred["record_id"], pred["cluster_id"], strict=True)),
        ranked,
    )
    have = {
        c: (int(k), int(r), m)
        for c, k, r, m in got.blocks[["cluster_id", "pieces", "records", "main"]].to_numpy()
    }
    assert have == blocks
    assert set(map(tuple, got.overlaps.to_numpy().tolist())) == overlaps
    for c in ranked:
        assert got.shown.loc[got.shown["cluster_id"] == c, "record_id"].tolist() == shown[c]
    assert set(got.shown["cluster_id"]) == set(ranked)


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
        _check_blocks(got, truth, pred)
    # (an empty frame's text column may come back as object or as str)
    pd.testing.assert_frame_equal(
        sql.ranked, mem.ranked, check_exact=True, check_dtype=not mem.ranked.empty
    )
    for frame in ("blocks", "overlaps", "shown"):
        have, want = getattr(sql, frame), getattr(mem, frame)
        assert sorted(map(tuple, have.astype(str).to_numpy().tolist())) == sorted(
            map(tuple, want.astype(str).to_numpy().tolist())
        ), frame


@pytest.mark.parametrize("engine", ["numpy", DuckDBEngine(passes=3)])
def test_large_clusters_come_back_as_counts_and_their_first_records(engine: Any) -> None:
    """A block of more than BLOCK_ROWS records comes back as its count and its first
    BLOCK_ROWS records: the cluster's own first, in the order of their predicted
    cluster, then of their ids as text (``'100' < '99'``), however large."""
    n = 400
    ids = np.arange(5, 5 + n)
    true_cluster = np.where(ids % 4 == 0, 1, 2)  # two true clusters of 100 and 300
    pred_cluster = np.where(ids < 150, 7, 8)  # each split across two predictions
    truth = pd.DataFrame({"record_id": ids, "cluster_id": true_cluster})
    pred = pd.DataFrame({"record_id": ids, "cluster_id": pred_cluster}).iloc[::-1]
    got = worst_ranking(engine, *_inputs(engine, truth, pred), rank=5)
    assert got.blocks[["cluster_id", "pieces", "records"]].to_numpy().tolist() == [
        [1, 2, n],
        [2, 2, n],
    ]
    for c in (1, 2):
        mine = ids[true_cluster == c]
        first = sorted(mine[mine < 150].astype(str))[:BLOCK_ROWS]
        have = got.shown.loc[got.shown["cluster_id"] == c, "record_id"]
        assert have.astype(str).tolist() == first
    assert len(got.shown) == 2 * BLOCK_ROWS
    _check_blocks(got, truth, pred)


@pytest.mark.parametrize("engine", ["numpy", DuckDBEngine(passes=2)])
def test_a_cluster_spread_over_many_predicted_clusters_shows_its_first(
    engine: Any,
) -> None:
    """A cluster whose records are spread over 500 predicted clusters of 40 records
    each: its block counts them all, and shows its own records in the first of them;
    a small cluster shows the other records of its predicted cluster after its own."""
    spread = 500
    records = np.arange(spread * 40)
    pred_cluster = records // 40
    # one record of each predicted cluster is -1's, the others an entity's of their own
    true_cluster = np.where(records % 40 == 0, -1, 1000 + pred_cluster)
    true_cluster[1:4] = -2  # but a small cluster of three in predicted cluster 0
    truth = pd.DataFrame({"record_id": records, "cluster_id": true_cluster})
    pred = pd.DataFrame({"record_id": records, "cluster_id": pred_cluster})
    got = worst_ranking(engine, *_inputs(engine, truth, pred), rank=3)
    assert got.ranked["cluster_id"].tolist() == [-1, -2, 1000]
    block = got.blocks.set_index("cluster_id")
    assert (block.at[-1, "pieces"], block.at[-1, "records"]) == (spread, spread * 40)
    assert (block.at[-2, "pieces"], block.at[-2, "records"]) == (1, 40)
    assert got.shown.loc[got.shown["cluster_id"] == -1, "record_id"].tolist() == [
        40 * k for k in range(BLOCK_ROWS)
    ]
    small = got.shown.loc[got.shown["cluster_id"] == -2, "record_id"].tolist()
    assert small == [1, 2, 3, 0, *sorted(range(4, 40), key=str)[: BLOCK_ROWS - 4]]
    assert set(map(tuple, got.overlaps.to_numpy().tolist())) == {(-1, 0), (-2, 0), (1000, 0)}
    _check_blocks(got, truth, pred)


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
        _check_blocks(got, truth, pred)


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


@pytest.mark.parametrize("engine", ["numpy", DuckDBEngine(passes=2)])
def test_shown_ids_stay_as_written_where_the_truth_lacks_a_record(engine: Any) -> None:
    """Integer cluster ids beyond 2^53 come back exactly, and a record the truth lacks
    has no true cluster (None), not NaN in a column of floats."""
    big = 2**62
    truth = pd.DataFrame({"record_id": [1, 2, 3, 4], "cluster_id": [big + 1] * 2 + [big + 3] * 2})
    pred = pd.DataFrame({"record_id": [1, 2, 3, 4, 5], "cluster_id": [big + 7] * 3 + [big + 9] * 2})
    got = worst_ranking(engine, *_inputs(engine, truth, pred), rank=5, on_mismatch="intersection")
    assert got.ranked["cluster_id"].tolist() == [big + 3, big + 1]
    rows = got.shown[got.shown["cluster_id"] == big + 3]
    assert rows["record_id"].tolist() == [3, 4, 1, 2, 5]
    assert rows["true_cluster"].tolist() == [big + 3, big + 3, big + 1, big + 1, None]
    assert rows["pred_cluster"].tolist() == [big + 7, big + 9, big + 7, big + 7, big + 9]
    assert got.blocks.set_index("cluster_id").at[big + 3, "main"] == big + 7
