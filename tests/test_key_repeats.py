"""Repeated record keys of each side read in NumPy (:mod:`ereval.engines._repeats`):
integers by one flag per key of their span, or sorted where the span is too wide,
other keys by their hashes sorted. The same answer as a set of the keys, for every
integer type DuckDB gives NumPy, at the ends of each type's range, and for text;
``None``, before any key is read, where a NULL integer key or the memory left to
DuckDB rules them out."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval.engines import DuckDBDatabase, DuckDBEngine, _repeats
from ereval.engines._repeats import SPAN_PER_ROW, Flags, has_neighbours, key_repeats

#: Each Arrow integer type and the least and greatest value it holds.
TYPES = {
    name: (kind, int(np.iinfo(name).min), int(np.iinfo(name).max))
    for name, kind in [
        ("int8", pa.int8()),
        ("int16", pa.int16()),
        ("int32", pa.int32()),
        ("int64", pa.int64()),
        ("uint8", pa.uint8()),
        ("uint16", pa.uint16()),
        ("uint32", pa.uint32()),
        ("uint64", pa.uint64()),
    ]
}


def _flagged(
    t: list[int | None], p: list[int | None], kind: pa.DataType, engine: DuckDBEngine | None = None
) -> tuple[int, int] | None:
    con = DuckDBDatabase(engine or DuckDBEngine())
    for name, keys in (("t", t), ("p", p)):
        con.push(f"{name}_keys", pa.table({"r": pa.array(keys, type=kind)}))
    return key_repeats(con, ("t_keys", "p_keys"), (len(t), len(p)))


@st.composite
def _keys(draw: st.DrawFn) -> tuple[str, list[int], list[int]]:
    """A type, and two sides of keys of it within a narrow span at one end of its
    range, or about zero, some repeated."""
    name = draw(st.sampled_from(sorted(TYPES)))
    _, least, most = TYPES[name]
    width = draw(st.integers(1, 60))
    where = draw(st.sampled_from(["least", "most", "zero"]))
    lo = {"least": least, "most": most - width + 1, "zero": max(least, -(width // 2))}[where]
    side = st.lists(st.integers(lo, lo + width - 1), min_size=1, max_size=width)
    t, p = draw(side), draw(side)
    return name, t, p


@given(_keys())
@settings(max_examples=200, deadline=None)
def test_repeats_are_those_of_a_set(case: tuple[str, list[int], list[int]]) -> None:
    # flags where a side's span is within SPAN_PER_ROW flags a row of the two sides,
    # else the keys sorted: told by spying on both
    name, t, p = case
    ways: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        for way in ("_flagged", "_sorted"):
            read = getattr(_repeats, way)
            patch.setattr(_repeats, way, lambda *a, _r=read, _w=way: ways.append(_w) or _r(*a))
        got = _flagged(list(t), list(p), TYPES[name][0])
    assert got == tuple(int(len(set(keys)) != len(keys)) for keys in (t, p))
    most = SPAN_PER_ROW * (len(t) + len(p))
    expected = ["_flagged" if max(k) - min(k) < most else "_sorted" for k in (t, p)]
    assert ways == expected


def test_far_apart_keys_at_both_ends_of_64_bits() -> None:
    # keys of the two ends of int64 (and of uint64) are too far apart for flags, while
    # keys near one end flag exactly
    lo, hi = -(2**63), 2**63 - 1
    assert _flagged([lo, hi], [0], pa.int64()) == (0, 0)
    assert _flagged([lo, hi, lo], [hi, 0, 0], pa.int64()) == (1, 1)
    with pytest.MonkeyPatch.context() as patch:  # sorted as they are, not by a hash
        patch.setattr(_repeats, "KEY_HASH", "hash(r) % 1")
        assert _flagged([lo, hi], [hi, 0], pa.int64()) == (0, 0)
        assert _flagged(["a", "b"], ["c"], pa.string()) == (1, 0)
    assert _flagged([lo, lo + 1, lo + 1], [hi, hi - 1], pa.int64()) == (1, 0)
    top = 2**64 - 1
    assert _flagged([top, top - 2], [top - 1, top - 1], pa.uint64()) == (0, 1)


def test_flags_set_across_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    # a key repeated in another batch of the stream, and no repeat at all
    con = DuckDBDatabase(DuckDBEngine())
    batches = con.fetch_batches

    monkeypatch.setattr(con, "fetch_batches", lambda query: batches(query, rows=3))
    keys = list(range(100, 130))
    for name, side in (("t", [*keys, 101]), ("p", keys[::-1])):
        con.push(name, pa.table({"r": pa.array(side, type=pa.int64())}))
    assert key_repeats(con, ("t", "p"), (31, 30)) == (1, 0)


@given(
    st.lists(st.text(max_size=4), min_size=1, max_size=30),
    st.lists(st.text(max_size=4), max_size=30),
)
@settings(max_examples=100, deadline=None)
def test_repeats_of_text_are_those_of_a_set(t: list[str], p: list[str]) -> None:
    # distinct texts of one hash would read as a repeat; at 30 keys of 64 bits that
    # has a chance of some 10^-17
    got = _flagged(list(t), list(p), pa.string())
    assert got == tuple(int(len(set(keys)) != len(keys)) for keys in (t, p))


@pytest.mark.parametrize(
    ("t", "p", "kind", "sort"),
    [
        ([1, None], [1], pa.int64(), True),  # a NULL integer key, on either side
        ([1], [None, 2, 3], pa.int64(), True),
        ([1, 2], [1, 17], pa.int64(), False),  # a span past 4 flags a row, not sorted
        (["a", "b"], ["a"], pa.string(), False),  # text, not sorted
    ],
)
def test_where_the_keys_are_not_read(
    t: list[object], p: list[object], kind: pa.DataType, sort: bool
) -> None:
    # left to the grouping, before any key is read
    con = DuckDBDatabase(DuckDBEngine())
    con.push("t", pa.table({"r": pa.array(t, type=kind)}))
    con.push("p", pa.table({"r": pa.array(p, type=kind)}))
    streamed: list[str] = []
    con.fetch_batches = streamed.append  # type: ignore[assignment,method-assign]
    assert key_repeats(con, ("t", "p"), (len(t), len(p)), sort=sort) is None
    assert streamed == []
    if not sort:  # sorted, they are read
        del con.fetch_batches
        assert key_repeats(con, ("t", "p"), (len(t), len(p))) == (0, 0)


@pytest.mark.parametrize("kind", [pa.int64(), pa.string()])
def test_keys_beyond_the_memory_left_to_duckdb(
    monkeypatch: pytest.MonkeyPatch, kind: pa.DataType
) -> None:
    # flags (a byte a key of the span), or sorted hashes (8 bytes a row), of more than
    # half the memory left to DuckDB are not made, and the records are grouped instead;
    # within it, they are made while DuckDB's limit is lowered by their bytes
    n = 500_000
    keys = pa.array(range(0, 2 * n, 2)).cast(kind)  # a span of 2 * n - 1
    con = DuckDBDatabase(DuckDBEngine(memory_limit="1GB"))
    held: list[int] = []
    hold = con.hold_memory
    monkeypatch.setattr(con, "hold_memory", lambda size: held.append(size) or hold(size))
    for name in ("t", "p"):
        con.push(name, pa.table({"r": keys}))
    size = 2 * n - 1 if kind == pa.int64() else 8 * n
    for budget, expected in ((2 * size, (0, 0)), (2 * size - 1, None)):
        monkeypatch.setattr(con, "memory_bytes", lambda b=budget: b)
        held.clear()
        assert key_repeats(con, ("t", "p"), (n, n)) == expected
        assert held == ([] if expected is None else [size, size])


def test_equal_neighbours() -> None:
    assert not has_neighbours(np.array([], dtype=np.uint64))
    assert not has_neighbours(np.array([7], dtype=np.uint64))
    assert has_neighbours(np.array([2**64 - 1, 3, 2**64 - 1], dtype=np.uint64))
    assert not has_neighbours(np.array([-(2**63), 2**63 - 1, 0], dtype=np.int64))


def test_flags_count_distinct_keys() -> None:
    flags = Flags(2**64 - 3, 3)
    flags.add(np.array([2**64 - 1, 2**64 - 3, 2**64 - 1], dtype=np.uint64))
    assert flags.count() == 2
    flags = Flags(-128, 256)
    flags.add(np.array([127, -128, 0], dtype=np.int8))
    assert flags.count() == 3
