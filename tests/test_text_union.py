"""The union of two columns of text ids (``ereval.io.union``): by hashing where each id
is once on its side, by numbering both together otherwise, as the same set in another
order where it is one; every way the ids and positions Python's own dictionaries give."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval.io import _hashed_keys, align
from ereval.io._ids import union

from ._spies import noting

_ASCII = st.text(
    alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=0, max_size=30
)


def _reference(t: list[str], p: list[str]) -> tuple[list[str], list[int], list[int]]:
    """The union by a Python dictionary: ids in order of first appearance."""
    number = {x: k for k, x in enumerate(dict.fromkeys(t + p))}
    return list(number), [number[x] for x in t], [number[x] for x in p]


def _union_noting(a: Any, b: Any, numbered: list[bool], **options: Any) -> Any:
    """:func:`union`, noting in ``numbered`` whether each call of
    :func:`hashed_keys` numbered the ids."""

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_hashed_keys, "hashed_keys", noting(_hashed_keys.hashed_keys, numbered))
        return union(a, b, **options)


@settings(max_examples=200, deadline=None)
@given(
    pool=st.lists(_ASCII, min_size=1, max_size=60, unique=True),
    data=st.data(),
    large=st.sampled_from([(False, False), (True, False), (True, True)]),
)
def test_distinct_ids_are_united_by_hashing(
    pool: list[str], data: st.DataObject, large: tuple[bool, bool]
) -> None:
    """Any two columns of distinct ASCII ids (empty ids too, one side empty, types of
    text mixed): hashed where both sides hold ids, and the union of Python's."""
    t = data.draw(st.lists(st.sampled_from(pool), unique=True, max_size=len(pool)))
    p = data.draw(st.lists(st.sampled_from(pool), unique=True, max_size=len(pool)))
    kinds = [pa.large_string() if big else pa.string() for big in large]
    numbered: list[bool] = []
    ids, pos_a, pos_b = _union_noting(
        pa.array(t, type=kinds[0]), pa.array(p, type=kinds[1]), numbered, same_set=False
    )
    assert numbered == [bool(t and p)]  # an empty side is not hashed
    want = _reference(t, p)
    assert (ids.to_pylist(), pos_a.tolist(), pos_b.tolist()) == want
    assert ids.type == (pa.large_string() if any(large) and not all(large) else kinds[0])


@pytest.mark.parametrize(
    ("t", "p"),
    [
        (["x", "y", "x"], ["y", "z"]),  # an id twice on the first side
        (["x", "y"], ["z", "y", "z"]),  # an id twice on the second, not on the first
        (["café", "b"], ["b"]),  # not ASCII
        (["a" * 65, "b"], ["b"]),  # longer than the words hold
    ],
)
def test_where_hashing_does_not_apply_the_ids_are_numbered(t: list[str], p: list[str]) -> None:
    numbered: list[bool] = []
    ids, pos_a, pos_b = _union_noting(pa.array(t), pa.array(p), numbered)
    assert numbered == [False]
    assert (ids.to_pylist(), pos_a.tolist(), pos_b.tolist()) == _reference(t, p)


def test_the_same_set_in_another_order_is_neither_hashed_nor_numbered() -> None:
    t = [f"rec-{k}" for k in range(_ids_min() + 3)]
    p = t[::-1]
    numbered: list[bool] = []
    ids, pos_a, pos_b = _union_noting(pa.array(t), pa.array(p), numbered)
    assert numbered == []
    assert (ids.to_pylist(), pos_a.tolist(), pos_b.tolist()) == _reference(t, p)
    _union_noting(pa.array(t), pa.array(p), numbered, same_set=False)
    assert numbered == [True]  # not looked at as one set: hashed


def _ids_min() -> int:
    from ereval.io import _text_keys

    return _text_keys.MIN_IDS


def test_integer_ids_are_united_too() -> None:
    """Integer ids too far apart to place by their values: united by hashing."""
    numbered: list[bool] = []
    ids, pos_a, pos_b = _union_noting(np.array([5, 2**40]), np.array([2**40, 7]), numbered)
    assert (ids.tolist(), pos_a.tolist(), pos_b.tolist()) == ([5, 2**40, 7], [0, 1], [1, 2])
    assert numbered == [True]


def test_a_repeated_text_id_of_two_files_is_still_named() -> None:
    """An id twice on one side of two files: the general alignment names it."""
    import pandas as pd

    t = pd.DataFrame({"record_id": ["a1", "b2", "c3", "b2"], "cluster_id": [0, 0, 1, 1]})
    p = pd.DataFrame({"record_id": ["a1", "c3"], "cluster_id": [5, 6]})
    with pytest.raises(ValueError, match="'truth' has 1 duplicate record ids"):
        align(t, p, on_mismatch="twinless")


_INTEGER_TYPES = [np.int64, np.int32, np.uint32, np.uint64, np.int8]
_VALUES = [-(2**63), -(2**31), -5, 0, 1, 7, 2**31 - 1, 2**40, 2**63 - 1, 2**64 - 1]


def _values_of(kind: type) -> list[int]:
    info = np.iinfo(kind)
    return [v for v in _VALUES if info.min <= v <= info.max]


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    kinds=st.tuples(st.sampled_from(_INTEGER_TYPES), st.sampled_from(_INTEGER_TYPES)),
    distinct=st.booleans(),
)
def test_integer_ids_are_united_as_python_unites_them(
    data: st.DataObject, kinds: tuple[type, type], distinct: bool
) -> None:
    """Integer ids of any two types (past 2^63 unsigned among them, an id twice on a
    side): hashed or not, each id once and every position right (hashed, in the order
    of Python's union), the ids of the type they have when united without hashing."""
    a, b = (
        np.array(data.draw(st.lists(st.sampled_from(_values_of(k)), unique=distinct)), dtype=k)
        for k in kinds
    )
    numbered: list[bool] = []
    ids, pos_a, pos_b = _union_noting(a, b, numbered)
    united = [int(x) for x in ids]
    assert sorted(united) == sorted({int(x) for x in (*a, *b)})  # each id once
    assert [united[k] for k in pos_a] == a.tolist() and [united[k] for k in pos_b] == b.tolist()
    if numbered == [True]:  # hashed: in order of first appearance
        assert (united, pos_a.tolist(), pos_b.tolist()) == _reference(a.tolist(), b.tolist())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_hashed_keys, "hashed_keys", lambda a, b: None)
        assert np.asarray(ids).dtype == np.asarray(union(a, b)[0]).dtype
