"""Parquet files of many row groups read into one chunk per column, exactly as written:
every type, nulls in some row groups only, a subset of the columns in any order."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


TEXT_KINDS = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    values=st.lists(
        st.one_of(st.none(), st.text(max_size=12), st.sampled_from(["a", "bb", ""])),
        min_size=1,
        max_size=300,
    ),
    kind=st.sampled_from(TEXT_KINDS),
    row_group_size=st.integers(1, 64),
    dictionary=st.booleans(),
)
def test_text_columns_of_many_row_groups_read_back_exactly(
    tmp_path_factory: pytest.TempPathFactory,
    values: list[str | None],
    kind: pa.DataType,
    row_group_size: int,
    dictionary: bool,
) -> None:
    """Text and binary columns, with or without nulls, in row groups of any size, their
    pages plain or a dictionary's (which hold fewer bytes than the text: the buffer
    grows): the same values, type and nulls as pyarrow's own reader, in one chunk."""
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        column = pa.array([None if v is None else v.encode() for v in values], kind)
    else:
        column = pa.array(values, kind)
    table = pa.table({"id": column, "n": pa.array(np.arange(len(values)))})
    path = tmp_path_factory.mktemp("text") / "t.parquet"
    pq.write_table(table, path, row_group_size=row_group_size, use_dictionary=dictionary)
    got = read_arrow(path)
    assert got.schema == table.schema
    assert got.equals(pq.read_table(path))
    assert got.column("id").num_chunks == 1
    got.validate(full=True)


def test_text_past_its_encoded_size_grows_its_buffer(tmp_path: Path) -> None:
    """Ids repeated many times: a dictionary's pages encode far fewer bytes than the
    text holds, so the bytes' buffer, sized from them, grows (several times)."""
    ids = pa.array([f"cluster-{i % 3:040d}" for i in range(20_000)])
    table = pa.table({"id": ids})
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, row_group_size=1000, use_dictionary=True)
    metadata = pq.ParquetFile(path).metadata
    encoded = sum(metadata.row_group(g).column(0).total_uncompressed_size for g in range(20))
    text_bytes = sum(len(v) for v in ids.to_pylist())
    assert encoded * 4 < text_bytes  # the premise: the buffer must grow twice or more
    got = read_arrow(path)
    assert got.equals(table) and got.column("id").num_chunks == 1


def test_text_past_the_reach_of_its_offsets_is_kept_in_pieces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the bytes 32-bit offsets reach (2 GiB; 100 bytes here), the rest of the
    column is kept as Arrow's pieces and joined as Arrow joins them."""
    from ereval.io import _files

    monkeypatch.setattr(_files, "NARROW_REACH", 100)
    joined: list[int] = []
    concat = pa.concat_arrays

    def spy(arrays: list[pa.Array]) -> pa.Array:
        joined.append(len(arrays))
        return concat(arrays)

    monkeypatch.setattr(pa, "concat_arrays", spy)
    table = pa.table({"id": pa.array([f"id-{i:05d}" for i in range(200)])})
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, row_group_size=7)
    got = read_arrow(path)
    assert got.equals(table) and got.column("id").num_chunks == 1
    # 29 row groups of 7 ids of 8 bytes: the first copied (56 bytes; two would pass 100),
    # the other 28 kept as they came
    assert joined == [1 + 28]
    got.validate(full=True)


def test_the_parts_of_one_input_are_read_as_one_table(tmp_path: Path) -> None:
    """Parts typed alike (several row groups each, nulls in one) join into one chunk per
    column, the same table as the parts one after the other; parts typed differently
    are promoted as before (integers and floats to floats)."""
    table = _table()
    folder = tmp_path / "parts"
    folder.mkdir()
    bounds = [0, 130, 131, 600, N]
    for k, (start, stop) in enumerate(itertools.pairwise(bounds)):
        part = table.slice(start, stop - start)
        pq.write_table(part, folder / f"part-{k}.parquet", row_group_size=64)
    got = read_arrow(folder)
    assert got.equals(table)
    assert all(column.num_chunks == 1 for column in got.columns)
    assert read_arrow(folder, columns=["text", "i8"]).equals(table.select(["text", "i8"]))
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64())}), mixed / "a.parquet")
    pq.write_table(pa.table({"id": pa.array([2.5], pa.float64())}), mixed / "b.parquet")
    assert read_arrow(mixed).column("id").to_pylist() == [1.0, 2.0, 2.5]
