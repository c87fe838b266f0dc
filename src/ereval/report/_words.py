"""Small helpers to write the report's sentences from numbers.

>>> fmt(0.951234), plural(1, "release"), plural(3, "release"), listing(["a", "b", "c"])
('0.951', '1 release', '3 releases', 'a, b and c')
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..results import Estimate

__all__ = ["fmt", "interval", "listing", "plural"]


def fmt(value: float, digits: int = 3) -> str:
    """``value`` to ``digits`` significant digits (``n/a`` when undefined), more when a
    non-integer would read as an integer.

    >>> fmt(0.99997), fmt(0.9998, 3), fmt(1.0)
    ('0.99997', '0.9998', '1')
    """
    v = float(value)
    if not math.isfinite(v):
        return "n/a"
    text = f"{v:.{digits}g}"
    while not v.is_integer() and float(text).is_integer() and digits < 15:
        digits += 1  # 0.99997 is not "1": enough digits to see the difference
        text = f"{v:.{digits}g}"
    return text


def plural(n: int, word: str) -> str:
    """``"1 release"``, ``"3 releases"``."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def listing(items: Iterable[str]) -> str:
    """``"a, b and c"``."""
    xs = list(items)
    if len(xs) <= 1:
        return "".join(xs)
    return ", ".join(xs[:-1]) + " and " + xs[-1]


def interval(est: Estimate) -> str:
    """``"0.961 [0.941, 0.981]"``: the value and its interval."""
    return f"{fmt(est.value)} [{fmt(est.lower)}, {fmt(est.upper)}]"
