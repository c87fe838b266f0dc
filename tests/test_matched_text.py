"""The comparison of text ids matched by their hashes (``io._matched_text``): ids of one
length compared in place, others by Arrow, both as Python compares them."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval.io import _matched_text as matched

_ID = st.sampled_from(["ab", "ba", "aa", "zz", "a", "abc", "", "é1"])
_IDS = st.lists(_ID, max_size=12)


@settings(max_examples=200, deadline=None)
@given(_IDS, st.booleans(), st.integers(0, 3), st.booleans())
def test_a_column_of_one_length_is_its_bytes(ids: list[str], large: bool, cut: int, null) -> None:
    """Read in place exactly when every id has one length above zero and none is
    missing; then row ``k`` is the bytes of id ``k``, a slice of a column included."""
    values: list[str | None] = [*ids, None] if null else list(ids)
    column = pa.array(values, type=pa.large_string() if large else pa.string())[cut:]
    kept = values[cut:]
    rows = matched.fixed_width(column)
    lengths = {len(v.encode()) for v in kept if v is not None}
    expected = bool(kept) and None not in kept and len(lengths) == 1 and 0 not in lengths
    assert (rows is not None) == expected
    if rows is not None:
        assert [r.tobytes() for r in rows] == [v.encode() for v in kept if v is not None]


@settings(max_examples=200, deadline=None)
@given(st.data(), st.sampled_from(["one length", "lengths", "one length each, other"]))
def test_matched_ids_are_equal_as_python_says(data: st.DataObject, kind: str) -> None:
    """Random matches of two columns, by positions or by a slice of the second: the
    test is Python's ``all(x[i] == y[j])``, whichever way it compares."""
    alphabet = st.sampled_from(["ab", "ba", "zz"]) if kind != "lengths" else _ID
    x = data.draw(st.lists(alphabet, min_size=1, max_size=10))
    other = st.sampled_from(["abc", "bca"]) if kind == "one length each, other" else alphabet
    y = data.draw(st.lists(other, min_size=1, max_size=10))
    n = data.draw(st.integers(0, len(y)))
    at_x = np.array(data.draw(st.lists(st.integers(0, len(x) - 1), min_size=n, max_size=n)))
    at_x = at_x.astype(np.int64)
    test = matched.matched_equal(pa.array(x), pa.array(y))
    if data.draw(st.booleans()):
        start = data.draw(st.integers(0, len(y) - n))
        at_y: np.ndarray | slice = slice(start, start + n)
        ys = y[start : start + n]
    else:
        at_y = np.array(data.draw(st.permutations(range(len(y)))), dtype=np.int64)[:n]
        ys = [y[j] for j in at_y]
    assert test(at_x, at_y) == all(x[i] == v for i, v in zip(at_x, ys, strict=True))


def test_lengths_that_add_up_and_a_missing_id_with_bytes_are_not_read_in_place() -> None:
    assert matched.fixed_width(pa.array(["ab", "a", "abc"])) is None  # 6 bytes = 3 * 2
    # a missing id whose offsets still span two bytes (as some writers leave them)
    valid = pa.py_buffer(np.packbits([1, 0, 1], bitorder="little").tobytes())
    offsets = pa.py_buffer(np.array([0, 2, 4, 6], dtype=np.int32).tobytes())
    column = pa.Array.from_buffers(pa.string(), 3, [valid, offsets, pa.py_buffer(b"abcdef")])
    assert column.null_count == 1 and matched.fixed_width(column) is None
    assert matched.fixed_width(pa.array(["ab", "cd", "ef"])) is not None


@pytest.mark.parametrize("compare", ["in place", "by arrow"])
def test_a_difference_in_the_last_byte_of_the_last_id_is_seen(monkeypatch, compare) -> None:
    ids = [f"{i:012x}" for i in range(5000)]
    x, y = pa.array(ids), pa.array([*ids[:-1], ids[-1][:-1] + "!"])
    if compare == "by arrow":
        monkeypatch.setattr(matched, "fixed_width", lambda column: None)
    test = matched.matched_equal(x, y)
    every = np.arange(5000, dtype=np.int64)
    assert not test(every, every)
    assert test(every[:-1], every[:-1]) and test(every[:-1], slice(0, 4999))


@settings(max_examples=200, deadline=None)
@given(st.data(), st.sampled_from(["one length", "lengths", "one length each, other"]))
def test_each_matched_pair_is_equal_as_python_says(data: st.DataObject, kind: str) -> None:
    """Random pairs of positions of two columns: each pair's test is Python's
    ``x[i] == y[j]``, whichever way it compares (every pair equal, some, or none)."""
    alphabet = st.sampled_from(["ab", "ba", "zz"]) if kind != "lengths" else _ID
    x = data.draw(st.lists(alphabet, min_size=1, max_size=10))
    other = st.sampled_from(["abc", "bca"]) if kind == "one length each, other" else alphabet
    y = data.draw(st.lists(other, min_size=1, max_size=10))
    n = data.draw(st.integers(0, 12))
    at = [st.lists(st.integers(0, len(c) - 1), min_size=n, max_size=n) for c in (x, y)]
    at_x, at_y = (np.array(data.draw(s), dtype=np.int64) for s in at)
    got = matched.each_equal(pa.array(x), pa.array(y))(at_x, at_y)
    assert got.dtype == bool
    assert got.tolist() == [x[i] == y[j] for i, j in zip(at_x, at_y, strict=True)]


def test_ids_of_one_length_first_and_another_later_are_not_read_in_place() -> None:
    """The first ids' lengths tell most columns of several lengths apart; a column of
    one length for its first thousands of ids is still read to its end."""
    same = [f"{i:06d}" for i in range(5000)]
    assert matched.fixed_width(pa.array(same)) is not None
    assert matched.fixed_width(pa.array([*same, "1234567"])) is None
    assert matched.fixed_width(pa.array(["a", *same])) is None
