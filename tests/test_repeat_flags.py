"""Repeated integer record keys found by one flag per key of their span
(:mod:`ereval.engines._repeats`): the same answer as a set of the keys, for every
integer type DuckDB gives NumPy, at the ends of each type's range; ``None`` where
the flags do not apply (keys of other types, a NULL key, too wide a span, flags
beyond the memory left to DuckDB)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval.engines import DuckDBDatabase, DuckDBEngine
from ereval.engines._repeats import SPAN_PER_ROW, Flags, flagged_repeats

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
    return flagged_repeats(con, ("t_keys", "p_keys"), (len(t), len(p)))


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
    name, t, p = case
    got = _flagged(list(t), list(p), TYPES[name][0])
    expected = tuple(int(len(set(keys)) != len(keys)) for keys in (t, p))
    # a span past SPAN_PER_ROW flags a row of the two sides is left to the grouping
    span = max(max(t) - min(t), max(p) - min(p)) + 1
    assert got == (None if span > SPAN_PER_ROW * (len(t) + len(p)) else expected)


def test_far_apart_keys_at_both_ends_of_64_bits() -> None:
    # keys of the two ends of int64 (and of uint64) are too far apart for flags, while
    # keys near one end flag exactly
    lo, hi = -(2**63), 2**63 - 1
    assert _flagged([lo, hi], [0], pa.int64()) is None
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
    assert flagged_repeats(con, ("t", "p"), (31, 30)) == (1, 0)


@pytest.mark.parametrize(
    ("t", "p", "kind"),
    [
        (["a", "b"], ["a"], pa.string()),  # text
        ([1.0, 2.0], [1.0], pa.float64()),  # not integers
        ([1, None], [1], pa.int64()),  # a NULL key
        ([1, 2], [1, 17], pa.int64()),  # a span of 17, past 4 flags a row of the 4 rows
    ],
)
def test_where_flags_do_not_apply(t: list[object], p: list[object], kind: pa.DataType) -> None:
    con = DuckDBDatabase(DuckDBEngine())
    con.push("t", pa.table({"r": pa.array(t, type=kind)}))
    con.push("p", pa.table({"r": pa.array(p, type=kind)}))
    streamed: list[str] = []
    con.fetch_batches = lambda query: streamed.append(query) or iter(())  # type: ignore[method-assign]
    assert flagged_repeats(con, ("t", "p"), (len(t), len(p))) is None
    assert streamed == []  # told before any key is read


def test_flags_beyond_the_memory_left_to_duckdb(monkeypatch: pytest.MonkeyPatch) -> None:
    # flags of more than half the memory left to DuckDB are not made; within it, they
    # are made while DuckDB's limit is lowered by their bytes
    keys = list(range(0, 4_000_000, 2))
    engine = DuckDBEngine(memory_limit="1GB")
    con = DuckDBDatabase(engine)
    held: list[int] = []
    hold = con.hold_memory
    monkeypatch.setattr(con, "hold_memory", lambda size: held.append(size) or hold(size))
    for name in ("t", "p"):
        con.push(name, pa.table({"r": pa.array(keys, type=pa.int64())}))
    assert flagged_repeats(con, ("t", "p"), (len(keys), len(keys))) == (0, 0)
    assert held == [len(keys) * 2 - 1] * 2
    assert con.memory_bytes() is not None
    monkeypatch.setattr(con, "memory_bytes", lambda: 2 * len(keys) * 2 - 3)
    assert flagged_repeats(con, ("t", "p"), (len(keys), len(keys))) is None


def test_flags_count_distinct_keys() -> None:
    flags = Flags(2**64 - 3, 3)
    flags.add(np.array([2**64 - 1, 2**64 - 3, 2**64 - 1], dtype=np.uint64))
    assert flags.count() == 2
    flags = Flags(-128, 256)
    flags.add(np.array([127, -128, 0], dtype=np.int8))
    assert flags.count() == 3
