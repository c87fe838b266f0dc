"""Text record ids of two sides numbered by hashing in the general alignment
(``ereval.io._align._numbered_text``): the same union as pandas' factorize gives
(:func:`ereval.io._ids.union`), or ``None`` where hashing does not apply."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval.io import align
from ereval.io._align import _numbered_text
from ereval.io._ids import union

_ASCII = st.text(
    alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=0, max_size=30
)


@settings(max_examples=200, deadline=None)
@given(
    pool=st.lists(_ASCII, min_size=1, max_size=60, unique=True),
    data=st.data(),
    large=st.sampled_from([(False, False), (True, False), (True, True)]),
)
def test_the_union_of_factorize(pool: list[str], data: st.DataObject, large: tuple) -> None:
    """Any two columns of distinct ASCII ids (empty ids too, one side empty, types
    of text mixed): the ids, and each side's positions, of :func:`union`."""
    t = data.draw(st.lists(st.sampled_from(pool), unique=True, max_size=len(pool)))
    p = data.draw(st.lists(st.sampled_from(pool), unique=True, max_size=len(pool)))
    kinds = [pa.large_string() if big else pa.string() for big in large]
    a, b = pa.array(t, type=kinds[0]), pa.array(p, type=kinds[1])
    got = _numbered_text(a, b)
    if not t or not p:
        assert got is None  # nothing to hash on one side: factorize's way
        return
    assert got is not None
    ids, pos_a, pos_b = got
    want_ids, want_a, want_b = union(a, b)
    assert ids.to_pylist() == want_ids.to_pylist()
    assert ids.type == want_ids.type
    np.testing.assert_array_equal(pos_a, want_a)
    np.testing.assert_array_equal(pos_b, want_b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (["x", "y", "x"], ["y", "z"]),  # an id twice on the first side
        (["x", "y"], ["z", "y", "z"]),  # an id twice on the second, not on the first
        (["café", "b"], ["b"]),  # not ASCII
        (["a" * 65, "b"], ["b"]),  # longer than the words hold
    ],
)
def test_where_hashing_does_not_apply(a: list[str], b: list[str]) -> None:
    assert _numbered_text(pa.array(a), pa.array(b)) is None


def test_integer_ids_are_not_text() -> None:
    assert _numbered_text(np.array([1, 2]), np.array([2, 3])) is None  # type: ignore[arg-type]


def test_a_repeated_text_id_of_two_files_is_still_named() -> None:
    """An id twice on one side of two files: the general alignment names it."""
    import pandas as pd

    t = pd.DataFrame({"record_id": ["a1", "b2", "c3", "b2"], "cluster_id": [0, 0, 1, 1]})
    p = pd.DataFrame({"record_id": ["a1", "c3"], "cluster_id": [5, 6]})
    with pytest.raises(ValueError, match="'truth' has 1 duplicate record ids"):
        align(t, p, on_mismatch="twinless")
