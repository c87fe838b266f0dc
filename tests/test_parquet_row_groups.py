"""Parquet files of many row groups read into one chunk per column, exactly as written:
every type, nulls in some row groups only, a subset of the columns in any order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ereval.contingency import contingency_table
from ereval.io import read_arrow

N = 1000


def _table() -> pa.Table:
    rng = np.random.default_rng(0)
    floats = rng.random(N) * 1e6
    return pa.table(
        {
            "i8": pa.array(rng.integers(-128, 128, N).astype(np.int8)),
            "i32": pa.array(np.arange(N, dtype=np.int32) - 500),
            "u64": pa.array(np.arange(N, dtype=np.uint64) * np.uint64(2**60 // N)),
            "i64": pa.array(rng.permutation(N).astype(np.int64) * 7 + 2**40),
            "f32": pa.array(floats.astype(np.float32)),
            "f64": pa.array(floats),
            # nulls in the fifth and ninth row group only
            "nullable": pa.array([None if i in (450, 870) else i for i in range(N)], pa.int64()),
            "text": pa.array([f"r{i:04d}" if i % 7 else f"0{i}" for i in range(N)]),
            "flag": pa.array([i % 3 == 0 for i in range(N)]),
            "day": pa.array(np.arange(N).astype("datetime64[D]")),
        }
    )


@pytest.mark.parametrize("row_group_size", [N, 100, 37])
def test_every_column_reads_back_equal_in_one_chunk(tmp_path: Path, row_group_size: int) -> None:
    table = _table()
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, row_group_size=row_group_size)
    got = read_arrow(path)
    assert got.schema == table.schema
    assert got.equals(table)
    assert all(column.num_chunks == 1 for column in got.columns)


def test_a_subset_of_columns_in_another_order(tmp_path: Path) -> None:
    table = _table()
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, row_group_size=64)
    got = read_arrow(path, columns=["nullable", "i64", "text"])
    assert got.column_names == ["nullable", "i64", "text"]
    assert got.equals(table.select(["nullable", "i64", "text"]))
    assert got.column("nullable").null_count == 2


def test_an_empty_file_and_a_file_of_empty_row_groups(tmp_path: Path) -> None:
    table = _table().slice(0, 0)
    path = tmp_path / "empty.parquet"
    pq.write_table(table, path)
    assert read_arrow(path).equals(table)
    with pq.ParquetWriter(tmp_path / "groups.parquet", _table().schema) as writer:
        writer.write_table(_table().slice(0, 10))
        writer.write_table(_table().slice(10, 0))
        writer.write_table(_table().slice(10, 5))
    assert read_arrow(tmp_path / "groups.parquet").equals(_table().slice(0, 15))


def test_the_table_of_many_row_groups_is_that_of_one(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    records = rng.permutation(5000).astype(np.int64) * 3
    truth = pa.table({"record_id": records, "cluster_id": rng.integers(0, 900, 5000)})
    order = rng.permutation(5000)
    pred = pa.table({"record_id": records[order], "cluster_id": rng.integers(0, 900, 5000)[order]})
    tables = []
    for size in (5000, 128):
        pq.write_table(truth, tmp_path / f"t{size}.parquet", row_group_size=size)
        pq.write_table(pred, tmp_path / f"p{size}.parquet", row_group_size=size)
        tables.append(
            contingency_table(tmp_path / f"t{size}.parquet", tmp_path / f"p{size}.parquet")
        )
    one, many = tables
    for field in ("rows", "cols", "counts", "true_sizes", "pred_sizes"):
        assert np.array_equal(getattr(one, field), getattr(many, field))
