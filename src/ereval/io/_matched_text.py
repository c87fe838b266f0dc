"""Whether text ids matched by their hashes are the same ids, byte for byte.

Ids matched through 64-bit hashes (:mod:`ereval.io._text_keys`,
:mod:`ereval.io._hashed_keys`) are compared before the match is trusted. Arrow's
``take`` gathers the matched strings into new arrays first. Where every id of both
columns has one length (hex digests, UUIDs, zero-padded numbers), the column's
bytes are already a table of one row an id: the rows are compared in place, a fixed
number of bytes each, in half the time. The test is of all the matched pairs at once
(:func:`matched_equal`), or of each pair (:func:`each_equal`, where some pairs met
by part of a hash only may differ).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from ._files import text_offsets

__all__ = ["EachTest", "each_equal", "fixed_width", "matched_equal"]

IntArray = npt.NDArray[np.int64]
#: ``test(at_x, at_y)``: whether ``x[at_x[k]] == y[at_y[k]]`` for every ``k`` (``at_y``
#: positions, or a slice of ``y``).
MatchTest = Callable[[IntArray, "IntArray | slice"], bool]
#: ``test(at_x, at_y)``: whether ``x[at_x[k]] == y[at_y[k]]``, for each ``k``.
EachTest = Callable[[IntArray, IntArray], npt.NDArray[np.bool_]]


#: The ids whose lengths are looked at first.
_HEAD = 1 << 10


def fixed_width(column: pa.Array) -> npt.NDArray[np.void] | None:
    """The ids of a column of strings that all have one length ``L > 0`` and none is
    missing, as an array of ``L``-byte items over the column's own bytes (no copy);
    ``None`` otherwise.

    Examples
    --------
    >>> fixed_width(pa.array(["ab", "cd"])).tobytes(), fixed_width(pa.array(["a", "bc"]))
    (b'abcd', None)
    """
    offsets = text_offsets(column)
    if offsets is None or not len(column) or column.null_count:
        return None
    width = int(offsets[1] - offsets[0])
    if width <= 0 or not (np.diff(offsets[:_HEAD]) == width).all():
        return None  # ids of several lengths, mostly told from the first ones
    if not (np.diff(offsets) == width).all():
        return None
    data = np.frombuffer(column.buffers()[2], dtype=np.uint8)
    rows: npt.NDArray[np.void] = data[int(offsets[0]) : int(offsets[-1])].view(
        np.dtype((np.void, width))
    )
    return rows


def matched_equal(x: pa.Array, y: pa.Array) -> MatchTest:
    """The test of matched ids of two text columns (see :data:`MatchTest`): in place
    where each holds ids of one length (:func:`fixed_width`), else by Arrow."""
    rows_x, rows_y = fixed_width(x), fixed_width(y)
    if rows_x is not None and rows_y is not None:  # of two lengths, never equal
        fixed_x, fixed_y = rows_x, rows_y

        def in_place(at_x: IntArray, at_y: IntArray | slice) -> bool:
            return _same_bytes(fixed_x[at_x], fixed_y[at_y])

        return in_place

    def by_arrow(at_x: IntArray, at_y: IntArray | slice) -> bool:
        if isinstance(at_y, slice):
            other = y.slice(at_y.start, at_y.stop - at_y.start)
        else:
            other = y.take(pa.array(at_y))
        equal = pc.equal(x.take(pa.array(at_x)), other)
        return bool(pc.all(equal, min_count=0).as_py())  # none matched: all equal

    return by_arrow


def each_equal(x: pa.Array, y: pa.Array) -> EachTest:
    """:func:`matched_equal`, pair by pair: the test of each matched pair of ids."""
    rows_x, rows_y = fixed_width(x), fixed_width(y)
    if rows_x is not None and rows_y is not None:
        fixed_x, fixed_y = rows_x, rows_y
        one_length = rows_x.dtype == rows_y.dtype

        def in_place(at_x: IntArray, at_y: IntArray) -> npt.NDArray[np.bool_]:
            if not one_length:  # ids of two lengths are never equal
                return np.zeros(len(at_x), dtype=bool)
            gathered_x, gathered_y = fixed_x[at_x], fixed_y[at_y]
            if _same_bytes(gathered_x, gathered_y):  # the common case, compared at once
                return np.ones(len(at_x), dtype=bool)
            equal: npt.NDArray[np.bool_] = gathered_x == gathered_y
            return equal

        return in_place

    def by_arrow(at_x: IntArray, at_y: IntArray) -> npt.NDArray[np.bool_]:
        equal = pc.equal(x.take(pa.array(at_x)), y.take(pa.array(at_y)))
        return np.asarray(equal.to_numpy(zero_copy_only=False), dtype=bool)

    return by_arrow


def _same_bytes(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> bool:
    return bool(np.array_equal(a.view(np.uint8), b.view(np.uint8)))
