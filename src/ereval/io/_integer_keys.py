"""Record keys of several columns numbered as integers over two sides.

Two sides keyed by the same columns (say a data set's name and an id within it)
can be counted like integer record ids once each key is a number: equal exactly
where the keys are equal. Each part is coded from 0 over both sides, an integer
part by its offset from the least value, a text part by its place among both
sides' distinct values, and the codes are numbered in mixed radix. Each side is
read, then numbered, in its own thread; only what each side holds of a part (a
range, a dictionary) is joined between. Keys whose parts cannot be coded so (a
text part of ids of its own, codes past 62 bits) are numbered by hashing
(:mod:`ereval.io._hashed_keys`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from .._threads import both
from ._hashed_keys import hashed_keys
from ._ids import id_kind
from ._keys import KeyParts

__all__ = ["INTEGER_KEY_SPAN", "integer_keys"]

#: The most distinct keys :func:`integer_keys` numbers (their codes then fit 62 bits).
INTEGER_KEY_SPAN = 1 << 62
#: The first values of a text part looked at: when more than one in
#: :data:`MOST_DISTINCT` of them differ, the part is taken to hold ids of its own, whose
#: dictionaries cost more than hashing the keys (two sides of 10^7 keys of a data set
#: and a 12-character id: 18.5 CPU s numbered by dictionaries, 13-15 as text).
SAMPLE = 1 << 16
MOST_DISTINCT = 8


def integer_keys(
    a: KeyParts, b: KeyParts
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None:
    """Two sides' keys of several columns as integers, equal exactly where the keys are
    equal: each part coded from 0 over both sides (an integer part by its offset from
    the least value, a text part by its place among both sides' distinct values), the
    codes then numbered in mixed radix. Each side is read, then numbered, in its own
    thread; only what each side holds (a range, a dictionary) is joined between.

    When the codes would pass :data:`INTEGER_KEY_SPAN`, or a text part of many rows
    holds ids of its own (see :data:`SAMPLE`), the keys are numbered by
    :func:`~ereval.io._hashed_keys.hashed_keys` instead. ``None`` when the parts' kinds
    differ (the ids are then compared as their text, which says why) and where
    hashing does not apply.

    Examples
    --------
    >>> a = KeyParts(("s", "n"), (pa.array(["x", "y"]), np.array([5, 7])))
    >>> b = KeyParts(("s", "n"), (pa.array(["y", "z"]), np.array([7, 5])))
    >>> [k.tolist() for k in integer_keys(a, b)]
    [[0, 5], [5, 6]]
    """
    if a.kinds != b.kinds or any(k not in ("integer", "text") for k in a.kinds):
        return None
    if any(
        _many_values(x) or _many_values(y)
        for x, y, kind in zip(a.parts, b.parts, a.kinds, strict=True)
        if kind == "text"
    ):
        return hashed_keys(a, b)
    size = max(len(a), len(b))
    held_a, held_b = both(_held, a, b, size=size)
    scales: list[_Scale] = []
    span = 1
    for x, y in zip(held_a, held_b, strict=True):
        scale = _scale(x, y)
        if scale is None or span * scale.size > INTEGER_KEY_SPAN:
            return hashed_keys(a, b)
        scales.append(scale)
        span *= scale.size
    return both(lambda side: _numbered(side, scales), held_a, held_b, size=size)


def _many_values(part: Any) -> bool:
    """Whether a text part of at least :data:`SAMPLE` rows has more than one distinct
    value in :data:`MOST_DISTINCT` among its first :data:`SAMPLE`."""
    if len(part) < SAMPLE:
        return False
    first = pa.array(part).slice(0, SAMPLE)
    return int(pc.count_distinct(first).as_py()) > SAMPLE // MOST_DISTINCT


@dataclass(frozen=True)
class _Range:
    """An integer part of one side and its least and greatest value (``None`` when
    it is empty)."""

    values: npt.NDArray[Any]
    lo: int | None
    hi: int | None


@dataclass(frozen=True)
class _Text:
    """A text part of one side dictionary-encoded: each value's index among its
    distinct ``values``."""

    indices: npt.NDArray[Any]
    values: pa.Array


#: What one side holds of a part.
_Held: TypeAlias = _Range | _Text


def _held(key: KeyParts) -> list[_Held]:
    """Each part of one side: integers with their range, or text dictionary-encoded."""
    out: list[_Held] = []
    for part in key.parts:
        if id_kind(part) == "integer":
            values = np.asarray(part)
            if values.size:
                out.append(_Range(values, int(values.min()), int(values.max())))
            else:
                out.append(_Range(values, None, None))
        else:
            encoded = pc.dictionary_encode(pa.array(part))
            dictionary = encoded.dictionary.cast(pa.large_string())
            out.append(_Text(np.asarray(encoded.indices), dictionary))
    return out


@dataclass(frozen=True)
class _Scale:
    """How one part is coded over both sides: integers from ``lo``, or text by its
    place among ``values``; ``size`` codes in all."""

    size: int
    lo: int = 0
    values: pa.Array | None = None


def _scale(x: _Held, y: _Held) -> _Scale | None:
    """The coding of one part from what both sides hold of it; ``None`` when its codes
    would pass :data:`INTEGER_KEY_SPAN`."""
    if isinstance(x, _Text) and isinstance(y, _Text):
        values = pc.unique(pa.concat_arrays([x.values, y.values]))
        return _Scale(max(len(values), 1), values=values)
    if not (isinstance(x, _Range) and isinstance(y, _Range)):
        return None  # integers against text (the kinds are checked alike before)
    known = [v for v in (x.lo, x.hi, y.lo, y.hi) if v is not None]
    if not known:
        return _Scale(1)
    lo, hi = min(known), max(known)
    return None if hi - lo >= INTEGER_KEY_SPAN else _Scale(hi - lo + 1, lo=lo)


def _numbered(held: list[_Held], scales: list[_Scale]) -> npt.NDArray[np.int64]:
    """One side's keys in mixed radix: each part's code, scaled by the parts after."""
    codes: npt.NDArray[np.int64] | None = None
    for part, scale in zip(held, scales, strict=True):
        if isinstance(part, _Range):
            code = _offsets(part.values, scale.lo)
        else:
            place = np.asarray(pc.index_in(part.values, value_set=scale.values), dtype=np.int64)
            code = place[part.indices]
        if codes is None:
            codes = code
        else:
            codes *= scale.size
            codes += code
    return codes if codes is not None else np.zeros(0, dtype=np.int64)


def _offsets(values: npt.NDArray[Any], lo: int) -> npt.NDArray[np.int64]:
    """``values - lo`` as 64-bit integers (exact: the differences fit 62 bits)."""
    if values.dtype == np.uint64 and lo >= 0:  # values past 2^63 fit once offset
        return (values - np.uint64(lo)).astype(np.int64)
    out = values.astype(np.int64)
    out -= lo
    return out
