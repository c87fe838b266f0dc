"""Shared validators for scalar options and arrays.

Each validator raises :class:`~ereval._errors.InputError` (or
:class:`~ereval._errors.InputTypeError`) with a message that names the argument,
states what was expected and shows what was received.
"""

from __future__ import annotations

import datetime as dt
import math
import numbers
from collections.abc import Sequence
from decimal import Decimal
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from ._errors import InputError, InputTypeError

T = TypeVar("T", bound=str)


def describe(value: Any, *, limit: int = 60) -> str:
    """A short, readable rendering of ``value`` for error messages."""
    if isinstance(value, np.ndarray):
        text = f"array of dtype {value.dtype} and shape {value.shape}"
    elif isinstance(value, str):
        text = repr(value)
    elif isinstance(value, bool | numbers.Number | type(None)):
        text = f"{value!r} ({type(value).__name__})"
    else:
        text = f"{type(value).__name__} {value!r}"
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def examples(
    values: Sequence[Any] | npt.NDArray[Any], *, k: int = 3, total: int | None = None
) -> str:
    """Render up to ``k`` example values, e.g. ``'r1', 'r7', 'r9'``, and how many more of
    the ``total`` (default: of ``values``) there are; numbers as written (a decimal,
    such as an unsigned 64-bit id Spark reads, without its type).

    >>> examples(["r1", np.int64(7), Decimal("18446744073709551615"), Decimal("1.50")])
    "'r1', 7, 18446744073709551615 and 1 more"
    >>> examples([dt.date(2000, 1, 2), np.datetime64("2000-01-02T03:04:05", "ns")])
    '2000-01-02, 2000-01-02 03:04:05'
    """
    shown = [_shown(v) for v in list(values[:k])]
    more = (len(values) if total is None else total) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def _shown(value: Any) -> str:
    if isinstance(value, np.datetime64) and np.datetime_data(value.dtype)[0] != "D":
        value = value.astype("datetime64[us]")  # as Python reads it (.item() of ns: int)
    if isinstance(value, np.generic):
        value = value.item()
    # numbers, dates and times as the outputs write them
    return str(value) if isinstance(value, Decimal | dt.date | dt.time) else repr(value)


def check_real(name: str, value: Any) -> float:
    """Return ``value`` as a finite float; reject bools, strings, NaN and inf."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputTypeError(f"'{name}' must be a real number; received {describe(value)}")
    out = float(value)
    if not math.isfinite(out):
        raise InputError(f"'{name}' must be finite; received {out!r}")
    return out


def check_in_range(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` as a float after checking it lies in the given interval."""
    out = check_real(name, value)
    bad = (low is not None and (out < low or (low_open and out == low))) or (
        high is not None and (out > high or (high_open and out == high))
    )
    if bad:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        raise InputError(f"'{name}' must lie in {left}{lo}, {hi}{right}; received {out!r}")
    return out


def check_beta(beta: Any) -> float:
    """Validate the F-measure weight ``beta`` (finite, > 0)."""
    out = check_real("beta", beta)
    if out <= 0:
        raise InputError(f"'beta' must be > 0; received {out!r}")
    return out


def check_int(name: str, value: Any, *, minimum: int | None = None) -> int:
    """Return ``value`` as an int; reject floats (even integral ones), bools and strings."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputTypeError(f"'{name}' must be an integer; received {describe(value)}")
    out = int(value)
    if minimum is not None and out < minimum:
        raise InputError(f"'{name}' must be an integer >= {minimum}; received {out}")
    return out


def check_choice(name: str, value: Any, choices: Sequence[T]) -> T:
    """Return ``value`` if it is one of ``choices``."""
    for choice in choices:
        if value == choice:
            return choice
    options = ", ".join(repr(c) for c in choices)
    raise InputError(f"'{name}' must be one of {options}; received {describe(value)}")


def check_rng(seed: Any) -> np.random.Generator:
    """Turn ``seed`` (None, int, SeedSequence or Generator) into a Generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or int(seed) < 0:
        raise InputTypeError(
            "'seed' must be None, a non-negative integer or a numpy.random.Generator; "
            f"received {describe(seed)}"
        )
    return np.random.default_rng(int(seed))


def as_1d_array(name: str, values: Any) -> npt.NDArray[Any]:
    """Convert ``values`` to a 1-D NumPy array, rejecting scalars and nested shapes."""
    if isinstance(values, str | bytes) or np.isscalar(values):
        raise InputTypeError(f"'{name}' must be a 1-D sequence; received {describe(values)}")
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise InputTypeError(
            f"'{name}' must be a 1-D sequence; received {describe(values)} ({exc})"
        ) from exc
    if arr.ndim != 1:
        raise InputError(f"'{name}' must be 1-dimensional; received shape {arr.shape}")
    return arr


def check_finite_array(name: str, values: Any) -> npt.NDArray[np.float64]:
    """A 1-D float64 array with no NaN or infinity."""
    arr = as_1d_array(name, values)
    if arr.dtype.kind not in "biuf":
        raise InputTypeError(f"'{name}' must hold numbers; received dtype {arr.dtype}")
    out = arr.astype(np.float64)
    bad = ~np.isfinite(out)
    if bad.any():
        idx = np.flatnonzero(bad)
        raise InputError(
            f"'{name}' must be finite; received {idx.size} NaN or infinite value(s) "
            f"(first at position {int(idx[0])})"
        )
    return out


def check_binary_array(name: str, values: Any) -> npt.NDArray[np.int8]:
    """A 1-D array of 0/1 values (bools accepted), returned as int8."""
    arr = as_1d_array(name, values)
    if arr.dtype.kind == "b":
        return arr.astype(np.int8)
    if arr.dtype.kind not in "iuf":
        raise InputTypeError(f"'{name}' must hold 0/1 values; received dtype {arr.dtype}")
    bad = ~np.isin(arr, (0, 1))
    if bad.any():
        idx = np.flatnonzero(bad)
        raise InputError(
            f"'{name}' must hold only 0 and 1; received {idx.size} other value(s), "
            f"e.g. {examples(arr[idx])} (first at position {int(idx[0])})"
        )
    return arr.astype(np.int8)


def as_name_list(name: str, value: Any, *, what: str) -> list[str]:
    """Names given as a list or as one comma-separated string; never empty.

    ``what`` describes the names in messages, e.g. ``"metric names"``.
    """
    if isinstance(value, str):
        names = [m.strip() for m in value.split(",") if m.strip()]
    else:
        try:
            names = [str(m) for m in value]
        except TypeError as exc:
            raise InputTypeError(
                f"'{name}' must be a list of {what}; received {describe(value)}"
            ) from exc
    if not names:
        raise InputError(f"'{name}' is empty; expected at least one of the {what}")
    return names
