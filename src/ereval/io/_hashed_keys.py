"""Record keys of several columns numbered over two sides by hashing their parts.

Some keys cannot be numbered part by part in mixed radix
(:mod:`ereval.io._integer_keys`): a text part that holds ids of its own (its
dictionaries would cost more than the keys themselves), or parts whose codes
together pass 62 bits. Such a key is hashed to 64 bits from its parts (a text
part laid out in words as text ids are, :mod:`ereval.io._words`; an integer
part by its value). The hashes of both sides are sorted together, each packed with
its key's position: keys whose hashes agree in their top bits are then neighbours,
and each such pair of keys is compared part by part (a run of more neighbours is
told apart by the full hashes first). A hash is never trusted: keys of two sides
match only where every part is equal. A key given twice on one side is not
numbered: the caller goes the general way, which names it. The first side's keys
are numbered by their position, the second's by their match's, or past the first
side's when they have none.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from .._threads import both
from ._keys import KeyParts
from ._matched_text import EachTest, each_equal
from ._words import chunks, word_hashes, word_rows, word_width

__all__ = ["hashed_keys"]

IntArray = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
Bools = npt.NDArray[np.bool_]

#: A part ready to hash: integers as 64-bit values (``width`` ``None``), or text
#: and the width of its words.
_Part = tuple[Any, int | None]


def hashed_keys(a: KeyParts, b: KeyParts) -> tuple[IntArray, IntArray] | None:
    """Two sides' keys of several columns as integers, equal exactly where the keys are
    equal: the first side's ``0..len(a)-1`` by position, each key of the second side
    the number of the same key in the first, or ``len(a)`` onwards for the keys the
    first lacks (in their order).

    ``None`` where hashing does not apply (parts of kinds that differ; text that is
    not short ASCII; unsigned integers past ``2^63``; an empty side), where one side
    holds a key twice, and where three keys share one 64-bit hash (a collision of
    two keys is told apart). The caller then compares the keys' text.

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
    match = _match(left, right)
    if match is None:
        return None  # a key twice, or three of one hash: the general path tells them apart
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


def _hashes(parts: list[_Part], out: U64 | None = None) -> U64 | None:
    """One 64-bit hash per key, of the words of all its parts in one row (an integer
    part one word, a text part its padded bytes), a chunk of keys at a time, into
    ``out`` when given. A key of one word is mixed by a one-to-one map, so that keys
    near one another (integers of a narrow range) still spread over the top bits."""
    n = len(parts[0][0])
    spans = np.cumsum([0] + [1 if width is None else width // 8 for _, width in parts])
    if out is None:
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
        out[at] = word_hashes(words) if words.shape[1] > 1 else _mixed(words[:, 0])
    return out


def _mixed(words: U64) -> U64:
    """A one-to-one map of 64-bit words that spreads words close together over all
    the bits (shifted xors and products by odd numbers are each one-to-one)."""
    with np.errstate(over="ignore"):
        h = words * _ODD
        h ^= h >> np.uint64(29)
        h *= _ODD
        h ^= h >> np.uint64(32)
    return h


_ODD = np.uint64(0xBF58476D1CE4E5B9)


def _packed(side: tuple[list[_Part], int], packed: U64, bits: int) -> bool:
    """One side's hashes (its parts, and where it starts) written into ``packed``, each
    packed with its position there in the low ``bits``; ``False`` when the side cannot
    be hashed."""
    parts, start = side
    out = packed[start : start + len(parts[0][0])]
    if _hashes(parts, out) is None:
        return False
    out &= ~np.uint64((1 << bits) - 1)
    for part in chunks(out.shape[0]):
        out[part] |= np.arange(start + part.start, start + part.stop, dtype=np.uint64)
    return True


def _match(left: list[_Part], right: list[_Part]) -> IntArray | None:
    """For each key of the second side, the position of the equal key of the first, or
    ``-1``; ``None`` when one side holds a key twice (or keys it cannot tell apart, or
    cannot hash).

    The hashes of both sides' keys (the first side's, then the second's) are written
    into one array, each side's in its own thread, each packed with its position in
    the low bits (:func:`_packed`), and sorted, so that keys whose hashes' top bits
    are equal (equal keys among them) are neighbours. Two such neighbours alone are
    compared key for key; the keys of a longer run are hashed again and compared by
    their full hashes. Each step goes a chunk of keys at a time (no array of every
    pair)."""
    n_a, n_b = len(left[0][0]), len(right[0][0])
    n = n_a + n_b
    bits = max(int(n - 1).bit_length(), 1)
    packed = np.empty(n, dtype=np.uint64)
    hashed = both(partial(_packed, packed=packed, bits=bits), (left, 0), (right, n_a), size=n)
    if not all(hashed):
        return None
    packed.sort()
    # positions fit 32 bits below 2^31 keys: half the memory while the hashes are held
    match: npt.NDArray[np.signedinteger[Any]]
    match = np.full(n_b, -1, dtype=np.int32 if n < 2**31 else np.int64)
    pairs = _Pairs(left, right, match)
    top, low = np.uint64(bits), np.uint64((1 << bits) - 1)
    longer = []
    for part in chunks(n - 1):  # neighbours k, k + 1 for k in part
        lo, hi = max(part.start - 1, 0), min(part.stop + 2, n)
        tops = packed[lo:hi] >> top
        # ties[j + 1]: whether neighbours lo + j and lo + j + 1 have the same top bits
        # (False at both ends)
        ties = np.zeros(hi - lo + 1, dtype=bool)
        np.equal(tops[1:], tops[:-1], out=ties[1:-1])
        at = np.flatnonzero(ties[part.start - lo + 1 : part.stop - lo + 1]) + (part.start - lo)
        alone = ~ties[at] & ~ties[at + 2]  # a run of two: no tie before nor after
        longer.append(at[~alone] + lo)
        at = at[alone] + lo
        if not pairs.add(_positions(packed[at], low), _positions(packed[at + 1], low)):
            return None
    runs = _longer_runs(left, right, packed, np.concatenate(longer), n_a, bits)
    del packed
    if runs is None or not pairs.add(*runs):
        return None
    del pairs
    wide: IntArray = match.astype(np.int64, copy=False)
    del match
    # each pair compared in the second side's order, each half in its own thread
    equal = _equal(left, right)

    def compare(rows: range) -> None:
        for part in chunks(len(rows)):
            start = rows.start + part.start
            sought = start + np.flatnonzero(wide[start : rows.start + part.stop] >= 0)
            differ = ~equal(wide[sought], sought)
            wide[sought[differ]] = -1

    half = wide.shape[0] // 2
    both(compare, range(half), range(half, wide.shape[0]), size=half)
    return wide


class _Pairs:
    """Neighbours of both sides' keys taken as pairs into ``match``: a key of the second
    side matched with one of the first (compared later); two keys of one side
    compared at once."""

    def __init__(
        self, left: list[_Part], right: list[_Part], match: npt.NDArray[np.signedinteger[Any]]
    ) -> None:
        self.left, self.right, self.match = left, right, match
        self.n_a = len(left[0][0])
        self.tests: dict[bool, EachTest] = {}

    def add(self, x: IntArray, y: IntArray) -> bool:
        """Take the pairs of positions ``x[k] < y[k]``; ``False`` when a side holds a key
        twice (the general path names it)."""
        n_a = self.n_a
        for first, of in ((True, y < n_a), (False, x >= n_a)):
            if of.any():
                shift = 0 if first else n_a
                if self._same_side(first)(x[of] - shift, y[of] - shift).any():
                    return False
        cross = (x < n_a) & (y >= n_a)  # within a run, the first side's keys come first
        self.match[y[cross] - n_a] = x[cross]
        return True

    def _same_side(self, first: bool) -> EachTest:
        """The test of keys of one side (made once, when first needed)."""
        if first not in self.tests:
            side = self.left if first else self.right
            self.tests[first] = _equal(side, side)
        return self.tests[first]


def _positions(values: U64, low: np.uint64) -> IntArray:
    """The positions packed in the low bits of hashes."""
    return (values & low).view(np.int64)


def _longer_runs(
    left: list[_Part], right: list[_Part], packed: U64, at: IntArray, n_a: int, bits: int
) -> tuple[IntArray, IntArray] | None:
    """The pairs of keys of one full hash within the runs of three or more neighbours
    of the same top bits (``at``: where a neighbour ties with the next), positions in
    order in each pair; ``None`` where three keys share one hash."""
    if not at.shape[0]:
        none = np.zeros(0, dtype=np.int64)
        return none, none
    values = packed[np.union1d(at, at + 1)]
    run = values >> np.uint64(bits)  # the keys of a run, and those only, share top bits
    sub = _positions(values, np.uint64((1 << bits) - 1))
    full = np.empty(sub.shape[0], dtype=np.uint64)
    for parts, of, shift in ((left, sub < n_a, 0), (right, sub >= n_a, n_a)):
        if of.any():
            hashed = _hashes(_taken(parts, sub[of] - shift))
            if hashed is None:
                return None
            full[of] = hashed
    by = np.lexsort((sub, full, run))
    run, full, sub = run[by], full[by], sub[by]
    one = (run[1:] == run[:-1]) & (full[1:] == full[:-1])
    if (one[1:] & one[:-1]).any():
        return None  # three keys of one hash
    k = np.flatnonzero(one)
    return sub[k], sub[k + 1]


def _taken(parts: list[_Part], at: IntArray) -> list[_Part]:
    """The keys at positions ``at`` of one side's parts."""
    return [
        (values[at] if width is None else values.take(pa.array(at)), width)
        for values, width in parts
    ]


def _equal(a: list[_Part], b: list[_Part]) -> EachTest:
    """The test whether key ``ia[k]`` of ``a`` equals key ``ib[k]`` of ``b``, part by
    part, for each ``k`` (each text part's test made once)."""
    tests = [
        (lambda ia, ib, x=x, y=y: x[ia] == y[ib]) if width is None else each_equal(x, y)
        for (x, width), (y, _) in zip(a, b, strict=True)
    ]

    def equal(ia: IntArray, ib: IntArray) -> Bools:
        out = np.ones(ia.shape[0], dtype=bool)
        for test in tests:
            out &= test(ia, ib)
        return out

    return equal
