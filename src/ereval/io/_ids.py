"""Identifier columns: their kind, exact comparison and encoding to dense codes.

Every record or cluster id column that ereval reads ends up here, whatever it
came from (a file, a pandas / polars / pyarrow table, a dict, a list). An id
column is held either as a NumPy array (integers, floats, booleans, dates,
and Python objects given as such) or as a pyarrow string array (text read from
a file or an Arrow-backed table). Text ids are never turned into Python
objects on the hot path: hashing, de-duplication, the union of two sides and
sorted codes all run on the Arrow buffers.

Ids are compared exactly: ``"01"``, ``"1"`` and ``1`` are three different ids.
Two columns of different kinds (integers on one side, text on the other) cannot
be compared; :func:`cast_ids` turns integers into their decimal text when the
caller asks for it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from decimal import Decimal
from typing import Any, Literal, TypeAlias, TypeGuard

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError, InputTypeError
from ._files import text_offsets
from ._text_keys import (
    same_int_set_positions,
    same_set_positions,
    surely_distinct,
    text_codes,
)
from ._text_order import text_sort

__all__ = [
    "IdArray",
    "IdType",
    "arrow_to_numpy",
    "cast_ids",
    "check_no_missing",
    "dense_int_span",
    "duplicate_ids",
    "duplicates_of",
    "encode",
    "factorize",
    "id_kind",
    "int_offsets",
    "missing_mask",
    "object_array",
    "positions_to_arrow",
    "same_id_set",
    "same_ids",
    "smallest",
    "span_ids",
    "take",
    "to_arrow_ids",
    "to_numpy",
    "union",
    "within_span",
]

#: An id column: a NumPy array or a pyarrow string array.
IdArray: TypeAlias = npt.NDArray[Any] | pa.Array

#: How ids of the two sides are compared: exactly as typed, or all as text.
IdType = Literal["exact", "string"]

IntArray = npt.NDArray[np.int64]


def _is_text(arr: Any) -> TypeGuard[pa.Array]:
    return isinstance(arr, pa.Array) and (
        pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)
    )


def to_arrow_ids(values: Any) -> IdArray:
    """Normalise a column to an :data:`IdArray`.

    Arrow text (also dictionary-encoded or chunked) stays Arrow; other Arrow
    types become NumPy arrays; NumPy object arrays holding only ``str`` become
    Arrow text and those holding only Python ints become ``int64``.
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if isinstance(values, pa.Array):
        if pa.types.is_dictionary(values.type):
            values = values.dictionary_decode()
        if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
            return values
        if pa.types.is_string_view(values.type):
            return values.cast(pa.large_string())
        if values.null_count:
            return np.asarray(values.to_pandas().astype(object).to_numpy())
        if pa.types.is_decimal(values.type) and values.type.scale == 0:
            return _whole_decimals(values)
        return arrow_to_numpy(values)
    arr = np.asarray(values)
    if arr.dtype.kind == "U":
        return pa.array(arr, type=pa.string())
    if arr.dtype != object or arr.size == 0:
        return arr
    if all(isinstance(v, str) for v in arr):
        return pa.array([str(v) for v in arr], type=pa.string())
    if all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in arr):
        try:
            return arr.astype(np.int64)
        except OverflowError:
            return arr
    return arr


def _whole_decimals(values: pa.Array) -> npt.NDArray[Any]:
    """Decimals of no fraction (a ``DECIMAL(p, 0)`` column, as Spark writes unsigned
    64-bit integers) as the integers they are, as every engine reads them: ``int64``
    or ``uint64`` where every value fits, else Python's integers.

    Examples
    --------
    >>> from decimal import Decimal
    >>> got = _whole_decimals(pa.array([Decimal(5), Decimal(2**64 - 1)], pa.decimal128(20, 0)))
    >>> got.tolist(), got.dtype
    ([5, 18446744073709551615], dtype('uint64'))
    """
    for kind in (pa.int64(), pa.uint64()):
        try:
            return arrow_to_numpy(values.cast(kind))
        except (pa.ArrowInvalid, OverflowError):
            continue
    return np.asarray([int(v) for v in values.to_pylist()], dtype=object)


def arrow_to_numpy(values: pa.Array) -> npt.NDArray[Any]:
    """``values.to_numpy(zero_copy_only=False)``, integers and floats without nulls
    shared through DLPack (pyarrow's own conversion imports pandas).

    Examples
    --------
    >>> arrow_to_numpy(pa.array([3, 1, 2]))
    array([3, 1, 2])
    """
    kind = values.type
    if not values.null_count and (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        return np.from_dlpack(values)
    return np.asarray(values.to_numpy(zero_copy_only=False))


def positions_to_arrow(index: npt.NDArray[Any]) -> pa.Array:
    """Integer positions as an Arrow ``int64`` array for ``take``, built on the NumPy
    buffer (``pa.array`` would import pandas).

    Examples
    --------
    >>> pa.array(["a", "b", "c"]).take(positions_to_arrow(np.array([2, 0]))).to_pylist()
    ['c', 'a']
    """
    flat = np.ascontiguousarray(index, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), flat.shape[0], [None, pa.py_buffer(flat)])


def id_kind(arr: IdArray) -> str:
    """A readable name of the kind of ids in ``arr`` (``"integer"``, ``"text"``, ...)."""
    if _is_text(arr):
        return "text"
    dtype = np.asarray(arr).dtype if not isinstance(arr, pa.Array) else np.dtype(object)
    names = {
        "i": "integer",
        "u": "integer",
        "b": "boolean",
        "f": "float",
        "c": "complex",
        "m": "timedelta",
    }
    if dtype.kind in names:
        return names[dtype.kind]
    if dtype.kind == "M":  # named as the SQL engines name them
        return "date" if dtype == np.dtype("datetime64[D]") else "timestamp"
    kinds = {_kind_of_value(v) for v in np.asarray(arr)[:1000]}
    if len(kinds) <= 1:  # no id: of no kind that could clash with text
        return kinds.pop() if kinds else "text"
    return "mixed (" + ", ".join(sorted(kinds)) + ")"


def _kind_of_value(value: Any) -> str:
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool | np.bool_):
        return "boolean"
    if isinstance(value, int | np.integer):
        return "integer"
    if isinstance(value, float | np.floating):
        return "float"
    if isinstance(value, Decimal):  # exact numbers: equal to a float only by chance
        return "decimal"
    if isinstance(value, dt.datetime):  # dates and times as the SQL engines name them
        return "timestamp"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, dt.time):
        return "time"
    return type(value).__name__


def missing_mask(arr: IdArray) -> npt.NDArray[np.bool_]:
    """Missing ids: null, NaN, NaT, None and the empty string."""
    if isinstance(arr, pa.Array):
        if arr.null_count:
            # bytes through DLPack: pyarrow's own conversion of booleans imports pandas
            mask = np.from_dlpack(pc.cast(arr.is_null(), pa.uint8())).astype(bool)
        else:
            mask = np.zeros(len(arr), dtype=bool)
        offsets = text_offsets(arr) if _is_text(arr) else None
        if offsets is not None:  # empty text: equal offsets (a null may keep bytes)
            mask |= offsets[1:] == offsets[:-1]
        return mask
    if arr.dtype.kind in "iub":
        return np.zeros(arr.shape[0], dtype=bool)
    if arr.dtype.kind in "fc":
        return np.asarray(np.isnan(arr), dtype=bool)
    if arr.dtype.kind in "mM":
        return np.asarray(np.isnat(arr), dtype=bool)
    import pandas as pd

    out = np.asarray(pd.isna(arr), dtype=bool)
    out |= np.fromiter((isinstance(v, str) and v == "" for v in arr), bool, arr.shape[0])
    return out


def to_numpy(arr: IdArray) -> npt.NDArray[Any]:
    """The ids as a NumPy array (Python ``str`` objects for text)."""
    if isinstance(arr, pa.Array):
        return np.asarray(arr.to_numpy(zero_copy_only=False))
    return arr


def frame_column(arr: IdArray) -> Any:
    """The ids as a column of a pandas frame, of the type pandas gives a column of them:
    text kept in Arrow's own buffers where pandas keeps text in Arrow (pandas 3; no
    Python string an id, 10^7 of which take some 700 MB), else :func:`to_numpy`.

    Examples
    --------
    >>> import pandas as pd
    >>> ids = pa.array(["b", "a"])
    >>> pd.DataFrame({"x": frame_column(ids)}).dtypes.equals(
    ...     pd.DataFrame({"x": to_numpy(ids)}).dtypes)
    True
    """
    if isinstance(arr, pa.Array) and pa.types.is_string(arr.type):
        import pandas as pd

        dtype = pd.Series(np.array([""], dtype=object)).dtype  # pandas' own for text
        if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow":
            return pd.array(arr, dtype=dtype)
    values = to_numpy(arr)
    if values.dtype == np.dtype("datetime64[D]"):  # dates: pandas would make them midnights
        return values.astype(object)
    return values


def take(arr: IdArray, index: npt.NDArray[Any]) -> IdArray:
    """``arr[index]`` for an integer or boolean index, whatever the id column holds."""
    if isinstance(arr, pa.Array):
        index = np.asarray(index)
        if index.dtype == bool:
            index = np.flatnonzero(index)
        return arr.take(positions_to_arrow(index))
    return arr[index]


def in_id_order(ids: IdArray, index: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``index`` (of distinct ids of ``ids``) reordered by increasing id, as SQL's
    ``ORDER BY`` gives them: numbers by value, text by its bytes; ids of mutually
    unorderable types keep their order.

    Examples
    --------
    >>> in_id_order(np.array([30, 10, 20]), np.array([0, 1, 2])).tolist()
    [1, 2, 0]
    >>> in_id_order(pa.array(["b", "a,b", "B"]), np.array([0, 1, 2])).tolist()
    [2, 1, 0]
    """
    chosen = take(ids, index)
    if isinstance(chosen, np.ndarray) and chosen.dtype.kind in "iuf":
        if chosen.shape[0] < 2 or bool(np.all(chosen[1:] > chosen[:-1])):
            return index  # already sorted
        return index[np.argsort(chosen)]  # distinct: any sort gives the one order
    if isinstance(chosen, pa.Array):  # text: sorted by its bytes, as its codes would be
        return index[text_sort(chosen)]
    codes, _ = encode(chosen, sort=True)  # distinct ids: codes are their ranks
    return index[np.argsort(codes, kind="stable")]


def smallest(ids: IdArray, k: int = 3) -> IdArray:
    """The ``k`` smallest of ``ids`` in increasing order, as SQL's ``ORDER BY ... LIMIT
    k`` gives them (text by its bytes); the first ``k`` for ids of no common order.

    Examples
    --------
    >>> smallest(np.array([5, 1, 9, 3, 7])).tolist(), smallest(pa.array(["b", "a,b", "B"])).to_pylist()
    ([1, 3, 5], ['B', 'a,b', 'b'])
    """
    if isinstance(ids, pa.Array):
        return ids.take(pc.bottom_k_unstable(ids, k=min(k, len(ids))))
    try:
        low = ids if len(ids) <= k else np.partition(ids, k - 1)[:k]
        return np.sort(low)
    except TypeError:  # ids of mutually unorderable types
        return ids[:k]


def same_ids(a: IdArray, b: IdArray) -> bool:
    """True when ``a`` and ``b`` hold the same ids in the same order."""
    if len(a) != len(b):
        return False
    if isinstance(a, pa.Array) or isinstance(b, pa.Array):
        if not (_is_text(a) and _is_text(b)):
            return False
        if a.type != b.type:
            a, b = a.cast(pa.large_string()), b.cast(pa.large_string())
        return bool(a.equals(b))
    if a.dtype.kind in "iub" and b.dtype.kind in "iub":
        return bool(np.array_equal(a, b))
    if a.dtype.kind != b.dtype.kind:
        return False
    try:
        return bool(np.all(a == b))
    except (TypeError, ValueError):
        return False


def cast_ids(arr: IdArray, id_type: IdType, *, name: str) -> IdArray:
    """Ids to compare: unchanged for ``"exact"``; integers as decimal text for ``"string"``."""
    if id_type == "exact" or _is_text(arr):
        return arr
    kind = id_kind(arr)
    if kind == "integer":
        return pc.cast(pa.array(np.asarray(arr, dtype=np.int64)), pa.string())
    if kind.startswith("mixed") and all(
        type(v) is str or (isinstance(v, int | np.integer) and not isinstance(v, bool))
        for v in np.asarray(arr)
    ):
        return pa.array([str(v) for v in np.asarray(arr)], type=pa.string())
    raise InputTypeError(
        f"'{name}': only integer and text ids can be compared as text; received {kind} ids"
    )


# ---------------------------------------------------------------------------
# encoding


def dense_int_span(*arrays: IdArray) -> tuple[int, int] | None:
    """``(min, span)`` over integer arrays whose joint range is at most a few times
    their total size; ``None`` otherwise (or for any non-integer array)."""
    if any(isinstance(a, pa.Array) or a.dtype.kind not in "iu" or a.size == 0 for a in arrays):
        return None
    lo = min(int(a.min()) for a in arrays)
    hi = max(int(a.max()) for a in arrays)
    span = hi - lo + 1
    if span > 4 * sum(a.size for a in arrays) + 1024:
        return None
    return lo, span


def int_offsets(values: npt.NDArray[Any], lo: int) -> IntArray:
    """``values - lo`` as int64, with a single pass over the data, for integers of any
    type within a span of :func:`dense_int_span` from ``lo``: unsigned ids are taken
    from ``lo`` in their own type, so that ids past ``2^63`` stay exact.

    Examples
    --------
    >>> int_offsets(np.array([2**63 + 7, 2**63 + 5], dtype=np.uint64), 2**63 + 5).tolist()
    [2, 0]
    """
    if not values.shape[0]:  # ``lo`` may lie past this type's range
        return np.zeros(0, dtype=np.int64)
    if values.dtype == np.int64:
        return values - lo if lo else values
    if values.dtype.kind == "u" and lo >= 0:  # every value is at least lo
        offsets: IntArray = (values - values.dtype.type(lo)).astype(np.int64, copy=False)
        return offsets
    out = values.astype(np.int64)  # signed, or unsigned below 2^63 (lo < 0 spans little)
    if lo:
        out -= lo
    return out


def within_span(values: npt.NDArray[Any], lo: int, span: int) -> npt.NDArray[np.bool_]:
    """Which integers of ``values`` lie in ``lo .. lo + span - 1``, compared in their own
    type (bounds past its range clipped to it), so that no value is rounded.

    Examples
    --------
    >>> within_span(np.array([-1, 3, 2**62]), 2**63, 4).tolist(), within_span(np.array([2, 3]), 3, 1).tolist()
    ([False, False, False], [False, True])
    """
    info = np.iinfo(values.dtype)
    first, last = max(lo, int(info.min)), min(lo + span - 1, int(info.max))
    if first > last:
        return np.zeros(values.shape[0], dtype=bool)
    kind = values.dtype.type
    inside: npt.NDArray[np.bool_] = (values >= kind(first)) & (values <= kind(last))
    return inside


def span_ids(offsets: IntArray, lo: int, *dtypes: np.dtype[Any]) -> npt.NDArray[Any]:
    """The integer ids ``lo + offsets`` (offsets of :func:`int_offsets`) in the type of
    the columns they come from (``dtypes``): NumPy's common type, or where it has none
    among the integers (64-bit unsigned ids with signed ones), ``int64`` for ids below
    ``2^63`` and ``uint64`` for the others. Never floats: an id is what was written.

    Examples
    --------
    >>> u, i = np.dtype(np.uint64), np.dtype(np.int64)
    >>> span_ids(np.array([0, 2]), 2**63, u, i).tolist(), span_ids(np.array([0, 2]), 5, u, i).dtype
    ([9223372036854775808, 9223372036854775810], dtype('int64'))
    """
    top = lo + (int(offsets.max()) if offsets.size else 0)
    dtype = _integer_type(dtypes, lo, top)  # never object: a span is narrow
    if dtype.kind == "u" and lo >= 0:
        out: npt.NDArray[Any] = offsets.astype(dtype)
        out += dtype.type(lo)
        return out
    return (offsets + lo).astype(dtype, copy=False)


def _arrow_codes(encoded: Any) -> IntArray:
    if isinstance(encoded, pa.ChunkedArray):
        parts = [arrow_to_numpy(c.indices).astype(np.int64) for c in encoded.chunks]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    return arrow_to_numpy(encoded.indices).astype(np.int64)


def _sorted_dictionary(dictionary: pa.Array, codes: IntArray) -> tuple[IntArray, pa.Array]:
    order = text_sort(dictionary)
    rank = np.empty(order.shape[0], dtype=np.int64)
    rank[order] = np.arange(order.shape[0], dtype=np.int64)
    return rank[codes], dictionary.take(positions_to_arrow(order))


def encode(values: IdArray, *, sort: bool = True) -> tuple[IntArray, IdArray]:
    """Integer codes of ``values`` and the id of each code.

    Integers in a range at most a few times their count are coded by offset
    (``code = value - min``; every value of the range gets a label, used or
    not). Anything else is hashed to dense codes, in sorted order of the ids
    when ``sort`` (so cell order, hence every floating-point sum, does not
    depend on the input order), else in order of first appearance. Ids of
    mutually unorderable Python types keep the order of first appearance. Float ids
    are numbers: ``-0.0`` and ``0.0`` are one id, written ``0.0`` (as every engine
    reads them).
    """
    if isinstance(values, np.ndarray) and values.dtype.kind == "f":
        values = values + values.dtype.type(0)  # -0.0 + 0.0 is 0.0, every other value kept
    if isinstance(values, pa.Array):
        fast = text_codes([values]) if _is_text(values) else None
        if fast is not None:
            codes, first = fast
            dictionary = values.take(positions_to_arrow(first))
        else:
            encoded = pc.dictionary_encode(values)
            codes = _arrow_codes(encoded)
            dictionary = encoded.dictionary
        if sort:
            return _sorted_dictionary(dictionary, codes)
        return codes, dictionary
    dense = dense_int_span(values)
    if dense is not None:
        lo, span = dense
        labels = span_ids(np.arange(span, dtype=np.int64), lo, values.dtype)
        offsets = int_offsets(values, lo)
        return (offsets.copy() if offsets is values else offsets), labels
    import pandas as pd

    try:
        codes, uniques = pd.factorize(values, sort=sort)
    except TypeError:  # ids of mutually unorderable types
        codes, uniques = pd.factorize(values)
    return codes.astype(np.int64, copy=False), np.asarray(uniques)


def same_id_set(a: IdArray, b: IdArray) -> IntArray | None:
    """For two text columns, or two integer columns of one dtype whose ids are not
    dense (those are placed by their values), holding the same distinct ids in
    another order: where each id of ``b`` is in ``a``; ``None`` otherwise (then use
    :func:`union`)."""
    if _is_text(a) and _is_text(b):
        return same_set_positions(a, b)
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and dense_int_span(a, b) is None:
        return same_int_set_positions(a, b)
    return None


def factorize(values: Any) -> tuple[IntArray, npt.NDArray[Any]]:
    """Codes ``0..K-1`` of ``values`` in order of first appearance (every code used),
    and the value of each code (as a NumPy array).

    The same codes as :func:`pandas.factorize`, for any id column (text on its
    Arrow buffers); :func:`encode` is the sorted variant used for the
    contingency table.
    """
    ids = to_arrow_ids(values) if not isinstance(values, pa.Array | np.ndarray) else values
    if isinstance(ids, np.ndarray) and ids.dtype == object:
        ids = to_arrow_ids(ids)
    if isinstance(ids, pa.Array):
        codes, labels = encode(ids, sort=False)
        return codes, to_numpy(labels)
    import pandas as pd

    codes, uniques = pd.factorize(ids)
    return codes.astype(np.int64, copy=False), np.asarray(uniques)


def _text_union(a: pa.Array, b: pa.Array) -> tuple[pa.Array, IntArray, IntArray]:
    """:func:`union` of two text columns of one type: where each id is once on its
    side, by hashing (:func:`~._hashed_keys.hashed_keys`, exact; the ids of ``a``, then
    those of ``b`` it lacks, in their order), else by numbering the ids of both
    (:func:`~._text_keys.text_codes`, short ASCII text), else by Arrow's dictionary."""
    numbered = _hashed(a, b)
    if numbered is not None:
        pos_a, pos_b = numbered
        lone = np.flatnonzero(pos_b >= len(a))
        return pa.concat_arrays([a, b.take(positions_to_arrow(lone))]), pos_a, pos_b
    fast = text_codes([a, b])
    if fast is not None:
        codes, first = fast
        ids = pa.chunked_array([a, b]).take(positions_to_arrow(first)).combine_chunks()
        return ids, codes[: len(a)], codes[len(a) :]
    encoded = pc.dictionary_encode(pa.chunked_array([a, b]))
    codes = _arrow_codes(encoded)
    ids = encoded.chunk(0).dictionary if encoded.num_chunks else a[:0]
    return ids, codes[: len(a)], codes[len(a) :]


def _hashed(a: IdArray, b: IdArray) -> tuple[IntArray, IntArray] | None:
    """:func:`~._hashed_keys.hashed_keys` of two id columns: ``a``'s ids numbered by
    position, ``b``'s by their match in ``a`` or past it; ``None`` where an id repeats
    on a side or hashing does not apply."""
    from ._hashed_keys import hashed_keys  # their modules read this one's ids
    from ._keys import KeyParts

    return hashed_keys(KeyParts(("id",), (a,)), KeyParts(("id",), (b,)))


def union(a: IdArray, b: IdArray, *, same_set: bool = True) -> tuple[IdArray, IntArray, IntArray]:
    """The distinct ids of ``a`` and ``b`` together, and each element's position in them.

    Returns ``(ids, pos_a, pos_b)`` with ``ids[pos_a[k]] == a[k]``. A repeated
    id within one side gives repeated positions (the caller counts them). The
    two columns must be of the same kind (see :func:`id_kind`). Text ids are
    first looked at as the same set in another order (``ids`` is then ``a``)
    unless ``same_set`` is false (the caller looked already, :func:`same_id_set`).

    Examples
    --------
    >>> ids, pos_a, pos_b = union(pa.array(["x", "y"]), pa.array(["y", "z", "x"]))
    >>> ids.to_pylist(), pos_a.tolist(), pos_b.tolist()
    (['x', 'y', 'z'], [0, 1], [1, 2, 0])
    """
    if _is_text(a) and _is_text(b):
        if a.type != b.type:
            a, b = a.cast(pa.large_string()), b.cast(pa.large_string())
        where = same_set_positions(a, b) if same_set else None
        if where is not None:  # the same distinct ids in another order: ``a``'s are the union
            return a, np.arange(len(a), dtype=np.int64), where
        return _text_union(a, b)
    if isinstance(a, pa.Array) or isinstance(b, pa.Array):
        raise InputTypeError("text and non-text ids cannot be combined")
    # an empty side spans nothing (encode would then label every id of the range)
    given = [x for x in (a, b) if x.shape[0]]
    dense = dense_int_span(*given) if given else None
    if dense is not None:
        lo, span = dense
        used = np.zeros(span, dtype=bool)
        oa, ob = int_offsets(a, lo), int_offsets(b, lo)
        used[oa] = True
        used[ob] = True
        present = np.flatnonzero(used)
        where = np.full(span, -1, dtype=np.int64)
        where[present] = np.arange(present.shape[0], dtype=np.int64)
        return span_ids(present, lo, a.dtype, b.dtype), where[oa], where[ob]
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        numbered = _hashed(a, b)
        if numbered is not None:
            pos_a, pos_b = numbered
            return _integers_together(a, b[pos_b >= a.shape[0]]), pos_a, pos_b
        both = _integers_together(a, b)
    elif a.dtype == b.dtype:
        both = np.concatenate([a, b])
    else:
        both = np.concatenate([a.astype(object), b.astype(object)])
    codes, ids = encode(both, sort=False)
    return ids, codes[: a.shape[0]], codes[a.shape[0] :]


def _integers_together(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Two columns of integer ids as one, in an integer type that holds every id: NumPy's
    common type, or for 64-bit unsigned ids with signed ones (whose common type is
    float64, under which ids past 2^53 would meet) ``int64`` when no unsigned id passes
    ``2^63 - 1``, ``uint64`` when no signed id is negative, else Python's integers.

    Examples
    --------
    >>> u, i = np.array([2**64 - 1, 2**64 - 2], np.uint64), np.array([-1], np.int64)
    >>> _integers_together(u, i).tolist()
    [18446744073709551615, 18446744073709551614, -1]
    """
    given = [x for x in (a, b) if x.size]
    least = min((int(x.min()) for x in given), default=0)
    greatest = max((int(x.max()) for x in given), default=0)
    dtype = _integer_type((a.dtype, b.dtype), least, greatest)
    return np.concatenate([a.astype(dtype, copy=False), b.astype(dtype, copy=False)])


def _integer_type(dtypes: Iterable[np.dtype[Any]], least: int, greatest: int) -> np.dtype[Any]:
    """The type of integer ids from columns of ``dtypes``, from ``least`` to
    ``greatest``: NumPy's common type, or where it has none among the integers (64-bit
    unsigned with signed, float64 to NumPy) ``int64`` when every id fits it, ``uint64``
    when none is negative, else Python's integers (``object``)."""
    dtype = np.result_type(*dtypes)
    if dtype.kind in "iu":
        return dtype
    if greatest < 1 << 63:
        return np.dtype(np.int64)
    return np.dtype(np.uint64 if least >= 0 else object)


def check_no_missing(arr: IdArray, *, name: str, what: str) -> None:
    """Raise naming ``name`` when ``arr`` holds a missing id."""
    if isinstance(arr, np.ndarray) and arr.dtype.kind in "iub":
        return  # integers and booleans have no missing value (and no mask to build)
    missing = missing_mask(arr)
    if missing.any():
        pos = np.flatnonzero(missing)
        raise InputError(
            f"'{name}' has {pos.size} missing {what} (empty, null or NaN), first at row {int(pos[0])}"
        )


def duplicate_ids(ids: IdArray) -> tuple[IdArray, int]:
    """The ids that occur more than once in ``ids``, and the number of surplus copies."""
    dense = dense_int_span(ids)
    if dense is not None:
        lo, span = dense
        offsets = int_offsets(ids, lo)
        seen = np.zeros(span, dtype=bool)  # a byte per id: far cheaper to scatter than counts
        seen[offsets] = True
        if np.count_nonzero(seen) == len(ids):
            return take(ids, np.zeros(0, dtype=np.int64)), 0
        counts = np.bincount(offsets, minlength=span)
        dup = np.flatnonzero(counts > 1)
        return span_ids(dup, lo, ids.dtype), int((counts[dup] - 1).sum())
    if _is_text(ids) and surely_distinct(ids):
        return take(ids, np.zeros(0, dtype=np.int64)), 0
    codes, uniques = encode(ids, sort=False)
    return duplicates_of(codes, uniques)


def duplicates_of(codes: npt.NDArray[np.int64], uniques: IdArray) -> tuple[IdArray, int]:
    """The ids whose code occurs more than once in ``codes``, and the surplus count.

    ``uniques`` may hold more ids than ``codes`` uses (the union of two sides).
    """
    counts = np.bincount(codes, minlength=len(uniques))
    if codes.shape[0] == 0 or counts.max() <= 1:
        return take(uniques, np.zeros(0, dtype=np.int64)), 0
    dup = np.flatnonzero(counts > 1)
    return take(uniques, dup), int((counts[dup] - 1).sum())


def object_array(items: Iterable[Any]) -> npt.NDArray[Any]:
    """``items`` as a 1-D array of Python objects (never a 2-D array of tuples)."""
    values = list(items)
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr
