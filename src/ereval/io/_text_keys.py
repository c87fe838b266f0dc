"""Dense codes for large columns of text ids, without Python objects.

A text column of short ASCII ids (record keys such as ``rec-1234567`` or hex
digests) is laid out as fixed-width rows of 64-bit words (each id padded with
NUL bytes), which are packed exactly into one word when an id has at most 8
bytes and otherwise mixed into a 64-bit hash. The words or hashes are then
coded by NumPy/pandas integer hashing, several times faster than hashing the
variable-length strings themselves. Hashing is made exact by a check: every id
given the same code must have the same words; the caller falls back to Arrow's
own dictionary encoding if the check ever fails (a hash collision) or the
column does not fit the layout (non-ASCII text, NUL bytes, long or very unequal
lengths, small columns).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from .._threads import both
from ._files import release_arrow_memory, text_offsets

__all__ = ["same_set_positions", "text_codes"]

IntArray = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

#: Below this many ids Arrow's dictionary encoding is as fast and simpler.
MIN_IDS = 50_000
#: Longest id (bytes) laid out in words; longer ids go to Arrow.
MAX_BYTES = 64
#: Ids laid out at a time where the words are not kept.
CHUNK = 1 << 18

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xFF51AFD7ED558CCD)


def _words(arr: pa.Array, width: int) -> U64 | None:
    """The ids as rows of ``width // 8`` little-endian words, or ``None``."""
    padded = pc.ascii_rpad(arr, width=width, padding="\0")
    data = padded.buffers()[2]
    n = len(arr)
    if data is None or data.size < n * width:
        return None
    words: U64 = np.frombuffer(data, dtype="<u8", count=n * width // 8).reshape(n, width // 8)
    return words


def _keys(words: U64) -> U64:
    """One word per id: the id itself for ids of up to 8 bytes, else a 64-bit hash."""
    if words.shape[1] == 1:
        return words[:, 0]
    with np.errstate(over="ignore"):
        h: U64 = words[:, 0] * _M1
        for k in range(1, words.shape[1]):
            h ^= h >> np.uint64(31)
            h += words[:, k]
            h *= _M2
        h ^= h >> np.uint64(32)
        h *= _M2
        h ^= h >> np.uint64(29)
    return h


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


def _bytes_of(a: pa.Array) -> tuple[npt.NDArray[Any], npt.NDArray[np.uint8]] | None:
    """The offsets (``len(a) + 1``) and the bytes of a column of strings, read from its
    buffers, or ``None`` for another layout."""
    offsets = text_offsets(a)
    if offsets is None:
        return None
    buffers = a.buffers()
    start, stop = int(offsets[0]), int(offsets[-1])
    if buffers[2] is None:
        return offsets, np.zeros(0, dtype=np.uint8)
    return offsets, np.frombuffer(buffers[2], dtype=np.uint8)[start:stop]


def _width(arrays: list[pa.Array], *, least: int = MIN_IDS) -> int | None:
    """The common row width (bytes, a multiple of 8) of the word layout, or ``None``:
    the lengths from the offsets, ASCII and no NUL byte checked on the bytes
    themselves (a pass of NumPy over each buffer). ``None`` also for fewer than
    ``least`` ids in all."""
    n = sum(len(a) for a in arrays)
    if n < max(least, 1) or any(a.null_count for a in arrays):
        return None
    longest, total = 0, 0
    for a in arrays:
        got = _bytes_of(a)
        if got is None:
            return None
        offsets, data = got
        if len(a):
            longest = max(longest, int(np.diff(offsets).max()))
        total += data.shape[0]
        for part in range(0, data.shape[0], 1 << 24):  # ASCII, no NUL: 1..127
            chunk = data[part : part + (1 << 24)]
            if int(chunk.max()) >= 128 or not chunk.all():
                return None
    width = max(8, -(-longest // 8) * 8)
    if longest > MAX_BYTES or width > 4 * (total / n) + 16:
        return None  # padding would cost far more memory than the ids themselves
    return width


def _layout(arrays: list[pa.Array]) -> list[U64] | None:
    """The ids of every array as rows of words of one common width, or ``None``."""
    width = _width(arrays)
    if width is None:
        return None
    parts = [_words(a, width) for a in arrays]
    return None if any(p is None for p in parts) else [p for p in parts if p is not None]


def _chunks(n: int) -> list[slice]:
    return [slice(i, min(i + CHUNK, n)) for i in range(0, n, CHUNK)]


def _chunked_keys(arr: pa.Array, width: int) -> U64 | None:
    """:func:`_keys` of ``arr``, laid out a chunk at a time (little extra memory)."""
    keys = np.empty(len(arr), dtype=np.uint64)
    for part in _chunks(len(arr)):
        words = _words(arr.slice(part.start, part.stop - part.start), width)
        if words is None:
            return None
        keys[part] = _keys(words)
    return keys


def _order(
    keys: U64, *, key_at: Callable[[IntArray], U64 | None] | None = None
) -> tuple[IntArray, bool]:
    """``np.argsort(keys)`` for keys in any order, by sorting values rather than indices,
    and whether the keys are distinct.

    Each key's top bits are packed with its position in the low bits and the packed
    words sorted (several times faster than an indirect sort); keys whose top bits
    tie are then put in the order of their full value. Equal keys keep no
    particular order.

    Given ``key_at`` (the keys at some positions, computed again), the keys are
    packed and sorted in their own array, which the order then takes over: no
    array of keys beside it (a 64-bit hash of 10^7 text ids: 80 MB less). Where
    ``key_at`` gives ``None``, the keys are said not to be distinct.
    """
    n = keys.shape[0]
    bits = max(int(n - 1).bit_length(), 1)
    in_place = key_at is not None
    if key_at is None:
        key_at = keys.__getitem__
    if bits > 32:
        order = np.argsort(keys).astype(np.int64, copy=False)
        ordered = keys[order]
        return order, not bool((ordered[1:] == ordered[:-1]).any())
    low = (1 << bits) - 1
    if in_place:
        packed = keys
        packed &= ~np.uint64(low)
    else:
        packed = keys & ~np.uint64(low)
    for part in _chunks(n):  # positions a chunk at a time: no array of n positions
        packed[part] |= np.arange(part.start, part.stop, dtype=np.uint64)
    packed.sort()
    # neighbours whose top bits tie, a chunk at a time; then the positions are the
    # low bits, kept in place (each array as long as the keys is fresh memory, which
    # costs more to map than to compute)
    tie = np.empty(max(n - 1, 0), dtype=bool)
    for part in _chunks(n - 1):
        after = packed[part.start + 1 : part.stop + 1] >> np.uint64(bits)
        tie[part] = after == packed[part] >> np.uint64(bits)
    order = packed.view(np.int64)
    order &= np.int64(low)
    del packed
    if not tie.any():
        return order, True  # the top bits alone tell every key apart
    # the runs of equal top bits, put in the order of the full keys
    in_run = np.zeros(n, dtype=bool)
    in_run[1:] = tie
    in_run[:-1] |= tie
    at = np.flatnonzero(in_run)
    # a position starts a new run unless it ties with the one before it
    run = np.cumsum(np.r_[True, ~tie[at[1:] - 1]])
    sub = order[at]
    full = key_at(sub)
    if full is None:
        return order, False
    by_key = np.lexsort((full, run))
    sub = sub[by_key]
    order[at] = sub
    # equal keys tie in their top bits: they are neighbours within one run
    ordered = full[by_key]
    repeated = (ordered[1:] == ordered[:-1]) & (run[1:] == run[:-1])
    return order, not bool(repeated.any())


def _ordered_keys(ids: npt.NDArray[Any]) -> U64:
    """Integer ids as unsigned 64-bit keys in the same order (signed ones with the
    sign bit flipped)."""
    if ids.dtype.kind == "u":
        return ids.astype(np.uint64)
    return ids.astype(np.int64).view(np.uint64) ^ np.uint64(1 << 63)


def _ordered_and_sorted(ids: npt.NDArray[Any]) -> tuple[U64, tuple[IntArray, bool]]:
    """:func:`_ordered_keys` of ``ids`` and their :func:`_order`."""
    keys = _ordered_keys(ids)
    return keys, _order(keys)


def same_int_set_positions(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> IntArray | None:
    """:func:`same_set_positions` for two integer id columns of one dtype.

    The ids are mapped to 64-bit unsigned keys in their order (the sign bit flipped
    for signed integers) and both sides sorted with :func:`_order`: two sorts of
    ``n`` keys, far cheaper than hashing ``2n`` random 64-bit ids.
    """
    if a.shape != b.shape or a.dtype != b.dtype or a.dtype.kind not in "iu" or a.ndim != 1:
        return None
    (ka, (order_a, distinct)), (kb, (order_b, _)) = both(_ordered_and_sorted, a, b, size=len(a))
    if not distinct:
        return None  # a repeated id: the general path reports it
    where = np.empty(len(b), dtype=np.int64)
    where[order_b] = order_a
    del order_a, order_b
    if not _same_keys(ka, where, kb):
        return None
    return where


def _same_keys(ka: U64, where: IntArray, kb: U64) -> bool:
    """Whether ``ka[where] == kb``, compared a chunk at a time."""
    return all(np.array_equal(ka[where[part]], kb[part]) for part in _chunks(len(kb)))


def same_set_positions(a: pa.Array, b: pa.Array) -> IntArray | None:
    """Where each id of ``b`` is in ``a``, when both hold the same distinct ids.

    Returns ``where`` with ``a[where[k]] == b[k]`` for every ``k``; ``None``
    when the two columns do not hold the same set of distinct ids (or the
    layout does not apply), so that the caller takes the general path.
    Sorting 64-bit keys is far cheaper than hashing them.
    """
    if len(a) != len(b):
        return None
    width = _width([a, b])
    if width is None:
        return None
    hashed = width > 8

    def sorted_keys(ids: pa.Array) -> tuple[U64 | None, tuple[IntArray, bool]] | None:
        """The keys of ``ids`` (unless hashed) and their order."""
        keys = _chunked_keys(ids, width)
        if keys is None:
            return None
        if not hashed:
            return keys, _order(keys)
        # hashed keys are sorted in their own array (the ids themselves are compared
        # below), the few whose top bits tie hashed again
        return None, _order(keys, key_at=lambda at: _chunked_keys(ids.take(pa.array(at)), width))

    # both sides at once, in two threads (each side's keys sorted in place)
    got_a, got_b = both(sorted_keys, a, b, size=len(a))
    release_arrow_memory()  # the padded ids, freed in two threads
    if got_a is None or got_b is None:
        return None
    (ka, (order_a, distinct)), (kb, (order_b, _)) = got_a, got_b
    if not distinct:
        return None  # a repeated id (or a hash collision): the general path reports it
    # the k-th smallest key of each side paired: a one-to-one map from b to a, which
    # matches every key iff both sides hold the same keys
    where = np.empty(len(b), dtype=np.int64)
    where[order_b] = order_a
    del order_a, order_b
    if ka is not None and kb is not None:  # each key is its id
        return where if _same_keys(ka, where, kb) else None
    # hashed keys: every matched pair must hold the same id (which also proves the
    # keys the same); each half of b in its own thread
    half = len(b) // 2
    same = both(lambda at: _same_ids(a, where, b, at), range(half), range(half, len(b)), size=half)
    return where if all(same) else None


def _same_ids(a: pa.Array, where: IntArray, b: pa.Array, at: range) -> bool:
    """Whether ``a[where[k]] == b[k]`` for every ``k`` of ``at``, a chunk at a time."""
    for part in _chunks(len(at)):
        start, stop = at.start + part.start, at.start + part.stop
        matched = a.take(pa.array(where[start:stop]))
        if not pc.all(pc.equal(matched, b.slice(start, stop - start))).as_py():
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

    keys = np.concatenate([_keys(w) for w in words])
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
