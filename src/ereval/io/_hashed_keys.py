"""Record keys of several columns numbered over two sides by hashing their parts.

Some keys cannot be numbered part by part in mixed radix
(:mod:`ereval.io._integer_keys`): a text part that holds ids of its own (its
dictionaries would cost more than the keys themselves), or parts whose codes
together pass 62 bits. Such a key is hashed to 64 bits from its parts (a text
part laid out in words as text ids are, :mod:`ereval.io._words`; an integer
part by its value), each side's hashes are sorted, and the sorted hashes of the
two sides matched. The match is then made exact: every matched pair of keys is
compared part by part. Keys of one side with one hash (a key given twice, or a
collision) are not numbered: the caller goes the general way, which names a
repeated key. The first side's keys are numbered by their position, the
second's by their match's, or past the first side's when they have none.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from .._threads import both
from ._keys import KeyParts
from ._matched_text import matched_equal
from ._search import sorted_search
from ._words import chunks, key_order, word_hashes, word_rows, word_width

__all__ = ["hashed_keys"]

IntArray = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

#: A part ready to hash: integers as 64-bit values (``width`` ``None``), or text
#: and the width of its words.
_Part = tuple[Any, int | None]


def hashed_keys(a: KeyParts, b: KeyParts) -> tuple[IntArray, IntArray] | None:
    """Two sides' keys of several columns as integers, equal exactly where the keys are
    equal: the first side's ``0..len(a)-1`` by position, each key of the second side
    the number of the same key in the first, or ``len(a)`` onwards for the keys the
    first lacks (in their order).

    ``None`` where hashing does not apply (parts of kinds that differ; text that is
    not short ASCII; unsigned integers past ``2^63``; an empty side) and where one
    side holds two keys of one hash: a repeated key, or a collision. The caller then
    compares the keys' text.

    Examples
    --------
    >>> a = KeyParts(("s", "u"), (pa.array(["x", "y", "x"]), np.array([1, 1, 2])))
    >>> b = KeyParts(("s", "u"), (pa.array(["x", "z"]), np.array([2, 1])))
    >>> [k.tolist() for k in hashed_keys(a, b)]
    [[0, 1, 2], [2, 3]]
    """
    n_a, n_b = len(a), len(b)
    kinds = a.kinds
    if kinds != b.kinds or not n_a or not n_b or not set(kinds) <= {"integer", "text"}:
        return None
    # text read as one type on both sides (so that the two can be compared)
    types = [
        _text_type(x, y) if kind == "text" else None
        for x, y, kind in zip(a.parts, b.parts, kinds, strict=True)
    ]
    size = max(n_a, n_b)
    read_a, read_b = both(lambda key: _hashable(key, types), a, b, size=size)
    if read_a is None or read_b is None:
        return None
    # each text part laid out in words of one width on both sides
    widths = [
        None if x is None or y is None else max(x, y)
        for (_, x), (_, y) in zip(read_a, read_b, strict=True)
    ]
    left = [(values, w) for (values, _), w in zip(read_a, widths, strict=True)]
    right = [(values, w) for (values, _), w in zip(read_b, widths, strict=True)]
    # hashes sorted in each side's thread when the sides cannot hold the same keys
    got_a, got_b = both(lambda parts: _ordered_hashes(parts, n_a != n_b), left, right, size=size)
    if got_a is None or got_b is None:
        return None  # a repeated key, or a collision: the general path tells them apart
    (hashes_a, order_a), (hashes_b, order_b) = got_a, got_b
    if n_a == n_b:  # the k-th least hash of each side paired: right if the keys are equal
        match = np.empty(n_b, dtype=np.int64)
        match[order_b] = order_a
        if _same_keys(left, right, match):
            return np.arange(n_a, dtype=np.int64), match
        hashes_a, hashes_b = hashes_a[order_a], hashes_b[order_b]
    match = _matches((hashes_a, order_a), (hashes_b, order_b))
    del got_a, got_b, hashes_a, hashes_b, order_a, order_b
    if not _same_keys(left, right, match):
        return None  # two keys of one hash (a collision) across the sides
    lone = match < 0
    match[lone] = n_a + np.arange(int(np.count_nonzero(lone)), dtype=np.int64)
    return np.arange(n_a, dtype=np.int64), match


def _text_type(x: Any, y: Any) -> pa.DataType:
    """The type both sides' text of one part is read as: theirs, or large strings."""
    tx, ty = pa.array(x).type, pa.array(y).type
    return tx if tx == ty else pa.large_string()


def _hashable(key: KeyParts, types: list[pa.DataType | None]) -> list[_Part] | None:
    """One side's parts ready to hash: integers as signed 64-bit values, text as
    ``types`` says with the width of its words (:func:`~._words.word_width`); or
    ``None``."""
    out: list[_Part] = []
    for values, text in zip(key.parts, types, strict=True):
        if text is None:
            signed = _signed(np.asarray(values))
            if signed is None:
                return None
            out.append((signed, None))
            continue
        arr = pa.array(values)
        arr = arr if arr.type == text else arr.cast(text)
        width = word_width([arr])
        if width is None:
            return None
        out.append((arr, width))
    return out


def _signed(values: npt.NDArray[Any]) -> npt.NDArray[np.int64] | None:
    """Integers as signed 64-bit values, or ``None`` for unsigned ones past ``2^63``
    (which no signed value equals, and whose bits a negative value would share)."""
    if values.dtype.kind == "u" and values.size and int(values.max()) >= 1 << 63:
        return None
    return values.astype(np.int64, copy=False)


def _hashes(parts: list[_Part]) -> U64 | None:
    """One 64-bit hash per key, of the words of all its parts in one row (an integer
    part one word, a text part its padded bytes), a chunk of keys at a time."""
    n = len(parts[0][0])
    spans = np.cumsum([0] + [1 if width is None else width // 8 for _, width in parts])
    out = np.empty(n, dtype=np.uint64)
    for at in chunks(n):
        words = np.empty((at.stop - at.start, int(spans[-1])), dtype=np.uint64)
        for k, (values, width) in enumerate(parts):
            row = slice(int(spans[k]), int(spans[k + 1]))
            if width is None:
                words[:, row.start] = values[at].view(np.uint64)
                continue
            text = word_rows(values.slice(at.start, at.stop - at.start), width)
            if text is None:
                return None
            words[:, row] = text
        out[at] = word_hashes(words)
    return out


def _ordered_hashes(parts: list[_Part], sort: bool) -> tuple[U64, IntArray] | None:
    """One side's hashes (put in order with ``sort``) and their order (``argsort``);
    ``None`` when two keys share a hash."""
    hashes = _hashes(parts)
    if hashes is None:
        return None
    order, distinct = key_order(hashes)
    if not distinct:
        return None
    return (hashes[order] if sort else hashes), order


def _matches(a: tuple[U64, IntArray], b: tuple[U64, IntArray]) -> IntArray:
    """For each key of the second side, the position of the key of the first side with
    its hash, or ``-1``, from each side's sorted hashes and their order; each half of
    the second side in its own thread (the halves write at positions of their own: the
    order is a permutation)."""
    (ha, order_a), (hb, order_b) = a, b
    match = np.full(hb.shape[0], -1, dtype=np.int64)

    def half(rows: slice) -> None:
        sought = hb[rows]
        at = sorted_search(ha, sought)
        np.minimum(at, ha.shape[0] - 1, out=at)
        hit = ha[at] == sought
        match[order_b[rows][hit]] = order_a[at[hit]]

    middle = hb.shape[0] // 2
    both(half, slice(0, middle), slice(middle, None), size=middle)
    return match


def _same_keys(a: list[_Part], b: list[_Part], match: IntArray) -> bool:
    """Whether every key of ``b`` is equal, part by part, to the key of ``a`` it was
    matched with; each half of ``b`` in its own thread."""
    matched = np.flatnonzero(match >= 0)
    half = matched.shape[0] // 2
    texts = [
        None if width is None else matched_equal(x, y)
        for (x, width), (y, _) in zip(a, b, strict=True)
    ]

    def same(at: IntArray) -> bool:
        for part in chunks(at.shape[0]):
            ib = at[part]
            ia = match[ib]
            for (x, _), (y, _), text in zip(a, b, texts, strict=True):
                equal = np.array_equal(x[ia], y[ib]) if text is None else text(ia, ib)
                if not equal:
                    return False
        return True

    return all(both(same, matched[:half], matched[half:], size=half))
