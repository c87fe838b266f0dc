"""Sorted keys found among sorted keys a narrowed range at a time: the positions
``np.searchsorted`` gives, whatever the keys' repeats, range and number."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval.io import sorted_search

KEYS = st.lists(st.integers(-50, 50), max_size=200)


@settings(max_examples=300, deadline=None)
@given(haystack=KEYS, needles=KEYS, step=st.integers(1, 9))
def test_positions_are_those_of_searchsorted(
    haystack: list[int], needles: list[int], step: int
) -> None:
    h = np.sort(np.array(haystack, dtype=np.int64))
    n = np.sort(np.array(needles, dtype=np.int64))
    got = sorted_search(h, n, step=step)
    assert got.tolist() == np.searchsorted(h, n).tolist()


def test_positions_by_hand_across_ranges() -> None:
    # steps of 2: the needles (0, 3), (3, 4), (9,) each sought between the positions
    # of the first needle of their step and of the next step's
    haystack = np.array([1, 3, 3, 5, 7], dtype=np.uint64)
    needles = np.array([0, 3, 3, 4, 9], dtype=np.uint64)
    assert sorted_search(haystack, needles, step=2).tolist() == [0, 1, 1, 3, 5]
    assert sorted_search(np.zeros(0, np.uint64), needles, step=2).tolist() == [0] * 5


@pytest.mark.parametrize("n", [4095, 4096, 4097, 3 * 4096 + 5])
def test_64_bit_keys_past_one_step(n: int) -> None:
    rng = np.random.default_rng(n)
    haystack = np.sort(rng.integers(0, 2**64 - 1, 2 * n, dtype=np.uint64, endpoint=True))
    needles = np.sort(np.concatenate([haystack[::3], rng.integers(0, 2**64 - 1, n, np.uint64)]))
    got = sorted_search(haystack, needles)
    assert got.tolist() == np.searchsorted(haystack, needles).tolist()
