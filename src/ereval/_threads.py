"""Work on the two sides of an evaluation at once, in two threads.

NumPy's sorts and arithmetic and Arrow's kernels release the interpreter, so two
threads use both cores; below :data:`MIN_SIZE` items a thread costs more than it
saves.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

__all__ = ["MIN_SIZE", "both"]

T = TypeVar("T")

#: Sides of fewer items are worked on one after the other.
MIN_SIZE = 50_000


def both(work: Callable[[Any], T], a: Any, b: Any, *, size: int) -> tuple[T, T]:
    """``(work(a), work(b))``, ``b``'s in a second thread when ``size`` (the items each
    side holds) reaches :data:`MIN_SIZE`."""
    if size < MIN_SIZE:
        return work(a), work(b)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ereval-sides") as pool:
        later = pool.submit(work, b)
        first = work(a)
        return first, later.result()
