"""Dense codes for large columns of text ids, without Python objects.

A text column of short ASCII ids (record keys such as ``rec-1234567`` or hex
digests) is laid out as fixed-width rows of 64-bit words (each id padded with
NUL bytes), which are packed exactly into one word when an id has at most 8
bytes and otherwise mixed into a 64-bit hash (:mod:`ereval.io._words`). The
words or hashes are then coded by NumPy/pandas integer hashing, several times
faster than hashing the variable-length strings themselves. Hashing is made
exact by a check: every id given the same code must have the same words; the
caller falls back to Arrow's own dictionary encoding if the check ever fails (a
hash collision) or the column does not fit the layout (non-ASCII text, NUL
bytes, long or very unequal lengths, small columns).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from .._threads import both
from ._files import release_arrow_memory, text_offsets
from ._matched_text import MatchTest, fixed_width, matched_equal
from ._words import chunks, key_order, word_hashes, word_rows, word_width

__all__ = ["same_set_positions", "surely_distinct", "text_codes"]

IntArray = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

#: Below this many ids Arrow's dictionary encoding is as fast and simpler.
MIN_IDS = 50_000


def _consistent(parts: list[U64], codes: list[IntArray], n_codes: int) -> bool:
    """True when every id of a code has the same words (no hash collision)."""
    for k in range(parts[0].shape[1]):
        rep = np.zeros(n_codes, dtype=np.uint64)
        for words, c in zip(parts, codes, strict=True):
            rep[c] = words[:, k]
        for words, c in zip(parts, codes, strict=True):
            if not np.array_equal(rep[c], words[:, k]):
                return False
    return True


def _layout(arrays: list[pa.Array]) -> list[U64] | None:
    """The ids of every array as rows of words of one common width, or ``None``."""
    width = word_width(arrays, least=MIN_IDS)
    if width is None:
        return None
    parts = [word_rows(a, width) for a in arrays]
    return None if any(p is None for p in parts) else [p for p in parts if p is not None]


def _chunked_keys(arr: pa.Array, width: int) -> U64 | None:
    """:func:`~._words.word_hashes` of ``arr``, laid out a chunk at a time (little extra
    memory)."""
    keys = np.empty(len(arr), dtype=np.uint64)
    for part in chunks(len(arr)):
        words = word_rows(arr.slice(part.start, part.stop - part.start), width)
        if words is None:
            return None
        keys[part] = word_hashes(words)
    return keys


def _ordered_keys(ids: npt.NDArray[Any]) -> U64:
    """Integer ids as unsigned 64-bit keys in the same order (signed ones with the
    sign bit flipped)."""
    if ids.dtype.kind == "u":
        return ids.astype(np.uint64)
    return ids.astype(np.int64).view(np.uint64) ^ np.uint64(1 << 63)


def _spread(keys: U64, lo: int, shift: int) -> U64:
    """``(keys - lo) << shift`` in place: keys within a span of ``64 - shift`` bits
    moved to the top bits, in the same order and still distinct."""
    keys -= np.uint64(lo)
    keys <<= np.uint64(shift)
    return keys


def _ordered_and_sorted(
    ids: npt.NDArray[Any], lo: int, shift: int
) -> tuple[U64, tuple[IntArray, bool]]:
    """:func:`_ordered_keys` of ``ids``, spread over the top bits (:func:`_spread`), and
    their :func:`~._words.key_order`: the order packs each key's top bits with its
    position, so keys that differ only in their low bits (ids far below 2^64, or
    all near one value) would otherwise tie, and their runs be sorted again."""
    keys = _spread(_ordered_keys(ids), lo, shift)
    return keys, key_order(keys)


def same_int_set_positions(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> IntArray | None:
    """:func:`same_set_positions` for two integer id columns of one dtype.

    The ids are mapped to 64-bit unsigned keys in their order (the sign bit flipped
    for signed integers) and both sides sorted with :func:`~._words.key_order`: two sorts of
    ``n`` keys, far cheaper than hashing ``2n`` random 64-bit ids.
    """
    if a.shape != b.shape or a.dtype != b.dtype or a.dtype.kind not in "iu" or a.ndim != 1:
        return None
    if not a.size:
        return np.zeros(0, dtype=np.int64)
    unsigned = a.dtype.str.replace("i", "u")
    if _total(a.view(unsigned)) != _total(b.view(unsigned)):
        return None  # other ids: the same set has the same total
    ends = _ordered_keys(np.array([min(a.min(), b.min()), max(a.max(), b.max())], dtype=a.dtype))
    lo = int(ends[0])
    shift = 64 - max(int(ends[1]) - lo, 1).bit_length()
    (ka, (order_a, distinct)), (kb, (order_b, _)) = both(
        lambda ids: _ordered_and_sorted(ids, lo, shift), a, b, size=len(a)
    )
    if not distinct:
        return None  # a repeated id: the general path reports it
    where = _paired(order_a, order_b)
    del order_a, order_b
    where = where.astype(np.int64, copy=False)
    if not _same_keys(ka, where, kb):
        return None
    return where


def _paired(order_a: IntArray, order_b: IntArray) -> npt.NDArray[np.signedinteger[Any]]:
    """``where`` with ``where[order_b[k]] = order_a[k]``: the k-th least key of each side
    paired. In 32 bits where the positions fit (half the memory while the orders are
    held; the caller widens it once they are freed)."""
    n = order_b.shape[0]
    where: npt.NDArray[np.signedinteger[Any]]
    where = np.empty(n, dtype=np.int32 if n < 2**31 else np.int64)
    where[order_b] = order_a
    return where


def _total(values: npt.NDArray[np.unsignedinteger[Any]]) -> int:
    """The sum of ``values`` modulo ``2^64``: the same for any order of the same
    values, so that two sides of other ids are mostly told apart before they are
    sorted."""
    return int(np.add.reduce(values, dtype=np.uint64))


def _same_keys(ka: U64, where: IntArray, kb: U64) -> bool:
    """Whether ``ka[where] == kb``, compared a chunk at a time."""
    return all(np.array_equal(ka[where[part]], kb[part]) for part in chunks(len(kb)))


def same_set_positions(a: pa.Array, b: pa.Array) -> IntArray | None:
    """Where each id of ``b`` is in ``a``, when both hold the same distinct ids.

    Returns ``where`` with ``a[where[k]] == b[k]`` for every ``k``; ``None``
    when the two columns do not hold the same set of distinct ids (or the
    layout does not apply), so that the caller takes the general path.
    Sorting 64-bit keys is far cheaper than hashing them.
    """
    if len(a) != len(b) or _text_bytes(a) != _text_bytes(b):
        return None  # other ids (the same set of ids has as many bytes in all)
    if _word_sums(a) != _word_sums(b):
        return None  # other ids, of one length on one side at least (read in place)
    width = word_width([a, b], least=MIN_IDS)
    if width is None:
        return None
    hashed = width > 8
    # both sides at once, in two threads
    ka, kb = both(lambda ids: _chunked_keys(ids, width), a, b, size=len(a))
    release_arrow_memory()  # the padded ids, freed in two threads
    if ka is None or kb is None or _total(ka) != _total(kb):
        return None  # the same ids have the same keys, whose total is that of any order

    def sorted_keys(ids: pa.Array, keys: U64) -> tuple[IntArray, bool]:
        """The order of ``ids``' keys: hashed keys are sorted in their own array (the
        ids themselves are compared below), the few whose top bits tie hashed again."""
        if not hashed:
            return key_order(keys)
        return key_order(keys, key_at=lambda at: _chunked_keys(ids.take(pa.array(at)), width))

    (order_a, distinct), (order_b, _) = both(
        lambda side: sorted_keys(*side), (a, ka), (b, kb), size=len(a)
    )
    if hashed:
        ka = kb = None  # sorted in place: no longer the keys
    if not distinct:
        return None  # a repeated id (or a hash collision): the general path reports it
    # the k-th smallest key of each side paired: a one-to-one map from b to a, which
    # matches every key iff both sides hold the same keys
    where = _paired(order_a, order_b)
    del order_a, order_b
    where = where.astype(np.int64, copy=False)
    if ka is not None and kb is not None:  # each key is its id
        return where if _same_keys(ka, where, kb) else None
    # hashed keys: every matched pair must hold the same id (which also proves the
    # keys the same); each half of b in its own thread
    half = len(b) // 2
    test = matched_equal(a, b)
    same = both(lambda at: _same_ids(test, where, at), range(half), range(half, len(b)), size=half)
    return where if all(same) else None


def surely_distinct(ids: pa.Array) -> bool:
    """Whether the text ids of ``ids`` are distinct, as their 64-bit keys (an id's word,
    or the hash of its words) are: distinct keys are distinct ids. ``False`` where
    some keys are equal (a repeated id, or two ids of one hash) or the layout does not
    apply: the caller then counts the repeats itself. Sorting the keys costs a
    fraction of numbering the ids.
    """
    width = word_width([ids], least=MIN_IDS)
    keys = None if width is None else _chunked_keys(ids, width)
    release_arrow_memory()  # the padded ids
    if keys is None:
        return False
    keys.sort()
    return not bool((keys[1:] == keys[:-1]).any())


def _word_sums(column: pa.Array) -> tuple[int, ...] | None:
    """For a column whose ids all have one length ``L`` of at least 8 bytes
    (:func:`~._matched_text.fixed_width`), the sums modulo ``2^64`` over its ids of
    the 8 bytes (a little-endian word) at each of ``0, 8, 16, ...`` and ``L - 8`` of
    the id, read in place; ``None`` for another column. Every byte of an id lies in
    one of those words, and the sums are the same for any order of the same ids: two
    sides of as many ids of one length are mostly told apart without hashing them.

    Examples
    --------
    >>> _word_sums(pa.array(["abcdefghij", "0123456789"])) == _word_sums(
    ...     pa.array(["0123456789", "abcdefghij"])), _word_sums(pa.array(["short"]))
    (True, None)
    """
    rows = fixed_width(column)
    if rows is None or rows.dtype.itemsize < 8:
        return None
    width = rows.dtype.itemsize
    data = rows.view(np.uint8)
    starts = [*range(0, width - 7, 8), *([width - 8] if width % 8 else [])]
    return tuple(
        int(np.add.reduce(np.ndarray((len(rows),), "<u8", data, at, (width,)), dtype=np.uint64))
        for at in starts
    )


def _text_bytes(a: pa.Array) -> int | None:
    """The bytes of all the ids of a column of strings, from its offsets (``None`` for
    another layout)."""
    offsets = text_offsets(a)
    return None if offsets is None or not len(offsets) else int(offsets[-1] - offsets[0])


def _same_ids(test: MatchTest, where: IntArray, at: range) -> bool:
    """Whether ``a[where[k]] == b[k]`` for every ``k`` of ``at`` (``test`` made of ``a``
    and ``b`` by :func:`~._matched_text.matched_equal`), a chunk at a time."""
    for part in chunks(len(at)):
        start, stop = at.start + part.start, at.start + part.stop
        if not test(where[start:stop], slice(start, stop)):
            return False
    return True


def text_codes(arrays: list[pa.Array]) -> tuple[IntArray, IntArray] | None:
    """Codes of the ids of ``arrays`` taken together, in order of first appearance.

    Returns ``(codes, first)``: ``codes`` over the concatenation of the arrays,
    and ``first[k]``, the position (in that concatenation) of the first id of
    code ``k``; or ``None`` when the layout does not apply (then use Arrow).
    """
    words = _layout(arrays)
    if words is None:
        return None
    import pandas as pd  # its hash table factorizes integer keys fastest

    keys = np.concatenate([word_hashes(w) for w in words])
    codes_raw, uniques = pd.factorize(keys)
    codes = codes_raw.astype(np.int64, copy=False)
    if words[0].shape[1] > 1:
        bounds = np.cumsum([0] + [w.shape[0] for w in words])
        split = [codes[bounds[i] : bounds[i + 1]] for i in range(len(words))]
        if not _consistent(words, split, len(uniques)):
            return None
    running = np.maximum.accumulate(codes)
    first = np.flatnonzero(np.r_[True, running[1:] > running[:-1]]).astype(np.int64)
    return codes, first
