"""The narrow per-cluster arrays of the sweeps (:mod:`ereval.statistics._compact`)
give back every count exactly, and sums of weights never below their value."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ereval.statistics import _compact
from ereval.statistics._compact import WIDE, ByteCounts, rounded_up

_COUNTS = st.one_of(st.integers(0, 3), st.integers(WIDE - 2, WIDE + 2), st.integers(0, 2**31 - 1))


@settings(max_examples=200, deadline=None)
@given(
    counts=hnp.arrays(np.int64, st.integers(1, 300), elements=_COUNTS),
    dtype=st.sampled_from([np.int32, np.int64]),
    picks=st.lists(st.integers(0, 10**6), max_size=80),
    step=st.sampled_from([1, 3, 7, 8, _compact.STEP]),
    block=st.sampled_from([1, 2, 4, _compact.BLOCK]),
)
def test_counts_come_back_exactly(
    counts: np.ndarray, dtype: type, picks: list[int], step: int, block: int
) -> None:
    if dtype is np.int32:
        counts = np.minimum(counts, 2**31 - 1)
    with pytest.MonkeyPatch.context() as patch:  # in steps of ``step`` codes (or a block)
        patch.setattr(_compact, "STEP", step)
        patch.setattr(_compact, "BLOCK", block)
        held = ByteCounts(counts.astype(dtype), dtype)
        most = ByteCounts.most_bytes(counts.size, int(counts.sum()), np.dtype(dtype).itemsize)
    at = np.array([p % counts.size for p in picks], dtype=np.int64)
    got = held[at]
    assert got.dtype == np.dtype(dtype)
    assert got.tolist() == counts[at].tolist()
    assert held.top == int(counts.max())
    assert held.small.nbytes + held.before.nbytes + held.wide.nbytes <= most


def test_counts_at_the_edge_of_a_byte() -> None:
    counts = np.array([WIDE - 1, WIDE, WIDE + 1, 0, 10**9], dtype=np.int64)
    held = ByteCounts(counts, np.int64)
    assert held.wide.tolist() == [WIDE, WIDE + 1, 10**9]  # in the order of the codes
    assert held.small.tolist() == [WIDE - 1, WIDE, WIDE + 1, 0, WIDE + 2]  # WIDE + rank
    assert held[np.arange(5)].tolist() == counts.tolist()
    assert held[np.array([4, 4, 0])].tolist() == [10**9, 10**9, WIDE - 1]
    assert held[np.array([], dtype=np.int64)].tolist() == []


@settings(max_examples=200, deadline=None)
@given(
    hnp.arrays(np.float64, st.integers(0, 50), elements=st.floats(0.0, 2.0)),
    st.sampled_from([1, 4, _compact.STEP]),
)
def test_sums_are_rounded_up_to_the_next_float32(x: np.ndarray, step: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_compact, "STEP", step)
        up = rounded_up(x)
    assert up.dtype == np.float32
    wide = up.astype(np.float64)
    assert (wide >= x).all()
    # the least such float32: the one below is under x
    below = np.nextafter(up, np.float32(-np.inf)).astype(np.float64)
    assert (below < x).all()
