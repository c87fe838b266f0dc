"""Whether the integer record keys of each side repeat, from one flag per key of
their span.

A side's keys are streamed once out of DuckDB, each setting the flag at its offset
from the side's smallest key; they repeat exactly when fewer flags are set than
the side has rows. That is a scan of the side and a byte per key of the span,
where grouping each record of one side only by its key (DuckDB's hash aggregate
over every such record) took up to four times the CPU of the join itself, and a
second full join as much as the first. Keys of other types, or spread over a span
of more than :data:`SPAN_PER_ROW` bytes a row of the two sides or half the memory left to DuckDB,
are left to those.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["SPAN_PER_ROW", "Flags", "flagged_repeats"]

#: The most flags (bytes) per row of a side.
SPAN_PER_ROW = 4
#: DuckDB's integer types that NumPy holds (HUGEINT does not fit 64 bits).
_FLAGGED = re.compile(r"U?(?:TINYINT|SMALLINT|INTEGER|BIGINT)")


class Flags:
    """One flag per integer of ``[lo, lo + span)``, set by :meth:`add`.

    Examples
    --------
    >>> flags = Flags(-2, 5)
    >>> flags.add(np.array([2, -2, 0]))
    >>> flags.add(np.array([0]))
    >>> flags.count()
    3
    """

    def __init__(self, lo: int, span: int) -> None:
        self._lo = np.uint64(lo % 2**64)
        self._seen = np.zeros(span, dtype=bool)

    def add(self, keys: npt.NDArray[Any]) -> None:
        """Set the flags of ``keys`` (integers within the span). Offsets are taken
        modulo 2^64, which gives each key of any integer type its offset exactly."""
        self._seen[keys.astype(np.uint64, copy=False) - self._lo] = True

    def count(self) -> int:
        """The flags set: the distinct keys added."""
        return int(np.count_nonzero(self._seen))


def flagged_repeats(
    con: Any, sides: tuple[str, str], rows: tuple[int, int]
) -> tuple[int, int] | None:
    """For each of ``sides`` (views or queries in parentheses with the integer record
    keys ``r``, of ``rows`` rows, checked to hold no NULL), 1 when a key repeats and 0
    when none does; ``None`` when the flags do not apply to both sides (keys of
    another type, or over too wide a span), before any is streamed."""
    most = SPAN_PER_ROW * (rows[0] + rows[1])
    t_span, p_span = (_span(con, side, n, most) for side, n in zip(sides, rows, strict=True))
    if t_span is None or p_span is None:
        return None
    return int(_repeat(con, sides[0], t_span, rows[0])), int(
        _repeat(con, sides[1], p_span, rows[1])
    )


def _span(con: Any, side: str, rows: int, most: int) -> tuple[int, int] | None:
    """The smallest key of ``side`` (of ``rows`` rows) and the span of its keys, when
    they are integers over a span of at most ``most`` whose flags fit; else ``None``."""
    described = con.execute(f"DESCRIBE SELECT r FROM {side}").fetchall()
    if _FLAGGED.fullmatch(str(described[0][1])) is None:
        return None
    lo, hi, keys = con.execute(f"SELECT min(r), max(r), count(r) FROM {side}").fetchall()[0]
    if keys != rows:  # a NULL key (or rows miscounted): left to the grouping
        return None
    if lo is None:  # no row
        return 0, 0
    span = int(hi) - int(lo) + 1
    budget = con.memory_bytes()
    if span > most or (budget is not None and 2 * span > budget):
        return None
    return int(lo), span


def _repeat(con: Any, side: str, span: tuple[int, int], rows: int) -> bool:
    """Whether a key of ``side`` repeats, its flags held outside DuckDB's memory."""
    flags = Flags(*span)
    with con.hold_memory(span[1]):
        for batch in con.fetch_batches(f"SELECT r FROM {side}"):
            flags.add(batch.column(0).to_numpy())
    return flags.count() != rows
