"""Memory-bounded plans for the DuckDB engine: the join of two clusterings in passes.

A single DuckDB join + GROUP BY over every record may run out of memory under a
memory limit on some input shapes (keys ascending part by part, the two sides in
opposite orders), even though DuckDB spills. The plan therefore splits the work
so that each piece fits: both sides are hash-partitioned by record key into
``P`` passes, the partition ``q = hash(r) % P`` of every row computed once (a
temporary table, spilled to the temporary directory past the limit); pass ``k``
joins and groups the rows with ``q = k`` only. A record falls in exactly one
pass, on both sides, so a cell ``(tc, pc)`` of the contingency table is the sum
of its counts over the passes,

.. math::  n_{tc,pc} = \\sum_{k=0}^{P-1} n^{(k)}_{tc,pc},

and the passes' groups are merged by a GROUP BY over them, itself split by
``hash(tc) % P`` (a cell falls in one merge pass). Every statistic is then
computed from the merged cells exactly as from a single join.

``P`` is chosen from the memory limit and the rows (:func:`pass_count`). A pass
that still runs out of memory is split in two (``hash % 2m`` in ``{k, k + m}``
for ``hash % m = k``) and run again, down to :data:`MAX_MODULUS` passes.

References
----------
Shapiro, L. D. (1986). Join processing in database systems with large main
memories. ACM TODS 11(3), 239-264 (the GRACE hash join: partition both sides by
a hash of the join key, then join partition by partition).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._errors import InputError
from . import _dialect as sql

__all__ = [
    "MAX_MODULUS",
    "ROW_BYTES",
    "Pass",
    "check_memory_size",
    "limit_bytes",
    "pass_count",
    "planned_cells",
    "run_split",
]

#: Bytes of DuckDB memory a row of the join needs, both sides counted (its hash
#: table, the probe's buffers and the groups): measured at 1 GB on the shape
#: where a single join fails, with a margin.
ROW_BYTES = 160
#: The share of the memory limit a pass is planned to use.
SHARE = 0.5
#: The most passes a plan splits into before it gives up.
MAX_MODULUS = 1 << 12

_UNITS = {
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}


_SIZE = re.compile(r"^\s*\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$", re.IGNORECASE)


def check_memory_size(name: str, value: str | None, *, minimum: str, why: str) -> str | None:
    """``value`` if it is a memory size such as ``"2GB"`` or ``"512MiB"`` of at least
    ``minimum`` (``why``: the reason for the minimum, said when it is not met).

    Examples
    --------
    >>> check_memory_size("memory_limit", " 2GB", minimum="32MB", why="buffers")
    '2GB'
    """
    if value is None:
        return None
    if not isinstance(value, str) or not _SIZE.match(value):
        raise InputError(f"'{name}' must be a size such as '2GB' or '512MB'; received {value!r}")
    if limit_bytes(value) < limit_bytes(minimum):
        raise InputError(
            f"'{name}' must be at least {minimum} ({why}); received {value.strip()!r}"
        )
    return value.strip()


def limit_bytes(limit: str) -> int:
    """The bytes of a DuckDB memory size such as ``"2GB"`` or ``"512MiB"``.

    Examples
    --------
    >>> limit_bytes("1GB"), limit_bytes("1.5 KiB")
    (1000000000, 1536)
    """
    got = re.match(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]+)\s*$", limit)
    if got is None or got.group(2).lower() not in _UNITS:
        raise ValueError(f"not a memory size: {limit!r}")
    return int(float(got.group(1)) * _UNITS[got.group(2).lower()])


def pass_count(rows: int, limit: int | None, *, row_bytes: int = ROW_BYTES) -> int:
    """The passes for a join of ``rows`` rows (both sides) under ``limit`` bytes:
    ``ceil(rows * row_bytes / (SHARE * limit))``, 1 without a limit.

    Examples
    --------
    >>> pass_count(10**8, 10**9), pass_count(10**6, 10**9), pass_count(10**6, None)
    (32, 1, 1)
    """
    if limit is None or rows <= 0:
        return 1
    return max(1, min(MAX_MODULUS, math.ceil(rows * row_bytes / (SHARE * limit))))


@dataclass(frozen=True)
class Pass:
    """The rows with ``hash % modulus = residue`` (``modulus`` a multiple of the
    plan's pass count, the partition column ``q`` being ``hash % P``)."""

    modulus: int
    residue: int

    def where(self, column: str, hashed: str, planned: int) -> str:
        """The SQL predicate of this pass over the partition ``column`` (``hash %
        planned``), with the finer one on ``hashed`` (the hash itself) once split."""
        own = f"{column} = {self.residue % planned}"
        if self.modulus == planned:
            return own
        return f"{own} AND {hashed} % {self.modulus} = {self.residue}"

    def split(self) -> tuple[Pass, Pass]:
        """The two halves of this pass."""
        m = 2 * self.modulus
        return Pass(m, self.residue), Pass(m, self.residue + self.modulus)


def run_split(planned: int, run: Callable[[Pass], None], out_of_memory: type[Exception]) -> int:
    """``run(piece)`` for each of the ``planned`` passes, a piece that raises
    ``out_of_memory`` split in two and run again (up to :data:`MAX_MODULUS`);
    the number of pieces run."""
    todo = [Pass(planned, k) for k in reversed(range(planned))]
    done = 0
    while todo:
        piece = todo.pop()
        try:
            run(piece)
        except out_of_memory:
            if piece.modulus * 2 > MAX_MODULUS:
                raise
            todo.extend(reversed(piece.split()))
            continue
        done += 1
    return done


def _hash(key: str, kind: str) -> str:
    # integers of every width hash alike in DuckDB; floats are compared as doubles
    return f"hash(CAST({key} AS DOUBLE))" if kind == "float" else f"hash({key})"


def planned_cells(con: Any, sides: tuple[str, str], planned: int) -> str:
    """The groups of :func:`ereval.engines._dialect.cells_sql` over ``sides`` (views or
    queries in parentheses with the columns ``r`` and ``c``), computed in
    ``planned`` passes (more when a pass runs out of memory) into the temporary
    table ``cells``; its name. Keys of floats are hashed as doubles (so that equal
    keys of two float types fall in the same pass)."""
    import duckdb

    oom = duckdb.OutOfMemoryException
    types = [str(con.execute(f"DESCRIBE SELECT r FROM {side}").fetchall()[0][1]) for side in sides]
    floats = any(t.startswith(("FLOAT", "DOUBLE", "DECIMAL", "REAL")) for t in types)
    hashed = _hash("r", "float" if floats else "other")
    for view, side in zip(("tq", "pq"), sides, strict=True):
        con.execute(
            f"CREATE TEMP TABLE {view} AS SELECT {hashed} % {planned} AS q, {hashed} AS h, "
            f"r, c FROM {side}"
        )
    template = sql.cells_sql("(SELECT r, c FROM tq WHERE {w})", "(SELECT r, c FROM pq WHERE {w})")
    con.execute(f"CREATE TEMP TABLE cell_parts AS {template.format(w='false')}")

    def join(piece: Pass) -> None:
        con.execute("INSERT INTO cell_parts " + template.format(w=piece.where("q", "h", planned)))

    run_split(planned, join, oom)
    con.execute("DROP TABLE tq")
    con.execute("DROP TABLE pq")
    con.execute(
        "CREATE TEMP TABLE cell_hashed AS SELECT hash(tc) % "
        f"{planned} AS q, hash(tc) AS h, tc, pc, n FROM cell_parts"
    )
    con.execute("DROP TABLE cell_parts")
    merged = "SELECT tc, pc, CAST(sum(n) AS BIGINT) AS n FROM cell_hashed WHERE {w} GROUP BY tc, pc"
    con.execute(f"CREATE TEMP TABLE cells AS {merged.format(w='false')}")

    def merge(piece: Pass) -> None:
        con.execute("INSERT INTO cells " + merged.format(w=piece.where("q", "h", planned)))

    run_split(planned, merge, oom)
    con.execute("DROP TABLE cell_hashed")
    return "cells"
